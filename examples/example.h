// What the examples share: a CPU DLTensor over a buffer, inputs drawn by gg's reference
// library, and the check of an output against the reference.
#ifndef GG_EXAMPLES_EXAMPLE_H_
#define GG_EXAMPLES_EXAMPLE_H_

#include <stdint.h>

#include "gg/gg.h"
#include "tests/reference/problem.h"

// A contiguous tensor on the CPU.
DLTensor example_tensor(void* data, DLDataType dtype, int ndim, int64_t* shape);

#define EXAMPLE_FP8 ((DLDataType){GG_DL_FLOAT8_E4M3FN, 8, 1})
#define EXAMPLE_F32 ((DLDataType){kDLFloat, 32, 1})
#define EXAMPLE_BF16 ((DLDataType){kDLBfloat, 16, 1})
#define EXAMPLE_I32 ((DLDataType){kDLInt, 32, 1})
#define EXAMPLE_I64 ((DLDataType){kDLInt, 64, 1})

// Draws random inputs for a layout (the descriptor's N, K, G; extents per group along the
// grouped axis; m the grouped extent or GG_DYNAMIC) and poisons the output. Exits on error.
gg_problem* example_problem(gg_layout layout, gg_scaling scaling, int64_t n, int64_t k,
                            const int64_t* extents, int64_t groups, int64_t m, int zeroing);

// Compares the problem's output with the reference and prints one line; returns the exit
// code (0 when every element matches).
int example_check(const char* name, gg_problem* problem);

// Prints a failed status and returns 1.
int example_fail(const char* what, gg_status status);

#endif  // GG_EXAMPLES_EXAMPLE_H_
