// Every group layout with both scaling schemes on the host, against the reference:
// exact data bit-identical, random data within tolerance, outputs poisoned first.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/test_util.h"

namespace {

using gg_test::ExpectPass;
using gg_test::RunCase;
using gg_test::Spec;

// A boundary case of a layout: group extents, the grouped extent m, N and K, a tile.
struct Shape {
  const char* name;
  std::vector<int64_t> extents;
  int64_t m, n, k;
  gg_tile_config tile;
  int alternate_constant;
};

constexpr gg_tile_config kDefault = {0, 0, 0, 0, GG_LOOP_ROLLED};
constexpr gg_tile_config kTile256 = {256, 256, 256, 0, GG_LOOP_ROLLED};
constexpr gg_tile_config kTile64 = {64, 64, 128, 0, GG_LOOP_ROLLED};

// Shapes per layout, for rowwise (any N % 8, K % 16) or blockwise (N, K % 128) scaling.
std::vector<Shape> ShapesFor(gg_layout layout, gg_scaling scaling) {
  const bool bw = scaling == GG_SCALING_BLOCKWISE;
  // N and K tails: not multiples of the tile (rowwise: not even of 128).
  const int64_t tail_n = bw ? 384 : 200, tail_k = bw ? 640 : 400;
  const gg_tile_config tail_tile = bw ? kTile256 : kDefault;
  switch (layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS:
      return {
          {"issue_example", {0, 1, 130, 64}, GG_DYNAMIC, 256, 512, kDefault, 0},
          {"first_and_last_empty", {0, 77, 128, 0}, GG_DYNAMIC, 256, 256, kDefault, 0},
          {"one_row_groups", {1, 1, 1}, GG_DYNAMIC, 256, 256, kDefault, 0},
          {"not_tile_multiples", {129, 255, 257}, GG_DYNAMIC, 256, 256, kDefault, 0},
          {"smaller_than_tile", {3, 17, 40}, GG_DYNAMIC, 128, 256, kTile64, 0},
          {"rows_past_groups", {30, 0, 100}, 200, 256, 256, kDefault, 0},
          {"n_and_k_tails", {70, 0, 190}, GG_DYNAMIC, tail_n, tail_k, tail_tile, 0},
      };
    case GG_LAYOUT_PADDED:
      return {
          {"valid_rows_mixed", {0, 1, 128, 77}, 128, 256, 256, kDefault, 0},
          {"slab_not_tile_multiple", {200, 0, 13}, 200, 256, 256, kDefault, 0},
          {"all_full", {64, 64}, 64, 256, 256, kTile64, 0},
          {"n_and_k_tails", {90, 33}, 100, tail_n, tail_k, tail_tile, 0},
      };
    case GG_LAYOUT_BATCHED:
      return {
          {"slab_1", {1, 1, 1, 1}, 1, 256, 256, kDefault, 0},
          {"slab_64", {64, 64, 64, 64}, 64, 256, 256, kDefault, 0},
          {"slab_100", {100, 100, 100, 100}, 100, 256, 256, kDefault, 0},
          {"slab_192", {192, 192, 192, 192}, 192, 256, 256, kDefault, 0},
          {"slab_255", {255, 255, 255, 255}, 255, 256, 256, kDefault, 0},
          {"n_and_k_tails", {50, 50}, 50, tail_n, tail_k, tail_tile, 0},
      };
    case GG_LAYOUT_N_OFFSETS:
      if (bw)
        return {
            {"groups_straddle_blocks", {264, 256, 248}, 128, 768, 256, kDefault, 0},
            {"empty_first_and_last", {0, 128, 384, 0}, 64, 512, 256, kDefault, 0},
            {"k_tail", {200, 184}, 100, 384, 640, kTile256, 0},
            {"narrow_groups", {8, 504, 128, 128}, 32, 768, 256, kDefault, 1},
        };
      return {
          {"264_264", {264, 264}, 128, GG_DYNAMIC, 256, kDefault, 0},
          {"8_504_128", {8, 504, 128}, 128, GG_DYNAMIC, 256, kDefault, 1},
          {"1024_264_8", {1024, 264, 8}, 128, GG_DYNAMIC, 256, kDefault, 0},
          {"not_multiples_of_8", {5, 250, 3}, 64, GG_DYNAMIC, 256, kDefault, 1},
          {"first_and_last_empty", {0, 136, 0}, 64, GG_DYNAMIC, 256, kDefault, 0},
          {"columns_past_groups", {40, 60}, 32, 200, 256, kDefault, 0},
          {"k_tail", {100, 100}, 77, GG_DYNAMIC, 400, kDefault, 0},
      };
    case GG_LAYOUT_K_OFFSETS:
      return {
          {"288x4", {288, 288, 288, 288}, 128, 256, GG_DYNAMIC, kDefault, 0},
          {"16_512_128_368", {16, 512, 128, 368}, 128, 256, GG_DYNAMIC, kDefault, 1},
          {"0_256_256_512", {0, 256, 256, 512}, 128, 256, GG_DYNAMIC, kDefault, 1},
          {"not_multiples_of_16", {17, 100, 3}, 100, 256, 128, kDefault, 1},
          {"last_empty", {384, 128, 0}, 64, 256, GG_DYNAMIC, kTile256, 1},
          {"n_tail", {200, 56}, 90, tail_n, GG_DYNAMIC, tail_tile, 0},
      };
    default:
      return {};
  }
}

using Param = std::tuple<gg_layout, gg_scaling, gg_data_kind>;

class Layouts : public ::testing::TestWithParam<Param> {};

TEST_P(Layouts, BoundaryShapes) {
  auto [layout, scaling, data] = GetParam();
  for (const Shape& shape : ShapesFor(layout, scaling)) {
    SCOPED_TRACE(shape.name);
    Spec s;
    s.layout = layout;
    s.scaling = scaling;
    s.data = data;
    s.extents = shape.extents;
    s.m = shape.m;
    int64_t sum = 0;
    for (int64_t e : shape.extents) sum += e;
    s.n = shape.n == GG_DYNAMIC ? sum : shape.n;
    s.k = shape.k == GG_DYNAMIC ? sum : shape.k;
    s.tile = shape.tile;
    s.alternate_constant = shape.alternate_constant;
    s.seed = 3;
    ExpectPass(s);
  }
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  auto [layout, scaling, data] = info.param;
  return std::string(gg_layout_name(layout)) + "_" + gg_scaling_name(scaling) + "_" +
         (data == GG_DATA_EXACT ? "exact" : "random");
}

INSTANTIATE_TEST_SUITE_P(
    AllLayouts, Layouts,
    ::testing::Combine(::testing::Values(GG_LAYOUT_SIZES, GG_LAYOUT_OFFSETS, GG_LAYOUT_PADDED,
                                         GG_LAYOUT_BATCHED, GG_LAYOUT_N_OFFSETS,
                                         GG_LAYOUT_K_OFFSETS),
                       ::testing::Values(GG_SCALING_ROWWISE, GG_SCALING_BLOCKWISE),
                       ::testing::Values(GG_DATA_EXACT, GG_DATA_RANDOM)),
    ParamName);

TEST(Dynamic, PaddingRowsZeroedOnlyWhenAsked) {
  for (int zeroing : {1, 0}) {
    Spec s;
    s.layout = GG_LAYOUT_PADDED;
    s.extents = {0, 30, 128, 5};
    s.m = 128;
    s.zeroing = zeroing;
    gg_check_result r = RunCase(s, /*keep_output=*/true);
    ASSERT_TRUE(r.passed) << s.command();
    // Group 1's rows 30..127 are padding: zero with zeroing, untouched (poison) without.
    for (int64_t row = 30; row < 128; ++row)
      for (int64_t c = 0; c < 256; ++c) {
        uint16_t v = r.output[(128 + row) * 256 + c];
        ASSERT_EQ(v, zeroing ? 0 : GG_POISON_BF16) << "row " << row << " col " << c;
      }
    gg_check_result_free(&r);
  }
}

TEST(KOffsets, EmptyGroupSliceIsZeros) {
  Spec s;
  s.layout = GG_LAYOUT_K_OFFSETS;
  s.extents = {0, 256, 0, 256};
  s.m = 64;
  s.k = 512;
  gg_check_result r = RunCase(s, /*keep_output=*/true);
  ASSERT_TRUE(r.passed) << s.command();
  for (int64_t g : {0, 2})
    for (int64_t i = 0; i < 64 * 256; ++i) ASSERT_EQ(r.output[g * 64 * 256 + i], 0) << g;
  gg_check_result_free(&r);
}

TEST(Blockwise, KEndingMidScaleBlockIsRejected) {
  for (gg_layout layout : {GG_LAYOUT_SIZES, GG_LAYOUT_OFFSETS, GG_LAYOUT_PADDED,
                           GG_LAYOUT_BATCHED, GG_LAYOUT_N_OFFSETS, GG_LAYOUT_K_OFFSETS}) {
    Spec s;
    s.layout = layout;
    s.scaling = GG_SCALING_BLOCKWISE;
    s.extents = {128, 128};
    s.m = 128;
    s.k = 240;  // a multiple of 16, not of the 128-wide scale block
    gg_op_desc d = s.desc();
    gg_status status = gg_op_desc_validate(&d);
    ASSERT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT) << gg_layout_name(layout);
    EXPECT_NE(std::strstr(gg_status_message(status), "scale_block_k"), nullptr);
    gg_status_free(status);
  }
}

TEST(Blockwise, NNotMultipleOf128IsRejected) {
  Spec s;
  s.layout = GG_LAYOUT_N_OFFSETS;
  s.scaling = GG_SCALING_BLOCKWISE;
  s.extents = {264, 264};
  s.n = 528;
  gg_op_desc d = s.desc();
  gg_status status = gg_op_desc_validate(&d);
  ASSERT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(gg_status_message(status), "scale_block_n"), nullptr);
  gg_status_free(status);
}

TEST(Layouts, ZeroExtentsZeroFill) {
  for (gg_layout layout : {GG_LAYOUT_PADDED, GG_LAYOUT_BATCHED, GG_LAYOUT_N_OFFSETS,
                           GG_LAYOUT_K_OFFSETS}) {
    Spec s;
    s.layout = layout;
    s.extents = {0, 0};
    s.m = layout == GG_LAYOUT_BATCHED ? 0 : 16;  // M = 0, or every group empty
    s.n = layout == GG_LAYOUT_N_OFFSETS ? 0 : 256;
    s.k = layout == GG_LAYOUT_K_OFFSETS ? 0 : 256;
    ExpectPass(s);
  }
}

}  // namespace
