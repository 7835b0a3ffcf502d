// Autotuning on a miss (api/autotune.c) on the host target: nothing is benchmarked
// without the switch; with it, a launch with no tuned entry sweeps its candidates once
// on its own tensors, rejects a wrong candidate before timing it, launches the fastest
// (a fake timer decides which), and keeps it in the context and in the cache directory's
// tuning database, which the next context reads instead of sweeping. The launches are
// checked against the C reference.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gg/gg.h"
#include "runtime/tune.h"
#include "tests/support/api_case.h"
#include "tests/support/log.h"

namespace {

using gg_test::ApiCase;
using gg_test::Spec;
using Log = gg_test::LogCapture;

std::string CacheDir(const char* name) {
  const char* dir = getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  mkdir(path.c_str(), 0700);
  unlink((path + "/tuning.db").c_str());
  return path;
}

gg_context* Context(Log* log, const std::string& cache_dir, int autotune) {
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = cache_dir.c_str();
  options.log = Log::Capture;
  options.log_user = log;
  options.log_level = GG_LOG_DEBUG;
  options.autotune = autotune;
  gg_context* context = nullptr;
  EXPECT_EQ(gg_context_create(&options, &context), GG_OK);
  return context;
}

// 130 rows over 3 groups, N 192, K 384: the candidates that divide N and K are
// 64/128/256 x 64 x 128.
Spec Stacked(uint64_t seed) {
  Spec s;
  s.layout = GG_LAYOUT_SIZES;
  s.extents = {40, 0, 90};
  s.n = 192;
  s.k = 384;
  s.target = GG_TARGET_HOST;
  s.data = GG_DATA_EXACT;
  s.seed = seed;
  return s;
}

void Launch(gg_context* context, const Spec& spec) {
  ApiCase c(spec);
  ASSERT_TRUE(c.ok());
  gg_status status = c.Call(context);
  ASSERT_EQ(status, GG_OK) << gg_test::TakeMessage(status);
  c.ExpectMatchesReference();
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(Autotune, NothingIsBenchmarkedWithoutTheSwitch) {
  unsetenv("GG_AUTOTUNE");
  std::string dir = CacheDir("off");
  Log log;
  gg_context* context = Context(&log, dir, 0);
  Launch(context, Stacked(1));
  EXPECT_EQ(log.Count("autotune"), 0);
  EXPECT_FALSE(Exists(dir + "/tuning.db"));
  gg_context_destroy(context);
}

TEST(Autotune, TheFastestCheckedCandidateWinsAndIsKept) {
  // 128x64 is the fastest but wrong: rejected before it is timed; 256x64 wins.
  setenv("GG_TUNE_FAKE_US", "128x64x128/w0/s1/promoted=1,256x64x128/w0/s1/promoted=2,"
                            "64x64x128/w0/s1/promoted=3", 1);
  setenv("GG_TUNE_BREAK", "128x64x128/w0/s1/promoted", 1);
  std::string dir = CacheDir("on");
  Log log;
  gg_context* context = Context(&log, dir, 1);
  Launch(context, Stacked(2));
  EXPECT_EQ(log.Count("candidates got"), 1) << "swept";
  EXPECT_EQ(log.Count("128x64x128/w0/s1/promoted REJECTED"), 1);
  EXPECT_EQ(log.Count("128x64x128/w0/s1/promoted 1.00 us"), 0) << "never timed";
  EXPECT_EQ(log.Count("2 candidates timed, 1 rejected"), 1);
  EXPECT_EQ(log.Launched("_t256x64x128_"), 1) << "the winner launched";
  // Kept: the next launch of the key (fresh inputs) sweeps nothing.
  log.lines.clear();
  Launch(context, Stacked(3));
  EXPECT_EQ(log.Count("candidates got"), 0);
  EXPECT_EQ(log.Launched("_t256x64x128_"), 1);
  gg_context_destroy(context);
  // ... and in the database next to the kernel cache.
  gg_tune_db db;
  ASSERT_EQ(gg_tune_db_load((dir + "/tuning.db").c_str(), &db), GG_OK);
  ASSERT_EQ(db.count, 1u);
  EXPECT_EQ(db.entries[0].best.tile.m, 256);
  EXPECT_EQ(db.entries[0].best.tile.n, 64);
  EXPECT_DOUBLE_EQ(db.entries[0].time_us, 2.0);
  gg_tune_db_free(&db);
  // A new context on that cache directory (switched on by the environment) reads it.
  unsetenv("GG_TUNE_FAKE_US");
  unsetenv("GG_TUNE_BREAK");
  setenv("GG_AUTOTUNE", "1", 1);
  log.lines.clear();
  context = Context(&log, dir, 0);
  Launch(context, Stacked(4));
  unsetenv("GG_AUTOTUNE");
  EXPECT_EQ(log.Count("candidates got"), 0);
  EXPECT_EQ(log.Count("from " + dir + "/tuning.db"), 1);
  EXPECT_EQ(log.Launched("_t256x64x128_"), 1);
  gg_context_destroy(context);
}

// A tile the caller names, or a table's entry, is never tuned over.
TEST(Autotune, NamedTilesAndTableEntriesAreNotTuned) {
  std::string dir = CacheDir("named");
  Log log;
  gg_context* context = Context(&log, dir, 1);
  Spec spec = Stacked(5);
  spec.tile = {64, 64, 128, 0, GG_LOOP_ROLLED, 0};
  ApiCase c(spec);
  ASSERT_TRUE(c.ok());
  gg_kernel* kernel = nullptr;
  gg_op_desc d = spec.desc();
  ASSERT_EQ(gg_kernel_get(context, &d, &kernel), GG_OK);
  const DLTensor* t[GG_OPERAND_COUNT];
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) t[i] = c.dl().pointers[i];
  ASSERT_EQ(gg_kernel_launch(context, kernel, t, 0), GG_OK);
  c.ExpectMatchesReference();
  EXPECT_EQ(log.Count("autotune"), 0);
  // A table's entry for the key.
  gg_tune_entry e = {};
  gg_op_desc plain = Stacked(5).desc();
  e.key = gg_tune_key_of(&plain, 130, "");
  e.best.tile = {64, 64, 128, 0, GG_LOOP_ROLLED, 1};
  e.best.accum = GG_ACCUM_PROMOTED;
  e.time_us = 1;
  std::string table = dir + "/given.table";
  unlink(table.c_str());
  ASSERT_EQ(gg_tune_db_record(table.c_str(), &e), GG_OK);
  ASSERT_EQ(gg_context_load_tuning_table(context, table.c_str()), GG_OK);
  Launch(context, Stacked(6));
  EXPECT_EQ(log.Count("candidates got"), 0);
  gg_context_destroy(context);
}

}  // namespace
