// Time and medians, for the launch timings that tools, benchmarks and tests print.
#ifndef GG_RUNTIME_CLOCK_H_
#define GG_RUNTIME_CLOCK_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Milliseconds on the monotonic clock.
double gg_now_ms(void);

// Sorts values ascending.
void gg_sort_doubles(double* values, size_t count);

// The median of count (> 0) values, which are sorted in place.
double gg_median(double* values, size_t count);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_CLOCK_H_
