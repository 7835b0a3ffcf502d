// The host check: one problem through compile, launch, reference and comparison.
#include "tests/support/check.h"
#include "runtime/clock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compile.h"
#include "gg/gg.h"
#include "sim/sim.h"
#include "tests/support/verify.h"


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
  double start = gg_now_ms();
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
    if (backend == GG_CHECK_GPU && desc->target != GG_TARGET_SM90A) {  // CUDA checks at launch
      gg_target gpu;
      GG_RETURN_IF_ERROR(gg_context_gpu_target(k->api, &gpu));
      if (gpu != desc->target)
        return gg_status_make(GG_STATUS_UNAVAILABLE, "the GPU here is %s, not %s",
                              gg_target_name(gpu), gg_target_name(desc->target));
    }
    GG_RETURN_IF_ERROR(gg_kernel_get(k->api, desc, &k->api_kernel));
    k->compile_ms = gg_now_ms() - start;
    return GG_OK;
  }
  if (desc->target == GG_TARGET_HOST)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "sim runs AMD kernels (gfx942, gfx950)");
  GG_RETURN_IF_ERROR(gg_compile_module(desc, GG_STAGE_TARGET, &k->ctx, &k->module));
  k->compile_ms = gg_now_ms() - start;
  return GG_OK;
}

static gg_status kernel_run(void* user, const gg_problem* p, gg_check_result* result) {
  kernel* k = user;
  if (k->backend == GG_CHECK_HOST)
    return gg_host_kernel_run(k->host, p->buffers, p->m, p->zeroing);
  if (k->backend == GG_CHECK_API || k->backend == GG_CHECK_GPU) {
    gg_verify_api api = {.context = k->api, .kernel = k->api_kernel};
    gg_status status = gg_verify_api_launch(&api, p, result);
    gg_verify_api_free(&api);
    return status;
  }
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
  if (!status) {
    result->compile_ms = k.compile_ms;
    status = gg_verify_problem(problem, kernel_run, &k, 1, keep_output, result);
  }
  kernel_destroy(&k);
  gg_problem_destroy(problem);
  return status;
}

gg_status gg_check_host(const gg_problem_spec* spec, int keep_output, gg_check_result* result) {
  return gg_check_run(spec, GG_CHECK_HOST, keep_output, result);
}
