// A launch's time on an AMD chip as the K loop model predicts it (docs/amd-model.md,
// "Launch time"): no AMD GPU is reachable, so AMD tuning tables are modelled from this,
// not measured.
#ifndef GG_COMPILER_AMD_ESTIMATE_H_
#define GG_COMPILER_AMD_ESTIMATE_H_

#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// The figures of a kernel's `--stats` line that the estimate needs.
typedef struct gg_amd_loop_figures {
  int64_t scratch_bytes;
  int loop_mfma_cycles;  // one wave's MFMA issue cycles per iteration of the K loop ...
  int loop_tiles;        // ... which covers this many K tiles
  double share_bound;    // the share of the loop the MFMAs can be busy
} gg_amd_loop_figures;

// Reads them from a gg_compile_stats line; fails for a kernel with no K loop to model
// (loop=none) or no llvm-mca figure (share_bound=n/a).
gg_status gg_amd_loop_figures_parse(const char* stats, gg_amd_loop_figures* out);

// What the L2 can feed one CU, bytes a clock (an estimate).
double gg_amd_l2_bytes_per_clock(gg_target chip);

// The modelled microseconds of a launch of desc (gfx942 or gfx950, its tile named) over
// grouped extent m (rows, spread evenly over the groups): the longer of the MFMA time
// (rounds of tiles over the chip's CUs, each tile's K loop at its share_bound) and the
// memory time (the bytes of A, the active groups' B and the output over HBM, or over the
// CUs' L2 paths where the tiles leave CUs idle).
double gg_amd_modelled_us(const gg_op_desc* desc, int64_t m, const gg_amd_loop_figures* figures);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_AMD_ESTIMATE_H_
