// The targets the compiler driver knows, in one table: the pipeline to each stage, what
// the stages past the LLVM dialect emit, the artifact a runtime loads, and statistics.
// The driver, the API and the tools ask the table; a new target is a new row (and its
// emitter file), not a case in each of them. The emitters are below the driver: they are
// handed modules and text, and never compile.
#ifndef GG_COMPILER_TARGET_H_
#define GG_COMPILER_TARGET_H_

#include <stddef.h>

#include "compiler/compile.h"
#include "gg/op.h"
#include "gg/status.h"
#include "mlir-c/IR.h"
#include "runtime/text.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_target_backend {
  gg_target target;
  // The textual pipeline from op-level IR to stage ("" for the op stage); a stage the
  // target lacks fails saying why.
  gg_status (*pipeline)(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size);
  gg_stage last_stage;  // where its whole pipeline ends (what --after cuts)
  // Appends what a module lowered to stage (LLVM IR or later) emits: LLVM IR text,
  // assembly, a binary. `name` is the kernel's.
  gg_status (*emit)(MlirOperation module, const char* name, gg_stage stage, gg_text* out);
  // The artifact a runtime loads, named in cache keys, and the stage that emits it (a
  // text stage's artifact is NUL-terminated).
  const char* artifact;
  gg_stage (*artifact_stage)(const gg_op_desc* desc);
  int machine_code;  // has assembly and a binary stage (gg compile --emit isa, --stats)
  // Appends `key=value ...` statistics of desc's kernel, given its assembly
  // (GG_STAGE_ISA) and, for a row with stats_read_target_ir, the module after the
  // target's lowering (GG_STAGE_TARGET; a null operation otherwise), to out
  // (gg compile --stats); NULL: none.
  gg_status (*stats)(const gg_op_desc* desc, MlirOperation target_module, const char* isa,
                     size_t isa_length, gg_text* out);
  int stats_read_target_ir;
} gg_target_backend;

// The row of a target (NULL for a value outside gg_target).
const gg_target_backend* gg_target_backend_of(gg_target target);

// The artifact a runtime loads for desc: its target's artifact stage, emitted.
gg_status gg_compile_artifact(const gg_op_desc* desc, gg_text* out);

// The target's statistics of desc's kernel (gg compile --stats): compiled to assembly,
// then read by the target's stats. UNIMPLEMENTED for a target without machine code.
gg_status gg_compile_stats(const gg_op_desc* desc, gg_text* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_TARGET_H_
