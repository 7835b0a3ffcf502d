// The AMD kernels (gg-to-amdgpu's IR for gfx942 and gfx950) executed in sim against the
// reference: every layout x scaling x chip on the host suite's boundary shapes, exact data
// bit-identical; and the race check catching a dropped barrier.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>

#include "compiler/compile.h"
#include "ir/ir.h"
#include "sim/sim.h"
#include "tests/reference/problem.h"
#include "tests/support/desc.h"
#include "tests/support/shapes.h"
#include "tests/support/test_util.h"
#include "tests/support/params.h"

namespace {

using gg_test::ExpectPass;
using gg_test::Shape;
using gg_test::ShapesFor;
using gg_test::Spec;

class SimLayouts : public ::testing::TestWithParam<gg_test::LayoutScalingChip> {};

TEST_P(SimLayouts, BoundaryShapesExact) {
  auto [layout, scaling, chip] = GetParam();
  for (const Shape& shape : ShapesFor(layout, scaling)) {
    SCOPED_TRACE(shape.name);
    Spec s = shape.spec(layout, scaling, GG_DATA_EXACT);
    s.target = chip;
    s.fp8 = chip == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
    // A tile whose LDS the chip lacks is refused at compile time (tested below); run the
    // shape on the default tile instead.
    gg_op_desc requested = s.desc();
    gg_op_desc d = gg_op_desc_with_defaults(&requested);
    if (gg_amd_lds_bytes(&d) > gg_lds_capacity(chip))
      s.tile = {0, 0, 0, 0, GG_LOOP_ROLLED, 0};
    ExpectPass(s);
  }
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, SimLayouts, gg_test::EveryLayoutScalingChip(),
                         gg_test::LayoutScalingChipName);

Spec Stacked(gg_target chip, gg_data_kind data) {
  Spec s;
  s.layout = GG_LAYOUT_SIZES;
  s.extents = {0, 1, 130, 64};
  s.n = 256;
  s.k = 512;
  s.data = data;
  s.target = chip;
  s.fp8 = chip == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  return s;
}

TEST(Sim, RandomDataWithinTolerance) {
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950}) ExpectPass(Stacked(chip, GG_DATA_RANDOM));
}

TEST(Sim, MatchesTheHostBitForBit) {
  // Exact data, same inputs: the gfx950 kernel and the host kernel give the same bits.
  gg_check_result host = gg_test::RunCase(Stacked(GG_TARGET_HOST, GG_DATA_EXACT));
  gg_check_result sim = gg_test::RunCase(Stacked(GG_TARGET_GFX950, GG_DATA_EXACT));
  EXPECT_TRUE(host.passed && sim.passed);
  EXPECT_EQ(sim.checksum, host.checksum);
}

TEST(Sim, TilesThatOverflowLdsAreRefused) {
  // The K loop alone needs (256 + 256) x 256 bytes.
  Spec s = Stacked(GG_TARGET_GFX942, GG_DATA_EXACT);
  s.tile = {256, 256, 256, 0, GG_LOOP_ROLLED, 0};
  gg_op_desc d = s.desc();
  gg_status status = gg_op_desc_validate(&d);
  ASSERT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(gg_status_message(status), "needs 131072 bytes of LDS; gfx942 has 65536"),
            nullptr)
      << gg_status_message(status);
  gg_status_free(status);
}

TEST(Sim, LargeTilesRunWithTheEpilogueInBands) {
  // gfx942 (one LDS buffer): 256x256 rowwise fits its 64 KiB because the output tile goes
  // through LDS in two bands of 128 rows; 256x128 and 128x256 take 48 KiB (49 blockwise,
  // whose scale products are staged beside the tiles: 1 KiB a K block; 256x256 blockwise
  // has 512 products, so it stages both scales, 2 KiB, has no room for them and is
  // refused). gfx950: two buffers, which the whole output tile fits; blockwise 256x128 and
  // 128x256 load by LDS DMA into three buffers of a stage each (49 KiB), so their output
  // tile (64 KiB) goes in two bands.
  // Exact data, bit for bit, on both chips, rowwise and blockwise, with waves_per_eu 1.
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950})
    for (gg_scaling scaling : {GG_SCALING_ROWWISE, GG_SCALING_BLOCKWISE})
      for (gg_tile_config tile : {gg_tile_config{256, 256, 128, 1, GG_LOOP_ROLLED, 0},
                                  gg_tile_config{256, 128, 128, 1, GG_LOOP_ROLLED, 0},
                                  gg_tile_config{128, 256, 128, 1, GG_LOOP_ROLLED, 0}}) {
        Spec s = Stacked(chip, GG_DATA_EXACT);
        s.extents = {0, 1, 300, 64};
        s.scaling = scaling;
        s.tile = tile;
        gg_op_desc d = s.desc();
        if (chip == GG_TARGET_GFX942) {
          ASSERT_EQ(gg_amd_lds_buffers(&d), 1);
          ASSERT_EQ(gg_epilogue_parts(&d), 2);
          if (tile.m == 256 && tile.n == 256 && scaling == GG_SCALING_BLOCKWISE) {
            EXPECT_EQ(gg_amd_lds_bytes(&d), 65536 + 2048);
            gg_status status = gg_op_desc_validate(&d);
            ASSERT_NE(status, GG_OK);
            EXPECT_NE(std::strstr(gg_status_message(status), "needs 67584 bytes of LDS; gfx942 has 65536"),
                      nullptr)
                << gg_status_message(status);
            gg_status_free(status);
            continue;
          }
          EXPECT_LE(gg_amd_lds_bytes(&d), 65536);
        } else {
          bool dma = scaling == GG_SCALING_BLOCKWISE && tile.m * tile.n == 256 * 128;
          EXPECT_EQ(gg_amd_lds_dma(&d), dma ? 1 : 0);
          EXPECT_EQ(gg_amd_lds_buffers(&d), dma ? 3 : 2);
          EXPECT_EQ(gg_epilogue_parts(&d), dma ? 2 : 1);
          if (dma) {
            EXPECT_EQ(gg_amd_lds_bytes(&d), 3 * gg_amd_lds_buffer_bytes(&d));
          }
        }
        ExpectPass(s);
      }
}

// Blockwise on AMD stages one product x_scale w_scale per tile row and 128-wide column
// block where the wave's columns share a w_scale block and the products are at most one per
// thread (1 KiB of LDS a K block), else both scales (2 KiB); the kernels of both kinds run
// bit-exact in LargeTilesRunWithTheEpilogueInBands and the layout suites.
TEST(Sim, BlockwiseStagesScaleProductsWhereTheyFit) {
  const struct {
    gg_layout layout;
    gg_scaling scaling;
    gg_tile_config tile;
    int products;
  } cases[] = {
      {GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, {128, 128, 128, 2, GG_LOOP_ROLLED, 0}, 1},
      {GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, {128, 256, 128, 1, GG_LOOP_ROLLED, 0}, 1},
      {GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, {256, 128, 128, 1, GG_LOOP_ROLLED, 0}, 1},
      {GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, {64, 64, 256, 2, GG_LOOP_ROLLED, 0}, 1},
      {GG_LAYOUT_SIZES, GG_SCALING_BLOCKWISE, {256, 256, 128, 1, GG_LOOP_ROLLED, 0}, 0},
      {GG_LAYOUT_N_OFFSETS, GG_SCALING_BLOCKWISE, {128, 128, 128, 2, GG_LOOP_ROLLED, 0}, 0},
      {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, {128, 128, 128, 2, GG_LOOP_ROLLED, 0}, 0},
  };
  for (const auto& c : cases) {
    gg_op_desc d = gg_test::ChipDesc(c.layout, GG_TARGET_GFX950, 4096, 7168, 8);
    d.scaling = c.scaling;
    d.tile = c.tile;
    SCOPED_TRACE(std::to_string(c.tile.m) + "x" + std::to_string(c.tile.n) + "x" + std::to_string(c.tile.k) +
                 " layout " + std::to_string(c.layout) + " scaling " + std::to_string(c.scaling));
    EXPECT_EQ(gg_amd_scale_products(&d), c.products);
    int64_t tiles = (int64_t)(c.tile.m + c.tile.n) * c.tile.k;
    int64_t scales = c.scaling == GG_SCALING_BLOCKWISE ? c.tile.k / 128 * (c.products ? 1024 : 2048) : 0;
    EXPECT_EQ(gg_amd_loop_lds_bytes(&d), gg_amd_lds_buffers(&d) * (tiles + scales));
  }
}

// Runs the stacked kernel in sim after removing its `drop`-th gpu.barrier (-1: none).
gg_status RunWithoutBarrier(int drop, gg_sim_stats* stats) {
  Spec s = Stacked(GG_TARGET_GFX950, GG_DATA_EXACT);
  gg_op_desc desc = s.desc();
  MlirContext ctx;
  MlirModule module;
  gg_status status = gg_compile_module(&desc, GG_STAGE_TARGET, &ctx, &module);
  if (status) return status;
  gg_op_list barriers = {};
  gg_collect_ops(mlirModuleGetOperation(module), "gpu.barrier", &barriers);
  if (drop >= 0 && (size_t)drop < barriers.count) mlirOperationDestroy(barriers.ops[drop]);
  gg_op_list_free(&barriers);
  gg_problem_spec ps = {desc, s.extents.data(), s.m, 1, s.data, 1, 0};
  gg_problem* problem = nullptr;
  status = gg_problem_create(&ps, &problem);
  if (!status)
    status = gg_sim_run(mlirModuleGetOperation(module), &problem->desc, problem->buffers,
                        problem->m, 1, stats);
  gg_problem_destroy(problem);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return status;
}

TEST(Sim, RaceCheckFiresWhenABarrierIsDropped) {
  gg_sim_stats stats;
  gg_status status = RunWithoutBarrier(-1, &stats);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  EXPECT_GT(stats.barriers, 0);
  EXPECT_GT(stats.mfmas, 0);
  // The first barrier separates the LDS stores of the A and B tiles from the MFMA reads.
  status = RunWithoutBarrier(0, &stats);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(std::strstr(gg_status_message(status), "race: lane"), nullptr)
      << gg_status_message(status);
  EXPECT_NE(std::strstr(gg_status_message(status), "with no barrier between them"), nullptr);
  gg_status_free(status);
}

}  // namespace
