// bench/large_operand: host kernels on operands past 4 GiB, through the public API, with
// real memory. Not a test (it needs about 5 GiB and, with --packed, a minute): it prints
// what ran, how long, and PASS or FAIL against the C reference on the groups that lie past
// 4 GiB.
//
//   bazel run -c opt //bench:large_operand -- [--packed]
//
// dynamic: 1100 slabs of A [256, 16384] (4.6 GB); the first and the last (at 4.6 GB) hold
//   rows, the others none, so the launch is cheap and only the two slabs are touched.
// stacked (--packed): A [262400, 16384] (4.3 GB): group 0 holds the first 262144 rows,
//   group 1 the 256 past 4 GiB; every row is computed.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gg/gg.h"
#include "runtime/clock.h"
#include "tests/reference/numerics.h"
#include "tests/reference/problem.h"
#include "tests/reference/reference.h"
#include "tests/support/dl.h"


// A launch's operands, allocated whole (pages fill in as they are written).
typedef struct launch {
  gg_problem p;
} launch;

static int allocate(launch* l, const gg_op_desc* d, int64_t m) {
  memset(l, 0, sizeof *l);
  l->p.desc = gg_op_desc_with_defaults(d);
  l->p.m = m;
  l->p.data = GG_DATA_EXACT;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    l->p.shapes[i] = gg_operand_shape_of(&l->p.desc, (gg_operand)i, m);
    if (!l->p.shapes[i].present) continue;
    l->p.bytes[i] = (size_t)gg_operand_shape_numel(&l->p.shapes[i]) *
                    gg_dtype_size(l->p.shapes[i].dtype);
    l->p.buffers[i] = calloc(1, l->p.bytes[i] ? l->p.bytes[i] : 1);
    if (!l->p.buffers[i]) {
      fprintf(stderr, "bench: cannot allocate %zu bytes for %s\n", l->p.bytes[i],
              gg_operand_name((gg_operand)i));
      return 1;
    }
  }
  return 0;
}

static void release(launch* l) {
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) free(l->p.buffers[i]);
}

static uint8_t* at(const launch* l, gg_operand operand, int64_t element) {
  return (uint8_t*)l->p.buffers[operand] + element * (int64_t)gg_dtype_size(l->p.shapes[operand].dtype);
}

// Exact data: FP8 1, -1 or 0 (twice as often), four bytes per random draw.
static void fill_fp8(const launch* l, gg_operand operand, int64_t element, int64_t count, gg_rng* rng) {
  const uint8_t codes[4] = {gg_fp8_encode(l->p.desc.fp8, 1.0f), gg_fp8_encode(l->p.desc.fp8, -1.0f),
                            0, 0};
  uint8_t* p = at(l, operand, element);
  uint64_t bits = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (i % 32 == 0) bits = gg_rng_next(rng);
    p[i] = codes[bits & 3];
    bits >>= 2;
  }
}

static void fill_scales(const launch* l, gg_operand operand, int64_t element, int64_t count) {
  float* p = (float*)at(l, operand, element);
  for (int64_t i = 0; i < count; ++i) p[i] = (float)(1 << (i % 3)) / 2.0f;
}

// Compares rows [row0, row0 + rows) of the launch's output (row stride n) with the
// reference of one group whose operands start at the given elements.
static int check(const launch* l, int64_t rows, const int64_t start[GG_OPERAND_COUNT],
                 void* meta, int64_t out0) {
  gg_problem p = l->p;
  p.desc.g = 1;
  p.m = rows;
  uint16_t* want = malloc((size_t)(rows * p.desc.n) * sizeof *want);
  if (!want) return 0;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    p.shapes[i] = gg_operand_shape_of(&p.desc, (gg_operand)i, rows);
    if (!p.shapes[i].present) continue;
    p.buffers[i] = i == GG_OPERAND_META ? meta : at(l, (gg_operand)i, start[i]);
  }
  p.buffers[GG_OPERAND_OUT] = want;
  gg_poison_bf16(want, rows * p.desc.n);
  gg_reference_run(&p, want, NULL);
  int ok = !memcmp(want, at(l, GG_OPERAND_OUT, out0), (size_t)(rows * p.desc.n) * sizeof *want);
  free(want);
  return ok;
}

static int run(gg_context* context, launch* l, const char* name) {
  gg_dl_operands dl;
  gg_dl_wrap(&l->p, l->p.buffers, (DLDevice){kDLCPU, 0}, &dl);
  gg_grouped_gemm_call call = {l->p.desc.layout, l->p.desc.scaling, l->p.desc.b_layout,
                               l->p.desc.tile, {0}, 0, GG_ACCUM_PROMOTED, NULL};
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) call.operands[i] = dl.pointers[i];
  double start = (gg_now_ms() / 1e3);
  gg_status status = gg_grouped_gemm(context, &call);
  double seconds = (gg_now_ms() / 1e3) - start;
  if (status) {
    fprintf(stderr, "bench: %s: %s\n", name, gg_status_message(status));
    gg_status_free(status);
    return 1;
  }
  size_t largest = 0;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) largest = l->p.bytes[i] > largest ? l->p.bytes[i] : largest;
  printf("%-8s largest operand %.2f GiB, first call (compile and launch) %.1f s\n", name,
         (double)largest / (1 << 30), seconds);
  return 0;
}

static int dynamic_slabs(gg_context* context) {
  const int64_t groups = 1100, m = 256, n = 16, k = 16384;
  gg_op_desc d = {GG_LAYOUT_PADDED, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FN, n, k, groups,
                  {64, 64, 128, 0, GG_LOOP_ROLLED, 0}, GG_TARGET_HOST, GG_ACCUM_PROMOTED};
  launch l;
  int failed = allocate(&l, &d, m);
  gg_rng rng = {3};
  int64_t* valid = l.p.buffers[GG_OPERAND_META];
  const int64_t active[2] = {0, groups - 1};
  if (!failed) {
    fill_scales(&l, GG_OPERAND_A_SCALE, 0, groups * m);
    fill_scales(&l, GG_OPERAND_B_SCALE, 0, groups * n);
    for (int i = 0; i < 2; ++i) {
      valid[active[i]] = m - 7 * i;  // the last slab's last 7 rows are padding, left untouched
      fill_fp8(&l, GG_OPERAND_A, active[i] * m * k, m * k, &rng);
      fill_fp8(&l, GG_OPERAND_B, active[i] * n * k, n * k, &rng);
      gg_poison_bf16((uint16_t*)at(&l, GG_OPERAND_OUT, active[i] * m * n), m * n);
    }
    failed = run(context, &l, "dynamic");
  }
  for (int i = 0; !failed && i < 2; ++i) {
    int64_t g = active[i];
    int64_t start[GG_OPERAND_COUNT] = {g * m * k, g * n * k, g * m, g * n, 0, 0};
    int ok = check(&l, m, start, &valid[g], g * m * n);
    printf("  group %lld (A at byte %lld): %s\n", (long long)g, (long long)(g * m * k),
           ok ? "PASS" : "FAIL");
    failed |= !ok;
  }
  release(&l);
  return failed;
}

static int stacked_rows(gg_context* context) {
  const int64_t first = 262144, second = 256, n = 16, k = 16384;
  gg_op_desc d = {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FN, n, k, 2,
                  {64, 64, 128, 0, GG_LOOP_ROLLED, 0}, GG_TARGET_HOST, GG_ACCUM_PROMOTED};
  launch l;
  int failed = allocate(&l, &d, first + second);
  gg_rng rng = {5};
  if (!failed) {
    int64_t* counts = l.p.buffers[GG_OPERAND_META];
    counts[0] = first;
    counts[1] = second;
    fill_scales(&l, GG_OPERAND_A_SCALE, 0, first + second);
    fill_scales(&l, GG_OPERAND_B_SCALE, 0, 2 * n);
    fill_fp8(&l, GG_OPERAND_A, 0, (first + second) * k, &rng);
    fill_fp8(&l, GG_OPERAND_B, 0, 2 * n * k, &rng);
    gg_poison_bf16((uint16_t*)at(&l, GG_OPERAND_OUT, first * n), second * n);
    failed = run(context, &l, "stacked");
  }
  if (!failed) {
    int64_t start[GG_OPERAND_COUNT] = {first * k, n * k, first, n, 0, 0};
    int64_t count = second;
    int ok = check(&l, second, start, &count, first * n);
    printf("  group 1 (A at byte %lld): %s\n", (long long)(first * k), ok ? "PASS" : "FAIL");
    failed = !ok;
  }
  release(&l);
  return failed;
}

int main(int argc, char** argv) {
  int packed = argc > 1 && !strcmp(argv[1], "--packed");
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context;
  gg_status status = gg_context_create(&options, &context);
  if (status) {
    fprintf(stderr, "bench: %s\n", gg_status_message(status));
    gg_status_free(status);
    return 1;
  }
  int failed = dynamic_slabs(context);
  if (packed) failed |= stacked_rows(context);
  gg_context_destroy(context);
  return failed;
}
