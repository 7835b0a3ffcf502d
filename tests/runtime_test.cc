// The runtime's pure parts against hand-computed bytes: the AQL packet, the kernel
// argument image of our own code objects, the code object metadata reader (and its
// refusal of damaged files), and the status HSA calls return on a machine without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "gg/op.h"
#include "runtime/code_object.h"
#include "runtime/dispatch.h"
#include "runtime/hsa.h"
#include "tests/support/le.h"
#include "tests/support/desc.h"

namespace {

using gg_test::Le;

gg_op_desc Stacked(gg_target target) { return gg_test::ChipDesc(GG_LAYOUT_SIZES, target, 256, 512, 3); }

std::vector<uint8_t> CodeObject(const gg_op_desc& d) {
  gg_text bytes;
  gg_text_init(&bytes);
  gg_status status = gg_compile_emit(&d, GG_STAGE_BINARY, &bytes);
  EXPECT_EQ(status, GG_OK) << gg_status_message(status);
  gg_status_free(status);
  std::vector<uint8_t> out(bytes.data, bytes.data + bytes.length);
  gg_text_free(&bytes);
  return out;
}

TEST(Aql, HeaderAndSetup) {
  // type KERNEL_DISPATCH (2), barrier (bit 8), system-scope acquire (2 << 9) and release
  // (2 << 11) fences.
  EXPECT_EQ(gg_aql_header(), 2 | (1 << 8) | (2 << 9) | (2 << 11));
  EXPECT_EQ(gg_aql_header(), 0x1502);
  EXPECT_EQ(gg_aql_setup(), 3);  // three grid dimensions
}

TEST(Aql, PacketBytes) {
  gg_kernel_info k = {};
  k.group_segment_size = 32768;
  k.private_segment_size = 16;
  const int64_t grid[3] = {2, 9, 4};
  gg_aql_packet p;
  memset(&p, 0x5A, sizeof p);
  ASSERT_EQ(gg_aql_build(&p, grid, &k, 0x1122334455667788ull, 0x7F0000001000ull, 0xABCDull),
            GG_OK);
  const uint8_t* b = reinterpret_cast<const uint8_t*>(&p);
  EXPECT_EQ(Le(b + 0, 4), 0u) << "header and setup are published separately";
  EXPECT_EQ(Le(b + 4, 2), 256u);  // workgroup x
  EXPECT_EQ(Le(b + 6, 2), 1u);
  EXPECT_EQ(Le(b + 8, 2), 1u);
  EXPECT_EQ(Le(b + 10, 2), 0u);
  EXPECT_EQ(Le(b + 12, 4), 512u);  // grid x in work-items: 2 workgroups of 256
  EXPECT_EQ(Le(b + 16, 4), 9u);
  EXPECT_EQ(Le(b + 20, 4), 4u);
  EXPECT_EQ(Le(b + 24, 4), 16u);     // private segment
  EXPECT_EQ(Le(b + 28, 4), 32768u);  // group segment
  EXPECT_EQ(Le(b + 32, 8), 0x1122334455667788ull);
  EXPECT_EQ(Le(b + 40, 8), 0x7F0000001000ull);
  EXPECT_EQ(Le(b + 48, 8), 0u);
  EXPECT_EQ(Le(b + 56, 8), 0xABCDull);
}

TEST(Aql, GridTooLargeIsRefused) {
  gg_kernel_info k = {};
  gg_aql_packet p;
  const int64_t grid[3] = {int64_t{1} << 24, 1, 1};  // 2^32 work-items
  gg_status status = gg_aql_build(&p, grid, &k, 1, 2, 3);
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(std::string(gg_status_message(status)).find("exceeds"), std::string::npos);
  gg_status_free(status);
}

class CodeObjectTest : public ::testing::TestWithParam<gg_target> {};

TEST_P(CodeObjectTest, MetadataOfOurKernel) {
  gg_op_desc d = Stacked(GetParam());
  std::vector<uint8_t> elf = CodeObject(d);
  ASSERT_FALSE(elf.empty());
  gg_code_object_info info;
  gg_status status = gg_code_object_read(elf.data(), elf.size(), &info);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  char name[256];
  gg_op_desc_kernel_name(&d, name, sizeof name);
  EXPECT_EQ(info.machine, 224u);  // EM_AMDGPU
  EXPECT_EQ(info.elf_type, 3u);   // ET_DYN
  EXPECT_EQ(std::string(info.target),
            std::string("amdgcn-amd-amdhsa--") + gg_target_name(GetParam()));
  EXPECT_STREQ(info.kernel.name, name);
  EXPECT_EQ(std::string(info.kernel.symbol), std::string(name) + ".kd");
  // Six memrefs (ranks 2, 3, 1, 2, 1, 2) and the workspace of group ends (rank 1): 16
  // pointer bytes and 8 (1 + 2 r) index bytes each: 56 + 72 + 40 + 56 + 40 + 56 + 40.
  EXPECT_EQ(info.kernel.kernarg_size, 360u);
  EXPECT_EQ(info.kernel.kernarg_align, 8u);
  EXPECT_EQ(info.kernel.arg_count, 45u);  // 7 x 3 + 2 (2 + 3 + 1 + 2 + 1 + 2 + 1)
  // Packed groups: the group ends kernel takes the same arguments.
  ASSERT_TRUE(info.has_group_ends);
  EXPECT_EQ(std::string(info.group_ends.name), std::string(name) + "_group_ends");
  EXPECT_EQ(std::string(info.group_ends.symbol), std::string(name) + "_group_ends.kd");
  EXPECT_EQ(info.group_ends.kernarg_size, 360u);
  EXPECT_EQ(info.group_ends.arg_count, 45u);
  EXPECT_EQ(info.group_ends.group_segment_size, 256u * 8);  // one partial end per thread
  EXPECT_EQ(info.group_ends.private_segment_size, 0u);
  EXPECT_EQ(info.group_ends.reqd_workgroup_size[0], 256u);
  EXPECT_EQ(info.kernel.private_segment_size, 0u);
  EXPECT_GT(info.kernel.group_segment_size, 0u);
  EXPECT_LE(info.kernel.group_segment_size, 65536u);
  EXPECT_EQ(info.kernel.wavefront_size, 64u);
  EXPECT_GT(info.kernel.vgpr_count, 0u);
  EXPECT_LE(info.kernel.vgpr_count, 256u);
  EXPECT_EQ(info.kernel.reqd_workgroup_size[0], 256u);
  // The descriptor travels with the code object and parses back to the same kernel.
  gg_op_desc parsed;
  status = gg_op_desc_parse(info.descriptor, &parsed);
  ASSERT_EQ(status, GG_OK) << info.descriptor;
  char parsed_name[256];
  gg_op_desc_kernel_name(&parsed, parsed_name, sizeof parsed_name);
  EXPECT_STREQ(parsed_name, name);
}

TEST_P(CodeObjectTest, KernargImageByHand) {
  gg_op_desc d = Stacked(GetParam());
  std::vector<uint8_t> elf = CodeObject(d);
  gg_code_object_info info;
  ASSERT_EQ(gg_code_object_read(elf.data(), elf.size(), &info), GG_OK);
  void* buffers[GG_OPERAND_COUNT];
  for (int i = 0; i < GG_OPERAND_COUNT; ++i)
    buffers[i] = reinterpret_cast<void*>(uintptr_t{0x7F0000000000} + (uintptr_t(i) << 20));
  const int64_t m = 137, grid[3] = {2, 4, 1};
  void* workspace = reinterpret_cast<void*>(uintptr_t{0x7F0000800000});
  std::vector<uint8_t> image(512, 0xEE);
  gg_status status = gg_kernarg_build(&info.kernel, &d, buffers, m, workspace, grid, image.data(),
                                      image.size());
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  struct Field {
    int offset, size;
    uint64_t value;
  };
  const uint64_t base = 0x7F0000000000;
  auto ptr = [&](int i) { return base + (uint64_t(i) << 20); };
  const Field fields[] = {
      // A [137, 512]
      {0, 8, ptr(0)}, {8, 8, ptr(0)}, {16, 8, 0}, {24, 8, 137}, {32, 8, 512}, {40, 8, 512}, {48, 8, 1},
      // B [3, 256, 512]
      {56, 8, ptr(1)}, {64, 8, ptr(1)}, {72, 8, 0}, {80, 8, 3}, {88, 8, 256}, {96, 8, 512},
      {104, 8, 256 * 512}, {112, 8, 512}, {120, 8, 1},
      // a_scale [137]
      {128, 8, ptr(2)}, {136, 8, ptr(2)}, {144, 8, 0}, {152, 8, 137}, {160, 8, 1},
      // b_scale [3, 256]
      {168, 8, ptr(3)}, {176, 8, ptr(3)}, {184, 8, 0}, {192, 8, 3}, {200, 8, 256}, {208, 8, 256},
      {216, 8, 1},
      // M_sizes [3]
      {224, 8, ptr(4)}, {232, 8, ptr(4)}, {240, 8, 0}, {248, 8, 3}, {256, 8, 1},
      // out [137, 256]
      {264, 8, ptr(5)}, {272, 8, ptr(5)}, {280, 8, 0}, {288, 8, 137}, {296, 8, 256}, {304, 8, 256},
      {312, 8, 1},
      // the workspace: 3 group ends
      {320, 8, 0x7F0000800000}, {328, 8, 0x7F0000800000}, {336, 8, 0}, {344, 8, 3}, {352, 8, 1},
  };
  std::vector<bool> covered(360, false);
  for (const Field& f : fields) {
    EXPECT_EQ(Le(&image[f.offset], f.size), f.value) << "offset " << f.offset;
    for (int b = 0; b < f.size; ++b) covered[f.offset + b] = true;
  }
  for (int b = 0; b < 360; ++b)
    if (!covered[b]) {
      EXPECT_EQ(image[b], 0) << "padding byte " << b << " is not zero";
    }
  EXPECT_EQ(image[360], 0xEE) << "written past the kernarg segment";
}

TEST_P(CodeObjectTest, KernargRefusals) {
  gg_op_desc d = Stacked(GetParam());
  std::vector<uint8_t> elf = CodeObject(d);
  gg_code_object_info info;
  ASSERT_EQ(gg_code_object_read(elf.data(), elf.size(), &info), GG_OK);
  void* buffers[GG_OPERAND_COUNT] = {};
  const int64_t grid[3] = {1, 1, 1};
  std::vector<uint8_t> image(512);
  void* workspace = reinterpret_cast<void*>(uintptr_t{0x1000});
  // A buffer smaller than the segment.
  gg_status status =
      gg_kernarg_build(&info.kernel, &d, buffers, 1, workspace, grid, image.data(), 100);
  EXPECT_NE(status, GG_OK);
  gg_status_free(status);
  // Packed groups without the workspace for their ends.
  status = gg_kernarg_build(&info.kernel, &d, buffers, 1, nullptr, grid, image.data(), image.size());
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(std::string(gg_status_message(status)).find("workspace"), std::string::npos);
  gg_status_free(status);
  // The code object of another layout (batched: two memrefs fewer).
  gg_op_desc other = d;
  other.layout = GG_LAYOUT_BATCHED;
  status = gg_kernarg_build(&info.kernel, &other, buffers, 1, nullptr, grid, image.data(),
                            image.size());
  EXPECT_NE(status, GG_OK);
  gg_status_free(status);
}

INSTANTIATE_TEST_SUITE_P(Chips, CodeObjectTest,
                         ::testing::Values(GG_TARGET_GFX942, GG_TARGET_GFX950),
                         [](const auto& info) { return std::string(gg_target_name(info.param)); });

TEST(Kernarg, HiddenArgumentsFilled) {
  gg_op_desc d = Stacked(GG_TARGET_GFX950);
  d.layout = GG_LAYOUT_BATCHED;
  gg_kernel_info k = {};
  snprintf(k.name, sizeof k.name, "synthetic");
  // Five memrefs laid out as the backend does, then code object v5's hidden arguments.
  uint32_t offset = 0;
  const int ranks[] = {3, 3, 2, 2, 3};
  for (int r : ranks) {
    offset = (offset + 7) & ~7u;
    for (int i = 0; i < 2; ++i, offset += 8) k.args[k.arg_count++] = {offset, 8, "global_buffer"};
    for (int i = 0; i < 1 + 2 * r; ++i, offset += 8) k.args[k.arg_count++] = {offset, 8, "by_value"};
  }
  offset = (offset + 7) & ~7u;
  const uint32_t hidden = offset;
  k.args[k.arg_count++] = {hidden + 0, 4, "hidden_block_count_x"};
  k.args[k.arg_count++] = {hidden + 4, 4, "hidden_block_count_y"};
  k.args[k.arg_count++] = {hidden + 8, 4, "hidden_block_count_z"};
  k.args[k.arg_count++] = {hidden + 12, 2, "hidden_group_size_x"};
  k.args[k.arg_count++] = {hidden + 14, 2, "hidden_group_size_y"};
  k.args[k.arg_count++] = {hidden + 16, 2, "hidden_group_size_z"};
  k.args[k.arg_count++] = {hidden + 24, 8, "hidden_printf_buffer"};
  k.kernarg_size = hidden + 32;
  void* buffers[GG_OPERAND_COUNT] = {};
  const int64_t grid[3] = {5, 6, 7};
  std::vector<uint8_t> image(k.kernarg_size, 0xEE);
  gg_status status = gg_kernarg_build(&k, &d, buffers, 64, nullptr, grid, image.data(), image.size());
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  EXPECT_EQ(Le(&image[hidden + 0], 4), 5u);
  EXPECT_EQ(Le(&image[hidden + 4], 4), 6u);
  EXPECT_EQ(Le(&image[hidden + 8], 4), 7u);
  EXPECT_EQ(Le(&image[hidden + 12], 2), 256u);
  EXPECT_EQ(Le(&image[hidden + 14], 2), 1u);
  EXPECT_EQ(Le(&image[hidden + 16], 2), 1u);
  EXPECT_EQ(Le(&image[hidden + 24], 8), 0u) << "other hidden arguments stay zero";

  // An argument gg does not know how to fill is refused.
  snprintf(k.args[k.arg_count - 1].value_kind, sizeof k.args[0].value_kind, "by_value");
  status = gg_kernarg_build(&k, &d, buffers, 64, nullptr, grid, image.data(), image.size());
  ASSERT_NE(status, GG_OK);
  EXPECT_NE(std::string(gg_status_message(status)).find("does not provide"), std::string::npos);
  gg_status_free(status);
}

TEST(CodeObjectReader, DamagedFilesAreRefusedNotCrashed) {
  std::vector<uint8_t> elf = CodeObject(Stacked(GG_TARGET_GFX950));
  gg_code_object_info info;
  // Every truncation is an error.
  for (size_t size = 0; size < elf.size(); size += 1 + size / 16) {
    gg_status status = gg_code_object_read(elf.data(), size, &info);
    EXPECT_NE(status, GG_OK) << "truncated to " << size;
    gg_status_free(status);
  }
  // Not an ELF, and an ELF for another machine.
  std::vector<uint8_t> bad = elf;
  bad[1] = 'X';
  gg_status status = gg_code_object_read(bad.data(), bad.size(), &info);
  EXPECT_NE(status, GG_OK);
  gg_status_free(status);
  bad = elf;
  bad[18] = 62;  // EM_X86_64
  status = gg_code_object_read(bad.data(), bad.size(), &info);
  EXPECT_NE(status, GG_OK);
  gg_status_free(status);
  // Flipped bytes anywhere: an error or a successful read, never a crash.
  uint64_t state = 12345;
  for (int trial = 0; trial < 2000; ++trial) {
    bad = elf;
    for (int flips = 0; flips < 4; ++flips) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      bad[(state >> 17) % bad.size()] ^= uint8_t(1 + (state >> 40) % 255);
    }
    gg_status_free(gg_code_object_read(bad.data(), bad.size(), &info));
  }
}

TEST(Hsa, NoGpuIsUnavailable) {
  if (access("/dev/kfd", F_OK) == 0) GTEST_SKIP() << "this machine has an AMD GPU driver";
  ASSERT_EQ(getenv("GG_HSA_LIBRARY"), nullptr);
  for (int attempt = 0; attempt < 2; ++attempt) {  // the answer is the same every time
    gg_hsa_device* device = reinterpret_cast<gg_hsa_device*>(1);
    gg_status status = gg_hsa_device_open(0, &device);
    ASSERT_NE(status, GG_OK);
    EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
    EXPECT_NE(std::string(gg_status_message(status)).find("/dev/kfd"), std::string::npos)
        << gg_status_message(status);
    EXPECT_EQ(device, nullptr);
    gg_status_free(status);
  }
}

}  // namespace
