// The modelled launch time on an AMD chip (compiler/amd_estimate.h, docs/amd-model.md).
#include "compiler/amd_estimate.h"

#include <stdio.h>
#include <string.h>

#include "runtime/text.h"

// The chips as sold: MI300X (gfx942) and MI355X (gfx950), their peak engine clocks and
// HBM bandwidths.
typedef struct chip {
  int compute_units;
  double clock_mhz;
  double hbm_bytes_per_second;
} chip;

static chip chip_of(gg_target target) {
  if (target == GG_TARGET_GFX942) return (chip){304, 2100.0, 5.3e12};
  return (chip){256, 2400.0, 8.0e12};
}

double gg_amd_l2_bytes_per_clock(gg_target target) {
  // gfx942's L2 serves 2 KiB a clock per XCD to its 38 CUs; gfx950's per-CU fill path
  // 64 bytes a clock (../shared/notes/amd-kloop-analysis.md).
  return target == GG_TARGET_GFX942 ? 2048.0 / 38 : 64.0;
}

static gg_status field(const char* stats, const char* name, char* value, size_t size) {
  char key[64];
  snprintf(key, sizeof key, " %s=", name);
  const char* at = strstr(stats, key);
  if (!at && !strncmp(stats, key + 1, strlen(key + 1))) at = stats - 1;  // the first field
  if (!at) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "stats: no %s", name);
  at += strlen(key);
  size_t length = strcspn(at, " \n");
  if (length >= size) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "stats: %s too long", name);
  memcpy(value, at, length);
  value[length] = 0;
  return GG_OK;
}

gg_status gg_amd_loop_figures_parse(const char* stats, gg_amd_loop_figures* out) {
  memset(out, 0, sizeof *out);
  if (strstr(stats, " loop=none"))
    return gg_status_make(GG_STATUS_UNIMPLEMENTED, "the kernel has no K loop to model");
  char v[64];
  int64_t number;
  GG_RETURN_IF_ERROR(field(stats, "scratch_bytes", v, sizeof v));
  if (!gg_parse_int64(v, &out->scratch_bytes)) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "stats: scratch_bytes");
  GG_RETURN_IF_ERROR(field(stats, "loop_mfma_cycles", v, sizeof v));
  if (!gg_parse_int64(v, &number) || number <= 0) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "stats: loop_mfma_cycles");
  out->loop_mfma_cycles = (int)number;
  GG_RETURN_IF_ERROR(field(stats, "loop_tiles", v, sizeof v));
  if (!gg_parse_int64(v, &number) || number <= 0) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "stats: loop_tiles");
  out->loop_tiles = (int)number;
  GG_RETURN_IF_ERROR(field(stats, "share_bound", v, sizeof v));
  char extra;
  if (sscanf(v, "%lf%c", &out->share_bound, &extra) != 1 || !(out->share_bound > 0))
    return gg_status_make(GG_STATUS_UNIMPLEMENTED, "stats: no share_bound (%s)", v);
  return GG_OK;
}

static int64_t ceil_div(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

double gg_amd_modelled_us(const gg_op_desc* desc, int64_t m, const gg_amd_loop_figures* f) {
  chip c = chip_of(desc->target);
  int64_t groups = desc->g > 0 ? desc->g : 1;
  if (m <= 0) return 0;
  // Rows spread evenly: fewer rows than groups leave groups (and their weights) idle.
  int64_t active = m < groups ? m : groups;
  int64_t rows = ceil_div(m, active);
  int64_t tiles = active * ceil_div(rows, desc->tile.m) * ceil_div(desc->n, desc->tile.n);
  int64_t k_tiles = ceil_div(desc->k, desc->tile.k);
  double cycles_a_k_tile = (double)f->loop_mfma_cycles / f->loop_tiles / f->share_bound;
  double mfma = (double)ceil_div(tiles, c.compute_units) * (double)k_tiles * cycles_a_k_tile;
  double bytes = (double)m * desc->k + (double)active * desc->n * desc->k + 2.0 * m * desc->n;
  double hbm = bytes / (c.hbm_bytes_per_second / (c.clock_mhz * 1e6));
  int64_t busy = tiles < c.compute_units ? tiles : c.compute_units;
  double paths = bytes / ((double)busy * gg_amd_l2_bytes_per_clock(desc->target));
  double cycles = mfma;
  if (hbm > cycles) cycles = hbm;
  if (paths > cycles) cycles = paths;
  return cycles / c.clock_mhz;
}
