// What the sweeps (gg tune and autotuning, docs/tuning.md) share besides the space: the
// label a candidate is printed and logged by, and the two test hooks that stand in for
// the clock and for a wrong kernel in the sweeps' own tests.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tune.h"

void gg_tune_candidate_label(const gg_tune_candidate* c, char* buffer, size_t size) {
  snprintf(buffer, size, "%dx%dx%d/w%d/s%d/%s", c->tile.m, c->tile.n, c->tile.k, c->tile.waves_per_eu,
           c->tile.split_k > 1 ? c->tile.split_k : 1, gg_accum_name(c->accum));
}

double gg_tune_fake_us(const char* label) {
  const char* spec = getenv("GG_TUNE_FAKE_US");
  if (!spec) return -1.0;
  size_t n = strlen(label);
  for (const char* p = spec; *p;) {
    size_t length = strcspn(p, ",");
    if (length > n + 1 && strncmp(p, label, n) == 0 && p[n] == '=') return atof(p + n + 1);
    p += length + (p[length] == ',');
  }
  return 1e9;
}

int gg_tune_breaks(const char* label) {
  const char* broken = getenv("GG_TUNE_BREAK");
  return broken && !strcmp(broken, label);
}
