// The contexts the API suites make: memory caches only (cache_test covers the disk), with
// the given bundles loaded, and the HSA GPU index (-1: none).
#ifndef GG_TESTS_SUPPORT_CONTEXT_H_
#define GG_TESTS_SUPPORT_CONTEXT_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gg/gg.h"

namespace gg_test {

inline gg_context* MemoryContext(const std::vector<std::string>& bundles = {}, int gpu = 0) {
  std::vector<const char*> paths;
  for (const std::string& b : bundles) paths.push_back(b.c_str());
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  options.gpu = gpu;
  options.bundles = paths.data();
  options.bundle_count = paths.size();
  gg_context* context = nullptr;
  gg_status status = gg_context_create(&options, &context);
  EXPECT_EQ(status, GG_OK) << (status ? gg_status_message(status) : "");
  gg_status_free(status);
  return context;
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_CONTEXT_H_
