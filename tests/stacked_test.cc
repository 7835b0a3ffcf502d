// f8f8bf16_rowwise_grouped_stacked (the sizes layout) on the host against the reference.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "tests/reference/problem.h"
#include "tests/support/test_util.h"

namespace {

using gg_test::ExpectPass;
using gg_test::RunCase;
using gg_test::Spec;

Spec Stacked(std::vector<int64_t> groups, int64_t n, int64_t k, gg_data_kind data) {
  Spec s;
  s.layout = GG_LAYOUT_SIZES;
  s.extents = std::move(groups);
  s.n = n;
  s.k = k;
  s.data = data;
  return s;
}

struct GroupCase {
  const char* name;
  std::vector<int64_t> groups;
};

class StackedGroups : public ::testing::TestWithParam<GroupCase> {};

TEST_P(StackedGroups, ExactDataIsBitIdentical) {
  ExpectPass(Stacked(GetParam().groups, 256, 512, GG_DATA_EXACT));
}

TEST_P(StackedGroups, RandomDataWithinOneUlp) {
  Spec s = Stacked(GetParam().groups, 256, 512, GG_DATA_RANDOM);
  s.seed = 11;
  ExpectPass(s);
}

INSTANTIATE_TEST_SUITE_P(
    Stacked, StackedGroups,
    ::testing::Values(GroupCase{"issue_example", {0, 1, 130, 64}},
                      GroupCase{"empty_middle", {40, 0, 0, 90}},
                      GroupCase{"first_and_last_empty", {0, 77, 128, 0}},
                      GroupCase{"one_row_each", {1, 1, 1, 1}},
                      GroupCase{"smaller_than_tile", {3, 17, 100}},
                      GroupCase{"not_multiples_of_tile", {129, 255, 257}},
                      GroupCase{"single_group", {300}},
                      GroupCase{"all_empty", {0, 0, 0}}),
    [](const ::testing::TestParamInfo<GroupCase>& info) { return std::string(info.param.name); });

TEST(Stacked, IssueCommandLinePasses) {
  // gg run --op stacked --groups 0,1,130,64 --N 256 --K 512 --target host --data exact
  gg_check_result r = RunCase(Stacked({0, 1, 130, 64}, 256, 512, GG_DATA_EXACT));
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.compare.max_abs_err, 0.0);
  EXPECT_EQ(r.compare.elements, 195 * 256);
  gg_check_result_free(&r);
}

TEST(Stacked, RowsPastTheGroupsAreNeverWritten) {
  Spec s = Stacked({30, 0, 100}, 256, 256, GG_DATA_EXACT);
  s.m = 130 + 70;  // 70 rows belong to no group
  gg_check_result r = RunCase(s, /*keep_output=*/true);
  ASSERT_TRUE(r.passed) << s.command();
  ASSERT_NE(r.output, nullptr);
  for (int64_t i = 130 * 256; i < 200 * 256; ++i)
    ASSERT_EQ(r.output[i], GG_POISON_BF16) << "element " << i << " was written";
  for (int64_t i = 0; i < 130 * 256; ++i) ASSERT_NE(r.output[i], GG_POISON_BF16) << i;
  gg_check_result_free(&r);
}

TEST(Stacked, GroupsPastTheRowsAreClampedNotOverrun) {
  // The counts sum past total_M: rows beyond it do not exist and must not be touched.
  Spec s = Stacked({100, 100, 100}, 256, 256, GG_DATA_EXACT);
  s.m = 150;
  ExpectPass(s);
}

TEST(Stacked, NAndKTails) {
  ExpectPass(Stacked({50, 200}, 200, 400, GG_DATA_EXACT));   // N, K not tile multiples
  ExpectPass(Stacked({50, 200}, 72, 48, GG_DATA_RANDOM));    // smaller than one tile
}

TEST(Stacked, EveryTileCandidate) {
  for (int tm : {64, 128, 256})
    for (int tn : {64, 128, 256})
      for (int tk : {128, 256}) {
        Spec s = Stacked({0, 70, 129}, 192, 384, GG_DATA_EXACT);
        s.tile = {tm, tn, tk, 0, GG_LOOP_ROLLED, 0};
        ExpectPass(s);
      }
}

TEST(Stacked, BothFp8Flavours) {
  Spec s = Stacked({0, 1, 130, 64}, 256, 512, GG_DATA_EXACT);
  s.fp8 = GG_FP8_E4M3FNUZ;
  ExpectPass(s);
  s.data = GG_DATA_RANDOM;
  ExpectPass(s);
}

TEST(Stacked, RolledAndUnrolledAreBitIdentical) {
  for (int64_t k : {128, 256, 384, 512, 640, 1024, 400}) {
    Spec s = Stacked({5, 0, 140}, 256, k, GG_DATA_RANDOM);
    gg_check_result rolled = RunCase(s);
    s.tile = {128, 128, 128, 2, GG_LOOP_UNROLLED, 0};
    gg_check_result unrolled = RunCase(s);
    EXPECT_TRUE(rolled.passed && unrolled.passed) << s.command();
    EXPECT_EQ(rolled.checksum, unrolled.checksum) << "K=" << k;
  }
}

TEST(Stacked, ZeroExtentsZeroFillAndLaunchNothing) {
  ExpectPass(Stacked({0, 0}, 256, 256, GG_DATA_EXACT));  // total_M = 0
  ExpectPass(Stacked({10, 20}, 256, 0, GG_DATA_EXACT));  // K = 0: output zero-filled
  ExpectPass(Stacked({10, 20}, 0, 256, GG_DATA_EXACT));  // N = 0: nothing to write
  ExpectPass(Stacked({}, 256, 256, GG_DATA_EXACT));      // G = 0
}

// ---------------------------------------------------------------------------------------
// Bad descriptors: a status with the broken rule, and nothing compiled or run.

struct BadCase {
  const char* name;
  gg_op_desc desc;
  const char* rule;
};

gg_op_desc Good() {
  gg_op_desc d = {};
  d.layout = GG_LAYOUT_SIZES;
  d.n = 256;
  d.k = 512;
  d.g = 4;
  return d;
}

std::vector<BadCase> BadCases() {
  std::vector<BadCase> cases;
  gg_op_desc d = Good();
  d.k = 200;
  cases.push_back({"k_not_multiple_of_16", d, "K must be a multiple of 16"});
  d = Good();
  d.n = 100;
  cases.push_back({"n_not_multiple_of_8", d, "N must be a multiple of 8"});
  d = Good();
  d.tile = {96, 128, 128, 0, GG_LOOP_ROLLED, 0};
  cases.push_back({"tile_not_a_candidate", d, "is not a candidate"});
  d = Good();
  d.n = -8;
  cases.push_back({"negative_extent", d, "must not be negative"});
  d = Good();
  d.scaling = GG_SCALING_BLOCKWISE;
  d.k = 400;
  cases.push_back({"blockwise_k_mid_block", d, "multiple of 128 (scale_block_k)"});
  d = Good();
  d.target = GG_TARGET_GFX942;
  d.fp8 = GG_FP8_E4M3FN;
  cases.push_back({"wrong_fp8_for_gfx942", d, "gfx942 takes float8_e4m3fnuz"});
  d = Good();
  d.layout = GG_LAYOUT_K_OFFSETS;
  d.tile = {128, 128, 128, 0, GG_LOOP_UNROLLED, 0};
  cases.push_back({"unrolled_k_offsets", d, "cannot be unrolled"});
  d = Good();
  d.layout = GG_LAYOUT_N_OFFSETS;
  d.b_layout = GG_B_PRESHUFFLED;
  cases.push_back({"preshuffled_n_offsets", d, "preshuffled B needs each group to own"});
  d = Good();
  d.layout = (gg_layout)17;
  cases.push_back({"unknown_layout", d, "unknown layout"});
  return cases;
}

class BadDescriptors : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadDescriptors, RejectedWithTheRuleAndNothingCompiled) {
  const BadCase& c = GetParam();
  gg_status status = gg_op_desc_validate(&c.desc);
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(gg_status_message(status), c.rule), nullptr) << gg_status_message(status);
  gg_status_free(status);

  gg_host_kernel* kernel = reinterpret_cast<gg_host_kernel*>(0x1);
  status = gg_host_kernel_create(&c.desc, &kernel);
  ASSERT_NE(status, GG_OK);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(gg_status_message(status), c.rule), nullptr) << gg_status_message(status);
  EXPECT_EQ(kernel, nullptr);
  gg_status_free(status);
}

INSTANTIATE_TEST_SUITE_P(
    Stacked, BadDescriptors, ::testing::ValuesIn(BadCases()),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(Stacked, BadLaunchArgumentsWriteNothing) {
  gg_op_desc d = Good();
  gg_host_kernel* kernel = nullptr;
  ASSERT_EQ(gg_host_kernel_create(&d, &kernel), GG_OK);
  std::vector<uint16_t> out(64 * 256, GG_POISON_BF16);
  void* buffers[GG_OPERAND_COUNT] = {nullptr, nullptr, nullptr, nullptr, nullptr, out.data()};
  gg_status status = gg_host_kernel_run(kernel, buffers, -1, 1);  // negative rows
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  gg_status_free(status);
  status = gg_host_kernel_run(kernel, buffers, 64, 1);  // A and friends are NULL
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(gg_status_message(status), "is NULL"), nullptr);
  gg_status_free(status);
  for (uint16_t v : out) ASSERT_EQ(v, GG_POISON_BF16);
  gg_host_kernel_destroy(kernel);
}

TEST(Stacked, NegativeGroupExtentRejected) {
  Spec s = Stacked({10, -1}, 256, 256, GG_DATA_EXACT);
  gg_problem_spec ps = {s.desc(), s.extents.data(), s.m, 1, s.data, 1, 0};
  gg_problem* problem = nullptr;
  gg_status status = gg_problem_create(&ps, &problem);
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(problem, nullptr);
  gg_status_free(status);
}

}  // namespace
