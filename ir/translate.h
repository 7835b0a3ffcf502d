// Modules in the LLVM dialect (and ROCDL or NVVM) translated to LLVM IR text.
#ifndef GG_IR_TRANSLATE_H_
#define GG_IR_TRANSLATE_H_

#include "gg/status.h"
#include "ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

// Appends the LLVM IR of a builtin.module in the LLVM (and ROCDL or NVVM) dialects to out;
// `name` says what failed to translate.
gg_status gg_llvm_ir_text(MlirOperation module, const char* name, gg_text* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_IR_TRANSLATE_H_
