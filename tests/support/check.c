// The host check: one problem through compile, launch, reference and comparison.
#include "tests/support/check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/compile.h"
#include "sim/sim.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

// A compiled kernel of either backend.
typedef struct kernel {
  gg_check_backend backend;
  gg_host_kernel* host;
  MlirContext ctx;
  MlirModule module;
  double compile_ms;
} kernel;

static gg_status kernel_create(const gg_op_desc* desc, gg_check_backend backend, kernel* k) {
  memset(k, 0, sizeof *k);
  k->backend = backend;
  double start = now_ms();
  if (backend == GG_CHECK_HOST) {
    if (desc->target != GG_TARGET_HOST)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the host backend runs host kernels");
    GG_RETURN_IF_ERROR(gg_host_kernel_create(desc, &k->host));
    k->compile_ms = gg_host_kernel_compile_ms(k->host);
    return GG_OK;
  }
  if (desc->target == GG_TARGET_HOST)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "sim runs AMD kernels (gfx942, gfx950)");
  GG_RETURN_IF_ERROR(gg_compile_module(desc, GG_STAGE_TARGET, &k->ctx, &k->module));
  k->compile_ms = now_ms() - start;
  return GG_OK;
}

static gg_status kernel_run(kernel* k, const gg_problem* p, gg_check_result* result) {
  if (k->backend == GG_CHECK_HOST)
    return gg_host_kernel_run(k->host, p->buffers, p->m, p->zeroing);
  gg_sim_stats stats;
  gg_status status = gg_sim_run(mlirModuleGetOperation(k->module), &p->desc, p->buffers, p->m,
                                p->zeroing, &stats);
  result->sim_mfmas = stats.mfmas;
  return status;
}

static void kernel_destroy(kernel* k) {
  gg_host_kernel_destroy(k->host);
  if (!mlirModuleIsNull(k->module)) mlirModuleDestroy(k->module);
  if (!mlirContextIsNull(k->ctx)) mlirContextDestroy(k->ctx);
}

gg_status gg_check_run(const gg_problem_spec* spec, gg_check_backend backend, int keep_output,
                       gg_check_result* result) {
  memset(result, 0, sizeof *result);
  gg_problem* problem;
  GG_RETURN_IF_ERROR(gg_problem_create(spec, &problem));
  kernel k;
  gg_status status = kernel_create(&problem->desc, backend, &k);
  if (status) {
    kernel_destroy(&k);
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
    status = kernel_run(&k, problem, result);
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
    result->compile_ms = k.compile_ms;
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
  kernel_destroy(&k);
  gg_problem_destroy(problem);
  return status;
}

gg_status gg_check_host(const gg_problem_spec* spec, int keep_output, gg_check_result* result) {
  return gg_check_run(spec, GG_CHECK_HOST, keep_output, result);
}

void gg_check_result_free(gg_check_result* result) {
  free(result->output);
  free(result->expected);
  result->output = result->expected = NULL;
}
