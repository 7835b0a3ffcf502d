// Property tests: random layouts, scalings, shapes, group splits, tiles and loop forms,
// each compared with the reference. CI runs a fixed list of seeds; any seed reruns with
// GG_PROPERTY_SEEDS=<seed>[,<seed>...] (the failure message also gives the gg run line).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/reference/problem.h"
#include "tests/support/test_util.h"

namespace {

using gg_test::ExpectPass;
using gg_test::Spec;

int64_t Pick(gg_rng* rng, int64_t lo, int64_t hi) { return gg_rng_range(rng, lo, hi); }

// Splits `total` into `groups` random extents (some empty).
std::vector<int64_t> Split(gg_rng* rng, int64_t total, int64_t groups) {
  std::vector<int64_t> extents(groups, 0);
  for (int64_t left = total; left > 0;) {
    int64_t g = Pick(rng, 0, groups - 1);
    int64_t take = Pick(rng, 1, left < 97 ? left : 97);
    extents[g] += take;
    left -= take;
  }
  return extents;
}

Spec RandomSpec(uint64_t seed) {
  gg_rng rng = {seed * 7919 + 17};
  Spec s;
  s.seed = seed;
  s.layout = static_cast<gg_layout>(Pick(&rng, 0, GG_LAYOUT_COUNT - 1));
  s.scaling = Pick(&rng, 0, 3) == 0 ? GG_SCALING_BLOCKWISE : GG_SCALING_ROWWISE;
  s.fp8 = Pick(&rng, 0, 1) ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  s.data = Pick(&rng, 0, 1) ? GG_DATA_EXACT : GG_DATA_RANDOM;
  const bool bw = s.scaling == GG_SCALING_BLOCKWISE;
  static const int32_t mn[] = {64, 128, 256}, kk[] = {128, 256};
  s.tile = {mn[Pick(&rng, 0, 2)], mn[Pick(&rng, 0, 2)], kk[Pick(&rng, 0, 1)], 0, GG_LOOP_ROLLED, 0};
  if (s.layout != GG_LAYOUT_K_OFFSETS && Pick(&rng, 0, 2) == 0) s.tile.loop = GG_LOOP_UNROLLED;
  const int64_t groups = Pick(&rng, 1, 5);
  s.n = bw ? 128 * Pick(&rng, 1, 3) : 8 * Pick(&rng, 1, 48);
  s.k = bw ? 128 * Pick(&rng, 1, 5) : 16 * Pick(&rng, 1, 40);
  switch (s.layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS:
      s.extents = Split(&rng, Pick(&rng, 0, 400), groups);
      break;
    case GG_LAYOUT_PADDED:
      s.m = Pick(&rng, 1, 300);
      for (int64_t g = 0; g < groups; ++g) s.extents.push_back(Pick(&rng, 0, s.m));
      s.zeroing = static_cast<int>(Pick(&rng, 0, 1));
      break;
    case GG_LAYOUT_BATCHED:
      s.m = Pick(&rng, 1, 260);
      s.extents.assign(groups, s.m);
      break;
    case GG_LAYOUT_N_OFFSETS:
      s.m = Pick(&rng, 1, 200);
      s.extents = Split(&rng, s.n - (bw ? 0 : Pick(&rng, 0, 7)), groups);
      s.alternate_constant = static_cast<int>(Pick(&rng, 0, 1));
      break;
    case GG_LAYOUT_K_OFFSETS:
      s.m = Pick(&rng, 1, 200);
      s.extents = Split(&rng, s.k - Pick(&rng, 0, 15), groups);
      s.alternate_constant = static_cast<int>(Pick(&rng, 0, 1));
      break;
    default:
      break;
  }
  return s;
}

std::vector<uint64_t> Seeds() {
  std::vector<uint64_t> seeds;
  if (const char* list = std::getenv("GG_PROPERTY_SEEDS")) {
    for (const char* p = list; *p;) {
      char* end;
      seeds.push_back(std::strtoull(p, &end, 10));
      p = *end ? end + 1 : end;
    }
    return seeds;
  }
  for (uint64_t seed = 1; seed <= 96; ++seed) seeds.push_back(seed);
  return seeds;
}

class Property : public ::testing::TestWithParam<uint64_t> {};

TEST_P(Property, MatchesReferenceOnHost) {
  Spec s = RandomSpec(GetParam());
  SCOPED_TRACE("GG_PROPERTY_SEEDS=" + std::to_string(GetParam()) + "  " + s.command());
  ExpectPass(s);
}

// The same specs through the AMD kernels in sim, alternating chips. A tile whose LDS the
// chip lacks falls back to the default tile.
TEST_P(Property, MatchesReferenceInSim) {
  Spec s = RandomSpec(GetParam());
  s.target = GetParam() % 2 ? GG_TARGET_GFX942 : GG_TARGET_GFX950;
  s.fp8 = s.target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  gg_op_desc d = s.desc();
  if (gg_amd_lds_bytes(&d) > gg_lds_capacity(s.target)) s.tile = {0, 0, 0, 0, s.tile.loop, 0};
  SCOPED_TRACE("GG_PROPERTY_SEEDS=" + std::to_string(GetParam()) + "  " + s.command());
  ExpectPass(s);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Property, ::testing::ValuesIn(Seeds()));

}  // namespace
