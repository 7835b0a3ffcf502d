// `gg tune` end to end on the host target, with the sweep's test hooks standing in for
// the clock (GG_TUNE_FAKE_US) and for a wrong kernel (GG_TUNE_BREAK): the fastest
// candidate that passes its check is recorded, and a wrong one is rejected before it is
// timed, however fast.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <string>
#include <thread>
#include <vector>

#include "compiler/amd_estimate.h"
#include "gg/gg.h"
#include "runtime/tune.h"
#include "tests/support/check.h"
#include "tools/cli.h"

namespace {

std::string Dir() {
  const char* dir = getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

int Tune(const std::string& table, std::vector<std::string> extra) {
  // N 192 and K 384 leave three candidates: tile_n 64 (the one that divides 192) and
  // tile_k 128, at tile_m 64, 128 and 256.
  std::vector<std::string> args = {"gg", "tune", "--target", "host", "-o", table, "--op", "stacked",
                                   "--groups", "40,0,90", "--N", "192", "--K", "384", "--repeat",
                                   "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  return gg_cli_main(static_cast<int>(argv.size()), argv.data());
}

const gg_tune_entry* Only(gg_tune_db* db, const std::string& table) {
  EXPECT_EQ(gg_tune_db_load(table.c_str(), db), GG_OK);
  EXPECT_EQ(db->count, 1u);
  EXPECT_EQ(db->damaged, 0u);
  return db->count == 1 ? &db->entries[0] : nullptr;
}

class TuneSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("GG_CACHE_DIR", (Dir() + "/tune_sweep_cache").c_str(), 1);
    setenv("GG_TUNE_FAKE_US",
           "64x64x128/w0/s1/promoted=3,128x64x128/w0/s1/promoted=5,256x64x128/w0/s1/promoted=9", 1);
    unsetenv("GG_TUNE_BREAK");
  }
  void TearDown() override {
    unsetenv("GG_TUNE_FAKE_US");
    unsetenv("GG_TUNE_BREAK");
  }
};

TEST_F(TuneSweep, TheFastestWins) {
  std::string table = Dir() + "/fastest.table";
  unlink(table.c_str());
  ASSERT_EQ(Tune(table, {}), 0);
  gg_tune_db db;
  const gg_tune_entry* e = Only(&db, table);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->best.tile.m, 64);
  EXPECT_EQ(e->best.tile.n, 64);
  EXPECT_EQ(e->best.tile.k, 128);
  EXPECT_DOUBLE_EQ(e->time_us, 3.0);
  EXPECT_EQ(e->key.target, GG_TARGET_HOST);
  EXPECT_EQ(e->key.m_bucket, 64);  // 130 rows over 3 groups
  EXPECT_EQ(e->key.n, 192);
  gg_tune_db_free(&db);
}

TEST_F(TuneSweep, AWrongCandidateIsRejectedBeforeTiming) {
  std::string table = Dir() + "/broken.table";
  unlink(table.c_str());
  setenv("GG_TUNE_BREAK", "64x64x128/w0/s1/promoted", 1);  // the fastest, made wrong
  ASSERT_EQ(Tune(table, {}), 0);
  gg_tune_db db;
  const gg_tune_entry* e = Only(&db, table);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->best.tile.m, 128) << "the next fastest that passes";
  EXPECT_DOUBLE_EQ(e->time_us, 5.0);
  gg_tune_db_free(&db);
}

TEST_F(TuneSweep, RetuningReplacesTheEntry) {
  std::string table = Dir() + "/retune.table";
  unlink(table.c_str());
  ASSERT_EQ(Tune(table, {}), 0);
  setenv("GG_TUNE_FAKE_US", "256x64x128/w0/s1/promoted=1", 1);
  ASSERT_EQ(Tune(table, {}), 0);
  gg_tune_db db;
  const gg_tune_entry* e = Only(&db, table);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->best.tile.m, 256);
  gg_tune_db_free(&db);
}

// --candidates prints each list line once per candidate, with its tile (for gg bundle and
// the H200 sweep), and sweeps nothing.
TEST_F(TuneSweep, CandidatesArePrintedForBundling) {
  std::string list = Dir() + "/candidates.list", printed = Dir() + "/candidates.out";
  {
    std::ofstream f(list);
    f << "# a comment\n--op mm --ranks 2d3d --groups 1*8 --N 4096 --K 7168 --accum fast\n";
  }
  fflush(stdout);
  int saved = dup(1), out = open(printed.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(out, 0);
  dup2(out, 1);
  close(out);
  std::vector<std::string> args = {"gg", "tune", "--target", "sm_90a", "--candidates", "--list", list};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  int code = gg_cli_main(static_cast<int>(argv.size()), argv.data());
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  EXPECT_EQ(code, 0);
  std::ifstream in(printed);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 15u) << "128 x {64, 128, 256} x 128, split 1 to 4; 256 x the same, unsplit";
  const std::string base = "--op mm --ranks 2d3d --groups 1*8 --N 4096 --K 7168 --accum fast";
  EXPECT_EQ(lines[0], base + " --tile 128x64x128");
  EXPECT_EQ(lines[5], base + " --tile 128x128x128 --split-k 2");
  EXPECT_EQ(lines[11], base + " --tile 128x256x128 --split-k 4");
  EXPECT_EQ(lines[12], base + " --tile 256x64x128");
  EXPECT_EQ(lines[14], base + " --tile 256x256x128");
}

TEST_F(TuneSweep, RefusesWhatItCannotTune) {
  std::string table = Dir() + "/refused.table";
  std::vector<std::string> none;
  const char* gfx[] = {"gg", "tune", "--target", "gfx942", "-o", "x", "--op", "stacked",
                       "--groups", "4", "--N", "256", "--K", "256"};
  std::vector<char*> argv;
  for (const char* a : gfx) argv.push_back(const_cast<char*>(a));
  EXPECT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 2) << "AMD is modelled (--model), not timed";
  argv[3] = const_cast<char*>("sm_90a");
  EXPECT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 2) << "timed on the GPU, not here";
  argv.push_back(const_cast<char*>("--model"));
  EXPECT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 2) << "--model is AMD's";
  const char* no_table[] = {"gg", "tune", "--target", "host", "--op", "stacked", "--groups", "4",
                            "--N", "256", "--K", "256"};
  argv.clear();
  for (const char* a : no_table) argv.push_back(const_cast<char*>(a));
  EXPECT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 2);
  EXPECT_EQ(access(table.c_str(), F_OK), -1) << "nothing written";
}

// A bundle built for a table (--table, besides the shipped ones) holds the kernels its
// entries name for the bundle's descriptors, so that a runtime-only context taking the
// table finds the tuned kernel; without the table, the rule's kernel alone.
TEST(TuneBundle, ABundleBuiltForATableHoldsItsTunedKernels) {
  std::string table = Dir() + "/for_bundle.table", bundle = Dir() + "/tuned.ggb";
  unlink(table.c_str());
  gg_op_desc d = {};
  d.layout = GG_LAYOUT_SIZES;
  d.fp8 = GG_FP8_E4M3FN;
  d.n = 192, d.k = 384, d.g = 3;
  d.target = GG_TARGET_HOST;
  gg_tune_entry e = {};
  e.key = gg_tune_key_of(&d, 130, "");
  e.best.tile = {64, 64, 128, 0, GG_LOOP_ROLLED, 1};
  e.best.accum = GG_ACCUM_PROMOTED;
  e.time_us = 1;
  ASSERT_EQ(gg_tune_db_record(table.c_str(), &e), GG_OK);
  const char* args[] = {"gg", "bundle", "--target", "host", "-o", bundle.c_str(), "--table", table.c_str(),
                        "--op", "stacked", "--groups", "40,0,90", "--N", "192", "--K", "384", "--threads", "2"};
  std::vector<char*> argv;
  for (const char* a : args) argv.push_back(const_cast<char*>(a));
  ASSERT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 0);
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  const char* bundles[] = {bundle.c_str()};
  options.bundles = bundles;
  options.bundle_count = 1;
  gg_context* context = nullptr;
  ASSERT_EQ(gg_context_create(&options, &context), GG_OK);
  int tuned = 0;
  for (size_t i = 0; i < gg_context_bundle_kernel_count(context); ++i) {
    gg_bundle_kernel_info info;
    ASSERT_EQ(gg_context_bundle_kernel(context, i, &info), GG_OK);
    tuned += info.desc.tile.m == 64 && info.desc.tile.n == 64 && info.desc.tile.k == 128;
  }
  EXPECT_EQ(tuned, 1) << "the table's kernel is in the bundle";
  gg_context_destroy(context);
  // Without the table, only the rule's kernel.
  argv[6] = const_cast<char*>("--threads");
  argv[7] = const_cast<char*>("1");
  ASSERT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 0);
  ASSERT_EQ(gg_context_create(&options, &context), GG_OK);
  EXPECT_EQ(gg_context_bundle_kernel_count(context), 1u);
  gg_context_destroy(context);
  argv[6] = const_cast<char*>("--table");
  argv[7] = const_cast<char*>("/nonexistent/gg.table");
  EXPECT_NE(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 0) << "a table named must exist";
}

// AMD's modelled sweep: every candidate compiled on two threads, those that spill pruned,
// the rest checked in sim, the one the K loop model predicts fastest recorded with no
// device name.
TEST(TuneModel, RecordsTheModelsFastestWithNoDeviceName) {
  std::string table = Dir() + "/modelled.table";
  unlink(table.c_str());
  const char* args[] = {"gg", "tune", "--target", "gfx950", "--model", "-o", table.c_str(), "--op",
                        "stacked", "--groups", "200,0,90", "--N", "256", "--K", "2048", "--threads", "2"};
  std::vector<char*> argv;
  for (const char* a : args) argv.push_back(const_cast<char*>(a));
  ASSERT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 0);
  gg_tune_db db;
  const gg_tune_entry* e = Only(&db, table);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->key.target, GG_TARGET_GFX950);
  EXPECT_STREQ(e->key.device, "") << "modelled";
  EXPECT_EQ(e->key.m_bucket, 128);  // 290 rows over 3 groups
  EXPECT_GT(e->time_us, 0.0);
  gg_op_desc d = {};
  d.layout = GG_LAYOUT_SIZES;
  d.fp8 = GG_FP8_E4M3FN;
  d.n = 256, d.k = 2048, d.g = 3;
  d.target = GG_TARGET_GFX950;
  d.tile = e->best.tile;
  gg_status status = gg_op_desc_validate(&d);
  EXPECT_EQ(status, GG_OK) << (status ? gg_status_message(status) : "");
  gg_status_free(status);
  gg_tune_db_free(&db);
}

gg_op_desc Gfx942(int64_t n, int64_t k, int64_t g, int tile_m, int tile_n, int tile_k) {
  gg_op_desc d = {};
  d.layout = GG_LAYOUT_OFFSETS;
  d.fp8 = GG_FP8_E4M3FNUZ;
  d.n = n, d.k = k, d.g = g;
  d.target = GG_TARGET_GFX942;
  d.tile = {tile_m, tile_n, tile_k, 0, GG_LOOP_ROLLED, 1};
  return d;
}

// The launch time estimate, by hand: at decode the bytes over MI300X's 5.3 TB/s; at
// large M rounds of tiles over its 304 CUs at 2.1 GHz, each K tile's MFMA cycles over the
// share the loop can keep them busy.
TEST(TuneModel, LaunchTimeIsTheLongerOfMfmaAndMemory) {
  gg_amd_loop_figures f = {0, 1024, 2, 0.5};  // 512 MFMA cycles a K tile, half busy
  gg_op_desc d = Gfx942(4096, 7168, 8, 128, 128, 128);
  double bytes = 16.0 * 7168 + 8.0 * 4096 * 7168 + 2.0 * 16 * 4096;
  EXPECT_NEAR(gg_amd_modelled_us(&d, 16, &f), bytes / 5.3e12 * 1e6, 1e-6);
  // 16384 rows: 8 x 16 x 32 = 4096 tiles, 14 rounds of 304, 56 K tiles of 1024 cycles.
  EXPECT_NEAR(gg_amd_modelled_us(&d, 16384, &f), 14.0 * 56 * 1024 / 2100.0, 1e-6);
  // One row, MFMAs at full rate: one group's weights through the L2 paths of the 32 CUs
  // its tiles occupy take longer than its 56 K tiles of 128 cycles, and than HBM.
  gg_amd_loop_figures quick = {0, 256, 2, 1.0};
  double one = 7168.0 + 4096.0 * 7168 + 2.0 * 4096;
  EXPECT_NEAR(gg_amd_modelled_us(&d, 1, &quick), one / (32 * (2048.0 / 38)) / 2100.0, 1e-6);
  gg_amd_loop_figures parsed;
  ASSERT_EQ(gg_amd_loop_figures_parse("isa_lines=1 scratch_bytes=0 loop_mfma=32 loop_tiles=2 "
                                      "loop_mfma_cycles=1024 share_bound=0.50 compile_ms=1",
                                      &parsed), GG_OK);
  EXPECT_EQ(parsed.loop_mfma_cycles, 1024);
  EXPECT_EQ(parsed.loop_tiles, 2);
  EXPECT_DOUBLE_EQ(parsed.share_bound, 0.5);
  gg_status status = gg_amd_loop_figures_parse("isa_lines=1 scratch_bytes=0 loop=none", &parsed);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNIMPLEMENTED);
  gg_status_free(status);
}

// sim runs on several threads at once (the modelled sweep checks candidates in parallel):
// each run keeps its own state.
TEST(TuneModel, SimRunsOnThreadsAtOnce) {
  auto run = [](uint64_t seed, int* passed) {
    gg_problem_spec spec = {};
    spec.desc = Gfx942(128, 384, 2, 64, 64, 128);
    spec.desc.layout = GG_LAYOUT_SIZES;
    int64_t extents[2] = {69, 3};
    spec.extents = extents;
    spec.m = GG_DYNAMIC;
    spec.data = GG_DATA_RANDOM;
    spec.seed = seed;
    gg_check_result r = {};
    gg_status status = gg_check_run(&spec, GG_CHECK_SIM, 0, &r);
    *passed = !status && r.passed;
    gg_status_free(status);
    gg_check_result_free(&r);
  };
  for (int round = 0; round < 3; ++round) {
    int passed[4] = {0, 0, 0, 0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) threads.emplace_back(run, uint64_t(100 * round + t), &passed[t]);
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < 4; ++t) EXPECT_TRUE(passed[t]) << "round " << round << " thread " << t;
  }
}

}  // namespace
