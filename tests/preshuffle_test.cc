// Preshuffled B: the shuffle against the spec's formula on every element and its inverse;
// every layout that accepts it on the host and in sim for both chips, exact data
// bit-identical and random data within tolerance, K tile counts 1 through 8 (pair loops
// of both parities), rolled and unrolled bit-identical; code objects that never stage B in
// LDS and stay within 256 VGPRs; and every refusal with its message and nothing run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/amdgpu.h"
#include "compiler/compile.h"
#include "gg/gg.h"
#include "tests/reference/problem.h"
#include "tests/support/api_case.h"
#include "tests/support/test_util.h"
#include "tests/support/desc.h"

namespace {

using gg_test::ApiCase;
using gg_test::RunCase;
using gg_test::Spec;
using gg_test::TakeMessage;

// ---------------------------------------------------------------------------------------
// The shuffle.

DLTensor Weights(std::vector<uint8_t>& bytes, std::vector<int64_t>& shape, uint8_t code) {
  return DLTensor{bytes.data(), {kDLCPU, 0}, int(shape.size()), {code, 8, 1}, shape.data(),
                  nullptr, 0};
}

class Shuffle : public ::testing::TestWithParam<std::vector<int64_t>> {};

TEST_P(Shuffle, EveryElementWhereTheSpecSaysAndBack) {
  std::vector<int64_t> shape = GetParam();
  const int64_t k = shape.back(), n = shape[shape.size() - 2];
  const int64_t groups = shape.size() == 3 ? shape[0] : 1;
  std::vector<uint8_t> plain(size_t(groups * n * k)), shuffled(plain.size(), 0xEE),
      back(plain.size(), 0xEE);
  gg_rng rng = {uint64_t(n * 131 + k)};
  for (uint8_t& b : plain) b = uint8_t(gg_rng_next(&rng));
  DLTensor src = Weights(plain, shape, GG_DL_FLOAT8_E4M3FN);
  DLTensor dst = Weights(shuffled, shape, GG_DL_FLOAT8_E4M3FN);
  ASSERT_EQ(gg_preshuffle_b(&src, &dst), GG_OK);
  // ops.md section 7: (n, k) -> (((n0 K0 + k0) 4 + kl) 16 + nl) 16 + kp, per group.
  const int64_t k0_count = k / 64;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t row = 0; row < n; ++row)
      for (int64_t col = 0; col < k; ++col) {
        int64_t n0 = row / 16, nl = row % 16, k0 = col / 64, kl = (col % 64) / 16, kp = col % 16;
        int64_t to = g * n * k + (((n0 * k0_count + k0) * 4 + kl) * 16 + nl) * 16 + kp;
        ASSERT_EQ(shuffled[size_t(to)], plain[size_t(g * n * k + row * k + col)])
            << "g=" << g << " n=" << row << " k=" << col;
      }
  DLTensor again = Weights(back, shape, GG_DL_FLOAT8_E4M3FN);
  ASSERT_EQ(gg_unshuffle_b(&dst, &again), GG_OK);
  EXPECT_EQ(back, plain);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Shuffle,
                         ::testing::Values(std::vector<int64_t>{16, 64},
                                           std::vector<int64_t>{48, 192},
                                           std::vector<int64_t>{256, 512},
                                           std::vector<int64_t>{3, 32, 128},
                                           std::vector<int64_t>{2, 16, 320}));

TEST(Shuffle, Refusals) {
  std::vector<uint8_t> a(4 * 32 * 128), b(a.size());
  struct Case {
    const char* name;
    std::vector<int64_t> src_shape, dst_shape;
    uint8_t code;
    int overlap;
    const char* message;
  } cases[] = {
      {"n_not_16", {24, 128}, {24, 128}, GG_DL_FLOAT8_E4M3FN, 0, "N must be a multiple of 16"},
      {"group_n_not_16", {4, 8, 128}, {4, 8, 128}, GG_DL_FLOAT8_E4M3FN, 0, "N must be a multiple of 16"},
      {"k_not_64", {32, 96}, {32, 96}, GG_DL_FLOAT8_E4M3FN, 0, "K must be a multiple of 64"},
      {"not_fp8", {32, 128}, {32, 128}, kDLInt, 0, "must be float8_e4m3fn or float8_e4m3fnuz"},
      {"rank", {4096}, {4096}, GG_DL_FLOAT8_E4M3FN, 0, "must be [N, K] or [G, N, K]"},
      {"shapes_differ", {32, 128}, {16, 256}, GG_DL_FLOAT8_E4M3FN, 0, "src and dst differ"},
      {"overlap", {32, 128}, {32, 128}, GG_DL_FLOAT8_E4M3FN, 1, "overlap"},
  };
  for (const Case& c : cases) {
    std::vector<int64_t> src_shape = c.src_shape, dst_shape = c.dst_shape;
    std::fill(b.begin(), b.end(), 0x5A);
    DLTensor src = Weights(a, src_shape, c.code);
    DLTensor dst = Weights(c.overlap ? a : b, dst_shape, c.code);
    if (c.overlap) dst.byte_offset = 16;
    gg_status status = gg_preshuffle_b(&src, &dst);
    ASSERT_NE(status, GG_OK) << c.name;
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT) << c.name;
    std::string message = TakeMessage(status);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": " << message;
    EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0x5A; }))
        << c.name << ": dst written";
  }
  std::vector<int64_t> shape = {32, 128};
  DLTensor src = Weights(a, shape, GG_DL_FLOAT8_E4M3FN), dst = Weights(b, shape, GG_DL_FLOAT8_E4M3FN);
  dst.device = {kDLROCM, 0};
  gg_status status = gg_preshuffle_b(&src, &dst);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("the shuffle runs on the host"), std::string::npos);
  status = gg_preshuffle_b(nullptr, &dst);
  EXPECT_NE(status, GG_OK);
  gg_status_free(status);
}

// ---------------------------------------------------------------------------------------
// Kernels: every accepted layout, on the host and in sim, K tile counts 1..8.

enum Where { kHost = 0, kSim942, kSim950 };

Spec Case(gg_layout layout, int64_t tiles, Where where, gg_data_kind data, gg_scaling scaling) {
  Spec s;
  s.layout = layout;
  s.scaling = scaling;
  s.b_layout = GG_B_PRESHUFFLED;
  s.n = 128;
  s.k = 128 * tiles;
  s.data = data;
  s.seed = uint64_t(7 + tiles);
  switch (layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS: s.extents = {70, 0, 130}; break;  // a group spans two M tiles
    case GG_LAYOUT_PADDED: s.extents = {0, 100, 37}; s.m = 100; break;
    default: s.extents = {100, 100}; s.m = 100; break;  // batched
  }
  s.target = where == kHost ? GG_TARGET_HOST : where == kSim942 ? GG_TARGET_GFX942 : GG_TARGET_GFX950;
  s.fp8 = where == kSim942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  return s;
}

// The case rolled and unrolled: both match the reference (exact data bit-identical) and
// give the same bits.
void ExpectRolledMatchesUnrolled(const Spec& rolled) {
  Spec unrolled = rolled;
  unrolled.tile.loop = GG_LOOP_UNROLLED;
  gg_check_result a = RunCase(rolled), b = RunCase(unrolled);
  EXPECT_TRUE(a.passed) << "mismatches=" << a.compare.mismatches << " unwritten="
                        << a.compare.unwritten << "\n  reproduce: " << rolled.command();
  EXPECT_TRUE(b.passed) << "\n  reproduce: " << unrolled.command();
  if (rolled.data == GG_DATA_EXACT) {
    EXPECT_EQ(a.compare.max_abs_err, 0.0) << rolled.command();
  }
  EXPECT_EQ(a.checksum, b.checksum) << "rolled and unrolled differ\n  " << rolled.command();
  gg_check_result_free(&a);
  gg_check_result_free(&b);
}

using KernelParam = std::tuple<gg_layout, int, Where>;

class Kernels : public ::testing::TestWithParam<KernelParam> {};

TEST_P(Kernels, MatchReferenceRolledEqualsUnrolled) {
  auto [layout, tiles, where] = GetParam();
  for (gg_data_kind data : {GG_DATA_EXACT, GG_DATA_RANDOM}) {
    // Blockwise on the stacked layout too: the groupwise op's preshuffled sibling.
    for (gg_scaling scaling : {GG_SCALING_ROWWISE, GG_SCALING_BLOCKWISE}) {
      if (scaling == GG_SCALING_BLOCKWISE && layout != GG_LAYOUT_SIZES) continue;
      ExpectRolledMatchesUnrolled(Case(layout, tiles, where, data, scaling));
    }
  }
}

std::string KernelName(const ::testing::TestParamInfo<KernelParam>& info) {
  static const char* const where[] = {"host", "sim_gfx942", "sim_gfx950"};
  return std::string(gg_layout_name(std::get<0>(info.param))) + "_tiles" +
         std::to_string(std::get<1>(info.param)) + "_" + where[std::get<2>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(
    Preshuffled, Kernels,
    ::testing::Combine(::testing::Values(GG_LAYOUT_SIZES, GG_LAYOUT_OFFSETS, GG_LAYOUT_PADDED,
                                         GG_LAYOUT_BATCHED),
                       ::testing::Range(1, 9), ::testing::Values(kHost, kSim942, kSim950)),
    KernelName);

// gfx950's two-buffer tiles of up to 128 accumulator registers read the next tile's first
// fragments mid-tile, after a barrier, and carry them with the accumulators (rowwise, and
// blockwise with plain B where the barrier leaves room: docs/amd-model.md). Run in sim
// over 1 to 6 K tiles (the rolled loop steps by pairs: the prologue, the loop, the peeled
// tiles each hand fragments on), both B layouts, exact data bit-identical, rolled and
// unrolled alike; sim's race check covers the moved barrier.
TEST(Kernels, FirstFragmentsRideFromTileToTile) {
  for (gg_tile_config tile : {gg_tile_config{128, 256, 128, 1, GG_LOOP_ROLLED, 0},
                              gg_tile_config{256, 128, 128, 1, GG_LOOP_ROLLED, 0}})
    for (gg_b_layout b : {GG_B_PLAIN, GG_B_PRESHUFFLED})
      for (int tiles = 1; tiles <= 6; ++tiles)
        for (gg_data_kind data : {GG_DATA_EXACT, GG_DATA_RANDOM}) {
          Spec rolled = Case(GG_LAYOUT_SIZES, tiles, kSim950, data, GG_SCALING_ROWWISE);
          rolled.b_layout = b;
          rolled.tile = tile;
          rolled.n = 256;
          rolled.extents = {300, 0, 1, 130};  // a group spanning two M tiles, one of one row
          ExpectRolledMatchesUnrolled(rolled);
        }
}

// gfx942's 256x128 blockwise tile with preshuffled B: two A stages with their scales take
// 66 KiB of the 64, so it stages in one buffer (gg_amd_lds_buffers), run in sim over 1 to
// 6 K tiles (its rolled loop steps by pairs: 5 and 6 tiles run it twice), exact data
// bit-identical, rolled and unrolled alike.
TEST(Kernels, OneLdsBufferWhereTwoDoNotFit) {
  for (int tiles = 1; tiles <= 6; ++tiles)
    for (gg_data_kind data : {GG_DATA_EXACT, GG_DATA_RANDOM}) {
      Spec rolled = Case(GG_LAYOUT_SIZES, tiles, kSim942, data, GG_SCALING_BLOCKWISE);
      rolled.tile = {256, 128, 128, 1, GG_LOOP_ROLLED, 0};
      rolled.extents = {300, 0, 1, 130};  // a group spanning two M tiles, one of one row
      if (tiles == 1) {
        gg_op_desc d = rolled.desc();
        EXPECT_EQ(gg_amd_lds_buffers(&d), 1);
        EXPECT_LE(gg_amd_lds_bytes(&d), gg_lds_capacity(GG_TARGET_GFX942));
      }
      ExpectRolledMatchesUnrolled(rolled);
    }
}

// Plain and preshuffled B give the same bits for the same logical weights (random data:
// the same sums in the same order, not just within tolerance).
TEST(Kernels, SameBitsAsPlainB) {
  Spec pre = Case(GG_LAYOUT_SIZES, 3, kHost, GG_DATA_RANDOM, GG_SCALING_ROWWISE);
  gg_check_result r = RunCase(pre, true);
  ASSERT_TRUE(r.passed) << pre.command();
  gg_problem_spec ps = {pre.desc(), pre.extents.data(), pre.m, pre.zeroing, pre.data, pre.seed, 0};
  gg_problem* p;
  ASSERT_EQ(gg_problem_create(&ps, &p), GG_OK);  // the same seed: the same weights
  std::vector<uint8_t> plain(p->bytes[GG_OPERAND_B]);
  ASSERT_EQ(gg_preshuffle_b_bytes(static_cast<uint8_t*>(p->buffers[GG_OPERAND_B]), plain.data(),
                                  int64_t(plain.size()) / pre.k, pre.k, 1),
            GG_OK);
  gg_op_desc d = p->desc;
  d.b_layout = GG_B_PLAIN;
  gg_host_kernel* kernel;
  ASSERT_EQ(gg_host_kernel_create(&d, &kernel), GG_OK);
  void* buffers[GG_OPERAND_COUNT];
  memcpy(buffers, p->buffers, sizeof buffers);
  buffers[GG_OPERAND_B] = plain.data();
  uint16_t* out = static_cast<uint16_t*>(p->buffers[GG_OPERAND_OUT]);
  gg_poison_bf16(out, r.output_count);
  ASSERT_EQ(gg_host_kernel_run(kernel, buffers, p->m, p->zeroing), GG_OK);
  EXPECT_EQ(memcmp(out, r.output, size_t(r.output_count) * 2), 0);
  gg_host_kernel_destroy(kernel);
  gg_problem_destroy(p);
  gg_check_result_free(&r);
}

// ---------------------------------------------------------------------------------------
// Code objects.

// Scratch instructions between a loop's label and the branch back to it (the K loop).
int ScratchInLoops(const std::string& isa) {
  int count = 0;
  size_t at = 0;
  while ((at = isa.find("s_cbranch", at)) != std::string::npos) {
    size_t eol = isa.find('\n', at);
    size_t label_at = isa.find(".LBB", at);
    if (label_at == std::string::npos || label_at > eol) {
      at = eol;
      continue;
    }
    std::string label = isa.substr(label_at, isa.find_first_of(" \n", label_at) - label_at) + ":";
    size_t head = isa.find("\n" + label);
    if (head != std::string::npos && head < at)  // a backward branch: the loop body
      for (size_t p = isa.find("scratch_", head); p != std::string::npos && p < at;
           p = isa.find("scratch_", p + 1))
        ++count;
    at = eol;
  }
  return count;
}

TEST(ScratchInLoops, CountsOnlyLoopBodies) {
  const std::string isa =
      "  scratch_store_dword off, v1, off\n.LBB0_2:\n  v_mfma\n  scratch_load_dword v3, off, off\n"
      "  s_cbranch_scc0 .LBB0_2\n  scratch_load_dword v1, off, off\n  s_cbranch_execz .LBB0_9\n"
      ".LBB0_9:\n  s_endpgm\n";
  EXPECT_EQ(ScratchInLoops(isa), 1);
}

class CodeObjects : public ::testing::TestWithParam<gg_target> {};

TEST_P(CodeObjects, NoBInLdsAndWithin256Vgprs) {
  gg_target chip = GetParam();
  for (int64_t k : {512, 8192}) {
    gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, chip, 4096, k, 8);
    gg_isa_stats stats[2];
    for (int b = 0; b < 2; ++b) {
      d.b_layout = b ? GG_B_PRESHUFFLED : GG_B_PLAIN;
      gg_text isa;
      gg_text_init(&isa);
      gg_status status = gg_compile_emit(&d, GG_STAGE_ISA, &isa);
      ASSERT_EQ(status, GG_OK) << gg_status_message(status);
      ASSERT_EQ(gg_isa_stats_parse(isa.data, isa.length, &stats[b]), GG_OK);
      // Whatever the register allocator keeps in scratch, the K loop never touches it.
      EXPECT_EQ(ScratchInLoops(std::string(isa.data, isa.length)), 0) << "k=" << k << " b=" << b;
      if (k == 8192) {
        EXPECT_GT(stats[b].mfma_in_loop, 0) << "the K loop is rolled";
      }
      gg_text_free(&isa);
    }
    // Default tile 128x128x128 and waves_per_eu 2: 512 unified registers / 2 waves, so at
    // least 2 waves fit (more when the kernel needs fewer registers: gfx950 at K 512 now
    // takes 162, 3 waves).
    EXPECT_LE(stats[1].vgpr + stats[1].agpr, 256) << "k=" << k;
    EXPECT_GE(stats[1].waves_per_simd, 2) << "k=" << k;
    if (k == 512) {
      EXPECT_EQ(stats[1].scratch_bytes, 0);
    }
  }
}

// Straight-line code (gg's unrolled form: whether LLVM unrolls the short rolled loop is its
// own choice) of 4 K tiles: each tile stages A (4 x 16 bytes per thread) and, with plain B,
// B too; the epilogue's stores are the same in both. Preshuffled B never touches LDS.
TEST_P(CodeObjects, OnlyPlainBIsStagedInLds) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GetParam(), 4096, 512, 8);
  d.tile = gg_tile_config_default();
  d.tile.loop = GG_LOOP_UNROLLED;
  gg_isa_stats stats[2];
  for (int b = 0; b < 2; ++b) {
    d.b_layout = b ? GG_B_PRESHUFFLED : GG_B_PLAIN;
    gg_text isa;
    gg_text_init(&isa);
    gg_status status = gg_compile_emit(&d, GG_STAGE_ISA, &isa);
    ASSERT_EQ(status, GG_OK) << gg_status_message(status);
    ASSERT_EQ(gg_isa_stats_parse(isa.data, isa.length, &stats[b]), GG_OK);
    gg_text_free(&isa);
  }
  EXPECT_EQ(stats[0].lds_writes - stats[1].lds_writes, 4 * 4) << "B is staged in LDS";
}

INSTANTIATE_TEST_SUITE_P(Chips, CodeObjects, ::testing::Values(GG_TARGET_GFX942, GG_TARGET_GFX950),
                         [](const auto& info) { return std::string(gg_target_name(info.param)); });

// ---------------------------------------------------------------------------------------
// Refusals: each with its message, nothing compiled or run.

TEST(Refusals, LayoutsThatSplitNOrK) {
  for (gg_layout layout : {GG_LAYOUT_N_OFFSETS, GG_LAYOUT_K_OFFSETS}) {
    Spec s;
    s.layout = layout;
    s.b_layout = GG_B_PRESHUFFLED;
    s.extents = {128, 128};
    s.n = 256;
    s.k = 256;
    gg_problem_spec ps = {s.desc(), s.extents.data(), 64, 1, GG_DATA_EXACT, 1, 0};
    gg_check_result r;
    gg_status status = gg_check_run(&ps, GG_CHECK_HOST, 0, &r);
    ASSERT_NE(status, GG_OK);
    std::string message = TakeMessage(status);
    EXPECT_NE(message.find("the shuffle interleaves across the whole matrix"), std::string::npos)
        << message;
    EXPECT_NE(message.find(layout == GG_LAYOUT_N_OFFSETS ? "groups along N" : "groups along K"),
              std::string::npos)
        << message;
  }
}

TEST(Refusals, PartialTiles) {
  struct Shape {
    int64_t n, k;
  } shapes[] = {{200, 256}, {256, 192}, {136, 640}};
  for (const Shape& shape : shapes) {
    Spec s;
    s.layout = GG_LAYOUT_SIZES;
    s.b_layout = GG_B_PRESHUFFLED;
    s.extents = {64, 64};
    s.n = shape.n;
    s.k = shape.k;
    gg_op_desc d = s.desc();
    gg_status status = gg_op_desc_validate(&d);
    ASSERT_NE(status, GG_OK) << shape.n << "x" << shape.k;
    EXPECT_NE(TakeMessage(status).find("divisible by tile_n and tile_k"), std::string::npos);
  }
}

TEST(Refusals, ApiEntryPoints) {
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context;
  ASSERT_EQ(gg_context_create(&options, &context), GG_OK);
  // 3D-2D through the _mm_preshuffle entry point.
  Spec s;
  s.layout = GG_LAYOUT_N_OFFSETS;
  s.extents = {128, 128};
  s.n = 256;
  s.k = 256;
  s.m = 64;
  ApiCase c(s);
  ASSERT_TRUE(c.ok());
  const DLTensor* const* t = c.dl().pointers;
  gg_status status = gg_f8f8bf16_rowwise_grouped_mm_preshuffle(context, t[0], t[1], t[2], t[3],
                                                               t[4], &c.tensor(GG_OPERAND_OUT));
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("shuffle interleaves"), std::string::npos);
  EXPECT_TRUE(c.Untouched());
  // The stacked preshuffle op with N not a multiple of the tile.
  Spec p;
  p.layout = GG_LAYOUT_SIZES;
  p.extents = {64, 64};
  p.n = 200;
  p.k = 256;
  ApiCase d(p);
  ASSERT_TRUE(d.ok());
  t = d.dl().pointers;
  status = gg_f8f8bf16_rowwise_grouped_stacked_preshuffle(context, t[0], t[1], t[2], t[3], t[4],
                                                          &d.tensor(GG_OPERAND_OUT));
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("divisible by tile_n"), std::string::npos);
  EXPECT_TRUE(d.Untouched());
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.compiles, 0u);
  gg_context_destroy(context);
}

// The _preshuffle entry points against the reference, weights shuffled by gg_preshuffle_b.
TEST(Api, PreshuffleEntryPoints) {
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context;
  ASSERT_EQ(gg_context_create(&options, &context), GG_OK);
  struct Entry {
    gg_layout layout;
    gg_scaling scaling;
    std::vector<int64_t> extents;
    int64_t m;
  } entries[] = {{GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, {70, 0, 130}, GG_DYNAMIC},
                 {GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, {70, 0, 130}, GG_DYNAMIC},
                 {GG_LAYOUT_PADDED, GG_SCALING_ROWWISE, {0, 100, 37}, 100},
                 {GG_LAYOUT_OFFSETS, GG_SCALING_ROWWISE, {33, 95}, GG_DYNAMIC},
                 {GG_LAYOUT_BATCHED, GG_SCALING_ROWWISE, {64, 64}, 64}};
  for (const Entry& e : entries) {
    Spec s;
    s.layout = e.layout;
    s.scaling = e.scaling;
    s.b_layout = GG_B_PRESHUFFLED;
    s.extents = e.extents;
    s.m = e.m;
    s.n = 256;
    s.k = 384;
    s.data = GG_DATA_RANDOM;
    ApiCase c(s);
    ASSERT_TRUE(c.ok());
    const DLTensor* const* t = c.dl().pointers;
    DLTensor* out = &c.tensor(GG_OPERAND_OUT);
    gg_status status;
    switch (e.layout) {
      case GG_LAYOUT_SIZES:
        status = e.scaling == GG_SCALING_BLOCKWISE
                     ? gg_f8f8bf16_groupwise_grouped_preshuffle(context, t[0], t[1], t[2], t[3], t[4], out)
                     : gg_f8f8bf16_rowwise_grouped_stacked_preshuffle(context, t[0], t[1], t[2], t[3],
                                                                      t[4], out);
        break;
      case GG_LAYOUT_PADDED:
        status = gg_f8f8bf16_rowwise_grouped_dynamic_preshuffle(context, t[0], t[1], t[2], t[3],
                                                                t[4], 1, out);
        break;
      default:
        status = gg_f8f8bf16_rowwise_grouped_mm_preshuffle(context, t[0], t[1], t[2], t[3], t[4],
                                                           out);
        break;
    }
    ASSERT_EQ(status, GG_OK) << gg_status_message(status) << "\n  " << s.command();
    c.ExpectMatchesReference();
  }
  gg_context_destroy(context);
}

}  // namespace
