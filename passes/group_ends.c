// gg.group_ends: its parameters and the rule for a packed group's end.
#include "passes/group_ends.h"

#include <stdio.h>
#include <string.h>

#include "dialect/dialect.h"
#include "mlir-c/BuiltinTypes.h"

bool gg_group_ends_op_read(MlirOperation op, gg_group_ends_op* out) {
  memset(out, 0, sizeof *out);
  out->op = op;
  char layout[32];
  int64_t n;
  if (!gg_attr_string(op, "layout", layout, sizeof layout) || !gg_attr_int(op, "n", &n) ||
      mlirOperationGetNumOperands(op) != 2 || mlirOperationGetNumResults(op) != 1) {
    gg_emit_error(op, "gg.group_ends: expected (meta, a) -> ends with layout and n attributes");
    return false;
  }
  int kind = gg_layout_from_name(layout);
  if (kind < 0 || !gg_layout_has_group_ends((gg_layout)kind)) {
    gg_emit_error(op, "gg.group_ends: the %s layout has no packed groups", layout);
    return false;
  }
  MlirType ends_type = mlirValueGetType(mlirOperationGetResult(op, 0));
  out->counts = kind == GG_LAYOUT_SIZES;
  out->rows = kind != GG_LAYOUT_N_OFFSETS;
  out->n = n;
  out->g = mlirShapedTypeGetDimSize(ends_type, 0);
  gg_text_init(&out->meta_type);
  gg_text_init(&out->a_type);
  gg_text_init(&out->ends_type);
  gg_text_type(&out->meta_type, mlirValueGetType(mlirOperationGetOperand(op, 0)));
  gg_text_type(&out->a_type, mlirValueGetType(mlirOperationGetOperand(op, 1)));
  gg_text_type(&out->ends_type, ends_type);
  return true;
}

void gg_group_ends_op_free(gg_group_ends_op* ends) {
  gg_text_free(&ends->meta_type);
  gg_text_free(&ends->a_type);
  gg_text_free(&ends->ends_type);
}

void gg_emit_group_axis(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                        const char* total) {
  if (ends->rows)
    gg_text_printf(t, "%s%%%s = memref.dim %%a, %%c0 : %s\n", indent, total,
                   gg_text_str(&ends->a_type));
  else
    gg_text_printf(t, "%s%%%s = arith.constant %lld : index\n", indent, total, ends->n);
}

void gg_emit_group_start(gg_text* t, const char* indent, const char* name, const char* group,
                         const char* ends, const char* ends_type) {
  gg_text_printf(t,
                 "%s%%%s_p = arith.subi %s, %%c1 : index\n"
                 "%s%%%s_i = arith.maxsi %%%s_p, %%c0 : index\n"
                 "%s%%%s_raw = memref.load %s[%%%s_i] : %s\n"
                 "%s%%%s_v = arith.index_cast %%%s_raw : i64 to index\n"
                 "%s%%%s_first = arith.cmpi eq, %s, %%c0 : index\n"
                 "%s%%%s = arith.select %%%s_first, %%c0, %%%s_v : index\n",
                 indent, name, group, indent, name, name, indent, name, ends, name, ends_type,
                 indent, name, name, indent, name, group, indent, name, name, name);
}

void gg_emit_group_end(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                       const char* name, const char* previous, const char* raw,
                       const char* total) {
  if (ends->counts)
    gg_text_printf(t,
                   "%s%%%s_c0 = arith.maxsi %s, %%c0 : index\n"
                   "%s%%%s_c = arith.minsi %%%s_c0, %s : index\n"
                   "%s%%%s_s = arith.addi %s, %%%s_c : index\n"
                   "%s%%%s = arith.minsi %%%s_s, %s : index\n",
                   indent, name, raw, indent, name, name, total, indent, name, previous, name,
                   indent, name, name, total);
  else
    gg_text_printf(t,
                   "%s%%%s_m = arith.maxsi %s, %s : index\n"
                   "%s%%%s = arith.minsi %%%s_m, %s : index\n",
                   indent, name, raw, previous, indent, name, name, total);
}

void gg_emit_group_ends_loop(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                             const char* result, const char* lo, const char* hi,
                             const char* start, const char* total, bool store) {
  const char* meta = gg_text_str(&ends->meta_type);
  gg_text_printf(t,
                 "%s%%%s = scf.for %%%s_g = %s to %s step %%c1 iter_args(%%%s_prev = %s) -> "
                 "(index) {\n"
                 "%s  %%%s_raw = memref.load %%meta[%%%s_g] : %s\n"
                 "%s  %%%s_v = arith.index_cast %%%s_raw : %s to index\n",
                 indent, result, result, lo, hi, result, start, indent, result, result, meta,
                 indent, result, result, ends->counts ? "i64" : "i32");
  char inner[64], name[64], previous[64], raw[64];
  snprintf(inner, sizeof inner, "%s  ", indent);
  snprintf(name, sizeof name, "%s_e", result);
  snprintf(previous, sizeof previous, "%%%s_prev", result);
  snprintf(raw, sizeof raw, "%%%s_v", result);
  gg_emit_group_end(t, ends, inner, name, previous, raw, total);
  if (store)
    gg_text_printf(t,
                   "%s  %%%s_e64 = arith.index_cast %%%s_e : index to i64\n"
                   "%s  memref.store %%%s_e64, %%ends[%%%s_g] : %s\n",
                   indent, result, result, indent, result, result, gg_text_str(&ends->ends_type));
  gg_text_printf(t, "%s  scf.yield %%%s_e : index\n%s}\n", indent, result, indent);
}

void gg_emit_group_ends_scan(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                             int threads, const char* part_type) {
  char in1[64], in2[64];
  snprintf(in1, sizeof in1, "%s  ", indent);
  snprintf(in2, sizeof in2, "%s    ", indent);
  // Thread 0's serial pass covers the chunks that hold groups, not every thread's: at
  // G = 8 that is 8 steps, not 384 (each a dependent shared-memory load and store).
  long long chunk = (ends->g + threads - 1) / threads;
  long long used = chunk ? (ends->g + chunk - 1) / chunk : 0;
  gg_text_printf(t,
                 "%s%%G = arith.constant %lld : index\n"
                 "%s%%chunks = arith.constant %lld : index\n"
                 "%s%%chunk = arith.constant %lld : index\n"
                 "%s%%lo0 = arith.muli %%tid, %%chunk : index\n"
                 "%s%%lo = arith.minsi %%lo0, %%G : index\n"
                 "%s%%hi0 = arith.addi %%lo, %%chunk : index\n"
                 "%s%%hi = arith.minsi %%hi0, %%G : index\n",
                 indent, ends->g, indent, used, indent, chunk, indent, indent, indent, indent);
  gg_emit_group_axis(t, ends, indent, "total");
  gg_emit_group_ends_loop(t, ends, indent, "agg", "%lo", "%hi", "%c0", "%total", false);
  gg_text_printf(t,
                 "%s%%agg64 = arith.index_cast %%agg : index to i64\n"
                 "%smemref.store %%agg64, %%part[%%tid] : %s\n"
                 "%sgpu.barrier\n"
                 "%s%%first = arith.cmpi eq, %%tid, %%c0 : index\n"
                 "%sscf.if %%first {\n"
                 "%s%%run = scf.for %%i = %%c0 to %%chunks step %%c1 iter_args(%%r = %%c0) -> "
                 "(index) {\n"
                 "%s%%p64 = memref.load %%part[%%i] : %s\n"
                 "%s%%p = arith.index_cast %%p64 : i64 to index\n"
                 "%s%%r64 = arith.index_cast %%r : index to i64\n"
                 "%smemref.store %%r64, %%part[%%i] : %s\n",
                 indent, indent, part_type, indent, indent, indent, in1, in2, part_type, in2, in2,
                 in2, part_type);
  gg_emit_group_end(t, ends, in2, "rn", "%r", "%p", "%total");
  gg_text_printf(t,
                 "%sscf.yield %%rn : index\n%s}\n%s}\n"
                 "%sgpu.barrier\n"
                 "%s%%s64 = memref.load %%part[%%tid] : %s\n"
                 "%s%%s = arith.index_cast %%s64 : i64 to index\n",
                 in2, in1, indent, indent, indent, part_type, indent);
  gg_emit_group_ends_loop(t, ends, indent, "last", "%lo", "%hi", "%s", "%total", true);
}
