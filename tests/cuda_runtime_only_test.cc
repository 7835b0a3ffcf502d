// The runtime-only API (//api:gg_runtime: no compiler) on the CPU stand-in for the CUDA
// driver: where the entry points' rule picks split-K (gg_sm90_split_k_for, and 256 columns
// for it in fast mode) or 192 columns at decode, and the loaded bundles hold only the
// kernel without them (one bundled before them, or with the tile named), the call runs
// the tile the rule starts from, unsplit, which
// computes the same result; a split the caller names is not overridden: its miss is
// GG_STATUS_NOT_FOUND.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gg/gg.h"
#include "tests/support/desc.h"
#include "tests/support/fake_cuda.h"

namespace {

std::string BundlePath() {
  const char* root = std::getenv("TEST_SRCDIR");
  return std::string(root ? root : ".") + "/gg/tests/cuda_runtime_only.ggb";
}

TEST(CudaRuntimeOnly, ABundleWithoutTheSplitKernelServesTheRulesChoice) {
  // The bundle's first problem: 129 rows over 3 groups, N 256, K 4096, where the rule
  // takes split-K 4 ((2 + 2) x 2 tiles in 8 clusters).
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 256, 4096, 3);
  gg_op_desc tiled = d;
  tiled.tile = gg_tile_config_default();
  ASSERT_EQ(gg_sm90_split_k_for(&tiled, 129), 4);
  {
    StackedCall c;
    MakeStackedCall(d, 5, &c, {BundlePath()});
    if (HasFatalFailure()) return;
    ASSERT_EQ(gg_context_bundle_kernel_count(c.context), 3u);
    int launches = fake.launches();
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launches(), launches + 1);
    EXPECT_EQ(fake.launch(0)->cluster[0], 1u) << "the bundled kernel, without split-K";
    // The caller's own split is what it asked for: not in the bundle, so not found.
    c.call.tile = gg_tile_config_default();
    c.call.tile.split_k = 2;
    status = gg_grouped_gemm(c.context, &c.call);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_NOT_FOUND);
    std::string message = Message(status);
    EXPECT_NE(message.find("--split-k 2"), std::string::npos) << message;
    EXPECT_EQ(fake.launches(), launches + 1);
    gg_cache_stats stats;
    gg_context_cache_stats(c.context, &stats);
    EXPECT_EQ(stats.compiles, 0u);
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

TEST(CudaRuntimeOnly, AMissingWideSplitKernelFallsBackToTheUnsplitTile) {
  // The bundle's second problem, fast rowwise at N 1536: the rule takes 128x256 split in
  // 4 (4 x 6 tiles, 96 CTAs, as many as 4 x 12 tiles of 128 columns split in 2); the
  // bundle holds 128x128 unsplit, the tile the rule starts from.
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 1536, 4096, 3);
  d.accum = GG_ACCUM_FAST;
  gg_tile_config rule = gg_tile_config_for_launch(&d, 129);
  ASSERT_EQ(rule.n, 256);
  ASSERT_EQ(rule.split_k, 4);
  gg_op_desc unsplit = d;
  unsplit.tile = gg_tile_config_unsplit(&d, 129);
  {
    StackedCall c;
    MakeStackedCall(d, 6, &c, {BundlePath()});
    if (HasFatalFailure()) return;
    c.call.accum = GG_ACCUM_FAST;
    int launches = fake.launches();
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launches(), launches + 1);
    EXPECT_EQ(fake.launch(0)->cluster[0], 1u);
    EXPECT_EQ(fake.launch(0)->shared, (unsigned)gg_sm90_dynamic_shared_bytes(&unsplit))
        << "the 128x128 kernel's shared memory";
    gg_cache_stats stats;
    gg_context_cache_stats(c.context, &stats);
    EXPECT_EQ(stats.compiles, 0u);
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

TEST(CudaRuntimeOnly, AMissing192ColumnKernelFallsBackToTheUnsplitTile) {
  // The bundle's third problem, promoted rowwise: 16 rows over 8 groups at N 2304, K 1024,
  // where the rule takes 192 columns (96 tiles in one round, against 144 of 128 columns in
  // two); the bundle holds 128x128, the tile the rule starts from.
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 2304, 1024, 8);
  gg_tile_config rule = gg_tile_config_for_launch(&d, 16);
  ASSERT_EQ(rule.n, 192);
  ASSERT_EQ(rule.split_k, 1);
  gg_op_desc unsplit = d;
  unsplit.tile = gg_tile_config_unsplit(&d, 16);
  ASSERT_EQ(unsplit.tile.n, 128);
  {
    StackedCall c;
    MakeStackedCall(d, 7, &c, {BundlePath()}, std::vector<int64_t>(8, 2));
    if (HasFatalFailure()) return;
    int launches = fake.launches();
    gg_status status = gg_grouped_gemm(c.context, &c.call);
    ASSERT_EQ(status, GG_OK) << Message(status);
    EXPECT_EQ(fake.launches(), launches + 1);
    EXPECT_EQ(fake.launch(0)->shared, (unsigned)gg_sm90_dynamic_shared_bytes(&unsplit))
        << "the 128x128 kernel's shared memory";
    // Named by the caller, 192 columns are what it asked for: not in the bundle.
    c.call.tile = rule;
    status = gg_grouped_gemm(c.context, &c.call);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_NOT_FOUND);
    std::string message = Message(status);
    EXPECT_NE(message.find("128x192x128"), std::string::npos) << message;
    EXPECT_EQ(fake.launches(), launches + 1);
    gg_cache_stats stats;
    gg_context_cache_stats(c.context, &stats);
    EXPECT_EQ(stats.compiles, 0u);
  }
  EXPECT_EQ(fake.live_allocations(), 0);
}

}  // namespace
