// Tuning tables in the runtime (api/tuning.c): a context that loads one launches the
// tuned tile for the keys it holds, and the built-in rule for the rest; entries the
// descriptor's rules refuse, or in another accumulation, are ignored; a missing table is
// an error, damaged lines are skipped. The launches are checked against the reference.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gg/gg.h"
#include "runtime/tune.h"
#include "tests/support/api_case.h"
#include "tests/support/desc.h"
#include "tests/support/log.h"

namespace {

using gg_test::ApiCase;
using gg_test::Spec;
using Log = gg_test::LogCapture;

gg_context* Context(Log* log) {
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  options.log = Log::Capture;
  options.log_user = log;
  options.log_level = GG_LOG_DEBUG;
  gg_context* context = nullptr;
  EXPECT_EQ(gg_context_create(&options, &context), GG_OK);
  return context;
}

Spec Stacked(std::vector<int64_t> rows) {
  Spec s;
  s.layout = GG_LAYOUT_SIZES;
  s.extents = rows;
  s.n = 192;
  s.k = 384;
  s.target = GG_TARGET_HOST;
  s.data = GG_DATA_EXACT;
  return s;
}

std::string Table(const char* name, const std::vector<gg_tune_entry>& entries) {
  const char* dir = getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  unlink(path.c_str());
  for (const gg_tune_entry& e : entries) EXPECT_EQ(gg_tune_db_record(path.c_str(), &e), GG_OK);
  return path;
}

gg_tune_entry Entry(const Spec& spec, int64_t m, int tile_m, int tile_n, gg_accum accum = GG_ACCUM_PROMOTED) {
  gg_op_desc d = spec.desc();
  gg_tune_entry e = {};
  e.key = gg_tune_key_of(&d, m, "");
  e.best.tile = gg_tile_config_default();
  e.best.tile.m = tile_m;
  e.best.tile.n = tile_n;
  e.best.tile.waves_per_eu = 0;
  e.best.accum = accum;
  e.time_us = 1.0;
  return e;
}

void Launch(gg_context* context, const Spec& spec) {
  ApiCase c(spec);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c.Call(context), GG_OK);
  c.ExpectMatchesReference();
}

TEST(TuningTable, TheTunedTileIsLaunched) {
  Spec spec = Stacked({40, 0, 90});  // 130 rows over 3 groups: bucket 64
  std::string table = Table("tuned.table", {Entry(spec, 130, 64, 64)});
  Log log;
  gg_context* context = Context(&log);
  Launch(context, spec);
  EXPECT_TRUE(log.Has("_t128x128x128_")) << "without a table: the default tile";
  log.lines.clear();
  ASSERT_EQ(gg_context_load_tuning_table(context, table.c_str()), GG_OK);
  Launch(context, spec);
  EXPECT_TRUE(log.Has("tuning: target=host")) << "the entry was consulted";
  EXPECT_TRUE(log.Has("_t64x64x128_")) << "the tuned tile was launched";
  // Another bucket (2 rows a group) has no entry: the built-in rule.
  log.lines.clear();
  Launch(context, Stacked({2, 2, 2}));
  EXPECT_TRUE(log.Has("_t128x128x128_"));
  EXPECT_FALSE(log.Has("_t64x64x128_"));
  gg_context_destroy(context);
}

TEST(TuningTable, RefusedAndForeignEntriesAreIgnored) {
  Spec spec = Stacked({40, 0, 90});
  // The host accumulates in FP32 (promoted): a fast entry is not the caller's.
  gg_tune_entry fast = Entry(spec, 130, 64, 64, GG_ACCUM_FAST);
  fast.key.accum = GG_ACCUM_PROMOTED;
  std::string table = Table("foreign.table", {fast});
  Log log;
  gg_context* context = Context(&log);
  ASSERT_EQ(gg_context_load_tuning_table(context, table.c_str()), GG_OK);
  Launch(context, spec);
  EXPECT_TRUE(log.Has("is not the caller's")) << "logged";
  EXPECT_TRUE(log.Has("_t128x128x128_"));
  // A tile the descriptor rules refuse (split-K is sm_90a's).
  gg_tune_entry split = Entry(spec, 130, 128, 128);
  split.best.tile.split_k = 2;
  table = Table("refused.table", {split});
  ASSERT_EQ(gg_context_load_tuning_table(context, table.c_str()), GG_OK);
  log.lines.clear();
  Launch(context, spec);
  EXPECT_TRUE(log.Has("entry refused")) << "logged";
  EXPECT_TRUE(log.Has("_t128x128x128_"));
  gg_context_destroy(context);
}

TEST(TuningTable, MissingTablesFailAndTheEnvironmentLoads) {
  Log log;
  gg_context* context = Context(&log);
  gg_status status = gg_context_load_tuning_table(context, "/nonexistent/gg.table");
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_IO);
  gg_status_free(status);
  gg_context_destroy(context);

  Spec spec = Stacked({40, 0, 90});
  std::string table = Table("env.table", {Entry(spec, 130, 64, 64)});
  setenv("GG_TUNING_TABLES", ("/nonexistent/a.table:" + table).c_str(), 1);
  gg_context* refused = nullptr;
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  status = gg_context_create(&options, &refused);
  EXPECT_NE(status, GG_OK) << "a table the environment names must exist";
  EXPECT_EQ(refused, nullptr);
  gg_status_free(status);
  setenv("GG_TUNING_TABLES", table.c_str(), 1);
  Log env_log;
  context = Context(&env_log);
  unsetenv("GG_TUNING_TABLES");
  Launch(context, spec);
  EXPECT_TRUE(env_log.Has("_t64x64x128_"));
  gg_context_destroy(context);
}

}  // namespace
