// gg-nvvm-abi: after convert-gpu-to-nvvm, gives the tensor-map arguments of gg's sm_90a
// kernels (the first `gg.tensor_maps` arguments, !llvm.ptr) their ABI: 128-byte by-value
// kernel parameters that are grid constants, so a launch passes each CUtensorMap by value
// and the TMA reads it through the parameter's generic address. gpu.func cannot say so
// itself: the NVVM dialect accepts nvvm.grid_constant on llvm.func kernels only, and
// convert-gpu-to-nvvm drops llvm.byval. It also hands loop annotations on to the branches
// that translation reads them from (forward_loop_annotation).
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "mlir-c/BuiltinAttributes.h"
#include "passes/pass.h"

#define TENSOR_MAP_ATTRS \
  "{llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}"

static bool set_tensor_map_args(MlirOperation func) {
  int64_t count = 0;
  if (!gg_attr_int(func, "gg.tensor_maps", &count)) return true;
  MlirContext ctx = mlirOperationGetContext(func);
  MlirAttribute old = mlirOperationGetAttributeByName(func, gg_str("arg_attrs"));
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t argc = mlirBlockGetNumArguments(entry);
  if (count < 0 || count > argc) {
    gg_emit_error(func, "gg-nvvm-abi: gg.tensor_maps = %lld but the kernel has %lld arguments",
                  (long long)count, (long long)argc);
    return false;
  }
  MlirAttribute map_attrs = mlirAttributeParseGet(ctx, gg_str(TENSOR_MAP_ATTRS));
  MlirAttribute empty = mlirDictionaryAttrGet(ctx, 0, NULL);
  MlirAttribute* dicts = malloc((size_t)(argc ? argc : 1) * sizeof *dicts);
  if (!dicts) return false;
  for (intptr_t i = 0; i < argc; ++i) {
    bool has_old = !mlirAttributeIsNull(old) && mlirAttributeIsAArray(old) &&
                   i < mlirArrayAttrGetNumElements(old);
    dicts[i] = i < count ? map_attrs : has_old ? mlirArrayAttrGetElement(old, i) : empty;
  }
  mlirOperationSetAttributeByName(func, gg_str("arg_attrs"), mlirArrayAttrGet(ctx, argc, dicts));
  free(dicts);
  mlirOperationRemoveAttributeByName(func, gg_str("gg.tensor_maps"));
  return true;
}

// A loop's annotation (gg-to-nvvm's "not unrolled") reaches its back edge as a discardable
// llvm.loop_annotation attribute (scf-to-cf forwards it so), which translation to LLVM IR
// ignores: it reads the branch's own loop_annotation.
static void forward_loop_annotation(MlirOperation branch) {
  MlirAttribute annotation = mlirOperationGetDiscardableAttributeByName(branch, gg_str("llvm.loop_annotation"));
  if (mlirAttributeIsNull(annotation)) return;
  mlirOperationSetInherentAttributeByName(branch, gg_str("loop_annotation"), annotation);
  mlirOperationRemoveDiscardableAttributeByName(branch, gg_str("llvm.loop_annotation"));
}

static MlirWalkResult visit(MlirOperation op, void* user_data) {
  bool* ok = user_data;
  if (gg_op_is(op, "llvm.func") && !set_tensor_map_args(op)) *ok = false;
  if (gg_op_is(op, "llvm.br") || gg_op_is(op, "llvm.cond_br")) forward_loop_annotation(op);
  return MlirWalkResultAdvance;
}

static bool run(MlirOperation module, const void* options) {
  (void)options;
  bool ok = true;
  mlirOperationWalk(module, visit, &ok, MlirWalkPreOrder);
  return ok;
}

const gg_pass_info gg_nvvm_abi_pass = {
    .argument = "gg-nvvm-abi",
    .summary = "Give gg's sm_90a tensor-map kernel arguments their ABI (by-value grid constants)",
    .anchor = "builtin.module",
    .run = run,
};
