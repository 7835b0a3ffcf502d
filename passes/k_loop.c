// gg-k-loop{mode=auto|rolled|unrolled}: restructures the canonical K loops of gg-tile
// (scf.for carrying {gg.loop = "rolled"|"unrolled"}).
//
// rolled: the next tile's loads are issued before the current tile computes, and the
//   loaded tiles ride the loop beside the accumulator. With a static trip count T >= 2
//   the loop covers tiles 0..T-3 (prefetching 1..T-2) and the last two tiles are peeled,
//   so the body only ever loads full tiles and a K tail predicate can live only in the
//   peeled load. With a runtime trip count (k_offsets) the loop covers 0..T-2 and one
//   tile is peeled; its loads stay masked.
// unrolled: one load/mma step per tile, straight-line (static trip counts only).
//
// Where the loop says its tiles alternate between two LDS buffers (gg.lds_buffers = 2,
// which gg-tile sets for preshuffled B, and for AMD plain B where two stages fit; without
// the attribute, a load_tile with operand "b_preshuffled"), each mma is tagged
// gg.lds_buffer = its tile's parity, and the rolled form steps by pairs of tiles so that
// the parity stays a compile-time fact inside the body: the loop covers the pairs whose
// successor tile exists (prefetching it), and the one or two tiles left are peeled. With
// gg.prefetch = 2 the loads run two tiles ahead instead (emit_ahead), so that a tile can be
// staged while the previous one computes. Three buffers (gg.lds_buffers = 3, gfx950's LDS
// DMA) take gg.prefetch = 2: tile t's loads and mma are tagged with buffer t % 3, the
// rolled loop steps by threes, and each mma says whether the next tile's loads were issued
// before it (gg.next_loaded), which is what its wait for its own loads may leave in
// flight. A loop of one LDS buffer whose preshuffled B goes straight into registers steps
// by pairs too (untagged), while its accumulator is at most 256x128: each tile's B then
// lands in registers no longer read, with no back-edge copies.
//
// Both forms add the tiles into the accumulator in the same order, so results are
// bit-identical. mode=auto follows each loop's attribute.
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "dialect/dialect.h"
#include "passes/bounds.h"
#include "passes/pass.h"

#define GG_PAIRED_ACC_ELEMENTS (256 * 128)

typedef enum k_loop_mode { MODE_AUTO = 0, MODE_ROLLED, MODE_UNROLLED } k_loop_mode;

typedef struct k_loop_options {
  k_loop_mode mode;
} k_loop_options;

static gg_status parse_options(const char* text, void* out) {
  k_loop_options* options = out;
  gg_option option;
  gg_status status = GG_OK;
  while (gg_option_next(&text, &option, &status)) {
    if (strcmp(option.key, "mode") != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown option '%s' (mode=auto|rolled|unrolled)",
                            option.key);
    if (!strcmp(option.value, "auto")) options->mode = MODE_AUTO;
    else if (!strcmp(option.value, "rolled")) options->mode = MODE_ROLLED;
    else if (!strcmp(option.value, "unrolled")) options->mode = MODE_UNROLLED;
    else
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "mode must be auto, rolled or unrolled, not '%s'",
                            option.value);
  }
  return status;
}

// The parts of a canonical K loop: body = [load group..., mma, yield].
typedef struct k_loop {
  MlirOperation loop;
  MlirOperation mma;
  MlirValue iv;
  MlirValue acc_arg;
  MlirValue lb, ub, step, init;
  int load_count;        // mma operands other than the accumulator
  MlirValue loads[4];    // in mma operand order, excluding acc (operand 2)
  int load_positions[4];
  int buffers;           // the LDS buffers the mmas rotate through (gg.lds_buffers: 1 to 3)
  // One LDS buffer, but preshuffled B loaded straight into registers: the rolled loop steps
  // by pairs of tiles all the same, so that each tile's B lands in the registers the tile
  // before last read and nothing is copied at the back edge (gfx942 blockwise 256x128: 8
  // copies -> 0, mfma_share 0.84 -> 0.86). Only up to GG_PAIRED_ACC_ELEMENTS accumulators:
  // the pair keeps a second tile's B live, for which 256x256's leave no registers
  // (gfx942 blockwise 256x256 paired: 672 bytes of scratch, 0.83 -> 0.19).
  bool pairs;
  int prefetch;          // how many tiles ahead the loads run (gg.prefetch: 1 or 2)
} k_loop;

// The accumulator's elements (0 where its type is not shaped).
static int64_t accumulator_elements(MlirValue acc) {
  MlirType type = mlirValueGetType(acc);
  if (!mlirTypeIsAShaped(type) || !mlirShapedTypeHasStaticShape(type)) return 0;
  int64_t n = 1;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(type); ++i) n *= mlirShapedTypeGetDimSize(type, i);
  return n;
}

static bool analyze(MlirOperation loop, k_loop* k) {
  memset(k, 0, sizeof *k);
  k->loop = loop;
  if (mlirOperationGetNumOperands(loop) != 4 || mlirOperationGetNumResults(loop) != 1) {
    gg_emit_error(loop, "gg-k-loop: a K loop carries exactly one accumulator");
    return false;
  }
  k->lb = mlirOperationGetOperand(loop, 0);
  k->ub = mlirOperationGetOperand(loop, 1);
  k->step = mlirOperationGetOperand(loop, 2);
  k->init = mlirOperationGetOperand(loop, 3);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  k->iv = mlirBlockGetArgument(body, 0);
  k->acc_arg = mlirBlockGetArgument(body, 1);
  int mmas = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (gg_is_mma(op)) {
      k->mma = op;
      ++mmas;
    }
    char operand[32];
    if (gg_op_is(op, GG_OP_LOAD_TILE) && gg_attr_string(op, "operand", operand, sizeof operand) &&
        !strcmp(operand, "b_preshuffled")) {
      k->pairs = true;
      k->buffers = 2;  // without gg.lds_buffers: B alternates A's buffers
    }
  }
  int64_t buffers = k->buffers ? k->buffers : 1, prefetch = 1;
  gg_attr_int(loop, "gg.lds_buffers", &buffers);
  gg_attr_int(loop, "gg.prefetch", &prefetch);
  if (buffers < 1 || buffers > 3 || (prefetch != 1 && prefetch != 2) ||
      (prefetch == 2 && buffers == 1) || (buffers == 3 && prefetch != 2)) {
    gg_emit_error(loop, "gg-k-loop: gg.lds_buffers must be 1, 2 or 3 and gg.prefetch 1 or 2 (2 only "
                        "with two or three buffers, and always with three), not %lld and %lld",
                  (long long)buffers, (long long)prefetch);
    return false;
  }
  int64_t accs = accumulator_elements(k->init);
  k->pairs = k->pairs && buffers == 1 && accs > 0 && accs <= GG_PAIRED_ACC_ELEMENTS;
  k->buffers = (int)buffers;
  k->prefetch = (int)prefetch;
  if (mmas != 1) {
    gg_emit_error(loop, "gg-k-loop: a K loop holds exactly one mma, found %d", mmas);
    return false;
  }
  intptr_t n = mlirOperationGetNumOperands(k->mma);
  if (!mlirValueEqual(mlirOperationGetOperand(k->mma, 2), k->acc_arg) || n > 5) {
    gg_emit_error(k->mma, "gg-k-loop: the mma must accumulate into the loop's accumulator");
    return false;
  }
  for (intptr_t i = 0; i < n; ++i) {
    if (i == 2) continue;
    k->load_positions[k->load_count] = (int)i;
    k->loads[k->load_count++] = mlirOperationGetOperand(k->mma, i);
  }
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (!mlirValueEqual(mlirOperationGetOperand(yield, 0), mlirOperationGetResult(k->mma, 0))) {
    gg_emit_error(loop, "gg-k-loop: the loop must yield the mma's result");
    return false;
  }
  return true;
}

// Whether the mmas alternate between LDS buffers (ping-pong), each tagged with its own.
static bool pingpong(const k_loop* k) { return k->buffers >= 2; }

static void tag_lds_buffer(const k_loop* k, MlirOperation op, int64_t tile) {
  if (!pingpong(k)) return;
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(op, gg_str("gg.lds_buffer"),
                                             mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), tile % k->buffers));
}

// Clones the load group (every body op but the mma and the yield) before `before` with
// the induction variable bound to k; returns the loaded values in `out`. With ping-pong
// the tile and scale loads are tagged with the LDS buffer of tile number `tile` (a
// lowering that loads straight into LDS writes there, and tells the loads of one tile
// from another's by it).
static void emit_loads(const k_loop* k, MlirValue at_k, int64_t tile, MlirOperation before,
                       MlirValue* out) {
  gg_value_map map = {0};
  gg_value_map_set(&map, k->iv, at_k);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(k->loop, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationEqual(op, k->mma) || gg_op_is(op, "scf.yield")) continue;
    MlirOperation clone = gg_clone_before(op, before, &map);
    if (gg_op_is(clone, GG_OP_LOAD_TILE) || gg_op_is(clone, GG_OP_LOAD_SCALES))
      tag_lds_buffer(k, clone, tile);
  }
  for (int i = 0; i < k->load_count; ++i) out[i] = gg_value_map_get(&map, k->loads[i]);
  gg_value_map_free(&map);
}

// Clones the mma before `before` on the given tiles and accumulator; returns its result.
// With ping-pong the clone is tagged with the LDS buffer of tile number `tile`, and with
// three buffers with whether the next tile's loads precede it (`next_loaded`).
static MlirValue emit_mma(const k_loop* k, const MlirValue* tiles, MlirValue acc, int64_t tile,
                          bool next_loaded, MlirOperation before) {
  gg_value_map map = {0};
  for (int i = 0; i < k->load_count; ++i) gg_value_map_set(&map, k->loads[i], tiles[i]);
  gg_value_map_set(&map, k->acc_arg, acc);
  MlirOperation clone = gg_clone_before(k->mma, before, &map);
  gg_value_map_free(&map);
  tag_lds_buffer(k, clone, tile);
  if (k->buffers == 3)
    mlirOperationSetDiscardableAttributeByName(
        clone, gg_str("gg.next_loaded"), mlirBoolAttrGet(mlirOperationGetContext(clone), next_loaded));
  return mlirOperationGetResult(clone, 0);
}

static bool index_constant(MlirOperation before, int64_t value, MlirValue* out) {
  char text[160];
  snprintf(text, sizeof text,
           "func.func @c() -> index {\n  %%c = arith.constant %lld : index\n  return %%c : index\n}",
           (long long)value);
  return gg_inline_template(before, text, NULL, 0, out, 1);
}

static bool index_add(MlirOperation before, MlirValue a, MlirValue b, MlirValue* out) {
  MlirValue args[2] = {a, b};
  return gg_inline_template(before,
                            "func.func @add(%a: index, %b: index) -> index {\n"
                            "  %s = arith.addi %a, %b : index\n  return %s : index\n}",
                            args, 2, out, 1);
}

// The start of the last tile for a runtime trip count: lb + max(ceil((ub-lb)/s) - 1, 0) s.
static bool last_start_dynamic(const k_loop* k, MlirOperation before, MlirValue* out) {
  MlirValue args[3] = {k->lb, k->ub, k->step};
  return gg_inline_template(before,
                            "func.func @last(%lb: index, %ub: index, %s: index) -> index {\n"
                            "  %c0 = arith.constant 0 : index\n"
                            "  %c1 = arith.constant 1 : index\n"
                            "  %span = arith.subi %ub, %lb : index\n"
                            "  %span0 = arith.maxsi %span, %c0 : index\n"
                            "  %trips = arith.ceildivsi %span0, %s : index\n"
                            "  %tm1 = arith.subi %trips, %c1 : index\n"
                            "  %t = arith.maxsi %tm1, %c0 : index\n"
                            "  %off = arith.muli %t, %s : index\n"
                            "  %last = arith.addi %lb, %off : index\n"
                            "  return %last : index\n}",
                            args, 3, out, 1);
}

// Builds `scf.for %k = lb to ub step (tiles s) iter_args(acc = init, loaded...)` before
// `before` whose body computes `tiles` consecutive tiles, each while the loads `depth`
// tiles ahead of it (at k + depth s, ...) are in flight: the loop carries the loaded tiles
// of the next `depth` tiles (window0 holds them for its first iteration, depth x
// load_count values, nearest first). Returns the loop's results: the accumulator, then the
// window it leaves.
static bool emit_prefetch_loop(const k_loop* k, MlirValue lb, MlirValue init, MlirValue ub,
                               int tiles, int depth, int64_t first_tile, const MlirValue* window0,
                               MlirOperation before, MlirValue* results) {
  gg_text t;
  gg_text_init(&t);
  MlirValue args[12], loop_step = k->step;
  if (tiles > 1) {
    int64_t step;
    if (!gg_value_constant(k->step, &step) || !index_constant(before, step * tiles, &loop_step))
      return false;
  }
  int carried = depth * k->load_count;
  int argc = 0;
  args[argc++] = lb;
  args[argc++] = ub;
  args[argc++] = loop_step;
  args[argc++] = init;
  gg_text_printf(&t, "func.func @prefetch(%%lb: index, %%ub: index, %%s: index, %%init: ");
  gg_text_type(&t, mlirValueGetType(k->init));
  for (int i = 0; i < carried; ++i) {
    args[argc++] = window0[i];
    gg_text_printf(&t, ", %%p%d: ", i);
    gg_text_type(&t, mlirValueGetType(window0[i]));
  }
  gg_text t_types;
  gg_text_init(&t_types);
  gg_text_type(&t_types, mlirValueGetType(k->init));
  for (int i = 0; i < carried; ++i) {
    gg_text_printf(&t_types, ", ");
    gg_text_type(&t_types, mlirValueGetType(window0[i]));
  }
  gg_text_printf(&t, ") -> (%s) {\n", gg_text_str(&t_types));
  gg_text_printf(&t, "  %%r:%d = scf.for %%k = %%lb to %%ub step %%s iter_args(%%acc = %%init",
                 1 + carried);
  for (int i = 0; i < carried; ++i) gg_text_printf(&t, ", %%q%d = %%p%d", i, i);
  gg_text_printf(&t, ") -> (%s) {\n    scf.yield %%acc", gg_text_str(&t_types));
  for (int i = 0; i < carried; ++i) gg_text_printf(&t, ", %%q%d", i);
  gg_text_printf(&t, " : %s\n  } {gg.loop = \"prefetch\"}\n  return %%r#0", gg_text_str(&t_types));
  for (int i = 0; i < carried; ++i) gg_text_printf(&t, ", %%r#%d", i + 1);
  gg_text_printf(&t, " : %s\n}\n", gg_text_str(&t_types));
  bool ok = !t.failed && gg_inline_template(before, gg_text_str(&t), args, argc, results, 1 + carried);
  gg_text_free(&t);
  gg_text_free(&t_types);
  if (!ok) return false;

  MlirOperation loop = mlirOpResultGetOwner(results[0]);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirValue iv = mlirBlockGetArgument(body, 0);
  MlirValue acc = mlirBlockGetArgument(body, 1);
  MlirValue window[8], at = iv;  // depth x load_count, nearest tile first
  for (int i = 0; i < carried; ++i) window[i] = mlirBlockGetArgument(body, 2 + i);
  for (int d = 0; d < depth; ++d)
    if (!index_add(yield, at, k->step, &at)) return false;  // the first load is depth tiles ahead
  for (int j = 0; j < tiles; ++j) {
    MlirValue next[4];
    emit_loads(k, at, first_tile + j + depth, yield, next);
    // tiles is a multiple of the buffers: each tile's buffer repeats every iteration.
    acc = emit_mma(k, window, acc, first_tile + j, true, yield);
    memmove(window, window + k->load_count, (size_t)(carried - k->load_count) * sizeof *window);
    memcpy(window + carried - k->load_count, next, (size_t)k->load_count * sizeof *window);
    if (j + 1 < tiles && !index_add(yield, at, k->step, &at)) return false;
  }
  mlirOperationSetOperand(yield, 0, acc);
  for (int i = 0; i < carried; ++i) mlirOperationSetOperand(yield, 1 + i, window[i]);
  return true;
}

// One straight-line load/mma step for tile number `tile` at constant k.
static bool emit_step(const k_loop* k, int64_t at, int64_t tile, MlirValue* acc,
                      MlirOperation before) {
  MlirValue kv, tiles[4];
  if (!index_constant(before, at, &kv)) return false;
  emit_loads(k, kv, tile, before, tiles);
  *acc = emit_mma(k, tiles, *acc, tile, false, before);
  return true;
}

// The pair-rolled form of ping-pong K loops, and of one-buffer loops with B in registers
// (k->pairs), for trips >= 3. The loop holds pairs of tiles, each iteration prefetching
// the tile after its pair, and is placed so that exactly one tile remains after it, whose
// loads the last iteration issued: with an even trip count the first tile is peeled in
// front (a ping-pong loop's pairs then start on buffer 1). No loads follow the loop, so
// nothing that addresses them stays live past it.
static bool emit_pair_rolled(const k_loop* k, int64_t lb, int64_t step, int64_t trips,
                             MlirValue* acc) {
  MlirValue tiles[4], results[5], k0, loop_lb, loop_ub;
  int64_t first = trips % 2 == 0 ? 1 : 0;  // tiles peeled in front
  int64_t pairs = (trips - 1 - first) / 2;
  if (!index_constant(k->loop, lb, &k0)) return false;
  emit_loads(k, k0, 0, k->loop, tiles);
  MlirValue loop_init = k->init;
  if (first) {
    MlirValue k1, next[4];
    if (!index_constant(k->loop, lb + step, &k1)) return false;
    emit_loads(k, k1, 1, k->loop, next);
    loop_init = emit_mma(k, tiles, k->init, 0, true, k->loop);
    memcpy(tiles, next, sizeof tiles);
  }
  if (!index_constant(k->loop, lb + first * step, &loop_lb) ||
      !index_constant(k->loop, lb + (first + 2 * pairs) * step, &loop_ub))
    return false;
  if (!emit_prefetch_loop(k, loop_lb, loop_init, loop_ub, 2, 1, first, tiles, k->loop, results))
    return false;
  *acc = emit_mma(k, results + 1, results[0], trips - 1, false, k->loop);
  return true;
}

// Two tiles ahead (gg.prefetch = 2, static trip count T): each tile's loads are issued
// two tiles before it computes, so that gg-to-amdgpu can stage a tile into its LDS buffer
// while the previous tile's MFMAs run and issue the loads of the tile after it into the
// same registers (or, with three buffers, load it straight into the buffer of the tile
// after next): a load then has a whole tile's MFMAs to arrive. Order: loads of tiles 0
// and 1, then per tile t the loads of t + 2 and the mma of t. Tile 0 is peeled (its own
// staging comes first); groups of as many tiles as there are buffers roll while every
// load of the group is a full tile (at most T - 2, so a K tail predicate lives only in a
// peeled load); the rest is peeled. Unrolled, every tile is peeled in the same order.
static bool emit_ahead(const k_loop* k, int64_t lb, int64_t step, int64_t trips, bool rolled,
                       MlirValue* acc) {
  MlirValue window[8], kv;  // the loaded tiles of t and t + 1
  int n = k->load_count;
  for (int64_t t = 0; t < 2 && t < trips; ++t) {
    if (!index_constant(k->loop, lb + t * step, &kv)) return false;
    emit_loads(k, kv, t, k->loop, window + t * n);
  }
  // Groups (j .. j + g - 1) from j = 1 while j + g + 1 <= T - 2.
  int g = k->buffers;
  int64_t groups = rolled && trips >= 4 + g ? (trips - 4) / g : 0;
  int64_t t = 0;
  while (t < trips) {
    if (t == 1 && groups > 0) {
      MlirValue loop_lb, loop_ub, results[9];
      if (!index_constant(k->loop, lb + step, &loop_lb) ||
          !index_constant(k->loop, lb + (1 + g * groups) * step, &loop_ub) ||
          !emit_prefetch_loop(k, loop_lb, *acc, loop_ub, g, 2, 1, window, k->loop, results))
        return false;
      *acc = results[0];
      memcpy(window, results + 1, (size_t)(2 * n) * sizeof *window);
      t += g * groups;
      continue;
    }
    MlirValue next[4];
    bool load = t + 2 < trips;
    if (load) {
      if (!index_constant(k->loop, lb + (t + 2) * step, &kv)) return false;
      emit_loads(k, kv, t + 2, k->loop, next);
    }
    *acc = emit_mma(k, window, *acc, t, t + 1 < trips, k->loop);
    memmove(window, window + n, (size_t)n * sizeof *window);
    if (load) memcpy(window + n, next, (size_t)n * sizeof *window);
    ++t;
  }
  return true;
}

static bool transform(MlirOperation loop, k_loop_mode mode) {
  k_loop k;
  if (!analyze(loop, &k)) return false;
  int64_t lb, ub, step;
  bool static_trips = gg_value_constant(k.lb, &lb) && gg_value_constant(k.ub, &ub) &&
                      gg_value_constant(k.step, &step) && step > 0;
  if (mode == MODE_UNROLLED && !static_trips) {
    gg_emit_error(loop,
                  "gg-k-loop: cannot unroll a K loop whose trip count is a runtime value "
                  "(the k_offsets layout); use the rolled form");
    return false;
  }
  MlirValue acc = k.init;
  if (static_trips) {
    int64_t trips = ub > lb ? (ub - lb + step - 1) / step : 0;
    if (mode == MODE_UNROLLED && trips > GG_MAX_UNROLLED_K_TILES) {
      gg_emit_error(loop,
                    "gg-k-loop: the unrolled K loop would hold %lld tiles; gg unrolls at most %d "
                    "(code size and compile time grow with each): use the rolled form",
                    (long long)trips, GG_MAX_UNROLLED_K_TILES);
      return false;
    }
    if (k.prefetch == 2) {
      if (!emit_ahead(&k, lb, step, trips, mode != MODE_UNROLLED, &acc)) return false;
    } else if (mode == MODE_UNROLLED || trips <= (pingpong(&k) || k.pairs ? 2 : 1)) {
      for (int64_t t = 0; t < trips; ++t)
        if (!emit_step(&k, lb + t * step, t, &acc, loop)) return false;
    } else if (pingpong(&k) || k.pairs) {
      if (!emit_pair_rolled(&k, lb, step, trips, &acc)) return false;
    } else {
      MlirValue k0, loop_ub, tiles0[4], results[5], k_last, last[4];
      if (!index_constant(loop, lb, &k0) || !index_constant(loop, lb + (trips - 2) * step, &loop_ub))
        return false;
      emit_loads(&k, k0, 0, loop, tiles0);
      if (!emit_prefetch_loop(&k, k.lb, k.init, loop_ub, 1, 1, 0, tiles0, loop, results))
        return false;
      // Peeled: the last tile's loads first (they overlap the next-to-last compute).
      if (!index_constant(loop, lb + (trips - 1) * step, &k_last)) return false;
      emit_loads(&k, k_last, trips - 1, loop, last);
      acc = emit_mma(&k, results + 1, results[0], trips - 2, true, loop);
      acc = emit_mma(&k, last, acc, trips - 1, false, loop);
    }
  } else {
    if (pingpong(&k)) {
      gg_emit_error(loop, "gg-k-loop: alternating LDS buffers (preshuffled B) need a static K "
                          "trip count");
      return false;
    }
    MlirValue tiles0[4], results[5], last_start;
    emit_loads(&k, k.lb, 0, loop, tiles0);
    if (!last_start_dynamic(&k, loop, &last_start)) return false;
    if (!emit_prefetch_loop(&k, k.lb, k.init, last_start, 1, 1, 0, tiles0, loop, results))
      return false;
    acc = emit_mma(&k, results + 1, results[0], 0, false, loop);
  }
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(loop, 0), acc);
  mlirOperationDestroy(loop);
  return true;
}

static bool run(MlirOperation func, const void* raw_options) {
  const k_loop_options* options = raw_options;
  gg_op_list loops = {0};
  gg_collect_ops(func, "scf.for", &loops);
  bool ok = true;
  for (size_t i = 0; i < loops.count && ok; ++i) {
    char form[16];
    if (!gg_attr_string(loops.ops[i], "gg.loop", form, sizeof form)) continue;
    k_loop_mode mode = options->mode;
    if (mode == MODE_AUTO) {
      if (!strcmp(form, "rolled")) mode = MODE_ROLLED;
      else if (!strcmp(form, "unrolled")) mode = MODE_UNROLLED;
      else continue;  // already restructured
    } else if (strcmp(form, "rolled") != 0 && strcmp(form, "unrolled") != 0) {
      continue;
    }
    ok = transform(loops.ops[i], mode);
  }
  gg_op_list_free(&loops);
  return ok;
}

const gg_pass_info gg_k_loop_pass = {
    .argument = "gg-k-loop",
    .summary = "Roll the K loop with prefetch and a peeled tail, or unroll it",
    .anchor = "func.func",
    .options_size = sizeof(k_loop_options),
    .parse_options = parse_options,
    .run = run,
};
