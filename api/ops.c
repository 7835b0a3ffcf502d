// The entry points: every one is a gg_grouped_gemm_call, checked, then run with the
// cached kernel for the descriptor the tensors imply.
#include <string.h>

#include "api/internal.h"

static gg_status run_checked(gg_context* context, gg_kernel* kernel, gg_checked_call* call) {
  gg_log(context, GG_LOG_DEBUG, "launch %s m=%lld on %s:%d", kernel->name, (long long)call->m,
         gg_dl_device_name((DLDeviceType)call->device_type), call->device_id);
  return gg_kernel_run(context, kernel, call);
}

gg_status gg_grouped_gemm(gg_context* context, const gg_grouped_gemm_call* call) {
  gg_checked_call checked;
  GG_RETURN_IF_ERROR(gg_check_tensors(context, call, &checked));
  GG_RETURN_IF_ERROR(gg_context_autotune(context, &checked));
  gg_kernel* kernel;
  gg_status status = gg_kernel_get(context, &checked.desc, &kernel);
  if (status && checked.decode_by_rule && gg_status_code_of(status) == GG_STATUS_NOT_FOUND) {
    // A runtime-only context whose bundles lack the decode kernel the rule chose (a split
    // or a tile width; one bundled before the rule took it, say) runs the tile the rule
    // starts from, unsplit: the same result, slower at decode.
    gg_log(context, GG_LOG_DEBUG, "%s; taking the kernel the rule starts from",
           gg_status_message(status));
    gg_status_free(status);
    checked.desc.tile = checked.unsplit;
    checked.desc.tile.split_k = 1;
    status = gg_kernel_get(context, &checked.desc, &kernel);
  }
  GG_RETURN_IF_ERROR(status);
  return run_checked(context, kernel, &checked);
}

gg_status gg_kernel_launch(gg_context* context, gg_kernel* kernel,
                           const DLTensor* const operands[GG_OPERAND_COUNT], int zeroing) {
  return gg_kernel_launch_async(context, kernel, operands, zeroing, NULL);
}

gg_status gg_kernel_launch_async(gg_context* context, gg_kernel* kernel,
                                 const DLTensor* const operands[GG_OPERAND_COUNT], int zeroing,
                                 const gg_launch_options* options) {
  if (!kernel) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the kernel is NULL");
  const gg_op_desc* k = &kernel->desc;
  gg_grouped_gemm_call call = {k->layout, k->scaling, k->b_layout, k->tile, {NULL}, zeroing,
                               k->accum, options};
  memcpy(call.operands, operands, sizeof call.operands);
  gg_checked_call checked;
  GG_RETURN_IF_ERROR(gg_check_tensors(context, &call, &checked));
  const gg_op_desc* t = &checked.desc;
  if (t->target != k->target)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "device: %s was compiled for %s; the tensors are for %s", kernel->name,
                          gg_target_name(k->target), gg_target_name(t->target));
  if (t->n != k->n || t->k != k->k || t->g != k->g || t->fp8 != k->fp8)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "shape: %s was compiled for N=%lld K=%lld G=%lld %s; the tensors have "
                          "N=%lld K=%lld G=%lld %s",
                          kernel->name, (long long)k->n, (long long)k->k, (long long)k->g,
                          gg_fp8_name(k->fp8), (long long)t->n, (long long)t->k, (long long)t->g,
                          gg_fp8_name(t->fp8));
  return run_checked(context, kernel, &checked);
}

static gg_status call_layout(gg_context* context, gg_layout layout, gg_scaling scaling,
                             gg_b_layout b_layout, const DLTensor* XQ, const DLTensor* WQ,
                             const DLTensor* x_scale, const DLTensor* w_scale,
                             const DLTensor* meta, int zeroing, DLTensor* out) {
  gg_grouped_gemm_call call = {layout, scaling, b_layout, {0, 0, 0, 0, GG_LOOP_ROLLED, 0},
                               {XQ, WQ, x_scale, w_scale, meta, out}, zeroing, GG_ACCUM_PROMOTED,
                               NULL};
  return gg_grouped_gemm(context, &call);
}

gg_status gg_f8f8bf16_rowwise_grouped_stacked(gg_context* context, const DLTensor* XQ,
                                              const DLTensor* WQ, const DLTensor* x_scale,
                                              const DLTensor* w_scale, const DLTensor* M_sizes,
                                              DLTensor* out) {
  return call_layout(context, GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, XQ, WQ, x_scale,
                     w_scale, M_sizes, 0, out);
}

gg_status gg_f8f8bf16_rowwise_grouped_dynamic(gg_context* context, const DLTensor* XQ,
                                              const DLTensor* WQ, const DLTensor* x_scale,
                                              const DLTensor* w_scale,
                                              const DLTensor* zero_start_index_M,
                                              int zeroing_output_tensor, DLTensor* out) {
  return call_layout(context, GG_LAYOUT_PADDED, GG_SCALING_ROWWISE, GG_B_PLAIN, XQ, WQ, x_scale,
                     w_scale, zero_start_index_M, zeroing_output_tensor, out);
}

gg_status gg_mm_layout(const DLTensor* XQ, const DLTensor* WQ, const DLTensor* offsets,
                       gg_layout* out) {
  if (!out) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the layout's destination is NULL");
  if (!XQ) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "XQ is NULL");
  if (!WQ) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "WQ is NULL");
  if (XQ->ndim == 2 && WQ->ndim == 3) *out = GG_LAYOUT_OFFSETS;
  else if (XQ->ndim == 3 && WQ->ndim == 3) *out = GG_LAYOUT_BATCHED;
  else if (XQ->ndim == 3 && WQ->ndim == 2) *out = GG_LAYOUT_N_OFFSETS;
  else if (XQ->ndim == 2 && WQ->ndim == 2) *out = GG_LAYOUT_K_OFFSETS;
  else
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "rank: XQ is %dD and WQ %dD; the inputs must be one of 2D-2D, 3D-3D, "
                          "2D-3D, 3D-2D",
                          XQ->ndim, WQ->ndim);
  if (*out != GG_LAYOUT_BATCHED && !offsets)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "offsets is NULL; it is required when XQ or WQ is 2D");
  return GG_OK;
}

gg_status gg_f8f8bf16_rowwise_grouped_mm(gg_context* context, const DLTensor* XQ,
                                         const DLTensor* WQ, const DLTensor* x_scale,
                                         const DLTensor* w_scale, const DLTensor* offsets,
                                         DLTensor* out) {
  gg_layout layout;
  GG_RETURN_IF_ERROR(gg_mm_layout(XQ, WQ, offsets, &layout));
  return call_layout(context, layout, GG_SCALING_ROWWISE, GG_B_PLAIN, XQ, WQ, x_scale, w_scale,
                     offsets, 0, out);
}

gg_status gg_f8f8bf16_groupwise_grouped(gg_context* context, const DLTensor* XQ,
                                        const DLTensor* WQ, const DLTensor* x_scale,
                                        const DLTensor* w_scale, const DLTensor* M_sizes,
                                        DLTensor* out) {
  return call_layout(context, GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, GG_B_PLAIN, XQ, WQ, x_scale,
                     w_scale, M_sizes, 0, out);
}

gg_status gg_f8f8bf16_rowwise_grouped_stacked_preshuffle(gg_context* context, const DLTensor* XQ,
                                                         const DLTensor* WQ,
                                                         const DLTensor* x_scale,
                                                         const DLTensor* w_scale,
                                                         const DLTensor* M_sizes, DLTensor* out) {
  return call_layout(context, GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PRESHUFFLED, XQ, WQ,
                     x_scale, w_scale, M_sizes, 0, out);
}

gg_status gg_f8f8bf16_rowwise_grouped_dynamic_preshuffle(
    gg_context* context, const DLTensor* XQ, const DLTensor* WQ, const DLTensor* x_scale,
    const DLTensor* w_scale, const DLTensor* zero_start_index_M, int zeroing_output_tensor,
    DLTensor* out) {
  return call_layout(context, GG_LAYOUT_PADDED, GG_SCALING_ROWWISE, GG_B_PRESHUFFLED, XQ, WQ,
                     x_scale, w_scale, zero_start_index_M, zeroing_output_tensor, out);
}

gg_status gg_f8f8bf16_rowwise_grouped_mm_preshuffle(gg_context* context, const DLTensor* XQ,
                                                    const DLTensor* WQ, const DLTensor* x_scale,
                                                    const DLTensor* w_scale,
                                                    const DLTensor* offsets, DLTensor* out) {
  gg_layout layout;
  GG_RETURN_IF_ERROR(gg_mm_layout(XQ, WQ, offsets, &layout));
  // The descriptor's validation refuses 3D-2D and 2D-2D and says why.
  return call_layout(context, layout, GG_SCALING_ROWWISE, GG_B_PRESHUFFLED, XQ, WQ, x_scale,
                     w_scale, offsets, 0, out);
}

gg_status gg_f8f8bf16_groupwise_grouped_preshuffle(gg_context* context, const DLTensor* XQ,
                                                   const DLTensor* WQ, const DLTensor* x_scale,
                                                   const DLTensor* w_scale,
                                                   const DLTensor* M_sizes, DLTensor* out) {
  return call_layout(context, GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, GG_B_PRESHUFFLED, XQ, WQ,
                     x_scale, w_scale, M_sizes, 0, out);
}
