// A program outside gg's build that serves one FP8 grouped GEMM through the installed SDK,
// as a deployment would:
//
//   cc serve.c $(pkg-config --cflags --libs gg-runtime) -o serve   # kernels from bundles
//   cc serve.c $(pkg-config --cflags --libs gg) -o serve           # or compiled on demand
//   gg bundle --target host -o serve.ggb --op stacked --groups 100,0,37 --N 256 --K 256
//   ./serve serve.ggb
//
// It runs f8f8bf16_rowwise_grouped_stacked (three experts, 137 tokens, N = K = 256) on
// host tensors whose products are small integers, so the bf16 output is exact and is
// checked element by element. Prints "ok ..." and exits 0, or says what went wrong.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gg/gg.h>

enum { G = 3, N = 256, K = 256 };
static const int64_t m_sizes[G] = {100, 0, 37};

// FP8 e4m3fn codes of -1, 0 and 1, and bf16 of a small integer (exact: |v| <= 256).
static uint8_t fp8_of(int v) { return v == 0 ? 0x00 : v > 0 ? 0x38 : 0xB8; }

static uint16_t bf16_of(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return (uint16_t)(bits >> 16);
}

static int fail(gg_status status, const char* what) {
  fprintf(stderr, "serve: %s: %s (%s)\n", what, gg_status_message(status),
          gg_status_code_name(gg_status_code_of(status)));
  gg_status_free(status);
  return 1;
}

int main(int argc, char** argv) {
  int64_t total_m = 0;
  for (int g = 0; g < G; ++g) total_m += m_sizes[g];
  int8_t* a = malloc((size_t)total_m * K);  // the values, -1..1
  int8_t* b = malloc((size_t)G * N * K);
  uint8_t* xq = malloc((size_t)total_m * K);
  uint8_t* wq = malloc((size_t)G * N * K);
  float* x_scale = malloc((size_t)total_m * sizeof *x_scale);
  float* w_scale = malloc((size_t)G * N * sizeof *w_scale);
  uint16_t* out = malloc((size_t)total_m * N * sizeof *out);
  if (!a || !b || !xq || !wq || !x_scale || !w_scale || !out) return 1;
  for (int64_t i = 0; i < total_m * K; ++i) xq[i] = fp8_of(a[i] = (int8_t)((i * 7 + 3) % 3 - 1));
  for (int64_t i = 0; i < (int64_t)G * N * K; ++i) wq[i] = fp8_of(b[i] = (int8_t)((i * 5 + 1) % 2));
  for (int64_t i = 0; i < total_m; ++i) x_scale[i] = 1.0f;
  for (int64_t i = 0; i < G * N; ++i) w_scale[i] = 1.0f;
  memset(out, 0xFF, (size_t)total_m * N * sizeof *out);  // poison: every element is written

  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";  // memory only
  const char* bundles[1] = {argc > 1 ? argv[1] : NULL};
  options.bundles = bundles;
  options.bundle_count = argc > 1 ? 1 : 0;
  gg_context* context;
  gg_status status = gg_context_create(&options, &context);
  if (status) return fail(status, "loading the bundle");

  DLDataType f8 = {GG_DL_FLOAT8_E4M3FN, 8, 1}, f32 = {kDLFloat, 32, 1}, i64 = {kDLInt, 64, 1},
             bf16 = {kDLBfloat, 16, 1};
  DLDevice cpu = {kDLCPU, 0};
  int64_t xq_shape[2] = {total_m, K}, wq_shape[3] = {G, N, K}, xs_shape[1] = {total_m},
          ws_shape[2] = {G, N}, m_shape[1] = {G}, out_shape[2] = {total_m, N};
  DLTensor t_xq = {xq, cpu, 2, f8, xq_shape, NULL, 0};
  DLTensor t_wq = {wq, cpu, 3, f8, wq_shape, NULL, 0};
  DLTensor t_xs = {x_scale, cpu, 1, f32, xs_shape, NULL, 0};
  DLTensor t_ws = {w_scale, cpu, 2, f32, ws_shape, NULL, 0};
  DLTensor t_m = {(void*)m_sizes, cpu, 1, i64, m_shape, NULL, 0};
  DLTensor t_out = {out, cpu, 2, bf16, out_shape, NULL, 0};
  status = gg_f8f8bf16_rowwise_grouped_stacked(context, &t_xq, &t_wq, &t_xs, &t_ws, &t_m, &t_out);
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  gg_context_destroy(context);
  int code = status ? fail(status, "f8f8bf16_rowwise_grouped_stacked") : 0;

  int64_t bad = 0, row = 0;
  for (int g = 0; g < G && !code; ++g)
    for (int64_t r = 0; r < m_sizes[g]; ++r, ++row)
      for (int n = 0; n < N; ++n) {
        int sum = 0;
        for (int k = 0; k < K; ++k) sum += a[row * K + k] * b[((int64_t)g * N + n) * K + k];
        if (out[row * N + n] != bf16_of((float)sum) && bad++ == 0)
          fprintf(stderr, "serve: out[%lld, %d] is 0x%04x, want %d\n", (long long)row, n,
                  out[row * N + n], sum);
      }
  if (!code && bad) code = 1;
  if (!code)
    printf("ok %lld elements exact; kernels from bundles %llu, compiled %llu (gg %s)\n",
           (long long)(total_m * N), (unsigned long long)stats.bundle_hits,
           (unsigned long long)stats.compiles, GG_VERSION_STRING);
  free(a);
  free(b);
  free(xq);
  free(wq);
  free(x_scale);
  free(w_scale);
  free(out);
  return code;
}
