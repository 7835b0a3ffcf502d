// The gg operator descriptor: which grouped GEMM to compile, for which target.
//
// A descriptor fixes everything a kernel is specialised on (layout, scaling, B layout,
// FP8 flavour, the static extents N, K and G, the tile configuration, the target). The
// grouped extent (total rows, or the slab height M) stays a runtime value.
//
// This header is pure C with no MLIR: the runtime uses it too.
#ifndef GG_OP_H_
#define GG_OP_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// How groups split the problem; one per upstream operator (see docs/semantics.md).
typedef enum gg_layout {
  GG_LAYOUT_SIZES = 0,   // f8f8bf16_rowwise_grouped_stacked: M packed, int64 counts
  GG_LAYOUT_OFFSETS,     // f8f8bf16_rowwise_grouped_mm 2D-3D: M packed, int32 prefix ends
  GG_LAYOUT_PADDED,      // f8f8bf16_rowwise_grouped_dynamic: a slab of M rows per group
  GG_LAYOUT_BATCHED,     // f8f8bf16_rowwise_grouped_mm 3D-3D: plain batch, no metadata
  GG_LAYOUT_N_OFFSETS,   // f8f8bf16_rowwise_grouped_mm 3D-2D: groups split N
  GG_LAYOUT_K_OFFSETS,   // f8f8bf16_rowwise_grouped_mm 2D-2D: groups split K
  GG_LAYOUT_COUNT
} gg_layout;

typedef enum gg_scaling {
  GG_SCALING_ROWWISE = 0,  // one scale per row of A and per column of B, after the K loop
  GG_SCALING_BLOCKWISE,    // 1x128 blocks of A, 128x128 blocks of B, inside the K loop
  GG_SCALING_COUNT
} gg_scaling;

typedef enum gg_b_layout {
  GG_B_PLAIN = 0,     // [.., N, K] row-major
  GG_B_PRESHUFFLED,   // MFMA B-preshuffle: 16x64 fragments in 1 KiB blocks
  GG_B_LAYOUT_COUNT
} gg_b_layout;

typedef enum gg_fp8 {
  GG_FP8_E4M3FN = 0,  // OCP: bias 7, max 448, NaN S.1111.111 (gfx950, NVIDIA)
  GG_FP8_E4M3FNUZ,    // bias 8, max 240, NaN 0x80, no -0 (gfx942)
  GG_FP8_COUNT
} gg_fp8;

typedef enum gg_target {
  GG_TARGET_HOST = 0,  // the CPU this runs on
  GG_TARGET_GFX942,    // MI300
  GG_TARGET_GFX950,    // MI350
  GG_TARGET_SM90A,     // NVIDIA Hopper (H100, H200)
  GG_TARGET_COUNT
} gg_target;

// How the K loop sums FP8 products. Hopper's wgmma keeps about 13 fraction bits in its
// accumulator, so sm_90a adds each K tile's partial sum into an FP32 accumulator
// (promoted) unless the caller asks for one wgmma accumulation over the whole K loop
// (fast, like torch's use_fast_accum=True). Host and AMD kernels accumulate in FP32 either
// way: their descriptors always read promoted. docs/semantics.md bounds both.
typedef enum gg_accum {
  GG_ACCUM_PROMOTED = 0,
  GG_ACCUM_FAST,
  GG_ACCUM_COUNT
} gg_accum;

typedef enum gg_loop_form {
  GG_LOOP_ROLLED = 0,  // prefetching loop with a peeled last tile; code size flat in K
  GG_LOOP_UNROLLED,    // fully unrolled (static K only, at most GG_MAX_UNROLLED_K_TILES)
  GG_LOOP_FORM_COUNT
} gg_loop_form;

// The most K tiles an unrolled loop holds: code size and compile time grow with every one
// (K = 16384 at tile_k 128 takes about 27 s to compile for gfx942); past it, roll.
#define GG_MAX_UNROLLED_K_TILES 128

typedef struct gg_tile_config {
  int32_t m, n, k;       // tile extents; all zero selects the default
  int32_t waves_per_eu;  // 0: the compiler decides
  gg_loop_form loop;
  // sm_90a: split-K over a cluster of this many CTAs (1 to GG_SM90_MAX_SPLIT_K), each
  // taking an equal share of every tile's K tiles; the first adds the others' partial
  // sums from their shared memory (deterministic order) and writes the tile. 0 or 1: none.
  int32_t split_k;
} gg_tile_config;

typedef struct gg_op_desc {
  gg_layout layout;
  gg_scaling scaling;
  gg_b_layout b_layout;
  gg_fp8 fp8;
  int64_t n;  // output columns (total N under n_offsets)
  int64_t k;  // reduction extent (total K under k_offsets)
  int64_t g;  // groups
  gg_tile_config tile;
  gg_target target;
  gg_accum accum;
} gg_op_desc;

// The upstream operator a layout serves, and the ranks of its A and B.
typedef enum gg_op_kind { GG_OP_STACKED = 0, GG_OP_DYNAMIC, GG_OP_MM, GG_OP_KIND_COUNT } gg_op_kind;
typedef enum gg_ranks {
  GG_RANKS_2D3D = 0, GG_RANKS_3D3D, GG_RANKS_3D2D, GG_RANKS_2D2D, GG_RANKS_COUNT
} gg_ranks;

gg_layout gg_layout_of_op(gg_op_kind op, gg_ranks ranks);

// Layouts whose groups follow one another along an axis: sizes and offsets (rows),
// n_offsets (columns). Their kernels find a tile's group by binary search over the groups'
// ends, which a first pass computes from the metadata once per launch, on the device, into
// a workspace of G int64 (a second kernel on GPUs, a loop on the host).
int gg_layout_has_group_ends(gg_layout layout);

// The default tile configuration (128x128x128, waves_per_eu 2, rolled).
gg_tile_config gg_tile_config_default(void);

// The rows per group from which AMD kernels default to a 256-wide tile.
#define GG_LARGE_M_ROWS 256

// The tile the entry points and bundles use for desc when the caller names none: the
// default, or on gfx942 and gfx950 with at least GG_LARGE_M_ROWS rows per group, the tile
// the K loop model ranks first at large M (docs/amd-model.md): gfx942 256x128x128
// (rowwise) or 128x256x128 (blockwise), gfx950 256x256x128 (rowwise) or 128x256x128
// (blockwise), waves_per_eu 1, with 128 columns where N is below 256 (or, with
// preshuffled B, not a multiple of 256); on sm_90a in fast rowwise mode, 128x256x128
// where N is at least 2048 and there is a row per group (or N is at least 8192), as
// measured on an H200 (docs/performance.md). desc's loop form, and its waves_per_eu when
// not 0, are kept (as gg_op_desc_with_defaults keeps them).
gg_tile_config gg_tile_config_for(const gg_op_desc* desc, int64_t rows_per_group);

// The SMs the sm_90a split-K rule plans for (H100 SXM and H200 have 132).
#define GG_SM90_PLANNED_SMS 132
// The clusters of `split` CTAs (1 to GG_SM90_MAX_SPLIT_K) an H200 holds at once at the
// kernels' one CTA per SM, as its driver reports them (cuOccupancyMaxActiveClusters: 132,
// 66, 39, 30); 0 for other sizes. A device that holds fewer runs the tiles in more rounds.
int gg_sm90_planned_clusters(int split);
// The split_k the entry points take for an sm_90a launch of m rows with desc's tile: of
// the splits up to GG_SM90_MAX_SPLIT_K whose clusters gg_sm90_planned_clusters holds for
// every tile that can hold rows (at most min(G, m) groups busy under packed layouts) in
// one round, with shares of K at least the ring's stages, the one that keeps the most SMs
// busy; 1 where none does (and for other targets, and k_offsets, whose K is a runtime
// value). Decode with few N tiles is bound by the bytes each SM has in flight: more SMs
// stream the weights.
int gg_sm90_split_k_for(const gg_op_desc* desc, int64_t m);

// The tile for a launch of m rows before the split-K rule: gg_tile_config_for at the
// launch's rows per group (m / G for packed rows).
gg_tile_config gg_tile_config_unsplit(const gg_op_desc* desc, int64_t m);

// The rows of a decode launch (total M), where the sm_90a rule weighs the tile widths.
#define GG_SM90_DECODE_ROWS 128

// The tile the entry points take for a launch of m rows when the caller names none, as
// bundles list it: gg_tile_config_unsplit's with gg_sm90_split_k_for's split-K unless desc
// names a split of its own; in sm_90a fast rowwise mode 256 columns instead of 128 where
// their split keeps at least as many SMs busy; and on sm_90a with rowwise scaling, packed
// rows and at most GG_SM90_DECODE_ROWS rows, the width of 128, 192 or 256 columns (256 in
// fast mode only; each split by the same rule) whose busiest SM takes the least time
// streaming weights, where that is at least 10 % less than the tile chosen so far's.
gg_tile_config gg_tile_config_for_launch(const gg_op_desc* desc, int64_t m);

// Whether a launch's tile (gg_tile_config_for_launch) is the decode rule's choice, a split
// or a tile width, rather than its unsplit tile (gg_tile_config_unsplit) at the same rows:
// the kernel a bundle must add for it, and the one a runtime-only context may lack.
int gg_tile_config_is_decode_choice(gg_tile_config launch, gg_tile_config unsplit);

// Returns desc with a zero tile replaced by the default, and the fields a target ignores
// normalised (sm_90a: waves_per_eu 0 and the rolled loop; host and AMD: promoted).
gg_op_desc gg_op_desc_with_defaults(const gg_op_desc* desc);

// Checks the descriptor against the contract (extents, tile candidates, blockwise block
// multiples, FP8 flavour of the target, preshuffled-B restrictions). The message names
// the rule that is broken.
gg_status gg_op_desc_validate(const gg_op_desc* desc);

// A name for the kernel that encodes every specialisation, e.g.
// "gg_sizes_rowwise_plain_e4m3fn_n256_k512_g4_t128x128x128_w2_rolled_host".
void gg_op_desc_kernel_name(const gg_op_desc* desc, char* buffer, size_t size);

// A descriptor as one line of text, e.g. "gg-kernel v1 layout=sizes scaling=rowwise b=plain
// fp8=e4m3fn n=256 k=512 g=4 tile=128x128x128 wpe=2 loop=rolled target=gfx950". Code objects
// carry it (symbol <kernel>_gg_descriptor) and the compile cache keys on it. The parser
// accepts exactly what the formatter writes (defaults resolved) and names a bad field.
void gg_op_desc_format(const gg_op_desc* desc, char* buffer, size_t size);
gg_status gg_op_desc_parse(const char* text, gg_op_desc* desc);
// The `gg run` / `gg bundle` flags that describe desc (its G groups written as 1*G; every
// field explicit, defaults filled in), e.g. "--op stacked --groups 1*8 --N 4096 ...".
void gg_op_desc_flags(const gg_op_desc* desc, char* buffer, size_t size);

// Names, and their inverses (which return -1 for an unknown name).
const char* gg_layout_name(gg_layout layout);
const char* gg_scaling_name(gg_scaling scaling);
const char* gg_b_layout_name(gg_b_layout b_layout);
const char* gg_fp8_name(gg_fp8 fp8);
const char* gg_target_name(gg_target target);
const char* gg_loop_form_name(gg_loop_form loop);
const char* gg_accum_name(gg_accum accum);
int gg_layout_from_name(const char* name);
int gg_scaling_from_name(const char* name);
int gg_b_layout_from_name(const char* name);
int gg_fp8_from_name(const char* name);
int gg_target_from_name(const char* name);
int gg_loop_form_from_name(const char* name);
int gg_accum_from_name(const char* name);

// ---------------------------------------------------------------------------------------
// Operands. Every op takes A, B, a_scale, b_scale, group metadata (absent for batched)
// and the output, in this order.
typedef enum gg_operand {
  GG_OPERAND_A = 0,
  GG_OPERAND_B,
  GG_OPERAND_A_SCALE,
  GG_OPERAND_B_SCALE,
  GG_OPERAND_META,
  GG_OPERAND_OUT,
  GG_OPERAND_COUNT
} gg_operand;

typedef enum gg_dtype {
  GG_DTYPE_FP8 = 0,  // the descriptor's FP8 flavour
  GG_DTYPE_F32,
  GG_DTYPE_BF16,
  GG_DTYPE_I32,
  GG_DTYPE_I64,
} gg_dtype;

#define GG_DYNAMIC (-1)

typedef struct gg_operand_shape {
  int present;       // 0 for the metadata of the batched layout
  int rank;
  int64_t dims[3];   // GG_DYNAMIC where the grouped extent enters and m was GG_DYNAMIC
  gg_dtype dtype;
} gg_operand_shape;

// The shape of an operand. `m` is the grouped extent: total rows for sizes and offsets,
// the slab height M for padded, batched and n_offsets, the rows of A for k_offsets.
// Pass GG_DYNAMIC to get the symbolic shape that kernels are compiled for.
gg_operand_shape gg_operand_shape_of(const gg_op_desc* desc, gg_operand operand, int64_t m);
// The element count; INT64_MAX when the product overflows (gg_operand_sizes_check
// refuses such shapes before anything is allocated or launched).
int64_t gg_operand_shape_numel(const gg_operand_shape* shape);
// "[2, 3]" for a shape's dims, for messages.
void gg_dims_format(const int64_t* dims, int rank, char* buffer, size_t size);

// The most bytes one operand may hold: 2^47, the user address space of x86-64 and AArch64
// Linux. A larger operand (or one whose extent product overflows) cannot exist in memory.
#define GG_MAX_OPERAND_BYTES (INT64_C(1) << 47)

// Refuses, naming the operand and its shape, a grouped extent m that makes any operand of
// desc larger than GG_MAX_OPERAND_BYTES.
gg_status gg_operand_sizes_check(const gg_op_desc* desc, int64_t m);
// The sizes then the strides (compact row-major) a memref descriptor of the operand
// carries, into fields[0, 2 rank); returns 2 rank.
int gg_operand_shape_memref_fields(const gg_operand_shape* shape, int64_t fields[6]);
size_t gg_dtype_size(gg_dtype dtype);
const char* gg_operand_name(gg_operand operand);

// The scalar kernel arguments of the operands, the way MLIR passes memrefs to kernels:
// for each operand the layout has, in gg_operand order, its allocated and aligned
// pointers, offset 0, sizes and strides (gg_operand_shape_memref_fields). Writes up to
// `capacity` values (is_pointer marks the pointers) and returns how many there are.
#define GG_MAX_OPERAND_ARGS (GG_OPERAND_COUNT * 9)
size_t gg_operand_arg_values(const gg_op_desc* desc, void* const buffers[GG_OPERAND_COUNT],
                             int64_t m, uint64_t* values, uint8_t* is_pointer, size_t capacity);

// Which operand dimension carries m (the extent a launch reads from its tensors).
void gg_grouped_extent_source(const gg_op_desc* desc, gg_operand* operand, int* dim);

// ---------------------------------------------------------------------------------------
// Launch grid: extent = addend + (uses_m ? m : constant) / divisor (rounded up when ceil).
// One rule serves the runtime (which computes the grid) and gg-tile (which emits it).
typedef struct gg_grid_dim_rule {
  int uses_m;
  int64_t constant;
  int64_t divisor;
  int ceil;
  int64_t addend;
} gg_grid_dim_rule;

void gg_grid_rules(const gg_op_desc* desc, gg_grid_dim_rule rules[3]);
int64_t gg_grid_dim(const gg_grid_dim_rule* rule, int64_t m);

// ---------------------------------------------------------------------------------------
// AMD workgroups are 4 waves (256 threads) in a gg_amd_waves_m x (GG_AMD_WAVES /
// gg_amd_waves_m) grid over the tile: 2 x 2 where B goes through LDS, where each wave
// computes tile_m / 2 rows and tile_n / 2 columns and so reads half of A's and half of B's
// tile from LDS; 1 x 4 where preshuffled B goes straight into registers
// (gg_amd_b_in_registers: each wave loads its own columns of B from memory; in 2 x 2, two
// waves would load each) and for 256x256 tiles (whose 128x128 wave tiles hold more
// fragments than gfx950's VGPRs).
#define GG_AMD_WAVES 4
int gg_amd_waves_m(const gg_op_desc* desc);
// Preshuffled B loads into registers in MFMA fragment order, except with LDS DMA
// (gg_amd_lds_dma), which copies each 16-byte chunk from its preshuffled place to where
// plain B's lies in LDS, so the kernel reads both alike.
int gg_amd_b_in_registers(const gg_op_desc* desc);

// Blockwise scaling on AMD multiplies each partial by x_scale[row] w_scale[block of its
// column]. Where a wave's columns share one w_scale block (every layout but n_offsets) and
// the tile's products (tm rows x its 128-wide column blocks) number at most one per thread,
// each thread computes one product and the tile stages the products (1 KiB per 128-wide K
// block); otherwise it stages both scales (2 KiB per block) and each lane multiplies.
int gg_amd_scale_products(const gg_op_desc* desc);

// LDS (AMD workgroup memory). A K loop stages each tile's A (tm tk bytes), its B (tn tk)
// unless B goes to registers (gg_amd_b_in_registers), and blockwise its scales
// (gg_amd_scale_products) in one buffer, or in two used by alternate tiles
// (gg_amd_lds_buffers): always with B in registers (A alone), and otherwise when two
// stages fit beside the workgroups waves_per_eu asks for. The epilogue reuses the memory
// for the bf16 output tile (2 tm tn bytes), in gg_epilogue_parts row bands when the whole
// tile would need more than the loop. gg_amd_lds_bytes is what a workgroup allocates.
//
// gfx950 blockwise kernels load A and B straight into LDS (LDS DMA,
// gg_amd_lds_dma: `buffer_load_dwordx4 ... lds`) where three stages fit one workgroup a CU
// (256x128 and 128x256 at waves_per_eu 1), K is a multiple of 16 (a DMA cannot mask bytes
// within a chunk) and K's trip count is static: three buffers, each tile's loads issued
// two tiles ahead, so that they have a whole tile's MFMAs to land and need no burst at a
// tile's start. The buffers are three allocations, so that LLVM tells a DMA into one from
// the reads of another (alias scopes per LDS variable); each holds a stage or the
// epilogue's band, whichever is larger (gg_amd_lds_buffer_bytes), and the epilogue uses
// the first.
int gg_amd_lds_buffers(const gg_op_desc* desc);
int gg_amd_lds_dma(const gg_op_desc* desc);
int64_t gg_amd_loop_lds_bytes(const gg_op_desc* desc);
int gg_epilogue_parts(const gg_op_desc* desc);
int64_t gg_amd_lds_bytes(const gg_op_desc* desc);
int64_t gg_amd_lds_buffer_bytes(const gg_op_desc* desc);
// 65536 on gfx942, 163840 on gfx950, 0 for the host.
int64_t gg_lds_capacity(gg_target target);

// AMD kernels address every operand through buffer views that start where a tile's data
// does (a 64-bit base) and reach GG_AMD_VIEW_BYTES from it (32-bit offsets; the out-of-range
// offset lies past it). An operand may be any size; what must fit is one tile's span: its
// rows of A, B and the output (checked on the descriptor: m = GG_DYNAMIC), and, for
// blockwise scales, its x_scale blocks, K/128 group heights apart (checked at launch with
// the grouped extent m). Other targets pass.
#define GG_AMD_VIEW_BYTES INT64_C(0x7FFFFFF0)
gg_status gg_amd_addressing_check(const gg_op_desc* desc, int64_t m);

// ---------------------------------------------------------------------------------------
// sm_90a kernels: persistent CTAs of three warpgroups (a TMA producer and two wgmma
// consumers), each walking tile_m x tile_n tiles of the launch's virtual grid (the grid
// rules above); a ring of shared-memory stages of GG_SM90_CTA_ROWS x 128 A bytes and
// tile_n x 128 B bytes, and an epilogue buffer of its own. One rule for the compiler (the
// memory it lays out) and the runtime (the dynamic shared memory and the CTAs it launches
// with).
#define GG_SM90_THREADS 384
#define GG_SM90_SHARED_CAPACITY (227 * 1024)  // per block, opted in
// The most groups an sm_90a kernel of a packed layout takes: their ends live in shared memory.
#define GG_SM90_MAX_GROUPS 4096
// The epilogue stages a consumer warpgroup's 64 rows this many columns at a time.
#define GG_SM90_EPILOGUE_COLS 64
int gg_sm90_stages(const gg_op_desc* desc);
// A CTA computes GG_SM90_CTA_ROWS rows of a tile (two consumer warpgroups of 64). A tile of
// 256 rows is a cluster of two CTAs (consecutive block ids) on its two halves: they share
// the tile's columns of B, so each loads half of B's rows a stage and the TMA multicasts
// them into both CTAs' shared memory (half the B traffic from L2 per CTA); each loads its
// own rows of A. gg_sm90_cluster_m is tile_m / GG_SM90_CTA_ROWS (1 or 2).
#define GG_SM90_CTA_ROWS 128
int gg_sm90_cluster_m(const gg_op_desc* desc);
// The CTAs of a launch's cluster: split_k x gg_sm90_cluster_m (1: no cluster).
int gg_sm90_cluster_ctas(const gg_op_desc* desc);
// B reaches a stage in boxes of this many rows: tile_n / gg_sm90_cluster_m (each CTA of a
// 256-row tile's cluster loads one half and multicasts it).
int gg_sm90_b_box_rows(const gg_op_desc* desc);
// sm_90a kernels take their tensor maps by value before every other parameter, in this
// order: A in boxes of gg_sm90_a_box_rows rows, B in boxes of gg_sm90_b_box_rows rows,
// and A again in boxes of GG_SM90_A_FEW_ROWS rows.
#define GG_SM90_TENSOR_MAPS 3
#define GG_SM90_A_FEW_ROWS 32
// A reaches a stage in boxes of this many rows (A's first tensor map), as many as hold the
// tile's rows: GG_SM90_A_FEW_ROWS at tile_n 256, GG_SM90_CTA_ROWS otherwise (on the H200
// a 128x128 stage of four A boxes ran large M 20 % slower, docs/performance.md). A tile whose rows
// fit in fewer boxes of GG_SM90_A_FEW_ROWS rows loads those from the third map instead (a
// decode tile of 2 rows moves 32 rows of A, not 128). The compiler and the runtime both
// take it from here.
int gg_sm90_a_box_rows(const gg_op_desc* desc);
// The dynamic shared memory of a launch: 1 KiB to align the ring to 1024 bytes, the stages,
// for packed layouts the group ends and the scan's partials (8 (G + 384) bytes), then the
// epilogue buffer (128 rows of GG_SM90_EPILOGUE_COLS bf16 and 16 bytes of padding).
int64_t gg_sm90_dynamic_shared_bytes(const gg_op_desc* desc);
// The bytes of the group ends in shared memory (G int64, rounded up to 16: the scan's
// partials follow them).
int64_t gg_sm90_group_ends_bytes(const gg_op_desc* desc);
// Where the epilogue buffer starts, in bytes from the ring's (1024-aligned) start.
int64_t gg_sm90_epilogue_offset(const gg_op_desc* desc);
// The most CTAs of a split-K cluster (the cluster's size: portable up to 8; 4 keeps each
// share of K at least a ring's worth of K tiles at decode shapes).
#define GG_SM90_MAX_SPLIT_K 4
// The CTAs a launch of m rows takes: gg_sm90_cluster_ctas per tile of the virtual grid,
// at most `resident` (the SMs, or the clusters the device holds at once times their size)
// rounded down to a whole number of clusters.
int64_t gg_sm90_launch_ctas(const gg_op_desc* desc, int64_t m, int resident);
// split_k, or 1 when none is asked.
int gg_sm90_split_k(const gg_op_desc* desc);
// Whether the kernel is ping-pong: fast rowwise 128x128 tiles, unsplit, one CTA a tile, K
// not in k_offsets. Each consumer warpgroup then takes every other tile of its CTA whole.
int gg_sm90_pingpong(const gg_op_desc* desc);
int64_t gg_sm90_static_shared_bytes(const gg_op_desc* desc);

// ---------------------------------------------------------------------------------------
// Launch rules shared by every backend: with a zero extent (m, N, K or G) nothing is
// launched and the output is zero-filled; padded with zeroing zero-fills the output
// before the kernel writes the valid rows.
typedef struct gg_launch_plan {
  int launch;
  int zero_output;
} gg_launch_plan;

gg_launch_plan gg_launch_plan_of(const gg_op_desc* desc, int64_t m, int zeroing);

// What every backend checks before a launch: a non-negative grouped extent m, a buffer for
// every operand the layout has, operands that fit in memory (gg_operand_sizes_check), and
// on AMD targets spans their buffer offsets reach (gg_amd_addressing_check).
gg_status gg_launch_check(const gg_op_desc* desc, void* const buffers[GG_OPERAND_COUNT],
                          int64_t m);

// ---------------------------------------------------------------------------------------
// The MFMA B-preshuffle (16x64 fragments in 1 KiB blocks): element (n, k) of a row-major
// [rows, k] FP8 matrix moves to (((n/16 K/64 + k/64) 4 + (k%64)/16) 16 + n%16) 16 + k%16.
// [G, N, K] weights are shuffled as one [G N, K] matrix (rows = G N), which is each group
// shuffled on its own since N is a multiple of 16. inverse undoes it. rows must be a
// multiple of 16 and k of 64; src and dst must not overlap.
gg_status gg_preshuffle_b_bytes(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t k,
                                int inverse);

#ifdef __cplusplus
}
#endif

#endif  // GG_OP_H_
