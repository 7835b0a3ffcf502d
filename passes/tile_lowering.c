// The shared walk of the target lowerings.
#include "passes/tile_lowering.h"

#include <string.h>

#include "dialect/dialect.h"
#include "mlir-c/BuiltinTypes.h"

bool gg_is_tile_type(MlirType type) {
  return mlirTypeIsAVector(type) && mlirShapedTypeGetRank(type) == 2;
}

void gg_tile_map(gg_tile_lowering* l, MlirValue tile, MlirValue lowered) {
  gg_value_map_set(&l->values, tile, lowered);
}

MlirValue gg_tile_lookup(gg_tile_lowering* l, MlirValue tile, MlirOperation user) {
  if (gg_value_map_has(&l->values, tile)) return gg_value_map_get(&l->values, tile);
  gg_emit_error(user, "%s: a tile operand was not lowered (unsupported producer)",
                l->target->pass_name);
  l->ok = false;
  return tile;
}

void gg_tile_done(gg_tile_lowering* l, MlirOperation op) { gg_op_list_push(&l->dead, op); }

bool gg_tile_emit(gg_tile_lowering* l, MlirOperation before, const gg_text* text,
                  const MlirValue* args, intptr_t arg_count, MlirValue* results,
                  intptr_t result_count) {
  if (!l->ok) return false;
  if (text->failed ||
      !gg_inline_template(before, gg_text_str(text), args, arg_count, results, result_count))
    l->ok = false;
  return l->ok;
}

bool gg_tile_replace(gg_tile_lowering* l, MlirOperation op, const gg_text* text,
                     const MlirValue* args, intptr_t arg_count) {
  MlirValue results[4];
  intptr_t count = mlirOperationGetNumResults(op);
  if (count > 4) {
    gg_emit_error(op, "internal error: %s lowers ops of at most 4 results", l->target->pass_name);
    l->ok = false;
  }
  if (gg_tile_emit(l, op, text, args, arg_count, results, count))
    for (intptr_t i = 0; i < count; ++i) gg_tile_map(l, mlirOperationGetResult(op, i), results[i]);
  gg_tile_done(l, op);
  return l->ok;
}

static void lower_block(gg_tile_lowering* l, MlirBlock block);

static void lower_for(gg_tile_lowering* l, MlirOperation loop) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  intptr_t carried = mlirOperationGetNumResults(loop);
  bool tile[32] = {false};
  if (carried > 32) {
    gg_emit_error(loop, "%s: a loop carries more than 32 values", l->target->pass_name);
    l->ok = false;
    return;
  }
  for (intptr_t i = 0; i < carried; ++i) {
    MlirValue result = mlirOperationGetResult(loop, i);
    if (!gg_is_tile_type(mlirValueGetType(result))) continue;
    tile[i] = true;
    MlirValue lowered = gg_tile_lookup(l, mlirOperationGetOperand(loop, 3 + i), loop);
    if (!l->ok) return;
    MlirValue init = l->target->carry_in(l, loop, lowered);
    if (!l->ok) return;
    mlirOperationSetOperand(loop, 3 + i, init);
    MlirType type = mlirValueGetType(init);
    MlirValue argument = mlirBlockGetArgument(body, 1 + i);
    mlirValueSetType(argument, type);
    mlirValueSetType(result, type);
    gg_tile_map(l, argument, argument);
    gg_tile_map(l, result, result);
  }
  lower_block(l, body);
  if (!l->ok) return;
  MlirOperation yield = mlirBlockGetTerminator(body);
  for (intptr_t i = 0; i < carried; ++i) {
    if (!tile[i]) continue;
    MlirValue argument = mlirBlockGetArgument(body, 1 + i);
    MlirValue lowered = gg_tile_lookup(l, mlirOperationGetOperand(yield, i), yield);
    if (!l->ok) return;
    mlirOperationSetOperand(yield, i, l->target->carry_out(l, yield, lowered, argument));
  }
}

static void lower_op(gg_tile_lowering* l, MlirOperation op) {
  const gg_tile_target* t = l->target;
  if (gg_op_is(op, GG_OP_LOAD_TILE)) {
    if (!t->load_tile(l, op)) l->ok = false;
  } else if (gg_op_is(op, GG_OP_LOAD_SCALES)) {
    if (!t->load_scales(l, op)) l->ok = false;
  } else if (gg_is_mma(op)) {
    if (!t->mma(l, op)) l->ok = false;
  } else if (gg_op_is(op, GG_OP_EPILOGUE)) {
    if (!t->epilogue(l, op)) l->ok = false;
  } else if (gg_op_is(op, "arith.constant") && mlirOperationGetNumResults(op) == 1 &&
             gg_is_tile_type(mlirValueGetType(mlirOperationGetResult(op, 0)))) {
    if (!t->constant(l, op)) l->ok = false;
  } else if (gg_op_is(op, "scf.for")) {
    lower_for(l, op);
  } else {
    for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
      for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
           !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
        lower_block(l, b);
  }
}

// The walk visits the ops the block held when it began: what a lowering inserts, wherever
// in the block (in front of the op, or further down, such as before the loop's yield), is
// never visited. Rewritten ops stay in place until the walk ends, so the list stays valid.
static void lower_block(gg_tile_lowering* l, MlirBlock block) {
  gg_op_list ops = {0};
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    gg_op_list_push(&ops, op);
  for (size_t i = 0; i < ops.count && l->ok; ++i) lower_op(l, ops.ops[i]);
  gg_op_list_free(&ops);
}

bool gg_tile_lower(gg_tile_lowering* l, MlirBlock block, MlirOperation root) {
  lower_block(l, block);
  // On failure the rewritten ops may still have users; the IR is discarded anyway.
  if (l->ok)
    for (size_t i = l->dead.count; i-- > 0;) mlirOperationDestroy(l->dead.ops[i]);
  gg_op_list leftovers = {0};
  gg_collect_ops(root, NULL, &leftovers);
  for (size_t i = 0; i < leftovers.count && l->ok; ++i) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(leftovers.ops[i]));
    if (name.length > 3 && !memcmp(name.data, "gg.", 3)) {
      gg_emit_error(leftovers.ops[i],
                    "%s: %.*s is not lowered (run the gg pipeline up to gg-mask first)",
                    l->target->pass_name, (int)name.length, name.data);
      l->ok = false;
    }
  }
  gg_op_list_free(&leftovers);
  gg_op_list_free(&l->dead);
  gg_value_map_free(&l->values);
  return l->ok;
}
