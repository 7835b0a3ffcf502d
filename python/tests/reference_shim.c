// The C reference (tests/reference) over buffers the caller holds, as plain functions a
// ctypes caller can reach: the Python binding's tests compare torch.ops.gg.* with it.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gg/op.h"
#include "tests/reference/reference.h"

// Writes the reference output of the operator (layout, scaling, B layout, FP8 flavour,
// target, accumulation, N, K, G, grouped extent m) over buffers[gg_operand] into out, and
// into bound how far the target's accumulation may stray from it. Returns the output's
// element count.
int64_t gg_pyref_run(int layout, int scaling, int b_layout, int fp8, int target, int accum,
                     int64_t n, int64_t k,
                     int64_t g, int64_t m, int zeroing, void* const buffers[GG_OPERAND_COUNT],
                     uint16_t* out, double* bound) {
  gg_op_desc in;
  memset(&in, 0, sizeof in);
  in.layout = (gg_layout)layout;
  in.scaling = (gg_scaling)scaling;
  in.b_layout = (gg_b_layout)b_layout;
  in.fp8 = (gg_fp8)fp8;
  in.n = n;
  in.k = k;
  in.g = g;
  in.target = (gg_target)target;
  in.accum = (gg_accum)accum;
  gg_problem problem;
  memset(&problem, 0, sizeof problem);
  problem.desc = gg_op_desc_with_defaults(&in);
  problem.m = m;
  problem.zeroing = zeroing;
  problem.data = GG_DATA_RANDOM;
  for (int op = 0; op < GG_OPERAND_COUNT; ++op) {
    problem.shapes[op] = gg_operand_shape_of(&problem.desc, (gg_operand)op, m);
    problem.buffers[op] = buffers[op];
  }
  gg_reference_run(&problem, out, bound);
  return gg_operand_shape_numel(&problem.shapes[GG_OPERAND_OUT]);
}

// gg_compare_outputs: counts[0..3] = mismatches, unwritten, clobbered, first_bad.
double gg_pyref_compare(const uint16_t* got, const uint16_t* want, const double* bound,
                        int64_t count, int exact, int64_t counts[4]) {
  gg_compare_result r = gg_compare_outputs(got, want, bound, count, exact);
  counts[0] = r.mismatches;
  counts[1] = r.unwritten;
  counts[2] = r.clobbered;
  counts[3] = r.first_bad;
  return r.max_abs_err;
}
