// FP8 tables and bf16 rounding for the reference.
#include "tests/reference/numerics.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

// The tables are built once from the format definitions and never change afterwards.
static float fp8_table[GG_FP8_COUNT][256];
static pthread_once_t fp8_table_once = PTHREAD_ONCE_INIT;

static float decode_by_definition(gg_fp8 flavour, uint8_t byte) {
  const int sign = byte >> 7, exponent = (byte >> 3) & 15, mantissa = byte & 7;
  const int bias = flavour == GG_FP8_E4M3FN ? 7 : 8;
  if (flavour == GG_FP8_E4M3FN && exponent == 15 && mantissa == 7) return NAN;
  if (flavour == GG_FP8_E4M3FNUZ && byte == 0x80) return NAN;
  float magnitude = exponent == 0 ? ldexpf((float)mantissa, 1 - bias - 3)
                                  : ldexpf(1.0f + (float)mantissa / 8.0f, exponent - bias);
  return sign ? -magnitude : magnitude;
}

static void fill_tables(void) {
  for (int f = 0; f < GG_FP8_COUNT; ++f)
    for (int b = 0; b < 256; ++b) fp8_table[f][b] = decode_by_definition((gg_fp8)f, (uint8_t)b);
}

static void build_tables(void) { pthread_once(&fp8_table_once, fill_tables); }

float gg_fp8_decode(gg_fp8 flavour, uint8_t byte) {
  build_tables();
  return fp8_table[flavour][byte];
}

float gg_fp8_max(gg_fp8 flavour) { return flavour == GG_FP8_E4M3FN ? 448.0f : 240.0f; }

uint8_t gg_fp8_encode(gg_fp8 flavour, float value) {
  build_tables();
  if (isnan(value)) return flavour == GG_FP8_E4M3FN ? 0x7F : 0x80;
  float max = gg_fp8_max(flavour);
  if (value > max) value = max;
  if (value < -max) value = -max;
  int best = -1;
  float best_error = INFINITY;
  for (int b = 0; b < 256; ++b) {
    float v = fp8_table[flavour][b];
    if (isnan(v)) continue;
    if (v == 0.0f && signbit(v) != signbit(value)) continue;  // keep the sign of zero
    float error = fabsf(v - value);
    // Ties go to the even mantissa (bit 0 clear), as round-to-nearest-even does.
    if (error < best_error || (error == best_error && (b & 1) == 0)) {
      best = b;
      best_error = error;
    }
  }
  return (uint8_t)best;
}

uint16_t gg_bf16_from_double(double value) {
  if (isnan(value)) return signbit(value) ? 0xFFC0 : 0x7FC0;
  if (value == 0.0 || isinf(value)) {
    float f = (float)value;  // exact
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (uint16_t)(bits >> 16);
  }
  // bf16 keeps 8 significant bits; its smallest quantum (subnormals) is 2^-133.
  int exponent;
  frexp(value, &exponent);  // value = f * 2^exponent, 0.5 <= |f| < 1
  int quantum_exponent = exponent - 8;
  if (quantum_exponent < -133) quantum_exponent = -133;
  double rounded = ldexp(nearbyint(ldexp(value, -quantum_exponent)), quantum_exponent);
  float f = (float)rounded;  // exact: a bf16 value, or infinity past the largest one
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return (uint16_t)(bits >> 16);
}

float gg_bf16_to_float(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &wide, sizeof f);
  return f;
}

int gg_bf16_is_nan(uint16_t bits) { return (bits & 0x7F80) == 0x7F80 && (bits & 0x7F) != 0; }

// Maps bf16 bits to integers that order like the values, with +0 and -0 both at 0.
static int32_t ordered(uint16_t bits) {
  int32_t magnitude = bits & 0x7FFF;
  return (bits & 0x8000) ? -magnitude : magnitude;
}

int32_t gg_bf16_ulp_distance(uint16_t a, uint16_t b) {
  int a_nan = gg_bf16_is_nan(a), b_nan = gg_bf16_is_nan(b);
  if (a_nan || b_nan) return (a_nan && b_nan) ? 0 : INT32_MAX;
  int32_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}
