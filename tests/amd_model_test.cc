// The K loop model behind `gg compile --stats` (docs/amd-model.md): the LDS bank model on
// access patterns whose cost is known by hand, the assembly reader on a hand-written
// loop, and the properties the default kernels must keep at the DeepSeek-V3 shape.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/amd_lds.h"
#include "compiler/amd_loop.h"
#include "compiler/target.h"
#include "tests/support/desc.h"

namespace {

TEST(LdsBanks, ConsecutiveSixteenByteReadsAreConflictFree) {
  int64_t addresses[64];
  for (int lane = 0; lane < 64; ++lane) addresses[lane] = 16 * lane;
  int degree = 0;
  // gfx942: 32 banks, 8 lanes of 16 bytes a cycle: 8 cycles.
  EXPECT_EQ(gg_amd_lds_access_cycles(GG_TARGET_GFX942, 0, 16, addresses, &degree), 8);
  EXPECT_EQ(degree, 1);
  // gfx950 reads through 64 banks (16 lanes a cycle) and writes through 32.
  EXPECT_EQ(gg_amd_lds_access_cycles(GG_TARGET_GFX950, 0, 16, addresses, &degree), 4);
  EXPECT_EQ(gg_amd_lds_access_cycles(GG_TARGET_GFX950, 1, 16, addresses, &degree), 8);
  EXPECT_EQ(degree, 1);
}

TEST(LdsBanks, RowsOfOneColumnConflict) {
  // 16 lanes read 8 bytes at the same column of 16 rows of 128 bytes: on gfx942 every row
  // starts at bank 0, so a cycle's 16 lanes use 2 of 32 banks: 16-way.
  int64_t addresses[64];
  for (int lane = 0; lane < 64; ++lane) addresses[lane] = 128 * (lane % 16) + 8 * (lane / 16);
  int degree = 0;
  EXPECT_EQ(gg_amd_lds_access_cycles(GG_TARGET_GFX942, 0, 8, addresses, &degree), 4 * 16);
  EXPECT_EQ(degree, 16);
  // The same byte read by every lane is a broadcast: one dword, no conflict.
  for (int lane = 0; lane < 64; ++lane) addresses[lane] = 40;
  EXPECT_EQ(gg_amd_lds_access_cycles(GG_TARGET_GFX942, 0, 4, addresses, &degree), 2);
  EXPECT_EQ(degree, 1);
}

// A loop of two loads, a wait that needs the first one after one MFMA, a copy and a second
// MFMA, then a wait for the second load after both MFMAs.
const char kLoop[] =
    "kernel:\n"
    "  s_mov_b32 s0, 0\n"
    ".LBB0_1:\n"
    "  buffer_load_dwordx4 v[0:3], v4, s[8:11], 0 offen\n"
    "  buffer_load_dwordx4 v[12:15], v4, s[8:11], 0 offen offset:16\n"
    "  v_mfma_f32_16x16x32_fp8_fp8 v[20:23], v[6:7], v[8:9], v[20:23]\n"
    "  s_waitcnt vmcnt(1)\n"
    "  v_mov_b64_e32 v[6:7], v[0:1]\n"
    "  v_mov_b32_e32 v5, 0\n"
    "  v_mfma_f32_16x16x32_fp8_fp8 v[24:27], v[6:7], v[8:9], v[24:27]\n"
    "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
    "  s_cbranch_scc1 .LBB0_1\n"
    "  s_endpgm\n"
    ".amdhsa_kernel kernel\n";

TEST(LoopModel, ReadsTheHandWrittenLoop) {
  gg_amd_loop loop;
  ASSERT_EQ(gg_amd_loop_analyze(kLoop, sizeof kLoop - 1, GG_TARGET_GFX942, 0, &loop), GG_OK);
  EXPECT_TRUE(loop.found);
  EXPECT_EQ(loop.mfma, 2);
  EXPECT_EQ(loop.mfma_cycles, 32);
  EXPECT_EQ(loop.waits, 2);
  EXPECT_EQ(loop.copies, 1) << "v_mov of a register is a copy; of a constant is not";
  EXPECT_EQ(loop.vmem_loads, 2);
  // The first load waits after one MFMA (16 cycles); vmcnt(0) takes the second after two.
  EXPECT_EQ(loop.vmem_cover, 16);
  ASSERT_EQ(gg_amd_loop_analyze(kLoop, sizeof kLoop - 1, GG_TARGET_GFX950, 0, &loop), GG_OK);
  EXPECT_EQ(loop.mfma, 2) << "gfx942's MFMA on gfx950: counted at its 16-cycle rate";
}

TEST(LoopModel, McaPricesTheLoopInClocks) {
  gg_amd_loop loop;
  ASSERT_EQ(gg_amd_loop_analyze(kLoop, sizeof kLoop - 1, GG_TARGET_GFX942, 1, &loop), GG_OK);
  ASSERT_GE(loop.cycles_mca, 0) << loop.mca_note;
  EXPECT_GE(loop.cycles_mca, loop.mfma_cycles) << "the MFMAs alone take 32 clocks";
}

// What `gg compile --stats` reports, as key -> value.
std::string Stat(const std::string& stats, const std::string& key) {
  size_t at = stats.find(" " + key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 2;
  return stats.substr(at, stats.find(' ', at) - at);
}

// The default rowwise kernels at 8 x 2048 rows, N 4096, K 7168 (the shape): no
// copies of loaded data in the loop, every global load covered by a tile's MFMAs, LDS
// conflict-free, no scratch.
TEST(LoopModel, DefaultRowwiseKernelsKeepTheirLoopProperties) {
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950})
    for (gg_b_layout b : {GG_B_PLAIN, GG_B_PRESHUFFLED}) {
      gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, chip, 4096, 7168, 8);
      d.b_layout = b;
      gg_text text;
      gg_text_init(&text);
      ASSERT_EQ(gg_compile_stats(&d, &text), GG_OK);
      std::string stats = " " + std::string(gg_text_str(&text));
      gg_text_free(&text);
      SCOPED_TRACE(std::string(gg_target_name(chip)) + (b ? " preshuffled: " : " plain: ") + stats);
      EXPECT_EQ(Stat(stats, "scratch_bytes"), "0");
      // gfx950 with preshuffled B still moves B fragments into MFMA operand order (40
      // moves, 48 before the K loop changes; docs/amd-model.md): held at that level until
      // AGPR accumulators free the registers to remove them.
      if (chip == GG_TARGET_GFX950 && b == GG_B_PRESHUFFLED) {
        EXPECT_LE(atoi(Stat(stats, "loop_copies").c_str()), 40);
      } else {
        EXPECT_EQ(Stat(stats, "loop_copies"), "0");
      }
      EXPECT_EQ(Stat(stats, "lds_conflict"), "1");
      if (chip == GG_TARGET_GFX942 && b == GG_B_PLAIN) {  // 2 x 256 x 8 loads of 16 B / 1024 clk
        EXPECT_EQ(Stat(stats, "l2_demand"), "64.0");
      }
      int per_tile = atoi(Stat(stats, "loop_mfma_cycles").c_str()) / (b == GG_B_PRESHUFFLED ? 2 : 1);
      EXPECT_GT(per_tile, 0);
      EXPECT_GE(atoi(Stat(stats, "loop_vmem_cover").c_str()), per_tile);
    }
}

// The bound of the model (MFMA share, capped by what the L2 can feed the resident
// workgroups) at the DeepSeek-V3 shape, for a tile on chip.
double ShareBound(gg_target chip, gg_tile_config tile) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, chip, 4096, 7168, 8);
  d.tile = tile;
  gg_text text;
  gg_text_init(&text);
  gg_status status = gg_compile_stats(&d, &text);
  EXPECT_EQ(status, GG_OK);
  std::string stats = " " + std::string(gg_text_str(&text));
  gg_text_free(&text);
  return atof(Stat(stats, "share_bound").c_str());
}

TEST(LoopModel, LargerTilesAreAheadAtTheDeepSeekShape) {
  // The 128x128 tile asks the L2 for more than it serves (gfx942: 2 workgroups x 256
  // threads x 128 bytes per 1024 MFMA clocks = 64 B/clk/CU); the 256-wide tiles halve
  // that or better.
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950}) {
    double base = ShareBound(chip, {128, 128, 128, 2, GG_LOOP_ROLLED});
    EXPECT_GT(base, 0);
    EXPECT_GT(ShareBound(chip, {256, 128, 128, 1, GG_LOOP_ROLLED}), base) << gg_target_name(chip);
    EXPECT_GT(ShareBound(chip, {256, 256, 128, 1, GG_LOOP_ROLLED}), base) << gg_target_name(chip);
  }
}

}  // namespace
