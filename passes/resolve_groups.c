// gg-resolve-groups: lowers gg.resolve_group, the only layout-aware step of the pipeline.
//
// sizes, offsets, n_offsets: groups are packed along an axis. gg.group_ends gives their
// ends (computed on the device once per launch, no host read); each tile finds its group
// by a binary search over them, O(log G) loads; tiles past the last group retire
// (valid = false). The grid is bounded on the host by total/tile + G.
// padded, batched, k_offsets: the group is the grid's z index; padded reads its valid
// rows, k_offsets its K range.
//
// Every extent read from metadata is clamped to the axis, so bad metadata can never
// address memory outside the operands (docs/semantics.md).
#include <stdio.h>

#include "ir/ir.h"
#include "dialect/dialect.h"
#include "passes/group_ends.h"
#include "passes/pass.h"

typedef struct layout_params {
  int tm, tn;
  long long n, k, g;
  int blockwise;
} layout_params;

// The SSA names each frame field is returned from.
typedef const char* frame_names[GG_FRAME_COUNT];

// Emits `%name = arith.<op> %lhs, %rhs : index`.
static void emit_op(gg_text* t, const char* name, const char* op, const char* lhs, const char* rhs) {
  gg_text_printf(t, "  %%%s = arith.%s %s, %s : index\n", name, op, lhs, rhs);
}

// Packed groups: the tile with slot index `tile_index` belongs to the largest group g whose
// first slot, start(g) / tile + g, is at most the index (%meta holds the groups' ends from
// gg.group_ends, monotone and clamped to the axis). Each group owns ceil(extent / tile)
// slots from its first, and the grid's floor(total / tile) + G slots hold them all, since
// floor((s + e) / tile) + 1 >= floor(s / tile) + ceil(e / tile). A binary search of
// bit_length(G) steps (O(log G) loads per tile) finds g. Defines %valid, %group, %gstart,
// %gsize and %local (the tile's index within its group).
static void emit_search(gg_text* t, const char* ends_type, const char* tile_index,
                        const char* tile_size, long long g) {
  int steps = 0;
  for (long long v = g; v > 0; v >>= 1) ++steps;
  gg_text_printf(t, "  %%c2 = arith.constant 2 : index\n  %%steps = arith.constant %d : index\n",
                 steps);
  gg_text_printf(t,
                 "  %%bs:2 = scf.for %%i = %%c0 to %%steps step %%c1 iter_args(%%lo = %%c0, "
                 "%%hi = %%G) -> (index, index) {\n"
                 "    %%sum = arith.addi %%lo, %%hi : index\n"
                 "    %%mid = arith.divui %%sum, %%c2 : index\n");
  gg_emit_group_start(t, "    ", "ms", "%mid", "%meta", ends_type);
  gg_text_printf(t,
                 "    %%mq = arith.divsi %%ms, %s : index\n"
                 "    %%mslot = arith.addi %%mq, %%mid : index\n"
                 "    %%le = arith.cmpi sle, %%mslot, %s : index\n"
                 "    %%lo_n = arith.select %%le, %%mid, %%lo : index\n"
                 "    %%hi_n = arith.select %%le, %%hi, %%mid : index\n"
                 "    scf.yield %%lo_n, %%hi_n : index, index\n  }\n",
                 tile_size, tile_index);
  gg_text_printf(t, "  %%group = arith.addi %%bs#0, %%c0 : index\n");
  gg_emit_group_start(t, "  ", "gstart", "%group", "%meta", ends_type);
  gg_text_printf(t,
                 "  %%gend_raw = memref.load %%meta[%%group] : %s\n"
                 "  %%gend = arith.index_cast %%gend_raw : i64 to index\n"
                 "  %%gsize = arith.subi %%gend, %%gstart : index\n"
                 "  %%gq = arith.divsi %%gstart, %s : index\n"
                 "  %%gslot = arith.addi %%gq, %%group : index\n"
                 "  %%local = arith.subi %s, %%gslot : index\n"
                 "  %%gtiles = arith.ceildivsi %%gsize, %s : index\n"
                 "  %%valid = arith.cmpi slt, %%local, %%gtiles : index\n",
                 ends_type, tile_size, tile_index, tile_size);
}

// The frame of a tile whose group owns a whole [N, K] of B (packed M, slabs), from the
// %a_row and %row_limit the caller defined: B and output columns, K, and the scale fields
// except where blockwise x_scale blocks sit (SA_ROW, SA_KSTRIDE: the caller's).
static void emit_whole_b_frame(gg_text* t, frame_names f, const layout_params* p,
                               const char* valid, const char* group) {
  emit_op(t, "col0", "muli", "%bx", "%tn");
  emit_op(t, "gn", "muli", group, "%n");
  emit_op(t, "b_row", "addi", "%gn", "%col0");
  emit_op(t, "col_limit", "subi", "%n", "%col0");
  f[GG_FRAME_VALID] = valid;
  f[GG_FRAME_GROUP] = group;
  f[GG_FRAME_A_ROW] = f[GG_FRAME_OUT_ROW] = "%a_row";
  f[GG_FRAME_ROW_LIMIT] = "%row_limit";
  f[GG_FRAME_B_ROW] = "%b_row";
  f[GG_FRAME_COL_LIMIT] = "%col_limit";
  f[GG_FRAME_OUT_COL] = f[GG_FRAME_SB_COL] = "%col0";
  f[GG_FRAME_K_LO] = "%c0";
  f[GG_FRAME_K_HI] = "%k";
  if (p->blockwise) {  // w_scale [G, K/128, N/128]
    emit_op(t, "sb_base", "muli", group, "%kbnb");
    f[GG_FRAME_SB_BASE] = "%sb_base";
    f[GG_FRAME_SB_KSTRIDE] = "%nb";
  } else {
    f[GG_FRAME_SA_ROW] = "%a_row";
    f[GG_FRAME_SA_KSTRIDE] = f[GG_FRAME_SB_KSTRIDE] = "%c0";
    f[GG_FRAME_SB_BASE] = "%gn";
  }
}

// Groups packed along M (sizes, offsets).
static void emit_packed_m(gg_text* t, frame_names f, const layout_params* p,
                          const char* ends_type) {
  emit_search(t, ends_type, "%by", "%tm", p->g);
  emit_op(t, "off", "muli", "%local", "%tm");
  emit_op(t, "a_row", "addi", "%gstart", "%off");
  emit_op(t, "row_limit", "subi", "%gsize", "%off");
  emit_whole_b_frame(t, f, p, "%valid", "%group");
  if (p->blockwise) {  // x_scale per group: [K/128, M_g] at (group row start) K/128
    emit_op(t, "gskb", "muli", "%gstart", "%kb");
    emit_op(t, "sa_row", "addi", "%gskb", "%off");
    f[GG_FRAME_SA_ROW] = "%sa_row";
    f[GG_FRAME_SA_KSTRIDE] = "%gsize";
  }
}

// One slab of `ext` rows per group, the group on grid z (padded, batched).
static void emit_slabs(gg_text* t, frame_names f, const layout_params* p, const char* meta_type) {
  const char* rows = "%ext";
  if (meta_type) {  // padded: the first zero_start_index_M[g] rows are valid
    gg_text_printf(t, "  %%raw = memref.load %%meta[%%bz] : %s\n", meta_type);
    gg_text_printf(t, "  %%v = arith.index_cast %%raw : i64 to index\n");
    emit_op(t, "v0", "maxsi", "%v", "%c0");
    emit_op(t, "rows", "minsi", "%v0", "%ext");
    rows = "%rows";
  }
  emit_op(t, "row0", "muli", "%by", "%tm");
  gg_text_printf(t, "  %%valid = arith.cmpi slt, %%row0, %s : index\n", rows);
  emit_op(t, "slab", "muli", "%bz", "%ext");
  emit_op(t, "a_row", "addi", "%slab", "%row0");
  emit_op(t, "row_limit", "subi", rows, "%row0");
  emit_whole_b_frame(t, f, p, "%valid", "%bz");
  if (p->blockwise) {  // x_scale [G, K/128, M]
    emit_op(t, "gkb", "muli", "%bz", "%kb");
    emit_op(t, "gkbm", "muli", "%gkb", "%ext");
    emit_op(t, "sa_row", "addi", "%gkbm", "%row0");
    f[GG_FRAME_SA_ROW] = "%sa_row";
    f[GG_FRAME_SA_KSTRIDE] = "%ext";
  }
}

// Groups packed along N (n_offsets): the group comes from the N-block index.
static void emit_split_n(gg_text* t, frame_names f, const layout_params* p, const char* ends_type) {
  emit_search(t, ends_type, "%bx", "%tn", p->g);
  emit_op(t, "off", "muli", "%local", "%tn");
  emit_op(t, "b_row", "addi", "%gstart", "%off");
  emit_op(t, "col_limit", "subi", "%gsize", "%off");
  emit_op(t, "row0", "muli", "%by", "%tm");
  emit_op(t, "slab", "muli", "%group", "%ext");
  emit_op(t, "a_row", "addi", "%slab", "%row0");
  emit_op(t, "row_limit", "subi", "%ext", "%row0");
  f[GG_FRAME_VALID] = "%valid";
  f[GG_FRAME_GROUP] = "%group";
  f[GG_FRAME_A_ROW] = "%a_row";
  f[GG_FRAME_ROW_LIMIT] = "%row_limit";
  f[GG_FRAME_OUT_ROW] = "%row0";
  f[GG_FRAME_B_ROW] = f[GG_FRAME_OUT_COL] = f[GG_FRAME_SB_COL] = "%b_row";
  f[GG_FRAME_COL_LIMIT] = "%col_limit";
  f[GG_FRAME_K_LO] = f[GG_FRAME_SB_BASE] = "%c0";
  f[GG_FRAME_K_HI] = "%k";
  if (p->blockwise) {  // x_scale [G, K/128, M]; w_scale [K/128, N/128] over the whole N
    emit_op(t, "gkb", "muli", "%group", "%kb");
    emit_op(t, "gkbm", "muli", "%gkb", "%ext");
    emit_op(t, "sa_row", "addi", "%gkbm", "%row0");
    f[GG_FRAME_SA_ROW] = "%sa_row";
    f[GG_FRAME_SA_KSTRIDE] = "%ext";
    f[GG_FRAME_SB_KSTRIDE] = "%nb";
  } else {
    f[GG_FRAME_SA_ROW] = "%a_row";
    f[GG_FRAME_SA_KSTRIDE] = f[GG_FRAME_SB_KSTRIDE] = "%c0";
  }
}

// Groups split K (k_offsets): the group is grid z; its K range is a runtime value.
static void emit_split_k(gg_text* t, frame_names f, const layout_params* p, const char* meta_type) {
  emit_op(t, "gm1", "subi", "%bz", "%c1");
  emit_op(t, "gprev", "maxsi", "%gm1", "%c0");
  gg_text_printf(t, "  %%raw_prev = memref.load %%meta[%%gprev] : %s\n", meta_type);
  gg_text_printf(t, "  %%raw_end = memref.load %%meta[%%bz] : %s\n", meta_type);
  gg_text_printf(t, "  %%v_prev = arith.index_cast %%raw_prev : i32 to index\n");
  gg_text_printf(t, "  %%v_end = arith.index_cast %%raw_end : i32 to index\n");
  gg_text_printf(t, "  %%first = arith.cmpi eq, %%bz, %%c0 : index\n");
  gg_text_printf(t, "  %%start = arith.select %%first, %%c0, %%v_prev : index\n");
  emit_op(t, "s0", "maxsi", "%start", "%c0");
  emit_op(t, "k_lo", "minsi", "%s0", "%k");
  emit_op(t, "e0", "maxsi", "%v_end", "%k_lo");
  emit_op(t, "k_hi", "minsi", "%e0", "%k");
  emit_op(t, "row0", "muli", "%by", "%tm");
  gg_text_printf(t, "  %%valid = arith.cmpi slt, %%row0, %%ext : index\n");
  emit_op(t, "row_limit", "subi", "%ext", "%row0");
  emit_op(t, "slab", "muli", "%bz", "%ext");
  emit_op(t, "out_row", "addi", "%slab", "%row0");
  emit_op(t, "col0", "muli", "%bx", "%tn");
  emit_op(t, "col_limit", "subi", "%n", "%col0");
  f[GG_FRAME_VALID] = "%valid";
  f[GG_FRAME_GROUP] = "%bz";
  f[GG_FRAME_A_ROW] = "%row0";
  f[GG_FRAME_ROW_LIMIT] = "%row_limit";
  f[GG_FRAME_OUT_ROW] = "%out_row";
  f[GG_FRAME_B_ROW] = f[GG_FRAME_OUT_COL] = f[GG_FRAME_SB_COL] = "%col0";
  f[GG_FRAME_COL_LIMIT] = "%col_limit";
  f[GG_FRAME_K_LO] = "%k_lo";
  f[GG_FRAME_K_HI] = "%k_hi";
  if (p->blockwise) {  // x_scale [K/128, M], w_scale [K/128, N/128], blocks over the whole K
    f[GG_FRAME_SA_ROW] = "%row0";
    f[GG_FRAME_SA_KSTRIDE] = "%ext";
    f[GG_FRAME_SB_BASE] = "%c0";
    f[GG_FRAME_SB_KSTRIDE] = "%nb";
  } else {  // per-group rowwise scales [G*M], [G*N]
    emit_op(t, "gn", "muli", "%bz", "%n");
    f[GG_FRAME_SA_ROW] = "%out_row";
    f[GG_FRAME_SA_KSTRIDE] = f[GG_FRAME_SB_KSTRIDE] = "%c0";
    f[GG_FRAME_SB_BASE] = "%gn";
  }
}

static bool resolve_op(MlirOperation op) {
  char layout_name[32], scaling_name[32];
  int64_t tm, tn, n, k, g;
  if (!gg_attr_string(op, "layout", layout_name, sizeof layout_name) ||
      !gg_attr_string(op, "scaling", scaling_name, sizeof scaling_name) ||
      !gg_attr_int(op, "tile_m", &tm) || !gg_attr_int(op, "tile_n", &tn) ||
      !gg_attr_int(op, "n", &n) || !gg_attr_int(op, "k", &k) || !gg_attr_int(op, "g", &g)) {
    gg_emit_error(op, "gg.resolve_group: missing layout, scaling, tile or extent attributes");
    return false;
  }
  int layout = gg_layout_from_name(layout_name);
  layout_params p = {(int)tm, (int)tn, (long long)n, (long long)k, (long long)g,
                     gg_scaling_from_name(scaling_name) == GG_SCALING_BLOCKWISE};
  intptr_t arg_count = mlirOperationGetNumOperands(op);
  int has_meta = arg_count == 5;
  if (has_meta != (layout != GG_LAYOUT_BATCHED)) {
    gg_emit_error(op, "gg.resolve_group: the %s layout %s group metadata", layout_name,
                  has_meta ? "takes no" : "needs");
    return false;
  }
  MlirValue args[5];
  for (intptr_t i = 0; i < arg_count; ++i) args[i] = mlirOperationGetOperand(op, i);

  gg_text meta_type;
  gg_text_init(&meta_type);
  if (has_meta) gg_text_type(&meta_type, mlirValueGetType(args[4]));
  const char* mt = gg_text_str(&meta_type);

  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t, "func.func @gg_resolve(%%bx: index, %%by: index, %%bz: index, %%ext: index");
  if (has_meta) gg_text_printf(&t, ", %%meta: %s", mt);
  gg_text_printf(&t, ") -> (i1");
  for (int i = 1; i < GG_FRAME_COUNT; ++i) gg_text_printf(&t, ", index");
  gg_text_printf(&t, ") {\n");
  gg_text_printf(&t, "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n");
  gg_text_printf(&t, "  %%true = arith.constant true\n");
  gg_text_printf(&t, "  %%tm = arith.constant %d : index\n  %%tn = arith.constant %d : index\n",
                 p.tm, p.tn);
  gg_text_printf(&t, "  %%n = arith.constant %lld : index\n  %%k = arith.constant %lld : index\n",
                 p.n, p.k);
  gg_text_printf(&t, "  %%G = arith.constant %lld : index\n", p.g);
  gg_text_printf(&t, "  %%kb = arith.constant %lld : index\n  %%nb = arith.constant %lld : index\n",
                 p.k / 128, p.n / 128);
  gg_text_printf(&t, "  %%kbnb = arith.constant %lld : index\n", (p.k / 128) * (p.n / 128));
  frame_names f = {0};
  switch (layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS: emit_packed_m(&t, f, &p, mt); break;
    case GG_LAYOUT_PADDED: emit_slabs(&t, f, &p, mt); break;
    case GG_LAYOUT_BATCHED: emit_slabs(&t, f, &p, NULL); break;
    case GG_LAYOUT_N_OFFSETS: emit_split_n(&t, f, &p, mt); break;
    case GG_LAYOUT_K_OFFSETS: emit_split_k(&t, f, &p, mt); break;
    default:
      gg_emit_error(op, "gg.resolve_group: unknown layout '%s'", layout_name);
      gg_text_free(&t);
      gg_text_free(&meta_type);
      return false;
  }
  gg_text_printf(&t, "  return");
  for (int i = 0; i < GG_FRAME_COUNT; ++i) gg_text_printf(&t, "%s %s", i ? "," : "", f[i]);
  gg_text_printf(&t, " : i1");
  for (int i = 1; i < GG_FRAME_COUNT; ++i) gg_text_printf(&t, ", index");
  gg_text_printf(&t, "\n}\n");

  MlirValue results[GG_FRAME_COUNT];
  bool ok = !t.failed &&
            gg_inline_template(op, gg_text_str(&t), args, arg_count, results, GG_FRAME_COUNT);
  if (ok) {
    for (int i = 0; i < GG_FRAME_COUNT; ++i)
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i), results[i]);
    mlirOperationDestroy(op);
  }
  gg_text_free(&t);
  gg_text_free(&meta_type);
  return ok;
}

static bool run(MlirOperation func, const void* options) {
  (void)options;
  gg_op_list ops = {0};
  gg_collect_ops(func, GG_OP_RESOLVE_GROUP, &ops);
  bool ok = true;
  for (size_t i = 0; i < ops.count && ok; ++i) ok = resolve_op(ops.ops[i]);
  gg_op_list_free(&ops);
  return ok;
}

const gg_pass_info gg_resolve_groups_pass = {
    .argument = "gg-resolve-groups",
    .summary = "Lower gg.resolve_group: the binary search over group ends, or the slab lookup, of each layout",
    .anchor = "func.func",
    .run = run,
};
