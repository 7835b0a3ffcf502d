// The order of one tile's work in an AMD K loop (gg-to-amdgpu): its MFMAs in a fixed order,
// each fragment read from LDS a few MFMAs ahead of its first use, each blockwise partial
// scaled a few MFMAs after its last MFMA (its scales read from LDS ahead of that), and, where the next tile is staged during this
// one (two LDS buffers), the next tile's LDS writes spread over the MFMAs from a given
// point, followed by the next loads. The lowering emits the items in this order with
// scheduling fences between MFMAs, so LLVM keeps the interleaving: a wave issues the other
// instructions while its MFMAs run (docs/amd-model.md). Pure C: no MLIR.
#ifndef GG_PASSES_AMDGPU_STREAM_H_
#define GG_PASSES_AMDGPU_STREAM_H_

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gg_stream_kind {
  GG_STREAM_MFMA,    // step, row block (mr), column block (na)
  GG_STREAM_READ_A,  // step, mr: A's fragment of the step (of `read_span` steps from it)
  GG_STREAM_READ_B,  // step, na
  GG_STREAM_READ_XS, // step (of the K block), mr: the x_scale of the lane's rows of mr
  GG_STREAM_READ_WS, // step (of the K block), na: the w_scale of the lane's column of na
  GG_STREAM_SCALE,   // K block (step / block_steps), mr, na: acc += (partial xs) ws
  GG_STREAM_STAGE,   // index of the next tile's LDS write
  GG_STREAM_LOADS,   // where group `step` of the later tile's global loads goes
  GG_STREAM_FENCE,   // nothing may be scheduled across it
  // Carrying (carry_in, carry_out): the fragments a tile reads first come from the tile
  // before it, which read them from the next tile's buffer once that was whole.
  GG_STREAM_CARRIED_A,  // step, mr: the fragment the previous tile read for this one
  GG_STREAM_CARRIED_B,  // step, na
  GG_STREAM_NEXT_A,     // step, mr: read the next tile's fragment (from the other buffer)
  GG_STREAM_NEXT_B,     // step, na
  GG_STREAM_BARRIER,    // the tile's one workgroup barrier, where it goes mid-tile
} gg_stream_kind;

typedef struct gg_stream_item {
  gg_stream_kind kind;
  int step, mr, na;  // STAGE: step is the write's index
} gg_stream_item;

typedef struct gg_stream_shape {
  int steps;        // MFMA steps per tile (tile_k / MFMA K)
  int read_span;    // steps one fragment read serves (gfx942's 16-byte chunk: 2)
  int m_repeat;     // 16-row blocks
  int n_acc;        // 16-column blocks per wave
  int block_steps;  // blockwise: steps per 128-wide K block; 0: rowwise
  int pair_steps;   // rowwise: run the steps of a read in pairs per row block (1 or 2)
  int read_ahead;   // MFMAs between a fragment read and its first MFMA
  int scale_after;  // MFMAs between a partial's last MFMA and its scaling
  int stage_count;  // LDS writes of the next tile in this stream (0: none)
  int stage_at;     // the MFMA before which they start
  int ws_reads;     // blockwise: column blocks whose w_scale is read (1: shared by the wave;
                    // 0: none, the products of the scales are staged and read as x_scale)
  int stage_every;  // MFMAs from one staging write to the next (0: 1)
  // The fragments read before the first MFMA (those whose read falls there) ride from tile
  // to tile: carry_in takes them from the previous tile instead of reading them;
  // carry_out reads the next tile's after a barrier that follows this tile's last LDS
  // read and last staging write, each once this tile's MFMAs are done with the registers
  // it replaces, so that they arrive during this tile's last MFMAs. b_from_lds: B's
  // fragments are LDS reads too (plain B), so they ride as well (preshuffled: A's only).
  int carry_in, carry_out, b_from_lds;
} gg_stream_shape;

// The MFMA count of a tile.
int gg_stream_mfmas(const gg_stream_shape* shape);

// Places `writes` LDS writes of the next tile in the stream (stage_count, stage_at,
// stage_every). Spread: from 3/32 of the tile's MFMAs, one every two MFMAs where they end
// before the last one, so that each MFMA's issue slots go to the fragment reads and scaling
// around it and the loads have the most of the tile to arrive; else from a quarter of the
// MFMAs, one every MFMA. Either way started earlier where that is needed to end in the
// tile. docs/amd-model.md gives the figures.
void gg_stream_place_stage(gg_stream_shape* shape, int writes, bool spread);

// The most fragments that ride from tile to tile (a plan with more is refused).
#define GG_STREAM_MAX_CARRIED 64

// The fragments that ride from tile to tile (carry_in, carry_out), in the order they are
// packed: up to `capacity` items of kind READ_A / READ_B written to `out`; returns their
// number (the same for every tile of a shape), or -1 when they do not fit.
int gg_stream_carried(const gg_stream_shape* shape, gg_stream_item* out, int capacity);

// Where the barrier of a tile that carries out goes (the MFMA it precedes): after the
// tile's last LDS read and staging write. The carried fragments are read one a gap from
// it on, so carrying pays where it leaves them a gap each before the tile's end. -1 when
// out of memory.
int gg_stream_carry_barrier(const gg_stream_shape* shape);

// Writes the tile's items in order into `items` (room for `capacity`); returns their
// number, or -1 when they do not fit. Each MFMA is preceded by a fence, so that the items
// between two MFMAs stay there. With carry_out the stream holds one BARRIER; the tile
// needs no barrier at its end.
int gg_stream_plan(const gg_stream_shape* shape, gg_stream_item* items, int capacity);

#ifdef __cplusplus
}
#endif

#endif  // GG_PASSES_AMDGPU_STREAM_H_
