// sim: executes the AMD kernel IR that gg-to-amdgpu produces (before it leaves MLIR) on the
// CPU, so the AMD code path runs without AMD hardware.
//
// Every lane of a workgroup (256 = 4 waves of 64) executes in lockstep: each SSA value holds
// one value per lane, divergent branches run under lane masks. amdgpu.mfma follows the
// documented lane layouts (../shared/notes/mma-layouts.md), LDS is per workgroup, buffer
// loads out of range read zero and stores out of range are dropped. It checks what the
// hardware would not forgive: an LDS byte written by one lane and read by another with no
// barrier between them, reads of LDS never written, barriers in divergent code, partially
// out-of-range buffer accesses (chip-dependent), MFMAs without their whole wave.
#ifndef GG_SIM_SIM_H_
#define GG_SIM_SIM_H_

#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_sim_stats {
  int64_t workgroups;
  int64_t ops_executed;   // op executions (each over the active lanes of a workgroup)
  int64_t mfmas;          // MFMA instructions executed (per wave)
  int64_t barriers;
} gg_sim_stats;

// Runs the kernel in `module` (the output of gg-to-amdgpu for desc) over the grid of
// gg_grid_rules on host buffers shaped as gg_operand_shape_of(desc, ., m), applying the
// launch rules (zero extents, zeroing). A violation of the checks above fails with a
// status naming the op, workgroup and lane.
gg_status gg_sim_run(MlirOperation module, const gg_op_desc* desc,
                     void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                     gg_sim_stats* stats);

// As gg_sim_run, but only the workgroups [lo, hi) of the kernel's grid run (clamped to
// the grid): one tile of a launch too large to simulate whole. A group ends kernel runs
// whole, first, as in any launch.
gg_status gg_sim_run_window(MlirOperation module, const gg_op_desc* desc,
                            void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                            const int64_t lo[3], const int64_t hi[3], gg_sim_stats* stats);

#ifdef __cplusplus
}
#endif

#endif  // GG_SIM_SIM_H_
