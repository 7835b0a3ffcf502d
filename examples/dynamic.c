// f8f8bf16_rowwise_grouped_dynamic on the host CPU: a slab of M = 128 rows per expert, of
// which zero_start_index_M says how many are valid; with zeroing_output_tensor the padding
// rows come back as zeros.
//
//   bazel run //examples:dynamic
#include <stdio.h>

#include "examples/example.h"

enum { G = 3, M = 128, N = 256, K = 256 };

int main(void) {
  const int64_t valid_rows[G] = {0, 100, 128};
  gg_problem* p = example_problem(GG_LAYOUT_PADDED, GG_SCALING_ROWWISE, N, K, valid_rows, G, M,
                                  /*zeroing=*/1);

  int64_t xq_shape[] = {G, M, K}, wq_shape[] = {G, N, K}, x_scale_shape[] = {G, M},
          w_scale_shape[] = {G, N}, zero_start_shape[] = {G}, out_shape[] = {G, M, N};
  DLTensor XQ = example_tensor(p->buffers[GG_OPERAND_A], EXAMPLE_FP8, 3, xq_shape);
  DLTensor WQ = example_tensor(p->buffers[GG_OPERAND_B], EXAMPLE_FP8, 3, wq_shape);
  DLTensor x_scale = example_tensor(p->buffers[GG_OPERAND_A_SCALE], EXAMPLE_F32, 2, x_scale_shape);
  DLTensor w_scale = example_tensor(p->buffers[GG_OPERAND_B_SCALE], EXAMPLE_F32, 2, w_scale_shape);
  DLTensor zero_start_index_M =
      example_tensor(p->buffers[GG_OPERAND_META], EXAMPLE_I64, 1, zero_start_shape);
  DLTensor out = example_tensor(p->buffers[GG_OPERAND_OUT], EXAMPLE_BF16, 3, out_shape);

  gg_context* context;
  gg_status status = gg_context_create(NULL, &context);
  if (status) return example_fail("context", status);
  status = gg_f8f8bf16_rowwise_grouped_dynamic(context, &XQ, &WQ, &x_scale, &w_scale,
                                               &zero_start_index_M, 1, &out);
  gg_context_destroy(context);
  if (status) return example_fail("f8f8bf16_rowwise_grouped_dynamic", status);
  int code = example_check("f8f8bf16_rowwise_grouped_dynamic", p);
  gg_problem_destroy(p);
  return code;
}
