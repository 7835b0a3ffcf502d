// Example helpers.
#include "examples/example.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/reference/reference.h"

DLTensor example_tensor(void* data, DLDataType dtype, int ndim, int64_t* shape) {
  DLTensor t = {data, {kDLCPU, 0}, ndim, dtype, shape, NULL, 0};
  return t;
}

gg_problem* example_problem(gg_layout layout, gg_scaling scaling, int64_t n, int64_t k,
                            const int64_t* extents, int64_t groups, int64_t m, int zeroing) {
  gg_op_desc desc = {0};
  desc.layout = layout;
  desc.scaling = scaling;
  desc.fp8 = GG_FP8_E4M3FN;
  desc.n = n;
  desc.k = k;
  desc.g = groups;
  desc.target = GG_TARGET_HOST;
  gg_problem_spec spec = {desc, extents, m, zeroing, GG_DATA_RANDOM, 2026, 0};
  gg_problem* problem;
  gg_status status = gg_problem_create(&spec, &problem);
  if (status) {
    fprintf(stderr, "cannot draw the inputs: %s\n", gg_status_message(status));
    exit(1);
  }
  gg_poison_bf16(problem->buffers[GG_OPERAND_OUT],
                 gg_operand_shape_numel(&problem->shapes[GG_OPERAND_OUT]));
  return problem;
}

int example_check(const char* name, gg_problem* problem) {
  int64_t count = gg_operand_shape_numel(&problem->shapes[GG_OPERAND_OUT]);
  uint16_t* want = malloc((size_t)(count ? count : 1) * sizeof *want);
  double* bound = malloc((size_t)(count ? count : 1) * sizeof *bound);
  if (!want || !bound) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  gg_poison_bf16(want, count);
  gg_reference_run(problem, want, bound);
  gg_compare_result r = gg_compare_outputs(problem->buffers[GG_OPERAND_OUT], want, bound, count, 0);
  int passed = r.mismatches == 0 && r.unwritten == 0 && r.clobbered == 0;
  printf("%-32s %s elements=%lld max_abs_err=%g max_ulp=%d\n", name, passed ? "PASS" : "FAIL",
         (long long)r.elements, r.max_abs_err, r.max_ulp);
  free(want);
  free(bound);
  return passed ? 0 : 1;
}

int example_fail(const char* what, gg_status status) {
  fprintf(stderr, "%s: %s\n", what, gg_status_message(status));
  gg_status_free(status);
  return 1;
}
