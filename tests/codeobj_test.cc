// Every default configuration's code object (layout x scaling x chip), read back with
// LLVM's own tools: an AMDGPU ELF shared object for the right gfx target, the kernel
// descriptor symbol, the kernarg size gg's argument layout implies, no scratch, VGPRs
// within 256, and the MFMA and buffer instructions in the disassembly.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>

#include "compiler/compile.h"
#include "gg/op.h"
#include "tests/support/desc.h"
#include "tests/support/params.h"

namespace {

std::string Shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// The integer after `key` in text, or -1.
long long ValueAfter(const std::string& text, const std::string& key) {
  size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::atoll(text.c_str() + at + key.size());
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

class CodeObjects : public ::testing::TestWithParam<gg_test::LayoutScalingChip> {};

TEST_P(CodeObjects, ReadBackWithLlvmTools) {
  auto [layout, scaling, chip] = GetParam();
  gg_op_desc d = gg_test::ChipDesc(layout, chip, 512, 1024, 8);
  d.scaling = scaling;
  gg_text bytes;
  gg_text_init(&bytes);
  gg_status status = gg_compile_emit(&d, GG_STAGE_BINARY, &bytes);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  char name[256];
  gg_op_desc_kernel_name(&d, name, sizeof name);
  std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                     "/" + name + ".hsaco";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data, 1, bytes.length, f);
  std::fclose(f);
  gg_text_free(&bytes);

  std::string chip_name = gg_target_name(chip);
  std::string header = Shell("/usr/lib/llvm-22/bin/llvm-readelf -h " + path);
  EXPECT_NE(header.find("ELF64"), std::string::npos);
  EXPECT_NE(header.find("DYN (Shared object file)"), std::string::npos) << header;
  EXPECT_NE(header.find("EM_AMDGPU"), std::string::npos) << header;
  EXPECT_NE(header.find("AMDGPU - HSA"), std::string::npos) << header;
  EXPECT_NE(header.find(chip_name), std::string::npos) << header;

  std::string notes = Shell("/usr/lib/llvm-22/bin/llvm-readelf --notes " + path);
  EXPECT_NE(notes.find("amdhsa.target:   amdgcn-amd-amdhsa--" + chip_name), std::string::npos) << notes;
  EXPECT_NE(notes.find(".symbol:         " + std::string(name) + ".kd"), std::string::npos) << notes;
  // A memref argument of rank r is two 8-byte pointers, then 1 + 2r 8-byte indices
  // (offset, sizes, strides: the device's index is 64-bit, so operands past 4 GiB are
  // addressable); packed groups add the workspace of their ends (rank 1).
  long long kernarg = 0;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    gg_operand_shape s = gg_operand_shape_of(&d, (gg_operand)i, GG_DYNAMIC);
    if (s.present) kernarg += 16 + 8 * (1 + 2 * s.rank);
  }
  if (gg_layout_has_group_ends(d.layout)) {
    kernarg += 16 + 8 * 3;
    EXPECT_NE(notes.find(".symbol:         " + std::string(name) + "_group_ends.kd"),
              std::string::npos)
        << notes;
  } else {
    EXPECT_EQ(notes.find("_group_ends"), std::string::npos) << notes;
  }
  EXPECT_EQ(ValueAfter(notes, ".kernarg_segment_size:"), kernarg);
  EXPECT_EQ(ValueAfter(notes, ".private_segment_fixed_size:"), 0) << "scratch in use";
  long long vgpr = ValueAfter(notes, ".vgpr_count:");
  EXPECT_GT(vgpr, 0);
  EXPECT_LE(vgpr + std::max(0LL, ValueAfter(notes, ".agpr_count:")), 256);
  EXPECT_EQ(ValueAfter(notes, ".group_segment_fixed_size:"), gg_amd_lds_bytes(&d));
  EXPECT_NE(notes.find(".reqd_workgroup_size:\n      - 256\n      - 1\n      - 1"), std::string::npos)
      << "the kernel runs 256 threads";

  std::string disassembly = Shell("/usr/lib/llvm-22/bin/llvm-objdump -d --mcpu=" + chip_name + " " + path);
  const char* mfma = chip == GG_TARGET_GFX950 ? "v_mfma_f32_16x16x128_f8f6f4" : "v_mfma_f32_16x16x32_fp8_fp8";
  EXPECT_GT(Count(disassembly, mfma), 0u) << mfma;
  EXPECT_GT(Count(disassembly, "buffer_load_dwordx4"), 0u);
  EXPECT_GT(Count(disassembly, "buffer_store_dwordx4"), 0u);
  EXPECT_GT(Count(disassembly, "ds_write_b128"), 0u);
  EXPECT_GT(Count(disassembly, "s_barrier"), 0u);
  EXPECT_EQ(Count(disassembly, "scratch_"), 0u);
}

INSTANTIATE_TEST_SUITE_P(Defaults, CodeObjects, gg_test::EveryLayoutScalingChip(),
                         gg_test::LayoutScalingChipName);

}  // namespace
