// DLPack views of a problem's operands, for calling the public API.
#ifndef GG_TESTS_SUPPORT_DL_H_
#define GG_TESTS_SUPPORT_DL_H_

#include "gg/gg.h"
#include "tests/reference/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

// The problem's operands as contiguous tensors on `device` over `buffers` (the problem's
// own for the host), in gg_operand order; absent operands are NULL in `pointers`.
typedef struct gg_dl_operands {
  DLTensor tensors[GG_OPERAND_COUNT];
  int64_t shapes[GG_OPERAND_COUNT][3];
  const DLTensor* pointers[GG_OPERAND_COUNT];
} gg_dl_operands;

void gg_dl_wrap(const gg_problem* problem, void* const buffers[GG_OPERAND_COUNT],
                DLDevice device, gg_dl_operands* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_TESTS_SUPPORT_DL_H_
