// Autotuning's pieces that need no device (runtime/tune.h): the keys and their per-group
// normalisation, the candidate spaces against hand-computed lists (the divisibility
// pruning and its fallback included), and the tuning database: round trip, damaged and
// truncated files, and concurrent writers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/tune.h"
#include "tuning/shipped.h"

namespace {

gg_op_desc Desc(gg_target target, gg_layout layout, int64_t n, int64_t k, int64_t g,
                gg_scaling scaling = GG_SCALING_ROWWISE, gg_accum accum = GG_ACCUM_PROMOTED) {
  gg_op_desc d;
  memset(&d, 0, sizeof d);
  d.layout = layout;
  d.scaling = scaling;
  d.b_layout = GG_B_PLAIN;
  d.fp8 = target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  d.n = n, d.k = k, d.g = g;
  d.target = target;
  d.accum = accum;
  d.tile.loop = GG_LOOP_ROLLED;
  return d;
}

std::set<std::string> Candidates(const gg_op_desc& d, int allow_fast) {
  gg_tune_candidate c[GG_TUNE_MAX_CANDIDATES];
  size_t count = gg_tune_candidates(&d, allow_fast, c);
  std::set<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    char line[96];
    snprintf(line, sizeof line, "%dx%dx%d w%d s%d %s", c[i].tile.m, c[i].tile.n, c[i].tile.k,
             c[i].tile.waves_per_eu, c[i].tile.split_k, gg_accum_name(c[i].accum));
    out.insert(line);
  }
  EXPECT_EQ(out.size(), count) << "a candidate twice";
  return out;
}

TEST(TuneKey, NextPowerOfTwo) {
  EXPECT_EQ(gg_tune_next_pow2(0), 0);
  EXPECT_EQ(gg_tune_next_pow2(-5), 0);
  EXPECT_EQ(gg_tune_next_pow2(1), 1);
  EXPECT_EQ(gg_tune_next_pow2(3), 4);
  EXPECT_EQ(gg_tune_next_pow2(1024), 1024);
  EXPECT_EQ(gg_tune_next_pow2(1025), 2048);
}

TEST(TuneKey, GroupedAxisPerGroup) {
  struct {
    gg_layout layout;
    int64_t m, n, k, g;
    int64_t want_m, want_n, want_k;
  } cases[] = {
      {GG_LAYOUT_SIZES, 100, 4096, 7168, 4, 32, 4096, 7168},     // 100 rows / 4 groups = 25
      {GG_LAYOUT_OFFSETS, 16384, 4096, 7168, 8, 2048, 4096, 7168},
      {GG_LAYOUT_PADDED, 100, 256, 512, 4, 128, 256, 512},       // the slab is per group
      {GG_LAYOUT_BATCHED, 7, 256, 512, 3, 8, 256, 512},
      {GG_LAYOUT_N_OFFSETS, 64, 1024, 512, 4, 64, 256, 512},     // N / G
      {GG_LAYOUT_K_OFFSETS, 200, 256, 2048, 8, 256, 256, 256},   // K / G
      {GG_LAYOUT_SIZES, 3, 256, 512, 8, 0, 256, 512},            // fewer rows than groups
  };
  for (const auto& c : cases) {
    gg_op_desc d = Desc(GG_TARGET_HOST, c.layout, c.n, c.k, c.g);
    gg_tune_key key = gg_tune_key_of(&d, c.m, "NVIDIA H200");
    EXPECT_EQ(key.m_bucket, c.want_m) << gg_layout_name(c.layout);
    EXPECT_EQ(key.n, c.want_n) << gg_layout_name(c.layout);
    EXPECT_EQ(key.k, c.want_k) << gg_layout_name(c.layout);
    EXPECT_STREQ(key.device, "NVIDIA_H200");
  }
}

TEST(TuneKey, FormatParseRoundTrip) {
  gg_op_desc d = Desc(GG_TARGET_SM90A, GG_LAYOUT_OFFSETS, 4096, 7168, 8, GG_SCALING_ROWWISE,
                      GG_ACCUM_FAST);
  gg_tune_key key = gg_tune_key_of(&d, 128, "NVIDIA H200");
  char text[256];
  gg_tune_key_format(&key, text, sizeof text);
  EXPECT_STREQ(text,
               "target=sm_90a device=NVIDIA_H200 layout=offsets scaling=rowwise b=plain "
               "accum=fast m=16 n=4096 k=7168");
  gg_tune_key back;
  ASSERT_EQ(gg_tune_key_parse(text, &back), GG_OK);
  EXPECT_TRUE(gg_tune_key_equal(&key, &back));
  gg_op_desc amd = Desc(GG_TARGET_GFX950, GG_LAYOUT_SIZES, 256, 512, 2);
  gg_tune_key modelled = gg_tune_key_of(&amd, 512, NULL);
  gg_tune_key_format(&modelled, text, sizeof text);
  EXPECT_NE(strstr(text, "device=- "), nullptr) << text;
  ASSERT_EQ(gg_tune_key_parse(text, &back), GG_OK);
  EXPECT_TRUE(gg_tune_key_equal(&modelled, &back));
  for (const char* bad : {"", "target=sm_90a", "target=tpu device=- layout=sizes",
                          "target=host device=- layout=sizes scaling=rowwise b=plain "
                          "accum=promoted m=-1 n=2 k=3"}) {
    gg_status status = gg_tune_key_parse(bad, &back);
    EXPECT_NE(status, GG_OK) << bad;
    gg_status_free(status);
  }
}

// sm_90a: tile 128 x {64, 128, 256} x 128 and split-K 1-4, and 256 x {64, 128, 256} x 128
// unsplit (a cluster of two CTAs on the tile's halves), what its rules accept.
TEST(TuneCandidates, Sm90HandComputed) {
  // Promoted rowwise: tile_n 256 has no room for the second accumulator set; K = 7168 is
  // 56 K tiles, so every split's shares hold a ring's stages.
  gg_op_desc d = Desc(GG_TARGET_SM90A, GG_LAYOUT_OFFSETS, 4096, 7168, 8);
  std::set<std::string> promoted = {
      "128x64x128 w0 s1 promoted",  "128x64x128 w0 s2 promoted",  "128x64x128 w0 s3 promoted",
      "128x64x128 w0 s4 promoted",  "128x128x128 w0 s1 promoted", "128x128x128 w0 s2 promoted",
      "128x128x128 w0 s3 promoted", "128x128x128 w0 s4 promoted", "256x64x128 w0 s1 promoted",
      "256x128x128 w0 s1 promoted"};
  EXPECT_EQ(Candidates(d, 0), promoted);
  // Where the caller allows fast accumulation: the fast kernels too, tile_n 256 among them.
  std::set<std::string> both = promoted;
  for (const char* n : {"64", "128", "256"}) {
    for (int s = 1; s <= 4; ++s) both.insert(std::string("128x") + n + "x128 w0 s" + std::to_string(s) + " fast");
    both.insert(std::string("256x") + n + "x128 w0 s1 fast");
  }
  EXPECT_EQ(Candidates(d, 1), both);
  // Blockwise is promoted by construction: allow_fast adds nothing.
  gg_op_desc blockwise = Desc(GG_TARGET_SM90A, GG_LAYOUT_SIZES, 4096, 7168, 8, GG_SCALING_BLOCKWISE);
  EXPECT_EQ(Candidates(blockwise, 1), promoted);
}

TEST(TuneCandidates, DivisibilityFallsBackToAll) {
  // No tile_n divides N = 200: every valid candidate stays. K = 256 is 2 K tiles, too few
  // for any split's shares to hold a ring.
  gg_op_desc d = Desc(GG_TARGET_SM90A, GG_LAYOUT_SIZES, 200, 256, 2);
  std::set<std::string> want = {"128x64x128 w0 s1 promoted", "128x128x128 w0 s1 promoted",
                                "256x64x128 w0 s1 promoted", "256x128x128 w0 s1 promoted"};
  EXPECT_EQ(Candidates(d, 0), want);
  // The host: N = 192 takes tile_n 64 only, K = 384 tile_k 128 only.
  gg_op_desc host = Desc(GG_TARGET_HOST, GG_LAYOUT_SIZES, 192, 384, 2);
  std::set<std::string> host_want = {"64x64x128 w0 s1 promoted", "128x64x128 w0 s1 promoted",
                                     "256x64x128 w0 s1 promoted"};
  EXPECT_EQ(Candidates(host, 0), host_want);
  // N = 104, K = 208: nothing divides either, so all 18 host tiles.
  gg_op_desc odd = Desc(GG_TARGET_HOST, GG_LAYOUT_SIZES, 104, 208, 2);
  EXPECT_EQ(Candidates(odd, 0).size(), 18u);
}

TEST(TuneCandidates, AmdSpaceAndItsRules) {
  // gfx950 rowwise at N 4096 K 7168: every tile divides N; K = 7168 is 28 tiles of 256.
  gg_op_desc d = Desc(GG_TARGET_GFX950, GG_LAYOUT_SIZES, 4096, 7168, 8);
  std::set<std::string> got = Candidates(d, 1);
  EXPECT_FALSE(got.empty());
  for (const std::string& c : got) {
    EXPECT_EQ(c.find(" fast"), std::string::npos) << "AMD accumulates in FP32: " << c;
    EXPECT_NE(c.find(" s1 "), std::string::npos) << c;
    // Each one is a descriptor gg accepts (LDS capacity included).
    int m, n, k, w;
    ASSERT_EQ(sscanf(c.c_str(), "%dx%dx%d w%d", &m, &n, &k, &w), 4);
    gg_op_desc v = d;
    v.tile = gg_tile_config_default();
    v.tile.m = m, v.tile.n = n, v.tile.k = k, v.tile.waves_per_eu = w;
    gg_status status = gg_op_desc_validate(&v);
    EXPECT_EQ(status, GG_OK) << c;
    gg_status_free(status);
  }
  EXPECT_TRUE(got.count("128x128x128 w2 s1 promoted")) << "the default is a candidate";
  EXPECT_TRUE(got.count("128x128x128 w0 s1 promoted"));
  EXPECT_TRUE(got.count("256x256x256 w0 s1 promoted")) << "128 KiB of A and B: gfx950 has 160";
  // What the LDS refuses is left out: gfx942 has 64 KiB.
  gg_op_desc small_lds = Desc(GG_TARGET_GFX942, GG_LAYOUT_SIZES, 4096, 7168, 8);
  std::set<std::string> gfx942 = Candidates(small_lds, 0);
  EXPECT_FALSE(gfx942.count("256x256x256 w0 s1 promoted"));
  EXPECT_TRUE(gfx942.count("256x128x128 w0 s1 promoted"));
  EXPECT_LT(gfx942.size(), got.size());
  // Blockwise takes 128-column scale blocks: no tile_n 64.
  gg_op_desc blockwise = Desc(GG_TARGET_GFX942, GG_LAYOUT_SIZES, 4096, 7168, 8, GG_SCALING_BLOCKWISE);
  for (const std::string& c : Candidates(blockwise, 0)) EXPECT_EQ(c.find("x64x"), std::string::npos) << c;
}

std::string TempPath(const char* name) {
  const char* dir = getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(getpid());
  unlink(path.c_str());
  unlink((path + ".lock").c_str());
  return path;
}

gg_tune_entry Entry(int64_t n, int tile_n, double time_us) {
  gg_op_desc d = Desc(GG_TARGET_SM90A, GG_LAYOUT_SIZES, n, 2048, 8, GG_SCALING_ROWWISE, GG_ACCUM_FAST);
  gg_tune_entry e;
  memset(&e, 0, sizeof e);
  e.key = gg_tune_key_of(&d, 1024, "NVIDIA H200");
  e.best.tile = gg_tile_config_default();
  e.best.tile.n = tile_n;
  e.best.tile.waves_per_eu = 0;
  e.best.tile.split_k = 2;
  e.best.accum = GG_ACCUM_FAST;
  e.time_us = time_us;
  return e;
}

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
}

TEST(TuneDb, RoundTripAndReplace) {
  std::string path = TempPath("tune_round_trip");
  gg_tune_db db;
  ASSERT_EQ(gg_tune_db_load(path.c_str(), &db), GG_OK);  // no file yet: empty
  EXPECT_EQ(db.count, 0u);
  gg_tune_db_free(&db);
  gg_tune_entry a = Entry(4096, 256, 12.5), b = Entry(7168, 128, 40.25);
  ASSERT_EQ(gg_tune_db_record(path.c_str(), &a), GG_OK);
  ASSERT_EQ(gg_tune_db_record(path.c_str(), &b), GG_OK);
  gg_tune_entry faster = Entry(4096, 128, 11.0);  // the same key as a
  ASSERT_EQ(gg_tune_db_record(path.c_str(), &faster), GG_OK);
  ASSERT_EQ(gg_tune_db_load(path.c_str(), &db), GG_OK);
  EXPECT_EQ(db.count, 2u);
  EXPECT_EQ(db.damaged, 0u);
  const gg_tune_entry* found = gg_tune_db_find(&db, &a.key);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->best.tile.n, 128);
  EXPECT_EQ(found->best.tile.split_k, 2);
  EXPECT_EQ(found->best.accum, GG_ACCUM_FAST);
  EXPECT_DOUBLE_EQ(found->time_us, 11.0);
  found = gg_tune_db_find(&db, &b.key);
  ASSERT_NE(found, nullptr);
  EXPECT_DOUBLE_EQ(found->time_us, 40.25);
  gg_tune_entry missing = Entry(1280, 128, 1.0);
  EXPECT_EQ(gg_tune_db_find(&db, &missing.key), nullptr);
  gg_tune_db_free(&db);
  std::string text = Read(path);
  EXPECT_EQ(text.rfind("# gg tuning database v1", 0), 0u) << text;
  EXPECT_NE(text.find("target=sm_90a device=NVIDIA_H200 layout=sizes scaling=rowwise b=plain "
                      "accum=fast m=128 n=7168 k=2048 -> tile=128x128x128 wpe=0 split=2 "
                      "accum=fast time_us=40.250 crc="),
            std::string::npos)
      << text;
}

// The line docs/tuning.md shows is one the database writes.
TEST(TuneDb, DocumentedLine) {
  gg_tune_entry e = Entry(7168, 128, 40.25);
  char line[512];
  gg_tune_entry_format(&e, line, sizeof line);
  EXPECT_STREQ(line,
               "target=sm_90a device=NVIDIA_H200 layout=sizes scaling=rowwise b=plain accum=fast "
               "m=128 n=7168 k=2048 -> tile=128x128x128 wpe=0 split=2 accum=fast time_us=40.250 "
               "crc=ab579ca359a39aca");
  gg_tune_entry back;
  ASSERT_EQ(gg_tune_entry_parse(line, &back), GG_OK);
  EXPECT_TRUE(gg_tune_key_equal(&back.key, &e.key));
}

TEST(TuneDb, DamagedLinesAreIgnoredAndRewritten) {
  std::string path = TempPath("tune_damaged");
  gg_tune_entry a = Entry(4096, 256, 12.5), b = Entry(7168, 128, 40.25), c = Entry(8192, 128, 7.0);
  for (const gg_tune_entry* e : {&a, &b, &c}) ASSERT_EQ(gg_tune_db_record(path.c_str(), e), GG_OK);
  std::string text = Read(path);
  // One flipped digit in b's time: its checksum no longer holds.
  size_t at = text.find("time_us=40.250");
  ASSERT_NE(at, std::string::npos);
  text[at + 8] = '5';
  Write(path, text + "garbage without a checksum\n" + "k=1 crc=0000000000000000\n");
  gg_tune_db db;
  ASSERT_EQ(gg_tune_db_load(path.c_str(), &db), GG_OK);
  EXPECT_EQ(db.count, 2u);
  EXPECT_EQ(db.damaged, 3u);
  EXPECT_EQ(gg_tune_db_find(&db, &b.key), nullptr);
  EXPECT_NE(gg_tune_db_find(&db, &a.key), nullptr);
  gg_tune_db_free(&db);
  // The next write drops them, and b tuned again is back.
  ASSERT_EQ(gg_tune_db_record(path.c_str(), &b), GG_OK);
  ASSERT_EQ(gg_tune_db_load(path.c_str(), &db), GG_OK);
  EXPECT_EQ(db.count, 3u);
  EXPECT_EQ(db.damaged, 0u);
  gg_tune_db_free(&db);
  // A file cut in the middle of its last line: the whole lines before it still count.
  text = Read(path);
  Write(path, text.substr(0, text.size() - 10));
  ASSERT_EQ(gg_tune_db_load(path.c_str(), &db), GG_OK);
  EXPECT_EQ(db.count, 2u);
  EXPECT_EQ(db.damaged, 1u);
  gg_tune_db_free(&db);
  // Binary noise: nothing read, nothing crashes.
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise.push_back(static_cast<char>((i * 7919) % 251 + 1));
  Write(path, noise);
  ASSERT_EQ(gg_tune_db_load(path.c_str(), &db), GG_OK);
  EXPECT_EQ(db.count, 0u);
  EXPECT_GT(db.damaged, 0u);
  gg_tune_db_free(&db);
}

TEST(TuneDb, ConcurrentWritersKeepEveryEntry) {
  std::string path = TempPath("tune_concurrent");
  const int writers = 8, each = 12;
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int failed = 0;
      for (int i = 0; i < each; ++i) {
        gg_tune_entry e = Entry(128 * (1 + w * each + i), 128, w + i / 100.0);
        gg_status status = gg_tune_db_record(path.c_str(), &e);
        if (status) failed = 1;
        gg_status_free(status);
      }
      _exit(failed);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  gg_tune_db db;
  ASSERT_EQ(gg_tune_db_load(path.c_str(), &db), GG_OK);
  EXPECT_EQ(db.count, static_cast<size_t>(writers * each));
  EXPECT_EQ(db.damaged, 0u);
  for (int w = 0; w < writers; ++w)
    for (int i = 0; i < each; ++i) {
      gg_tune_entry e = Entry(128 * (1 + w * each + i), 128, 0);
      EXPECT_NE(gg_tune_db_find(&db, &e.key), nullptr) << w << " " << i;
    }
  gg_tune_db_free(&db);
}

// The shipped tables, as compiled into the runtime, are the files in tuning/ byte for
// byte, read whole: no damaged line, one device name per table ("" for modelled ones),
// every entry a configuration its own descriptor's rules accept.
TEST(TuneDb, ShippedTablesAreWhole) {
  int tables = 0;
  for (const gg_shipped_tuning_table* t = gg_shipped_tuning_tables; t->name; ++t, ++tables) {
    SCOPED_TRACE(t->name);
    std::ifstream file(std::string("tuning/") + t->name, std::ios::binary);
    ASSERT_TRUE(file.good());
    std::stringstream bytes;
    bytes << file.rdbuf();
    EXPECT_EQ(bytes.str(), t->text) << "tuning/embed.sh changed the text";
    gg_tune_db db;
    ASSERT_EQ(gg_tune_db_parse(t->text, &db), GG_OK);
    EXPECT_GT(db.count, 0u);
    EXPECT_EQ(db.damaged, 0u);
    for (size_t i = 0; i < db.count; ++i) {
      const gg_tune_entry& e = db.entries[i];
      EXPECT_STREQ(e.key.device, db.entries[0].key.device);
      gg_op_desc d = Desc(e.key.target, e.key.layout, e.key.n, e.key.k, 8, e.key.scaling, e.key.accum);
      d.b_layout = e.key.b_layout;
      d.tile = e.best.tile;
      gg_status status = gg_op_desc_validate(&d);
      EXPECT_EQ(status, GG_OK) << (status ? gg_status_message(status) : "");
      gg_status_free(status);
    }
    gg_tune_db_free(&db);
  }
  EXPECT_GE(tables, 1);
}

}  // namespace
