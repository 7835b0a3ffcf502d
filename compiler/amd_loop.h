// The static model of an AMD kernel's steady-state K loop, read from its assembly: what
// `gg compile --stats` reports as loop_* (docs/amd-model.md explains the model and its
// limits).
#ifndef GG_COMPILER_AMD_LOOP_H_
#define GG_COMPILER_AMD_LOOP_H_

#include <stddef.h>

#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// The assembly's lines up to the first kernel's .amdhsa_kernel block, trimmed of leading
// blanks (*lines is the caller's to free).
typedef struct gg_isa_line {
  const char* text;
  size_t length;
} gg_isa_line;
gg_status gg_isa_kernel_lines(const char* isa, size_t length, gg_isa_line** lines, size_t* count);
int gg_isa_line_starts_with(gg_isa_line line, const char* prefix);
int gg_isa_line_is_instruction(gg_isa_line line);  // not empty, a comment, a directive or a label

typedef struct gg_amd_loop {
  int found;          // the kernel has a loop with MFMAs: the one with the most is the K loop
  int mfma;           // MFMA instructions per iteration
  int mfma_cycles;    // their issue cycles at the chip's published rates
  int waits;          // s_waitcnt instructions
  int copies;         // register-to-register moves (v_mov, v_accvgpr) of data
  int vmem_loads;     // global (buffer) loads
  int vmem_bytes;     // the bytes they bring per lane
  // Of those, the bytes of 16-byte loads: the A and B tiles. The narrower ones are gg's
  // scale gathers, whose lanes mostly share addresses (the L1 serves them).
  int vmem_tile_bytes;
  // The fewest MFMA cycles issued between a global load and the first wait that needs it
  // (over two iterations, so a load waited for in the next one counts what lies between);
  // -1 when the loop loads nothing.
  int vmem_cover;
  // llvm-mca's cycles per iteration, in clocks, with each MFMA costed at its published
  // rate; -1 when llvm-mca is not installed (then mca_note says why).
  double cycles_mca;
  char mca_note[160];
} gg_amd_loop;

// The MFMA issue cycles of one instruction (its mnemonic) on chip; 0 for a non-MFMA.
int gg_amd_mfma_cycles(gg_target chip, const char* mnemonic, size_t length);

// Reads the K loop of the first kernel in `isa` (GG_STAGE_ISA) for chip; run_mca also
// prices the loop body with llvm-mca-22.
gg_status gg_amd_loop_analyze(const char* isa, size_t length, gg_target chip, int run_mca,
                              gg_amd_loop* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_AMD_LOOP_H_
