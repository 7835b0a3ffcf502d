// gg_kernels_get: many kernels at once, their compiles spread over threads (each
// gg_kernel_get compiles in its own MLIR context; the context's table makes threads that
// ask for one descriptor share its build). For sweeps: gg tune and autotuning.
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "api/internal.h"

#define MAX_THREADS 64

typedef struct batch {
  gg_context* context;
  const gg_op_desc* descs;
  size_t count;
  gg_kernel** kernels;
  gg_status* statuses;
  size_t next;  // the next descriptor to get, under lock
  pthread_mutex_t lock;
} batch;

static void* get_worker(void* arg) {
  batch* b = arg;
  for (;;) {
    pthread_mutex_lock(&b->lock);
    size_t i = b->next++;
    pthread_mutex_unlock(&b->lock);
    if (i >= b->count) return NULL;
    b->statuses[i] = gg_kernel_get(b->context, &b->descs[i], &b->kernels[i]);
  }
}

gg_status gg_kernels_get(gg_context* context, const gg_op_desc* descs, size_t count, int threads,
                         gg_kernel** kernels, gg_status* statuses) {
  if (!context || (count && (!descs || !kernels || !statuses)))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_kernels_get: NULL argument");
  if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if ((size_t)threads > count) threads = count ? (int)count : 1;
  batch b = {context, descs, count, kernels, statuses, 0, PTHREAD_MUTEX_INITIALIZER};
  pthread_t workers[MAX_THREADS];
  int started = 0;
  for (int t = 1; t < threads; ++t)
    if (pthread_create(&workers[started], NULL, get_worker, &b) == 0) ++started;
  get_worker(&b);  // this thread is one of them
  for (int t = 0; t < started; ++t) pthread_join(workers[t], NULL);
  return GG_OK;
}
