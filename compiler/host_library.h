// Host kernels ahead of time: a descriptor compiled for this CPU into a shared object
// (LLVM object code linked by ld.lld), which runtime/host.h loads without MLIR.
#ifndef GG_COMPILER_HOST_LIBRARY_H_
#define GG_COMPILER_HOST_LIBRARY_H_

#include <stddef.h>

#include "compiler/compile.h"
#include "ir/ir.h"
#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif


// The host row of the target table: the pipeline to each stage; LLVM IR, and (at
// GG_STAGE_BINARY, its artifact) a shared object exporting _mlir_ciface_<kernel name>.
gg_status gg_host_pipeline(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size);
gg_status gg_host_emit(MlirOperation module, const char* name, gg_stage stage, gg_text* out);
gg_stage gg_host_artifact_stage(const gg_op_desc* desc);

// What host code is generated for: "<triple> <cpu> <features>". Kernels built for one
// CPU id must not be loaded on another (a cache keys on it).
void gg_host_cpu_id(char* buffer, size_t size);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_HOST_LIBRARY_H_
