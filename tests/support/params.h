// Parameter sets the suites sweep: every layout, both scalings, both AMD chips.
#ifndef GG_TESTS_SUPPORT_PARAMS_H_
#define GG_TESTS_SUPPORT_PARAMS_H_

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "gg/op.h"

namespace gg_test {

inline auto EveryLayout() {
  return ::testing::Values(GG_LAYOUT_SIZES, GG_LAYOUT_OFFSETS, GG_LAYOUT_PADDED,
                           GG_LAYOUT_BATCHED, GG_LAYOUT_N_OFFSETS, GG_LAYOUT_K_OFFSETS);
}

inline auto EveryScaling() { return ::testing::Values(GG_SCALING_ROWWISE, GG_SCALING_BLOCKWISE); }

using LayoutScalingChip = std::tuple<gg_layout, gg_scaling, gg_target>;

inline auto EveryLayoutScalingChip() {
  return ::testing::Combine(EveryLayout(), EveryScaling(),
                            ::testing::Values(GG_TARGET_GFX942, GG_TARGET_GFX950));
}

inline std::string LayoutScalingChipName(const ::testing::TestParamInfo<LayoutScalingChip>& info) {
  auto [layout, scaling, chip] = info.param;
  return std::string(gg_layout_name(layout)) + "_" + gg_scaling_name(scaling) + "_" +
         gg_target_name(chip);
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_PARAMS_H_
