// Time and medians.
#include "runtime/clock.h"

#include <stdlib.h>
#include <time.h>

double gg_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int ascending(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

void gg_sort_doubles(double* values, size_t count) { qsort(values, count, sizeof *values, ascending); }

double gg_median(double* values, size_t count) {
  gg_sort_doubles(values, count);
  return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}
