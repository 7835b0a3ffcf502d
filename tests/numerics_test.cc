// The reference's number formats on known values: FP8 tables of both flavours (NaN,
// -0, largest finite, subnormals) and bf16 round-to-nearest-even from double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tests/reference/numerics.h"

namespace {

TEST(Fp8, E4M3FnKnownValues) {
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x00), 0.0f);
  EXPECT_TRUE(std::signbit(gg_fp8_decode(GG_FP8_E4M3FN, 0x80)));  // -0 exists
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x80), 0.0f);
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x38), 1.0f);
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x40), 2.0f);
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0xB8), -1.0f);
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x7E), 448.0f);   // largest finite
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0xFE), -448.0f);
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x01), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x07), 7 * std::ldexp(1.0f, -9));
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FN, 0x08), std::ldexp(1.0f, -6));  // smallest normal
  EXPECT_TRUE(std::isnan(gg_fp8_decode(GG_FP8_E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(gg_fp8_decode(GG_FP8_E4M3FN, 0xFF)));
  EXPECT_EQ(gg_fp8_max(GG_FP8_E4M3FN), 448.0f);
  int nans = 0;
  for (int b = 0; b < 256; ++b) nans += std::isnan(gg_fp8_decode(GG_FP8_E4M3FN, (uint8_t)b));
  EXPECT_EQ(nans, 2);  // S.1111.111 only: no infinities
}

TEST(Fp8, E4M3FnuzKnownValues) {
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FNUZ, 0x00), 0.0f);
  EXPECT_TRUE(std::isnan(gg_fp8_decode(GG_FP8_E4M3FNUZ, 0x80)));  // no -0: its code is NaN
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FNUZ, 0x40), 1.0f);
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FNUZ, 0x38), 0.5f);  // half the OCP value
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FNUZ, 0x7F), 240.0f);  // largest finite
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FNUZ, 0xFF), -240.0f);
  EXPECT_EQ(gg_fp8_decode(GG_FP8_E4M3FNUZ, 0x01), std::ldexp(1.0f, -10));
  EXPECT_EQ(gg_fp8_max(GG_FP8_E4M3FNUZ), 240.0f);
  int nans = 0;
  for (int b = 0; b < 256; ++b) nans += std::isnan(gg_fp8_decode(GG_FP8_E4M3FNUZ, (uint8_t)b));
  EXPECT_EQ(nans, 1);
}

TEST(Fp8, EncodeRoundTripsEveryFiniteCode) {
  for (int f = 0; f < GG_FP8_COUNT; ++f)
    for (int b = 0; b < 256; ++b) {
      float v = gg_fp8_decode((gg_fp8)f, (uint8_t)b);
      if (std::isnan(v)) continue;
      EXPECT_EQ(gg_fp8_encode((gg_fp8)f, v), b) << "flavour " << f << " code " << b;
    }
}

TEST(Fp8, EncodeRoundsToNearestEvenAndSaturates) {
  // 1.0625 lies halfway between 1.0 (mantissa 0) and 1.125 (mantissa 1): the even one.
  EXPECT_EQ(gg_fp8_encode(GG_FP8_E4M3FN, 1.0625f), 0x38);
  EXPECT_EQ(gg_fp8_encode(GG_FP8_E4M3FN, 1.1f), 0x39);
  EXPECT_EQ(gg_fp8_encode(GG_FP8_E4M3FN, 1e6f), 0x7E);
  EXPECT_EQ(gg_fp8_encode(GG_FP8_E4M3FNUZ, -1e6f), 0xFF);
  EXPECT_EQ(gg_fp8_encode(GG_FP8_E4M3FN, NAN), 0x7F);
  EXPECT_EQ(gg_fp8_encode(GG_FP8_E4M3FNUZ, NAN), 0x80);
}

TEST(Bf16, RoundsToNearestEvenOnce) {
  EXPECT_EQ(gg_bf16_from_double(1.0), 0x3F80);
  EXPECT_EQ(gg_bf16_from_double(-2.0), 0xC000);
  EXPECT_EQ(gg_bf16_from_double(0.0), 0x0000);
  EXPECT_EQ(gg_bf16_from_double(-0.0), 0x8000);
  // Ties: 1 + 2^-8 is halfway between 0x3F80 and 0x3F81 -> even 0x3F80;
  // 1 + 3 * 2^-8 is halfway between 0x3F81 and 0x3F82 -> even 0x3F82.
  EXPECT_EQ(gg_bf16_from_double(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  EXPECT_EQ(gg_bf16_from_double(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
  // Just above a tie rounds up. Rounding through float first would lose the 2^-40 and
  // land on the tie (then 0x3F80): the reference must round once.
  EXPECT_EQ(gg_bf16_from_double(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3F81);
  // Overflow past the largest finite bf16 rounds to infinity; the largest stays.
  EXPECT_EQ(gg_bf16_from_double(std::ldexp(1.0, 128)), 0x7F80);
  EXPECT_EQ(gg_bf16_from_double(std::ldexp(255.0, 120)), 0x7F7F);
  EXPECT_EQ(gg_bf16_from_double(-INFINITY), 0xFF80);
  // Subnormals: 2^-133 is the smallest; half of it ties to zero (even).
  EXPECT_EQ(gg_bf16_from_double(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(gg_bf16_from_double(std::ldexp(1.0, -134)), 0x0000);
  EXPECT_EQ(gg_bf16_from_double(std::ldexp(3.0, -134)), 0x0002);
  EXPECT_TRUE(gg_bf16_is_nan(gg_bf16_from_double(NAN)));
}

TEST(Bf16, UlpDistance) {
  EXPECT_EQ(gg_bf16_ulp_distance(0x3F80, 0x3F81), 1);
  EXPECT_EQ(gg_bf16_ulp_distance(0x0000, 0x8000), 0);  // +0 and -0
  EXPECT_EQ(gg_bf16_ulp_distance(0x0001, 0x8001), 2);  // across zero
  EXPECT_EQ(gg_bf16_ulp_distance(0x7FC0, 0xFFC0), 0);  // NaN meets NaN
  EXPECT_EQ(gg_bf16_ulp_distance(0x7FC0, 0x3F80), INT32_MAX);
}

}  // namespace
