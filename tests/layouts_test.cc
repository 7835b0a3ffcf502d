// Every group layout with both scaling schemes on the host, against the reference:
// exact data bit-identical, random data within tolerance, outputs poisoned first.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/shapes.h"
#include "tests/support/test_util.h"
#include "tests/support/params.h"

namespace {

using gg_test::ExpectPass;
using gg_test::RunCase;
using gg_test::Shape;
using gg_test::ShapesFor;
using gg_test::Spec;

using Param = std::tuple<gg_layout, gg_scaling, gg_data_kind>;

class Layouts : public ::testing::TestWithParam<Param> {};

TEST_P(Layouts, BoundaryShapes) {
  auto [layout, scaling, data] = GetParam();
  for (const Shape& shape : ShapesFor(layout, scaling)) {
    SCOPED_TRACE(shape.name);
    Spec s = shape.spec(layout, scaling, data);
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
    ::testing::Combine(gg_test::EveryLayout(), gg_test::EveryScaling(),
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
