// The API linked without the compiler (//api:gg_runtime, what libgg_runtime.so holds):
// kernels come from a bundle `gg bundle` built (tests:runtime_only_bundle), launch and match
// the reference; a kernel no bundle holds is GG_STATUS_NOT_FOUND naming the `gg bundle`
// flags that build it; what only a compiler makes is GG_STATUS_UNIMPLEMENTED.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "gg/gg.h"
#include "tests/reference/problem.h"
#include "tests/support/verify.h"
#include "tools/flags.h"

namespace {

std::string Take(gg_status status) {
  std::string text = status ? gg_status_message(status) : "ok";
  gg_status_free(status);
  return text;
}

std::string BundlePath() {
  const char* root = std::getenv("TEST_SRCDIR");
  return std::string(root ? root : ".") + "/gg/tests/runtime_only.ggb";
}

gg_context* Context() {
  std::string path = BundlePath();
  const char* bundles[1] = {path.c_str()};
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  options.bundles = bundles;
  options.bundle_count = 1;
  gg_context* context = nullptr;
  gg_status status = gg_context_create(&options, &context);
  EXPECT_EQ(status, GG_OK) << Take(status);
  return context;
}

gg_flags Flags(const char* line) {
  gg_flags f;
  int blank;
  EXPECT_EQ(gg_flags_parse_line(line, "test", "host", &f, &blank), 0) << line;
  return f;
}

TEST(RuntimeOnly, LaunchesEveryBundledKernelAgainstTheReference) {
  gg_context* context = Context();
  ASSERT_TRUE(context);
  size_t count = gg_context_bundle_kernel_count(context);
  ASSERT_EQ(count, 3u);
  for (size_t i = 0; i < count; ++i) {
    gg_bundle_kernel_info info;
    ASSERT_EQ(gg_context_bundle_kernel(context, i, &info), GG_OK);
    SCOPED_TRACE(info.flags);
    gg_flags f = Flags(info.flags);
    for (uint64_t seed : {1u, 2u}) {
      f.seed = seed;
      gg_problem_spec spec = gg_flags_problem(&f);
      gg_problem* p;
      ASSERT_EQ(gg_problem_create(&spec, &p), GG_OK);
      gg_kernel* kernel = nullptr;
      ASSERT_EQ(Take(gg_kernel_get(context, &p->desc, &kernel)), "ok");
      gg_verify_api api = {context, kernel, 0, NULL, 0};
      gg_check_result r = {};
      ASSERT_EQ(Take(gg_verify_problem(p, gg_verify_api_launch, &api, 2, 0, &r)), "ok");
      EXPECT_TRUE(r.passed) << "mismatches " << r.compare.mismatches;
      gg_check_result_free(&r);
      gg_problem_destroy(p);
    }
    gg_flags_free(&f);
  }
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.bundle_hits, 3u);
  EXPECT_EQ(stats.compiles, 0u);
  gg_context_destroy(context);
}

TEST(RuntimeOnly, AMissIsNotFoundAndSaysHowToBundleIt) {
  gg_context* context = Context();
  ASSERT_TRUE(context);
  gg_flags f = Flags("--op stacked --groups 4,4 --N 384 --K 256 --scaling blockwise");
  gg_kernel* kernel = nullptr;
  gg_status status = gg_kernel_get(context, &f.desc, &kernel);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_NOT_FOUND);
  std::string message = Take(status);
  size_t at = message.find("gg bundle -o FILE ");
  ASSERT_NE(at, std::string::npos) << message;
  // The suggested flags describe the very descriptor that was missing.
  gg_flags suggested = Flags(message.c_str() + at + strlen("gg bundle -o FILE "));
  char want[1024], got[1024];
  gg_op_desc_format(&f.desc, want, sizeof want);
  gg_op_desc_format(&suggested.desc, got, sizeof got);
  EXPECT_STREQ(got, want);
  EXPECT_EQ(kernel, nullptr);
  gg_flags_free(&suggested);
  gg_flags_free(&f);
  gg_context_destroy(context);
}

TEST(RuntimeOnly, WhatNeedsTheCompilerIsUnimplemented) {
  gg_flags f = Flags("--op stacked --groups 4,4 --N 256 --K 256");
  gg_bytes bytes = {nullptr, 0};
  gg_status status = gg_emit(&f.desc, GG_ARTIFACT_MLIR_OP, &bytes);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNIMPLEMENTED);
  EXPECT_NE(Take(status).find("link libgg"), std::string::npos);
  status = gg_emit_after_pass(&f.desc, "gg-tile-level", &bytes);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNIMPLEMENTED);
  gg_status_free(status);
  status = gg_bundle_write("/nonexistent/x.ggb", &f.desc, nullptr, 1, 0);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNIMPLEMENTED);
  gg_status_free(status);
  EXPECT_EQ(bytes.data, nullptr);
  gg_flags_free(&f);
}

}  // namespace
