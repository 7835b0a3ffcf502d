// The compiler driver: a descriptor in, IR at any stage, LLVM IR, or a host kernel out.
#ifndef GG_COMPILER_COMPILE_H_
#define GG_COMPILER_COMPILE_H_

#include <stdint.h>

#include "ir/ir.h"
#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// Where to stop the pipeline.
typedef enum gg_stage {
  GG_STAGE_OP = 0,        // the gg.grouped_matmul module as built from the descriptor
  GG_STAGE_TILES,         // after the tile-level gg passes (verify .. mask)
  GG_STAGE_TARGET,        // after the target lowering (gg-to-host, gg-to-amdgpu)
  GG_STAGE_LLVM_DIALECT,  // lowered to the LLVM dialect (ROCDL for AMD)
  GG_STAGE_LLVM_IR,       // translated to LLVM IR (text)
  GG_STAGE_ISA,           // AMD assembly (gfx942, gfx950)
  GG_STAGE_BINARY,        // the HSA code object, an AMDGPU ELF (gfx942, gfx950)
  GG_STAGE_COUNT
} gg_stage;

const char* gg_stage_name(gg_stage stage);
int gg_stage_from_name(const char* name);

// The textual pipeline that takes op-level IR for desc to `stage` (GG_STAGE_LLVM_IR uses
// the LLVM-dialect pipeline). Written into buffer. Fails for a stage the target lacks.
gg_status gg_pipeline_for(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size);

// Compiles desc up to stage and appends the result to out: printed MLIR, LLVM IR or
// assembly text, or the code object's bytes. Compilation errors come back as a status
// carrying the located diagnostics.
gg_status gg_compile_emit(const gg_op_desc* desc, gg_stage stage, gg_text* out);

// Compiles desc with the target's whole pipeline cut after the first pass (or named
// pipeline) called `pass`, and appends the printed module to out.
gg_status gg_compile_emit_after_pass(const gg_op_desc* desc, const char* pass, gg_text* out);

// Compiles desc and, on success, hands back the module at `stage` (MLIR stages only) in
// a context the caller owns (destroy the module, then the context).
gg_status gg_compile_module(const gg_op_desc* desc, gg_stage stage, MlirContext* ctx,
                            MlirModule* module);

// Runs a textual pipeline (gg and upstream passes) on a builtin.module; failures come back
// with the diagnostics.
gg_status gg_pipeline_run(MlirOperation module, const char* pipeline);
// As gg_pipeline_run, stopping after the first element named stop_after (NULL: all).
gg_status gg_pipeline_run_until(MlirOperation module, const char* pipeline,
                                const char* stop_after);

// A host kernel: JIT-compiled machine code for the CPU.
typedef struct gg_host_kernel gg_host_kernel;

gg_status gg_host_kernel_create(const gg_op_desc* desc, gg_host_kernel** kernel);
void gg_host_kernel_destroy(gg_host_kernel* kernel);

// Milliseconds the compile took (pipeline and code generation).
double gg_host_kernel_compile_ms(const gg_host_kernel* kernel);

// Runs the kernel on host buffers (buffers[GG_OPERAND_META] may be NULL for batched),
// whose shapes are those of gg_operand_shape_of(desc, ., m). Applies the launch rules:
// a zero extent zero-fills the output and launches nothing; padded with zeroing
// zero-fills the output before the kernel writes the valid rows.
gg_status gg_host_kernel_run(gg_host_kernel* kernel, void* const buffers[GG_OPERAND_COUNT],
                             int64_t m, int zeroing);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_COMPILE_H_
