// The gpu.module and gpu.binary of a compiled GPU kernel, for every GPU target.
#include "compiler/gpu_module.h"

#include "ir/translate.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"

typedef struct find_state {
  MlirOperation found;
} find_state;

static MlirWalkResult find_binary(MlirOperation op, void* user_data) {
  if (gg_op_is(op, "gpu.binary")) {
    ((find_state*)user_data)->found = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

gg_status gg_gpu_binary_bytes(MlirOperation module, MlirStringRef* bytes) {
  find_state state = {{NULL}};
  mlirOperationWalk(module, find_binary, &state, MlirWalkPreOrder);
  if (mlirOperationIsNull(state.found))
    return gg_status_make(GG_STATUS_INTERNAL, "the module holds no gpu.binary");
  MlirAttribute objects = mlirOperationGetAttributeByName(state.found, gg_str("objects"));
  if (mlirAttributeIsNull(objects) || !mlirAttributeIsAArray(objects) ||
      mlirArrayAttrGetNumElements(objects) != 1 ||
      !mlirAttributeIsAGPUObjectAttr(mlirArrayAttrGetElement(objects, 0)))
    return gg_status_make(GG_STATUS_INTERNAL, "the gpu.binary holds no single object");
  *bytes = mlirGPUObjectAttrGetObject(mlirArrayAttrGetElement(objects, 0));
  return GG_OK;
}

gg_status gg_gpu_module_llvm_ir(MlirOperation module, gg_text* out) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!gg_op_is(op, "gpu.module")) continue;
    // Translation wants a builtin.module: clone the gpu.module's body into one.
    MlirModule holder = mlirModuleCreateEmpty(mlirOperationGetLocation(op));
    MlirBlock target = mlirModuleGetBody(holder);
    MlirBlock source = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    for (MlirOperation inner = mlirBlockGetFirstOperation(source); !mlirOperationIsNull(inner);
         inner = mlirOperationGetNextInBlock(inner))
      mlirBlockAppendOwnedOperation(target, mlirOperationClone(inner));
    gg_status status = gg_llvm_ir_text(mlirModuleGetOperation(holder), "the kernel", out);
    mlirModuleDestroy(holder);
    return status;
  }
  return gg_status_make(GG_STATUS_INTERNAL, "the module holds no gpu.module");
}

