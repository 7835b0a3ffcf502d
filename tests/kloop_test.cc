// K-loop forms: rolled (prefetch, peeled tail) and unrolled give the same bits, on the host
// and in sim, for 1 to 8 K tiles and a K tail on every layout whose K is static; the rolled
// form's code size does not move with K; waves_per_eu reaches the code object.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>

#include "compiler/amdgpu.h"
#include "compiler/compile.h"
#include "tests/support/test_util.h"
#include "tests/support/desc.h"

namespace {

using gg_test::RunCase;
using gg_test::Spec;

Spec ForLayout(gg_layout layout, int64_t k, gg_data_kind data) {
  Spec s;
  s.layout = layout;
  s.k = k;
  s.n = 192;  // a column tail too
  s.data = data;
  switch (layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS: s.extents = {40, 0, 90}; break;
    case GG_LAYOUT_PADDED: s.extents = {70, 3}; s.m = 80; break;
    case GG_LAYOUT_BATCHED: s.extents = {50, 50}; s.m = 50; break;
    default: s.extents = {100, 92}; s.m = 60; s.n = 192; break;  // n_offsets: N = 192
  }
  return s;
}

// K values: 1 to 8 tiles of 128, and a tail (3 tiles and 48).
const int64_t kKs[] = {128, 256, 384, 512, 640, 768, 896, 1024, 432};

using Param = std::tuple<gg_layout, gg_target>;

class LoopForms : public ::testing::TestWithParam<Param> {};

TEST_P(LoopForms, RolledAndUnrolledAreBitIdentical) {
  auto [layout, target] = GetParam();
  for (int64_t k : kKs) {
    Spec s = ForLayout(layout, k, GG_DATA_RANDOM);
    s.target = target;
    s.fp8 = target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
    s.tile = {128, 128, 128, 2, GG_LOOP_ROLLED, 0};
    gg_check_result rolled = RunCase(s);
    s.tile.loop = GG_LOOP_UNROLLED;
    gg_check_result unrolled = RunCase(s);
    EXPECT_TRUE(rolled.passed) << s.command();
    EXPECT_TRUE(unrolled.passed) << s.command();
    EXPECT_EQ(rolled.checksum, unrolled.checksum) << "K=" << k << "  " << s.command();
  }
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  auto [layout, target] = info.param;
  return std::string(gg_layout_name(layout)) + "_" + gg_target_name(target);
}

INSTANTIATE_TEST_SUITE_P(
    StaticK, LoopForms,
    ::testing::Combine(::testing::Values(GG_LAYOUT_SIZES, GG_LAYOUT_OFFSETS, GG_LAYOUT_PADDED,
                                         GG_LAYOUT_BATCHED, GG_LAYOUT_N_OFFSETS),
                       ::testing::Values(GG_TARGET_HOST, GG_TARGET_GFX942, GG_TARGET_GFX950)),
    ParamName);

gg_isa_stats Stats(gg_target chip, int64_t k, gg_loop_form loop, int wpe) {
  gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, chip, 4096, k, 8);
  d.tile = {128, 128, 128, wpe, loop, 0};
  gg_text isa;
  gg_text_init(&isa);
  gg_isa_stats stats = {};
  gg_status status = gg_compile_emit(&d, GG_STAGE_ISA, &isa);
  if (!status) status = gg_isa_stats_parse(isa.data, isa.length, &stats);
  EXPECT_EQ(status, GG_OK) << gg_status_message(status);
  gg_status_free(status);
  gg_text_free(&isa);
  return stats;
}

TEST(LoopForms, RolledCodeSizeIsFlatInK) {
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950}) {
    gg_isa_stats short_k = Stats(chip, 1024, GG_LOOP_ROLLED, 2);
    gg_isa_stats long_k = Stats(chip, 16384, GG_LOOP_ROLLED, 2);
    double change = (double)std::abs(long_k.isa_lines - short_k.isa_lines) / short_k.isa_lines;
    EXPECT_LT(change, 0.10) << gg_target_name(chip) << ": " << short_k.isa_lines << " ISA lines at K=1024, "
                            << long_k.isa_lines << " at K=16384";
    EXPECT_GT(long_k.mfma_in_loop, 0) << "the K loop must stay a loop";
    // Unrolled grows with K.
    EXPECT_GT(Stats(chip, 4096, GG_LOOP_UNROLLED, 2).isa_lines, 2 * short_k.isa_lines);
  }
}

// The descriptor the code object carries (symbol <kernel>_gg_descriptor in .rodata).
std::string EmbeddedDescriptor(const gg_op_desc& d) {
  gg_text bytes;
  gg_text_init(&bytes);
  gg_status status = gg_compile_emit(&d, GG_STAGE_BINARY, &bytes);
  EXPECT_EQ(status, GG_OK) << gg_status_message(status);
  gg_status_free(status);
  std::string elf(bytes.data ? bytes.data : "", bytes.length);
  gg_text_free(&bytes);
  size_t at = elf.find("gg-kernel v1 ");
  if (at == std::string::npos) return "";
  return std::string(elf.c_str() + at);
}

TEST(LoopForms, WavesPerEuReachesTheCodeObject) {
  for (gg_target chip : {GG_TARGET_GFX942, GG_TARGET_GFX950}) {
    for (int wpe : {0, 1, 2, 4}) {
      gg_op_desc d = gg_test::ChipDesc(GG_LAYOUT_SIZES, chip, 256, 512, 4);
      d.tile = {128, 128, 128, wpe, GG_LOOP_ROLLED, 0};
      std::string text = EmbeddedDescriptor(d);
      gg_op_desc parsed;
      gg_status status = gg_op_desc_parse(text.c_str(), &parsed);
      ASSERT_EQ(status, GG_OK) << gg_status_message(status) << ": '" << text << "'";
      EXPECT_EQ(parsed.tile.waves_per_eu, wpe);
      EXPECT_EQ(parsed.target, chip);
      char name[256];
      gg_op_desc_kernel_name(&d, name, sizeof name);
      EXPECT_NE(std::strstr(name, ("_w" + std::to_string(wpe) + "_").c_str()), nullptr) << name;
      // The register budget honours it (512 unified registers per lane shared by wpe
      // waves) where LDS allows that many waves: a workgroup of 4 waves uses 32 KiB (one
      // buffer) or 64 KiB (two, where they fit beside wpe workgroups), so gfx942's 64 KiB
      // hold 2 per CU, i.e. 2 waves per SIMD, and LLVM clamps the request.
      gg_isa_stats stats = Stats(chip, 512, GG_LOOP_ROLLED, wpe);
      int64_t lds_waves = gg_lds_capacity(chip) / gg_amd_lds_bytes(&d);
      if (wpe > 0 && wpe <= lds_waves) {
        EXPECT_LE(stats.vgpr + std::max(stats.agpr, 0), 512 / wpe)
            << gg_target_name(chip) << " wpe=" << wpe;
      }
      // And the kernel attribute, LLVM's amdgpu-waves-per-eu: the request, capped at the
      // workgroups (one wave per SIMD each) the LDS holds, so that LLVM neither budgets
      // registers for waves that cannot be resident nor warns it missed the target.
      gg_text ir;
      gg_text_init(&ir);
      ASSERT_EQ(gg_compile_emit(&d, GG_STAGE_LLVM_IR, &ir), GG_OK);
      int64_t expected = wpe > lds_waves && lds_waves > 0 ? lds_waves : wpe;
      std::string attribute = "\"amdgpu-waves-per-eu\"=\"" + std::to_string(expected) + "\"";
      EXPECT_EQ(std::strstr(gg_text_str(&ir), attribute.c_str()) != nullptr, wpe > 0) << attribute;
      gg_text_free(&ir);
    }
  }
}

TEST(LoopForms, KOffsetsIsAlwaysRolled) {
  Spec s;
  s.layout = GG_LAYOUT_K_OFFSETS;
  s.extents = {100, 200};
  s.m = 64;
  s.tile = {128, 128, 128, 2, GG_LOOP_UNROLLED, 0};
  gg_op_desc d = s.desc();
  gg_status status = gg_op_desc_validate(&d);
  ASSERT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(gg_status_message(status), "cannot be unrolled"), nullptr);
  gg_status_free(status);
}

TEST(Descriptor, FormatAndParseRoundTrip) {
  gg_op_desc d = {};
  d.layout = GG_LAYOUT_N_OFFSETS;
  d.scaling = GG_SCALING_BLOCKWISE;
  d.fp8 = GG_FP8_E4M3FNUZ;
  d.n = 768;
  d.k = 256;
  d.g = 3;
  d.tile = {64, 256, 128, 0, GG_LOOP_UNROLLED, 0};
  d.target = GG_TARGET_GFX942;
  char text[512];
  gg_op_desc_format(&d, text, sizeof text);
  gg_op_desc back;
  ASSERT_EQ(gg_op_desc_parse(text, &back), GG_OK);
  EXPECT_EQ(std::memcmp(&d, &back, sizeof d), 0) << text;
  gg_status status = gg_op_desc_parse("gg-kernel v1 layout=sizes scaling=sideways", &back);
  EXPECT_NE(std::strstr(gg_status_message(status), "bad scaling 'sideways'"), nullptr);
  gg_status_free(status);
}

}  // namespace
