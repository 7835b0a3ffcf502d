// Every sm_90a kernel shape compiles: each layout x scaling x accumulation goes to PTX with
// LLVM's NVPTX backend and through the CUDA toolkit's ptxas with no spills and no local
// memory; the PTX has the warp-specialised loop (setmaxnreg, TMA, wgmma in a loop). The
// rules of the target refuse what it cannot run, naming the rule.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/nvidia.h"
#include "compiler/target.h"
#include "gg/gg.h"
#include "tests/support/desc.h"

namespace {

std::string Message(gg_status status) {
  std::string text = status ? gg_status_message(status) : "OK";
  gg_status_free(status);
  return text;
}

bool HavePtxas() {
  char path[PATH_MAX];
  gg_status status = gg_ptxas_find(path, sizeof path);
  gg_status_free(status);
  return status == GG_OK;
}

struct Shape {
  gg_layout layout;
  gg_scaling scaling;
  gg_accum accum;
};

std::string Name(const Shape& s) {
  return std::string(gg_layout_name(s.layout)) + "_" + gg_scaling_name(s.scaling) + "_" +
         gg_accum_name(s.accum);
}

// d goes to PTX and through ptxas with no spills and no local memory, and the PTX has the
// warp-specialised loop with `wgmma` (the instruction's name up to its types).
void ExpectAssembles(const gg_op_desc& d, const std::string& wgmma) {
  ASSERT_EQ(gg_op_desc_validate(&d), GG_OK);
  gg_text ptx, cubin, log;
  gg_text_init(&ptx);
  gg_text_init(&cubin);
  gg_text_init(&log);
  gg_status status = gg_compile_emit(&d, GG_STAGE_ISA, &ptx);
  ASSERT_EQ(status, GG_OK) << Message(status);
  status = gg_ptxas_run(ptx.data, ptx.length, &cubin, &log);
  ASSERT_EQ(status, GG_OK) << Message(status);
  gg_ptx_stats stats;
  ASSERT_EQ(gg_ptx_stats_parse(ptx.data, ptx.length, gg_text_str(&log), &stats), GG_OK);
  EXPECT_EQ(stats.spill_stores, 0) << gg_text_str(&log);
  EXPECT_EQ(stats.spill_loads, 0) << gg_text_str(&log);
  EXPECT_EQ(stats.stack_bytes, 0) << "no local memory: " << gg_text_str(&log);
  EXPECT_GT(stats.registers, 0);
  EXPECT_LE(stats.registers, 168) << "384 threads leave 168 registers a thread";
  EXPECT_GE(stats.wgmma_in_loop, 4) << "a K tile is four m64nNk32 steps in the loop";
  // ptxas serialising the wgmma ran ping-pong kernels at 0.55 of the cooperative ones.
  EXPECT_FALSE(stats.wgmma_serialized) << gg_text_str(&log);
  EXPECT_EQ(stats.wgmma_fixups, 0) << gg_text_str(&log);
  std::string text(ptx.data, ptx.length);
  EXPECT_NE(text.find("setmaxnreg.dec.sync.aligned.u32 \t40;"), std::string::npos);
  EXPECT_NE(text.find("setmaxnreg.inc.sync.aligned.u32 \t232;"), std::string::npos);
  EXPECT_NE(text.find("cp.async.bulk.tensor.2d"), std::string::npos);
  EXPECT_NE(text.find(wgmma + ".f32.e4m3.e4m3"), std::string::npos) << wgmma;
  ASSERT_GE(cubin.length, 4u);
  EXPECT_EQ(std::string(cubin.data, 4), "\177ELF");
  gg_text_free(&ptx);
  gg_text_free(&cubin);
  gg_text_free(&log);
}

class EveryShape : public ::testing::TestWithParam<Shape> {};

TEST_P(EveryShape, AssemblesWithoutSpillsOrLocalMemory) {
  if (!HavePtxas()) GTEST_SKIP() << "no ptxas (the CUDA toolkit): PTX only";
  const Shape& s = GetParam();
  gg_op_desc d = gg_test::ChipDesc(s.layout, GG_TARGET_SM90A, 384, 2048, 5);
  d.scaling = s.scaling;
  d.accum = s.accum;
  ExpectAssembles(d, "wgmma.mma_async.sync.aligned.m64n128k32");
}

// 192-column tiles (rowwise, both accumulations: promoted's two sets of 96 accumulators
// fit) on every layout, N 2304 = 12 of them.
TEST(Sm90a, Tile192AssemblesWithoutSpillsOnEveryLayout) {
  if (!HavePtxas()) GTEST_SKIP() << "no ptxas (the CUDA toolkit): PTX only";
  for (int layout = 0; layout < GG_LAYOUT_COUNT; ++layout)
    for (gg_accum accum : {GG_ACCUM_PROMOTED, GG_ACCUM_FAST}) {
      SCOPED_TRACE(std::string(gg_layout_name(gg_layout(layout))) + " " + gg_accum_name(accum));
      gg_op_desc d = gg_test::ChipDesc(gg_layout(layout), GG_TARGET_SM90A, 2304, 1024, 3);
      d.accum = accum;
      d.tile = {128, 192, 128, 0, GG_LOOP_ROLLED, 1};
      ExpectAssembles(d, "wgmma.mma_async.sync.aligned.m64n192k32");
    }
}

// 256-row tiles, a cluster of two CTAs on the tile's halves, on every layout, both
// accumulations and blockwise (128 columns; fast rowwise also 256): each CTA loads half of
// B's rows and multicasts them into both, and releases each stage to the peer's producer
// too, through distributed shared memory; the cluster is the kernel's own (.reqnctapercluster).
TEST(Sm90a, ClusterTilesMulticastBAndReleaseStagesToThePeer) {
  if (!HavePtxas()) GTEST_SKIP() << "no ptxas (the CUDA toolkit): PTX only";
  for (int layout = 0; layout < GG_LAYOUT_COUNT; ++layout)
    for (const Shape& s : {Shape{gg_layout(layout), GG_SCALING_ROWWISE, GG_ACCUM_PROMOTED},
                           Shape{gg_layout(layout), GG_SCALING_ROWWISE, GG_ACCUM_FAST},
                           Shape{gg_layout(layout), GG_SCALING_BLOCKWISE, GG_ACCUM_PROMOTED}}) {
      int tn = s.accum == GG_ACCUM_FAST ? 256 : 128;
      SCOPED_TRACE(Name(s) + " 256x" + std::to_string(tn));
      gg_op_desc d = gg_test::ChipDesc(s.layout, GG_TARGET_SM90A, 512, 1024, 3);
      d.scaling = s.scaling;
      d.accum = s.accum;
      d.tile = {256, tn, 128, 0, GG_LOOP_ROLLED, 1};
      EXPECT_EQ(gg_sm90_cluster_ctas(&d), 2);
      EXPECT_EQ(gg_sm90_b_box_rows(&d), tn / 2);
      ExpectAssembles(d, "wgmma.mma_async.sync.aligned.m64n" + std::to_string(tn) + "k32");
      gg_text ptx;
      gg_text_init(&ptx);
      ASSERT_EQ(gg_compile_emit(&d, GG_STAGE_ISA, &ptx), GG_OK);
      std::string text(ptx.data, ptx.length);
      EXPECT_NE(text.find(".reqnctapercluster 2, 1, 1"), std::string::npos);
      EXPECT_NE(text.find(".multicast::cluster"), std::string::npos);
      EXPECT_NE(text.find("mapa.shared::cluster"), std::string::npos);
      // At CTA scope: released at cluster scope the kernels ran at 0.58-0.73 of the 128-row
      // ones on the H200 (docs/performance.md).
      EXPECT_NE(text.find("mbarrier.arrive.shared::cluster.b64"), std::string::npos);
      EXPECT_EQ(text.find("mbarrier.arrive.release.cluster"), std::string::npos);
      EXPECT_NE(text.find("barrier.cluster.wait"), std::string::npos);
      gg_text_free(&ptx);
    }
  // A 128-row tile has no cluster (split-K aside) and loads B whole.
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 512, 1024, 3);
  EXPECT_EQ(gg_sm90_cluster_ctas(&d), 1);
  EXPECT_EQ(gg_sm90_b_box_rows(&d), 128);
}

// Split-K on the packed layouts, where the decode rule takes it, at every width either mode
// takes and every split (N 4096: the last tile of 192 columns is cut). The cluster's other
// CTAs run the epilogue with no rows, and the first adds the peers' sums in a rolled loop:
// branching around the epilogue, ptxas spilled promoted 192-column kernels (56 bytes
// stored, 84 loaded at split 2); with the peers' sums unrolled, 12 and 24 at split 4. (Padded,
// 3D-3D and 3D-2D promoted 192-column tiles still spill 8-48 bytes: docs/nvidia.md.)
TEST(Sm90a, SplitKAssemblesWithoutSpillsOnThePackedLayouts) {
  if (!HavePtxas()) GTEST_SKIP() << "no ptxas (the CUDA toolkit): PTX only";
  for (gg_layout layout : {GG_LAYOUT_SIZES, GG_LAYOUT_OFFSETS})
    for (gg_accum accum : {GG_ACCUM_PROMOTED, GG_ACCUM_FAST})
      for (int tn : {128, 192, 256})
        for (int split : {2, 3, 4}) {
          if (accum == GG_ACCUM_PROMOTED && tn == 256) continue;  // refused: no second set
          SCOPED_TRACE(std::string(gg_layout_name(layout)) + " " + gg_accum_name(accum) + " 128x" +
                       std::to_string(tn) + " split " + std::to_string(split));
          gg_op_desc d = gg_test::ChipDesc(layout, GG_TARGET_SM90A, 4096, 8192, 5);
          d.accum = accum;
          d.tile = {128, tn, 128, 0, GG_LOOP_ROLLED, split};
          ExpectAssembles(d, "wgmma.mma_async.sync.aligned.m64n" + std::to_string(tn) + "k32");
        }
}

// A static K of 8 K tiles or fewer: LLVM unrolled the producer's K loop whole, and its 40
// registers spilled (44 bytes at K 1024); the loop carries "no unroll" to LLVM.
TEST(Sm90a, ShortStaticKAssemblesWithoutSpills) {
  if (!HavePtxas()) GTEST_SKIP() << "no ptxas (the CUDA toolkit): PTX only";
  for (int64_t k : {896, 1024})
    for (gg_accum accum : {GG_ACCUM_PROMOTED, GG_ACCUM_FAST}) {
      SCOPED_TRACE("K " + std::to_string(k) + " " + gg_accum_name(accum));
      gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 512, k, 3);
      d.accum = accum;
      ExpectAssembles(d, "wgmma.mma_async.sync.aligned.m64n128k32");
    }
}

std::vector<Shape> AllShapes() {
  std::vector<Shape> shapes;
  for (int layout = 0; layout < GG_LAYOUT_COUNT; ++layout) {
    shapes.push_back({gg_layout(layout), GG_SCALING_ROWWISE, GG_ACCUM_PROMOTED});
    shapes.push_back({gg_layout(layout), GG_SCALING_ROWWISE, GG_ACCUM_FAST});
    shapes.push_back({gg_layout(layout), GG_SCALING_BLOCKWISE, GG_ACCUM_PROMOTED});
  }
  return shapes;
}

INSTANTIATE_TEST_SUITE_P(Sm90a, EveryShape, ::testing::ValuesIn(AllShapes()),
                         [](const ::testing::TestParamInfo<Shape>& info) { return Name(info.param); });

// The module a runtime loads: a cubin with ptxas, NUL-terminated PTX without it.
TEST(Sm90a, ArtifactIsACubinOrPtx) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_BATCHED, GG_TARGET_SM90A, 256, 512, 2);
  gg_text module;
  gg_text_init(&module);
  gg_status status = gg_compile_artifact(&d, &module);
  ASSERT_EQ(status, GG_OK) << Message(status);
  ASSERT_GE(module.length, 4u);
  if (HavePtxas()) {
    EXPECT_EQ(std::string(module.data, 4), "\177ELF");
  } else {
    EXPECT_EQ(module.data[module.length - 1], '\0');
    EXPECT_NE(std::string(module.data).find(".target sm_90a"), std::string::npos);
  }
  gg_text_free(&module);
  // GG_PTXAS pointing nowhere is an error that says so.
  setenv("GG_PTXAS", "/nonexistent/ptxas", 1);
  char path[PATH_MAX];
  status = gg_ptxas_find(path, sizeof path);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
  EXPECT_NE(Message(status).find("GG_PTXAS=/nonexistent/ptxas is not an executable"),
            std::string::npos);
  unsetenv("GG_PTXAS");
}

// ptxas -v's report and the PTX, read back.
TEST(Sm90a, StatsAreReadFromPtxasAndThePtx) {
  const char* log =
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem\n";
  const char* ptx =
      ".version 8.0\n.target sm_90a\n.visible .entry k()\n{\n"
      "\tmov.u32 %r1, 0;\n$L__BB0_1:\n"
      "\twgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%r1}, %rd1, %rd2, p, 1, 1;\n"
      "\twgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%r1}, %rd1, %rd2, p, 1, 1;\n"
      "\t@%p1 bra $L__BB0_1;\n\tret;\n}\n";
  gg_ptx_stats stats;
  ASSERT_EQ(gg_ptx_stats_parse(ptx, strlen(ptx), log, &stats), GG_OK);
  EXPECT_EQ(stats.registers, 168);
  EXPECT_EQ(stats.spill_stores, 4);
  EXPECT_EQ(stats.spill_loads, 12);
  EXPECT_EQ(stats.stack_bytes, 8);
  EXPECT_EQ(stats.static_shared_bytes, 1024);
  EXPECT_EQ(stats.wgmma_in_loop, 2);
  EXPECT_EQ(stats.ptx_lines, 5);
  EXPECT_EQ(stats.wgmma_fixups, 0);
  EXPECT_FALSE(stats.wgmma_serialized);
  // ptxas's notes on the wgmma it had to fix up or serialise.
  const struct {
    const char* log;
    int fixups;
    bool serialized;
  } notes[] = {
      {"ptxas info    : (C7519) warpgroup.arrive is injected in around line 624 by compiler to "
       "allow use of registers in GMMA in function 'k'\n"
       "ptxas info    : (C7517) warpgroup.wait is injected in around line 695 by compiler to "
       "allow use of registers defined by GMMA in function 'k'\n"
       "ptxas info    : Used 168 registers, used 16 barriers, 1024 bytes smem\n",
       2, false},
      {"ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are "
       "serialized due to program dependence on compiler-inserted WG.AR in divergent path in "
       "the function 'k'\n"
       "ptxas info    : Used 168 registers, used 16 barriers, 1024 bytes smem\n",
       0, true},
  };
  for (const auto& note : notes) {
    ASSERT_EQ(gg_ptx_stats_parse(ptx, strlen(ptx), note.log, &stats), GG_OK);
    EXPECT_EQ(stats.wgmma_fixups, note.fixups) << note.log;
    EXPECT_EQ(stats.wgmma_serialized, note.serialized) << note.log;
  }
}

TEST(Sm90a, TheTargetsRulesNameWhatTheyRefuse) {
  struct Case {
    void (*change)(gg_op_desc*);
    const char* message;
  } cases[] = {
      {[](gg_op_desc* d) { d->fp8 = GG_FP8_E4M3FNUZ; }, "sm_90a takes float8_e4m3fn operands"},
      {[](gg_op_desc* d) { d->b_layout = GG_B_PRESHUFFLED; }, "preshuffled B is the operand order of AMD"},
      {[](gg_op_desc* d) { d->tile = {64, 128, 128, 0, GG_LOOP_ROLLED, 0}; }, "is not an sm_90a tile"},
      {[](gg_op_desc* d) { d->tile = {256, 128, 128, 0, GG_LOOP_ROLLED, 2}; d->k = 4096; },
       "split-K clusters are 128-row tiles'"},
      {[](gg_op_desc* d) { d->tile = {128, 256, 128, 0, GG_LOOP_ROLLED, 0}; }, "does not fit: use tile_n 128"},
      {[](gg_op_desc* d) { d->scaling = GG_SCALING_BLOCKWISE; d->accum = GG_ACCUM_FAST; },
       "--accum fast applies to rowwise scaling"},
      {[](gg_op_desc* d) { d->g = GG_SM90_MAX_GROUPS + 1; }, "keep the group ends in shared memory"},
      {[](gg_op_desc* d) { d->tile = {128, 192, 128, 0, GG_LOOP_ROLLED, 0}; d->scaling = GG_SCALING_BLOCKWISE; },
       "straddles the 128-column blocks of blockwise scales"},
      {[](gg_op_desc* d) { d->tile = {128, 192, 128, 0, GG_LOOP_ROLLED, 0}; d->target = GG_TARGET_GFX950; },
       "is not a candidate"},
  };
  for (const Case& c : cases) {
    gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 256, 512, 4);
    c.change(&d);
    gg_status status = gg_op_desc_validate(&d);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT) << c.message;
    EXPECT_NE(Message(status).find(c.message), std::string::npos) << c.message;
  }
  // 256-wide tiles are fine with fast accumulation; AMD's knobs are normalised away.
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_SM90A, 256, 512, 4);
  d.tile = {128, 256, 128, 3, GG_LOOP_UNROLLED, 0};
  d.accum = GG_ACCUM_FAST;
  EXPECT_EQ(gg_op_desc_validate(&d), GG_OK);
  gg_op_desc n = gg_op_desc_with_defaults(&d);
  EXPECT_EQ(n.tile.waves_per_eu, 0);
  EXPECT_EQ(n.tile.loop, GG_LOOP_ROLLED);
  // Host and AMD kernels accumulate in FP32 either way: fast is the same kernel there.
  gg_op_desc host = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_HOST, 256, 512, 4);
  host.accum = GG_ACCUM_FAST;
  EXPECT_EQ(gg_op_desc_with_defaults(&host).accum, GG_ACCUM_PROMOTED);
}

}  // namespace
