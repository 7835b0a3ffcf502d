// Compiles f8f8bf16_rowwise_grouped_stacked for the host CPU and runs it on three experts
// of 5, 0 and 3 tokens, printing the output. FP8 E4M3FN codes are written by hand:
// 0x38 = 1.0, 0x40 = 2.0, 0xB8 = -1.0.
//
//   bazel run //examples:host_stacked
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "compiler/compile.h"
#include "gg/op.h"

enum { G = 3, N = 16, K = 32, TOTAL_M = 8 };

static float bf16_to_float(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &wide, sizeof f);
  return f;
}

int main(void) {
  gg_op_desc desc = {0};
  desc.layout = GG_LAYOUT_SIZES;  // the stacked op: groups packed along M, int64 counts
  desc.scaling = GG_SCALING_ROWWISE;
  desc.fp8 = GG_FP8_E4M3FN;
  desc.n = N;
  desc.k = K;
  desc.g = G;
  desc.target = GG_TARGET_HOST;  // tile left zero: the default configuration

  gg_host_kernel* kernel;
  gg_status status = gg_host_kernel_create(&desc, &kernel);
  if (status) {
    fprintf(stderr, "compile failed: %s\n", gg_status_message(status));
    gg_status_free(status);
    return 1;
  }

  static uint8_t a[TOTAL_M][K], b[G][N][K];
  static float a_scale[TOTAL_M], b_scale[G][N];
  static int64_t m_sizes[G] = {5, 0, 3};
  static uint16_t out[TOTAL_M][N];
  for (int r = 0; r < TOTAL_M; ++r) {
    for (int k = 0; k < K; ++k) a[r][k] = k == r ? 0x40 : 0x00;  // row r: 2.0 at k = r
    a_scale[r] = 0.5f;
  }
  for (int g = 0; g < G; ++g)
    for (int n = 0; n < N; ++n) {
      for (int k = 0; k < K; ++k) b[g][n][k] = (k == n) ? 0x38 : (k == n + 1 ? 0xB8 : 0x00);
      b_scale[g][n] = (float)(g + 1);
    }

  void* buffers[GG_OPERAND_COUNT] = {a, b, a_scale, b_scale, m_sizes, out};
  status = gg_host_kernel_run(kernel, buffers, TOTAL_M, 0);
  if (status) {
    fprintf(stderr, "run failed: %s\n", gg_status_message(status));
    gg_status_free(status);
    gg_host_kernel_destroy(kernel);
    return 1;
  }
  // Row r of group g: out[r][n] = (2 [n == r] - 2 [n == r - 1]) * 0.5 * (g + 1).
  printf("compiled in %.0f ms; out (rows x first 8 columns):\n", gg_host_kernel_compile_ms(kernel));
  for (int r = 0; r < TOTAL_M; ++r) {
    printf("  row %d:", r);
    for (int n = 0; n < 8; ++n) printf(" %5.1f", bf16_to_float(out[r][n]));
    printf("\n");
  }
  gg_host_kernel_destroy(kernel);
  return 0;
}
