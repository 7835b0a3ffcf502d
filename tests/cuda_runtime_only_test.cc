// The runtime-only API (//api:gg_runtime: no compiler) on the CPU stand-in for the CUDA
// driver: where the entry points' rule picks split-K (gg_sm90_split_k_for) and the loaded
// bundles hold only the kernel without it (one bundled before split-K, or with the tile
// named), the call runs that kernel, which computes the same result; a split the caller
// names is not overridden: its miss is GG_STATUS_NOT_FOUND.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "gg/gg.h"
#include "tests/support/desc.h"
#include "tests/support/fake_cuda.h"

namespace {

std::string BundlePath() {
  const char* root = std::getenv("TEST_SRCDIR");
  return std::string(root ? root : ".") + "/gg/tests/cuda_runtime_only.ggb";
}

TEST(CudaRuntimeOnly, ABundleWithoutTheSplitKernelServesTheRulesChoice) {
  // The bundle's problem: 129 rows over 3 groups, N 256, K 4096, where the rule takes
  // split-K 2 ((2 + 2) x 2 tiles; 32 K tiles: two shares of 16).
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 256, 4096, 3);
  gg_op_desc tiled = d;
  tiled.tile = gg_tile_config_default();
  ASSERT_EQ(gg_sm90_split_k_for(&tiled, 129), 2);
  {
    StackedCall c;
    MakeStackedCall(d, 5, &c, {BundlePath()});
    if (HasFatalFailure()) return;
    ASSERT_EQ(gg_context_bundle_kernel_count(c.context), 1u);
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

}  // namespace
