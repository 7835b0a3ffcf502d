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
#include <vector>

#include "runtime/tune.h"
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
  ASSERT_EQ(lines.size(), 12u) << "128 x {64, 128, 256} x 128, split 1 to 4";
  const std::string base = "--op mm --ranks 2d3d --groups 1*8 --N 4096 --K 7168 --accum fast";
  EXPECT_EQ(lines[0], base + " --tile 128x64x128");
  EXPECT_EQ(lines[5], base + " --tile 128x128x128 --split-k 2");
  EXPECT_EQ(lines[11], base + " --tile 128x256x128 --split-k 4");
}

TEST_F(TuneSweep, RefusesWhatItCannotTune) {
  std::string table = Dir() + "/refused.table";
  std::vector<std::string> none;
  const char* gfx[] = {"gg", "tune", "--target", "gfx942", "-o", "x", "--op", "stacked",
                       "--groups", "4", "--N", "256", "--K", "256"};
  std::vector<char*> argv;
  for (const char* a : gfx) argv.push_back(const_cast<char*>(a));
  EXPECT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 2) << "AMD is modelled, not timed";
  argv[3] = const_cast<char*>("sm_90a");
  EXPECT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 2) << "no device timing yet";
  const char* no_table[] = {"gg", "tune", "--target", "host", "--op", "stacked", "--groups", "4",
                            "--N", "256", "--K", "256"};
  argv.clear();
  for (const char* a : no_table) argv.push_back(const_cast<char*>(a));
  EXPECT_EQ(gg_cli_main(static_cast<int>(argv.size()), argv.data()), 2);
  EXPECT_EQ(access(table.c_str(), F_OK), -1) << "nothing written";
}

}  // namespace
