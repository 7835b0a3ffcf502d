// gg_preshuffle_b and its inverse on DLPack tensors.
#include <stdint.h>
#include <string.h>

#include "api/internal.h"

static int is_fp8(DLDataType t) {
  return t.lanes == 1 && t.bits == 8 &&
         (t.code == GG_DL_FLOAT8_E4M3FN || t.code == GG_DL_FLOAT8_E4M3FNUZ);
}

static gg_status check_weights(const DLTensor* t, const char* name) {
  char dtype[64];
  if (!t) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s is NULL", name);
  if (t->device.device_type != kDLCPU)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "device: %s is on %s; the shuffle runs on the host (shuffle the "
                          "weights once, then copy them to the GPU)",
                          name, gg_dl_device_name(t->device.device_type));
  if (!is_fp8(t->dtype))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "dtype: %s must be float8_e4m3fn or float8_e4m3fnuz, not %s", name,
                          gg_dl_dtype_name(t->dtype, dtype, sizeof dtype));
  if ((t->ndim != 2 && t->ndim != 3) || !t->shape)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "rank: %s must be [N, K] or [G, N, K], not %dD",
                          name, t->ndim);
  for (int r = 0; r < t->ndim; ++r)
    if (t->shape[r] < 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "shape: %s has a negative extent", name);
  GG_RETURN_IF_ERROR(gg_dl_check_size(t, name));
  if (!gg_dl_is_contiguous(t))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "layout: %s must be contiguous", name);
  if (!t->data && gg_dl_numel(t) > 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s has no data", name);
  return GG_OK;
}

static gg_status shuffle(const DLTensor* src, DLTensor* dst, int inverse) {
  GG_RETURN_IF_ERROR(check_weights(src, "src"));
  GG_RETURN_IF_ERROR(check_weights(dst, "dst"));
  if (src->dtype.code != dst->dtype.code)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "dtype: src and dst differ");
  if (src->ndim != dst->ndim ||
      memcmp(src->shape, dst->shape, sizeof(int64_t) * (size_t)src->ndim) != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "shape: src and dst differ");
  int64_t k = src->shape[src->ndim - 1], n = src->shape[src->ndim - 2];
  int64_t rows = gg_dl_numel(src) / (k ? k : 1);
  // Checked per group: every group's N must be a multiple of 16 (rows would hide it).
  if (n % 16 != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "preshuffle: N must be a multiple of 16 (the fragment's 16 columns), "
                          "got %lld",
                          (long long)n);
  const uint8_t* s = (const uint8_t*)src->data + src->byte_offset;
  uint8_t* d = (uint8_t*)dst->data + dst->byte_offset;
  size_t bytes = (size_t)gg_dl_numel(src);
  if (bytes && s < d + bytes && d < s + bytes)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "src and dst overlap");
  if (k % 64 != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "preshuffle: K must be a multiple of 64 (the fragment's 64 K), got %lld",
                          (long long)k);
  if (!bytes) return GG_OK;
  return gg_preshuffle_b_bytes(s, d, rows, k, inverse);
}

gg_status gg_preshuffle_b(const DLTensor* src, DLTensor* dst) { return shuffle(src, dst, 0); }

gg_status gg_unshuffle_b(const DLTensor* src, DLTensor* dst) { return shuffle(src, dst, 1); }
