// GoogleTest helpers: build problem specs tersely and check them on the host.
#ifndef GG_TESTS_SUPPORT_TEST_UTIL_H_
#define GG_TESTS_SUPPORT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "gg/op.h"
#include "tests/support/check.h"

namespace gg_test {

struct Spec {
  gg_layout layout = GG_LAYOUT_SIZES;
  gg_scaling scaling = GG_SCALING_ROWWISE;
  gg_b_layout b_layout = GG_B_PLAIN;
  gg_fp8 fp8 = GG_FP8_E4M3FN;
  std::vector<int64_t> extents;
  int64_t m = GG_DYNAMIC;
  int64_t n = 256, k = 256;
  gg_tile_config tile = {0, 0, 0, 0, GG_LOOP_ROLLED, 0};
  gg_data_kind data = GG_DATA_EXACT;
  uint64_t seed = 1;
  int zeroing = 1;
  int alternate_constant = 0;
  // host runs the JIT kernel; gfx942 and gfx950 run that chip's kernel IR in sim.
  gg_target target = GG_TARGET_HOST;

  gg_op_desc desc() const {
    gg_op_desc d = {};
    d.layout = layout;
    d.scaling = scaling;
    d.b_layout = b_layout;
    d.fp8 = fp8;
    d.n = n;
    d.k = k;
    d.g = static_cast<int64_t>(extents.size());
    d.tile = tile;
    d.target = target;
    return d;
  }

  // The `gg run` command that reproduces this case.
  std::string command() const {
    static const char* ops[] = {"stacked", "mm --ranks 2d3d", "dynamic",
                                "mm --ranks 3d3d", "mm --ranks 3d2d", "mm --ranks 2d2d"};
    std::string groups;
    for (size_t i = 0; i < extents.size(); ++i)
      groups += (i ? "," : "") + std::to_string(extents[i]);
    char text[512];
    std::snprintf(text, sizeof text,
                  "gg run --op %s --groups '%s'%s --N %lld --K %lld --scaling %s --fp8 %s "
                  "--data %s --seed %llu%s%s",
                  ops[layout], groups.c_str(),
                  m == GG_DYNAMIC ? "" : (" --M " + std::to_string(m)).c_str(), (long long)n,
                  (long long)k, gg_scaling_name(scaling), gg_fp8_name(fp8),
                  data == GG_DATA_EXACT ? "exact" : "random", (unsigned long long)seed,
                  zeroing ? "" : " --no-zeroing", alternate_constant ? " --alternate-constant" : "");
    std::string s = text;
    if (tile.m)
      s += " --tile " + std::to_string(tile.m) + "x" + std::to_string(tile.n) + "x" +
           std::to_string(tile.k);
    if (tile.loop == GG_LOOP_UNROLLED) s += " --loop unrolled";
    if (b_layout == GG_B_PRESHUFFLED) s += " --b preshuffled";
    if (target != GG_TARGET_HOST) s += std::string(" --target sim --chip ") + gg_target_name(target);
    return s;
  }
};

// Runs the spec on the host. The failure message names the command that reproduces it.
inline gg_check_result RunCase(const Spec& spec, bool keep_output = false) {
  gg_problem_spec ps = {spec.desc(), spec.extents.data(), spec.m, spec.zeroing, spec.data,
                        spec.seed, spec.alternate_constant};
  gg_check_result result;
  gg_check_backend backend = spec.target == GG_TARGET_HOST ? GG_CHECK_HOST : GG_CHECK_SIM;
  gg_status status = gg_check_run(&ps, backend, keep_output ? 1 : 0, &result);
  if (status) {
    ADD_FAILURE() << "rejected: " << gg_status_message(status) << "\n  reproduce: " << spec.command();
    gg_status_free(status);
    result.passed = 0;
  }
  return result;
}

// Asserts the case passes: bit-identical on exact data, within tolerance on random data,
// nothing unwritten and nothing clobbered.
inline void ExpectPass(const Spec& spec) {
  gg_check_result r = RunCase(spec);
  EXPECT_TRUE(r.passed) << "mismatches=" << r.compare.mismatches
                        << " unwritten=" << r.compare.unwritten
                        << " clobbered=" << r.compare.clobbered
                        << " first_bad=" << r.compare.first_bad
                        << " max_ulp=" << r.compare.max_ulp << "\n  reproduce: " << spec.command();
  if (spec.data == GG_DATA_EXACT) {
    EXPECT_EQ(r.compare.max_abs_err, 0.0) << spec.command();
  }
  gg_check_result_free(&r);
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_TEST_UTIL_H_
