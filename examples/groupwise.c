// f8f8bf16_groupwise_grouped on the host CPU: the stacked layout with blockwise scales,
// one per 1x128 block of XQ (per-group M-major) and per 128x128 block of WQ.
//
//   bazel run //examples:groupwise
#include <stdio.h>

#include "examples/example.h"

enum { G = 3, N = 256, K = 512 };

int main(void) {
  const int64_t tokens[G] = {128, 1, 200};
  gg_problem* p = example_problem(GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, N, K, tokens, G,
                                  GG_DYNAMIC, 0);
  const int64_t total_m = p->m;

  int64_t xq_shape[] = {total_m, K}, wq_shape[] = {G, N, K}, x_scale_shape[] = {total_m * K / 128},
          w_scale_shape[] = {G, K / 128, N / 128}, m_sizes_shape[] = {G},
          out_shape[] = {total_m, N};
  DLTensor XQ = example_tensor(p->buffers[GG_OPERAND_A], EXAMPLE_FP8, 2, xq_shape);
  DLTensor WQ = example_tensor(p->buffers[GG_OPERAND_B], EXAMPLE_FP8, 3, wq_shape);
  DLTensor x_scale = example_tensor(p->buffers[GG_OPERAND_A_SCALE], EXAMPLE_F32, 1, x_scale_shape);
  DLTensor w_scale = example_tensor(p->buffers[GG_OPERAND_B_SCALE], EXAMPLE_F32, 3, w_scale_shape);
  DLTensor M_sizes = example_tensor(p->buffers[GG_OPERAND_META], EXAMPLE_I64, 1, m_sizes_shape);
  DLTensor out = example_tensor(p->buffers[GG_OPERAND_OUT], EXAMPLE_BF16, 2, out_shape);

  gg_context* context;
  gg_status status = gg_context_create(NULL, &context);
  if (status) return example_fail("context", status);
  status = gg_f8f8bf16_groupwise_grouped(context, &XQ, &WQ, &x_scale, &w_scale, &M_sizes, &out);
  gg_context_destroy(context);
  if (status) return example_fail("f8f8bf16_groupwise_grouped", status);
  int code = example_check("f8f8bf16_groupwise_grouped", p);
  gg_problem_destroy(p);
  return code;
}
