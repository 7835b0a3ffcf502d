// The comparison that every kernel test relies on must itself catch each kind of error.
#include <gtest/gtest.h>

#include <vector>

#include "tests/reference/problem.h"
#include "tests/reference/reference.h"

namespace {

TEST(Compare, ExactDataDemandsIdenticalBits) {
  std::vector<uint16_t> want = {0x3F80, 0x4000, GG_POISON_BF16};
  std::vector<uint16_t> got = want;
  std::vector<double> bound(3, 1.0);
  gg_compare_result r = gg_compare_outputs(got.data(), want.data(), bound.data(), 3, 1);
  EXPECT_EQ(r.mismatches, 0);
  got[1] = 0x4001;  // one ulp off
  r = gg_compare_outputs(got.data(), want.data(), bound.data(), 3, 1);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_EQ(r.first_bad, 1);
  EXPECT_EQ(r.max_ulp, 1);
}

TEST(Compare, RandomDataAllowsOneUlpButNotTwoWithoutBound) {
  std::vector<uint16_t> want = {0x3F80};
  std::vector<double> bound = {0.0};
  std::vector<uint16_t> got = {0x3F81};
  EXPECT_EQ(gg_compare_outputs(got.data(), want.data(), bound.data(), 1, 0).mismatches, 0);
  got[0] = 0x3F83;
  EXPECT_EQ(gg_compare_outputs(got.data(), want.data(), bound.data(), 1, 0).mismatches, 1);
}

TEST(Compare, TheBoundWidensTheTolerance) {
  std::vector<uint16_t> want = {0x3F80};  // 1.0
  std::vector<uint16_t> got = {0x3F88};   // 1.0625: 8 ulps off
  std::vector<double> bound = {0.05};
  EXPECT_EQ(gg_compare_outputs(got.data(), want.data(), bound.data(), 1, 0).mismatches, 1);
  bound[0] = 0.07;
  EXPECT_EQ(gg_compare_outputs(got.data(), want.data(), bound.data(), 1, 0).mismatches, 0);
}

TEST(Compare, PoisonMustStayWhereTheReferenceWroteNothing) {
  std::vector<uint16_t> want = {GG_POISON_BF16, 0x3F80};
  std::vector<uint16_t> got = {0x0000, 0x3F80};  // wrote a row the contract leaves alone
  gg_compare_result r = gg_compare_outputs(got.data(), want.data(), nullptr, 2, 1);
  EXPECT_EQ(r.clobbered, 1);
  got = {GG_POISON_BF16, GG_POISON_BF16};  // left a written element unwritten
  r = gg_compare_outputs(got.data(), want.data(), nullptr, 2, 0);
  EXPECT_EQ(r.unwritten, 1);
}

}  // namespace
