// Extent arithmetic that cannot overflow. Every product or sum of counts a user gives
// (tensor shapes, group extents, command-line numbers) goes through these, so no input
// makes gg's arithmetic undefined: an overflow is a value the caller refuses.
#ifndef GG_RUNTIME_CHECKED_H_
#define GG_RUNTIME_CHECKED_H_

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// *out = a * b; false (and *out untouched) when the product does not fit int64.
static inline bool gg_checked_mul(int64_t a, int64_t b, int64_t* out) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return false;
  *out = product;
  return true;
}

// *out = a + b; false (and *out untouched) when the sum does not fit int64.
static inline bool gg_checked_add(int64_t a, int64_t b, int64_t* out) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return false;
  *out = sum;
  return true;
}

// a * b, or INT64_MAX when the product overflows (for extents known to be non-negative:
// a saturated extent is refused wherever it is checked against a bound).
static inline int64_t gg_saturating_mul(int64_t a, int64_t b) {
  int64_t product;
  return gg_checked_mul(a, b, &product) ? product : INT64_MAX;
}

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_CHECKED_H_
