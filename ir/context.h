// MLIR contexts set up for gg: every upstream dialect registered, LLVM translations,
// upstream passes registered once per process, and the gg dialect loaded.
#ifndef GG_IR_CONTEXT_H_
#define GG_IR_CONTEXT_H_

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

// Returns a null context when the gg dialect fails to load (a broken build).
MlirContext gg_mlir_context_create(void);

#ifdef __cplusplus
}
#endif

#endif  // GG_IR_CONTEXT_H_
