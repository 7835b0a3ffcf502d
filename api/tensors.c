// The operator contract on DLPack tensors: presence, device, dtype, rank, shape,
// contiguity, then the descriptor's own rules. Group metadata is never read.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/internal.h"
#include "runtime/checked.h"

// The upstream names of the operands, per layout.
static const char* operand_label(gg_layout layout, gg_operand operand) {
  static const char* const labels[GG_OPERAND_COUNT] = {"XQ", "WQ", "x_scale", "w_scale", "",
                                                       "out"};
  if (operand != GG_OPERAND_META) return labels[operand];
  switch (layout) {
    case GG_LAYOUT_SIZES: return "M_sizes";
    case GG_LAYOUT_PADDED: return "zero_start_index_M";
    default: return "offsets";
  }
}

static int is_scale(gg_operand operand) {
  return operand == GG_OPERAND_A_SCALE || operand == GG_OPERAND_B_SCALE;
}

int64_t gg_dl_numel(const DLTensor* t) {
  int64_t n = 1;
  for (int r = 0; r < t->ndim; ++r) n = gg_saturating_mul(n, t->shape[r]);
  return n;
}

gg_status gg_dl_check_size(const DLTensor* t, const char* label) {
  int64_t element_bytes = ((int64_t)t->dtype.bits * t->dtype.lanes + 7) / 8;
  if (gg_saturating_mul(gg_dl_numel(t), element_bytes) <= GG_MAX_OPERAND_BYTES) return GG_OK;
  char dims[160];
  gg_dims_format(t->shape, t->ndim, dims, sizeof dims);
  return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                        "shape: %s %s would hold more than 2^47 bytes, more than a process can "
                        "address",
                        label, dims);
}

const char* gg_dl_device_name(DLDeviceType type) {
  switch (type) {
    case kDLCPU: return "CPU";
    case kDLROCM: return "ROCM";
    case kDLCUDA: return "CUDA";
    default: return "an unsupported device";
  }
}

const char* gg_dl_dtype_name(DLDataType t, char* buffer, size_t size) {
  const char* base = NULL;
  if (t.lanes == 1) {
    if (t.code == GG_DL_FLOAT8_E4M3FN && t.bits == 8) base = "float8_e4m3fn";
    else if (t.code == GG_DL_FLOAT8_E4M3FNUZ && t.bits == 8) base = "float8_e4m3fnuz";
    else if (t.code == kDLFloat && t.bits == 32) base = "float32";
    else if (t.code == kDLBfloat && t.bits == 16) base = "bfloat16";
    else if (t.code == kDLInt && t.bits == 32) base = "int32";
    else if (t.code == kDLInt && t.bits == 64) base = "int64";
  }
  if (base) snprintf(buffer, size, "%s", base);
  else snprintf(buffer, size, "dtype(code=%u bits=%u lanes=%u)", t.code, t.bits, t.lanes);
  return buffer;
}

static DLDataType dl_dtype_of(gg_dtype dtype, gg_fp8 fp8) {
  DLDataType t = {kDLFloat, 32, 1};
  switch (dtype) {
    case GG_DTYPE_FP8:
      t.code = fp8 == GG_FP8_E4M3FNUZ ? GG_DL_FLOAT8_E4M3FNUZ : GG_DL_FLOAT8_E4M3FN;
      t.bits = 8;
      break;
    case GG_DTYPE_F32: break;
    case GG_DTYPE_BF16: t.code = kDLBfloat; t.bits = 16; break;
    case GG_DTYPE_I32: t.code = kDLInt; t.bits = 32; break;
    case GG_DTYPE_I64: t.code = kDLInt; t.bits = 64; break;
  }
  return t;
}

static int same_dtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

// Row-major with no gaps; a dimension of extent 1 may carry any stride.
int gg_dl_is_contiguous(const DLTensor* t) {
  if (!t->strides) return 1;
  int64_t expected = 1;
  for (int r = t->ndim - 1; r >= 0; --r) {
    if (t->shape[r] != 1 && t->strides[r] != expected) return 0;
    expected *= t->shape[r];
  }
  return 1;
}

// N, K and G as the tensors give them (the ranks are already checked).
static void extents_from_tensors(gg_layout layout, const DLTensor* const* t, gg_op_desc* d) {
  const DLTensor *a = t[GG_OPERAND_A], *b = t[GG_OPERAND_B], *meta = t[GG_OPERAND_META];
  switch (layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS:
      d->g = b->shape[0], d->n = b->shape[1], d->k = a->shape[1];
      break;
    case GG_LAYOUT_PADDED:
    case GG_LAYOUT_BATCHED:
      d->g = a->shape[0], d->n = b->shape[1], d->k = a->shape[2];
      break;
    case GG_LAYOUT_N_OFFSETS:
      d->g = a->shape[0], d->n = b->shape[0], d->k = a->shape[2];
      break;
    case GG_LAYOUT_K_OFFSETS:
    case GG_LAYOUT_COUNT:
      d->g = meta->shape[0], d->n = b->shape[0], d->k = a->shape[1];
      break;
  }
}

static gg_status check_devices(gg_context* context, const gg_grouped_gemm_call* call,
                               gg_checked_call* out) {
  const DLTensor* first = call->operands[GG_OPERAND_A];
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    const DLTensor* t = call->operands[i];
    if (!t) continue;
    const char* label = operand_label(call->layout, (gg_operand)i);
    if (t->device.device_type != kDLCPU && t->device.device_type != kDLROCM &&
        t->device.device_type != kDLCUDA)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "device: %s is on %s (type %d); gg runs on CPU, ROCM and CUDA tensors",
                            label, gg_dl_device_name(t->device.device_type),
                            (int)t->device.device_type);
    if (t->device.device_type != first->device.device_type ||
        t->device.device_id != first->device.device_id)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "device: %s is on %s:%d but XQ is on %s:%d", label,
                            gg_dl_device_name(t->device.device_type), t->device.device_id,
                            gg_dl_device_name(first->device.device_type), first->device.device_id);
  }
  out->device_type = first->device.device_type;
  out->device_id = first->device.device_id;
  if (out->device_type == kDLCPU) {
    out->desc.target = GG_TARGET_HOST;
    return GG_OK;
  }
  if (out->device_type == kDLCUDA) {
    gg_cuda_device* device;
    GG_RETURN_IF_ERROR(gg_context_cuda(context, first->device.device_id, &device));
    out->desc.target = gg_cuda_device_target(device);
    if (out->desc.target == GG_TARGET_HOST)
      return gg_status_make(GG_STATUS_UNAVAILABLE,
                            "device: CUDA:%d (%s) is not a Hopper GPU; gg's NVIDIA kernels are "
                            "for sm_90a",
                            first->device.device_id, gg_cuda_device_name(device));
    return GG_OK;
  }
  if (first->device.device_id != context->gpu_index)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "device: the tensors are on ROCM:%d; this context's GPU is ROCM:%d",
                          first->device.device_id, context->gpu_index);
  return gg_context_gpu_target(context, &out->desc.target);
}

static gg_status check_fp8(const gg_grouped_gemm_call* call, gg_checked_call* out) {
  const DLTensor *a = call->operands[GG_OPERAND_A], *b = call->operands[GG_OPERAND_B];
  char name[64];
  if (a->dtype.lanes != 1 || a->dtype.bits != 8 ||
      (a->dtype.code != GG_DL_FLOAT8_E4M3FN && a->dtype.code != GG_DL_FLOAT8_E4M3FNUZ))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "dtype: XQ must be float8_e4m3fn or float8_e4m3fnuz, not %s",
                          gg_dl_dtype_name(a->dtype, name, sizeof name));
  out->desc.fp8 = a->dtype.code == GG_DL_FLOAT8_E4M3FNUZ ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  if (!same_dtype(a->dtype, b->dtype)) {
    char other[64];
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "dtype: WQ is %s but XQ is %s",
                          gg_dl_dtype_name(b->dtype, other, sizeof other),
                          gg_dl_dtype_name(a->dtype, name, sizeof name));
  }
  return GG_OK;
}

void gg_checked_call_take_tile(gg_checked_call* call, gg_tile_config tile) {
  call->desc.tile = tile;
  call->decode_by_rule = tile.split_k > 1;
  call->unsplit = tile;
  call->unsplit.split_k = 1;
}

gg_status gg_check_tensors(gg_context* context, const gg_grouped_gemm_call* call,
                           gg_checked_call* out) {
  if (!context) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the context is NULL");
  if (!call) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the call is NULL");
  memset(out, 0, sizeof *out);
  if ((unsigned)call->accum >= GG_ACCUM_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown accumulation mode %d",
                          (int)call->accum);
  if ((unsigned)call->layout >= GG_LAYOUT_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown layout %d", (int)call->layout);
  gg_op_desc* d = &out->desc;
  d->layout = call->layout;
  d->scaling = call->scaling;
  d->b_layout = call->b_layout;
  d->tile = call->tile;
  d->accum = call->accum;
  out->launch = call->launch;
  d->n = d->k = d->g = 1;  // placeholders until the ranks are known to be right
  const int batched = call->layout == GG_LAYOUT_BATCHED;

  // Presence.
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    const char* label = operand_label(call->layout, (gg_operand)i);
    int wanted = i != GG_OPERAND_META || !batched;
    if (wanted && !call->operands[i])
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s is NULL", label);
    if (!wanted && call->operands[i])
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "offsets must be absent for 3D-3D (batched) inputs");
  }
  GG_RETURN_IF_ERROR(check_devices(context, call, out));
  GG_RETURN_IF_ERROR(check_fp8(call, out));

  // Dtypes and ranks.
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    const DLTensor* t = call->operands[i];
    if (!t) continue;
    const char* label = operand_label(call->layout, (gg_operand)i);
    gg_operand_shape want = gg_operand_shape_of(d, (gg_operand)i, 1);
    DLDataType dtype = dl_dtype_of(want.dtype, d->fp8);
    char got_name[64], want_name[64];
    if (!same_dtype(t->dtype, dtype))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "dtype: %s must be %s, not %s", label,
                            gg_dl_dtype_name(dtype, want_name, sizeof want_name),
                            gg_dl_dtype_name(t->dtype, got_name, sizeof got_name));
    if (!is_scale((gg_operand)i) && t->ndim != want.rank)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "rank: %s must be %dD, not %dD", label,
                            want.rank, t->ndim);
    if (t->ndim < 0 || t->ndim > 3 || (t->ndim > 0 && !t->shape))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "rank: %s has %d dimensions", label,
                            t->ndim);
    for (int r = 0; r < t->ndim; ++r)
      if (t->shape[r] < 0)
        return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "shape: %s has a negative extent",
                              label);
    GG_RETURN_IF_ERROR(gg_dl_check_size(t, label));
  }

  // Shapes: the descriptor the tensors imply, then every operand against it.
  extents_from_tensors(call->layout, call->operands, d);
  gg_operand source;
  int source_dim;
  gg_grouped_extent_source(d, &source, &source_dim);
  out->m = call->operands[source]->shape[source_dim];
  // The operands that fix the problem first, then the problem's own rules (tile, FP8
  // flavour for the target, K and N multiples), then the scales, which only count.
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    const DLTensor* t = call->operands[i];
    if (!t || is_scale((gg_operand)i)) continue;
    gg_operand_shape want = gg_operand_shape_of(d, (gg_operand)i, out->m);
    if (memcmp(t->shape, want.dims, sizeof(int64_t) * (size_t)want.rank) != 0) {
      char got[96], expected[96];
      gg_dims_format(t->shape, t->ndim, got, sizeof got);
      gg_dims_format(want.dims, want.rank, expected, sizeof expected);
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "shape: %s is %s, expected %s",
                            operand_label(call->layout, (gg_operand)i), got, expected);
    }
  }
  // No tile named: a tuning table's entry for the launch where the context holds one
  // (api/tuning.c), else the tile gg_tile_config_for_launch gives (AMD chips at large M:
  // the K loop model's first; sm_90a fast rowwise: the one measured faster; sm_90a at
  // decode: split-K and the tile width, where the tiles leave SMs idle); an explicit
  // waves_per_eu stays.
  if (!d->tile.m && !d->tile.n && !d->tile.k) {
    gg_tile_config tuned;
    if (d->tile.split_k <= 1 &&
        gg_context_tuned_tile(context, d, out->m, out->device_type, out->device_id, &tuned)) {
      gg_checked_call_take_tile(out, tuned);
    } else {
      out->tile_from_rule = d->tile.split_k <= 1;
      gg_tile_config tile = gg_tile_config_for_launch(d, out->m), standard = gg_tile_config_default();
      gg_tile_config unsplit = gg_tile_config_unsplit(d, out->m);
      out->decode_by_rule = d->tile.split_k <= 1 && gg_tile_config_is_decode_choice(tile, unsplit);
      if (out->decode_by_rule) out->unsplit = unsplit;
      if (tile.m != standard.m || tile.n != standard.n || tile.k != standard.k ||
          out->decode_by_rule)
        d->tile = tile;
    }
  }
  GG_RETURN_IF_ERROR(gg_op_desc_validate(d));
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    const DLTensor* t = call->operands[i];
    if (!t) continue;
    const char* label = operand_label(call->layout, (gg_operand)i);
    gg_operand_shape want = gg_operand_shape_of(d, (gg_operand)i, out->m);
    if (is_scale((gg_operand)i) && gg_dl_numel(t) != gg_operand_shape_numel(&want))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "shape: %s has %" PRId64 " elements, expected %" PRId64, label,
                            gg_dl_numel(t), gg_operand_shape_numel(&want));
    if (!gg_dl_is_contiguous(t))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "layout: %s must be contiguous (row-major without gaps)", label);
    void* data = (char*)t->data + t->byte_offset;
    if (!t->data && gg_dl_numel(t) > 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s has no data", label);
    if ((uintptr_t)data % gg_dtype_size(want.dtype) != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "layout: %s is misaligned for %zu-byte elements", label,
                            gg_dtype_size(want.dtype));
    out->buffers[i] = data;
  }
  out->zeroing = call->zeroing;
  return GG_OK;
}
