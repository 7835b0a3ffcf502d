// NVIDIA Hopper (sm_90a): the target table's row, PTX from LLVM's NVPTX backend, and
// cubins from the CUDA toolkit's ptxas where one is installed.
#ifndef GG_COMPILER_NVIDIA_H_
#define GG_COMPILER_NVIDIA_H_

#include <stddef.h>

#include "compiler/compile.h"
#include "gg/op.h"
#include "gg/status.h"
#include "runtime/text.h"

#ifdef __cplusplus
extern "C" {
#endif

// ptxas: $GG_PTXAS, else /usr/local/cuda/bin/ptxas, else the first on $PATH. Writes its
// path into buffer; GG_STATUS_UNAVAILABLE saying where it looked when there is none.
gg_status gg_ptxas_find(char* buffer, size_t size);

// Assembles PTX text for sm_90a into a cubin appended to out; with `log` non-NULL ptxas
// runs verbosely (-v) and its report (registers, spills, shared memory) is appended there.
gg_status gg_ptxas_run(const char* ptx, size_t length, gg_text* out, gg_text* log);

// What ptxas -v and the PTX say about an sm_90a kernel.
typedef struct gg_ptx_stats {
  int registers;
  int spill_stores, spill_loads;  // bytes
  int stack_bytes;
  int static_shared_bytes;
  int ptx_lines;      // instructions
  int wgmma_in_loop;  // wgmma.mma_async in the body of the loop that holds the most
  // ptxas's own warpgroup arrives and waits around wgmma (notes C7519 and C7517: registers
  // the wgmma read or write touched where the PTX did not fence or wait), and whether it
  // serialised every wgmma of the kernel (C7520: one such fix-up on a path it cannot
  // prove warp-uniform), which runs the tensor cores a wgmma at a time.
  int wgmma_fixups;
  bool wgmma_serialized;
} gg_ptx_stats;
gg_status gg_ptx_stats_parse(const char* ptx, size_t ptx_length, const char* ptxas_log,
                             gg_ptx_stats* stats);

// The sm_90a row of the target table.
gg_status gg_nvidia_pipeline(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size);
gg_status gg_nvidia_emit(MlirOperation module, const char* name, gg_stage stage, gg_text* out);
// The module a runtime loads: a cubin where ptxas exists, else the PTX (the driver JITs it).
gg_stage gg_nvidia_artifact_stage(const gg_op_desc* desc);
gg_status gg_nvidia_stats(const gg_op_desc* desc, MlirOperation target_module, const char* ptx,
                          size_t ptx_length, gg_text* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_NVIDIA_H_
