// A loop whose iterations run on several threads: for sweeps that compile many kernels
// (gg_kernels_get, gg tune --model), each compile in its own MLIR context.
#ifndef GG_RUNTIME_PARALLEL_H_
#define GG_RUNTIME_PARALLEL_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Calls body(user, i) for every i below count, on up to `threads` threads (0: one per
// core; the calling thread is one of them), each i once, and returns when all are done.
// Where no further thread can start, the calling thread does them all.
void gg_parallel_for(size_t count, int threads, void (*body)(void* user, size_t i), void* user);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_PARALLEL_H_
