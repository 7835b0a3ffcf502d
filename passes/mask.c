// gg-mask: decides which bounds of gg.load_tile and gg.epilogue need a predicate.
//
// A bound is dropped only when range facts prove it can never cut the tile: a row or
// column limit that is at least the tile extent on every path, or a K window
// [k0, k0 + tile_k) inside [k_lo, k_hi) for every value k0 takes. Bounds are the group's
// own (from gg.resolve_group), never the operand's total, so a tile-aligned total says
// nothing here. Target lowerings emit predicates exactly where the flags stay true.
#include "ir/ir.h"
#include "dialect/dialect.h"
#include "mlir-c/BuiltinTypes.h"
#include "passes/bounds.h"
#include "passes/pass.h"

// True unless `limit` is provably >= extent.
static bool may_cut(MlirValue limit, int64_t extent) {
  gg_range r = gg_value_range(limit);
  return !(r.has_lo && r.lo >= extent);
}

// True unless [k0, k0 + extent) provably lies within [k_lo, k_hi).
static bool k_may_cut(MlirValue k0, MlirValue k_lo, MlirValue k_hi, int64_t extent) {
  gg_range k = gg_value_range(k0), lo = gg_value_range(k_lo), hi = gg_value_range(k_hi);
  bool above_lo = k.has_lo && lo.has_hi && k.lo >= lo.hi;
  bool below_hi = k.has_hi && hi.has_lo && k.hi + extent <= hi.lo;
  return !(above_lo && below_hi);
}

static int64_t dim(MlirValue value, intptr_t i) {
  return mlirShapedTypeGetDimSize(mlirValueGetType(value), i);
}

static bool run(MlirOperation func, const void* options) {
  (void)options;
  gg_op_list ops = {0};
  gg_collect_ops(func, NULL, &ops);
  for (size_t i = 0; i < ops.count; ++i) {
    MlirOperation op = ops.ops[i];
    if (gg_op_is(op, GG_OP_LOAD_TILE)) {
      MlirValue tile = mlirOperationGetResult(op, 0);
      gg_set_attr_bool(op, "mask_rows", may_cut(mlirOperationGetOperand(op, 2), dim(tile, 0)));
      gg_set_attr_bool(op, "mask_k",
                       k_may_cut(mlirOperationGetOperand(op, 3), mlirOperationGetOperand(op, 4),
                                 mlirOperationGetOperand(op, 5), dim(tile, 1)));
    } else if (gg_op_is(op, GG_OP_EPILOGUE)) {
      MlirValue acc = mlirOperationGetOperand(op, 0);
      gg_set_attr_bool(op, "mask_rows", may_cut(mlirOperationGetOperand(op, 5), dim(acc, 0)));
      gg_set_attr_bool(op, "mask_cols", may_cut(mlirOperationGetOperand(op, 7), dim(acc, 1)));
    }
  }
  gg_op_list_free(&ops);
  return true;
}

const gg_pass_info gg_mask_pass = {
    .argument = "gg-mask",
    .summary = "Keep only the load and store bounds that static facts cannot prove redundant",
    .anchor = "func.func",
    .run = run,
};
