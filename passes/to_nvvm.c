// gg-to-nvvm: lowers tile-level gg IR to a gpu.module kernel for NVIDIA Hopper (sm_90a).
// Persistent CTAs of three warpgroups (384 threads): the launch gives at most one CTA per
// SM (gg_sm90_launch_ctas) and each walks its share of the virtual grid's tile_m x tile_n
// tiles (the gg.grid extents) from its block id in steps of the launch's CTAs: only the
// tiles that hold rows where groups are packed along M, the whole grid (x fastest)
// otherwise. Each role walks them in a loop of its own (the grid's body, cloned), after
// setting its register budget once (nvvm.setmaxregister):
//
// - Warpgroup 0 is the producer: thread 0 issues TMA loads (nvgpu.tma.async.load) of the
//   A tile (tile_m x 128 bytes) and the B tile (tile_n x 128) of each K tile into a ring
//   of shared-memory stages, 128-byte swizzled, guarded by full/empty mbarriers. The ring
//   runs on across the CTA's tiles (a per-role count of K tiles gives stage and phase), so
//   the next tile's loads go out while the consumers are still in this tile's epilogue.
// - Ping-pong (fast rowwise 128x128 tiles): each consumer warpgroup takes every other tile
//   of the CTA's walk whole (two m64 halves), so one's epilogue overlaps the other's
//   wgmma; order barriers hand the K loop from one to the other (emit_order_wait).
// - Warpgroups 1 and 2 are consumers: each owns 64 rows and issues m64nNk32 e4m3 wgmma
//   (nvvm.wgmma.mma_async) from shared memory, with descriptors computed here (128-byte
//   swizzle, 1024-byte stride between 8-row groups, +32 bytes per k32 step). nvgpu's own
//   warpgroup ops are f16-shaped and wrong for FP8 in MLIR 22 (notes/nvidia-hopper).
// - Accumulation: promoted (default) starts each K tile's partial sum fresh in wgmma
//   (scale-d 0) and adds it into FP32 registers, scaled by the blocks' scales for
//   blockwise scaling; fast accumulates in wgmma across the whole K loop.
// - TMA reads whole boxes: rows past a group's end (the next group's rows, or zeros past
//   the tensor) are dropped by the epilogue's row and column predicates; under k_offsets
//   the K columns of a boundary tile outside the group's range are zeroed in shared memory
//   before the wgmma reads them (A's columns suffice: every product has an A factor).
// - Epilogue: from the accumulator registers (wgmma's D layout: thread t of a warpgroup
//   holds rows 16 (t/32) + (t%32)/4 + {0, 8}, columns 8 j + 2 (t%4) + {0, 1}), scales,
//   bf16, staged 64 columns at a time through an epilogue buffer of its own (not the ring,
//   which the producer is refilling) so that rows go out in 16-byte stores, with
//   predicates at the group's edges.
// - Packed layouts: the group ends are computed once at the start of every CTA into shared
//   memory (a chunked scan over the 384 threads), so no workspace and no second kernel.
// - 256-row tiles: a cluster of two CTAs, each on 128 of the rows (emit_cluster_rows),
//   loading half of B's tile and multicasting it into both; the consumers release each
//   stage to both CTAs' producers (emit_release).
//
// The tensor maps come first among the kernel's arguments, as !llvm.ptr; gg-nvvm-abi
// makes them 128-byte by-value grid constants once the kernel is in the LLVM dialect.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "dialect/dialect.h"
#include "gg/op.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "passes/gpu_kernel.h"
#include "passes/group_ends.h"
#include "passes/pass.h"

#define PASS "gg-to-nvvm"
#define WORKGROUP "#gpu.address_space<workgroup>"
#define TILE_K 128  // one 128-byte swizzle row of FP8
// Registers: the producer keeps few, the consumers take the rest (setmaxnreg).
#define PRODUCER_REGISTERS 40
#define CONSUMER_REGISTERS 232

typedef struct nvvm_kernel {
  gg_op_desc desc;
  int tm, tn, stages;  // tm: the grid's tile rows (a CTA computes GG_SM90_CTA_ROWS of them)
  int split;  // split-K: the CTAs of a cluster sharing each tile's K tiles (1: none)
  // CTAs on a tile's rows, GG_SM90_CTA_ROWS each, sharing its B by multicast (1: none)
  int cluster_m;
  long long stage_bytes, a_bytes, smem;
  int acc_count;  // f32 accumulators per consumer thread: tn / 2
  bool fast, blockwise;
  // Ping-pong (fast rowwise 128x128, unsplit, one CTA a tile): each consumer warpgroup takes
  // every other tile of the CTA's walk whole (its 128 rows in two m64 halves), so one's
  // epilogue runs while the other's wgmmas keep the tensor cores busy; an order barrier
  // per warpgroup hands the K loop from one to the other (emit_tile).
  bool pingpong;
  // Blockwise 3D-2D: a tile may straddle two 128-wide column blocks of B's scales (a group
  // starts where the previous ended); every other layout's tiles start at multiples of
  // tile_n, which divides 128.
  bool split_column_blocks;
  // Debugging a hang (GG_SM90_WAIT_LIMIT, 0: off): every mbarrier wait gives up after this
  // many tries, prints what it waited for (emit_wait) and goes on, so a launch that would
  // never end ends with the stuck waits on the device's printf output and a wrong result.
  long wait_limit;
  char acc_type[2048];
} nvvm_kernel;

// A role's counters (%iter): the K tiles it has gone through (the ring's stage and phase)
// and, in ping-pong, the tiles (whose parity says which consumer warpgroup takes one).
static const char* counters_type(const nvvm_kernel* k) {
  return k->pingpong ? "memref<2xindex>" : "memref<1xindex>";
}

static void acc_type(nvvm_kernel* k) {
  size_t n = (size_t)snprintf(k->acc_type, sizeof k->acc_type, "!llvm.struct<(");
  for (int i = 0; i < k->acc_count; ++i)
    n += (size_t)snprintf(k->acc_type + n, sizeof k->acc_type - n, "%sf32", i ? ", " : "");
  snprintf(k->acc_type + n, sizeof k->acc_type - n, ")>");
}

static bool kernel_of(MlirOperation grid, nvvm_kernel* k) {
  char text[512];
  if (!gg_attr_string(grid, "descriptor", text, sizeof text)) {
    gg_emit_error(grid, PASS ": the grid carries no descriptor (run gg-tile first)");
    return false;
  }
  gg_status status = gg_op_desc_parse(text, &k->desc);
  if (!status) status = gg_op_desc_validate(&k->desc);
  if (status) {
    gg_emit_error(grid, PASS ": the grid's %s", gg_status_message(status));
    gg_status_free(status);
    return false;
  }
  if (k->desc.target != GG_TARGET_SM90A) {
    gg_emit_error(grid, PASS ": the grid was tiled for %s, not sm_90a",
                  gg_target_name(k->desc.target));
    return false;
  }
  k->tm = k->desc.tile.m;
  k->tn = k->desc.tile.n;
  k->stages = gg_sm90_stages(&k->desc);
  k->split = gg_sm90_split_k(&k->desc);
  k->cluster_m = gg_sm90_cluster_m(&k->desc);
  k->a_bytes = (long long)GG_SM90_CTA_ROWS * TILE_K;
  k->stage_bytes = k->a_bytes + (long long)k->tn * TILE_K;
  k->smem = gg_sm90_dynamic_shared_bytes(&k->desc);
  k->acc_count = k->tn / 2;
  k->fast = k->desc.accum == GG_ACCUM_FAST;
  k->blockwise = k->desc.scaling == GG_SCALING_BLOCKWISE;
  k->split_column_blocks = k->blockwise && k->desc.layout == GG_LAYOUT_N_OFFSETS;
  k->pingpong = gg_sm90_pingpong(&k->desc);
  const char* limit = getenv("GG_SM90_WAIT_LIMIT");
  k->wait_limit = 0;
  if (limit && *limit) {
    char* end;
    k->wait_limit = strtol(limit, &end, 10);
    if (*end || k->wait_limit < 0 || k->wait_limit > INT32_MAX) {
      gg_emit_error(grid, PASS ": GG_SM90_WAIT_LIMIT takes a try count from 0 (off) to %d, not '%s'",
                    INT32_MAX, limit);
      return false;
    }
  }
  // The ping-pong consumer is written for fast, unsplit tiles (gg_sm90_pingpong's rule).
  if (k->pingpong && (!k->fast || k->split != 1)) {
    gg_emit_error(grid, PASS ": internal error: ping-pong takes fast unsplit tiles only");
    return false;
  }
  acc_type(k);
  return true;
}

// ---------------------------------------------------------------------------------------
// gg.group_ends: every CTA computes the ends into shared memory. Thread t folds the groups
// of its chunk with the group end rule from 0; thread 0 turns the partial ends into chunk
// starts; every thread walks its chunk again from its start, storing each end.

static bool lower_group_ends(MlirOperation op, const nvvm_kernel* k, MlirValue tid,
                             MlirValue dsmem, MlirValue* ends_out) {
  gg_group_ends_op ends;
  if (!gg_group_ends_op_read(op, &ends)) return false;
  char ends_type[128], part_type[128];
  snprintf(ends_type, sizeof ends_type, "memref<%lldxi64, " WORKGROUP ">", ends.g);
  snprintf(part_type, sizeof part_type, "memref<%dxi64, " WORKGROUP ">", GG_SM90_THREADS);
  // gg_emit_group_ends_loop stores into %ends of the op's type: this one lives in shared
  // memory, past the ring of stages, 1024-aligned like it (LLVM may pair 8-byte accesses).
  gg_text_free(&ends.ends_type);
  gg_text_init(&ends.ends_type);
  gg_text_printf(&ends.ends_type, "%s", ends_type);
  long long ring = (long long)k->stages * k->stage_bytes;
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t,
                 "func.func @group_ends(%%meta: %s, %%a: %s, %%dsmem: memref<0xi8, " WORKGROUP
                 ">, %%tid: index) -> %s {\n",
                 gg_text_str(&ends.meta_type), gg_text_str(&ends.a_type), ends_type);
  gg_text_printf(&t,
                 "  %%dyn = memref.reinterpret_cast %%dsmem to offset: [0], sizes: [%lld], "
                 "strides: [1] : memref<0xi8, " WORKGROUP "> to memref<%lldxi8, " WORKGROUP ">\n"
                 "  %%base = memref.extract_aligned_pointer_as_index %%dyn : memref<%lldxi8, "
                 WORKGROUP "> -> index\n"
                 "  %%c1023 = arith.constant 1023 : index\n"
                 "  %%cm1024 = arith.constant -1024 : index\n"
                 "  %%b1 = arith.addi %%base, %%c1023 : index\n"
                 "  %%abase = arith.andi %%b1, %%cm1024 : index\n"
                 "  %%aoff = arith.subi %%abase, %%base : index\n"
                 "  %%ring = arith.constant %lld : index\n"
                 "  %%ends_at = arith.addi %%aoff, %%ring : index\n"
                 "  %%ends_bytes = arith.constant %lld : index\n"
                 "  %%part_at = arith.addi %%ends_at, %%ends_bytes : index\n"
                 "  %%ends = memref.view %%dyn[%%ends_at][] : memref<%lldxi8, " WORKGROUP "> to %s\n"
                 "  %%part = memref.view %%dyn[%%part_at][] : memref<%lldxi8, " WORKGROUP "> to %s\n",
                 k->smem, k->smem, k->smem, ring, (long long)gg_sm90_group_ends_bytes(&k->desc), k->smem, ends_type, k->smem,
                 part_type);
  gg_text_printf(&t, "  %%c0 = arith.constant 0 : index\n  %%c1 = arith.constant 1 : index\n");
  gg_emit_group_ends_scan(&t, &ends, "  ", GG_SM90_THREADS, part_type);
  gg_text_printf(&t, "  gpu.barrier\n  return %%ends : %s\n}\n", ends_type);
  MlirValue args[4] = {mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1), dsmem, tid};
  MlirValue ends_memory;
  bool ok = !t.failed && gg_inline_template(op, gg_text_str(&t), args, 4, &ends_memory, 1);
  gg_text_free(&t);
  gg_group_ends_op_free(&ends);
  if (!ok) return false;
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), ends_memory);
  mlirOperationDestroy(op);
  *ends_out = ends_memory;
  return true;
}

// ---------------------------------------------------------------------------------------
// The tile: producer, consumers and epilogue, in place of the tile-level K loop.

// Template arguments, in order; the epilogue's are the gg.epilogue operands 1..10.
enum {
  ARG_TMA_A, ARG_TMA_B, ARG_TMA_AF, ARG_DSMEM, ARG_TID, ARG_BAR, ARG_ITER,
  ARG_A_ROW0, ARG_K_LO, ARG_K_HI, ARG_B_ROW0,
  ARG_S_SA, ARG_S_SB, ARG_S_SA_ROW, ARG_S_SA_KSTRIDE, ARG_S_ROWS, ARG_S_SB_BASE, ARG_S_SB_COL,
  ARG_S_SB_KSTRIDE,
  ARG_OUT, ARG_E_SA, ARG_E_SB, ARG_OUT_ROW, ARG_ROW_LIMIT, ARG_OUT_COL, ARG_COL_LIMIT,
  ARG_E_SA_ROW, ARG_E_SB_BASE, ARG_E_SB_COL,
  ARG_COUNT
};

typedef enum tile_role { ROLE_PRODUCER, ROLE_CONSUMER } tile_role;

typedef struct tile_ops {
  MlirOperation load_a, load_b, load_scales, epilogue;
  bool mask_k;
} tile_ops;

// Appends one line of template text.
static void line(gg_text* t, const char* format, ...) __attribute__((format(printf, 2, 3)));
static void line(gg_text* t, const char* format, ...) {
  va_list args;
  va_start(args, format);
  char text[4096];
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  gg_text_printf(t, "%s\n", text);
}

// The rows a 256-row tile's CTA shifts by its half's first row (emit_cluster_rows).
static bool is_tile_row_arg(int i) {
  return i == ARG_A_ROW0 || i == ARG_ROW_LIMIT || i == ARG_S_SA_ROW || i == ARG_S_ROWS ||
         i == ARG_OUT_ROW || i == ARG_E_SA_ROW;
}

static void emit_signature(gg_text* t, const nvvm_kernel* k, const MlirValue* args) {
  static const char* const names[ARG_COUNT] = {
      "tma_a", "tma_b", "tma_af", "dsmem", "tid", "bar", "iter", "a_row0", "k_lo", "k_hi", "b_row0", "s_sa", "s_sb",
      "s_sa_row", "s_sa_kstride", "s_rows", "s_sb_base", "s_sb_col", "s_sb_kstride", "out",
      "e_sa", "e_sb", "out_row", "row_limit", "out_col", "col_limit", "e_sa_row", "e_sb_base",
      "e_sb_col"};
  gg_text_printf(t, "func.func @tile(");
  for (int i = 0; i < ARG_COUNT; ++i) {
    bool shifted = k->cluster_m > 1 && is_tile_row_arg(i);
    gg_text_printf(t, "%s%%%s%s: ", i ? ", " : "", names[i], shifted ? "_tile" : "");
    gg_text_type(t, mlirValueGetType(args[i]));
  }
  gg_text_printf(t, ") {\n");
}

// A 256-row tile's cluster: this CTA (rank %mrank, its block id modulo 2) computes rows
// [128 rank, 128 rank + 128) of the tile, so the tile's row frame (the _tile arguments)
// moves down by 128 rank (a row limit at or below 0 leaves this CTA's half empty: its
// consumers issue no wgmma and its epilogue stores nothing, while its producer still
// loads its half of B for the peer). The producer loads rows [rank tile_n / 2, ...) of
// B's tile and multicasts them (%mcast: both CTAs); the consumers also release each stage
// to the peer (%mpeer).
static void emit_cluster_rows(gg_text* t, const nvvm_kernel* k) {
  line(t, "  %%mblock = gpu.block_id x");
  line(t, "  %%mtwo = arith.constant %d : index", k->cluster_m);
  line(t, "  %%mrank = arith.remui %%mblock, %%mtwo : index");
  line(t, "  %%mcta_rows = arith.constant %d : index", GG_SM90_CTA_ROWS);
  line(t, "  %%mrows = arith.muli %%mrank, %%mcta_rows : index");
  line(t, "  %%a_row0 = arith.addi %%a_row0_tile, %%mrows : index");
  line(t, "  %%row_limit = arith.subi %%row_limit_tile, %%mrows : index");
  line(t, "  %%s_sa_row = arith.addi %%s_sa_row_tile, %%mrows : index");
  line(t, "  %%s_rows = arith.subi %%s_rows_tile, %%mrows : index");
  line(t, "  %%out_row = arith.addi %%out_row_tile, %%mrows : index");
  line(t, "  %%e_sa_row = arith.addi %%e_sa_row_tile, %%mrows : index");
  int b_rows = gg_sm90_b_box_rows(&k->desc);
  line(t, "  %%mb_rows = arith.constant %d : index", b_rows);
  line(t, "  %%mb_bytes = arith.constant %d : index", b_rows * TILE_K);
  line(t, "  %%mrank_b_rows = arith.muli %%mrank, %%mb_rows : index");
  line(t, "  %%mrank_b_bytes = arith.muli %%mrank, %%mb_bytes : index");
  line(t, "  %%b_row_h = arith.addi %%b_row0, %%mrank_b_rows : index");
  line(t, "  %%mcast = arith.constant %d : i16", (1 << k->cluster_m) - 1);
  line(t, "  %%mone = arith.constant 1 : index");
  line(t, "  %%mpeer_x = arith.xori %%mrank, %%mone : index");
  line(t, "  %%mpeer = arith.index_cast %%mpeer_x : index to i32");
}

// %<name> = the memref load of `type` at `index` when `ok`, else 0.0.
static void emit_guarded_load(gg_text* t, const char* name, const char* ok, const char* memref,
                              const char* type, const char* index) {
  line(t, "  %%%s = scf.if %s -> (f32) {", name, ok);
  line(t, "    %%%s_v = memref.load %s[%s] : %s", name, memref, index, type);
  line(t, "    scf.yield %%%s_v : f32", name);
  line(t, "  } else {");
  line(t, "    scf.yield %%f0 : f32");
  line(t, "  }");
}

// A fence between this thread's generic accesses to shared memory before it and the
// async proxy's after it (TMA writes, wgmma reads): `space` is cta, or cluster where the
// accesses reached other CTAs' shared memory through distributed shared memory.
static void emit_async_proxy_fence(gg_text* t, const char* indent, const char* space) {
  line(t, "%snvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = "
          "#nvvm.shared_space<%s>}", indent, space);
}

// The K columns of the A tile of stage %s outside [k_lo, k_hi) become zero: each consumer
// warpgroup clears the rows its wgmma read (its own 64, or in ping-pong the tile's 128),
// 4 16-byte chunks per thread for 64 rows, then makes the writes visible to the async
// proxy and syncs its warpgroup.
static void emit_k_mask(gg_text* t, const nvvm_kernel* k) {
  line(t, "      %%kend = arith.addi %%k0, %%c128 : index");
  line(t, "      %%cut_lo = arith.cmpi slt, %%k0, %%k_lo : index");
  line(t, "      %%cut_hi = arith.cmpi sgt, %%kend, %%k_hi : index");
  line(t, "      %%cut = arith.ori %%cut_lo, %%cut_hi : i1");
  line(t, "      scf.if %%cut {");
  line(t, "        %%lo_rel = arith.subi %%k_lo, %%k0 : index");
  line(t, "        %%hi_rel = arith.subi %%k_hi, %%k0 : index");
  line(t, "        %%lo_v = vector.broadcast %%lo_rel : index to vector<16xindex>");
  line(t, "        %%hi_v = vector.broadcast %%hi_rel : index to vector<16xindex>");
  line(t, "        %%iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>");
  line(t, "        %%zero16 = arith.constant dense<0> : vector<16xi8>");
  line(t, "        %%wg_a = arith.addi %%stage_base, %s : index", k->pingpong ? "%c0" : "%cw_rows_bytes");
  line(t, "        scf.for %%q = %%c0 to %s step %%c1 {", k->pingpong ? "%c8" : "%c4");
  // Chunk (row, physical slot) of the warpgroup's 64 x 8 chunks; logical chunk = slot ^ row % 8.
  line(t, "          %%qi = arith.muli %%q, %%c128 : index");
  line(t, "          %%chunk = arith.addi %%qi, %%t128 : index");
  line(t, "          %%row = arith.divui %%chunk, %%c8 : index");
  line(t, "          %%slot = arith.remui %%chunk, %%c8 : index");
  line(t, "          %%row8 = arith.remui %%row, %%c8 : index");
  line(t, "          %%logical = arith.xori %%slot, %%row8 : index");
  line(t, "          %%col0 = arith.muli %%logical, %%c16 : index");
  line(t, "          %%cols0 = vector.broadcast %%col0 : index to vector<16xindex>");
  line(t, "          %%cols = arith.addi %%cols0, %%iota : vector<16xindex>");
  line(t, "          %%in_lo = arith.cmpi sge, %%cols, %%lo_v : vector<16xindex>");
  line(t, "          %%in_hi = arith.cmpi slt, %%cols, %%hi_v : vector<16xindex>");
  line(t, "          %%in = arith.andi %%in_lo, %%in_hi : vector<16xi1>");
  line(t, "          %%rowb = arith.muli %%row, %%c128 : index");
  line(t, "          %%slotb = arith.muli %%slot, %%c16 : index");
  line(t, "          %%off0 = arith.addi %%wg_a, %%rowb : index");
  line(t, "          %%off = arith.addi %%off0, %%slotb : index");
  line(t, "          %%old = vector.load %%dyn[%%off] : memref<%lldxi8, " WORKGROUP ">, vector<16xi8>", k->smem);
  line(t, "          %%new = arith.select %%in, %%old, %%zero16 : vector<16xi1>, vector<16xi8>");
  line(t, "          vector.store %%new, %%dyn[%%off] : memref<%lldxi8, " WORKGROUP ">, vector<16xi8>", k->smem);
  line(t, "        }");
  emit_async_proxy_fence(t, "        ", "cta");
  line(t, "        nvvm.barrier id = %%wg_barrier number_of_threads = %%c128_i32");
  line(t, "      }");
}

// The four k32 wgmma steps of one K tile on %<in[h]>, giving %<out[h]>, for each of
// `halves` blocks of 64 rows: the warpgroup's own (A at %desc_a), or in ping-pong the
// tile's two (A at %desc_a and %desc_a1), k32 step by step. The first step has scale-d
// `first_scale` (zero starts a fresh partial sum).
static void emit_wgmma(gg_text* t, const nvvm_kernel* k, int halves, const char* const in[],
                       const char* const out[], const char* first_scale) {
  line(t, "      nvvm.wgmma.fence.aligned");
  char prev[2][32];
  for (int h = 0; h < halves; ++h) snprintf(prev[h], sizeof prev[h], "%s", in[h]);
  for (int s = 0; s < 4; ++s) {
    line(t, "      %%db%d = arith.addi %%desc_b, %%cstep%d : i64", s, s);
    for (int h = 0; h < halves; ++h) {
      line(t, "      %%da%d_%d = arith.addi %%desc_a%s, %%cstep%d : i64", h, s, h ? "1" : "", s);
      char next[32];
      if (s != 3) snprintf(next, sizeof next, "%%w%d_%d", h, s);
      else snprintf(next, sizeof next, "%s", out[h]);
      line(t, "      %s = nvvm.wgmma.mma_async %%da%d_%d, %%db%d, %s, <m = 64, n = %d, k = 32>, "
           "D[<f32>, <%s>, <wrapped>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>] : %s -> %s",
        next, h, s, s, prev[h], k->tn, s == 0 ? first_scale : "one", k->acc_type, k->acc_type);
      snprintf(prev[h], sizeof prev[h], "%s", next);
    }
  }
  line(t, "      nvvm.wgmma.commit.group.sync.aligned");
}

// Opens `scf.if <when> {` (true on lane 0 of each warp at most), the region where a lane
// arrives on a barrier for its whole warp (a stage's release, ping-pong's order), after a
// warp sync; call it from warp-uniform control flow only. The warp's other lanes must have
// passed their waits before the arrival: a parity wait cannot tell a phase from the one
// two later, and the ring keeps a waiter at most one behind only because the stage's next
// fill needs its own warp's release. Where no .aligned instruction (which ptxas makes the
// warp reach together) follows the wait, as in the idle warpgroup of a decode tile (no
// wgmma), nothing else kept the lanes together: lane 0 drove the ring on alone, and lanes
// left behind in a full barrier's wait (asleep: try_wait's suspend hint widens the window)
// while it completed twice waited for ever, lane 0 at the epilogue's warp sync (bench.py
// hung in 8 of 9 runs at N 8192 K 1024, 16 rows, on an H100, 2026-12-05;
// tests/lit/Inputs/lane_arrivals.awk checks every arrival).
static void emit_warp_arrival_if(gg_text* t, const char* indent, const char* when) {
  line(t, "%snvvm.bar.warp.sync %%warp_all : i32", indent);
  line(t, "%sscf.if %s {", indent, when);
}

// The consumer's release of stage %<stage> to the producer: lane 0 of each warp arrives
// (`when` holds on those lanes), after its warp's other lanes (emit_warp_arrival_if; so
// it is emitted in warp-uniform control flow, never under a lane's condition). In a
// 256-row tile's cluster it arrives on the peer CTA's barrier too (%mpeer, through
// distributed shared memory): the peer's producer multicasts its half of B into this
// CTA's stage, so it waits for both CTAs' consumers. The remote
// arrival releases at CTA scope, as the local one does (the wgmma that read the stage has
// completed): released at cluster scope (which also orders the warp's earlier global
// stores) the kernels ran at 0.58-0.73 of the 128-row ones on the H200 (docs/performance.md).
static void emit_release(gg_text* t, const nvvm_kernel* k, const char* when, const char* stage) {
  emit_warp_arrival_if(t, "      ", when);
  line(t, "        %%rel = arith.addi %s, %%cS : index", stage);
  line(t, "        %%tok = nvgpu.mbarrier.arrive %%bar[%%rel] : !bar -> !nvgpu.mbarrier.token");
  if (k->cluster_m > 1) {
    line(t, "        %%rel_at = nvgpu.mbarrier.get %%bar[%%rel] : !bar -> i64");
    line(t, "        %%rel_p = llvm.inttoptr %%rel_at : i64 to !llvm.ptr<3>");
    line(t, "        %%rel_peer = nvvm.mapa %%rel_p, %%mpeer : !llvm.ptr<3> -> !llvm.ptr<7>");
    line(t, "        nvvm.mbarrier.arrive %%rel_peer : !llvm.ptr<7>");
  }
  line(t, "      }");
}

// %pr<acc_count> = %<tot> + %<part> (times %sx<h> and %sw for blockwise), element-wise.
static void emit_promote(gg_text* t, const nvvm_kernel* k, const char* tot, const char* part) {
  line(t, "      %%pr0 = llvm.mlir.poison : %s", k->acc_type);
  for (int i = 0; i < k->acc_count; ++i) {
    int h = (i / 2) % 2;  // accumulator 4 j + 2 h + e sits in row 8 h
    line(t, "      %%pt%d = llvm.extractvalue %s[%d] : %s", i, tot, i, k->acc_type);
    line(t, "      %%pp%d = llvm.extractvalue %s[%d] : %s", i, part, i, k->acc_type);
    if (k->blockwise) {
      line(t, "      %%ps%d = arith.mulf %%pp%d, %%sx%d : f32", i, i, h);
      if (k->split_column_blocks) {  // column 8 j + 2 q + e: this block's scale or the next's
        line(t, "      %%pc%d = arith.addi %%c2q_s, %%cc%d : index", i, 8 * (i / 4) + i % 2);
        line(t, "      %%pnext%d = arith.cmpi sge, %%pc%d, %%split_at : index", i, i);
        line(t, "      %%psw%d = arith.select %%pnext%d, %%sw1, %%sw : f32", i, i);
        line(t, "      %%pq%d = arith.mulf %%ps%d, %%psw%d : f32", i, i, i);
      } else {
        line(t, "      %%pq%d = arith.mulf %%ps%d, %%sw : f32", i, i);
      }
      line(t, "      %%pn%d = arith.addf %%pt%d, %%pq%d : f32", i, i, i);
    } else {
      line(t, "      %%pn%d = arith.addf %%pt%d, %%pp%d : f32", i, i, i);
    }
    line(t, "      %%pr%d = llvm.insertvalue %%pn%d, %%pr%d[%d] : %s", i + 1, i, i, i, k->acc_type);
  }
}

// Whether the output's rows are contiguous (unit column stride), so that the epilogue may
// store 16-byte vectors of a row.
static bool rows_contiguous(MlirType out) {
  int64_t strides[2], offset;
  return mlirShapedTypeGetRank(out) == 2 &&
         mlirLogicalResultIsSuccess(mlirMemRefTypeGetStridesAndOffset(out, strides, &offset)) &&
         strides[1] == 1;
}

// The staged epilogue's stores, set up once per tile: the output's base address and strides.
static void emit_staged_setup(gg_text* t, const char* out_type) {
  line(t, "    %%e_ptr = memref.extract_aligned_pointer_as_index %%out : %s -> index", out_type);
  line(t, "    %%e_buf, %%e_off, %%e_sizes:2, %%e_strides:2 = memref.extract_strided_metadata %%out : "
       "%s -> memref<bf16>, index, index, index, index, index", out_type);
  line(t, "    %%e_chunks = arith.constant %d : index", GG_SM90_EPILOGUE_COLS / 8);
  line(t, "    %%e_passes = arith.constant %d : index", 64 * (GG_SM90_EPILOGUE_COLS / 8) / 128);
  line(t, "    %%c15 = arith.constant 15 : index");
}

// The staged epilogue's second half, for the tile's columns [col0, col0 + EPILOGUE_COLS):
// each consumer warpgroup's 64 rows of them, written row by row into shared memory (%epi,
// words of 2 bf16, tile rows %e_rw words apart), go out as 16-byte stores, 8 columns a
// thread, a warp four 128-byte row segments; a chunk the group's last column cuts, or one
// the output's address leaves misaligned, goes element by element. Rows at or past `limit`
// are not stored. The rows are tile rows from %<tile_row0>, buffer rows from %<buffer_row0>
// (the same but in ping-pong, where a warpgroup's buffer holds either half of its tile).
static void emit_staged_stores(gg_text* t, const char* out_type, int row_words, int col0,
                               const char* limit, const char* tile_row0, const char* buffer_row0) {
  line(t, "    scf.for %%ep = %%c0 to %%e_passes step %%c1 {");
  line(t, "      %%e_col0 = arith.constant %d : index", col0);
  line(t, "      %%eid0 = arith.muli %%ep, %%c128 : index");
  line(t, "      %%eid = arith.addi %%eid0, %%t128 : index");
  line(t, "      %%erow = arith.divui %%eid, %%e_chunks : index");
  line(t, "      %%echunk = arith.remui %%eid, %%e_chunks : index");
  line(t, "      %%elr = arith.addi %s, %%erow : index", tile_row0);
  const char* buffer_row = "%elr";
  if (strcmp(tile_row0, buffer_row0)) {
    line(t, "      %%ebr = arith.addi %s, %%erow : index", buffer_row0);
    buffer_row = "%ebr";
  }
  line(t, "      %%erok = arith.cmpi slt, %%elr, %s : index", limit);
  line(t, "      scf.if %%erok {");
  line(t, "        %%esw0 = arith.muli %s, %%e_rw : index", buffer_row);
  line(t, "        %%esw1 = arith.muli %%echunk, %%c4 : index");
  line(t, "        %%esw = arith.addi %%esw0, %%esw1 : index");
  line(t, "        %%ev4 = vector.load %%epi[%%esw] {alignment = 16} : memref<%dxi32, " WORKGROUP
       ">, vector<4xi32>", 128 * row_words);
  line(t, "        %%ev8 = vector.bitcast %%ev4 : vector<4xi32> to vector<8xbf16>");
  line(t, "        %%elc0 = arith.muli %%echunk, %%c8 : index");
  line(t, "        %%elc = arith.addi %%elc0, %%e_col0 : index");
  line(t, "        %%eorow = arith.addi %%out_row, %%elr : index");
  line(t, "        %%eocol = arith.addi %%out_col, %%elc : index");
  line(t, "        %%elce = arith.addi %%elc, %%c8 : index");
  line(t, "        %%efull = arith.cmpi sle, %%elce, %%col_limit : index");
  line(t, "        %%elin0 = arith.muli %%eorow, %%e_strides#0 : index");
  line(t, "        %%elin1 = arith.addi %%elin0, %%eocol : index");
  line(t, "        %%elin = arith.addi %%elin1, %%e_off : index");
  line(t, "        %%eb0 = arith.muli %%elin, %%c2 : index");
  line(t, "        %%eb = arith.addi %%eb0, %%e_ptr : index");
  line(t, "        %%emis = arith.andi %%eb, %%c15 : index");
  line(t, "        %%eal = arith.cmpi eq, %%emis, %%c0 : index");
  line(t, "        %%evec = arith.andi %%efull, %%eal : i1");
  line(t, "        scf.if %%evec {");
  line(t, "          vector.store %%ev8, %%out[%%eorow, %%eocol] {alignment = 16} : %s, vector<8xbf16>",
       out_type);
  line(t, "        } else {");
  line(t, "          scf.for %%ee = %%c0 to %%c8 step %%c1 {");
  line(t, "            %%ece = arith.addi %%elc, %%ee : index");
  line(t, "            %%eok = arith.cmpi slt, %%ece, %%col_limit : index");
  line(t, "            scf.if %%eok {");
  line(t, "              %%ex = vector.extract %%ev8[%%ee] : bf16 from vector<8xbf16>");
  line(t, "              %%eoc = arith.addi %%eocol, %%ee : index");
  line(t, "              memref.store %%ex, %%out[%%eorow, %%eoc] : %s", out_type);
  line(t, "            }");
  line(t, "          }");
  line(t, "        }");
  line(t, "      }");
  line(t, "    }");
}

// The first of a consumer thread's two rows of the tile in wgmma's D layout, as %<row>:
// 64 per warpgroup, 16 per warp, lane / 4 (the other is 8 rows below). `s` suffixes the
// intermediate names, so that one function can hold several.
static void emit_thread_row(gg_text* t, const char* indent, const char* s, const char* row) {
  line(t, "%s%%wi%s = arith.divui %%t128, %%c32 : index", indent, s);
  line(t, "%s%%g%s = arith.divui %%lane, %%c4 : index", indent, s);
  line(t, "%s%%rw%s = arith.muli %%cw, %%c64 : index", indent, s);
  line(t, "%s%%r16%s = arith.muli %%wi%s, %%c16 : index", indent, s, s);
  line(t, "%s%%rA%s = arith.addi %%rw%s, %%r16%s : index", indent, s, s, s);
  line(t, "%s%%%s = arith.addi %%rA%s, %%g%s : index", indent, row, s, s);
}

// Rowwise scaling: the first warp of each consumer warpgroup prefetches into L1 the cache
// lines of the tile's column scales (lane l < tile_n / 32: columns [32 l, 32 l + 32)) and
// of its 64 rows' row scales (lanes 16 and 17) that hold the group's columns and rows,
// before the K loop: the epilogue loads them once the K loop is done, and from L2 each
// load's latency stood between the last wgmma and the stores (ncu on the H200: 10.6 % of
// the stall samples at N 8192 K 1024, docs/performance.md, "Short K at large M").
static void emit_scale_prefetch(gg_text* t, const nvvm_kernel* k, MlirValue e_sa, MlirValue e_sb) {
  const MlirValue scales[2] = {e_sa, e_sb};
  const char* names[2] = {"e_sa", "e_sb"};
  line(t, "    %%pf_warp = arith.divui %%t128, %%c32 : index");
  line(t, "    %%pf_first = arith.cmpi eq, %%pf_warp, %%c0 : index");
  for (int v = 0; v < 2; ++v) {
    gg_text type;
    gg_text_init(&type);
    gg_text_type(&type, mlirValueGetType(scales[v]));
    // The element of this lane's line: a row scale 32 rows on per lane from 16, a column
    // scale 32 columns on per lane from 0; within the group's rows or columns.
    if (v == 0) {
      // The warpgroup's 64 rows (two lines), or in ping-pong the tile's 128 (four).
      line(t, "    %%pf_l0 = arith.subi %%lane, %%c16 : index");
      if (k->pingpong) line(t, "    %%pf_w0 = arith.constant 0 : index");
      else line(t, "    %%pf_w0 = arith.muli %%cw, %%c64 : index");
      line(t, "    %%pf_lin0 = arith.cmpi ult, %%pf_l0, %s : index", k->pingpong ? "%c4" : "%c2");
      line(t, "    %%pf_r0 = arith.muli %%pf_l0, %%c32 : index");
      line(t, "    %%pf_at0 = arith.addi %%pf_w0, %%pf_r0 : index");
      line(t, "    %%pf_in0b = arith.cmpi slt, %%pf_at0, %%row_limit : index");
      line(t, "    %%pf_i0 = arith.addi %%e_sa_row, %%pf_at0 : index");
    } else {
      line(t, "    %%pf_n1 = arith.constant %d : index", k->tn / 32);
      line(t, "    %%pf_lin1 = arith.cmpi ult, %%lane, %%pf_n1 : index");
      line(t, "    %%pf_at1 = arith.muli %%lane, %%c32 : index");
      line(t, "    %%pf_in1b = arith.cmpi slt, %%pf_at1, %%col_limit : index");
      line(t, "    %%pf_i1a = arith.addi %%e_sb_base, %%e_sb_col : index");
      line(t, "    %%pf_i1 = arith.addi %%pf_i1a, %%pf_at1 : index");
    }
    line(t, "    %%pf_in%da = arith.andi %%pf_first, %%pf_lin%d : i1", v, v);
    line(t, "    %%pf_on%d = arith.andi %%pf_in%da, %%pf_in%db : i1", v, v, v);
    line(t, "    scf.if %%pf_on%d {", v);
    line(t, "      %%pf_base%d = memref.extract_aligned_pointer_as_index %%%s : %s -> index", v, names[v],
         gg_text_str(&type));
    line(t, "      %%pf_buf%d, %%pf_off%d, %%pf_size%d, %%pf_stride%d = memref.extract_strided_metadata %%%s : %s -> memref<f32>, index, index, index",
         v, v, v, v, names[v], gg_text_str(&type));
    line(t, "      %%pf_e%d = arith.addi %%pf_i%d, %%pf_off%d : index", v, v, v);
    line(t, "      %%pf_b%d = arith.muli %%pf_e%d, %%c4 : index", v, v);
    line(t, "      %%pf_a%d = arith.addi %%pf_base%d, %%pf_b%d : index", v, v, v);
    line(t, "      %%pf_a%d_i = arith.index_cast %%pf_a%d : index to i64", v, v);
    line(t, "      %%pf_p%d = llvm.inttoptr %%pf_a%d_i : i64 to !llvm.ptr<1>", v, v);
    line(t, "      nvvm.prefetch level = L1, %%pf_p%d : !llvm.ptr<1>", v);
    line(t, "    }");
    gg_text_free(&type);
  }
}

// The epilogue. Staged (the kernel has its shared memory and the output's rows are
// contiguous): each consumer warpgroup writes its results, EPILOGUE_COLS columns at a
// time, into its 64 rows of the epilogue buffer as bf16 pairs (rows padded by 16 bytes, so
// a warp's 32 pairs fall in 32 banks), then stores them with emit_staged_stores: 2-byte
// stores from wgmma's D layout left each warp's store 8 bytes of 8 rows (measured on an
// H200: the output-bound shapes ran at 0.2-0.4 of torch). The buffer is the epilogue's
// own, so the producer fills the ring with the next tile meanwhile. Otherwise predicated
// stores straight from registers. Rows at or past `row_limit` are neither loaded nor stored.
// `acc` holds `halves` accumulators: the warpgroup's own 64 rows, or with `whole_tile`
// (ping-pong) the tile's blocks of 64 rows from row 0, which take turns in the
// warpgroup's 64 buffer rows, chunk by chunk, so each chunk's column scales are loaded
// once for both.
static void emit_epilogue(gg_text* t, const nvvm_kernel* k, const char* const acc[], int halves,
                          bool whole_tile, MlirValue out, MlirValue e_sa, MlirValue e_sb,
                          bool ring, const char* row_limit) {
  bool staged = ring && rows_contiguous(mlirValueGetType(out));
  int row_words = GG_SM90_EPILOGUE_COLS / 2 + 4;  // a row of bf16 and 16 bytes of padding
  gg_text out_type, sa_type, sb_type;
  gg_text_init(&out_type);
  gg_text_init(&sa_type);
  gg_text_init(&sb_type);
  gg_text_type(&out_type, mlirValueGetType(out));
  gg_text_type(&sa_type, mlirValueGetType(e_sa));
  gg_text_type(&sb_type, mlirValueGetType(e_sb));
  // A thread's rows: %r<2H> and %r<2H+1> (8 apart) of each block H of 64; in ping-pong its
  // buffer rows are %rb0 and %rb1 (otherwise the tile rows themselves).
  emit_thread_row(t, "    ", "", whole_tile ? "rb0" : "r0");
  if (whole_tile) {
    line(t, "    %%rb1 = arith.addi %%rb0, %%c8 : index");
    for (int h = 0; h < halves; ++h) {
      line(t, "    %%rwt%d = arith.constant %d : index", h, 64 * h);
      line(t, "    %%rAt%d = arith.addi %%rwt%d, %%r16 : index", h, h);
      line(t, "    %%r%d = arith.addi %%rAt%d, %%g : index", 2 * h, h);
      line(t, "    %%r%d = arith.addi %%r%d, %%c8 : index", 2 * h + 1, 2 * h);
    }
  }
  line(t, "    %%q = arith.remui %%lane, %%c4 : index");
  if (!whole_tile) line(t, "    %%r1 = arith.addi %%r0, %%c8 : index");
  line(t, "    %%c2q = arith.muli %%q, %%c2 : index");
  if (staged) {
    // The tile's 128 rows: warpgroup cw's 64 from row 64 cw.
    line(t, "    %%epi_at = arith.constant %lld : index", (long long)gg_sm90_epilogue_offset(&k->desc));
    line(t, "    %%epi_off = arith.addi %%aoff, %%epi_at : index");
    line(t, "    %%epi = memref.view %%dyn[%%epi_off][] : memref<%lldxi8, " WORKGROUP "> to memref<%dxi32, "
         WORKGROUP ">", k->smem, 128 * row_words);
    line(t, "    %%e_rw = arith.constant %d : index", row_words);
    for (int h = 0; h < 2; ++h) {
      line(t, "    %%ew%d = arith.muli %%r%s%d, %%e_rw : index", h, whole_tile ? "b" : "", h);
      line(t, "    %%ewq%d = arith.addi %%ew%d, %%q : index", h, h);
    }
    emit_staged_setup(t, gg_text_str(&out_type));
  }
  for (int r = 0; r < 2 * halves; ++r) {
    line(t, "    %%rok%d = arith.cmpi slt, %%r%d, %s : index", r, r, row_limit);
    line(t, "    %%orow%d = arith.addi %%out_row, %%r%d : index", r, r);
    if (!k->blockwise) {
      line(t, "    %%sai%d = arith.addi %%e_sa_row, %%r%d : index", r, r);
      char name[16], index[16];
      snprintf(name, sizeof name, "sa%d", r);
      snprintf(index, sizeof index, "%%sai%d", r);
      char ok[16];
      snprintf(ok, sizeof ok, "%%rok%d", r);
      emit_guarded_load(t, name, ok, "%e_sa", gg_text_str(&sa_type), index);
    }
  }
  // Column groups of 8 a chunk: staged, a chunk of the buffer's columns, each block of rows
  // in turn; otherwise one group, its columns' scales serving every block.
  int chunk_j = staged ? GG_SM90_EPILOGUE_COLS / 8 : 1;
  for (int j0 = 0; j0 < k->tn / 8; j0 += chunk_j)
    for (int h = 0; h < halves; ++h) {
      for (int j = j0; j < j0 + chunk_j; ++j) {
        for (int e = 0; e < 2 && h == 0; ++e) {
          line(t, "    %%c%d_%d = arith.addi %%c2q, %%cc%d : index", j, e, 8 * j + e);
          line(t, "    %%cok%d_%d = arith.cmpi slt, %%c%d_%d, %%col_limit : index", j, e, j, e);
          line(t, "    %%ocol%d_%d = arith.addi %%out_col, %%c%d_%d : index", j, e, j, e);
          if (!k->blockwise) {
            line(t, "    %%sbi%d_%d0 = arith.addi %%e_sb_base, %%e_sb_col : index", j, e);
            line(t, "    %%sbi%d_%d = arith.addi %%sbi%d_%d0, %%c%d_%d : index", j, e, j, e, j, e);
            char name[32], index[32], ok[32];
            snprintf(name, sizeof name, "sb%d_%d", j, e);
            snprintf(index, sizeof index, "%%sbi%d_%d", j, e);
            snprintf(ok, sizeof ok, "%%cok%d_%d", j, e);
            emit_guarded_load(t, name, ok, "%e_sb", gg_text_str(&sb_type), index);
          }
        }
        // Value i of block h: accumulator 4 j + 2 rr + e, at row 2 h + rr and column (j, e).
        for (int rr = 0; rr < 2; ++rr)
          for (int e = 0; e < 2; ++e) {
            int a_i = 4 * j + 2 * rr + e, i = h * k->tn / 2 + a_i, r = 2 * h + rr;
            line(t, "    %%x%d = llvm.extractvalue %s[%d] : %s", i, acc[h], a_i, k->acc_type);
            if (!k->blockwise) {
              line(t, "    %%xa%d = arith.mulf %%x%d, %%sa%d : f32", i, i, r);
              line(t, "    %%xs%d = arith.mulf %%xa%d, %%sb%d_%d : f32", i, i, j, e);
              line(t, "    %%xb%d = arith.truncf %%xs%d : f32 to bf16", i, i);
            } else {
              line(t, "    %%xb%d = arith.truncf %%x%d : f32 to bf16", i, i);
            }
            if (staged) continue;
            line(t, "    %%ok%d = arith.andi %%rok%d, %%cok%d_%d : i1", i, r, j, e);
            line(t, "    scf.if %%ok%d {", i);
            line(t, "      memref.store %%xb%d, %%out[%%orow%d, %%ocol%d_%d] : %s", i, r, j, e,
              gg_text_str(&out_type));
            line(t, "    }");
          }
        for (int rr = 0; rr < 2 && staged; ++rr) {
          int i = h * k->tn / 2 + 4 * j + 2 * rr;
          line(t, "    %%pk%d = vector.from_elements %%xb%d, %%xb%d : vector<2xbf16>", i, i, i + 1);
          line(t, "    %%pw%d = vector.bitcast %%pk%d : vector<2xbf16> to vector<1xi32>", i, i);
          line(t, "    %%pe%d = vector.extract %%pw%d[0] : i32 from vector<1xi32>", i, i);
          line(t, "    %%pi%d = arith.addi %%ewq%d, %%cc%d : index", i, rr, 4 * (j - j0));
          line(t, "    memref.store %%pe%d, %%epi[%%pi%d] : memref<%dxi32, " WORKGROUP ">", i, i,
               128 * row_words);
        }
      }
      if (staged) {
        // The chunk's words are written; read back before the next chunk (or tile) reuses them.
        line(t, "    nvvm.barrier id = %%wg_barrier number_of_threads = %%c128_i32");
        char tile_row0[16];
        snprintf(tile_row0, sizeof tile_row0, whole_tile ? "%%rwt%d" : "%%rw", h);
        emit_staged_stores(t, gg_text_str(&out_type), row_words, 8 * j0, row_limit, tile_row0,
                           "%rw");
        line(t, "    nvvm.barrier id = %%wg_barrier number_of_threads = %%c128_i32");
      }
    }
  gg_text_free(&out_type);
  gg_text_free(&sa_type);
  gg_text_free(&sb_type);
}

// Split-K: the CTA's share of the tile's %nk_all K tiles from %kstart_all: its cluster
// rank %rank (its block id modulo the cluster's size, the clusters being 1-D) takes K
// tiles [rank nk_all / split, (rank + 1) nk_all / split), as %nk tiles from %kstart; the
// consumers keep the share's last ring of stages (from K tile %kdefer on) for the
// reduction. gg_op_desc_validate makes every share at least a ring long.
static void emit_split_share(gg_text* t, const nvvm_kernel* k) {
  line(t, "  %%cSplit = arith.constant %d : index", k->split);
  line(t, "  %%block = gpu.block_id x");
  line(t, "  %%rank = arith.remui %%block, %%cSplit : index");
  line(t, "  %%kt_lo0 = arith.muli %%rank, %%nk_all : index");
  line(t, "  %%kt_lo = arith.divui %%kt_lo0, %%cSplit : index");
  line(t, "  %%rank1 = arith.addi %%rank, %%c1 : index");
  line(t, "  %%kt_hi0 = arith.muli %%rank1, %%nk_all : index");
  line(t, "  %%kt_hi = arith.divui %%kt_hi0, %%cSplit : index");
  line(t, "  %%nk = arith.subi %%kt_hi, %%kt_lo : index");
  line(t, "  %%kt_lo_k = arith.muli %%kt_lo, %%c128 : index");
  line(t, "  %%kstart = arith.addi %%kstart_all, %%kt_lo_k : index");
  line(t, "  %%kdefer = arith.subi %%nk, %%cS : index");
}

// `count` cluster barriers (barrier.cluster arrive, release; wait, acquire).
static void emit_cluster_sync(gg_text* t, const char* indent, int count) {
  for (int i = 0; i < count; ++i) {
    line(t, "%snvvm.cluster.arrive", indent);
    line(t, "%snvvm.cluster.wait", indent);
  }
}

// Split-K's reduction of the consumers' accumulators `acc` into %acc_red, deterministic:
// every CTA but the cluster's first stores its partial sums into its ring (the stages it
// kept: 4 tile_n bytes a thread's accumulator, word i x 256 + thread: conflict-free),
// the cluster's barrier publishes them, the first CTA adds each peer's in rank order,
// reading them through distributed shared memory (mapa), 16 at a time, and a second
// barrier frees the peers' rings, whose kept stages then go back to their producers. The
// first CTA writes the tile (%is_lead); the producers pass the same two barriers. Only
// threads holding a row of the tile (emit_thread_row) store or add partial sums: at decode
// a tile holds a few rows, and the others' sums, which the epilogue drops, would be most
// of the distributed shared memory traffic.
static void emit_split_reduce(gg_text* t, const nvvm_kernel* k, const char* acc) {
  emit_thread_row(t, "    ", "_red", "red_row");
  line(t, "    %%red_live = arith.cmpi slt, %%red_row, %%row_limit : index");
  line(t, "    %%is_lead = arith.cmpi eq, %%rank, %%c0 : index");
  line(t, "    %%not_lead = arith.cmpi ne, %%rank, %%c0 : index");
  line(t, "    %%peer_live = arith.andi %%not_lead, %%red_live : i1");
  line(t, "    %%lead_live = arith.andi %%is_lead, %%red_live : i1");
  line(t, "    %%ctid = arith.subi %%tid, %%c128 : index");
  line(t, "    %%ct64 = arith.index_cast %%ctid : index to i64");
  line(t, "    %%ring64 = arith.index_cast %%abase : index to i64");
  line(t, "    %%ring_p = llvm.inttoptr %%ring64 : i64 to !llvm.ptr<3>");
  line(t, "    %%mine = llvm.getelementptr %%ring_p[%%ct64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32");
  // The partial sums overwrite the ring, which the other consumer warpgroup's last wgmma
  // may still be reading: both pass a named barrier of their 256 threads first.
  line(t, "    scf.if %%not_lead {");
  line(t, "      %%c_split_bar = arith.constant 3 : i32");
  line(t, "      %%c256_i32 = arith.constant 256 : i32");
  line(t, "      nvvm.barrier id = %%c_split_bar number_of_threads = %%c256_i32");
  line(t, "    }");
  line(t, "    scf.if %%peer_live {");
  for (int i = 0; i < k->acc_count; ++i) {
    line(t, "      %%pv%d = llvm.extractvalue %s[%d] : %s", i, acc, i, k->acc_type);
    line(t, "      %%pp%d = llvm.getelementptr %%mine[%d] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32", i, i * 256);
    line(t, "      llvm.store %%pv%d, %%pp%d : f32, !llvm.ptr<3>", i, i);
  }
  // The stages go back to this CTA's producer after the reduction, and its TMA (the async
  // proxy) refills them: a proxy fence orders these generic stores before those writes.
  emit_async_proxy_fence(t, "      ", "cta");
  line(t, "    }");
  emit_cluster_sync(t, "    ", 1);
  line(t, "    %%acc_red = scf.if %%lead_live -> (%s) {", k->acc_type);
  // One peer at a time, in rank order, in a loop LLVM keeps rolled: unrolled, the peers'
  // loads interleaved and ptxas spilled promoted 192-column tiles split in 4 (12 bytes).
  line(t, "      %%red_sum = scf.for %%peer_rank = %%c1 to %%cSplit step %%c1 iter_args(%%ra = %s) -> (%s) {",
       acc, k->acc_type);
  line(t, "        %%rk = arith.index_cast %%peer_rank : index to i32");
  line(t, "        %%peer = nvvm.mapa %%mine, %%rk : !llvm.ptr<3> -> !llvm.ptr<7>");
  for (int i0 = 0; i0 < k->acc_count; i0 += 16) {
    for (int i = i0; i < i0 + 16 && i < k->acc_count; ++i) {
      line(t, "        %%rq%d = llvm.getelementptr %%peer[%d] : (!llvm.ptr<7>) -> !llvm.ptr<7>, f32", i, i * 256);
      line(t, "        %%rx%d = llvm.load %%rq%d : !llvm.ptr<7> -> f32", i, i);
    }
    for (int i = i0; i < i0 + 16 && i < k->acc_count; ++i) {
      line(t, "        %%rv%d = llvm.extractvalue %%ra[%d] : %s", i, i, k->acc_type);
      line(t, "        %%rs%d = arith.addf %%rv%d, %%rx%d : f32", i, i, i);
    }
  }
  line(t, "        %%rr0 = llvm.mlir.poison : %s", k->acc_type);
  for (int i = 0; i < k->acc_count; ++i)
    line(t, "        %%rr%d = llvm.insertvalue %%rs%d, %%rr%d[%d] : %s", i + 1, i, i, i, k->acc_type);
  line(t, "        scf.yield %%rr%d : %s", k->acc_count, k->acc_type);
  line(t, "      } {llvm.loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<disable = true>>}");
  // The peers' TMA refills the stages these generic loads read once the second barrier
  // frees them: the reader's proxy fence orders the reads before those writes.
  emit_async_proxy_fence(t, "      ", "cluster");
  line(t, "      scf.yield %%red_sum : %s", k->acc_type);
  line(t, "    } else {");
  line(t, "      scf.yield %s : %s", acc, k->acc_type);
  line(t, "    }");
  emit_cluster_sync(t, "    ", 1);
  line(t, "    %%dbase0 = arith.addi %%it0, %%kdefer : index");
  for (int j = 0; j < k->stages; ++j) {
    line(t, "    %%dj%d = arith.constant %d : index", j, j);
    line(t, "    %%dg%d = arith.addi %%dbase0, %%dj%d : index", j, j);
    line(t, "    %%ds%d = arith.remui %%dg%d, %%cS : index", j, j);
    char stage[16];
    snprintf(stage, sizeof stage, "%%ds%d", j);
    emit_release(t, k, "%lane0", stage);
  }
}

// A wait on barrier %<index> of %bar for the phase of parity %<parity> (i1). With a wait
// limit (GG_SM90_WAIT_LIMIT, a debugging aid), tries it at most that many times; a thread
// that gives up prints `what`, its block, thread, barrier, parity and %gk (the role's K
// tile count; -1 where the wait has none), and goes on. `p` prefixes the names.
static void emit_wait(gg_text* t, const nvvm_kernel* k, const char* indent, const char* p,
                      const char* index, const char* parity, const char* what, bool has_gk) {
  if (!k->wait_limit) {
    line(t, "%snvgpu.mbarrier.try_wait.parity %%bar[%s], %s, %%ticks : !bar", indent, index, parity);
    return;
  }
  line(t, "%s%%%s_bp = nvgpu.mbarrier.get %%bar[%s] : !bar -> i32", indent, p, index);
  line(t, "%s%%%s_ptr = llvm.inttoptr %%%s_bp : i32 to !llvm.ptr<3>", indent, p, p);
  line(t, "%s%%%s_ph = arith.extui %s : i1 to i32", indent, p, parity);
  line(t, "%s%%%s_zero = arith.constant 0 : i32", indent, p);
  line(t, "%s%%%s_one = arith.constant 1 : i32", indent, p);
  line(t, "%s%%%s_limit = arith.constant %ld : i32", indent, p, k->wait_limit);
  line(t, "%s%%%s_true = arith.constant true", indent, p);
  // Tries until one succeeds or the limit is reached; gave up: the last try failed.
  line(t, "%s%%%s_w:2 = scf.while (%%%s_i = %%%s_zero) : (i32) -> (i32, i1) {", indent, p, p, p);
  line(t, "%s  %%%s_ok = nvvm.mbarrier.try_wait %%%s_ptr, %%%s_ph : !llvm.ptr<3>, i32 -> i1", indent, p, p, p);
  line(t, "%s  %%%s_i1 = arith.addi %%%s_i, %%%s_one : i32", indent, p, p, p);
  line(t, "%s  %%%s_out = arith.cmpi uge, %%%s_i1, %%%s_limit : i32", indent, p, p, p);
  line(t, "%s  %%%s_done = arith.ori %%%s_ok, %%%s_out : i1", indent, p, p, p);
  line(t, "%s  %%%s_go = arith.xori %%%s_done, %%%s_true : i1", indent, p, p, p);
  line(t, "%s  %%%s_failed = arith.xori %%%s_ok, %%%s_true : i1", indent, p, p, p);
  line(t, "%s  scf.condition(%%%s_go) %%%s_i1, %%%s_failed : i32, i1", indent, p, p, p);
  line(t, "%s} do {", indent);
  line(t, "%s^bb0(%%%s_j: i32, %%%s_f: i1):", indent, p, p);
  line(t, "%s  scf.yield %%%s_j : i32", indent, p);
  line(t, "%s}", indent);
  line(t, "%sscf.if %%%s_w#1 {", indent, p);
  line(t, "%s  %%%s_block = gpu.block_id x", indent, p);
  line(t, "%s  %%%s_b = arith.index_cast %%%s_block : index to i32", indent, p, p);
  line(t, "%s  %%%s_t = arith.index_cast %%tid : index to i32", indent, p);
  line(t, "%s  %%%s_x = arith.index_cast %s : index to i32", indent, p, index);
  if (has_gk)
    line(t, "%s  %%%s_k = arith.index_cast %%gk : index to i32", indent, p);
  else
    line(t, "%s  %%%s_k = arith.constant -1 : i32", indent, p);
  line(t, "%s  gpu.printf \"gg: %s wait gave up: block %%d thread %%d barrier %%d parity %%d k tile %%d\\n\", "
       "%%%s_b, %%%s_t, %%%s_x, %%%s_ph, %%%s_k : i32, i32, i32, i32, i32", indent, what, p, p, p, p, p);
  line(t, "%s}", indent);
}

// %gk, the role's K tile %kt of this tile counted across the CTA's tiles (from %it0), and
// its ring stage %s and round %r: the same for the producer and the consumers.
static void emit_ring_slot(gg_text* t, const char* indent) {
  line(t, "%s%%gk = arith.addi %%it0, %%kt : index", indent);
  line(t, "%s%%s = arith.remui %%gk, %%cS : index", indent);
  line(t, "%s%%r = arith.divui %%gk, %%cS : index", indent);
}

// Whether a tile can take A in boxes of GG_SM90_A_FEW_ROWS rows from the third tensor map
// (the first's boxes are larger): where its rows fit in fewer of them than one box.
static bool a_few_rows_map(const nvvm_kernel* k) {
  return gg_sm90_a_box_rows(&k->desc) > GG_SM90_A_FEW_ROWS;
}

// The TMA loads of a stage's A in %a_boxes boxes of `rows` rows from `map` (of type
// `type`); the rows past them keep what the stage held before, which reaches only result
// rows the epilogue drops (a wgmma row of D reads its own row of A alone).
static void emit_a_boxes(gg_text* t, const nvvm_kernel* k, const char* map, const char* type,
                         int rows) {
  line(t, "      scf.for %%ab = %%c0 to %%a_boxes step %%c1 {");
  line(t, "        %%cABox = arith.constant %d : index", rows * TILE_K);
  line(t, "        %%cABoxRows = arith.constant %d : index", rows);
  line(t, "        %%abo = arith.muli %%ab, %%cABox : index");
  line(t, "        %%aob = arith.addi %%ao, %%abo : index");
  line(t, "        %%abr = arith.muli %%ab, %%cABoxRows : index");
  line(t, "        %%arow = arith.addi %%a_row0, %%abr : index");
  line(t, "        %%aslot = memref.view %%dyn[%%aob][] : memref<%lldxi8, " WORKGROUP "> to memref<%dx128xf8E4M3FN, " WORKGROUP ">", k->smem, rows);
  line(t, "        nvgpu.tma.async.load %s[%%k0, %%arow], %%bar[%%s] to %%aslot : %s, !bar -> memref<%dx128xf8E4M3FN, " WORKGROUP ">", map, type, rows);
  line(t, "      }");
}

// The producer's K loop: for each of the tile's K tiles, wait for the stage to be free
// (from the ring's second round on: %iter counts the K tiles of the CTA's tiles so far),
// arm it with the stage's bytes, and load A in the boxes of `rows` rows from `map` that
// hold the tile's %a_rows rows (at least one), and B. The box count divides by a constant,
// so where one box holds every row of the tile it folds to one.
static void emit_producer_k_loop(gg_text* t, const nvvm_kernel* k, const char* map,
                                 const char* type, int rows) {
  line(t, "    %%cBoxRows = arith.constant %d : index", rows);
  line(t, "    %%a_boxes = arith.ceildivsi %%a_rows, %%cBoxRows : index");
  line(t, "    %%a_box_span = arith.muli %%a_boxes, %%cBoxRows : index");
  line(t, "    %%a_tx = arith.muli %%a_box_span, %%c128 : index");
  line(t, "    %%tx = arith.addi %%a_tx, %%cBBytes : index");
  line(t, "    scf.for %%kt = %%c0 to %%nk step %%c1 {");
  emit_ring_slot(t, "      ");
  line(t, "      %%again = arith.cmpi uge, %%gk, %%cS : index");
  line(t, "      scf.if %%again {");
  line(t, "        %%r1 = arith.subi %%r, %%c1 : index");
  line(t, "        %%r1i = arith.index_cast %%r1 : index to i64");
  line(t, "        %%pb = arith.trunci %%r1i : i64 to i1");
  line(t, "        %%se = arith.addi %%s, %%cS : index");
  emit_wait(t, k, "        ", "wp", "%se", "%pb", "producer (empty)", true);
  line(t, "      }");
  line(t, "      %%so = arith.muli %%s, %%cStage : index");
  line(t, "      %%ao = arith.addi %%aoff, %%so : index");
  line(t, "      %%bo = arith.addi %%ao, %%cAB : index");
  // A 256-row tile's cluster: this CTA's half of B's rows, multicast into both CTAs.
  int b_rows = gg_sm90_b_box_rows(&k->desc);
  bool cluster = k->cluster_m > 1;
  if (cluster) line(t, "      %%bo_h = arith.addi %%bo, %%mrank_b_bytes : index");
  line(t, "      %%bslot = memref.view %%dyn[%s][] : memref<%lldxi8, " WORKGROUP "> to memref<%dx128xf8E4M3FN, " WORKGROUP ">",
       cluster ? "%bo_h" : "%bo", k->smem, b_rows);
  line(t, "      nvgpu.mbarrier.arrive.expect_tx %%bar[%%s], %%tx : !bar");
  line(t, "      %%kk = arith.muli %%kt, %%c128 : index");
  line(t, "      %%k0 = arith.addi %%kstart, %%kk : index");
  emit_a_boxes(t, k, map, type, rows);
  line(t, "      nvgpu.tma.async.load %%tmB[%%k0, %s], %%bar[%%s] to %%bslot%s : !tmB, !bar -> memref<%dx128xf8E4M3FN, " WORKGROUP ">",
       cluster ? "%b_row_h" : "%b_row0", cluster ? " multicast_mask = %mcast" : "", b_rows);
  // Not unrolled: at a static K of 8 K tiles or fewer LLVM unrolled it whole, and the
  // producer's 40 registers spilled (ptxas: 44 bytes at K 1024, 128-column tiles).
  line(t, "    } {llvm.loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<disable = true>>}");
}

// The producer's share of a tile: thread 0 issues its A and B loads.
static void emit_producer(gg_text* t, const nvvm_kernel* k) {
  line(t, "  scf.if %%is0 {");
  // A's rows in the tile: in boxes of the first map's rows, or of GG_SM90_A_FEW_ROWS from
  // the third where fewer of those hold them.
  int box_rows = gg_sm90_a_box_rows(&k->desc);
  line(t, "    %%cTM = arith.constant %d : index", GG_SM90_CTA_ROWS);
  line(t, "    %%cBBytes = arith.constant %lld : index", k->stage_bytes - k->a_bytes);
  line(t, "    %%a_rows0 = arith.minsi %%row_limit, %%cTM : index");
  line(t, "    %%a_rows = arith.maxsi %%a_rows0, %%c1 : index");
  line(t, "    %%it0 = memref.load %%iter[%%c0] : %s", counters_type(k));
  // The map is chosen once a tile, outside its K loop: a full tile's loop is the one it
  // had before the third map.
  if (a_few_rows_map(k)) {
    line(t, "    %%cFewMost = arith.constant %d : index", box_rows - GG_SM90_A_FEW_ROWS);
    line(t, "    %%a_few = arith.cmpi sle, %%a_rows, %%cFewMost : index");
    line(t, "    scf.if %%a_few {");
    emit_producer_k_loop(t, k, "%tmF", "!tmF", GG_SM90_A_FEW_ROWS);
    line(t, "    } else {");
    emit_producer_k_loop(t, k, "%tmA", "!tmA", box_rows);
    line(t, "    }");
  } else {
    emit_producer_k_loop(t, k, "%tmA", "!tmA", box_rows);
  }
  line(t, "    %%it1 = arith.addi %%it0, %%nk : index");
  line(t, "    memref.store %%it1, %%iter[%%c0] : %s", counters_type(k));
  line(t, "  }");
  // Split-K: the cluster's two barriers of each tile (emit_split_reduce), which every
  // thread of every CTA of the cluster passes.
  if (k->split > 1) emit_cluster_sync(t, "  ", 2);
}

// %<name>: the wgmma descriptor of the operand at shared-memory address %<addr>, the
// 128-byte swizzle's constant bits (%dhi) with the address >> 4 in the low 14 bits.
static void emit_smem_desc(gg_text* t, const char* name, const char* addr) {
  line(t, "      %%%s_i = arith.index_cast %s : index to i64", name, addr);
  line(t, "      %%%s_m = arith.andi %%%s_i, %%c3ffff : i64", name, name);
  line(t, "      %%%s_s = arith.shrui %%%s_m, %%c4i : i64", name, name);
  line(t, "      %%%s = arith.ori %%dhi, %%%s_s : i64", name, name);
}

// The start of the consumer's K tile %kt: its stage's full barrier waited on, and the
// stage's wgmma descriptors %desc_a (%desc_a1, ping-pong's second half) and %desc_b.
static void emit_consumer_k_tile_start(gg_text* t, const nvvm_kernel* k, const tile_ops* ops) {
  emit_ring_slot(t, "      ");
  line(t, "      %%ri = arith.index_cast %%r : index to i64");
  line(t, "      %%ph = arith.trunci %%ri : i64 to i1");
  emit_wait(t, k, "      ", "wc", "%s", "%ph", "consumer (full)", true);
  line(t, "      %%kk = arith.muli %%kt, %%c128 : index");
  line(t, "      %%k0 = arith.addi %%kstart, %%kk : index");
  line(t, "      %%so = arith.muli %%s, %%cStage : index");
  line(t, "      %%stage_base = arith.addi %%aoff, %%so : index");
  if (ops->mask_k) emit_k_mask(t, k);
  line(t, "      %%stage_addr = arith.addi %%abase, %%so : index");
  // The warpgroup's 64 rows of the stage's A; in ping-pong all 128, in two halves.
  line(t, "      %%aaddr = arith.addi %%stage_addr, %s : index", k->pingpong ? "%c0" : "%cw_rows_bytes");
  if (k->pingpong) line(t, "      %%aaddr1 = arith.addi %%stage_addr, %%c8192 : index");
  line(t, "      %%baddr = arith.addi %%stage_addr, %%cAB : index");
  emit_smem_desc(t, "desc_a", "%aaddr");
  if (k->pingpong) emit_smem_desc(t, "desc_a1", "%aaddr1");
  emit_smem_desc(t, "desc_b", "%baddr");
}

// Fast mode's K tile %kt: its wgmma on %acc_in (%acc_in1) giving %acc_out (%acc_out1), and
// the previous K tile's stage released. The first K tile, apart (`first`), starts the sum:
// its first k32 step has scale-d zero, and there is no previous stage.
static void emit_fast_k_tile(gg_text* t, const nvvm_kernel* k, const tile_ops* ops, bool mma,
                             bool first, int halves) {
  emit_consumer_k_tile_start(t, k, ops);
  if (mma) {
    const char* const in[2] = {"%acc_in", "%acc_in1"};
    const char* const out[2] = {"%acc_out", "%acc_out1"};
    emit_wgmma(t, k, halves, in, out, first ? "zero" : "one");
    line(t, "      nvvm.wgmma.wait.group.sync.aligned 1");
  }
  if (first) return;
  // The previous tile's wgmma is done: its stage goes back to the producer.
  line(t, "      %%had_prev = arith.cmpi uge, %%kt, %%c1 : index");
  line(t, "      %%kp = arith.subi %%gk, %%c1 : index");
  line(t, "      %%sp = arith.remui %%kp, %%cS : index");
  if (k->split > 1) {  // the share's last ring of stages is kept (emit_split_reduce)
    line(t, "      %%kp_t = arith.subi %%kt, %%c1 : index");
    line(t, "      %%early = arith.cmpi slt, %%kp_t, %%kdefer : index");
    line(t, "      %%release0 = arith.andi %%had_prev, %%lane0 : i1");
    line(t, "      %%release = arith.andi %%release0, %%early : i1");
  } else {
    line(t, "      %%release = arith.andi %%had_prev, %%lane0 : i1");
  }
  emit_release(t, k, "%release", "%sp");
}

// One consumer warpgroup's K loop over the tile's %nk K tiles, its accumulators starting
// at `init`: %<result> in fast mode, %<result>:2 (the total and the last partial) in
// promoted. Without `mma` the warpgroup holds none of the tile's rows (a decode tile of
// 64 rows or fewer leaves the second warpgroup's 64 empty): it waits for each stage and
// gives it back as the wgmma path does, so the producer's empty barriers (all 8 consumer
// warps) and split-K's kept stages see the same arrivals, but issues no wgmma: the tensor
// cores, which bound a decode CTA's K tile (128 rows of products for a few real ones),
// do half the work. In ping-pong the loop carries `halves` accumulators (%<result>:halves),
// the tile's blocks of 64 rows, from its first K tile's (no `init`; 1: a tile of 64 rows
// or fewer).
static void emit_consumer_k_loop(gg_text* t, const nvvm_kernel* k, const tile_ops* ops,
                                 const MlirValue* args, const char* init, const char* result,
                                 bool mma, int halves) {
  if (k->pingpong) {
    // The first K tile apart, its first wgmma with scale-d zero on no accumulator: a zero
    // accumulator would be copied into both halves' registers between the wgmma, where
    // ptxas must make them ready with a warpgroup arrive of its own, and where the K loop
    // follows a wait it cannot prove warp-uniform (the order barrier's), it serialises
    // every wgmma of the kernel instead (C7520). Ping-pong tiles have K tiles (no 2D-2D).
    const char* types = halves == 2 ? "%s, %s" : "%s";
    char acc_types[4200];
    snprintf(acc_types, sizeof acc_types, types, k->acc_type, k->acc_type);
    line(t, "    %%acc_p:%d = scf.execute_region -> (%s) {", halves, acc_types);
    line(t, "      %%kt = arith.constant 0 : index");
    line(t, "      %%acc_in = llvm.mlir.poison : %s", k->acc_type);
    if (halves == 2) line(t, "      %%acc_in1 = llvm.mlir.poison : %s", k->acc_type);
    emit_fast_k_tile(t, k, ops, true, true, halves);
    line(t, "      scf.yield %s : %s", halves == 2 ? "%acc_out, %acc_out1" : "%acc_out", acc_types);
    line(t, "    }");
    line(t, "    %s:%d = scf.for %%kt = %%c1 to %%nk step %%c1 iter_args(%%acc_in = %%acc_p#0%s) -> (%s) {",
      result, halves, halves == 2 ? ", %acc_in1 = %acc_p#1" : "", acc_types);
    emit_fast_k_tile(t, k, ops, mma, false, halves);
    line(t, "      scf.yield %s : %s", halves == 2 ? "%acc_out, %acc_out1" : "%acc_out", acc_types);
  } else if (k->fast)
    line(t, "    %s = scf.for %%kt = %%c0 to %%nk step %%c1 iter_args(%%acc_in = %s) -> (%s) {",
      result, init, k->acc_type);
  else
    line(t, "    %s:2 = scf.for %%kt = %%c0 to %%nk step %%c1 iter_args(%%tot_in = %s, %%part_in = %s) -> (%s, %s) {",
      result, init, init, k->acc_type, k->acc_type);
  if (k->fast) {
    if (!k->pingpong) {
      emit_fast_k_tile(t, k, ops, mma, false, 1);
      line(t, "      scf.yield %s : %s", mma ? "%acc_out" : "%acc_in", k->acc_type);
    }
    line(t, "    }");
    // Ping-pong: the K loop's last wait on a full barrier is past, so the other warpgroup's
    // next K loop may begin (emit_order_wait), while these wgmmas finish.
    if (k->pingpong) {
      emit_warp_arrival_if(t, "    ", "%lane0");
      line(t, "      %%o_mine = arith.addi %%o_base, %%cw : index");
      line(t, "      %%o_tok = nvgpu.mbarrier.arrive %%bar[%%o_mine] : !bar -> !nvgpu.mbarrier.token");
      line(t, "    }");
    }
    if (mma) line(t, "    nvvm.wgmma.wait.group.sync.aligned 0");
    // The last K tile's stage goes back too: the ring runs on into the CTA's next tile
    // (under split-K after the reduction).
    if (k->split == 1) {
      line(t, "    %%had_any = arith.cmpi uge, %%nk, %%c1 : index");
      line(t, "    %%klast0 = arith.addi %%it0, %%nk : index");
      line(t, "    %%klast = arith.subi %%klast0, %%c1 : index");
      line(t, "    %%slast = arith.remui %%klast, %%cS : index");
      line(t, "    %%release_last = arith.andi %%had_any, %%lane0 : i1");
      emit_release(t, k, "%release_last", "%slast");
    }
  } else {
    emit_consumer_k_tile_start(t, k, ops);
    if (mma) {
      const char* const in[1] = {"%part_in"};
      const char* const out[1] = {"%part"};
      emit_wgmma(t, k, 1, in, out, "zero");
      line(t, "      nvvm.wgmma.wait.group.sync.aligned 0");
    }
    if (k->split > 1) {  // the share's last ring of stages is kept (emit_split_reduce)
      line(t, "      %%early = arith.cmpi slt, %%kt, %%kdefer : index");
      line(t, "      %%release = arith.andi %%lane0, %%early : i1");
      emit_release(t, k, "%release", "%s");
    } else {
      emit_release(t, k, "%lane0", "%s");
    }
    if (!mma) {
      line(t, "      scf.yield %%tot_in, %%part_in : %s, %s", k->acc_type, k->acc_type);
      line(t, "    }");
      return;
    }
    if (k->blockwise) {
      // This tile's scale blocks: sx for the thread's two rows, sw for the tile's
      // columns (one 128-wide block: tile_n <= 128 and tiles start at multiples of it,
      // except under 3D-2D, below).
      line(t, "      %%kb = arith.divsi %%k0, %%c128 : index");
      line(t, "      %%sak = arith.muli %%kb, %%s_sa_kstride : index");
      line(t, "      %%sbk = arith.muli %%kb, %%s_sb_kstride : index");
      emit_thread_row(t, "      ", "_s", "rs0");
      line(t, "      %%rs1 = arith.addi %%rs0, %%c8 : index");
      line(t, "      %%last_row = arith.subi %%s_rows, %%c1 : index");
      for (int h = 0; h < 2; ++h) {
        // Rows past the group read the tile's last row instead (never out of bounds);
        // the epilogue drops them.
        line(t, "      %%rc%d = arith.minsi %%rs%d, %%last_row : index", h, h);
        line(t, "      %%sxi%d0 = arith.addi %%s_sa_row, %%rc%d : index", h, h);
        line(t, "      %%sxi%d = arith.addi %%sxi%d0, %%sak : index", h, h);
        gg_text sa_type;
        gg_text_init(&sa_type);
        gg_text_type(&sa_type, mlirValueGetType(args[ARG_S_SA]));
        line(t, "      %%sx%d = memref.load %%s_sa[%%sxi%d] : %s", h, h, gg_text_str(&sa_type));
        gg_text_free(&sa_type);
      }
      line(t, "      %%swc = arith.divsi %%s_sb_col, %%c128 : index");
      line(t, "      %%swi0 = arith.addi %%s_sb_base, %%sbk : index");
      line(t, "      %%swi = arith.addi %%swi0, %%swc : index");
      gg_text sb_type;
      gg_text_init(&sb_type);
      gg_text_type(&sb_type, mlirValueGetType(args[ARG_S_SB]));
      line(t, "      %%sw = memref.load %%s_sb[%%swi] : %s", gg_text_str(&sb_type));
      if (k->split_column_blocks) {
        // A 3D-2D group may start inside a 128-wide column block: the tile's columns
        // from the next block on take that block's scale (clamped to the last block;
        // columns past the group are dropped by the epilogue).
        line(t, "      %%swc1a = arith.addi %%swc, %%c1 : index");
        line(t, "      %%nb_last = arith.constant %lld : index", (long long)(k->desc.n / 128 - 1));
        line(t, "      %%swc1 = arith.minsi %%swc1a, %%nb_last : index");
        line(t, "      %%swi1 = arith.addi %%swi0, %%swc1 : index");
        line(t, "      %%sw1 = memref.load %%s_sb[%%swi1] : %s", gg_text_str(&sb_type));
        line(t, "      %%col_in_block = arith.remsi %%s_sb_col, %%c128 : index");
        line(t, "      %%split_at = arith.subi %%c128, %%col_in_block : index");
        line(t, "      %%q_s = arith.remui %%lane, %%c4 : index");
        line(t, "      %%c2q_s = arith.muli %%q_s, %%c2 : index");
      }
      gg_text_free(&sb_type);
    }
    emit_promote(t, k, "%tot_in", "%part");
    line(t, "      scf.yield %%pr%d, %%part : %s, %s", k->acc_count, k->acc_type, k->acc_type);
    line(t, "    }");
  }
}

// Ping-pong: before the K loop of the CTA's tile %tno (from the second on), wait until the
// other warpgroup's K loop of the tile before it is past its waits on full barriers (its
// arrival %o_round on its order barrier). The ring's full barriers are waited on by parity:
// a warpgroup that started its tile's K loop while the other still had the previous
// tile's last ring of stages to wait for would take a stage's fill two rounds back for
// the one it waits for. The other cannot arrive twice before this one does once.
static void emit_order_wait(gg_text* t, const nvvm_kernel* k) {
  line(t, "      %%o_prev = arith.cmpi uge, %%tno, %%c1 : index");
  line(t, "      scf.if %%o_prev {");
  line(t, "        %%o_t = arith.subi %%tno, %%c1 : index");
  line(t, "        %%o_round = arith.divui %%o_t, %%c2 : index");
  line(t, "        %%o_ri = arith.index_cast %%o_round : index to i64");
  line(t, "        %%o_ph = arith.trunci %%o_ri : i64 to i1");
  line(t, "        %%o_other0 = arith.subi %%c1, %%cw : index");
  line(t, "        %%o_other = arith.addi %%o_base, %%o_other0 : index");
  emit_wait(t, k, "        ", "wo", "%o_other", "%o_ph", "ping-pong (order)", false);
  line(t, "      }");
}

// One role's share of a tile: the producer's loads, or the consumers' wgmma and epilogue.
// The ring runs on across the CTA's tiles: %iter holds how many K tiles the role has gone
// through, so stage and phase continue where the previous tile left them.
static void emit_tile(gg_text* t, const nvvm_kernel* k, const tile_ops* ops, const MlirValue* args,
                      tile_role role) {
  bool loads = !mlirOperationIsNull(ops->load_a);
  emit_signature(t, k, args);
  if (k->cluster_m > 1) emit_cluster_rows(t, k);
  line(t, "  %%c0 = arith.constant 0 : index");
  line(t, "  %%c1 = arith.constant 1 : index");
  line(t, "  %%c2 = arith.constant 2 : index");
  line(t, "  %%c4 = arith.constant 4 : index");
  line(t, "  %%c8 = arith.constant 8 : index");
  line(t, "  %%c16 = arith.constant 16 : index");
  line(t, "  %%c32 = arith.constant 32 : index");
  line(t, "  %%c64 = arith.constant 64 : index");
  line(t, "  %%c128 = arith.constant 128 : index");
  line(t, "  %%c128_i32 = arith.constant 128 : i32");
  line(t, "  %%cS = arith.constant %d : index", k->stages);
  line(t, "  %%f0 = arith.constant 0.0 : f32");
  for (int c = 0; c < k->tn; ++c) line(t, "  %%cc%d = arith.constant %d : index", c, c);
  line(t, "  %%ticks = arith.constant 10000000 : index");
  line(t, "  %%wg = arith.divui %%tid, %%c128 : index");
  line(t, "  %%t128 = arith.remui %%tid, %%c128 : index");
  line(t, "  %%lane = arith.remui %%tid, %%c32 : index");
  line(t, "  %%lane0 = arith.cmpi eq, %%lane, %%c0 : index");
  line(t, "  %%warp_all = arith.constant -1 : i32");
  line(t, "  %%is0 = arith.cmpi eq, %%tid, %%c0 : index");
  line(t, "  %%cw = arith.subi %%wg, %%c1 : index");
  // K tiles: from the 128-aligned tile holding k_lo to k_hi.
  if (loads) {
    const char* all = k->split > 1 ? "_all" : "";
    line(t, "  %%kq = arith.floordivsi %%k_lo, %%c128 : index");
    line(t, "  %%kstart%s = arith.muli %%kq, %%c128 : index", all);
    line(t, "  %%kspan0 = arith.subi %%k_hi, %%kstart%s : index", all);
    line(t, "  %%kspan = arith.maxsi %%kspan0, %%c0 : index");
    line(t, "  %%nk%s = arith.ceildivsi %%kspan, %%c128 : index", all);
    if (k->split > 1) emit_split_share(t, k);
  } else {
    line(t, "  %%nk = arith.constant 0 : index");
  }
  if (loads) {
    line(t, "  %%tmA = builtin.unrealized_conversion_cast %%tma_a : !llvm.ptr to !tmA");
    line(t, "  %%tmB = builtin.unrealized_conversion_cast %%tma_b : !llvm.ptr to !tmB");
    if (a_few_rows_map(k))
      line(t, "  %%tmF = builtin.unrealized_conversion_cast %%tma_af : !llvm.ptr to !tmF");
    line(t, "  %%dyn = memref.reinterpret_cast %%dsmem to offset: [0], sizes: [%lld], strides: [1] : "
         "memref<0xi8, " WORKGROUP "> to memref<%lldxi8, " WORKGROUP ">", k->smem, k->smem);
    line(t, "  %%base = memref.extract_aligned_pointer_as_index %%dyn : memref<%lldxi8, " WORKGROUP "> -> index", k->smem);
    line(t, "  %%c1023 = arith.constant 1023 : index");
    line(t, "  %%cm1024 = arith.constant -1024 : index");
    line(t, "  %%b1 = arith.addi %%base, %%c1023 : index");
    line(t, "  %%abase = arith.andi %%b1, %%cm1024 : index");
    line(t, "  %%aoff = arith.subi %%abase, %%base : index");
    line(t, "  %%cStage = arith.constant %lld : index", k->stage_bytes);
    line(t, "  %%cAB = arith.constant %lld : index", k->a_bytes);
  }
  if (role == ROLE_PRODUCER) {
    if (loads) emit_producer(t, k);
    line(t, "  return");
    line(t, "}");
    return;
  }
  line(t, "  %%f0s = llvm.mlir.constant(0.0 : f32) : f32");
  line(t, "  %%z0 = llvm.mlir.poison : %s", k->acc_type);
  for (int i = 0; i < k->acc_count; ++i)
    line(t, "  %%z%d = llvm.insertvalue %%f0s, %%z%d[%d] : %s", i + 1, i, i, k->acc_type);
  const char* acc = NULL;
  const char* limit = "%row_limit";  // the epilogue's rows
  char acc_name[32];
  snprintf(acc_name, sizeof acc_name, "%%z%d", k->acc_count);
  if (loads) {
    // Named barrier 1 or 2: the consumer warpgroup's own (0 is the CTA's, 3 both consumers').
    line(t, "    %%wg_barrier = arith.index_cast %%wg : index to i32");
    line(t, "    %%c8192 = arith.constant 8192 : index");
    // Descriptor constants: 128-byte swizzle (1 << 62), SBO 1024 bytes (64 << 32), LBO 1
    // (ignored for swizzled K-major) and the start address >> 4 in the low 14 bits.
    line(t, "    %%dhi = arith.constant 4611686293305294848 : i64");
    line(t, "    %%c3ffff = arith.constant 262143 : i64");
    line(t, "    %%c4i = arith.constant 4 : i64");
    for (int s = 0; s < 4; ++s) line(t, "    %%cstep%d = arith.constant %d : i64", s, 2 * s);
    line(t, "    %%cw_rows_bytes = arith.muli %%cw, %%c8192 : index");
    line(t, "    %%it0 = memref.load %%iter[%%c0] : %s", counters_type(k));
    if (k->pingpong) {
      // Every other tile of the CTA's walk is this warpgroup's, whole; it counts the other's
      // K tiles too (the ring's stages run through both).
      line(t, "    %%tno = memref.load %%iter[%%c1] : %s", counters_type(k));
      line(t, "    %%tno1 = arith.addi %%tno, %%c1 : index");
      line(t, "    memref.store %%tno1, %%iter[%%c1] : %s", counters_type(k));
      line(t, "    %%tpar = arith.remui %%tno, %%c2 : index");
      line(t, "    %%mine = arith.cmpi eq, %%tpar, %%cw : index");
      line(t, "    %%o_base = arith.constant %d : index", 2 * k->stages);
      line(t, "    scf.if %%mine {");
      emit_scale_prefetch(t, k, args[ARG_E_SA], args[ARG_E_SB]);
      line(t, "    }");
      // The K loop and the epilogue share one region, so no accumulator is merged with a
      // value from another path: ptxas serialises every wgmma when it must make the
      // accumulators' registers ready (a warpgroup arrive) on a path it cannot prove
      // warp-uniform (C7520). A tile of 64 rows or fewer (decode) has a region of its own
      // with the first half's wgmma and epilogue alone, as the cooperative kernel's second
      // warpgroup does without them (the tensor cores bound a decode K tile).
      line(t, "    %%two_halves = arith.cmpi slt, %%c64, %%row_limit : index");
      line(t, "    scf.if %%mine {");
      emit_order_wait(t, k);
      line(t, "    scf.if %%two_halves {");
      for (int halves = 2; halves >= 1; --halves) {
        emit_consumer_k_loop(t, k, ops, args, NULL, "%acc_k", true, halves);
        const char* const accs[2] = {"%acc_k#0", "%acc_k#1"};
        emit_epilogue(t, k, accs, halves, true, args[ARG_OUT], args[ARG_E_SA], args[ARG_E_SB],
                      loads, limit);
        line(t, "    }%s", halves == 2 ? " else {" : "");
      }
      line(t, "    }");
      line(t, "    %%it1 = arith.addi %%it0, %%nk : index");
      line(t, "    memref.store %%it1, %%iter[%%c0] : %s", counters_type(k));
      line(t, "  return");
      line(t, "}");
      return;
    }
    if (!k->blockwise) emit_scale_prefetch(t, k, args[ARG_E_SA], args[ARG_E_SB]);
    // The second warpgroup's rows start at 64: a tile of fewer rows leaves it none.
    line(t, "    %%cw_row0 = arith.muli %%cw, %%c64 : index");
    line(t, "    %%busy = arith.cmpi slt, %%cw_row0, %%row_limit : index");
    if (k->fast)
      line(t, "    %%acc = scf.if %%busy -> (%s) {", k->acc_type);
    else
      line(t, "    %%accs:2 = scf.if %%busy -> (%s, %s) {", k->acc_type, k->acc_type);
    for (int mma = 1; mma >= 0; --mma) {
      emit_consumer_k_loop(t, k, ops, args, acc_name, "%acc_k", mma, 1);
      if (k->fast)
        line(t, "    scf.yield %%acc_k : %s", k->acc_type);
      else
        line(t, "    scf.yield %%acc_k#0, %%acc_k#1 : %s, %s", k->acc_type, k->acc_type);
      line(t, "    }%s", mma ? " else {" : "");
    }
    acc = k->fast ? "%acc" : "%accs#0";
    line(t, "    %%it1 = arith.addi %%it0, %%nk : index");
    line(t, "    memref.store %%it1, %%iter[%%c0] : %s", counters_type(k));
    if (k->split > 1) {
      emit_split_reduce(t, k, acc);
      acc = "%acc_red";
      // The cluster's first CTA writes the tile: the others run the epilogue with no rows,
      // so they load and store nothing. Branching around it instead made ptxas spill
      // promoted 192-column tiles (56 bytes at split 2, 68 at 4).
      line(t, "    %%e_limit = arith.select %%is_lead, %%row_limit, %%c0 : index");
      limit = "%e_limit";
    }
  } else {
    acc = acc_name;
  }
  emit_epilogue(t, k, &acc, 1, false, args[ARG_OUT], args[ARG_E_SA], args[ARG_E_SB], loads,
                limit);
  line(t, "  return");
  line(t, "}");
}

// Spells out the type aliases the templates use (a parsed op cannot define aliases).
static void expand_aliases(gg_text* t, const nvvm_kernel* k) {
  char tm_a[256], tm_b[256], tm_f[256], bar[160];
  const char* tm = "!nvgpu.tensormap.descriptor<tensor = memref<%dx128xf8E4M3FN, 3>, swizzle = "
                   "swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>";
  snprintf(tm_a, sizeof tm_a, tm, gg_sm90_a_box_rows(&k->desc));
  snprintf(tm_b, sizeof tm_b, tm, gg_sm90_b_box_rows(&k->desc));
  snprintf(tm_f, sizeof tm_f, tm, GG_SM90_A_FEW_ROWS);
  snprintf(bar, sizeof bar,
           "!nvgpu.mbarrier.group<memorySpace = " WORKGROUP ", num_barriers = %d>",
           2 * k->stages + (k->pingpong ? 2 : 0));
  const char* from[4] = {"!tmA", "!tmB", "!tmF", "!bar"};
  const char* to[4] = {tm_a, tm_b, tm_f, bar};
  gg_text out;
  gg_text_init(&out);
  for (const char* p = gg_text_str(t); *p;) {
    int hit = -1;
    for (int i = 0; i < 4 && hit < 0; ++i)
      if (!strncmp(p, from[i], 4)) hit = i;
    if (hit >= 0) {
      gg_text_printf(&out, "%s", to[hit]);
      p += 4;
    } else {
      gg_text_append(&out, p, 1);
      ++p;
    }
  }
  gg_text_free(t);
  *t = out;
}

// The tile ops of the kernel body; false with an error when the body is not the tile
// shape this lowering knows (one epilogue; A and B loads of the same K range).
static bool find_tile_ops(MlirOperation kernel, tile_ops* ops) {
  memset(ops, 0, sizeof *ops);
  gg_op_list list = {0};
  gg_collect_ops(kernel, GG_OP_EPILOGUE, &list);
  bool ok = list.count == 1;
  if (ok) ops->epilogue = list.ops[0];
  gg_op_list_free(&list);
  if (!ok) {
    gg_emit_error(kernel, PASS ": expected one gg.epilogue per kernel");
    return false;
  }
  gg_collect_ops(kernel, GG_OP_LOAD_TILE, &list);
  for (size_t i = 0; i < list.count; ++i) {
    char operand[32] = "";
    gg_attr_string(list.ops[i], "operand", operand, sizeof operand);
    if (!strcmp(operand, "a") && mlirOperationIsNull(ops->load_a)) ops->load_a = list.ops[i];
    else if (!strcmp(operand, "b") && mlirOperationIsNull(ops->load_b)) ops->load_b = list.ops[i];
    else if (strcmp(operand, "a") != 0 && strcmp(operand, "b") != 0) ok = false;
  }
  gg_op_list_free(&list);
  if (!ok || mlirOperationIsNull(ops->load_a) != mlirOperationIsNull(ops->load_b)) {
    gg_emit_error(kernel, PASS ": expected plain A and B tile loads (preshuffled B is AMD's)");
    return false;
  }
  gg_collect_ops(kernel, GG_OP_LOAD_SCALES, &list);
  if (list.count) ops->load_scales = list.ops[0];
  gg_op_list_free(&list);
  if (!mlirOperationIsNull(ops->load_a)) gg_attr_bool(ops->load_a, "mask_k", &ops->mask_k);
  return true;
}

static bool has_gg_op(MlirOperation op) {
  gg_op_list list = {0};
  gg_collect_ops(op, "gg.mma_tile", &list);
  gg_collect_ops(op, "gg.mma_scaled_tile", &list);
  gg_collect_ops(op, GG_OP_LOAD_TILE, &list);
  bool found = list.count > 0;
  gg_op_list_free(&list);
  return found;
}

// The ops of the epilogue's block up to it, the epilogue included (the C API walks
// forward only): taken before the template goes in, so that only these are erased.
static void tile_level_ops(MlirOperation epilogue, gg_op_list* before) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirOperationGetBlock(epilogue));
       !mlirOperationEqual(op, epilogue); op = mlirOperationGetNextInBlock(op))
    gg_op_list_push(before, op);
  gg_op_list_push(before, epilogue);
}

// Erases the tile-level ops the template replaced: walking back from the epilogue, every
// gg op, every loop over gg ops and every tile constant (users come later in the block,
// so they go first). Index arithmetic left dead is canonicalize's.
static void erase_tile_level(gg_op_list* before) {
  for (size_t i = before->count; i-- > 0;) {
    MlirOperation op = before->ops[i];
    MlirIdentifier name = mlirOperationGetName(op);
    MlirStringRef text = mlirIdentifierStr(name);
    bool gg = text.length > 3 && !strncmp(text.data, "gg.", 3);
    bool tile_result = mlirOperationGetNumResults(op) > 0 &&
                       mlirTypeIsAVector(mlirValueGetType(mlirOperationGetResult(op, 0)));
    if (gg || tile_result || (gg_op_is(op, "scf.for") && has_gg_op(op))) mlirOperationDestroy(op);
  }
}

// One role's tile in `root` (its loop over the CTA's tiles) in place of the tile-level ops.
static bool lower_tile(MlirOperation kernel, MlirOperation root, const nvvm_kernel* k,
                       const MlirValue shared[4], tile_role role) {
  tile_ops ops;
  if (!find_tile_ops(root, &ops)) return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  MlirValue tid = shared[1];
  MlirValue index_zero = tid;  // any index: stands for operands a kernel without loads lacks
  MlirValue args[ARG_COUNT];
  args[ARG_TMA_A] = mlirBlockGetArgument(body, 0);
  args[ARG_TMA_B] = mlirBlockGetArgument(body, 1);
  args[ARG_TMA_AF] = mlirBlockGetArgument(body, 2);
  args[ARG_DSMEM] = shared[0];
  args[ARG_TID] = tid;
  args[ARG_BAR] = shared[2];
  args[ARG_ITER] = shared[3];
  bool loads = !mlirOperationIsNull(ops.load_a);
  args[ARG_A_ROW0] = loads ? mlirOperationGetOperand(ops.load_a, 1) : index_zero;
  args[ARG_K_LO] = loads ? mlirOperationGetOperand(ops.load_a, 4) : index_zero;
  args[ARG_K_HI] = loads ? mlirOperationGetOperand(ops.load_a, 5) : index_zero;
  args[ARG_B_ROW0] = loads ? mlirOperationGetOperand(ops.load_b, 1) : index_zero;
  // Blockwise: (sa, sb, k0, k_lo, k_hi, sa_row, sa_kstride, row_limit, sb_base, sb_col,
  // sb_kstride, col_limit); rowwise kernels pass the epilogue's scales in their place.
  static const int scale_operand[8] = {0, 1, 5, 6, 7, 8, 9, 10};
  bool scales = !mlirOperationIsNull(ops.load_scales);
  for (int i = 0; i < 8; ++i)
    args[ARG_S_SA + i] = scales ? mlirOperationGetOperand(ops.load_scales, scale_operand[i])
                                : i < 2 ? mlirOperationGetOperand(ops.epilogue, 2 + i) : index_zero;
  for (int i = 0; i < 10; ++i) args[ARG_OUT + i] = mlirOperationGetOperand(ops.epilogue, 1 + i);
  if (k->blockwise && loads && !scales) {
    gg_emit_error(kernel, PASS ": a blockwise kernel without gg.load_scales");
    return false;
  }
  gg_text t;
  gg_text_init(&t);
  emit_tile(&t, k, &ops, args, role);
  expand_aliases(&t, k);
  gg_op_list tile_level = {0};
  tile_level_ops(ops.epilogue, &tile_level);
  bool ok = !t.failed && gg_inline_template(ops.epilogue, gg_text_str(&t), args, ARG_COUNT, NULL, 0);
  gg_text_free(&t);
  if (ok) erase_tile_level(&tile_level);
  gg_op_list_free(&tile_level);
  return ok;
}

// The CTA's start, once before its tiles: the ring's mbarriers (full ones expect one
// arrival, the producer's with the transaction bytes; empty ones one per consumer warp)
// and the tensor maps' prefetch, before `before`. *bar: the barriers.
static bool lower_prologue(MlirOperation before, const nvvm_kernel* k, bool loads,
                           const MlirValue args[4], MlirValue* bar) {
  gg_text t;
  gg_text_init(&t);
  line(&t, "func.func @prologue(%%tma_a: !llvm.ptr, %%tma_b: !llvm.ptr, %%tma_af: !llvm.ptr, %%tid: index) -> !bar {");
  line(&t, "  %%c0 = arith.constant 0 : index");
  line(&t, "  %%c1 = arith.constant 1 : index");
  // Empty barriers: each consumer warp arrives, the peer CTA's too in a 256-row tile's
  // cluster; in ping-pong only the warps of the warpgroup whose tile the stage holds.
  line(&t, "  %%cEmpty = arith.constant %d : index", k->pingpong ? 4 : 8 * k->cluster_m);
  line(&t, "  %%is0 = arith.cmpi eq, %%tid, %%c0 : index");
  line(&t, "  %%bar = nvgpu.mbarrier.create -> !bar");
  line(&t, "  scf.if %%is0 {");
  for (int s = 0; s < k->stages; ++s) {
    line(&t, "    %%sf%d = arith.constant %d : index", s, s);
    line(&t, "    nvgpu.mbarrier.init %%bar[%%sf%d], %%c1 : !bar", s);
    line(&t, "    %%se%d = arith.constant %d : index", s, k->stages + s);
    line(&t, "    nvgpu.mbarrier.init %%bar[%%se%d], %%cEmpty : !bar", s);
  }
  // Ping-pong's order barriers, one a consumer warpgroup: its 4 warps arrive when its K
  // loop is done.
  for (int w = 0; k->pingpong && w < 2; ++w) {
    line(&t, "    %%so%d = arith.constant %d : index", w, 2 * k->stages + w);
    line(&t, "    %%cOrder%d = arith.constant 4 : index", w);
    line(&t, "    nvgpu.mbarrier.init %%bar[%%so%d], %%cOrder%d : !bar", w, w);
  }
  line(&t, "    nvvm.fence.mbarrier.init");
  if (loads) {
    line(&t, "    %%tmA = builtin.unrealized_conversion_cast %%tma_a : !llvm.ptr to !tmA");
    line(&t, "    %%tmB = builtin.unrealized_conversion_cast %%tma_b : !llvm.ptr to !tmB");
    line(&t, "    nvgpu.tma.prefetch.descriptor %%tmA : !tmA");
    line(&t, "    nvgpu.tma.prefetch.descriptor %%tmB : !tmB");
    if (a_few_rows_map(k)) {
      line(&t, "    %%tmF = builtin.unrealized_conversion_cast %%tma_af : !llvm.ptr to !tmF");
      line(&t, "    nvgpu.tma.prefetch.descriptor %%tmF : !tmF");
    }
  }
  line(&t, "  }");
  line(&t, "  gpu.barrier");
  // The peer's barriers are set up before any multicast or remote arrival reaches them.
  if (k->cluster_m > 1) emit_cluster_sync(&t, "  ", 1);
  line(&t, "  return %%bar : !bar");
  line(&t, "}");
  expand_aliases(&t, k);
  bool ok = !t.failed && gg_inline_template(before, gg_text_str(&t), args, 4, bar, 1);
  gg_text_free(&t);
  return ok;
}

// Layouts packed along M (sizes, offsets) walk only the tiles that hold rows: the virtual
// grid has G tile rows more than the rows need (a group starting mid-tile takes one more),
// and which of them are empty depends on the split, so stepping through the virtual grid
// gives some CTAs two full tiles where others get none.
static bool walks_dense(const nvvm_kernel* k) {
  return k->desc.layout == GG_LAYOUT_SIZES || k->desc.layout == GG_LAYOUT_OFFSETS;
}

// The strided walk: virtual tile v = the CTA's block id + i CTAs, x fastest, up to the
// template's %total.
static void emit_strided_walk(gg_text* t) {
  line(t, "    scf.for %%v = %%first to %%total step %%step {");
  line(t, "      %%vyz = arith.divui %%v, %%gx : index");
  line(t, "      %%vx = arith.remui %%v, %%gx : index");
  line(t, "      %%vy = arith.remui %%vyz, %%gy : index");
  line(t, "      %%vz = arith.divui %%vyz, %%gy : index");
  line(t, "    }");
}

// Dense tile rows per panel of the dense walk: the CTAs at work at once take tiles of a
// few column blocks over PANEL_ROWS rows, not of every column block over one or two rows,
// so that the B columns and A rows in use fit the L2 together (N 16384 K 6656 at 256
// columns: 64 column blocks of B, 109 MB an expert, against 50 MB of L2).
#define PANEL_ROWS 8

// The tile rows of group %<p>gi (clamped below G): %<p>tiles, from its start and end.
static void emit_group_tiles(gg_text* t, const char* indent, const char* p, const char* g,
                             const char* ends_type) {
  char name[16];
  line(t, "%s%%%sgi = arith.minui %s, %%Gm1 : index", indent, p, g);
  char gi[24];
  snprintf(gi, sizeof gi, "%%%sgi", p);
  snprintf(name, sizeof name, "%ss", p);
  gg_emit_group_start(t, indent, name, gi, "%ends", ends_type);
  line(t, "%s%%%se_raw = memref.load %%ends[%%%sgi] : %s", indent, p, p, ends_type);
  line(t, "%s%%%se = arith.index_cast %%%se_raw : i64 to index", indent, p, p);
  line(t, "%s%%%srows = arith.subi %%%se, %%%ss : index", indent, p, p, p);
  line(t, "%s%%%stiles = arith.ceildivui %%%srows, %%tm : index", indent, p, p);
}

// The dense walk over the groups' ends in shared memory (%ends). Dense row r is tile row
// r - T_g of the group g with T_g <= r < T_g + ceil(rows_g / tile_m) (T_g: the tile rows
// of the groups before g). The dense tiles go in panels of PANEL_ROWS rows (the last one
// of the rows left), column by column within a panel: dense tile d = the CTA's block id
// + i CTAs is in panel d / (PANEL_ROWS gx), at row d % P and column d / P of it (P: the
// panel's rows). d only grows, so a running pointer (g, T_g) to the group of the panel's
// first row finds it, moving O(G + tiles) in all, and the tile's own row is at most
// PANEL_ROWS rows further: no search and no total of tiles up front. The walk ends past
// the last group, or at a slot past the last panel's tiles (all later slots are too).
// The tile is handed on as the virtual grid's tile (row start_g / tile_m + g + r - T_g:
// the slot gg-resolve-groups gives the group's first tile), so the grid's body reads it
// as before.
static void emit_dense_walk(gg_text* t, const char* ends_type) {
  line(t, "    %%w:4 = scf.while (%%d = %%first, %%g = %%c0, %%tg = %%c0) : (index, index, index) -> (index, index, index, index) {");
  line(t, "      %%pd = arith.divui %%d, %%pgx : index");
  line(t, "      %%r0 = arith.muli %%pd, %%cP : index");
  // The group of the panel's first row.
  line(t, "      %%p:3 = scf.while (%%g1 = %%g, %%t1 = %%tg) : (index, index) -> (index, index, index) {");
  line(t, "        %%in = arith.cmpi ult, %%g1, %%G : index");
  emit_group_tiles(t, "        ", "a", "%g1", ends_type);
  line(t, "        %%t2 = arith.addi %%t1, %%atiles : index");
  line(t, "        %%past = arith.cmpi uge, %%r0, %%t2 : index");
  line(t, "        %%on = arith.andi %%in, %%past : i1");
  line(t, "        scf.condition(%%on) %%g1, %%t1, %%t2 : index, index, index");
  line(t, "      } do {");
  line(t, "      ^bb0(%%g1: index, %%t1: index, %%t2: index):");
  line(t, "        %%gn = arith.addi %%g1, %%c1 : index");
  line(t, "        scf.yield %%gn, %%t2 : index, index");
  line(t, "      }");
  // The panel's rows: up to PANEL_ROWS, fewer where the groups end first.
  line(t, "      %%r0P = arith.addi %%r0, %%cP : index");
  line(t, "      %%q:2 = scf.while (%%g2 = %%p#0, %%e2 = %%p#2) : (index, index) -> (index, index) {");
  line(t, "        %%g2n = arith.addi %%g2, %%c1 : index");
  line(t, "        %%has = arith.cmpi ult, %%g2n, %%G : index");
  line(t, "        %%short = arith.cmpi ult, %%e2, %%r0P : index");
  line(t, "        %%on2 = arith.andi %%has, %%short : i1");
  line(t, "        scf.condition(%%on2) %%g2, %%e2 : index, index");
  line(t, "      } do {");
  line(t, "      ^bb0(%%g2: index, %%e2: index):");
  line(t, "        %%g2n = arith.addi %%g2, %%c1 : index");
  emit_group_tiles(t, "        ", "b", "%g2n", ends_type);
  line(t, "        %%e3 = arith.addi %%e2, %%btiles : index");
  line(t, "        scf.yield %%g2n, %%e3 : index, index");
  line(t, "      }");
  line(t, "      %%prows0 = arith.subi %%q#1, %%r0 : index");
  line(t, "      %%prows = arith.minui %%prows0, %%cP : index");
  line(t, "      %%ptiles = arith.muli %%prows, %%gx : index");
  line(t, "      %%idx = arith.remui %%d, %%pgx : index");
  line(t, "      %%inpanel = arith.cmpi ult, %%idx, %%ptiles : index");
  line(t, "      %%ingroups = arith.cmpi ult, %%p#0, %%G : index");
  line(t, "      %%more = arith.andi %%ingroups, %%inpanel : i1");
  line(t, "      scf.condition(%%more) %%d, %%p#0, %%p#1, %%prows : index, index, index, index");
  line(t, "    } do {");
  line(t, "    ^bb0(%%d: index, %%g: index, %%tg: index, %%prows: index):");
  line(t, "      %%dn = arith.addi %%d, %%step : index");
  line(t, "      %%pd = arith.divui %%d, %%pgx : index");
  line(t, "      %%r0 = arith.muli %%pd, %%cP : index");
  line(t, "      %%idx = arith.remui %%d, %%pgx : index");
  line(t, "      %%rin = arith.remui %%idx, %%prows : index");
  line(t, "      %%r = arith.addi %%r0, %%rin : index");
  // The tile's own group: from the panel's, at most PANEL_ROWS rows on.
  line(t, "      %%o:3 = scf.while (%%g3 = %%g, %%t3 = %%tg) : (index, index) -> (index, index, index) {");
  emit_group_tiles(t, "        ", "c", "%g3", ends_type);
  line(t, "        %%t4 = arith.addi %%t3, %%ctiles : index");
  line(t, "        %%beyond = arith.cmpi uge, %%r, %%t4 : index");
  line(t, "        scf.condition(%%beyond) %%g3, %%t3, %%t4 : index, index, index");
  line(t, "      } do {");
  line(t, "      ^bb0(%%g3: index, %%t3: index, %%t4: index):");
  line(t, "        %%g3n = arith.addi %%g3, %%c1 : index");
  line(t, "        scf.yield %%g3n, %%t4 : index, index");
  line(t, "      }");
  line(t, "      %%local = arith.subi %%r, %%o#1 : index");
  gg_emit_group_start(t, "      ", "s", "%o#0", "%ends", ends_type);
  line(t, "      %%sq = arith.divui %%s, %%tm : index");
  line(t, "      %%slot = arith.addi %%sq, %%o#0 : index");
  // The body's last three ops are the tile's ids (lower_roles reads them there).
  line(t, "      %%vx = arith.divui %%idx, %%prows : index");
  line(t, "      %%vy = arith.addi %%slot, %%local : index");
  line(t, "      %%vz = arith.constant 0 : index");
  line(t, "      scf.yield %%dn, %%g, %%tg : index, index, index");
  line(t, "    }");
}

// The persistent grid, before `before`: each warpgroup role walks the CTA's tiles of the
// virtual grid's extents[0] x extents[1] x extents[2] (densely, or strided: above) in a
// loop of its own, after setting its register budget once. The loop bodies end with the
// tile's virtual grid ids (vx, vy, vz); lower_roles puts the grid's body after them.
// counters: each role's count of K tiles (memref.alloca results), the producer's first.
static bool lower_role_loops(MlirOperation before, const nvvm_kernel* k, const MlirValue extents[3],
                             MlirValue tid, MlirValue ends, MlirValue counters[2]) {
  bool dense = walks_dense(k);
  if (dense && mlirValueIsNull(ends)) {
    gg_emit_error(before, PASS ": a rows-packed layout without gg.group_ends");
    return false;
  }
  char ends_type[128];
  snprintf(ends_type, sizeof ends_type, "memref<%lldxi64, " WORKGROUP ">", (long long)k->desc.g);
  gg_text t;
  gg_text_init(&t);
  line(&t, "func.func @roles(%%tid: index, %%gx: index, %%gy: index, %%gz: index%s%s) -> (%s, %s) {",
       dense ? ", %ends: " : "", dense ? ends_type : "", counters_type(k), counters_type(k));
  line(&t, "  %%c0 = arith.constant 0 : index");
  line(&t, "  %%c1 = arith.constant 1 : index");
  line(&t, "  %%c128 = arith.constant 128 : index");
  line(&t, "  %%G = arith.constant %lld : index", (long long)k->desc.g);
  line(&t, "  %%Gm1 = arith.constant %lld : index", (long long)k->desc.g - 1);
  line(&t, "  %%tm = arith.constant %d : index", k->tm);
  line(&t, "  %%wg = arith.divui %%tid, %%c128 : index");
  line(&t, "  %%isprod = arith.cmpi eq, %%wg, %%c0 : index");
  // Clusters (split-K's shares, a 256-row tile's halves): a cluster of CTAs (consecutive
  // block ids) takes each tile, so the walk is over clusters; the launch gives whole ones.
  int cluster = gg_sm90_cluster_ctas(&k->desc);
  if (cluster > 1) {
    line(&t, "  %%cCluster = arith.constant %d : index", cluster);
    line(&t, "  %%block = gpu.block_id x");
    line(&t, "  %%grid = gpu.grid_dim x");
    line(&t, "  %%first = arith.divui %%block, %%cCluster : index");
    line(&t, "  %%step = arith.divui %%grid, %%cCluster : index");
  } else {
    line(&t, "  %%first = gpu.block_id x");
    line(&t, "  %%step = gpu.grid_dim x");
  }
  // The loops' values come from here, not from the consumers' region: the producer's loop
  // is a clone of the consumers'.
  line(&t, "  %%gxy = arith.muli %%gx, %%gy : index");
  line(&t, "  %%total = arith.muli %%gxy, %%gz : index");
  line(&t, "  %%cP = arith.constant %d : index", PANEL_ROWS);  // the dense walk's panels
  line(&t, "  %%pgx = arith.muli %%cP, %%gx : index");
  // Each role's count of K tiles (the ring's phase), the producer's first; lower_roles
  // moves them into the entry block, where LLVM's SROA takes them into registers: inside
  // the roles' branches one stayed in 8 bytes of local memory (split-K kernels).
  for (int role = 0; role < 2; ++role) {
    line(&t, "  %%iter%d = memref.alloca() : %s", role, counters_type(k));
    line(&t, "  memref.store %%c0, %%iter%d[%%c0] : %s", role, counters_type(k));
    if (k->pingpong) line(&t, "  memref.store %%c0, %%iter%d[%%c1] : %s", role, counters_type(k));
  }
  for (int role = 0; role < 2; ++role) {
    if (role == ROLE_PRODUCER) {
      line(&t, "  scf.if %%isprod {");
      line(&t, "    nvvm.setmaxregister decrease %d", PRODUCER_REGISTERS);
    } else {
      line(&t, "  } else {");
      line(&t, "    nvvm.setmaxregister increase %d", CONSUMER_REGISTERS);
    }
    if (dense) emit_dense_walk(&t, ends_type);
    else emit_strided_walk(&t);
  }
  line(&t, "  }");
  // No CTA of a 256-row tile's cluster leaves while the peer may still arrive on its
  // barriers (its consumers' last releases).
  if (k->cluster_m > 1) emit_cluster_sync(&t, "  ", 1);
  line(&t, "  return %%iter0, %%iter1 : %s, %s", counters_type(k), counters_type(k));
  line(&t, "}");
  MlirValue args[5] = {tid, extents[0], extents[1], extents[2], ends};
  bool ok = !t.failed &&
            gg_inline_template(before, gg_text_str(&t), args, dense ? 5 : 4, counters, 2);
  gg_text_free(&t);
  return ok;
}

// The first op named `name` in region `r` of op (its first block), or null.
static MlirOperation op_in_region(MlirOperation op, intptr_t r, const char* name) {
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
  for (MlirOperation o = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    if (gg_op_is(o, name)) return o;
  return (MlirOperation){NULL};
}

// The body of a role's loop over the CTA's tiles: scf.for's, or scf.while's "do" region.
static MlirBlock role_loop_body(MlirOperation loop) {
  intptr_t region = gg_op_is(loop, "scf.while") ? 1 : 0;
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, region));
}

// The kernel's body from `first_body` to its end (the grid's body, on the block ids
// `ids`) becomes the body of each role's loop over the CTA's tiles, with that role's
// share of the tile in place of the tile-level ops.
static bool lower_roles(MlirOperation kernel, const nvvm_kernel* k, MlirValue tid, MlirValue dsmem,
                        MlirValue ends, MlirOperation first_body, const MlirValue extents[3],
                        const MlirValue ids[3]) {
  tile_ops ops;
  if (!find_tile_ops(kernel, &ops)) return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  MlirValue prologue_args[4] = {mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1),
                                mlirBlockGetArgument(body, 2), tid};
  MlirValue bar, counters[2];
  if (!lower_prologue(first_body, k, !mlirOperationIsNull(ops.load_a), prologue_args, &bar) ||
      !lower_role_loops(first_body, k, extents, tid, ends, counters))
    return false;
  // The roles' scf.if: the last before the grid's body (a cluster's closing barrier may
  // follow it).
  MlirOperation split = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationEqual(op, first_body);
       op = mlirOperationGetNextInBlock(op))
    if (gg_op_is(op, "scf.if")) split = op;
  const char* loop_name = walks_dense(k) ? "scf.while" : "scf.for";
  MlirOperation loops[2];
  for (int role = 0; role < 2; ++role) loops[role] = op_in_region(split, role, loop_name);
  // The roles' counters first in the function (the producer's first), before any scf op
  // becomes a branch: LLVM's SROA promotes only the entry block's allocas.
  for (int role = 1; role >= 0; --role)
    mlirOperationMoveBefore(mlirOpResultGetOwner(counters[role]), mlirBlockGetFirstOperation(body));
  // The grid's body into the consumers' loop, after the tile's ids (the loop body's last
  // three ops), on them.
  MlirBlock loop_body = role_loop_body(loops[ROLE_CONSUMER]);
  MlirOperation loop_end = mlirBlockGetTerminator(loop_body);
  MlirOperation ret = mlirBlockGetTerminator(body);
  MlirOperation v_ops[3] = {{NULL}, {NULL}, {NULL}};
  for (MlirOperation op = mlirBlockGetFirstOperation(loop_body); !mlirOperationEqual(op, loop_end);
       op = mlirOperationGetNextInBlock(op)) {
    v_ops[0] = v_ops[1];
    v_ops[1] = v_ops[2];
    v_ops[2] = op;
  }
  for (MlirOperation op = first_body; !mlirOperationEqual(op, ret);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, loop_end);
    op = next;
  }
  for (int i = 0; i < 3; ++i) mlirValueReplaceAllUsesOfWith(ids[i], mlirOperationGetResult(v_ops[i], 0));
  // The producer's loop: the same body, cloned.
  MlirOperation producer = mlirOperationClone(loops[ROLE_CONSUMER]);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(loops[ROLE_PRODUCER]),
                                      loops[ROLE_PRODUCER], producer);
  mlirOperationDestroy(loops[ROLE_PRODUCER]);
  loops[ROLE_PRODUCER] = producer;
  for (int role = 0; role < 2; ++role) {
    MlirValue shared[4] = {dsmem, tid, bar, counters[role]};
    if (!lower_tile(kernel, loops[role], k, shared, (tile_role)role)) return false;
  }
  return true;
}

static bool to_kernel(MlirOperation func, const void* options) {
  (void)options;
  MlirOperation grid;
  if (!gg_find_grid(func, PASS, &grid)) return false;
  if (mlirOperationIsNull(grid)) return true;
  nvvm_kernel k;
  memset(&k, 0, sizeof k);
  if (!kernel_of(grid, &k)) return false;

  char fname[256];
  MlirStringRef sym_name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(func, gg_str("sym_name")));
  snprintf(fname, sizeof fname, "%.*s", (int)sym_name.length, sym_name.data);
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t argc = mlirBlockGetNumArguments(entry);
  gg_op_list ends_ops = {0};
  gg_collect_ops(func, GG_OP_GROUP_ENDS, &ends_ops);
  size_t ends_count = ends_ops.count;
  MlirOperation ends_op = ends_count ? ends_ops.ops[0] : (MlirOperation){NULL};
  gg_op_list_free(&ends_ops);
  if (ends_count > 1) {
    gg_emit_error(func, PASS ": one gg.group_ends per function");
    return false;
  }
  char descriptor[512] = "";
  gg_attr_string(grid, "descriptor", descriptor, sizeof descriptor);

  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t, "gpu.module @%s_module {\n", fname);
  gg_text_printf(&t, "  memref.global \"public\" @gg_dsmem : memref<0xi8, " WORKGROUP "> {alignment = 1024 : i64}\n");
  if (descriptor[0])
    gg_text_printf(&t,
                   "  llvm.mlir.global external constant @%s_gg_descriptor(\"%s\\00\") "
                   "{addr_space = 4 : i32} : !llvm.array<%d x i8>\n",
                   fname, descriptor, (int)strlen(descriptor) + 1);
  gg_text_printf(&t, "  gpu.func @%s(%%tma_a: !llvm.ptr, %%tma_b: !llvm.ptr, %%tma_af: !llvm.ptr", fname);
  for (intptr_t i = 0; i < argc; ++i) {
    gg_text_printf(&t, ", %%arg%d: ", (int)i);
    gg_text_type(&t, mlirValueGetType(mlirBlockGetArgument(entry, i)));
  }
  gg_text_printf(&t, ")");
  gg_text_printf(&t, " kernel attributes {");
  int cluster = gg_sm90_cluster_ctas(&k.desc);
  if (cluster > 1) gg_text_printf(&t, "nvvm.cluster_dim = array<i32: %d, 1, 1>, ", cluster);
  gg_text_printf(&t,
                 "nvvm.maxntid = array<i32: %d, 1, 1>, nvvm.minctasm = 1 : i32, "
                 "gg.tensor_maps = %d : i64} {\n"
                 "    %%tid = gpu.thread_id x\n    %%bx = gpu.block_id x\n"
                 "    %%by = gpu.block_id y\n    %%bz = gpu.block_id z\n"
                 "    %%dsmem = memref.get_global @gg_dsmem : memref<0xi8, " WORKGROUP ">\n"
                 "    gpu.return\n  }\n}\n",
                 GG_SM90_THREADS, GG_SM90_TENSOR_MAPS);
  MlirOperation kernel = gg_insert_kernel_skeleton(func, t.failed ? NULL : gg_text_str(&t));
  gg_text_free(&t);
  if (mlirOperationIsNull(kernel)) return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  MlirOperation tid_op = mlirBlockGetFirstOperation(body);
  MlirValue tid = mlirOperationGetResult(tid_op, 0);
  // The skeleton: the thread id, the three block ids, the shared memory.
  MlirValue ids[3];
  MlirOperation id_op = tid_op;
  for (int i = 0; i < 3; ++i) {
    id_op = mlirOperationGetNextInBlock(id_op);
    ids[i] = mlirOperationGetResult(id_op, 0);
  }
  MlirOperation dsmem_op = mlirOperationGetNextInBlock(id_op);
  MlirValue dsmem = mlirOperationGetResult(dsmem_op, 0);
  intptr_t first_arg = GG_SM90_TENSOR_MAPS;
  MlirValue extents[3];
  for (int i = 0; i < 3; ++i) {
    extents[i] = mlirOperationGetOperand(grid, i);
    if (mlirValueIsABlockArgument(extents[i])) {  // the tiler computes them
      gg_emit_error(grid, PASS ": a grid extent is a function argument");
      return false;
    }
  }
  gg_move_grid_into_kernel(func, grid, kernel, first_arg);
  MlirOperation first_body = mlirOperationGetNextInBlock(dsmem_op);
  // The ends are computed after the thread id exists: move the op behind the memory's
  // defining ops (the prologue landed before the thread id).
  MlirValue ends = {NULL};
  if (!mlirOperationIsNull(ends_op)) {
    mlirOperationMoveAfter(ends_op, dsmem_op);
    if (!lower_group_ends(ends_op, &k, tid, dsmem, &ends)) return false;
  }
  return lower_roles(kernel, &k, tid, dsmem, ends, first_body, extents, ids);
}

static bool run(MlirOperation module, const void* options) {
  return gg_lower_funcs_to_kernels(module, to_kernel, options);
}

const gg_pass_info gg_to_nvvm_pass = {
    .argument = "gg-to-nvvm",
    .summary = "Lower tile-level gg IR to an sm_90a gpu.module kernel: TMA ring, mbarriers, FP8 wgmma",
    .anchor = "builtin.module",
    .run = run,
};
