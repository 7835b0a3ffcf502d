// The host check: one problem through compile, launch, reference and comparison.
#include "tests/support/check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/compile.h"
#include "gg/gg.h"
#include "runtime/hash.h"
#include "sim/sim.h"
#include "tests/support/dl.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

// The API backends share one context per process (default options: the user's cache).
static gg_context* shared_context;
static gg_status shared_context_error;
static pthread_once_t shared_context_once = PTHREAD_ONCE_INIT;

static void shared_context_create(void) {
  shared_context_error = gg_context_create(NULL, &shared_context);
}

static gg_status api_context(gg_context** out) {
  pthread_once(&shared_context_once, shared_context_create);
  *out = shared_context;
  if (shared_context_error)
    return gg_status_make(gg_status_code_of(shared_context_error), "%s",
                          gg_status_message(shared_context_error));
  return GG_OK;
}

gg_status gg_check_gpu_target(gg_target* out) {
  gg_context* context;
  GG_RETURN_IF_ERROR(api_context(&context));
  return gg_context_gpu_target(context, out);
}

// A compiled kernel of any backend.
typedef struct kernel {
  gg_check_backend backend;
  gg_host_kernel* host;
  MlirContext ctx;
  MlirModule module;
  gg_context* api;
  gg_kernel* api_kernel;  // owned by the context
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
  if (backend == GG_CHECK_API || backend == GG_CHECK_GPU) {
    if ((backend == GG_CHECK_API) != (desc->target == GG_TARGET_HOST))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "the API backend runs host kernels; the GPU backend AMD kernels");
    GG_RETURN_IF_ERROR(api_context(&k->api));
    if (backend == GG_CHECK_GPU) {
      gg_target gpu;
      GG_RETURN_IF_ERROR(gg_context_gpu_target(k->api, &gpu));
      if (gpu != desc->target)
        return gg_status_make(GG_STATUS_UNAVAILABLE, "the GPU here is %s, not %s",
                              gg_target_name(gpu), gg_target_name(desc->target));
    }
    GG_RETURN_IF_ERROR(gg_kernel_get(k->api, desc, &k->api_kernel));
    k->compile_ms = now_ms() - start;
    return GG_OK;
  }
  if (desc->target == GG_TARGET_HOST)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "sim runs AMD kernels (gfx942, gfx950)");
  GG_RETURN_IF_ERROR(gg_compile_module(desc, GG_STAGE_TARGET, &k->ctx, &k->module));
  k->compile_ms = now_ms() - start;
  return GG_OK;
}

// Runs on the GPU through the API: operands copied to shared memory and the output back.
static gg_status gpu_run(kernel* k, const gg_problem* p) {
  void* device[GG_OPERAND_COUNT] = {NULL};
  gg_status status = GG_OK;
  for (int i = 0; i < GG_OPERAND_COUNT && !status; ++i) {
    if (!p->buffers[i]) continue;
    status = gg_context_gpu_alloc(k->api, p->bytes[i], &device[i]);
    if (!status) memcpy(device[i], p->buffers[i], p->bytes[i]);
  }
  if (!status) {
    gg_dl_operands operands;
    gg_dl_wrap(p, device, (DLDevice){kDLROCM, 0}, &operands);
    status = gg_kernel_launch(k->api, k->api_kernel, operands.pointers, p->zeroing);
  }
  if (!status) memcpy(p->buffers[GG_OPERAND_OUT], device[GG_OPERAND_OUT], p->bytes[GG_OPERAND_OUT]);
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) gg_context_gpu_free(k->api, device[i]);
  return status;
}

static gg_status kernel_run(kernel* k, const gg_problem* p, gg_check_result* result) {
  if (k->backend == GG_CHECK_HOST)
    return gg_host_kernel_run(k->host, p->buffers, p->m, p->zeroing);
  if (k->backend == GG_CHECK_API) {
    gg_dl_operands operands;
    gg_dl_wrap(p, p->buffers, (DLDevice){kDLCPU, 0}, &operands);
    return gg_kernel_launch(k->api, k->api_kernel, operands.pointers, p->zeroing);
  }
  if (k->backend == GG_CHECK_GPU) return gpu_run(k, p);
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
    result->checksum = gg_fnv1a64(got, (size_t)count * sizeof *got);
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
