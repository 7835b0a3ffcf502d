// gg dialect registration, accessors and builders.
#include "dialect/dialect.h"

#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/AMDGPU.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/ControlFlow.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/IRDL.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/ROCDL.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/UB.h"
#include "mlir-c/Dialect/Vector.h"

intptr_t gg_dialect_dependencies(MlirDialectHandle handles[GG_DIALECT_DEPENDENCIES]) {
  const MlirDialectHandle all[GG_DIALECT_DEPENDENCIES] = {
      mlirGetDialectHandle__func__(),   mlirGetDialectHandle__arith__(),
      mlirGetDialectHandle__scf__(),    mlirGetDialectHandle__memref__(),
      mlirGetDialectHandle__vector__(), mlirGetDialectHandle__gpu__(),
      mlirGetDialectHandle__math__(),   mlirGetDialectHandle__amdgpu__(),
      mlirGetDialectHandle__rocdl__(),  mlirGetDialectHandle__llvm__(),
      mlirGetDialectHandle__cf__(),     mlirGetDialectHandle__ub__(),
  };
  memcpy(handles, all, sizeof all);
  return GG_DIALECT_DEPENDENCIES;
}

bool gg_dialect_load(MlirContext ctx) {
  MlirDialectHandle upstream[GG_DIALECT_DEPENDENCIES];
  intptr_t count = gg_dialect_dependencies(upstream);
  for (intptr_t i = 0; i < count; ++i) mlirDialectHandleLoadDialect(upstream[i], ctx);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__irdl__(), ctx);
  if (mlirContextIsRegisteredOperation(ctx, gg_str(GG_OP_GROUPED_MATMUL))) return true;
  MlirModule irdl = mlirModuleCreateParse(ctx, gg_str(gg_dialect_irdl));
  if (mlirModuleIsNull(irdl)) return false;
  bool ok = mlirLogicalResultIsSuccess(mlirLoadIRDLDialects(irdl));
  mlirModuleDestroy(irdl);
  return ok;
}

// ---------------------------------------------------------------------------------------
// Accessors.

static gg_status bad_attr(const char* name, const char* expected) {
  return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                        "gg.grouped_matmul: attribute '%s' must be %s", name, expected);
}

static gg_status read_enum(MlirOperation op, const char* name, int (*from_name)(const char*),
                           const char* expected, int* value) {
  char buffer[32];
  if (!gg_attr_string(op, name, buffer, sizeof buffer) || (*value = from_name(buffer)) < 0)
    return bad_attr(name, expected);
  return GG_OK;
}

static gg_status read_int(MlirOperation op, const char* name, int64_t* value) {
  if (!gg_attr_int(op, name, value)) return bad_attr(name, "an integer");
  return GG_OK;
}

gg_status gg_grouped_matmul_desc(MlirOperation op, gg_op_desc* desc) {
  memset(desc, 0, sizeof *desc);
  int layout = 0, scaling = 0, b_layout = 0, target = 0, loop = 0, accum = 0;
  int64_t tm = 0, tn = 0, tk = 0, wpe = 0;
  GG_RETURN_IF_ERROR(read_enum(op, "layout", gg_layout_from_name,
                               "sizes, offsets, padded, batched, n_offsets or k_offsets", &layout));
  GG_RETURN_IF_ERROR(
      read_enum(op, "scaling", gg_scaling_from_name, "rowwise or blockwise", &scaling));
  GG_RETURN_IF_ERROR(
      read_enum(op, "b_layout", gg_b_layout_from_name, "plain or preshuffled", &b_layout));
  GG_RETURN_IF_ERROR(
      read_enum(op, "target", gg_target_from_name, "host, gfx942, gfx950 or sm_90a", &target));
  GG_RETURN_IF_ERROR(read_enum(op, "loop", gg_loop_form_from_name, "rolled or unrolled", &loop));
  GG_RETURN_IF_ERROR(read_enum(op, "accum", gg_accum_from_name, "promoted or fast", &accum));
  GG_RETURN_IF_ERROR(read_int(op, "n", &desc->n));
  GG_RETURN_IF_ERROR(read_int(op, "k", &desc->k));
  GG_RETURN_IF_ERROR(read_int(op, "g", &desc->g));
  GG_RETURN_IF_ERROR(read_int(op, "tile_m", &tm));
  GG_RETURN_IF_ERROR(read_int(op, "tile_n", &tn));
  GG_RETURN_IF_ERROR(read_int(op, "tile_k", &tk));
  GG_RETURN_IF_ERROR(read_int(op, "waves_per_eu", &wpe));
  desc->layout = (gg_layout)layout;
  desc->scaling = (gg_scaling)scaling;
  desc->b_layout = (gg_b_layout)b_layout;
  desc->target = (gg_target)target;
  desc->tile.loop = (gg_loop_form)loop;
  desc->accum = (gg_accum)accum;
  desc->tile.m = (int32_t)tm;
  desc->tile.n = (int32_t)tn;
  desc->tile.k = (int32_t)tk;
  desc->tile.waves_per_eu = (int32_t)wpe;
  // split_k is there only where asked (sm_90a's split-K), so every other op reads as before.
  int64_t split = 0;
  if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(op, gg_str("split_k"))))
    GG_RETURN_IF_ERROR(read_int(op, "split_k", &split));
  desc->tile.split_k = (int32_t)split;
  // The FP8 flavour is a property of the operands' element type.
  MlirType a = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType element = mlirShapedTypeGetElementType(a);
  if (mlirTypeIsAFloat8E4M3FNUZ(element)) desc->fp8 = GG_FP8_E4M3FNUZ;
  else desc->fp8 = GG_FP8_E4M3FN;
  return GG_OK;
}

bool gg_is_mma(MlirOperation op) {
  return gg_op_is(op, GG_OP_MMA_TILE) || gg_op_is(op, GG_OP_MMA_SCALED_TILE);
}

static bool has_meta(MlirOperation op) { return mlirOperationGetNumOperands(op) == 6; }

MlirValue gg_grouped_matmul_operand(MlirOperation op, gg_operand operand) {
  if (operand == GG_OPERAND_META && !has_meta(op)) return (MlirValue){NULL};
  intptr_t index = operand;
  if (operand == GG_OPERAND_OUT) index = has_meta(op) ? 5 : 4;
  return mlirOperationGetOperand(op, index);
}

// ---------------------------------------------------------------------------------------
// Builders.

static MlirType element_type(MlirContext ctx, const gg_op_desc* desc, gg_dtype dtype) {
  switch (dtype) {
    case GG_DTYPE_FP8:
      return desc->fp8 == GG_FP8_E4M3FNUZ ? mlirFloat8E4M3FNUZTypeGet(ctx)
                                          : mlirFloat8E4M3FNTypeGet(ctx);
    case GG_DTYPE_F32: return mlirF32TypeGet(ctx);
    case GG_DTYPE_BF16: return mlirBF16TypeGet(ctx);
    case GG_DTYPE_I32: return mlirIntegerTypeGet(ctx, 32);
    case GG_DTYPE_I64: return mlirIntegerTypeGet(ctx, 64);
  }
  return mlirF32TypeGet(ctx);
}

MlirType gg_operand_memref_type(MlirContext ctx, const gg_op_desc* desc, gg_operand operand) {
  gg_operand_shape shape = gg_operand_shape_of(desc, operand, GG_DYNAMIC);
  int64_t dims[3];
  for (int i = 0; i < shape.rank; ++i)
    dims[i] = shape.dims[i] == GG_DYNAMIC ? mlirShapedTypeGetDynamicSize() : shape.dims[i];
  return mlirMemRefTypeContiguousGet(element_type(ctx, desc, shape.dtype), shape.rank, dims,
                                     mlirAttributeGetNull());
}

static MlirNamedAttribute named(MlirContext ctx, const char* name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, gg_str(name)), value);
}

static MlirAttribute string_attr(MlirContext ctx, const char* value) {
  return mlirStringAttrGet(ctx, gg_str(value));
}

static MlirAttribute i64_attr(MlirContext ctx, int64_t value) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value);
}

MlirOperation gg_grouped_matmul_build(MlirBlock block, MlirLocation loc, const gg_op_desc* desc,
                                      const MlirValue* operands) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirOperationState state = mlirOperationStateGet(gg_str(GG_OP_GROUPED_MATMUL), loc);
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    if (i == GG_OPERAND_META && desc->layout == GG_LAYOUT_BATCHED) continue;
    mlirOperationStateAddOperands(&state, 1, &operands[i]);
  }
  MlirNamedAttribute attrs[] = {
      named(ctx, "layout", string_attr(ctx, gg_layout_name(desc->layout))),
      named(ctx, "scaling", string_attr(ctx, gg_scaling_name(desc->scaling))),
      named(ctx, "b_layout", string_attr(ctx, gg_b_layout_name(desc->b_layout))),
      named(ctx, "target", string_attr(ctx, gg_target_name(desc->target))),
      named(ctx, "n", i64_attr(ctx, desc->n)),
      named(ctx, "k", i64_attr(ctx, desc->k)),
      named(ctx, "g", i64_attr(ctx, desc->g)),
      named(ctx, "tile_m", i64_attr(ctx, desc->tile.m)),
      named(ctx, "tile_n", i64_attr(ctx, desc->tile.n)),
      named(ctx, "tile_k", i64_attr(ctx, desc->tile.k)),
      named(ctx, "waves_per_eu", i64_attr(ctx, desc->tile.waves_per_eu)),
      named(ctx, "loop", string_attr(ctx, gg_loop_form_name(desc->tile.loop))),
      named(ctx, "accum", string_attr(ctx, gg_accum_name(desc->accum))),
  };
  mlirOperationStateAddAttributes(&state, sizeof attrs / sizeof attrs[0], attrs);
  if (desc->tile.split_k > 1) {
    MlirNamedAttribute split = named(ctx, "split_k", i64_attr(ctx, desc->tile.split_k));
    mlirOperationStateAddAttributes(&state, 1, &split);
  }
  MlirOperation op = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(block, op);
  return op;
}

MlirModule gg_build_module(MlirContext ctx, const gg_op_desc* desc, const char* name) {
  MlirLocation loc = mlirLocationNameGet(ctx, gg_str(name), mlirLocationUnknownGet(ctx));
  MlirModule module = mlirModuleCreateEmpty(loc);

  MlirType inputs[GG_OPERAND_COUNT];
  MlirLocation locs[GG_OPERAND_COUNT];
  int count = 0;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    if (i == GG_OPERAND_META && desc->layout == GG_LAYOUT_BATCHED) continue;
    inputs[count] = gg_operand_memref_type(ctx, desc, (gg_operand)i);
    locs[count++] = loc;
  }
  MlirBlock body = mlirBlockCreate(count, inputs, locs);
  MlirValue operands[GG_OPERAND_COUNT] = {{NULL}};
  for (int i = 0, arg = 0; i < GG_OPERAND_COUNT; ++i) {
    if (i == GG_OPERAND_META && desc->layout == GG_LAYOUT_BATCHED) continue;
    operands[i] = mlirBlockGetArgument(body, arg++);
  }
  gg_grouped_matmul_build(body, loc, desc, operands);
  MlirOperationState ret = mlirOperationStateGet(gg_str("func.return"), loc);
  mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&ret));

  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirType function_type = mlirFunctionTypeGet(ctx, count, inputs, 0, NULL);
  MlirNamedAttribute attrs[] = {
      named(ctx, "sym_name", string_attr(ctx, name)),
      named(ctx, "function_type", mlirTypeAttrGet(function_type)),
      named(ctx, "llvm.emit_c_interface", mlirUnitAttrGet(ctx)),
  };
  MlirOperationState func = mlirOperationStateGet(gg_str("func.func"), loc);
  mlirOperationStateAddAttributes(&func, 3, attrs);
  mlirOperationStateAddOwnedRegions(&func, 1, &region);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), mlirOperationCreate(&func));
  return module;
}
