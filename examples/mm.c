// f8f8bf16_rowwise_grouped_mm on the host CPU in its four rank combinations; the ranks of
// XQ and WQ say which axis the groups split, offsets (int32 inclusive prefix ends) where.
//
//   bazel run //examples:mm
#include <stdio.h>

#include "examples/example.h"

enum { G = 3 };

// Runs one case on the problem's buffers with the given shapes and checks it.
static int run(gg_context* context, const char* name, gg_problem* p, int64_t* xq, int xq_rank,
               int64_t* wq, int wq_rank, int64_t* x_scale, int x_scale_rank, int64_t* w_scale,
               int w_scale_rank, int64_t* out, int out_rank) {
  DLTensor XQ = example_tensor(p->buffers[GG_OPERAND_A], EXAMPLE_FP8, xq_rank, xq);
  DLTensor WQ = example_tensor(p->buffers[GG_OPERAND_B], EXAMPLE_FP8, wq_rank, wq);
  DLTensor XS = example_tensor(p->buffers[GG_OPERAND_A_SCALE], EXAMPLE_F32, x_scale_rank, x_scale);
  DLTensor WS = example_tensor(p->buffers[GG_OPERAND_B_SCALE], EXAMPLE_F32, w_scale_rank, w_scale);
  int64_t offsets_shape[] = {G};
  DLTensor offsets = example_tensor(p->buffers[GG_OPERAND_META], EXAMPLE_I32, 1, offsets_shape);
  DLTensor OUT = example_tensor(p->buffers[GG_OPERAND_OUT], EXAMPLE_BF16, out_rank, out);
  // 3D-3D is a plain batch: no offsets.
  const DLTensor* maybe_offsets = p->buffers[GG_OPERAND_META] ? &offsets : NULL;
  gg_status status =
      gg_f8f8bf16_rowwise_grouped_mm(context, &XQ, &WQ, &XS, &WS, maybe_offsets, &OUT);
  if (status) return example_fail(name, status);
  int code = example_check(name, p);
  gg_problem_destroy(p);
  return code;
}

int main(void) {
  gg_context* context;
  gg_status status = gg_context_create(NULL, &context);
  if (status) return example_fail("context", status);
  int failures = 0;
  {  // 2D-3D: tokens of each expert packed along M (MoE forward).
    const int64_t tokens[G] = {33, 0, 95}, N = 256, K = 384, M = 128;
    gg_problem* p = example_problem(GG_LAYOUT_OFFSETS, GG_SCALING_ROWWISE, N, K, tokens, G,
                                    GG_DYNAMIC, 0);
    int64_t xq[] = {M, K}, wq[] = {G, N, K}, xs[] = {M}, ws[] = {G, N}, out[] = {M, N};
    failures += run(context, "f8f8bf16_rowwise_grouped_mm 2D-3D", p, xq, 2, wq, 3, xs, 1, ws, 2,
                    out, 2);
  }
  {  // 3D-3D: a batch of G independent products.
    const int64_t rows[G] = {100, 100, 100}, N = 136, K = 256, M = 100;
    gg_problem* p = example_problem(GG_LAYOUT_BATCHED, GG_SCALING_ROWWISE, N, K, rows, G, M, 0);
    int64_t xq[] = {G, M, K}, wq[] = {G, N, K}, xs[] = {G, M}, ws[] = {G, N}, out[] = {G, M, N};
    failures += run(context, "f8f8bf16_rowwise_grouped_mm 3D-3D", p, xq, 3, wq, 3, xs, 2, ws, 2,
                    out, 3);
  }
  {  // 3D-2D: groups split N (columns of the output); a group's N need not be a multiple of 8.
    const int64_t columns[G] = {264, 4, 124}, N = 392, K = 256, M = 48;
    gg_problem* p = example_problem(GG_LAYOUT_N_OFFSETS, GG_SCALING_ROWWISE, N, K, columns, G, M, 0);
    int64_t xq[] = {G, M, K}, wq[] = {N, K}, xs[] = {G, M}, ws[] = {N}, out[] = {M, N};
    failures += run(context, "f8f8bf16_rowwise_grouped_mm 3D-2D", p, xq, 3, wq, 2, xs, 2, ws, 1,
                    out, 2);
  }
  {  // 2D-2D: groups split K (weight gradients); an empty K slice yields zeros.
    const int64_t k_slices[G] = {16, 0, 368}, N = 64, K = 384, M = 100;
    gg_problem* p = example_problem(GG_LAYOUT_K_OFFSETS, GG_SCALING_ROWWISE, N, K, k_slices, G, M, 0);
    int64_t xq[] = {M, K}, wq[] = {N, K}, xs[] = {G * M}, ws[] = {G * N}, out[] = {G, M, N};
    failures += run(context, "f8f8bf16_rowwise_grouped_mm 2D-2D", p, xq, 2, wq, 2, xs, 1, ws, 1,
                    out, 3);
  }
  gg_context_destroy(context);
  return failures ? 1 : 0;
}
