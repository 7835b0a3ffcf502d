// The operator descriptor: names, defaults, validation, operand shapes and grid rules.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gg/op.h"
#include "runtime/checked.h"
#include "runtime/text.h"

static const char* const layout_names[GG_LAYOUT_COUNT] = {
    "sizes", "offsets", "padded", "batched", "n_offsets", "k_offsets"};
static const char* const scaling_names[GG_SCALING_COUNT] = {"rowwise", "blockwise"};
static const char* const b_layout_names[GG_B_LAYOUT_COUNT] = {"plain", "preshuffled"};
static const char* const fp8_names[GG_FP8_COUNT] = {"e4m3fn", "e4m3fnuz"};
static const char* const target_names[GG_TARGET_COUNT] = {"host", "gfx942", "gfx950", "sm_90a"};
static const char* const accum_names[GG_ACCUM_COUNT] = {"promoted", "fast"};
static const char* const loop_names[GG_LOOP_FORM_COUNT] = {"rolled", "unrolled"};
static const char* const operand_names[GG_OPERAND_COUNT] = {"A", "B", "a_scale", "b_scale",
                                                            "group metadata", "out"};

#define NAME_OF(table, value, count) ((unsigned)(value) < (count) ? (table)[value] : "?")

static int index_of(const char* const* table, int count, const char* name) {
  for (int i = 0; name && i < count; ++i)
    if (strcmp(table[i], name) == 0) return i;
  return -1;
}

const char* gg_layout_name(gg_layout v) { return NAME_OF(layout_names, v, GG_LAYOUT_COUNT); }
const char* gg_scaling_name(gg_scaling v) { return NAME_OF(scaling_names, v, GG_SCALING_COUNT); }
const char* gg_b_layout_name(gg_b_layout v) {
  return NAME_OF(b_layout_names, v, GG_B_LAYOUT_COUNT);
}
const char* gg_fp8_name(gg_fp8 v) { return NAME_OF(fp8_names, v, GG_FP8_COUNT); }
const char* gg_target_name(gg_target v) { return NAME_OF(target_names, v, GG_TARGET_COUNT); }
const char* gg_loop_form_name(gg_loop_form v) {
  return NAME_OF(loop_names, v, GG_LOOP_FORM_COUNT);
}
const char* gg_accum_name(gg_accum v) { return NAME_OF(accum_names, v, GG_ACCUM_COUNT); }
const char* gg_operand_name(gg_operand v) {
  return NAME_OF(operand_names, v, GG_OPERAND_COUNT);
}

int gg_layout_from_name(const char* n) { return index_of(layout_names, GG_LAYOUT_COUNT, n); }
int gg_scaling_from_name(const char* n) { return index_of(scaling_names, GG_SCALING_COUNT, n); }
int gg_b_layout_from_name(const char* n) {
  return index_of(b_layout_names, GG_B_LAYOUT_COUNT, n);
}
int gg_fp8_from_name(const char* n) { return index_of(fp8_names, GG_FP8_COUNT, n); }
int gg_target_from_name(const char* n) { return index_of(target_names, GG_TARGET_COUNT, n); }
int gg_loop_form_from_name(const char* n) {
  return index_of(loop_names, GG_LOOP_FORM_COUNT, n);
}
int gg_accum_from_name(const char* n) { return index_of(accum_names, GG_ACCUM_COUNT, n); }

gg_layout gg_layout_of_op(gg_op_kind op, gg_ranks ranks) {
  if (op == GG_OP_STACKED) return GG_LAYOUT_SIZES;
  if (op == GG_OP_DYNAMIC) return GG_LAYOUT_PADDED;
  switch (ranks) {
    case GG_RANKS_3D3D: return GG_LAYOUT_BATCHED;
    case GG_RANKS_3D2D: return GG_LAYOUT_N_OFFSETS;
    case GG_RANKS_2D2D: return GG_LAYOUT_K_OFFSETS;
    default: return GG_LAYOUT_OFFSETS;
  }
}

int gg_layout_has_group_ends(gg_layout layout) {
  return layout == GG_LAYOUT_SIZES || layout == GG_LAYOUT_OFFSETS || layout == GG_LAYOUT_N_OFFSETS;
}

gg_tile_config gg_tile_config_default(void) {
  gg_tile_config tile = {128, 128, 128, 2, GG_LOOP_ROLLED, 1};
  return tile;
}

gg_tile_config gg_tile_config_for(const gg_op_desc* desc, int64_t rows_per_group) {
  gg_tile_config tile = gg_tile_config_default();
  int amd = desc->target == GG_TARGET_GFX942 || desc->target == GG_TARGET_GFX950;
  if (amd && rows_per_group >= GG_LARGE_M_ROWS) {
    // The K loop model at 8 x 2048 rows, N 4096, K 7168 (docs/amd-model.md, share_bound):
    // rowwise 256x128 on gfx942 (0.90 plain, 0.97 preshuffled; 128x128: 0.84); 128x256
    // for the rest: gfx950 rowwise (0.99 plain, 0.96 preshuffled, with the next tile's
    // first fragments carried; 256x256 0.95, 128x128 L2-bound at 0.50) and blockwise on
    // both chips (gfx942 0.89 / 0.93, gfx950 0.81 / 0.81), whose 256x256 spills (its 256
    // accumulators take VALU scaling, so they stay in VGPRs) and whose gfx942 256x128
    // preshuffled stage does not fit twice in 64 KiB.
    int rowwise = desc->scaling == GG_SCALING_ROWWISE;
    if (desc->target == GG_TARGET_GFX942 && rowwise) tile.m = 256;
    else tile.n = 256;
    tile.waves_per_eu = 1;
    // A narrow output gains nothing; preshuffled B needs N a multiple of tile_n.
    if (tile.n == 256 && (desc->n < 256 || (desc->b_layout == GG_B_PRESHUFFLED && desc->n % 256 != 0)))
      tile.n = 128;
  }
  // sm_90a, fast rowwise (the one kind its 128x256 tile holds): measured on an H200
  // (docs/performance.md, 2026-12-01), 128x256 beat 128x128 in 114 of 131 benchmark cases,
  // by up to 1.6x. It lost where N is below 2048 (N 1280: 0.56-0.93 below 16384 rows) and
  // where fewer rows than groups leave one expert busy with fewer than 32 CTAs of 256
  // columns (one row at N 4096: 0.64). Either way the tile is this or the default, so a
  // bundle holding both (gg bundle adds this one) serves every M.
  if (desc->target == GG_TARGET_SM90A && desc->accum == GG_ACCUM_FAST &&
      desc->scaling == GG_SCALING_ROWWISE && desc->n >= 2048 && (rows_per_group >= 1 || desc->n >= 8192))
    tile.n = 256;
  tile.loop = desc->tile.loop;
  if (desc->tile.waves_per_eu) tile.waves_per_eu = desc->tile.waves_per_eu;
  tile.split_k = desc->tile.split_k;
  return tile;
}

int gg_sm90_planned_clusters(int split) {
  // cuOccupancyMaxActiveClusters on an H200 for the kernels' one CTA per SM (ncu's Max
  // Active Clusters, 2026-12-02): clusters live within a GPC, whose SM counts leave some
  // SMs out of every cluster but pairs.
  switch (split) {
    case 1: return GG_SM90_PLANNED_SMS;
    case 2: return GG_SM90_PLANNED_SMS / 2;
    case 3: return 39;
    case 4: return 30;
    default: return 0;
  }
}

// The tiles of an sm_90a launch of m rows that can hold rows: at most min(G, m) groups
// are busy under packed layouts, each one tile row more than its rows need.
static int64_t sm90_busy_tiles(const gg_op_desc* d, int64_t m) {
  int64_t tm = d->tile.m, tn = d->tile.n, row_tiles, col_tiles = (d->n + tn - 1) / tn;
  switch (d->layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS: {
      int64_t busy = m < d->g ? m : d->g;
      row_tiles = (m + tm - 1) / tm + busy - 1;
      break;
    }
    case GG_LAYOUT_N_OFFSETS:  // every group's slab of m rows over the N split
      row_tiles = (m + tm - 1) / tm;
      col_tiles += d->g;
      break;
    default:  // padded, batched: a slab of m rows per group
      row_tiles = d->g * ((m + tm - 1) / tm);
      break;
  }
  return gg_saturating_mul(row_tiles, col_tiles);
}

// The split-K rule for desc's tile at m rows: the split, and the CTAs it keeps busy in
// *ctas. Decode is bound by the bytes each SM has in flight, so the rule takes the split
// that streams the weights on the most SMs in one round: the largest whose clusters the
// device holds at once for every tile (gg_sm90_planned_clusters), with shares of at least
// the ring's stages. Measured on an H200 (docs/performance.md, 2026-12-02): one round won
// at every benchmark shape with one busy expert (N 8192 K 3584, 32 tiles of 256 columns:
// split 3 1.24x torch, against 0.90 unsplit and 0.82 at split 4, which takes two rounds
// of its 30 clusters).
static int sm90_split_plan(const gg_op_desc* in, int64_t m, int64_t* ctas) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  int64_t tiles = m > 0 && d.g > 0 ? sm90_busy_tiles(&d, m) : 0;
  *ctas = tiles < GG_SM90_PLANNED_SMS ? tiles : GG_SM90_PLANNED_SMS;
  // A 256-row tile's cluster is its two halves' (B multicast), not a split of K.
  if (d.target != GG_TARGET_SM90A || d.layout == GG_LAYOUT_K_OFFSETS || tiles == 0 ||
      gg_sm90_cluster_m(&d) > 1)
    return 1;
  int64_t k_tiles = (d.k + 127) / 128, stages = gg_sm90_stages(&d);
  int best = 1;
  for (int split = 2; split <= GG_SM90_MAX_SPLIT_K; ++split)
    if (stages > 0 && k_tiles / split >= stages && tiles <= gg_sm90_planned_clusters(split) &&
        tiles * split > *ctas) {
      best = split;
      *ctas = tiles * split;
    }
  return best;
}

// A K tile's fixed cost in a decode CTA (its stage's handshake between the roles, the A
// box, the wgmma issue), in columns of weights streamed: fit to N 1280 K 8192 at 16 rows
// over 8 experts on an H200, where 80 CTAs of 256 columns split in 2 ran 1.28x as fast
// as 80 of 128 columns unsplit, the same weight bytes a CTA (docs/performance.md).
#define SM90_K_TILE_COLUMNS 100
// A split-K rank's partial sums added through distributed shared memory, in the same
// units: fit to N 7168 K 8192 at one row, where 128 columns split in 2, 192 in 3 and 256
// in 4 ran within 4 % of each other in one run (1.27-1.32x torch).
#define SM90_SPLIT_RANK_COST 800

// The time the busiest SM takes in a decode launch of m rows with desc's tile, in columns
// of weights streamed over a K tile: the rounds its tiles take over the clusters the
// device holds at once, times each CTA's share (K / split tiles of K) of tile_n columns
// with the K tile's fixed cost, and the split's reduction. The rounds overstate a last
// round that is part empty: its CTAs share the DRAM among fewer and stream faster (an
// H100 sweep, docs/performance.md 2026-12-05: N 13312 K 16384, 416 tiles, split in 2 for
// 90 % of the SMs busy against 79 % ran within 2 % of unsplit, where this predicts 9 %
// less time). No choice rests on that: splits are planned within one round.
static int64_t sm90_stream_cost(const gg_op_desc* in, int64_t m) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  int64_t clusters = gg_sm90_planned_clusters(d.tile.split_k);
  int64_t tiles = sm90_busy_tiles(&d, m), k_tiles = (d.k + 127) / 128;
  if (clusters <= 0) return INT64_MAX;
  int64_t rounds = (tiles + clusters - 1) / clusters;
  int64_t share = (k_tiles + d.tile.split_k - 1) / d.tile.split_k;
  int64_t tile = gg_saturating_mul(share, d.tile.n + SM90_K_TILE_COLUMNS) +
                 (int64_t)(d.tile.split_k - 1) * SM90_SPLIT_RANK_COST;
  return gg_saturating_mul(rounds, tile);
}

int gg_sm90_split_k_for(const gg_op_desc* in, int64_t m) {
  int64_t ctas;
  return sm90_split_plan(in, m, &ctas);
}

gg_tile_config gg_tile_config_unsplit(const gg_op_desc* desc, int64_t m) {
  int64_t rows = m;
  if ((desc->layout == GG_LAYOUT_SIZES || desc->layout == GG_LAYOUT_OFFSETS) && desc->g > 0)
    rows = m / desc->g;
  return gg_tile_config_for(desc, rows);
}

// Rowwise decode: of the widths the mode takes (128 and 192 columns, 256 in fast mode), each
// split as the rule splits it, the one whose busiest SM takes the least time
// (sm90_stream_cost; ties to the wider), where that is at least 10 % less than at's; else
// at's tile. The tile counts of one width can leave SMs idle, or a last round part-empty,
// where another's do not. Measured on an H200 (docs/performance.md, 2026-12-04): at 16
// and 128 rows over 8 experts, N 2304 K 16384 takes 96 tiles of 192 columns for 72 of 256
// (fast 1.10 -> 1.35x torch, promoted 1.17 -> 1.83) and N 1280 K 8192 56 of 192 split in
// 2 for 40 of 256 (fast 1.15 -> 1.32, promoted 1.68 -> 1.94), the shapes the cost ranks
// otherwise ran at most 4 % faster and up to 37 % slower at 192; at one row N 8192 K 1024
// and K 3584 take 64 tiles of 128 columns split in 2 for 43 of 192 split in 2 and 32 of
// 256 split in 3 (1.21 -> 1.45x and 1.22 -> 1.46 in one run). Packed rows only (the
// layouts measured), at most GG_SM90_DECODE_ROWS rows (each busy group then holds one tile
// row, so the tile count is exact); blockwise scaling refuses 192 columns and promoted 256.
static gg_tile_config sm90_decode_width(const gg_op_desc* at, int64_t m) {
  static const int32_t widths[] = {256, 192, 128};
  int64_t cost = sm90_stream_cost(at, m);
  gg_tile_config best = at->tile;
  int64_t best_cost = INT64_MAX;
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; ++i) {
    if (widths[i] == at->tile.n) continue;
    gg_op_desc other = *at;
    other.tile.n = widths[i];
    other.tile.split_k = 1;
    other.tile.split_k = gg_sm90_split_k_for(&other, m);
    int64_t other_cost = sm90_stream_cost(&other, m);
    if (other_cost >= best_cost) continue;
    gg_status refused = gg_op_desc_validate(&other);
    if (!refused) {
      best = other.tile;
      best_cost = other_cost;
    }
    gg_status_free(refused);
  }
  bool less = cost <= INT64_MAX / 10 && best_cost <= INT64_MAX / 10 && 10 * best_cost <= 9 * cost;
  return less ? best : at->tile;
}

gg_tile_config gg_tile_config_for_launch(const gg_op_desc* desc, int64_t m) {
  gg_op_desc at = *desc;
  at.tile = gg_tile_config_unsplit(desc, m);
  if (at.tile.split_k > 1) return at.tile;
  int64_t ctas;
  at.tile.split_k = sm90_split_plan(&at, m, &ctas);
  // Fast rowwise takes 256 columns where their split keeps as many SMs busy: a tile's
  // stage then holds twice the weights in flight (N 1280 at 16 rows over 8 experts, the
  // same 80 CTAs: 1.07-1.14x torch at 256 columns split in two, 0.82-0.90 at 128 columns
  // unsplit).
  if (at.target == GG_TARGET_SM90A && at.accum == GG_ACCUM_FAST &&
      at.scaling == GG_SCALING_ROWWISE && at.tile.n == 128) {
    gg_op_desc wide = at;
    wide.tile.n = 256;
    wide.tile.split_k = 1;
    int64_t wide_ctas;
    int split = sm90_split_plan(&wide, m, &wide_ctas);
    if (split > 1 && wide_ctas >= ctas) {
      wide.tile.split_k = split;
      gg_status status = gg_op_desc_validate(&wide);
      if (!status) at.tile = wide.tile;
      gg_status_free(status);
    }
  }
  bool packed = at.layout == GG_LAYOUT_SIZES || at.layout == GG_LAYOUT_OFFSETS;
  if (at.target == GG_TARGET_SM90A && at.scaling == GG_SCALING_ROWWISE && packed && m >= 1 &&
      m <= GG_SM90_DECODE_ROWS)
    at.tile = sm90_decode_width(&at, m);
  return at.tile;
}

int gg_tile_config_is_decode_choice(gg_tile_config launch, gg_tile_config unsplit) {
  return launch.split_k > 1 || launch.n != unsplit.n;
}

gg_op_desc gg_op_desc_with_defaults(const gg_op_desc* desc) {
  gg_op_desc resolved = *desc;
  if (resolved.tile.m == 0 && resolved.tile.n == 0 && resolved.tile.k == 0) {
    gg_tile_config tile = gg_tile_config_default();
    tile.loop = desc->tile.loop;
    if (desc->tile.waves_per_eu) tile.waves_per_eu = desc->tile.waves_per_eu;
    tile.split_k = desc->tile.split_k;
    resolved.tile = tile;
  }
  if (resolved.tile.split_k == 0) resolved.tile.split_k = 1;
  if (resolved.target == GG_TARGET_SM90A) {
    // One kernel shape: a TMA ring feeding wgmma; AMD's occupancy hint and loop forms do
    // not apply.
    resolved.tile.waves_per_eu = 0;
    resolved.tile.loop = GG_LOOP_ROLLED;
  } else if ((unsigned)resolved.target < GG_TARGET_COUNT) {
    resolved.accum = GG_ACCUM_PROMOTED;  // FP32 accumulation is all these targets have
  }
  return resolved;
}

static int is_one_of(int32_t value, const int32_t* set, int count) {
  for (int i = 0; i < count; ++i)
    if (set[i] == value) return 1;
  return 0;
}

static int group_owns_whole_b(gg_layout layout) {
  return layout == GG_LAYOUT_SIZES || layout == GG_LAYOUT_OFFSETS ||
         layout == GG_LAYOUT_PADDED || layout == GG_LAYOUT_BATCHED;
}

// The rules of the sm_90a kernel (../docs/nvidia.md).
static int64_t sm90_stage_bytes(const gg_op_desc* d);

static gg_status sm90_check(const gg_op_desc* d) {
  if (d->fp8 != GG_FP8_E4M3FN)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "sm_90a takes float8_e4m3fn operands (wgmma's e4m3), not %s",
                          gg_fp8_name(d->fp8));
  if (d->b_layout != GG_B_PLAIN)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "sm_90a reads B as a plain [N, K] matrix through TMA; preshuffled B is "
                          "the operand order of AMD matrix cores");
  if ((d->tile.m != 128 && d->tile.m != 256) || d->tile.k != 128 ||
      (d->tile.n != 64 && d->tile.n != 128 && d->tile.n != 192 && d->tile.n != 256))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "tile %dx%dx%d is not an sm_90a tile: tile_m is 128 (a CTA's two "
                          "consumer warpgroups of 64 rows) or 256 (a cluster of two such CTAs "
                          "sharing B), tile_k 128 (one 128-byte swizzle row), tile_n 64, 128, 192 "
                          "or 256",
                          d->tile.m, d->tile.n, d->tile.k);
  if (d->tile.m == 256 && d->tile.split_k > 1)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "a 256-row sm_90a tile is a cluster of two CTAs on its halves; split-K "
                          "clusters are 128-row tiles' (split_k %d with tile_m 256)",
                          d->tile.split_k);
  if (d->scaling == GG_SCALING_BLOCKWISE && d->accum == GG_ACCUM_FAST)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "blockwise scaling scales each K block's partial sum, so its "
                          "accumulation is promoted by construction: --accum fast applies to "
                          "rowwise scaling");
  // A 192-column tile starts 64 columns into a 128-wide block of B's scales every other
  // tile; the blockwise consumers take one block's scales a tile (n_offsets aside).
  if (d->tile.n == 192 && d->scaling == GG_SCALING_BLOCKWISE)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "tile_n 192 on sm_90a straddles the 128-column blocks of blockwise "
                          "scales: use tile_n 128 for blockwise scaling");
  if (d->tile.n == 256 && (d->accum == GG_ACCUM_PROMOTED || d->scaling == GG_SCALING_BLOCKWISE))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "tile_n 256 on sm_90a holds 128 accumulator registers per thread; "
                          "promoted accumulation and blockwise scaling need a second set, which "
                          "does not fit: use tile_n 128 or --accum fast with rowwise scaling");
  if (gg_layout_has_group_ends(d->layout) && d->g > GG_SM90_MAX_GROUPS)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "sm_90a kernels of the %s layout keep the group ends in shared "
                          "memory: at most %d groups, got %lld",
                          gg_layout_name(d->layout), GG_SM90_MAX_GROUPS, (long long)d->g);
  if (gg_sm90_stages(d) < 2)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "sm_90a: tile %dx%dx%d leaves room for fewer than two pipeline stages",
                          d->tile.m, d->tile.n, d->tile.k);
  if (d->tile.split_k > 1) {
    // Each share keeps its last ring's worth of stages until the first CTA has read its
    // partial sums out of them (the ring holds them: 512 tile_n bytes), so a share needs at
    // least that many K tiles, and a static K.
    if (d->layout == GG_LAYOUT_K_OFFSETS)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "split-K needs a static K; the k_offsets layout's K ranges are "
                            "runtime values");
    int64_t k_tiles = (d->k + 127) / 128, stages = gg_sm90_stages(d);
    // The partials (4 tile_n bytes a consumer thread) must fit the ring; at most
    // GG_SM90_MAX_GROUPS they do (3 stages of 128x256 at 4096 groups), so this guards the
    // invariant should the layout change.
    int64_t partials = 512 * (int64_t)d->tile.n, ring = stages * sm90_stage_bytes(d);
    if (partials > ring)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "split-K keeps the tile's partial sums (%lld bytes) in the ring, "
                            "which has %lld: fewer groups leave it more stages",
                            (long long)partials, (long long)ring);
    if (k_tiles / d->tile.split_k < stages)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "split_k %d gives shares of %lld K tiles (K=%lld); each needs at "
                            "least the ring's %lld stages",
                            d->tile.split_k, (long long)(k_tiles / d->tile.split_k),
                            (long long)d->k, (long long)stages);
  }
  return GG_OK;
}

gg_status gg_op_desc_validate(const gg_op_desc* in) {
  if (!in) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "descriptor is NULL");
  if ((unsigned)in->layout >= GG_LAYOUT_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown layout %d", (int)in->layout);
  if ((unsigned)in->scaling >= GG_SCALING_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown scaling %d", (int)in->scaling);
  if ((unsigned)in->b_layout >= GG_B_LAYOUT_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown B layout %d", (int)in->b_layout);
  if ((unsigned)in->fp8 >= GG_FP8_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown FP8 flavour %d", (int)in->fp8);
  if ((unsigned)in->target >= GG_TARGET_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown target %d", (int)in->target);
  if ((unsigned)in->tile.loop >= GG_LOOP_FORM_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown loop form %d", (int)in->tile.loop);
  if ((unsigned)in->accum >= GG_ACCUM_COUNT)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown accumulation mode %d",
                          (int)in->accum);

  gg_op_desc d = gg_op_desc_with_defaults(in);
  const char* layout = gg_layout_name(d.layout);
  if (d.n < 0 || d.k < 0 || d.g < 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "extents must not be negative (N=%lld K=%lld G=%lld)",
                          (long long)d.n, (long long)d.k, (long long)d.g);
  if (d.n > INT32_MAX || d.k > INT32_MAX || d.g > INT32_MAX)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "extents must fit in 32 bits (N=%lld K=%lld G=%lld)",
                          (long long)d.n, (long long)d.k, (long long)d.g);
  // Vector width: 16-byte loads along K, 8-column (16-byte) bf16 stores along N.
  if (d.k % 16 != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "K must be a multiple of 16 (the 16-byte load width), got %lld",
                          (long long)d.k);
  if (d.layout != GG_LAYOUT_N_OFFSETS && d.n % 8 != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "N must be a multiple of 8 (the 16-byte store width), got %lld",
                          (long long)d.n);

  static const int32_t tile_mn[] = {64, 128, 256};
  static const int32_t tile_k[] = {128, 256};
  // sm_90a also takes 192 columns (a wgmma's N is any multiple of 8 up to 256): where
  // 256-column tiles leave SMs idle, narrower ones spread the weights over more of them.
  bool sm90_n = d.target == GG_TARGET_SM90A && d.tile.n == 192;
  if (!is_one_of(d.tile.m, tile_mn, 3) || !(sm90_n || is_one_of(d.tile.n, tile_mn, 3)) ||
      !is_one_of(d.tile.k, tile_k, 2))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "tile %dx%dx%d is not a candidate: tile_m and tile_n must be 64, 128 "
                          "or 256, tile_k 128 or 256",
                          d.tile.m, d.tile.n, d.tile.k);
  if (d.tile.waves_per_eu < 0 || d.tile.waves_per_eu > 8)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "waves_per_eu must be between 0 (compiler decides) and 8, got %d",
                          d.tile.waves_per_eu);
  if (d.tile.split_k < 1 || d.tile.split_k > GG_SM90_MAX_SPLIT_K)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "split_k must be between 1 (none) and %d, got %d", GG_SM90_MAX_SPLIT_K,
                          d.tile.split_k);
  if (d.tile.split_k > 1 && d.target != GG_TARGET_SM90A)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "split-K is an sm_90a kernel's (a cluster of CTAs sharing each tile "
                          "through distributed shared memory); %s kernels take split_k 1",
                          gg_target_name(d.target));

  if (d.scaling == GG_SCALING_BLOCKWISE) {
    if (d.k % 128 != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "blockwise scaling needs K to be a multiple of 128 (scale_block_k), "
                            "got %lld",
                            (long long)d.k);
    if (d.n % 128 != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "blockwise scaling needs N to be a multiple of 128 (scale_block_n), "
                            "got %lld",
                            (long long)d.n);
  }

  if (d.target == GG_TARGET_GFX942 && d.fp8 != GG_FP8_E4M3FNUZ)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "gfx942 takes float8_e4m3fnuz operands, not %s", gg_fp8_name(d.fp8));
  if (d.target == GG_TARGET_GFX950 && d.fp8 != GG_FP8_E4M3FN)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "gfx950 takes float8_e4m3fn operands, not %s", gg_fp8_name(d.fp8));

  if (d.target == GG_TARGET_SM90A) GG_RETURN_IF_ERROR(sm90_check(&d));

  if (d.target == GG_TARGET_GFX942 || d.target == GG_TARGET_GFX950) {
    int64_t lds = gg_amd_lds_bytes(&d);
    if (lds > gg_lds_capacity(d.target))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "tile %dx%dx%d needs %lld bytes of LDS; %s has %lld", d.tile.m,
                            d.tile.n, d.tile.k, (long long)lds, gg_target_name(d.target),
                            (long long)gg_lds_capacity(d.target));
    GG_RETURN_IF_ERROR(gg_amd_addressing_check(&d, GG_DYNAMIC));
  }

  if (d.b_layout == GG_B_PRESHUFFLED) {
    if (!group_owns_whole_b(d.layout))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "preshuffled B needs each group to own a whole [N, K] matrix; the "
                            "%s layout groups along %s, which the shuffle interleaves across "
                            "the whole matrix",
                            layout, d.layout == GG_LAYOUT_N_OFFSETS ? "N" : "K");
    if (d.n % d.tile.n != 0 || d.k % d.tile.k != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "preshuffled B needs N and K divisible by tile_n and tile_k "
                            "(N=%lld K=%lld tile %dx%d)",
                            (long long)d.n, (long long)d.k, d.tile.n, d.tile.k);
  }
  if (d.tile.loop == GG_LOOP_UNROLLED && d.layout == GG_LAYOUT_K_OFFSETS)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "the k_offsets layout cannot be unrolled: its K trip count is a "
                          "runtime value");
  int64_t k_tiles = (d.k + d.tile.k - 1) / d.tile.k;
  if (d.tile.loop == GG_LOOP_UNROLLED && k_tiles > GG_MAX_UNROLLED_K_TILES)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "an unrolled K loop holds at most %d tiles (K <= %lld at tile_k %d); "
                          "K=%lld needs %lld: use the rolled loop (--loop rolled), whose code "
                          "size does not grow with K",
                          GG_MAX_UNROLLED_K_TILES, (long long)GG_MAX_UNROLLED_K_TILES * d.tile.k,
                          d.tile.k, (long long)d.k, (long long)k_tiles);
  return GG_OK;
}

void gg_op_desc_kernel_name(const gg_op_desc* in, char* buffer, size_t size) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  char split[24] = "";
  if (d.tile.split_k > 1) snprintf(split, sizeof split, "_split%d", d.tile.split_k);
  snprintf(buffer, size, "gg_%s_%s_%s_%s_n%lld_k%lld_g%lld_t%dx%dx%d_w%d_%s%s%s_%s",
           gg_layout_name(d.layout), gg_scaling_name(d.scaling), gg_b_layout_name(d.b_layout),
           gg_fp8_name(d.fp8), (long long)d.n, (long long)d.k, (long long)d.g, d.tile.m,
           d.tile.n, d.tile.k, d.tile.waves_per_eu, gg_loop_form_name(d.tile.loop),
           d.accum == GG_ACCUM_FAST ? "_fast" : "", split, gg_target_name(d.target));
}

#define DESC_MAGIC "gg-kernel v1"

void gg_op_desc_format(const gg_op_desc* in, char* buffer, size_t size) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  snprintf(buffer, size,
           DESC_MAGIC " layout=%s scaling=%s b=%s fp8=%s n=%lld k=%lld g=%lld tile=%dx%dx%d wpe=%d "
           "loop=%s accum=%s target=%s",
           gg_layout_name(d.layout), gg_scaling_name(d.scaling), gg_b_layout_name(d.b_layout),
           gg_fp8_name(d.fp8), (long long)d.n, (long long)d.k, (long long)d.g, d.tile.m, d.tile.n,
           d.tile.k, d.tile.waves_per_eu, gg_loop_form_name(d.tile.loop), gg_accum_name(d.accum),
           gg_target_name(d.target));
  // Only where asked, so every descriptor without split-K reads as it always did.
  size_t used = strlen(buffer);
  if (d.tile.split_k > 1 && used < size) snprintf(buffer + used, size - used, " split=%d", d.tile.split_k);
}

void gg_op_desc_flags(const gg_op_desc* in, char* buffer, size_t size) {
  static const char* const ops[GG_LAYOUT_COUNT] = {"stacked", "mm --ranks 2d3d", "dynamic",
                                                   "mm --ranks 3d3d", "mm --ranks 3d2d",
                                                   "mm --ranks 2d2d"};
  gg_op_desc d = gg_op_desc_with_defaults(in);
  const char* op = (unsigned)d.layout < GG_LAYOUT_COUNT ? ops[d.layout] : "?";
  snprintf(buffer, size,
           "--op %s --groups 1*%lld --N %lld --K %lld --scaling %s --b %s --fp8 %s --tile %dx%dx%d "
           "--wpe %d --loop %s --accum %s --target %s",
           op, (long long)d.g, (long long)d.n, (long long)d.k, gg_scaling_name(d.scaling),
           gg_b_layout_name(d.b_layout), gg_fp8_name(d.fp8), d.tile.m, d.tile.n, d.tile.k,
           d.tile.waves_per_eu, gg_loop_form_name(d.tile.loop), gg_accum_name(d.accum),
           gg_target_name(d.target));
  size_t used = strlen(buffer);
  if (d.tile.split_k > 1 && used < size) snprintf(buffer + used, size - used, " --split-k %d", d.tile.split_k);
}

// Reads "key=" at *p into value (up to the next space); false when the key differs.
gg_status gg_op_desc_parse(const char* text, gg_op_desc* desc) {
  memset(desc, 0, sizeof *desc);
  if (!text || strncmp(text, DESC_MAGIC " ", sizeof DESC_MAGIC) != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "not a gg kernel descriptor");
  const char* p = text + sizeof DESC_MAGIC;
  char v[64];
  int e;
  int64_t number;
#define FIELD(key) \
  if (!gg_read_field(&p, key, v, sizeof v)) \
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "descriptor: missing or bad '%s'", key)
#define ENUM(key, from_name, field, type)                                                    \
  FIELD(key);                                                                              \
  if ((e = from_name(v)) < 0)                                                              \
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "descriptor: bad %s '%s'", key, v); \
  desc->field = (type)e
#define INT(key, field)                                                                      \
  FIELD(key);                                                                              \
  if (!gg_parse_int64(v, &number))                                                         \
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "descriptor: bad %s '%s'", key, v); \
  desc->field = number
  ENUM("layout", gg_layout_from_name, layout, gg_layout);
  ENUM("scaling", gg_scaling_from_name, scaling, gg_scaling);
  ENUM("b", gg_b_layout_from_name, b_layout, gg_b_layout);
  ENUM("fp8", gg_fp8_from_name, fp8, gg_fp8);
  INT("n", n);
  INT("k", k);
  INT("g", g);
  FIELD("tile");
  int tm, tn, tk;
  char extra;
  if (sscanf(v, "%dx%dx%d%c", &tm, &tn, &tk, &extra) != 3)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "descriptor: bad tile '%s'", v);
  desc->tile.m = tm;
  desc->tile.n = tn;
  desc->tile.k = tk;
  INT("wpe", tile.waves_per_eu);
  ENUM("loop", gg_loop_form_from_name, tile.loop, gg_loop_form);
  ENUM("accum", gg_accum_from_name, accum, gg_accum);
  ENUM("target", gg_target_from_name, target, gg_target);
  while (*p == ' ') ++p;
  if (!strncmp(p, "split=", 6)) {
    INT("split", tile.split_k);
  }
#undef FIELD
#undef ENUM
#undef INT
  while (*p == ' ') ++p;
  if (*p) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "descriptor: trailing '%s'", p);
  return GG_OK;
}

// ---------------------------------------------------------------------------------------
// Operand shapes (docs/semantics.md has the table).

static gg_operand_shape shape1(int64_t d0, gg_dtype t) {
  gg_operand_shape s = {1, 1, {d0, 0, 0}, t};
  return s;
}
static gg_operand_shape shape2(int64_t d0, int64_t d1, gg_dtype t) {
  gg_operand_shape s = {1, 2, {d0, d1, 0}, t};
  return s;
}
static gg_operand_shape shape3(int64_t d0, int64_t d1, int64_t d2, gg_dtype t) {
  gg_operand_shape s = {1, 3, {d0, d1, d2}, t};
  return s;
}

// m times c, staying symbolic when m is (saturating: gg_operand_sizes_check refuses it).
static int64_t times(int64_t m, int64_t c) {
  return m == GG_DYNAMIC ? GG_DYNAMIC : gg_saturating_mul(m, c);
}

static int a_is_3d(gg_layout layout) {
  return layout == GG_LAYOUT_PADDED || layout == GG_LAYOUT_BATCHED ||
         layout == GG_LAYOUT_N_OFFSETS;
}

gg_operand_shape gg_operand_shape_of(const gg_op_desc* d, gg_operand operand, int64_t m) {
  const int64_t n = d->n, k = d->k, g = d->g, kb = d->k / 128, nb = d->n / 128;
  const int blockwise = d->scaling == GG_SCALING_BLOCKWISE;
  const gg_layout layout = d->layout;
  const int n_split = layout == GG_LAYOUT_N_OFFSETS, k_split = layout == GG_LAYOUT_K_OFFSETS;
  switch (operand) {
    case GG_OPERAND_A:
      return a_is_3d(layout) ? shape3(g, m, k, GG_DTYPE_FP8) : shape2(m, k, GG_DTYPE_FP8);
    case GG_OPERAND_B:
      return (n_split || k_split) ? shape2(n, k, GG_DTYPE_FP8) : shape3(g, n, k, GG_DTYPE_FP8);
    case GG_OPERAND_A_SCALE:
      if (blockwise) {
        if (layout == GG_LAYOUT_SIZES || layout == GG_LAYOUT_OFFSETS)
          return shape1(times(m, kb), GG_DTYPE_F32);
        if (k_split) return shape2(kb, m, GG_DTYPE_F32);
        return shape3(g, kb, m, GG_DTYPE_F32);
      }
      if (k_split) return shape1(times(m, g), GG_DTYPE_F32);
      return a_is_3d(layout) ? shape2(g, m, GG_DTYPE_F32) : shape1(m, GG_DTYPE_F32);
    case GG_OPERAND_B_SCALE:
      if (blockwise)
        return (n_split || k_split) ? shape2(kb, nb, GG_DTYPE_F32)
                                    : shape3(g, kb, nb, GG_DTYPE_F32);
      if (n_split) return shape1(n, GG_DTYPE_F32);
      if (k_split) return shape1(gg_saturating_mul(g, n), GG_DTYPE_F32);
      return shape2(g, n, GG_DTYPE_F32);
    case GG_OPERAND_META:
      if (layout == GG_LAYOUT_BATCHED) {
        gg_operand_shape none = {0, 0, {0, 0, 0}, GG_DTYPE_I32};
        return none;
      }
      return shape1(g, (layout == GG_LAYOUT_SIZES || layout == GG_LAYOUT_PADDED)
                           ? GG_DTYPE_I64
                           : GG_DTYPE_I32);
    case GG_OPERAND_OUT:
      if (layout == GG_LAYOUT_SIZES || layout == GG_LAYOUT_OFFSETS || n_split)
        return shape2(m, n, GG_DTYPE_BF16);
      return shape3(g, m, n, GG_DTYPE_BF16);
    default: {
      gg_operand_shape none = {0, 0, {0, 0, 0}, GG_DTYPE_I32};
      return none;
    }
  }
}

int64_t gg_operand_shape_numel(const gg_operand_shape* shape) {
  int64_t numel = 1;
  for (int i = 0; i < shape->rank; ++i) {
    if (shape->dims[i] == GG_DYNAMIC) return GG_DYNAMIC;
    numel = gg_saturating_mul(numel, shape->dims[i]);
  }
  return shape->present ? numel : 0;
}

void gg_dims_format(const int64_t* dims, int rank, char* buffer, size_t size) {
  size_t used = (size_t)snprintf(buffer, size, "[");
  for (int r = 0; r < rank && used < size; ++r)
    used += (size_t)snprintf(buffer + used, size - used, "%s%lld", r ? ", " : "",
                             (long long)dims[r]);
  if (used < size) snprintf(buffer + used, size - used, "]");
}

gg_status gg_operand_sizes_check(const gg_op_desc* desc, int64_t m) {
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    gg_operand_shape shape = gg_operand_shape_of(desc, (gg_operand)i, m);
    if (!shape.present) continue;
    int64_t bytes = gg_saturating_mul(gg_operand_shape_numel(&shape),
                                      (int64_t)gg_dtype_size(shape.dtype));
    if (bytes > GG_MAX_OPERAND_BYTES) {
      char dims[128];
      gg_dims_format(shape.dims, shape.rank, dims, sizeof dims);
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "%s %s would hold more than 2^47 bytes, more than a process can "
                            "address",
                            gg_operand_name((gg_operand)i), dims);
    }
  }
  return GG_OK;
}

size_t gg_dtype_size(gg_dtype dtype) {
  switch (dtype) {
    case GG_DTYPE_FP8: return 1;
    case GG_DTYPE_BF16: return 2;
    case GG_DTYPE_F32:
    case GG_DTYPE_I32: return 4;
    case GG_DTYPE_I64: return 8;
  }
  return 0;
}

void gg_grouped_extent_source(const gg_op_desc* d, gg_operand* operand, int* dim) {
  *operand = GG_OPERAND_A;
  *dim = a_is_3d(d->layout) ? 1 : 0;
}

// ---------------------------------------------------------------------------------------
// Grid rules. Packed layouts bound their M tiles by total/tile_m + G: each group wastes at
// most one partial tile, so no launch needs to read the metadata on the host.

static gg_grid_dim_rule rule_const(int64_t value, int64_t divisor, int ceil, int64_t addend) {
  gg_grid_dim_rule r = {0, value, divisor, ceil, addend};
  return r;
}
static gg_grid_dim_rule rule_m(int64_t divisor, int ceil, int64_t addend) {
  gg_grid_dim_rule r = {1, 0, divisor, ceil, addend};
  return r;
}

void gg_grid_rules(const gg_op_desc* in, gg_grid_dim_rule rules[3]) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  const int64_t tm = d.tile.m, tn = d.tile.n;
  switch (d.layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS:
      rules[0] = rule_const(d.n, tn, 1, 0);
      rules[1] = rule_m(tm, 0, d.g);
      rules[2] = rule_const(1, 1, 0, 0);
      break;
    case GG_LAYOUT_N_OFFSETS:
      rules[0] = rule_const(d.n, tn, 0, d.g);
      rules[1] = rule_m(tm, 1, 0);
      rules[2] = rule_const(1, 1, 0, 0);
      break;
    default:  // padded, batched, k_offsets: one z slice per group
      rules[0] = rule_const(d.n, tn, 1, 0);
      rules[1] = rule_m(tm, 1, 0);
      rules[2] = rule_const(d.g, 1, 0, 0);
      break;
  }
}

int64_t gg_grid_dim(const gg_grid_dim_rule* rule, int64_t m) {
  int64_t x = rule->uses_m ? m : rule->constant;
  int64_t q = rule->ceil ? (x + rule->divisor - 1) / rule->divisor : x / rule->divisor;
  return q + rule->addend;
}

gg_launch_plan gg_launch_plan_of(const gg_op_desc* d, int64_t m, int zeroing) {
  gg_launch_plan plan;
  int empty = m == 0 || d->n == 0 || d->k == 0 || d->g == 0;
  plan.launch = !empty;
  plan.zero_output = empty || (d->layout == GG_LAYOUT_PADDED && zeroing);
  return plan;
}

int gg_operand_shape_memref_fields(const gg_operand_shape* shape, int64_t fields[6]) {
  int64_t stride = 1;
  for (int r = shape->rank - 1; r >= 0; --r) {
    fields[r] = shape->dims[r];
    fields[shape->rank + r] = stride;
    stride *= shape->dims[r];
  }
  return 2 * shape->rank;
}

size_t gg_operand_arg_values(const gg_op_desc* desc, void* const buffers[GG_OPERAND_COUNT],
                             int64_t m, uint64_t* values, uint8_t* is_pointer, size_t capacity) {
  size_t count = 0;
#define PUT(value, pointer)                    \
  do {                                         \
    if (count < capacity) {                    \
      values[count] = (value);                 \
      if (is_pointer) is_pointer[count] = (pointer); \
    }                                          \
    ++count;                                   \
  } while (0)
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    gg_operand_shape shape = gg_operand_shape_of(desc, (gg_operand)i, m);
    if (!shape.present) continue;
    uint64_t address = (uint64_t)(uintptr_t)buffers[i];
    PUT(address, 1);  // allocated
    PUT(address, 1);  // aligned
    PUT(0, 0);        // offset
    int64_t fields[6];
    int n = gg_operand_shape_memref_fields(&shape, fields);  // sizes, then strides
    for (int f = 0; f < n; ++f) PUT((uint64_t)fields[f], 0);
  }
#undef PUT
  return count;
}

gg_status gg_launch_check(const gg_op_desc* desc, void* const buffers[GG_OPERAND_COUNT],
                          int64_t m) {
  if (m < 0) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the grouped extent is negative");
  for (int i = 0; i < GG_OPERAND_COUNT; ++i)
    if (gg_operand_shape_of(desc, (gg_operand)i, m).present && !buffers[i])
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s is NULL", gg_operand_name((gg_operand)i));
  GG_RETURN_IF_ERROR(gg_operand_sizes_check(desc, m));
  return gg_amd_addressing_check(desc, m);
}

// One span: `count` elements of `bytes` each from a view's base must fit GG_AMD_VIEW_BYTES.
static gg_status amd_span(const gg_op_desc* d, const char* what, int64_t count, int64_t bytes,
                          const char* remedy) {
  if (gg_saturating_mul(count, bytes) <= GG_AMD_VIEW_BYTES) return GG_OK;
  return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                        "%s spans %lld bytes on %s, past the %lld bytes a buffer offset reaches "
                        "from the tile's base (32-bit offsets): %s",
                        what, (long long)gg_saturating_mul(count, bytes), gg_target_name(d->target),
                        (long long)GG_AMD_VIEW_BYTES, remedy);
}

gg_status gg_amd_addressing_check(const gg_op_desc* in, int64_t m) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  if (d.target != GG_TARGET_GFX942 && d.target != GG_TARGET_GFX950) return GG_OK;
  const int64_t tm = d.tile.m, tn = d.tile.n, kb = d.k / 128, nb = d.n / 128;
  if (m == GG_DYNAMIC) {
    GG_RETURN_IF_ERROR(amd_span(&d, "a tile's rows of A (tile_m x K)", tm * d.k, 1,
                                "use a smaller tile_m or K"));
    GG_RETURN_IF_ERROR(amd_span(&d, "a tile's rows of B (tile_n x K)", tn * d.k, 1,
                                "use a smaller tile_n or K"));
    GG_RETURN_IF_ERROR(amd_span(&d, "a tile's rows of the output (tile_m x N bf16)", tm * d.n, 2,
                                "use a smaller tile_m or N"));
    if (d.scaling == GG_SCALING_BLOCKWISE)
      GG_RETURN_IF_ERROR(amd_span(&d, "a group's w_scale blocks (K/128 x N/128)", kb * nb + nb, 4,
                                  "use a smaller K or N"));
    return GG_OK;
  }
  // x_scale's blocks of a tile's rows lie K/128 strides of (at most) m rows apart.
  if (d.scaling == GG_SCALING_BLOCKWISE)
    GG_RETURN_IF_ERROR(amd_span(&d, "a tile's x_scale blocks (K/128 x M)",
                                gg_saturating_mul(kb, m) + tm, 4, "split the launch along M"));
  return GG_OK;
}

// ---------------------------------------------------------------------------------------
// sm_90a shared memory.

static int64_t sm90_stage_bytes(const gg_op_desc* d) {
  return ((int64_t)GG_SM90_CTA_ROWS + d->tile.n) * d->tile.k;
}

// Group ends (int64 each) and the scan's per-thread partials, after the stages.
int64_t gg_sm90_group_ends_bytes(const gg_op_desc* d) {
  // The partials start 16-byte aligned: LLVM pairs their 8-byte accesses.
  return (8 * d->g + 15) / 16 * 16;
}

static int64_t sm90_ends_bytes(const gg_op_desc* d) {
  return gg_layout_has_group_ends(d->layout) ? gg_sm90_group_ends_bytes(d) + 8 * GG_SM90_THREADS : 0;
}

int64_t gg_sm90_static_shared_bytes(const gg_op_desc* in) {
  (void)in;
  // The mbarriers; the 1024-byte alignment of the dynamic window rounds them up to it.
  return 1024;
}

static int64_t sm90_epilogue_bytes(void) {
  return 128 * (GG_SM90_EPILOGUE_COLS * 2 + 16);
}

int gg_sm90_stages(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  int64_t room = GG_SM90_SHARED_CAPACITY - gg_sm90_static_shared_bytes(&d) - 1024 -
                 sm90_ends_bytes(&d) - sm90_epilogue_bytes();
  int64_t stages = room / sm90_stage_bytes(&d);
  return (int)(stages > 4 ? 4 : stages < 0 ? 0 : stages);
}

int gg_sm90_a_box_rows(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return d.tile.n == 256 ? GG_SM90_A_FEW_ROWS : GG_SM90_CTA_ROWS;
}

int gg_sm90_cluster_m(const gg_op_desc* in) {
  return in->tile.m > GG_SM90_CTA_ROWS ? in->tile.m / GG_SM90_CTA_ROWS : 1;
}

int gg_sm90_cluster_ctas(const gg_op_desc* in) {
  return gg_sm90_split_k(in) * gg_sm90_cluster_m(in);
}

int gg_sm90_b_box_rows(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return d.tile.n / gg_sm90_cluster_m(&d);
}

int64_t gg_sm90_epilogue_offset(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return gg_sm90_stages(&d) * sm90_stage_bytes(&d) + sm90_ends_bytes(&d);
}

int64_t gg_sm90_dynamic_shared_bytes(const gg_op_desc* in) {
  return 1024 + gg_sm90_epilogue_offset(in) + sm90_epilogue_bytes();
}

int gg_sm90_split_k(const gg_op_desc* in) {
  return in->tile.split_k > 1 ? in->tile.split_k : 1;
}

int gg_sm90_pingpong(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return d.target == GG_TARGET_SM90A && d.accum == GG_ACCUM_FAST &&
         d.scaling == GG_SCALING_ROWWISE && d.tile.m == GG_SM90_CTA_ROWS && d.tile.n == 128 &&
         gg_sm90_split_k(&d) == 1 && d.layout != GG_LAYOUT_K_OFFSETS;
}

int64_t gg_sm90_launch_ctas(const gg_op_desc* in, int64_t m, int resident) {
  gg_grid_dim_rule rules[3];
  gg_grid_rules(in, rules);
  int64_t cluster = gg_sm90_cluster_ctas(in);
  int64_t units = cluster;
  for (int i = 0; i < 3; ++i) units = gg_saturating_mul(units, gg_grid_dim(&rules[i], m));
  int64_t most = resident / cluster * cluster;
  return units < most ? units : most;
}

int gg_amd_waves_m(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return !gg_amd_b_in_registers(&d) && !(d.tile.m == 256 && d.tile.n == 256) ? 2 : 1;
}

int gg_amd_scale_products(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  int64_t column_blocks = d.tile.n > 128 ? d.tile.n / 128 : 1;
  return d.scaling == GG_SCALING_BLOCKWISE && d.layout != GG_LAYOUT_N_OFFSETS &&
         (int64_t)d.tile.m * column_blocks <= 256;
}

// One stage of the K loop: A, B where it goes through LDS (with_b), and on AMD the
// blockwise scales of each 128-wide K block: 256 f32 (thread t stages one product,
// gg_amd_scale_products), or 512 (thread t stages tile row t's x_scale and column t's
// w_scale).
static int64_t stage_bytes(const gg_op_desc* d, int with_b) {
  int64_t a = (int64_t)d->tile.m * d->tile.k, b = (int64_t)d->tile.n * d->tile.k;
  int amd = d->target == GG_TARGET_GFX942 || d->target == GG_TARGET_GFX950;
  int64_t per_block = (gg_amd_scale_products(d) ? 1 : 2) * 256 * 4;
  int64_t scales = amd && d->scaling == GG_SCALING_BLOCKWISE ? (d->tile.k / 128) * per_block : 0;
  return (with_b ? a + b : a) + scales;
}

// gfx950 blockwise loads A and B straight into LDS where three stages fit one workgroup a
// CU (waves_per_eu 1 or the compiler's choice), K is a multiple of 16 (a DMA moves whole
// 16-byte chunks), tiles have 64, 128 or 256 rows and columns (a wave's DMA fills 64 rows
// of a K plane) and the K trip count is a compile-time fact (the buffer of each tile is).
// Its VGPRs hold the accumulators the scaling adds to, so staging through registers
// takes copies (at 128x256: 9 an iteration with plain B, 7 with preshuffled; none with
// DMA, mfma_share 0.80 -> 0.81 and 0.75 -> 0.81). Preshuffled B goes into LDS too, each
// chunk from its preshuffled place to plain B's (with B in registers beside A's DMAs it
// priced 0.76 at 128x256 and 0.74 at 256x128, against plain's 0.81 and 0.77). Rowwise,
// staging through registers prices higher in the model (plain 128x256: 0.99 against 0.97:
// each DMA takes an address add, an M0 move and its wait state), and so does two
// workgroups a CU (preshuffled 128x128 blockwise at waves_per_eu 2: 0.72 against 0.66). Not past 128 accumulator
// registers a lane (256x256): they fill the VGPRs either way, and preshuffled 256x256,
// whose three A stages fit, spilled more with DMA (140 -> 224 bytes of scratch).
static int lds_dma_fits(const gg_op_desc* d) {
  int rows_ok = (d->tile.m == 64 || d->tile.m == 128 || d->tile.m == 256) &&
                (d->tile.n == 64 || d->tile.n == 128 || d->tile.n == 256);
  return d->target == GG_TARGET_GFX950 && d->scaling == GG_SCALING_BLOCKWISE &&
         d->k % 16 == 0 && rows_ok && d->layout != GG_LAYOUT_K_OFFSETS &&
         (int64_t)d->tile.m * d->tile.n <= 256 * 128 && d->tile.waves_per_eu <= 1 &&
         3 * stage_bytes(d, 1) <= gg_lds_capacity(d->target);
}

int gg_amd_b_in_registers(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return d.b_layout == GG_B_PRESHUFFLED && !lds_dma_fits(&d);
}

static int64_t stage_lds_bytes(const gg_op_desc* d) { return stage_bytes(d, !gg_amd_b_in_registers(d)); }

int gg_amd_lds_buffers(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  int amd = d.target == GG_TARGET_GFX942 || d.target == GG_TARGET_GFX950;
  if (lds_dma_fits(&d)) return 3;
  // Preshuffled B stages A alone: two buffers, on AMD where two fit the chip (gfx942's
  // 64 KiB holds two 256x128 A stages but not with their blockwise scales: one buffer then).
  if (gg_amd_b_in_registers(&d))
    return !amd || 2 * stage_lds_bytes(&d) <= gg_lds_capacity(d.target) ? 2 : 1;
  // The alternation must be a compile-time fact of each mma: k_offsets' K trip count is
  // a runtime value.
  if (!amd || d.layout == GG_LAYOUT_K_OFFSETS) return 1;
  // Two buffers, unless they would keep out a workgroup waves_per_eu asks for (gfx942's
  // 64 KiB holds two 128x128x128 stages for one workgroup, or one stage each for two).
  int workgroups = d.tile.waves_per_eu > 1 ? d.tile.waves_per_eu : 1;
  return 2 * stage_lds_bytes(&d) * workgroups <= gg_lds_capacity(d.target) ? 2 : 1;
}

int gg_amd_lds_dma(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return gg_amd_lds_buffers(&d) == 3;
}

int64_t gg_amd_loop_lds_bytes(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  return gg_amd_lds_buffers(&d) * stage_lds_bytes(&d);
}

int64_t gg_amd_lds_buffer_bytes(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  if (!gg_amd_lds_dma(&d)) return gg_amd_lds_bytes(&d);
  int64_t stage = stage_lds_bytes(&d);
  int64_t epilogue = 2 * (int64_t)d.tile.m * d.tile.n / gg_epilogue_parts(&d);
  return stage > epilogue ? stage : epilogue;
}

int gg_epilogue_parts(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  // With LDS DMA the band lives in the first buffer's allocation, not across all three.
  int64_t loop = gg_amd_lds_dma(&d) ? stage_lds_bytes(&d) : gg_amd_loop_lds_bytes(&d);
  int64_t tm = d.tile.m, tn = d.tile.n, waves_m = gg_amd_waves_m(&d);
  int parts = 1;
  // Halve the band while it needs more LDS than the loop and a half band still holds whole
  // 16-row MFMA blocks of every wave row (a band takes the same rows of each) and whole
  // store passes (8 columns for each of 256 threads).
  while (2 * tm * tn / parts > loop && tm % (2 * parts) == 0 &&
         tm / (2 * parts) % (16 * waves_m) == 0 && (tm / (2 * parts)) * tn % (8 * 256) == 0)
    parts *= 2;
  return parts;
}

int64_t gg_amd_lds_bytes(const gg_op_desc* in) {
  gg_op_desc d = gg_op_desc_with_defaults(in);
  if (gg_amd_lds_dma(&d)) return 3 * gg_amd_lds_buffer_bytes(&d);
  int64_t loop = gg_amd_loop_lds_bytes(&d);
  int64_t epilogue = 2 * (int64_t)d.tile.m * d.tile.n / gg_epilogue_parts(&d);
  return loop > epilogue ? loop : epilogue;
}

int64_t gg_lds_capacity(gg_target target) {
  switch (target) {
    case GG_TARGET_GFX942: return 64 * 1024;
    case GG_TARGET_GFX950: return 160 * 1024;
    default: return 0;
  }
}
