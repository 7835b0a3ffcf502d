// gg_kernels_get: many kernels at once, their compiles spread over threads (each
// gg_kernel_get compiles in its own MLIR context; the context's table makes threads that
// ask for one descriptor share its build). For sweeps: gg tune and autotuning.
#include "api/internal.h"
#include "runtime/parallel.h"

typedef struct batch {
  gg_context* context;
  const gg_op_desc* descs;
  gg_kernel** kernels;
  gg_status* statuses;
} batch;

static void get_one(void* user, size_t i) {
  batch* b = user;
  b->statuses[i] = gg_kernel_get(b->context, &b->descs[i], &b->kernels[i]);
}

gg_status gg_kernels_get(gg_context* context, const gg_op_desc* descs, size_t count, int threads,
                         gg_kernel** kernels, gg_status* statuses) {
  if (!context || (count && (!descs || !kernels || !statuses)))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_kernels_get: NULL argument");
  batch b = {context, descs, kernels, statuses};
  gg_parallel_for(count, threads, get_one, &b);
  return GG_OK;
}
