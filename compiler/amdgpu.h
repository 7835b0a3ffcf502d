// AMD code objects: the toolkit directory gpu-module-to-binary links with, and what the
// assembly says about a kernel.
#ifndef GG_COMPILER_AMDGPU_H_
#define GG_COMPILER_AMDGPU_H_

#include <stddef.h>

#include "compiler/compile.h"
#include "ir/ir.h"
#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// The directory holding llvm/bin/ld.lld (Debian's lld-22). Taken from $GG_TOOLKIT, else
// the one the build makes (//compiler:amdgpu_toolkit, found in the runfiles), else made
// on first use under $TMPDIR (a symlink to /usr/lib/llvm-22/bin/ld.lld).
gg_status gg_amdgpu_toolkit(char* buffer, size_t size);

// What the assembly (GG_STAGE_ISA) says about its kernel: the first in it, the main one
// (a _group_ends kernel follows it).
typedef struct gg_isa_stats {
  int isa_lines;       // instructions of the kernel
  int vgpr, agpr, sgpr;
  int lds_bytes;
  int scratch_bytes;
  int waves_per_simd;  // what the registers allow (512 unified registers per lane, max 8)
  int mfma_in_loop;    // MFMA instructions in the body of the loop that holds the most
  int lds_writes;      // ds_write instructions (staging A and plain B, and the epilogue)
  int kernarg_bytes;
} gg_isa_stats;

// The gfx942 and gfx950 rows of the target table: the pipeline to each stage, what the
// stages past the LLVM dialect emit, the code object a runtime loads, and statistics.
gg_status gg_amdgpu_pipeline(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size);
gg_status gg_amdgpu_emit(MlirOperation module, const char* name, gg_stage stage, gg_text* out);
gg_stage gg_amdgpu_artifact_stage(const gg_op_desc* desc);
gg_status gg_amdgpu_stats(const gg_op_desc* desc, MlirOperation target_module, const char* isa,
                          size_t isa_length, gg_text* out);

gg_status gg_isa_stats_parse(const char* isa, size_t length, gg_isa_stats* stats);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_AMDGPU_H_
