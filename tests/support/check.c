// The host check: one problem through compile, launch, reference and comparison.
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/compile.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

gg_status gg_check_host(const gg_problem_spec* spec, int keep_output, gg_check_result* result) {
  memset(result, 0, sizeof *result);
  gg_problem* problem;
  GG_RETURN_IF_ERROR(gg_problem_create(spec, &problem));
  gg_host_kernel* kernel;
  gg_status status = gg_host_kernel_create(&problem->desc, &kernel);
  if (status) {
    gg_problem_destroy(problem);
    return status;
  }
  int64_t count = gg_operand_shape_numel(&problem->shapes[GG_OPERAND_OUT]);
  size_t slots = (size_t)(count ? count : 1);
  uint16_t* got = problem->buffers[GG_OPERAND_OUT];
  uint16_t* want = malloc(slots * sizeof *want);
  double* bound = malloc(slots * sizeof *bound);
  if (!want || !bound) {
    status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  } else {
    gg_poison_bf16(got, count);
    gg_poison_bf16(want, count);
    double start = now_ms();
    status = gg_host_kernel_run(kernel, problem->buffers, problem->m, problem->zeroing);
    result->run_ms = now_ms() - start;
  }
  if (!status) {
    gg_reference_run(problem, want, bound);
    result->compare = gg_compare_outputs(got, want, bound, count, problem->desc.k,
                                         problem->data == GG_DATA_EXACT);
    result->passed = result->compare.mismatches == 0 && result->compare.unwritten == 0 &&
                     result->compare.clobbered == 0;
    result->checksum = gg_hash_bytes(got, (size_t)count * sizeof *got);
    result->m = problem->m;
    result->compile_ms = gg_host_kernel_compile_ms(kernel);
    result->output_count = count;
    gg_op_desc_kernel_name(&problem->desc, result->kernel_name, sizeof result->kernel_name);
    if (keep_output) {
      result->output = malloc(slots * sizeof *got);
      result->expected = want;
      want = NULL;
      if (result->output) memcpy(result->output, got, (size_t)count * sizeof *got);
    }
  }
  free(want);
  free(bound);
  gg_host_kernel_destroy(kernel);
  gg_problem_destroy(problem);
  return status;
}

void gg_check_result_free(gg_check_result* result) {
  free(result->output);
  free(result->expected);
  result->output = result->expected = NULL;
}
