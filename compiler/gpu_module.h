// What every GPU target reads from a compiled module: the object of its gpu.binary and
// the LLVM IR of its gpu.module.
#ifndef GG_COMPILER_GPU_MODULE_H_
#define GG_COMPILER_GPU_MODULE_H_

#include "ir/ir.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// The object of the (single) gpu.binary under module: assembly text (AMD ISA, PTX) or ELF
// bytes. The bytes live as long as the module's context.
gg_status gg_gpu_binary_bytes(MlirOperation module, MlirStringRef* bytes);

// LLVM IR of the kernels of a module lowered to ROCDL or NVVM.
gg_status gg_gpu_module_llvm_ir(MlirOperation module, gg_text* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_GPU_MODULE_H_
