// gg-verify: checks every gg.grouped_matmul against the operator contract (ranks, shapes,
// dtypes, metadata, contiguity, and the descriptor rules of gg_op_desc_validate) and
// reports the broken rule at the op's location. Nothing is changed.
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "dialect/dialect.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "passes/pass.h"

static void format_shape(char* buffer, size_t size, MlirType type) {
  size_t used = (size_t)snprintf(buffer, size, "[");
  intptr_t rank = mlirShapedTypeGetRank(type);
  for (intptr_t i = 0; i < rank && used < size; ++i) {
    int64_t d = mlirShapedTypeGetDimSize(type, i);
    if (mlirShapedTypeIsDynamicSize(d)) used += (size_t)snprintf(buffer + used, size - used, "%s?", i ? ", " : "");
    else used += (size_t)snprintf(buffer + used, size - used, "%s%lld", i ? ", " : "", (long long)d);
  }
  if (used < size) snprintf(buffer + used, size - used, "]");
}

static const char* dtype_name(gg_dtype dtype, gg_fp8 fp8) {
  switch (dtype) {
    case GG_DTYPE_FP8: return fp8 == GG_FP8_E4M3FNUZ ? "f8E4M3FNUZ" : "f8E4M3FN";
    case GG_DTYPE_F32: return "f32";
    case GG_DTYPE_BF16: return "bf16";
    case GG_DTYPE_I32: return "i32";
    case GG_DTYPE_I64: return "i64";
  }
  return "?";
}

static const char* meta_name(gg_layout layout) {
  switch (layout) {
    case GG_LAYOUT_SIZES: return "M_sizes";
    case GG_LAYOUT_PADDED: return "zero_start_index_M";
    default: return "offsets";
  }
}

// Checks one operand's memref type; emits the rule and returns false when it breaks one.
static bool verify_operand(MlirOperation op, const gg_op_desc* desc, gg_operand operand,
                           MlirValue value) {
  const char* layout = gg_layout_name(desc->layout);
  const char* name = operand == GG_OPERAND_META ? meta_name(desc->layout) : gg_operand_name(operand);
  MlirType type = mlirValueGetType(value);
  MlirType want = gg_operand_memref_type(mlirOperationGetContext(op), desc, operand);
  if (!mlirTypeIsAMemRef(type)) {
    gg_emit_error(op, "gg.grouped_matmul: %s must be a memref", name);
    return false;
  }
  char got_shape[96], want_shape[96];
  format_shape(got_shape, sizeof got_shape, type);
  format_shape(want_shape, sizeof want_shape, want);
  intptr_t rank = mlirShapedTypeGetRank(type), want_rank = mlirShapedTypeGetRank(want);
  if (rank != want_rank) {
    gg_emit_error(op, "gg.grouped_matmul: %s must be %d-D %s for the %s layout, got %d-D %s", name,
                  (int)want_rank, want_shape, layout, (int)rank, got_shape);
    return false;
  }
  gg_operand_shape shape = gg_operand_shape_of(desc, operand, GG_DYNAMIC);
  MlirType element = mlirShapedTypeGetElementType(type);
  MlirType want_element = mlirShapedTypeGetElementType(want);
  if (!mlirTypeEqual(element, want_element)) {
    gg_text got;
    gg_text_init(&got);
    gg_text_type(&got, element);
    if (operand == GG_OPERAND_META)
      gg_emit_error(op, "gg.grouped_matmul: %s must be %s for the %s layout, got %s", name,
                    shape.dtype == GG_DTYPE_I64 ? "int64" : "int32", layout, gg_text_str(&got));
    else if (operand <= GG_OPERAND_B)
      gg_emit_error(op,
                    "gg.grouped_matmul: %s must hold %s (the FP8 flavour of A, which the %s "
                    "target takes), got %s",
                    name, dtype_name(shape.dtype, desc->fp8), gg_target_name(desc->target),
                    gg_text_str(&got));
    else
      gg_emit_error(op, "gg.grouped_matmul: %s must hold %s, got %s", name,
                    dtype_name(shape.dtype, desc->fp8), gg_text_str(&got));
    gg_text_free(&got);
    return false;
  }
  for (intptr_t i = 0; i < rank; ++i) {
    int64_t got_dim = mlirShapedTypeGetDimSize(type, i);
    int64_t want_dim = mlirShapedTypeGetDimSize(want, i);
    if (got_dim != want_dim) {
      const char* why = mlirShapedTypeIsDynamicSize(want_dim)
                            ? " (the grouped extent is a runtime value: write '?')"
                            : "";
      gg_emit_error(op, "gg.grouped_matmul: %s must be %s for the %s layout, got %s%s", name,
                    want_shape, layout, got_shape, why);
      return false;
    }
  }
  MlirAttribute layout_attr = mlirMemRefTypeGetLayout(type);
  if (!mlirAttributeIsAAffineMap(layout_attr) ||
      !mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layout_attr))) {
    gg_emit_error(op, "gg.grouped_matmul: %s must be contiguous (identity layout)", name);
    return false;
  }
  return true;
}

static bool verify_op(MlirOperation op) {
  gg_op_desc desc;
  gg_status status = gg_grouped_matmul_desc(op, &desc);
  if (!status) status = gg_op_desc_validate(&desc);
  if (status) {
    gg_emit_error(op, "gg.grouped_matmul: %s", gg_status_message(status));
    gg_status_free(status);
    return false;
  }
  intptr_t operands = mlirOperationGetNumOperands(op);
  intptr_t want = desc.layout == GG_LAYOUT_BATCHED ? 5 : 6;
  if (operands != want) {
    if (desc.layout == GG_LAYOUT_BATCHED)
      gg_emit_error(op, "gg.grouped_matmul: the batched layout (3D-3D) takes no group metadata");
    else
      gg_emit_error(op, "gg.grouped_matmul: the %s layout needs its group metadata (%s)",
                    gg_layout_name(desc.layout), meta_name(desc.layout));
    return false;
  }
  // A fixes the FP8 flavour; B must match it.
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    MlirValue value = gg_grouped_matmul_operand(op, (gg_operand)i);
    if (mlirValueIsNull(value)) continue;
    if (!verify_operand(op, &desc, (gg_operand)i, value)) return false;
  }
  return true;
}

static bool run(MlirOperation func, const void* options) {
  (void)options;
  gg_op_list ops = {0};
  gg_collect_ops(func, GG_OP_GROUPED_MATMUL, &ops);
  bool ok = true;
  for (size_t i = 0; i < ops.count; ++i) ok = verify_op(ops.ops[i]) && ok;
  gg_op_list_free(&ops);
  return ok;
}

const gg_pass_info gg_verify_pass = {
    .argument = "gg-verify",
    .summary = "Check gg.grouped_matmul against the operator contract",
    .anchor = "func.func",
    .run = run,
};
