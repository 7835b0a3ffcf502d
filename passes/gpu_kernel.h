// What the GPU target lowerings share when a func.func with a gg.grid becomes a gpu.func:
// the kernel takes the function's arguments, runs its prologue, and runs the grid's body
// once per block, on the block's ids.
#ifndef GG_PASSES_GPU_KERNEL_H_
#define GG_PASSES_GPU_KERNEL_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

// The one gg.grid of func; false with an error (naming `pass`) when there are several,
// true with a null *grid when there is none.
bool gg_find_grid(MlirOperation func, const char* pass, MlirOperation* grid);

// Moves func's prologue and its grid's body into `kernel`, a gpu.func whose body starts
// with gpu.thread_id x, gpu.block_id x, y and z and ends with gpu.return: the function's
// arguments become the kernel's arguments [first_arg, first_arg + their count), the grid's
// indices the block ids. The prologue lands before the thread id, the grid's body before
// the gpu.return. Destroys func.
void gg_move_grid_into_kernel(MlirOperation func, MlirOperation grid, MlirOperation kernel,
                              intptr_t first_arg);

// Runs to_kernel on every func.func of module (in order, stopping at the first failure)
// and marks the module a gpu.container_module when all succeed.
bool gg_lower_funcs_to_kernels(MlirOperation module,
                               bool (*to_kernel)(MlirOperation func, const void* options),
                               const void* options);

// The first gpu.func of a gpu.module.
MlirOperation gg_first_gpu_func(MlirOperation gpu_module);

// Parses `skeleton`, a gpu.module's text (NULL when building the text failed), inserts it
// before func and returns its first gpu.func; a null operation, with an error on func,
// when there is no text or it does not parse.
MlirOperation gg_insert_kernel_skeleton(MlirOperation func, const char* skeleton);

#ifdef __cplusplus
}
#endif

#endif  // GG_PASSES_GPU_KERNEL_H_
