// gg-tile: turns gg.grouped_matmul into a grid of tiles. Each tile resolves its group
// (gg.resolve_group), runs the canonical K loop (load A and B tiles, blockwise scales,
// mma) over the group's K range, and ends in the epilogue. Loads and stores carry their
// bounds; gg-mask decides later which need predicates.
//
// Operands are viewed as 2-D row-major matrices: A [rows, K], B [rows, K] (a group's
// [N, K] blocks stacked), out [rows, N], and the scales as 1-D arrays; gg.resolve_group
// says where a tile's rows and columns start in each.
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "dialect/dialect.h"
#include "mlir-c/BuiltinTypes.h"
#include "passes/pass.h"

// "memref<RxCxT>" collapsing `type` to the given groups of dimensions.
static void collapsed_type(gg_text* text, MlirType type, const int* group_ends, int groups) {
  gg_text_printf(text, "memref<");
  int dim = 0;
  for (int g = 0; g < groups; ++g) {
    int64_t size = 1;
    int dynamic = 0;
    for (; dim < group_ends[g]; ++dim) {
      int64_t d = mlirShapedTypeGetDimSize(type, dim);
      if (mlirShapedTypeIsDynamicSize(d)) dynamic = 1;
      else size *= d;
    }
    if (dynamic) gg_text_printf(text, "?x");
    else gg_text_printf(text, "%lldx", (long long)size);
  }
  gg_text_type(text, mlirShapedTypeGetElementType(type));
  gg_text_printf(text, ">");
}

// Emits `%<name> = <view of %<arg>>`: unchanged when already of rank `want_rank`, else
// collapsed to 2-D [leading..., last] (want_rank 2) or to 1-D (want_rank 1).
static void emit_view(gg_text* t, const char* name, const char* arg, MlirType type, int want_rank) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (rank == want_rank) {
    gg_text_printf(t, "  %%%s = memref.cast %%%s : ", name, arg);
    gg_text_type(t, type);
    gg_text_printf(t, " to ");
    gg_text_type(t, type);
    gg_text_printf(t, "\n");
    return;
  }
  int ends[2];
  gg_text reassociation;
  gg_text_init(&reassociation);
  if (want_rank == 2) {
    ends[0] = (int)rank - 1;
    ends[1] = (int)rank;
    gg_text_printf(&reassociation, "[[");
    for (int i = 0; i < rank - 1; ++i) gg_text_printf(&reassociation, "%s%d", i ? ", " : "", i);
    gg_text_printf(&reassociation, "], [%d]]", (int)rank - 1);
  } else {
    ends[0] = (int)rank;
    gg_text_printf(&reassociation, "[[");
    for (int i = 0; i < rank; ++i) gg_text_printf(&reassociation, "%s%d", i ? ", " : "", i);
    gg_text_printf(&reassociation, "]]");
  }
  gg_text_printf(t, "  %%%s = memref.collapse_shape %%%s %s : ", name, arg, gg_text_str(&reassociation));
  gg_text_type(t, type);
  gg_text_printf(t, " into ");
  collapsed_type(t, type, ends, want_rank);
  gg_text_printf(t, "\n");
  gg_text_free(&reassociation);
}

static void view_type(gg_text* t, MlirType type, int want_rank) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (rank == want_rank) {
    gg_text_type(t, type);
    return;
  }
  int ends[2] = {want_rank == 2 ? (int)rank - 1 : (int)rank, (int)rank};
  collapsed_type(t, type, ends, want_rank);
}

// %<name> = grid extent from its rule (gg_grid_rules), over %ext.
static void emit_grid_dim(gg_text* t, const char* name, const gg_grid_dim_rule* rule) {
  if (!rule->uses_m) {
    gg_text_printf(t, "  %%%s = arith.constant %lld : index\n", name,
                   (long long)gg_grid_dim(rule, 0));
    return;
  }
  gg_text_printf(t, "  %%%s_d = arith.constant %lld : index\n", name, (long long)rule->divisor);
  gg_text_printf(t, "  %%%s_q = arith.%s %%ext, %%%s_d : index\n", name,
                 rule->ceil ? "ceildivsi" : "divsi", name);
  gg_text_printf(t, "  %%%s_a = arith.constant %lld : index\n", name, (long long)rule->addend);
  gg_text_printf(t, "  %%%s = arith.addi %%%s_q, %%%s_a : index\n", name, name, name);
}

static bool tile_op(MlirOperation op) {
  gg_op_desc desc;
  gg_status status = gg_grouped_matmul_desc(op, &desc);
  if (status) {
    gg_emit_error(op, "%s", gg_status_message(status));
    gg_status_free(status);
    return false;
  }
  if (desc.tile.m == 0) {
    gg_emit_error(op, "gg-tile: the tile configuration is not set (run gg-select-config first)");
    return false;
  }
  const int has_meta = desc.layout != GG_LAYOUT_BATCHED;
  const int blockwise = desc.scaling == GG_SCALING_BLOCKWISE;
  const int tm = desc.tile.m, tn = desc.tile.n, tk = desc.tile.k;
  MlirValue args[GG_OPERAND_COUNT];
  MlirType types[GG_OPERAND_COUNT];
  static const char* const names[GG_OPERAND_COUNT] = {"a", "b", "sa", "sb", "meta", "out"};
  intptr_t arg_count = 0;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    MlirValue v = gg_grouped_matmul_operand(op, (gg_operand)i);
    if (mlirValueIsNull(v)) continue;
    args[arg_count++] = v;
    types[i] = mlirValueGetType(v);
  }
  gg_operand extent_operand;
  int extent_dim;
  gg_grouped_extent_source(&desc, &extent_operand, &extent_dim);
  gg_grid_dim_rule rules[3];
  gg_grid_rules(&desc, rules);

  gg_text fp8;
  gg_text_init(&fp8);
  gg_text_type(&fp8, mlirShapedTypeGetElementType(types[GG_OPERAND_A]));
  const char* f8 = gg_text_str(&fp8);

  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t, "func.func @gg_tile(");
  for (int i = 0, first = 1; i < GG_OPERAND_COUNT; ++i) {
    if (i == GG_OPERAND_META && !has_meta) continue;
    gg_text_printf(&t, "%s%%%s: ", first ? "" : ", ", names[i]);
    gg_text_type(&t, types[i]);
    first = 0;
  }
  gg_text_printf(&t, ") {\n");
  gg_text_printf(&t, "  %%c%d = arith.constant %d : index\n", extent_dim, extent_dim);
  gg_text_printf(&t, "  %%ext = memref.dim %%a, %%c%d : ", extent_dim);
  gg_text_type(&t, types[GG_OPERAND_A]);
  gg_text_printf(&t, "\n");
  emit_view(&t, "a2", "a", types[GG_OPERAND_A], 2);
  emit_view(&t, "b2", "b", types[GG_OPERAND_B], 2);
  emit_view(&t, "o2", "out", types[GG_OPERAND_OUT], 2);
  emit_view(&t, "sa1", "sa", types[GG_OPERAND_A_SCALE], 1);
  emit_view(&t, "sb1", "sb", types[GG_OPERAND_B_SCALE], 1);
  // Packed groups: their ends, once per launch, for the tiles' binary search.
  const int has_ends = gg_layout_has_group_ends(desc.layout);
  if (has_ends) {
    gg_text_printf(&t, "  %%ends = \"gg.group_ends\"(%%meta, %%a) {layout = \"%s\", n = %lld : i64} : (",
                   gg_layout_name(desc.layout), (long long)desc.n);
    gg_text_type(&t, types[GG_OPERAND_META]);
    gg_text_printf(&t, ", ");
    gg_text_type(&t, types[GG_OPERAND_A]);
    gg_text_printf(&t, ") -> memref<%lldxi64>\n", (long long)desc.g);
  }
  emit_grid_dim(&t, "gx", &rules[0]);
  emit_grid_dim(&t, "gy", &rules[1]);
  emit_grid_dim(&t, "gz", &rules[2]);
  gg_text_printf(&t, "  \"gg.grid\"(%%gx, %%gy, %%gz) ({\n");
  gg_text_printf(&t, "  ^bb0(%%bx: index, %%by: index, %%bz: index):\n");
  gg_text_printf(&t, "    %%f:%d = \"gg.resolve_group\"(%%bx, %%by, %%bz, %%ext%s)", GG_FRAME_COUNT,
                 has_ends ? ", %ends" : has_meta ? ", %meta" : "");
  gg_text_printf(&t,
                 " {layout = \"%s\", scaling = \"%s\", tile_m = %d : i64, tile_n = %d : i64, "
                 "n = %lld : i64, k = %lld : i64, g = %lld : i64} : (index, index, index, index",
                 gg_layout_name(desc.layout), gg_scaling_name(desc.scaling), tm, tn,
                 (long long)desc.n, (long long)desc.k, (long long)desc.g);
  if (has_ends) {
    gg_text_printf(&t, ", memref<%lldxi64>", (long long)desc.g);
  } else if (has_meta) {
    gg_text_printf(&t, ", ");
    gg_text_type(&t, types[GG_OPERAND_META]);
  }
  gg_text_printf(&t, ") -> (i1");
  for (int i = 1; i < GG_FRAME_COUNT; ++i) gg_text_printf(&t, ", index");
  gg_text_printf(&t, ")\n");
  gg_text_printf(&t, "    scf.if %%f#%d {\n", GG_FRAME_VALID);
  gg_text_printf(&t, "      %%acc0 = arith.constant dense<0.0> : vector<%dx%dxf32>\n", tm, tn);
  gg_text_printf(&t, "      %%tk = arith.constant %d : index\n", tk);
  // The K loop walks the tile_k grid from the tile holding the group's first K: tiles stay
  // aligned (to scale blocks too) and the first one masks what lies below k_lo.
  gg_text_printf(&t, "      %%kq = arith.floordivsi %%f#%d, %%tk : index\n", GG_FRAME_K_LO);
  gg_text_printf(&t, "      %%kstart = arith.muli %%kq, %%tk : index\n");
  gg_text_printf(&t,
                 "      %%acc = scf.for %%k = %%kstart to %%f#%d step %%tk iter_args(%%acc_i = "
                 "%%acc0) -> (vector<%dx%dxf32>) {\n",
                 GG_FRAME_K_HI, tm, tn);
  gg_text_printf(&t,
                 "        %%at = \"gg.load_tile\"(%%a2, %%f#%d, %%f#%d, %%k, %%f#%d, %%f#%d) "
                 "{operand = \"a\", mask_rows = true, mask_k = true} : (",
                 GG_FRAME_A_ROW, GG_FRAME_ROW_LIMIT, GG_FRAME_K_LO, GG_FRAME_K_HI);
  view_type(&t, types[GG_OPERAND_A], 2);
  gg_text_printf(&t, ", index, index, index, index, index) -> vector<%dx%dx%s>\n", tm, tk, f8);
  // Preshuffled B is the same logical tile read from the MFMA-fragment order.
  gg_text_printf(&t,
                 "        %%bt = \"gg.load_tile\"(%%b2, %%f#%d, %%f#%d, %%k, %%f#%d, %%f#%d) "
                 "{operand = \"%s\", mask_rows = true, mask_k = true} : (",
                 GG_FRAME_B_ROW, GG_FRAME_COL_LIMIT, GG_FRAME_K_LO, GG_FRAME_K_HI,
                 desc.b_layout == GG_B_PRESHUFFLED ? "b_preshuffled" : "b");
  view_type(&t, types[GG_OPERAND_B], 2);
  gg_text_printf(&t, ", index, index, index, index, index) -> vector<%dx%dx%s>\n", tn, tk, f8);
  if (blockwise) {
    gg_text_printf(&t,
                   "        %%sx, %%sw = \"gg.load_scales\"(%%sa1, %%sb1, %%k, %%f#%d, %%f#%d, "
                   "%%f#%d, %%f#%d, %%f#%d, %%f#%d, %%f#%d, %%f#%d, %%f#%d) : (",
                   GG_FRAME_K_LO, GG_FRAME_K_HI, GG_FRAME_SA_ROW, GG_FRAME_SA_KSTRIDE,
                   GG_FRAME_ROW_LIMIT, GG_FRAME_SB_BASE, GG_FRAME_SB_COL, GG_FRAME_SB_KSTRIDE,
                   GG_FRAME_COL_LIMIT);
    view_type(&t, types[GG_OPERAND_A_SCALE], 1);
    gg_text_printf(&t, ", ");
    view_type(&t, types[GG_OPERAND_B_SCALE], 1);
    gg_text_printf(&t, ", index, index, index, index, index, index, index, index, index, index)"
                       " -> (vector<%dx%dxf32>, vector<%dx%dxf32>)\n",
                   tk / 128, tm, tk / 128, tn);
    gg_text_printf(&t,
                   "        %%acc_n = \"gg.mma_scaled_tile\"(%%at, %%bt, %%acc_i, %%sx, %%sw) : "
                   "(vector<%dx%dx%s>, vector<%dx%dx%s>, vector<%dx%dxf32>, vector<%dx%dxf32>, "
                   "vector<%dx%dxf32>) -> vector<%dx%dxf32>\n",
                   tm, tk, f8, tn, tk, f8, tm, tn, tk / 128, tm, tk / 128, tn, tm, tn);
  } else {
    gg_text_printf(&t,
                   "        %%acc_n = \"gg.mma_tile\"(%%at, %%bt, %%acc_i) : (vector<%dx%dx%s>, "
                   "vector<%dx%dx%s>, vector<%dx%dxf32>) -> vector<%dx%dxf32>\n",
                   tm, tk, f8, tn, tk, f8, tm, tn, tm, tn);
  }
  gg_text_printf(&t, "        scf.yield %%acc_n : vector<%dx%dxf32>\n", tm, tn);
  // How gg-k-loop pipelines it: the LDS buffers its tiles rotate through, and how many
  // tiles ahead the loads run (2 on AMD with two buffers, where each tile's staging
  // overlaps the previous tile's MFMAs, and with three, where LDS DMA fills the buffer of
  // the tile after next).
  int lds_buffers = gg_amd_lds_buffers(&desc);
  int amd = desc.target == GG_TARGET_GFX942 || desc.target == GG_TARGET_GFX950;
  int prefetch = amd && lds_buffers >= 2 ? 2 : 1;
  gg_text_printf(&t,
                 "      } {gg.loop = \"%s\", gg.lds_buffers = %d : i64, gg.prefetch = %d : i64}\n",
                 gg_loop_form_name(desc.tile.loop), lds_buffers, prefetch);
  gg_text_printf(&t,
                 "      \"gg.epilogue\"(%%acc, %%o2, %%sa1, %%sb1, %%f#%d, %%f#%d, %%f#%d, %%f#%d, "
                 "%%f#%d, %%f#%d, %%f#%d) {scaling = \"%s\", mask_rows = true, mask_cols = true} "
                 ": (vector<%dx%dxf32>, ",
                 GG_FRAME_OUT_ROW, GG_FRAME_ROW_LIMIT, GG_FRAME_OUT_COL, GG_FRAME_COL_LIMIT,
                 GG_FRAME_SA_ROW, GG_FRAME_SB_BASE, GG_FRAME_SB_COL, gg_scaling_name(desc.scaling),
                 tm, tn);
  view_type(&t, types[GG_OPERAND_OUT], 2);
  gg_text_printf(&t, ", ");
  view_type(&t, types[GG_OPERAND_A_SCALE], 1);
  gg_text_printf(&t, ", ");
  view_type(&t, types[GG_OPERAND_B_SCALE], 1);
  gg_text_printf(&t, ", index, index, index, index, index, index, index) -> ()\n");
  // The grid remembers the descriptor it came from: targets embed it in their artifacts.
  char descriptor[512];
  gg_op_desc_format(&desc, descriptor, sizeof descriptor);
  gg_text_printf(&t,
                 "    }\n    gpu.yield\n  }) {descriptor = \"%s\", waves_per_eu = %d : i64} : "
                 "(index, index, index) -> ()\n  return\n}\n",
                 descriptor, desc.tile.waves_per_eu);

  bool ok = !t.failed && gg_inline_template(op, gg_text_str(&t), args, arg_count, NULL, 0);
  if (ok) mlirOperationDestroy(op);
  gg_text_free(&t);
  gg_text_free(&fp8);
  return ok;
}

static bool run(MlirOperation func, const void* options) {
  (void)options;
  gg_op_list ops = {0};
  gg_collect_ops(func, GG_OP_GROUPED_MATMUL, &ops);
  bool ok = true;
  for (size_t i = 0; i < ops.count && ok; ++i) ok = tile_op(ops.ops[i]);
  gg_op_list_free(&ops);
  return ok;
}

const gg_pass_info gg_tile_pass = {
    .argument = "gg-tile",
    .summary = "Tile gg.grouped_matmul into a grid with a K loop and an epilogue",
    .anchor = "func.func",
    .run = run,
};
