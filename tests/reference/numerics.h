// FP8 (E4M3FN, E4M3FNUZ) decoding and encoding by table, and bf16 rounding: the
// number formats of the reference, kept free of any compiler code.
#ifndef GG_TESTS_REFERENCE_NUMERICS_H_
#define GG_TESTS_REFERENCE_NUMERICS_H_

#include <stdint.h>

#include "gg/op.h"

#ifdef __cplusplus
extern "C" {
#endif

// The value of an FP8 byte (NaN for the flavour's NaN codes). Exact in float.
float gg_fp8_decode(gg_fp8 flavour, uint8_t byte);

// The FP8 byte nearest to value (ties to even mantissa); values beyond the largest finite
// magnitude saturate to it. NaN encodes as the flavour's NaN.
uint8_t gg_fp8_encode(gg_fp8 flavour, float value);

// Largest finite value of a flavour (448 for e4m3fn, 240 for e4m3fnuz).
float gg_fp8_max(gg_fp8 flavour);

// Rounds a double to bf16 once, to nearest even (NaN becomes a quiet NaN of the same sign).
uint16_t gg_bf16_from_double(double value);
float gg_bf16_to_float(uint16_t bits);
int gg_bf16_is_nan(uint16_t bits);

// Distance in units in the last place between two bf16 values (same-sign ordering;
// +0 and -0 are 0 apart). NaN against anything but NaN is INT32_MAX.
int32_t gg_bf16_ulp_distance(uint16_t a, uint16_t b);

#ifdef __cplusplus
}
#endif

#endif  // GG_TESTS_REFERENCE_NUMERICS_H_
