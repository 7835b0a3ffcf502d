// Translation to LLVM IR.
#include "ir/translate.h"

#include "llvm-c/Core.h"
#include "mlir-c/Target/LLVMIR.h"

// A host module, or a GPU kernel's gpu.module body (the bitcode gpu-module-to-binary's
// offloading format produces would do too; translating the body directly keeps one path).
gg_status gg_llvm_ir_text(MlirOperation module, const char* name, gg_text* out) {
  LLVMContextRef llvm_ctx = LLVMContextCreate();
  gg_status status = GG_OK;
  LLVMModuleRef llvm_module = mlirTranslateModuleToLLVMIR(module, llvm_ctx);
  if (!llvm_module) {
    status = gg_status_make(GG_STATUS_INTERNAL, "translating %s to LLVM IR failed", name);
  } else {
    char* text = LLVMPrintModuleToString(llvm_module);
    gg_text_printf(out, "%s", text);
    LLVMDisposeMessage(text);
    LLVMDisposeModule(llvm_module);
  }
  LLVMContextDispose(llvm_ctx);
  return status;
}

