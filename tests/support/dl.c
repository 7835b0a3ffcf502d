// DLPack views.
#include "tests/support/dl.h"

#include <string.h>

static DLDataType dl_dtype(gg_dtype dtype, gg_fp8 fp8) {
  switch (dtype) {
    case GG_DTYPE_FP8:
      return (DLDataType){fp8 == GG_FP8_E4M3FNUZ ? GG_DL_FLOAT8_E4M3FNUZ : GG_DL_FLOAT8_E4M3FN,
                          8, 1};
    case GG_DTYPE_BF16: return (DLDataType){kDLBfloat, 16, 1};
    case GG_DTYPE_I32: return (DLDataType){kDLInt, 32, 1};
    case GG_DTYPE_I64: return (DLDataType){kDLInt, 64, 1};
    case GG_DTYPE_F32: break;
  }
  return (DLDataType){kDLFloat, 32, 1};
}

void gg_dl_wrap(const gg_problem* problem, void* const buffers[GG_OPERAND_COUNT],
                DLDevice device, gg_dl_operands* out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    const gg_operand_shape* shape = &problem->shapes[i];
    if (!shape->present) continue;
    DLTensor* t = &out->tensors[i];
    memcpy(out->shapes[i], shape->dims, sizeof out->shapes[i]);
    t->data = buffers[i];
    t->device = device;
    t->ndim = shape->rank;
    t->dtype = dl_dtype(shape->dtype, problem->desc.fp8);
    t->shape = out->shapes[i];
    t->strides = NULL;  // compact row-major
    t->byte_offset = 0;
    out->pointers[i] = t;
  }
}
