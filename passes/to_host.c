// gg-to-host: lowers tile-level gg IR to vector loops over memrefs for the CPU.
//
// The grid becomes a loop nest. Tile values (A and B tiles, blockwise scales, the
// accumulator) become buffers allocated once per call: a loaded FP8 tile is decoded to
// f32 on load, mma updates the accumulator buffer in place, and values carried by an
// scf.for get a buffer of their own, into which the yielded buffer is copied. FP8 is
// decoded and bf16 rounded (to nearest even) with integer arithmetic, so the host needs
// no runtime library for either.
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "dialect/dialect.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "passes/group_ends.h"
#include "passes/pass.h"
#include "passes/tile_lowering.h"

typedef struct host_state {
  MlirOperation entry_first;  // allocations go in front of it
  MlirOperation ret;          // deallocations go in front of it
} host_state;

// "memref<RxCxf32>" for a tile type.
static void buffer_type_text(gg_text* t, MlirType tile) {
  gg_text_printf(t, "memref<%lldx%lldxf32>", (long long)mlirShapedTypeGetDimSize(tile, 0),
                 (long long)mlirShapedTypeGetDimSize(tile, 1));
}

// A heap buffer for a tile, allocated at function entry and freed before the return.
static MlirValue new_buffer(gg_tile_lowering* l, MlirType tile) {
  host_state* h = l->state;
  gg_text type, t;
  gg_text_init(&type);
  gg_text_init(&t);
  buffer_type_text(&type, tile);
  gg_text_printf(&t,
                 "func.func @alloc() -> %s {\n  %%b = memref.alloc() {alignment = 64 : i64} : "
                 "%s\n  return %%b : %s\n}",
                 gg_text_str(&type), gg_text_str(&type), gg_text_str(&type));
  MlirValue buffer = {NULL};
  gg_tile_emit(l, h->entry_first, &t, NULL, 0, &buffer, 1);
  gg_text_clear(&t);
  gg_text_printf(&t, "func.func @free(%%b: %s) {\n  memref.dealloc %%b : %s\n  return\n}",
                 gg_text_str(&type), gg_text_str(&type));
  gg_tile_emit(l, h->ret, &t, &buffer, 1, NULL, 0);
  gg_text_free(&type);
  gg_text_free(&t);
  return buffer;
}

static void copy_buffer(gg_tile_lowering* l, MlirValue from, MlirValue to, MlirOperation before) {
  gg_text t, type;
  gg_text_init(&t);
  gg_text_init(&type);
  gg_text_type(&type, mlirValueGetType(to));
  gg_text_printf(&t,
                 "func.func @copy(%%a: %s, %%b: %s) {\n  memref.copy %%a, %%b : %s to %s\n  "
                 "return\n}",
                 gg_text_str(&type), gg_text_str(&type), gg_text_str(&type), gg_text_str(&type));
  MlirValue args[2] = {from, to};
  gg_tile_emit(l, before, &t, args, 2, NULL, 0);
  gg_text_free(&t);
  gg_text_free(&type);
}

// ---------------------------------------------------------------------------------------
// Grid: z, y, x loop nest.

static MlirOperation op_before(MlirOperation op) {
  MlirBlock block = mlirOperationGetBlock(op);
  MlirOperation prev = {NULL};
  for (MlirOperation it = mlirBlockGetFirstOperation(block); !mlirOperationEqual(it, op);
       it = mlirOperationGetNextInBlock(it))
    prev = it;
  return prev;
}

static bool lower_grid(MlirOperation grid) {
  MlirValue extents[3];
  for (int i = 0; i < 3; ++i) extents[i] = mlirOperationGetOperand(grid, i);
  static const char nest[] =
      "func.func @grid(%gx: index, %gy: index, %gz: index) {\n"
      "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
      "  scf.for %z = %c0 to %gz step %c1 {\n"
      "    scf.for %y = %c0 to %gy step %c1 {\n"
      "      scf.for %x = %c0 to %gx step %c1 {\n      }\n    }\n  }\n  return\n}";
  if (!gg_inline_template(grid, nest, extents, 3, NULL, 0)) return false;
  MlirOperation loop = op_before(grid), body_end = {NULL};
  MlirValue ivs[3];  // z, y, x
  for (int level = 0; level < 3; ++level) {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
    ivs[level] = mlirBlockGetArgument(body, 0);
    body_end = mlirBlockGetTerminator(body);
    loop = mlirBlockGetFirstOperation(body);
  }
  MlirBlock grid_body = mlirRegionGetFirstBlock(mlirOperationGetRegion(grid, 0));
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(grid_body, 0), ivs[2]);
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(grid_body, 1), ivs[1]);
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(grid_body, 2), ivs[0]);
  MlirOperation terminator = mlirBlockGetTerminator(grid_body);
  for (MlirOperation op = mlirBlockGetFirstOperation(grid_body); !mlirOperationEqual(op, terminator);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, body_end);
    op = next;
  }
  mlirOperationDestroy(grid);
  return true;
}

// ---------------------------------------------------------------------------------------
// Templates.

// FP8 bytes (vector<16xi8> %i8) to f32 (%f), exactly: the 7 magnitude bits placed under
// the f32 exponent are the value times 2^-(127 - bias), subnormals included.
static void emit_decode(gg_text* t, int fnuz, const char* indent) {
  gg_text_printf(t,
                 "%s%%w = arith.extui %%i8 : vector<16xi8> to vector<16xi32>\n"
                 "%s%%c7f = arith.constant dense<127> : vector<16xi32>\n"
                 "%s%%c80 = arith.constant dense<128> : vector<16xi32>\n"
                 "%s%%c20 = arith.constant dense<20> : vector<16xi32>\n"
                 "%s%%c24 = arith.constant dense<24> : vector<16xi32>\n"
                 "%s%%mag = arith.andi %%w, %%c7f : vector<16xi32>\n"
                 "%s%%sgn0 = arith.andi %%w, %%c80 : vector<16xi32>\n"
                 "%s%%sgn = arith.shli %%sgn0, %%c24 : vector<16xi32>\n"
                 "%s%%bits = arith.shli %%mag, %%c20 : vector<16xi32>\n"
                 "%s%%f0 = arith.bitcast %%bits : vector<16xi32> to vector<16xf32>\n"
                 "%s%%scale_i = arith.constant dense<%d> : vector<16xi32>\n"
                 "%s%%scale = arith.bitcast %%scale_i : vector<16xi32> to vector<16xf32>\n"
                 "%s%%f1 = arith.mulf %%f0, %%scale : vector<16xf32>\n"
                 "%s%%nan = arith.cmpi eq, %s, %s : vector<16xi32>\n"
                 "%s%%nan_i = arith.constant dense<2143289344> : vector<16xi32>\n"
                 "%s%%nan_f = arith.bitcast %%nan_i : vector<16xi32> to vector<16xf32>\n"
                 "%s%%f2 = arith.select %%nan, %%nan_f, %%f1 : vector<16xi1>, vector<16xf32>\n"
                 "%s%%b2 = arith.bitcast %%f2 : vector<16xf32> to vector<16xi32>\n"
                 "%s%%b3 = arith.ori %%b2, %%sgn : vector<16xi32>\n"
                 "%s%%f = arith.bitcast %%b3 : vector<16xi32> to vector<16xf32>\n",
                 indent, indent, indent, indent, indent, indent, indent, indent, indent, indent,
                 indent, fnuz ? 0x7B000000 : 0x7B800000, indent, indent, indent,
                 fnuz ? "%w" : "%mag", fnuz ? "%c80" : "%c7f", indent, indent, indent, indent,
                 indent, indent);
}

static bool lower_load_tile(gg_tile_lowering* l, MlirOperation op) {
  MlirValue tile = mlirOperationGetResult(op, 0);
  MlirType tile_type = mlirValueGetType(tile);
  MlirValue buffer = new_buffer(l, tile_type);
  if (!l->ok) return false;
  bool mask_rows = true, mask_k = true;
  gg_attr_bool(op, "mask_rows", &mask_rows);
  gg_attr_bool(op, "mask_k", &mask_k);
  MlirValue src = mlirOperationGetOperand(op, 0);
  MlirType element = mlirShapedTypeGetElementType(mlirValueGetType(src));
  int fnuz = mlirTypeIsAFloat8E4M3FNUZ(element);
  int64_t rows = mlirShapedTypeGetDimSize(tile_type, 0), cols = mlirShapedTypeGetDimSize(tile_type, 1);
  char operand[32] = "a";
  gg_attr_string(op, "operand", operand, sizeof operand);
  // Preshuffled B: the 16 bytes at (row, k) (k a multiple of 16) stay contiguous, at
  // flat byte (((row/16 K/64 + k/64) 4 + (k%64)/16) 16 + row%16) 16.
  const int preshuffled = !strcmp(operand, "b_preshuffled");
  const int64_t src_k = mlirShapedTypeGetDimSize(mlirValueGetType(src), 1);
  const int64_t src_rows = mlirShapedTypeGetDimSize(mlirValueGetType(src), 0);
  char flat[128];

  gg_text t, src_type, f8;
  gg_text_init(&t);
  gg_text_init(&src_type);
  gg_text_init(&f8);
  gg_text_type(&src_type, mlirValueGetType(src));
  gg_text_type(&f8, element);
  const char* st = gg_text_str(&src_type);
  gg_text_printf(&t,
                 "func.func @load(%%src: %s, %%dst: memref<%lldx%lldxf32>, %%row0: index, "
                 "%%row_limit: index, %%k0: index, %%k_lo: index, %%k_hi: index) {\n",
                 st, (long long)rows, (long long)cols);
  gg_text_printf(&t,
                 "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                 "  %%c16 = arith.constant 16 : index\n  %%rows = arith.constant %lld : index\n"
                 "  %%cols = arith.constant %lld : index\n",
                 (long long)rows, (long long)cols);
  if (mask_rows || mask_k) {
    gg_text_printf(&t, "  %%pass = arith.constant dense<0.0> : vector<16x%s>\n", gg_text_str(&f8));
    gg_text_printf(&t, "  %%iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
                       "12, 13, 14, 15]> : vector<16xindex>\n");
    gg_text_printf(&t, "  %%lo_v = vector.broadcast %%k_lo : index to vector<16xindex>\n");
    gg_text_printf(&t, "  %%hi_v = vector.broadcast %%k_hi : index to vector<16xindex>\n");
  }
  if (preshuffled) {
    if (mlirShapedTypeIsDynamicSize(src_rows)) snprintf(flat, sizeof flat, "memref<?x%s>", gg_text_str(&f8));
    else
      snprintf(flat, sizeof flat, "memref<%lldx%s>", (long long)(src_rows * src_k), gg_text_str(&f8));
    gg_text_printf(&t, "  %%flat = memref.collapse_shape %%src [[0, 1]] : %s into %s\n", st, flat);
    gg_text_printf(&t,
                   "  %%c4 = arith.constant 4 : index\n  %%c64 = arith.constant 64 : index\n"
                   "  %%k0n = arith.constant %lld : index\n",
                   (long long)(src_k / 64));
  }
  gg_text_printf(&t, "  scf.for %%r = %%c0 to %%rows step %%c1 {\n");
  gg_text_printf(&t, "    %%row = arith.addi %%row0, %%r : index\n");
  if (mask_rows) gg_text_printf(&t, "    %%in = arith.cmpi slt, %%r, %%row_limit : index\n");
  gg_text_printf(&t, "    scf.for %%kk = %%c0 to %%cols step %%c16 {\n");
  gg_text_printf(&t, "      %%k = arith.addi %%k0, %%kk : index\n");
  if (preshuffled)
    gg_text_printf(&t,
                   "      %%n0 = arith.divui %%row, %%c16 : index\n"
                   "      %%nl = arith.remui %%row, %%c16 : index\n"
                   "      %%kb = arith.divui %%k, %%c64 : index\n"
                   "      %%kin = arith.remui %%k, %%c64 : index\n"
                   "      %%kl = arith.divui %%kin, %%c16 : index\n"
                   "      %%pf0 = arith.muli %%n0, %%k0n : index\n"
                   "      %%pf1 = arith.addi %%pf0, %%kb : index\n"
                   "      %%pf2 = arith.muli %%pf1, %%c4 : index\n"
                   "      %%pf3 = arith.addi %%pf2, %%kl : index\n"
                   "      %%pf4 = arith.muli %%pf3, %%c16 : index\n"
                   "      %%pf5 = arith.addi %%pf4, %%nl : index\n"
                   "      %%at = arith.muli %%pf5, %%c16 : index\n");
  if (mask_rows || mask_k) {
    const char* mask = "%in_v";
    if (mask_k) {
      gg_text_printf(&t,
                     "      %%kv = vector.broadcast %%k : index to vector<16xindex>\n"
                     "      %%ks = arith.addi %%kv, %%iota : vector<16xindex>\n"
                     "      %%ge = arith.cmpi sge, %%ks, %%lo_v : vector<16xindex>\n"
                     "      %%lt = arith.cmpi slt, %%ks, %%hi_v : vector<16xindex>\n"
                     "      %%km = arith.andi %%ge, %%lt : vector<16xi1>\n");
      mask = "%km";
    }
    if (mask_rows) {
      gg_text_printf(&t, "      %%in_v = vector.broadcast %%in : i1 to vector<16xi1>\n");
      if (mask_k) {
        gg_text_printf(&t, "      %%m = arith.andi %%km, %%in_v : vector<16xi1>\n");
        mask = "%m";
      }
    }
    gg_text_printf(&t,
                   "      %%bytes = vector.maskedload %s, %s, %%pass : %s, "
                   "vector<16xi1>, vector<16x%s> into vector<16x%s>\n",
                   preshuffled ? "%flat[%at]" : "%src[%row, %k]", mask,
                   preshuffled ? flat : st, gg_text_str(&f8), gg_text_str(&f8));
  } else {
    gg_text_printf(&t, "      %%bytes = vector.load %s : %s, vector<16x%s>\n",
                   preshuffled ? "%flat[%at]" : "%src[%row, %k]", preshuffled ? flat : st,
                   gg_text_str(&f8));
  }
  gg_text_printf(&t, "      %%i8 = arith.bitcast %%bytes : vector<16x%s> to vector<16xi8>\n",
                 gg_text_str(&f8));
  emit_decode(&t, fnuz, "      ");
  gg_text_printf(&t,
                 "      vector.store %%f, %%dst[%%r, %%kk] : memref<%lldx%lldxf32>, "
                 "vector<16xf32>\n    }\n  }\n  return\n}",
                 (long long)rows, (long long)cols);
  MlirValue args[7] = {src, buffer};
  for (int i = 1; i < 6; ++i) args[i + 1] = mlirOperationGetOperand(op, i);
  gg_tile_emit(l, op, &t, args, 7, NULL, 0);
  gg_tile_map(l, tile, buffer);
  gg_tile_done(l, op);
  gg_text_free(&t);
  gg_text_free(&src_type);
  gg_text_free(&f8);
  return l->ok;
}

static bool lower_load_scales(gg_tile_lowering* l, MlirOperation op) {
  MlirValue sx = mlirOperationGetResult(op, 0), sw = mlirOperationGetResult(op, 1);
  MlirType sx_type = mlirValueGetType(sx), sw_type = mlirValueGetType(sw);
  MlirValue sx_buffer = new_buffer(l, sx_type), sw_buffer = new_buffer(l, sw_type);
  if (!l->ok) return false;
  int64_t blocks = mlirShapedTypeGetDimSize(sx_type, 0);
  int64_t rows = mlirShapedTypeGetDimSize(sx_type, 1), cols = mlirShapedTypeGetDimSize(sw_type, 1);
  MlirValue sa = mlirOperationGetOperand(op, 0), sb = mlirOperationGetOperand(op, 1);
  gg_text t, sa_type, sb_type;
  gg_text_init(&t);
  gg_text_init(&sa_type);
  gg_text_init(&sb_type);
  gg_text_type(&sa_type, mlirValueGetType(sa));
  gg_text_type(&sb_type, mlirValueGetType(sb));
  gg_text_printf(&t,
                 "func.func @scales(%%sa: %s, %%sb: %s, %%sx: memref<%lldx%lldxf32>, "
                 "%%sw: memref<%lldx%lldxf32>, %%k0: index, %%k_lo: index, %%k_hi: index, "
                 "%%sa_row: index, %%sa_kstride: index, %%row_limit: index, %%sb_base: index, "
                 "%%sb_col: index, %%sb_kstride: index, %%col_limit: index) {\n",
                 gg_text_str(&sa_type), gg_text_str(&sb_type), (long long)blocks, (long long)rows,
                 (long long)blocks, (long long)cols);
  gg_text_printf(&t,
                 "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                 "  %%c128 = arith.constant 128 : index\n  %%zero = arith.constant 0.0 : f32\n"
                 "  %%rows = arith.constant %lld : index\n  %%cols = arith.constant %lld : index\n"
                 "  %%kbase = arith.floordivsi %%k0, %%c128 : index\n",
                 (long long)rows, (long long)cols);
  for (int64_t j = 0; j < blocks; ++j) {
    // Block kb holds scales for K in [128 kb, 128 kb + 128); it counts when it meets the
    // group's K range.
    gg_text_printf(&t,
                   "  %%j%lld = arith.constant %lld : index\n"
                   "  %%kb%lld = arith.addi %%kbase, %%j%lld : index\n"
                   "  %%ks%lld = arith.muli %%kb%lld, %%c128 : index\n"
                   "  %%ke%lld = arith.addi %%ks%lld, %%c128 : index\n"
                   "  %%b1_%lld = arith.cmpi slt, %%ks%lld, %%k_hi : index\n"
                   "  %%b2_%lld = arith.cmpi sgt, %%ke%lld, %%k_lo : index\n"
                   "  %%bv%lld = arith.andi %%b1_%lld, %%b2_%lld : i1\n"
                   "  %%sak%lld = arith.muli %%kb%lld, %%sa_kstride : index\n"
                   "  %%sab%lld = arith.addi %%sa_row, %%sak%lld : index\n"
                   "  %%sbk%lld = arith.muli %%kb%lld, %%sb_kstride : index\n"
                   "  %%sbb%lld = arith.addi %%sb_base, %%sbk%lld : index\n",
                   (long long)j, (long long)j, (long long)j, (long long)j, (long long)j,
                   (long long)j, (long long)j, (long long)j, (long long)j, (long long)j,
                   (long long)j, (long long)j, (long long)j, (long long)j, (long long)j,
                   (long long)j, (long long)j, (long long)j, (long long)j, (long long)j,
                   (long long)j, (long long)j, (long long)j);
    gg_text_printf(&t,
                   "  scf.for %%r = %%c0 to %%rows step %%c1 {\n"
                   "    %%rin = arith.cmpi slt, %%r, %%row_limit : index\n"
                   "    %%ok = arith.andi %%rin, %%bv%lld : i1\n"
                   "    %%v = scf.if %%ok -> (f32) {\n"
                   "      %%i = arith.addi %%sab%lld, %%r : index\n"
                   "      %%x = memref.load %%sa[%%i] : %s\n      scf.yield %%x : f32\n"
                   "    } else {\n      scf.yield %%zero : f32\n    }\n"
                   "    memref.store %%v, %%sx[%%j%lld, %%r] : memref<%lldx%lldxf32>\n  }\n",
                   (long long)j, (long long)j, gg_text_str(&sa_type), (long long)j,
                   (long long)blocks, (long long)rows);
    gg_text_printf(&t,
                   "  scf.for %%c = %%c0 to %%cols step %%c1 {\n"
                   "    %%cin = arith.cmpi slt, %%c, %%col_limit : index\n"
                   "    %%ok = arith.andi %%cin, %%bv%lld : i1\n"
                   "    %%v = scf.if %%ok -> (f32) {\n"
                   "      %%col = arith.addi %%sb_col, %%c : index\n"
                   "      %%nb = arith.floordivsi %%col, %%c128 : index\n"
                   "      %%i = arith.addi %%sbb%lld, %%nb : index\n"
                   "      %%x = memref.load %%sb[%%i] : %s\n      scf.yield %%x : f32\n"
                   "    } else {\n      scf.yield %%zero : f32\n    }\n"
                   "    memref.store %%v, %%sw[%%j%lld, %%c] : memref<%lldx%lldxf32>\n  }\n",
                   (long long)j, (long long)j, gg_text_str(&sb_type), (long long)j,
                   (long long)blocks, (long long)cols);
  }
  gg_text_printf(&t, "  return\n}");
  MlirValue args[14] = {sa, sb, sx_buffer, sw_buffer};
  for (int i = 2; i < 12; ++i) args[i + 2] = mlirOperationGetOperand(op, i);
  gg_tile_emit(l, op, &t, args, 14, NULL, 0);
  gg_tile_map(l, sx, sx_buffer);
  gg_tile_map(l, sw, sw_buffer);
  gg_tile_done(l, op);
  gg_text_free(&t);
  gg_text_free(&sa_type);
  gg_text_free(&sb_type);
  return l->ok;
}

static bool lower_mma(gg_tile_lowering* l, MlirOperation op) {
  MlirValue a = gg_tile_lookup(l, mlirOperationGetOperand(op, 0), op);
  MlirValue b = gg_tile_lookup(l, mlirOperationGetOperand(op, 1), op);
  MlirValue acc_in = mlirOperationGetOperand(op, 2);
  MlirValue acc = gg_tile_lookup(l, acc_in, op);
  if (!l->ok) return false;
  // In place when this mma is the accumulator's last user, as in every K loop form.
  if (gg_value_use_count(acc_in) != 1) {
    MlirValue fresh = new_buffer(l, mlirValueGetType(mlirOperationGetResult(op, 0)));
    copy_buffer(l, acc, fresh, op);
    acc = fresh;
  }
  int blockwise = gg_op_is(op, GG_OP_MMA_SCALED_TILE);
  MlirType a_type = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType acc_type = mlirValueGetType(mlirOperationGetResult(op, 0));
  long long tm = mlirShapedTypeGetDimSize(acc_type, 0), tn = mlirShapedTypeGetDimSize(acc_type, 1);
  long long tk = mlirShapedTypeGetDimSize(a_type, 1);
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t,
                 "func.func @mma(%%a: memref<%lldx%lldxf32>, %%b: memref<%lldx%lldxf32>, "
                 "%%acc: memref<%lldx%lldxf32>",
                 tm, tk, tn, tk, tm, tn);
  if (blockwise)
    gg_text_printf(&t, ", %%sx: memref<%lldx%lldxf32>, %%sw: memref<%lldx%lldxf32>", tk / 128, tm,
                   tk / 128, tn);
  gg_text_printf(&t,
                 ") {\n  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                 "  %%c16 = arith.constant 16 : index\n  %%tm = arith.constant %lld : index\n"
                 "  %%tn = arith.constant %lld : index\n  %%tk = arith.constant %lld : index\n"
                 "  %%z = arith.constant dense<0.0> : vector<16xf32>\n"
                 "  scf.for %%m = %%c0 to %%tm step %%c1 {\n"
                 "    scf.for %%n = %%c0 to %%tn step %%c1 {\n",
                 tm, tn, tk);
  // Rowwise: one dot product over the tile. Blockwise: one per 128-wide K block, each
  // scaled by its row and column scales before it joins the accumulator.
  long long blocks = blockwise ? tk / 128 : 1, span = blockwise ? 128 : tk;
  gg_text_printf(&t, "      %%old = memref.load %%acc[%%m, %%n] : memref<%lldx%lldxf32>\n", tm, tn);
  for (long long j = 0; j < blocks; ++j) {
    gg_text_printf(&t,
                   "      %%lo%lld = arith.constant %lld : index\n"
                   "      %%hi%lld = arith.constant %lld : index\n"
                   "      %%s%lld = scf.for %%kk = %%lo%lld to %%hi%lld step %%c16 "
                   "iter_args(%%v = %%z) -> (vector<16xf32>) {\n"
                   "        %%x = vector.load %%a[%%m, %%kk] : memref<%lldx%lldxf32>, vector<16xf32>\n"
                   "        %%y = vector.load %%b[%%n, %%kk] : memref<%lldx%lldxf32>, vector<16xf32>\n"
                   "        %%v2 = vector.fma %%x, %%y, %%v : vector<16xf32>\n"
                   "        scf.yield %%v2 : vector<16xf32>\n      }\n"
                   "      %%p%lld = vector.reduction <add>, %%s%lld : vector<16xf32> into f32\n",
                   j, j * span, j, (j + 1) * span, j, j, j, tm, tk, tn, tk, j, j);
    if (blockwise)
      gg_text_printf(&t,
                     "      %%jj%lld = arith.constant %lld : index\n"
                     "      %%xs%lld = memref.load %%sx[%%jj%lld, %%m] : memref<%lldx%lldxf32>\n"
                     "      %%ws%lld = memref.load %%sw[%%jj%lld, %%n] : memref<%lldx%lldxf32>\n"
                     "      %%px%lld = arith.mulf %%p%lld, %%xs%lld : f32\n"
                     "      %%t%lld = arith.mulf %%px%lld, %%ws%lld : f32\n",
                     j, j, j, j, blocks, tm, j, j, blocks, tn, j, j, j, j, j, j);
    const char* term = blockwise ? "t" : "p";
    if (j == 0) gg_text_printf(&t, "      %%acc0 = arith.addf %%old, %%%s0 : f32\n", term);
    else
      gg_text_printf(&t, "      %%acc%lld = arith.addf %%acc%lld, %%%s%lld : f32\n", j, j - 1, term, j);
  }
  char running[32];
  snprintf(running, sizeof running, "%%acc%lld", blocks - 1);
  gg_text_printf(&t,
                 "      memref.store %s, %%acc[%%m, %%n] : memref<%lldx%lldxf32>\n"
                 "    }\n  }\n  return\n}",
                 running, tm, tn);
  MlirValue args[5] = {a, b, acc};
  if (blockwise) {
    args[3] = gg_tile_lookup(l, mlirOperationGetOperand(op, 3), op);
    args[4] = gg_tile_lookup(l, mlirOperationGetOperand(op, 4), op);
  }
  gg_tile_emit(l, op, &t, args, blockwise ? 5 : 3, NULL, 0);
  gg_tile_map(l, mlirOperationGetResult(op, 0), acc);
  gg_tile_done(l, op);
  gg_text_free(&t);
  return l->ok;
}

// f32 `input` to bf16 %h, rounding to nearest even; NaN stays a (quiet) NaN.
static void emit_round_bf16(gg_text* t, const char* indent, const char* input) {
  gg_text_printf(t,
                 "%s%%bits = arith.bitcast %s : f32 to i32\n"
                 "%s%%c16i = arith.constant 16 : i32\n%s%%c1i = arith.constant 1 : i32\n"
                 "%s%%bias0 = arith.constant 32767 : i32\n"
                 "%s%%absmask = arith.constant 2147483647 : i32\n"
                 "%s%%inf = arith.constant 2139095040 : i32\n"
                 "%s%%quiet = arith.constant 64 : i32\n"
                 "%s%%abs = arith.andi %%bits, %%absmask : i32\n"
                 "%s%%isnan = arith.cmpi ugt, %%abs, %%inf : i32\n"
                 "%s%%hi0 = arith.shrui %%bits, %%c16i : i32\n"
                 "%s%%lsb = arith.andi %%hi0, %%c1i : i32\n"
                 "%s%%bias = arith.addi %%lsb, %%bias0 : i32\n"
                 "%s%%rounded = arith.addi %%bits, %%bias : i32\n"
                 "%s%%hi = arith.shrui %%rounded, %%c16i : i32\n"
                 "%s%%qnan = arith.ori %%hi0, %%quiet : i32\n"
                 "%s%%sel = arith.select %%isnan, %%qnan, %%hi : i32\n"
                 "%s%%t16 = arith.trunci %%sel : i32 to i16\n"
                 "%s%%h = arith.bitcast %%t16 : i16 to bf16\n",
                 indent, input, indent, indent, indent, indent, indent, indent, indent, indent, indent,
                 indent, indent, indent, indent, indent, indent, indent, indent);
}

static bool lower_epilogue(gg_tile_lowering* l, MlirOperation op) {
  MlirValue acc = gg_tile_lookup(l, mlirOperationGetOperand(op, 0), op);
  if (!l->ok) return false;
  bool mask_rows = true, mask_cols = true;
  gg_attr_bool(op, "mask_rows", &mask_rows);
  gg_attr_bool(op, "mask_cols", &mask_cols);
  char scaling[16] = "rowwise";
  gg_attr_string(op, "scaling", scaling, sizeof scaling);
  int rowwise = !strcmp(scaling, "rowwise");
  MlirType acc_type = mlirValueGetType(mlirOperationGetOperand(op, 0));
  long long tm = mlirShapedTypeGetDimSize(acc_type, 0), tn = mlirShapedTypeGetDimSize(acc_type, 1);
  MlirValue out = mlirOperationGetOperand(op, 1), sa = mlirOperationGetOperand(op, 2),
            sb = mlirOperationGetOperand(op, 3);
  gg_text t, out_type, sa_type, sb_type;
  gg_text_init(&t);
  gg_text_init(&out_type);
  gg_text_init(&sa_type);
  gg_text_init(&sb_type);
  gg_text_type(&out_type, mlirValueGetType(out));
  gg_text_type(&sa_type, mlirValueGetType(sa));
  gg_text_type(&sb_type, mlirValueGetType(sb));
  gg_text_printf(&t,
                 "func.func @epilogue(%%acc: memref<%lldx%lldxf32>, %%out: %s, %%sa: %s, "
                 "%%sb: %s, %%out_row: index, %%row_limit: index, %%out_col: index, "
                 "%%col_limit: index, %%sa_row: index, %%sb_base: index, %%sb_col: index) {\n"
                 "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                 "  %%tm = arith.constant %lld : index\n  %%tn = arith.constant %lld : index\n",
                 tm, tn, gg_text_str(&out_type), gg_text_str(&sa_type), gg_text_str(&sb_type), tm,
                 tn);
  const char* rows = "%tm";
  const char* cols = "%tn";
  if (mask_rows) {
    gg_text_printf(&t,
                   "  %%r0 = arith.maxsi %%row_limit, %%c0 : index\n"
                   "  %%rows = arith.minsi %%r0, %%tm : index\n");
    rows = "%rows";
  }
  if (mask_cols) {
    gg_text_printf(&t,
                   "  %%q0 = arith.maxsi %%col_limit, %%c0 : index\n"
                   "  %%cols = arith.minsi %%q0, %%tn : index\n");
    cols = "%cols";
  }
  gg_text_printf(&t, "  %%sbc = arith.addi %%sb_base, %%sb_col : index\n");
  gg_text_printf(&t, "  scf.for %%r = %%c0 to %s step %%c1 {\n", rows);
  gg_text_printf(&t, "    %%orow = arith.addi %%out_row, %%r : index\n");
  if (rowwise)
    gg_text_printf(&t,
                   "    %%sai = arith.addi %%sa_row, %%r : index\n"
                   "    %%xs = memref.load %%sa[%%sai] : %s\n",
                   gg_text_str(&sa_type));
  gg_text_printf(&t, "    scf.for %%c = %%c0 to %s step %%c1 {\n", cols);
  gg_text_printf(&t, "      %%ocol = arith.addi %%out_col, %%c : index\n");
  gg_text_printf(&t, "      %%a = memref.load %%acc[%%r, %%c] : memref<%lldx%lldxf32>\n", tm, tn);
  if (rowwise) {  // (acc * x_scale[row]) * w_scale[col], in f32
    gg_text_printf(&t,
                   "      %%sbi = arith.addi %%sbc, %%c : index\n"
                   "      %%ws = memref.load %%sb[%%sbi] : %s\n"
                   "      %%ax = arith.mulf %%a, %%xs : f32\n"
                   "      %%v = arith.mulf %%ax, %%ws : f32\n",
                   gg_text_str(&sb_type));
  }
  emit_round_bf16(&t, "      ", rowwise ? "%v" : "%a");  // blockwise: scaled in the K loop
  gg_text_printf(&t, "      memref.store %%h, %%out[%%orow, %%ocol] : %s\n    }\n  }\n  return\n}",
                 gg_text_str(&out_type));
  MlirValue args[11] = {acc, out, sa, sb};
  for (int i = 4; i < 11; ++i) args[i] = mlirOperationGetOperand(op, i);
  gg_tile_emit(l, op, &t, args, 11, NULL, 0);
  gg_tile_done(l, op);
  gg_text_free(&t);
  gg_text_free(&out_type);
  gg_text_free(&sa_type);
  gg_text_free(&sb_type);
  return l->ok;
}

// A splat tile constant (the accumulator's zero): a buffer filled row by row.
static bool lower_constant(gg_tile_lowering* l, MlirOperation op) {
  MlirValue tile = mlirOperationGetResult(op, 0);
  MlirType type = mlirValueGetType(tile);
  MlirAttribute value = mlirOperationGetAttributeByName(op, gg_str("value"));
  if (!mlirAttributeIsADenseFPElements(value) || !mlirDenseElementsAttrIsSplat(value)) {
    gg_emit_error(op, "gg-to-host: only splat tile constants are supported");
    return false;
  }
  double splat = mlirDenseElementsAttrGetFloatSplatValue(value);
  MlirValue buffer = new_buffer(l, type);
  if (!l->ok) return false;
  long long rows = mlirShapedTypeGetDimSize(type, 0), cols = mlirShapedTypeGetDimSize(type, 1);
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t,
                 "func.func @fill(%%b: memref<%lldx%lldxf32>) {\n"
                 "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                 "  %%rows = arith.constant %lld : index\n"
                 "  %%v = arith.constant dense<%.9e> : vector<%lldxf32>\n"
                 "  scf.for %%r = %%c0 to %%rows step %%c1 {\n"
                 "    vector.store %%v, %%b[%%r, %%c0] : memref<%lldx%lldxf32>, vector<%lldxf32>\n"
                 "  }\n  return\n}",
                 rows, cols, rows, splat, cols, rows, cols, cols);
  gg_tile_emit(l, op, &t, &buffer, 1, NULL, 0);
  gg_tile_map(l, tile, buffer);
  gg_tile_done(l, op);
  gg_text_free(&t);
  return l->ok;
}

// Carried tiles get a buffer of their own, filled from the initial value before the loop
// and from the yielded one at the end of each iteration.
static MlirValue carry_in(gg_tile_lowering* l, MlirOperation loop, MlirValue lowered_init) {
  MlirValue buffer = new_buffer(l, mlirValueGetType(lowered_init));
  if (l->ok) copy_buffer(l, lowered_init, buffer, loop);
  return buffer;
}

static MlirValue carry_out(gg_tile_lowering* l, MlirOperation yield, MlirValue lowered,
                           MlirValue iteration_argument) {
  if (!mlirValueEqual(lowered, iteration_argument))
    copy_buffer(l, lowered, iteration_argument, yield);
  return iteration_argument;
}

// gg.group_ends: a buffer of the G ends, filled by one loop before the grid and freed
// before the function returns.
static bool lower_group_ends(MlirOperation op, MlirOperation ret) {
  gg_group_ends_op ends;
  if (!gg_group_ends_op_read(op, &ends)) return false;
  const char* type = gg_text_str(&ends.ends_type);
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t,
                 "func.func @ends(%%meta: %s, %%a: %s) -> %s {\n"
                 "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n"
                 "  %%G = arith.constant %lld : index\n",
                 gg_text_str(&ends.meta_type), gg_text_str(&ends.a_type), type, ends.g);
  gg_emit_group_axis(&t, &ends, "  ", "total");
  gg_text_printf(&t, "  %%ends = memref.alloc() : %s\n", type);
  gg_emit_group_ends_loop(&t, &ends, "  ", "last", "%c0", "%G", "%c0", "%total", true);
  gg_text_printf(&t, "  return %%ends : %s\n}\n", type);
  MlirValue args[2] = {mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1)};
  MlirValue buffer;
  bool ok = !t.failed && gg_inline_template(op, gg_text_str(&t), args, 2, &buffer, 1);
  if (ok) {
    gg_text_clear(&t);
    gg_text_printf(&t, "func.func @free(%%b: %s) {\n  memref.dealloc %%b : %s\n  return\n}\n",
                   type, type);
    ok = !t.failed && gg_inline_template(ret, gg_text_str(&t), &buffer, 1, NULL, 0);
  }
  if (ok) {
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), buffer);
    mlirOperationDestroy(op);
  }
  gg_text_free(&t);
  gg_group_ends_op_free(&ends);
  return ok;
}

static const gg_tile_target host_target = {
    .pass_name = "gg-to-host",
    .load_tile = lower_load_tile,
    .load_scales = lower_load_scales,
    .mma = lower_mma,
    .epilogue = lower_epilogue,
    .constant = lower_constant,
    .carry_in = carry_in,
    .carry_out = carry_out,
};

static bool run(MlirOperation func, const void* options) {
  (void)options;
  gg_op_list grids = {0};
  gg_collect_ops(func, GG_OP_GRID, &grids);
  bool ok = true;
  for (size_t i = 0; i < grids.count && ok; ++i) ok = lower_grid(grids.ops[i]);
  size_t grid_count = grids.count;
  gg_op_list_free(&grids);
  if (!ok || grid_count == 0) return ok;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  gg_op_list ends = {0};
  gg_collect_ops(func, GG_OP_GROUP_ENDS, &ends);
  for (size_t i = 0; i < ends.count && ok; ++i)
    ok = lower_group_ends(ends.ops[i], mlirBlockGetTerminator(entry));
  gg_op_list_free(&ends);
  if (!ok) return false;
  host_state state = {mlirBlockGetFirstOperation(entry), mlirBlockGetTerminator(entry)};
  gg_tile_lowering l = {&host_target, &state, {0}, {0}, true};
  return gg_tile_lower(&l, entry, func);
}

const gg_pass_info gg_to_host_pass = {
    .argument = "gg-to-host",
    .summary = "Lower tile-level gg IR to vector loops over memrefs for the CPU",
    .anchor = "func.func",
    .run = run,
};
