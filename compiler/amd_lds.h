// The LDS part of the K loop model (docs/amd-model.md): every LDS access of the kernel's
// K loop, read from the IR gg-to-amdgpu makes, its 256 lanes' addresses evaluated and
// priced with the chip's banks.
#ifndef GG_COMPILER_AMD_LDS_H_
#define GG_COMPILER_AMD_LDS_H_

#include "gg/op.h"
#include "gg/status.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_amd_lds {
  int found;      // the kernel has a loop with MFMAs
  int accesses;   // LDS instructions per iteration and wave
  int cycles;     // LDS cycles per iteration, all four waves of the workgroup together
  int conflict;   // the worst bank-conflict degree of an access (1: conflict-free)
  int unknown;    // accesses whose addresses depend on more than the thread id (not priced)
} gg_amd_lds;

// Reads the main kernel of `module`: a module after gg-to-amdgpu (GG_STAGE_TARGET).
gg_status gg_amd_lds_analyze(MlirOperation module, gg_target chip, gg_amd_lds* out);

// The cycles one wave's access of `bytes` per lane at the lanes' byte addresses takes on
// chip's LDS, and its conflict degree (the most distinct dwords one bank serves in a cycle).
int gg_amd_lds_access_cycles(gg_target chip, int is_write, int bytes, const int64_t addresses[64],
                             int* degree);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_AMD_LDS_H_
