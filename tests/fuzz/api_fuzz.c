// The public API on CPU tensors with hostile group metadata. Eight host kernels (every
// layout, both scalings, small tiles) are compiled once; each input picks one, a grouped
// extent and metadata values (negative, huge, decreasing, in range), and sometimes breaks
// a tensor (negative or overflowing extents, a wrong dtype, no data, misalignment).
//
// Every operand sits at the end of its own pages, between PROT_NONE guard pages, with the
// bytes in front of it in its first page filled with a pattern: the host kernels are not
// instrumented, so an access past an operand faults and one before it changes the pattern.
// Oracles: a valid call matches the C reference bit for bit (exact data; the clamping of
// metadata is part of the contract, so hostile metadata has one right answer); a broken
// call returns its error and leaves the output untouched; the guard patterns survive.
#define _DEFAULT_SOURCE  // MAP_ANONYMOUS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gg/gg.h"
#include "tests/fuzz/fuzz.h"
#include "tests/reference/numerics.h"
#include "tests/reference/problem.h"
#include "tests/reference/reference.h"
#include "tests/support/dl.h"

typedef struct kernel_case {
  gg_layout layout;
  gg_scaling scaling;
  int64_t n, k, g;
} kernel_case;

static const kernel_case cases[] = {
    {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, 64, 128, 4},
    {GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, 128, 256, 3},
    {GG_LAYOUT_OFFSETS, GG_SCALING_ROWWISE, 72, 64, 5},
    {GG_LAYOUT_PADDED, GG_SCALING_ROWWISE, 64, 128, 3},
    {GG_LAYOUT_BATCHED, GG_SCALING_ROWWISE, 64, 64, 2},
    {GG_LAYOUT_N_OFFSETS, GG_SCALING_ROWWISE, 100, 64, 4},
    {GG_LAYOUT_K_OFFSETS, GG_SCALING_ROWWISE, 64, 272, 4},
    {GG_LAYOUT_K_OFFSETS, GG_SCALING_BLOCKWISE, 128, 384, 3},
};
enum { CASES = sizeof cases / sizeof cases[0] };
static const gg_tile_config tile = {64, 64, 128, 0, GG_LOOP_ROLLED, 0};

static gg_context* context;
static size_t page;

static gg_op_desc desc_of(const kernel_case* c) {
  gg_op_desc d = {0};
  d.layout = c->layout;
  d.scaling = c->scaling;
  d.fp8 = GG_FP8_E4M3FN;
  d.n = c->n;
  d.k = c->k;
  d.g = c->g;
  d.tile = tile;
  d.target = GG_TARGET_HOST;
  return d;
}

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  page = (size_t)sysconf(_SC_PAGESIZE);
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";  // nothing on disk: the kernels stay in this process
  gg_status status = gg_context_create(&options, &context);
  for (int i = 0; !status && i < CASES; ++i) {
    gg_op_desc d = desc_of(&cases[i]);
    gg_kernel* kernel;
    status = gg_kernel_get(context, &d, &kernel);
  }
  if (status) gg_fuzz_fail("setup: %s", gg_status_message(status));
  // Seeds: each case with in-range metadata, and with a few hostile values.
  for (uint8_t i = 0; i < CASES; ++i) {
    uint8_t seed[48] = {i, 130, 0, 0, 7};
    for (int j = 5; j < 48; ++j) seed[j] = (uint8_t)(j * 37 + i);
    gg_fuzz_add_seed(seed, sizeof seed);
    seed[5] = 0xFF;
    seed[9] = 0x80;
    gg_fuzz_add_seed(seed, sizeof seed);
  }
  return 0;
}

// A metadata value: in range most of the time, otherwise something hostile.
static int64_t metadata_value(gg_fuzz_cursor* c, int64_t axis, int64_t previous, int counts) {
  static const int64_t hostile[] = {-1, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX,
                                    (int64_t)1 << 40, -((int64_t)1 << 40)};
  uint64_t kind = gg_fuzz_take(c, 1) % 8;
  if (kind == 6) return hostile[gg_fuzz_take(c, 1) % (sizeof hostile / sizeof hostile[0])];
  if (kind == 7) return (int64_t)gg_fuzz_take(c, 8);
  int64_t step = (int64_t)(gg_fuzz_take(c, 2) % (uint64_t)(axis + 2));
  return counts ? step : kind == 5 ? step : previous + step % (axis / 2 + 2);  // 5: decreasing
}

// Memory between guard pages: data[0, size) ends where the inaccessible page begins; the
// bytes of its first page in front of it hold a pattern.
typedef struct guarded {
  uint8_t* map;
  size_t map_size;
  uint8_t* data;
  size_t size;
} guarded;

static uint8_t* guarded_alloc(guarded* g, size_t size) {
  size_t pages = (size + page - 1) / page + 1;
  g->map_size = (pages + 2) * page;
  g->map = mmap(NULL, g->map_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (g->map == MAP_FAILED || mprotect(g->map + page, pages * page, PROT_READ | PROT_WRITE) != 0)
    gg_fuzz_fail("cannot map guarded memory");
  g->data = g->map + page + pages * page - size;
  g->size = size;
  memset(g->map + page, 0xA5, (size_t)(g->data - (g->map + page)));
  return g->data;
}

static void guarded_check_free(guarded* g, const char* name) {
  for (uint8_t* p = g->map + page; p < g->data; ++p)
    if (*p != 0xA5) gg_fuzz_fail("%s: a byte %td before it was written", name, g->data - p);
  munmap(g->map, g->map_size);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gg_fuzz_cursor in = {data, size};
  const kernel_case* kc = &cases[gg_fuzz_take(&in, 1) % CASES];
  gg_op_desc d = desc_of(kc);
  int64_t m = (int64_t)(gg_fuzz_take(&in, 2) % 300);
  int zeroing = (int)(gg_fuzz_take(&in, 1) & 1);
  uint64_t data_seed = gg_fuzz_take(&in, 1);

  gg_problem p;
  memset(&p, 0, sizeof p);
  p.desc = gg_op_desc_with_defaults(&d);
  p.m = m;
  p.zeroing = zeroing;
  p.data = GG_DATA_EXACT;
  guarded memory[GG_OPERAND_COUNT];
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    p.shapes[i] = gg_operand_shape_of(&p.desc, (gg_operand)i, m);
    if (!p.shapes[i].present) continue;
    p.bytes[i] = (size_t)gg_operand_shape_numel(&p.shapes[i]) * gg_dtype_size(p.shapes[i].dtype);
    p.buffers[i] = guarded_alloc(&memory[i], p.bytes[i]);
  }
  gg_rng rng = {data_seed * 0x9E3779B97F4A7C15ull + 1};
  for (int i = GG_OPERAND_A; i <= GG_OPERAND_B; ++i)
    for (size_t j = 0; j < p.bytes[i]; ++j) {
      uint64_t r = gg_rng_next(&rng) % 8;
      ((uint8_t*)p.buffers[i])[j] =
          gg_fp8_encode(GG_FP8_E4M3FN, r == 0 ? 1.0f : r == 1 ? -1.0f : r == 2 ? 2.0f : 0.0f);
    }
  for (int i = GG_OPERAND_A_SCALE; i <= GG_OPERAND_B_SCALE; ++i)
    for (size_t j = 0; j < p.bytes[i] / 4; ++j)
      ((float*)p.buffers[i])[j] = (float)(1 << gg_rng_range(&rng, 0, 3)) / 4.0f;
  if (p.shapes[GG_OPERAND_META].present) {
    int counts = d.layout == GG_LAYOUT_SIZES || d.layout == GG_LAYOUT_PADDED;
    int64_t axis = d.layout == GG_LAYOUT_N_OFFSETS ? d.n : d.layout == GG_LAYOUT_K_OFFSETS ? d.k : m;
    int64_t previous = 0;
    for (int64_t g = 0; g < d.g; ++g) {
      int64_t v = metadata_value(&in, axis, previous, counts);
      if (p.shapes[GG_OPERAND_META].dtype == GG_DTYPE_I64) ((int64_t*)p.buffers[GG_OPERAND_META])[g] = v;
      else ((int32_t*)p.buffers[GG_OPERAND_META])[g] = (int32_t)v;
      previous = p.shapes[GG_OPERAND_META].dtype == GG_DTYPE_I64 ? v : (int32_t)v;
    }
  }
  uint16_t* out = p.buffers[GG_OPERAND_OUT];
  int64_t count = gg_operand_shape_numel(&p.shapes[GG_OPERAND_OUT]);
  gg_poison_bf16(out, count);

  gg_dl_operands dl;
  gg_dl_wrap(&p, p.buffers, (DLDevice){kDLCPU, 0}, &dl);
  gg_grouped_gemm_call call;
  memset(&call, 0, sizeof call);
  call.layout = d.layout;
  call.scaling = d.scaling;
  call.tile = tile;
  call.zeroing = zeroing;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) call.operands[i] = dl.pointers[i];

  // One input in four breaks a tensor in a way the contract refuses.
  int broken = (int)(gg_fuzz_take(&in, 1) % 4 == 0);
  int64_t bad_shape[3];
  if (broken) {
    int victim = (int)(gg_fuzz_take(&in, 1) % GG_OPERAND_COUNT);
    if (!dl.pointers[victim]) victim = GG_OPERAND_A;
    DLTensor* t = &dl.tensors[victim];
    int dim = t->ndim > 0 ? (int)(gg_fuzz_take(&in, 1) % (uint64_t)t->ndim) : 0;
    memcpy(bad_shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    switch (gg_fuzz_take(&in, 1) % 4) {
      case 0:
        bad_shape[dim] = ((int64_t)1 << 62) + (int64_t)gg_fuzz_take(&in, 1);
        t->shape = bad_shape;
        break;
      case 1: t->dtype.code = (uint8_t)(t->dtype.code + 1 + gg_fuzz_take(&in, 1) % 3); break;
      case 2:
        if (t->dtype.bits > 8) {  // misaligned (FP8 has no alignment to break)
          t->byte_offset = 1;
          break;
        }
        // fall through
      default: bad_shape[dim] = -1 - (int64_t)(gg_fuzz_take(&in, 2)); t->shape = bad_shape; break;
    }
  }
  gg_status status = gg_grouped_gemm(context, &call);
  if (broken) {
    if (!status) gg_fuzz_fail("%s: a broken call was accepted", gg_layout_name(d.layout));
    if (gg_status_code_of(status) != GG_STATUS_INVALID_ARGUMENT)
      gg_fuzz_fail("a broken call failed with %s", gg_status_message(status));
    for (int64_t i = 0; i < count; ++i)
      if (out[i] != GG_POISON_BF16) gg_fuzz_fail("a refused call wrote output element %lld", (long long)i);
  } else {
    if (status) gg_fuzz_fail("%s m=%lld: %s", gg_layout_name(d.layout), (long long)m,
                             gg_status_message(status));
    size_t slots = (size_t)(count ? count : 1);
    uint16_t* want = malloc(slots * sizeof *want);
    double* bound = malloc(slots * sizeof *bound);
    if (!want || !bound) gg_fuzz_fail("out of memory");
    gg_poison_bf16(want, count);
    gg_reference_run(&p, want, bound);
    gg_compare_result r = gg_compare_outputs(out, want, bound, count, 1);
    if (r.mismatches || r.unwritten || r.clobbered)
      gg_fuzz_fail("%s %s m=%lld: %lld mismatches, %lld unwritten, %lld clobbered (first %lld)",
                   gg_layout_name(d.layout), gg_scaling_name(d.scaling), (long long)m,
                   (long long)r.mismatches, (long long)r.unwritten, (long long)r.clobbered,
                   (long long)r.first_bad);
    free(want);
    free(bound);
  }
  gg_status_free(status);
  for (int i = 0; i < GG_OPERAND_COUNT; ++i)
    if (p.buffers[i]) guarded_check_free(&memory[i], gg_operand_name((gg_operand)i));
  return 0;
}
