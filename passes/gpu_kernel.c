// The func.func -> gpu.func move every GPU target lowering makes.
#include "passes/gpu_kernel.h"

#include "dialect/dialect.h"
#include "mlir-c/BuiltinAttributes.h"

bool gg_find_grid(MlirOperation func, const char* pass, MlirOperation* grid) {
  gg_op_list grids = {0};
  gg_collect_ops(func, GG_OP_GRID, &grids);
  *grid = grids.count ? grids.ops[0] : (MlirOperation){NULL};
  size_t count = grids.count;
  gg_op_list_free(&grids);
  if (count > 1) {
    gg_emit_error(func, "%s: one gg.grid per function", pass);
    return false;
  }
  return true;
}

MlirOperation gg_first_gpu_func(MlirOperation gpu_module) {
  MlirOperation op =
      mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(gpu_module, 0)));
  while (!mlirOperationIsNull(op) && !gg_op_is(op, "gpu.func")) op = mlirOperationGetNextInBlock(op);
  return op;
}

MlirOperation gg_insert_kernel_skeleton(MlirOperation func, const char* skeleton) {
  MlirOperation gpu_module =
      skeleton ? mlirOperationCreateParse(mlirOperationGetContext(func), gg_str(skeleton),
                                          gg_str("gg-template"))
               : (MlirOperation){NULL};
  if (mlirOperationIsNull(gpu_module)) {
    gg_emit_error(func, "internal error: the kernel skeleton does not parse");
    return gpu_module;
  }
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(func), func, gpu_module);
  return gg_first_gpu_func(gpu_module);
}

void gg_move_grid_into_kernel(MlirOperation func, MlirOperation grid, MlirOperation kernel,
                              intptr_t first_arg) {
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  MlirOperation tid = mlirBlockGetFirstOperation(body);
  MlirOperation bx = mlirOperationGetNextInBlock(tid);
  MlirOperation by = mlirOperationGetNextInBlock(bx);
  MlirOperation bz = mlirOperationGetNextInBlock(by);
  MlirOperation ret = mlirBlockGetTerminator(body);
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(entry); ++i)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(entry, i),
                                  mlirBlockGetArgument(body, first_arg + i));
  // The function's prologue (views, extents) runs in the kernel; its grid extents become
  // dead code there. The grid's body follows, on the block's ids.
  MlirOperation func_return = mlirBlockGetTerminator(entry);
  for (MlirOperation op = mlirBlockGetFirstOperation(entry); !mlirOperationEqual(op, func_return);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (!mlirOperationEqual(op, grid)) mlirOperationMoveBefore(op, tid);
    op = next;
  }
  MlirBlock grid_body = mlirRegionGetFirstBlock(mlirOperationGetRegion(grid, 0));
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(grid_body, 0), mlirOperationGetResult(bx, 0));
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(grid_body, 1), mlirOperationGetResult(by, 0));
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(grid_body, 2), mlirOperationGetResult(bz, 0));
  MlirOperation grid_end = mlirBlockGetTerminator(grid_body);
  for (MlirOperation op = mlirBlockGetFirstOperation(grid_body); !mlirOperationEqual(op, grid_end);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, ret);
    op = next;
  }
  mlirOperationDestroy(func);
}

bool gg_lower_funcs_to_kernels(MlirOperation module,
                               bool (*to_kernel)(MlirOperation func, const void* options),
                               const void* options) {
  gg_op_list funcs = {0};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (gg_op_is(op, "func.func")) gg_op_list_push(&funcs, op);
  bool ok = true;
  for (size_t i = 0; i < funcs.count && ok; ++i) ok = to_kernel(funcs.ops[i], options);
  gg_op_list_free(&funcs);
  if (ok)
    mlirOperationSetDiscardableAttributeByName(module, gg_str("gpu.container_module"),
                                               mlirUnitAttrGet(mlirOperationGetContext(module)));
  return ok;
}
