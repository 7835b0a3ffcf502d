// Regression tests for what hostile inputs found (docs/reliability.md): allocation
// failures reported after the problem is freed, extent products that overflow, K = 0 on
// AMD targets, unbounded unrolled compiles, group resolution that grew with G per tile,
// command-line numbers that wrapped, and AMD spans a 32-bit buffer offset cannot reach.
// The command line runs as the real `gg` binary, under a time limit.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "gg/gg.h"
#include "sim/sim.h"
#include "tests/support/api_case.h"
#include "tests/support/desc.h"
#include "tests/support/test_util.h"

namespace {

using gg_test::ApiCase;
using gg_test::Spec;
using gg_test::TakeMessage;

std::string ToolPath() {
  const char* root = std::getenv("TEST_SRCDIR");
  return std::string(root ? root : ".") + "/gg/tools/gg";
}

std::string TempPath(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return std::string(root ? root : "/tmp") + "/" + name;
}

struct Run {
  int exit_code;
  std::string output;  // stdout and stderr
};

// Runs `gg <args>` (args are shell words) with a time limit; exit code 124 means it ran
// out of time. Without AddressSanitizer (whose shadow memory needs the address space) the
// process is also limited to 32 GiB of address space, so an allocation the machine cannot
// back fails as it would on a smaller one.
Run Gg(const std::string& args, int seconds = 120) {
  std::string command = "ulimit -c 0; ";
#if !defined(__SANITIZE_ADDRESS__)
  command += "ulimit -v 33554432; ";
#endif
  command += "timeout " + std::to_string(seconds) + " " + ToolPath() + " " + args + " 2>&1";
  Run run = {-1, ""};
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.output.append(buffer, n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

struct CliCase {
  const char* args;
  int exit_code;
  const char* message;  // a substring of the output
};

void ExpectCli(const CliCase& c) {
  Run run = Gg(c.args);
  EXPECT_EQ(run.exit_code, c.exit_code) << "gg " << c.args << "\n" << run.output;
  EXPECT_NE(run.output.find(c.message), std::string::npos)
      << "gg " << c.args << "\nexpected: " << c.message << "\ngot: " << run.output;
}

// ---------------------------------------------------------------------------------------
// Finding 1: an allocation that fails reported the freed problem's sizes (use after free).

TEST(Problem, AllocationFailureIsReportedAfterNothingIsFreedTwice) {
  // B [1, 2147483640, 32768] is 64 TiB: below the 2^47 bytes an operand may hold, beyond
  // what can be allocated. The message is made before the problem is freed.
  ExpectCli({"run --op stacked --groups 1 --N 2147483640 --K 32768", 1,
             "error: out of memory for B (70368743915520 bytes)"});
}

// ---------------------------------------------------------------------------------------
// Finding 2: products and sums of extents that overflowed.

TEST(Extents, SumsAndProductsThatOverflowAreRefused) {
  const CliCase cases[] = {
      {"run --op stacked --groups 9223372036854775807,9223372036854775807 --N 16 --K 16", 2,
       "the group extents sum past 9223372036854775807"},
      {"run --op dynamic --groups 5 --M 9223372036854775807 --N 16 --K 16", 2,
       "A [1, 9223372036854775807, 16] would hold more than 2^47 bytes"},
      {"run --op stacked --groups 1 --N 2147483640 --K 2147483632", 2,
       "B [1, 2147483640, 2147483632] would hold more than 2^47 bytes"},
      {"run --op mm --ranks 3d2d --groups 2147483647,1 --K 16", 2,
       "the group extents sum to more than 2147483647"},
      {"run --op mm --ranks 2d3d --groups 2147483647,1 --N 16 --K 16", 2,
       "the group extents sum past 2147483647"},
  };
  for (const CliCase& c : cases) ExpectCli(c);
}

TEST(Extents, PreshuffleOfAnImpossibleShapeIsRefusedAndWritesNothing) {
  std::string in = TempPath("empty.bin"), out = TempPath("never.bin");
  FILE* f = std::fopen(in.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  std::remove(out.c_str());
  // G N K wraps to 0 in 64 bits: the empty file used to "match" and gg exited 0.
  ExpectCli({("preshuffle --G 4294967296 --N 4294967296 --K 64 " + in + " " + out).c_str(), 2,
             "weights [4294967296, 4294967296, 64] would hold more than 2^47 bytes"});
  struct stat st;
  EXPECT_NE(stat(out.c_str(), &st), 0) << "an output file was written";
}

gg_context* MemoryContext() {
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context = nullptr;
  EXPECT_EQ(gg_context_create(&options, &context), GG_OK);
  return context;
}

TEST(Extents, TensorShapesWhoseProductOverflowsAreRefused) {
  Spec s;
  s.extents = {64, 64};
  ApiCase c(s);
  ASSERT_TRUE(c.ok());
  gg_context* context = MemoryContext();
  // x_scale [2^62 + 64, 4]: 2^64 + 256 elements, which wrapped to the 256 wanted.
  int64_t shape[2] = {(int64_t{1} << 62) + 64, 4};
  DLTensor& scale = c.tensor(GG_OPERAND_A_SCALE);
  int64_t* real_shape = scale.shape;
  int real_ndim = scale.ndim;
  scale.shape = shape;
  scale.ndim = 2;
  gg_status status = c.Call(context);
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  std::string message = TakeMessage(status);
  EXPECT_NE(message.find("x_scale [4611686018427387968, 4] would hold more than 2^47 bytes"),
            std::string::npos)
      << message;
  EXPECT_TRUE(c.Untouched());
  scale.shape = real_shape;
  scale.ndim = real_ndim;
  ASSERT_EQ(c.Call(context), GG_OK);
  c.ExpectMatchesReference();

  // The shuffle's weights likewise.
  int64_t weights[3] = {int64_t{1} << 32, int64_t{1} << 32, 64};
  uint8_t byte = 0;
  DLTensor src = {&byte, {kDLCPU, 0}, 3, {GG_DL_FLOAT8_E4M3FN, 8, 1}, weights, nullptr, 0};
  DLTensor dst = src;
  status = gg_preshuffle_b(&src, &dst);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("2^47 bytes"), std::string::npos);
  gg_context_destroy(context);
}

TEST(Extents, LaunchesWithAGroupedExtentNoMemoryHoldsAreRefused) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_PADDED, GG_TARGET_HOST, 16, 16, 5);
  void* buffers[GG_OPERAND_COUNT];
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) buffers[i] = &buffers[i];
  gg_status status = gg_launch_check(&d, buffers, INT64_MAX);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("2^47 bytes"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Finding 3: K = 0 failed to compile for AMD ("the grid holds no mma"). The contract
// zero-fills the output; kernels must compile for every target and layout.

TEST(ZeroK, CompilesAndZeroFillsOnEveryTargetAndLayout) {
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950})
    for (int layout = 0; layout < GG_LAYOUT_COUNT; ++layout) {
      gg_op_desc d = gg_test::ChipDesc((gg_layout)layout, chip, 256, 0, 3);
      gg_text code;
      gg_text_init(&code);
      gg_status status = gg_compile_emit(&d, GG_STAGE_BINARY, &code);
      EXPECT_EQ(status, GG_OK) << gg_target_name(chip) << " " << gg_layout_name(d.layout) << ": "
                               << gg_status_message(status);
      gg_status_free(status);
      gg_text_free(&code);
    }
  // Through sim and the host, with groups and without (2D-2D: K is the groups' sum).
  for (gg_target target : {GG_TARGET_HOST, GG_TARGET_GFX942, GG_TARGET_GFX950}) {
    Spec s;
    s.target = target;
    s.fp8 = target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
    s.extents = {17, 0, 40};
    s.k = 0;
    gg_test::ExpectPass(s);
    s.layout = GG_LAYOUT_K_OFFSETS;
    s.m = 64;
    s.extents = {};
    gg_test::ExpectPass(s);
    s.extents = {0, 0};
    gg_test::ExpectPass(s);
  }
}

// ---------------------------------------------------------------------------------------
// Finding 5: an unrolled K loop of 2^24 tiles grew memory without bound.

TEST(Compile, UnrolledLoopsAreBounded) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_HOST, 16, 2147483632, 1);
  d.tile = gg_tile_config_default();
  d.tile.loop = GG_LOOP_UNROLLED;
  auto compile = std::async(std::launch::async, [&] {
    gg_text text;
    gg_text_init(&text);
    gg_status status = gg_compile_emit(&d, GG_STAGE_TILES, &text);
    gg_text_free(&text);
    return status;
  });
  if (compile.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    ADD_FAILURE() << "the unrolled compile did not finish in 60 s";
    std::_Exit(1);  // the compile thread cannot be stopped
  }
  gg_status status = compile.get();
  ASSERT_NE(status, GG_OK);
  std::string message = TakeMessage(status);
  EXPECT_NE(message.find("an unrolled K loop holds at most 128 tiles (K <= 16384 at tile_k 128)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--loop rolled"), std::string::npos) << message;

  // The library refuses before compiling; the limit itself still unrolls.
  gg_context* context = MemoryContext();
  gg_kernel* kernel = nullptr;
  status = gg_kernel_get(context, &d, &kernel);
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  gg_status_free(status);
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.compiles, 0u);
  gg_context_destroy(context);
  d.k = 16384;
  EXPECT_EQ(gg_op_desc_validate(&d), GG_OK);
  ExpectCli({"compile --op stacked --groups 1 --N 16 --K 2147483632 --loop unrolled --emit tiles",
             2, "an unrolled K loop holds at most 128 tiles"});
}

// ---------------------------------------------------------------------------------------
// Finding 6: every tile scanned all G groups, so a launch cost O(G^2). Tiles now search
// the group ends (computed once per launch) in O(log G); sim counts the work exactly.

// Ops sim executes for a stacked launch of G groups, all empty but the first (256 rows).
gg_sim_stats SimStats(gg_target chip, int64_t groups) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, chip, 16, 16, groups);
  std::vector<int64_t> extents(size_t(groups), 0);
  extents[0] = 256;
  gg_problem_spec spec = {d, extents.data(), GG_DYNAMIC, 1, GG_DATA_EXACT, 1, 0};
  gg_problem* problem = nullptr;
  gg_sim_stats stats = {};
  EXPECT_EQ(gg_problem_create(&spec, &problem), GG_OK);
  MlirContext ctx;
  MlirModule module;
  gg_status status = gg_compile_module(&d, GG_STAGE_TARGET, &ctx, &module);
  EXPECT_EQ(status, GG_OK) << gg_status_message(status);
  if (!status) {
    status = gg_sim_run(mlirModuleGetOperation(module), &problem->desc, problem->buffers,
                        problem->m, 1, &stats);
    EXPECT_EQ(status, GG_OK) << gg_status_message(status);
    mlirModuleDestroy(module);
    mlirContextDestroy(ctx);
  }
  gg_status_free(status);
  gg_problem_destroy(problem);
  return stats;
}

TEST(Groups, ResolvingATileCostsLogGNotG) {
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950}) {
    gg_sim_stats few = SimStats(chip, 256), many = SimStats(chip, 4096);
    // The same two valid tiles in both; every other workgroup only resolves its group.
    ASSERT_GT(many.workgroups, few.workgroups);
    double marginal = double(many.ops_executed - few.ops_executed) /
                      double(many.workgroups - few.workgroups);
    // A search of 13 steps is a few hundred ops; a scan of 4096 groups was ~80,000.
    EXPECT_LT(marginal, 1000.0) << gg_target_name(chip) << ": ops per extra tile";
  }
}

// ---------------------------------------------------------------------------------------
// Finding 7: command-line numbers wrapped silently and --groups capped at 4096.

TEST(Cli, NumbersAreRangeChecked) {
  const CliCase cases[] = {
      {"run --op stacked --groups 16 --N 256 --K 256 --wpe 4294967298", 2,
       "error: --wpe takes a wave count from 0 to 8, not '4294967298'"},
      {"run --op stacked --groups 16 --N 256 --K 256 --tile 4294967424x128x128", 2,
       "error: --tile takes extents from 0 to 2147483647, not '4294967424'"},
      {"run --op stacked --groups 16 --N 256 --K 256 --tile 128x128", 2,
       "error: --tile takes MxNxK (e.g. 128x128x128), not '128x128'"},
      {"run --op stacked --groups 16 --N 4294967552 --K 256", 2,
       "error: --N takes a count from 0 to 2147483647, not '4294967552'"},
      {"run --op stacked --groups 16 --N 256 --K -16", 2,
       "error: --K takes a count from 0 to 2147483647, not '-16'"},
      {"run --op stacked --groups 16 --N 256 --K 256 --seed -1", 2,
       "error: --seed takes a number from 0 to 2^64 - 1, not '-1'"},
      {"run --op stacked --groups 16,-3 --N 256 --K 256", 2,
       "error: --groups takes extents from 0 to 9223372036854775807, not '-3'"},
      {"run --op stacked --groups 16, --N 256 --K 256", 2, "error: --groups ends with a comma"},
      {"run --op stacked --groups 16,,2 --N 256 --K 256", 2,
       "error: --groups takes comma-separated extents E or E*C"},
      {"run --op stacked --groups 4*2147483648 --N 256 --K 256", 2,
       "error: --groups takes repeat counts (E*C) from 0 to 2147483647"},
      {"compile --op stacked --groups 16 --N 256 --K 256 --emit hsaco --target host", 2,
       "error: --emit hsaco describes GPU machine code: add --target gfx942, gfx950 or sm_90a"},
      // More groups than the old 4096 cap, written with the repeat form.
      {"compile --op stacked --groups 64,0*4999 --N 256 --K 256 --emit op", 0, "g = 5000 : i64"},
      {"run --op stacked --groups 256,0*9999 --N 8 --K 16", 0, "PASS max_abs_err=0"},
  };
  for (const CliCase& c : cases) ExpectCli(c);
}

// ---------------------------------------------------------------------------------------
// Finding 8: AMD kernels took 32-bit offsets over whole operands. They now rebase buffer
// views per tile (large_operand_test runs operands past 4 GiB in sim); what one view
// still cannot reach is refused with a message.

TEST(AmdAddressing, SpansPastAViewAreRefused) {
  struct Case {
    int64_t n, k;
    gg_scaling scaling;
    const char* message;
  };
  const Case cases[] = {
      {256, 16777216, GG_SCALING_ROWWISE, "a tile's rows of A (tile_m x K) spans 2147483648 bytes"},
      {16777216, 256, GG_SCALING_ROWWISE,
       "a tile's rows of the output (tile_m x N bf16) spans 4294967296 bytes"},
  };
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950})
    for (const Case& c : cases) {
      gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, chip, c.n, c.k, 4);
      d.scaling = c.scaling;
      gg_status status = gg_op_desc_validate(&d);
      ASSERT_NE(status, GG_OK) << c.message;
      EXPECT_NE(TakeMessage(status).find(c.message), std::string::npos) << c.message;
      d.target = GG_TARGET_HOST;  // the host addresses in 64 bits
      EXPECT_EQ(gg_op_desc_validate(&d), GG_OK);
    }
  // Blockwise x_scale: a tile's K blocks lie M scales apart; checked at launch.
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, GG_TARGET_GFX950, 256, 8192, 4);
  d.scaling = GG_SCALING_BLOCKWISE;
  void* buffers[GG_OPERAND_COUNT];
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) buffers[i] = &buffers[i];
  EXPECT_EQ(gg_launch_check(&d, buffers, 1 << 20), GG_OK);
  gg_status status = gg_launch_check(&d, buffers, int64_t{1} << 24);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(TakeMessage(status).find("a tile's x_scale blocks (K/128 x M)"), std::string::npos);
}

}  // namespace
