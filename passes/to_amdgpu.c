// gg-to-amdgpu{chip=gfx942|gfx950}: lowers tile-level gg IR to a gpu.module kernel for AMD
// matrix cores. One workgroup of 256 threads (4 waves of 64) computes one tile.
//
// - Waves form a grid over the tile (gg_amd_waves_m: 2x2 with plain B, 1x4 with
//   preshuffled B and 256x256 tiles): wave (m, n) owns rows [m TM/wm, (m+1) TM/wm) and
//   columns [n TN/wn, (n+1) TN/wn). A lane holds m_repeat x n_acc accumulators of a
//   16x16 MFMA (4 f32 each, row 4 (lane/16) + r, column lane % 16 of its block).
// - A and B tiles are loaded global -> registers with buffer loads (16 bytes per thread and
//   chunk, from a view at the tile's first row with the K step as the uniform soffset;
//   out-of-range lanes are given an offset past the buffer, which reads zero), then
//   stored to LDS with an XOR swizzle of the 16-byte chunks (per chip, emit_swizzle) so
//   the MFMA-order reads of 16 rows at one K hit different banks (docs/amd-model.md).
// - The K loop, per tile: its MFMAs in the order of amdgpu_stream.c, fenced one by one so
//   that LLVM keeps what goes between them: fragment reads a few MFMAs ahead of their use,
//   blockwise scaling a few behind. With one LDS buffer the tile stages itself first
//   (registers -> LDS, barrier) and the next tile's loads follow into the registers it
//   freed; with two (where they fit, gg_amd_lds_buffers) it stages the next tile
//   into the other buffer during its MFMAs, each LDS write followed by the load of the tile
//   after that into the same registers (gg-k-loop runs the loads two tiles ahead), so each
//   load has a tile's MFMAs to land and one barrier ends the tile. The next tile's
//   blockwise scales load at the end of the body. Large rowwise accumulators live in AGPRs.
// - MFMA: 16x16x128 with OCP e4m3fn on gfx950, 16x16x32 with e4m3fnuz on gfx942.
// - Epilogue: rowwise scales applied in registers, bf16 conversion, a shuffle through LDS
//   (reusing the K loop's LDS) into 16-byte stores predicated on the group's rows and on
//   the last column of each store; a store that straddles the group's column end is
//   written element by element.
// - A K chunk that straddles the group's K range (2D-2D group K not a multiple of 16) is
//   masked per byte in that chunk only.
// - Preshuffled B (load_tile operand "b_preshuffled") is loaded global -> registers already
//   in MFMA operand order: lane (n, kl) reads its 16 K bytes of a 16x64 fragment with one
//   load, and B never touches LDS. A alone is staged, in two LDS buffers used alternately
//   (gg.lds_buffer on each mma, from gg-k-loop): a tile's staging cannot overwrite the
//   buffer the previous tile's MFMAs read, so one barrier per tile suffices. On gfx942 the
//   16x16x32 steps take K in the fragment's order (lane group lg holds K 16 lg + [0, 16)
//   of each 64, low half for even steps, high half for odd ones); A follows the same K
//   permutation, which leaves every sum, and every 128-wide scale block, unchanged.
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "dialect/dialect.h"
#include "gg/op.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "passes/amdgpu_stream.h"
#include "passes/gpu_kernel.h"
#include "passes/group_ends.h"
#include "passes/pass.h"
#include "passes/tile_lowering.h"

typedef struct amdgpu_options {
  gg_target chip;
} amdgpu_options;

static gg_status parse_options(const char* text, void* out) {
  amdgpu_options* options = out;
  options->chip = GG_TARGET_GFX950;
  gg_option option;
  gg_status status = GG_OK;
  while (gg_option_next(&text, &option, &status)) {
    if (strcmp(option.key, "chip") != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "unknown option '%s' (chip=gfx942|gfx950)",
                            option.key);
    int target = gg_target_from_name(option.value);
    if (target != GG_TARGET_GFX942 && target != GG_TARGET_GFX950)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "chip must be gfx942 or gfx950, not '%s'",
                            option.value);
    options->chip = (gg_target)target;
  }
  return status;
}

// The kernel's shape, fixed by the tile and the chip.
typedef struct kernel_shape {
  gg_target chip;
  int tm, tn, tk;
  int waves_n;       // waves along N (GG_AMD_WAVES / gg_amd_waves_m)
  int m_per_wave;    // rows per wave
  int m_repeat;      // 16-row MFMA blocks per wave
  int n_per_wave;    // columns per wave
  int n_acc;         // 16-column MFMA blocks per wave
  int mma_k;         // K per MFMA: 128 (gfx950) or 32 (gfx942)
  const char* f8;    // MFMA operand element type
  bool preshuffled;  // B in registers (never in LDS), A in two alternating LDS buffers
  bool b_shuffled;   // B is preshuffled in memory: with dma, its chunks are found there
  int lds_buffers;   // LDS buffers the tiles alternate between (gg_amd_lds_buffers)
  long long stage_bytes;  // one buffer: A, B unless in registers, then blockwise scales
  int scale_blocks;  // blockwise: 128-wide K blocks per tile, whose scales are staged too
  bool ws_per_column_block;  // a wave's columns may span two w_scale blocks (n_offsets)
  bool scale_products;  // blockwise: products x_scale w_scale staged (gg_amd_scale_products)
  bool stage_ahead;  // plain B in two buffers: a tile is staged during the previous one
  bool staged_next;  // walk state: the mma just lowered staged the next tile
  bool dma_carried;  // walk state (dma): the mma just lowered read the next tile's first fragments
  bool acc_in_agprs; // the accumulators live in AGPRs (amdgpu-agpr-alloc)
  bool dma;          // A and B load straight into LDS, three allocations (gg_amd_lds_dma),
                     // B from either layout into plain B's LDS places
  gg_op_desc desc;
  MlirValue tid;     // gpu.thread_id x (index)
  MlirValue wave;    // with dma: the thread's wave, wave-uniform (gpu.subgroup_broadcast)
  MlirValue lds[3];  // the workgroup's LDS allocations, memref<Nxi8, workgroup>: one, or
                     // with dma one per buffer (the epilogue uses the first)
  char lds_type[96];
} kernel_shape;

#define THREADS 256
// Element offsets that put a lane past any buffer view (emit_view caps views at them): its
// load reads zero and its store is dropped. Per element size, so the byte offset stays
// within 31 bits; gg_amd_addressing_check refuses spans that would reach them.
#define OOB_INDEX(element_bytes) ((int)(GG_AMD_VIEW_BYTES / (element_bytes)))

// Common template preamble: lane decomposition of %tid, and the wave's place in the tile:
// waves form a gg_amd_waves_m x waves_n grid, wave w covering rows [%wrow, %wrow +
// m_per_wave) and columns [%wcol, %wcol + n_per_wave).
static void emit_lane(gg_text* t, const kernel_shape* k) {
  gg_text_printf(t,
                 "  %%true = arith.constant true\n"
                 "  %%c16 = arith.constant 16 : index\n  %%c64 = arith.constant 64 : index\n"
                 "  %%lane = arith.remui %%tid, %%c64 : index\n"
                 "  %%wave = arith.divui %%tid, %%c64 : index\n"
                 "  %%l16 = arith.remui %%lane, %%c16 : index\n"
                 "  %%lg = arith.divui %%lane, %%c16 : index\n"
                 "  %%cwn = arith.constant %d : index\n"
                 "  %%cmpw = arith.constant %d : index\n"
                 "  %%cnpw = arith.constant %d : index\n"
                 "  %%wave_m = arith.divui %%wave, %%cwn : index\n"
                 "  %%wave_n = arith.remui %%wave, %%cwn : index\n"
                 "  %%wrow = arith.muli %%wave_m, %%cmpw : index\n"
                 "  %%wcol = arith.muli %%wave_n, %%cnpw : index\n",
                 k->waves_n, k->m_per_wave, k->n_per_wave);
}

// "%name = arith.constant v : index"
static void emit_index(gg_text* t, const char* name, long long v) {
  gg_text_printf(t, "  %%%s = arith.constant %lld : index\n", name, v);
}

// Appends printf-style text in which every '@' (in the format or in its arguments) is then
// replaced by `tag`, so the SSA names of each unrolled copy of a pattern are unique without
// threading the copy's index through every name.
static void emit_tagged(gg_text* t, const char* tag, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
static void emit_tagged(gg_text* t, const char* tag, const char* format, ...) {
  gg_text formatted;
  gg_text_init(&formatted);
  va_list args;
  va_start(args, format);
  gg_text_vprintf(&formatted, format, args);
  va_end(args);
  if (formatted.failed) t->failed = true;
  for (const char* p = gg_text_str(&formatted); *p; ++p) {
    if (*p == '@') gg_text_printf(t, "%s", tag);
    else gg_text_append(t, p, 1);
  }
  gg_text_free(&formatted);
}

// Collapses a memref argument %<arg> to 1-D %<arg>1 for buffer addressing.
static void emit_flat(gg_text* t, const char* arg, MlirType type) {
  intptr_t rank = mlirShapedTypeGetRank(type);
  gg_text elem;
  gg_text_init(&elem);
  gg_text_type(&elem, mlirShapedTypeGetElementType(type));
  int64_t size = 1;
  int dynamic = 0;
  for (intptr_t i = 0; i < rank; ++i) {
    int64_t d = mlirShapedTypeGetDimSize(type, i);
    if (mlirShapedTypeIsDynamicSize(d)) dynamic = 1;
    else size *= d;
  }
  char flat[128];
  if (dynamic) snprintf(flat, sizeof flat, "memref<?x%s>", gg_text_str(&elem));
  else snprintf(flat, sizeof flat, "memref<%lldx%s>", (long long)size, gg_text_str(&elem));
  if (rank == 1) {
    gg_text_printf(t, "  %%%s1 = memref.cast %%%s : ", arg, arg);
    gg_text_type(t, type);
    gg_text_printf(t, " to %s\n", flat);
  } else {
    gg_text_printf(t, "  %%%s1 = memref.collapse_shape %%%s [[", arg, arg);
    for (intptr_t i = 0; i < rank; ++i) gg_text_printf(t, "%s%d", i ? ", " : "", (int)i);
    gg_text_printf(t, "]] : ");
    gg_text_type(t, type);
    gg_text_printf(t, " into %s\n", flat);
  }
  gg_text_free(&elem);
}

// The memref type of an emit_view view over a flat memref type ("memref<?xT>" or
// "memref<NxT>"): "memref<?xT, strided<[1], offset: ?>>".
static void view_type(char* buffer, size_t size, const char* flat) {
  const char* x = strchr(flat, 'x');  // after the size; T ends before the closing '>'
  snprintf(buffer, size, "memref<?x%.*s, strided<[1], offset: ?>>",
           x ? (int)(strlen(x + 1) - 1) : 0, x ? x + 1 : "");
}

// Emits %<view>, a buffer over %<arg>1 (emit_flat's, of type `flat`) that starts at
// element %<base>, a 64-bit index uniform across the workgroup: its descriptor's 64-bit
// base address is the operand's plus %base elements, and its size what remains of the
// operand, capped at OOB_INDEX elements so that offset OOB_INDEX reads zero. Accesses take
// 32-bit offsets relative to %base: an operand of any size is addressable while each op's
// span from its base fits 2^31 bytes (gg_amd_addressing_check refuses the rest), where one
// descriptor over the whole operand would wrap its 32-bit offsets and size past 4 GiB.
static void emit_view(gg_text* t, const char* view, const char* arg, const char* base,
                      const char* flat, int element_bytes) {
  char type[192];
  view_type(type, sizeof type, flat);
  gg_text_printf(t,
                 "  %%%s_c0 = arith.constant 0 : index\n"
                 "  %%%s_n = memref.dim %%%s1, %%%s_c0 : %s\n"
                 "  %%%s_b = arith.minsi %s, %%%s_n : index\n"
                 "  %%%s_r = arith.subi %%%s_n, %%%s_b : index\n"
                 "  %%%s_cap = arith.constant %d : index\n"
                 "  %%%s_len = arith.minsi %%%s_r, %%%s_cap : index\n"
                 "  %%%s = memref.reinterpret_cast %%%s1 to offset: [%%%s_b], sizes: [%%%s_len], "
                 "strides: [1] : %s to %s\n",
                 view, view, arg, view, flat, view, base, view, view, view, view, view,
                 OOB_INDEX(element_bytes), view, view, view, view, arg, view, view, flat, type);
}

static void flat_type(char* buffer, size_t size, MlirType type) {
  gg_text elem;
  gg_text_init(&elem);
  gg_text_type(&elem, mlirShapedTypeGetElementType(type));
  int dynamic = 0;
  int64_t n = 1;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(type); ++i) {
    int64_t d = mlirShapedTypeGetDimSize(type, i);
    if (mlirShapedTypeIsDynamicSize(d)) dynamic = 1;
    else n *= d;
  }
  if (dynamic) snprintf(buffer, size, "memref<?x%s>", gg_text_str(&elem));
  else snprintf(buffer, size, "memref<%lldx%s>", (long long)n, gg_text_str(&elem));
  gg_text_free(&elem);
}

// ---------------------------------------------------------------------------------------
// gg.load_tile: global -> registers, vector<chunks x 16 x i8> per thread. Chunk c of thread
// t is 16-byte chunk q = c 256 + t of the tile, row-major.

static bool lower_load_preshuffled(gg_tile_lowering* l, MlirOperation op);
static bool lower_load_tile_dma(gg_tile_lowering* l, MlirOperation op, bool is_a);

// What both lowerings of a plain gg.load_tile read off it: its source, the tile's rows and
// K, the source's row bytes (its K), the chunks a thread moves, the masks, the source's
// flat and view types, and its FP8 element type (f8, which tile_load_free frees).
typedef struct tile_load {
  MlirValue src;
  MlirType src_type;
  long long rows, tk, row_bytes, chunks;
  bool mask_rows, mask_k;
  char flat[128], view[192];
  gg_text f8;
} tile_load;

static void tile_load_read(MlirOperation op, tile_load* out) {
  out->src = mlirOperationGetOperand(op, 0);
  out->src_type = mlirValueGetType(out->src);
  MlirType tile_type = mlirValueGetType(mlirOperationGetResult(op, 0));
  out->rows = mlirShapedTypeGetDimSize(tile_type, 0);
  out->tk = mlirShapedTypeGetDimSize(tile_type, 1);
  out->row_bytes = mlirShapedTypeGetDimSize(out->src_type, 1);
  out->chunks = out->rows * out->tk / (16 * THREADS);
  out->mask_rows = out->mask_k = true;
  gg_attr_bool(op, "mask_rows", &out->mask_rows);
  gg_attr_bool(op, "mask_k", &out->mask_k);
  flat_type(out->flat, sizeof out->flat, out->src_type);
  view_type(out->view, sizeof out->view, out->flat);
  gg_text_init(&out->f8);
  gg_text_type(&out->f8, mlirShapedTypeGetElementType(out->src_type));
}

static void tile_load_free(tile_load* load) { gg_text_free(&load->f8); }

// Opens the template of a tile load: @load(%src, %row0, %row_limit, %k0, %k_lo, %k_hi,
// %tid, then `more`) returning the thread's chunks, with %src_flat (emit_flat) and %rowb.
static void emit_load_header(gg_text* t, const tile_load* load, const char* more) {
  gg_text_printf(t, "func.func @load(%%src: ");
  gg_text_type(t, load->src_type);
  gg_text_printf(t,
                 ", %%row0: index, %%row_limit: index, %%k0: index, %%k_lo: index, %%k_hi: index, "
                 "%%tid: index%s) -> vector<%lldx4xi32> {\n",
                 more, load->chunks);
  emit_flat(t, "src", load->src_type);
  emit_index(t, "rowb", load->row_bytes);
}

static bool lower_load_tile(gg_tile_lowering* l, MlirOperation op) {
  kernel_shape* k = l->state;
  char operand[32] = "a";
  gg_attr_string(op, "operand", operand, sizeof operand);
  if (k->preshuffled && !strcmp(operand, "b_preshuffled")) return lower_load_preshuffled(l, op);
  if (k->dma) return lower_load_tile_dma(l, op, !strcmp(operand, "a"));
  tile_load load;
  tile_load_read(op, &load);
  MlirValue src = load.src;
  long long tk = load.tk, chunks = load.chunks;
  bool mask_rows = load.mask_rows, mask_k = load.mask_k;
  const char* flat = load.flat;
  const char* view = load.view;
  const char* f8s = gg_text_str(&load.f8);

  gg_text t;
  gg_text_init(&t);
  emit_load_header(&t, &load, "");
  emit_index(&t, "cpr", tk / 16);
  // The view starts at the tile's first row, so it and the lanes' offsets are the same
  // for every K step of a row of tiles (hoisted out of the K loop); the step's K offset is
  // the uniform buffer offset (soffset).
  gg_text_printf(&t, "  %%base = arith.muli %%row0, %%rowb : index\n"
                     "  %%soff = arith.index_cast %%k0 : index to i32\n");
  emit_view(&t, "srcv", "src", "%base", flat, 1);
  emit_index(&t, "c16", 16);
  gg_text_printf(&t,
                 "  %%oob = arith.constant %d : i32\n"
                 "  %%zero16 = arith.constant dense<0> : vector<16xi8>\n"
                 "  %%iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
                 "14, 15]> : vector<16xindex>\n"
                 "  %%t_0 = arith.constant dense<0> : vector<%lldx4xi32>\n",
                 OOB_INDEX(1), chunks);
  for (long long c = 0; c < chunks; ++c) {
    char tag[48], next[48];
    snprintf(tag, sizeof tag, "_%lld", c);
    snprintf(next, sizeof next, "_%lld", c + 1);
    emit_tagged(&t, tag,
                "  %%cb@ = arith.constant %lld : index\n"
                "  %%q@ = arith.addi %%tid, %%cb@ : index\n"
                "  %%r@ = arith.divui %%q@, %%cpr : index\n"
                "  %%ch@ = arith.remui %%q@, %%cpr : index\n"
                "  %%kc@ = arith.muli %%ch@, %%c16 : index\n"
                "  %%ka@ = arith.addi %%k0, %%kc@ : index\n"
                "  %%ro@ = arith.muli %%r@, %%rowb : index\n"
                "  %%ix@ = arith.addi %%ro@, %%kc@ : index\n"
                "  %%i@ = arith.index_cast %%ix@ : index to i32\n"
                "  %%rok@ = arith.cmpi slt, %%r@, %%row_limit : index\n"
                "  %%ke@ = arith.addi %%ka@, %%c16 : index\n"
                "  %%khi@ = arith.cmpi slt, %%ka@, %%k_hi : index\n"
                "  %%klo@ = arith.cmpi sgt, %%ke@, %%k_lo : index\n"
                "  %%kany@ = arith.andi %%khi@, %%klo@ : i1\n",
                c * THREADS);
    // Out-of-range chunks get an offset past the buffer: the hardware reads zero.
    const char* ok = mask_rows && mask_k ? "%okrk@" : mask_rows ? "%rok@" : mask_k ? "%kany@" : NULL;
    if (mask_rows && mask_k) emit_tagged(&t, tag, "  %%okrk@ = arith.andi %%rok@, %%kany@ : i1\n");
    if (ok) emit_tagged(&t, tag, "  %%im@ = arith.select %s, %%i@, %%oob : i32\n", ok);
    emit_tagged(&t, tag,
                "  %%v@ = amdgpu.raw_buffer_load {gg.load = \"%s\"} %%srcv[%s] sgprOffset %%soff : %s, i32 -> vector<16x%s>\n"
                "  %%vi@ = vector.bitcast %%v@ : vector<16x%s> to vector<16xi8>\n",
                operand, ok ? "%im@" : "%i@", view, f8s, f8s);
    const char* value = "%vi@";
    if (mask_k) {  // a chunk straddling the group's K range: mask its bytes (rare)
      emit_tagged(&t, tag,
                  "  %%kin@ = arith.cmpi sge, %%ka@, %%k_lo : index\n"
                  "  %%kfit@ = arith.cmpi sle, %%ke@, %%k_hi : index\n"
                  "  %%full@ = arith.andi %%kin@, %%kfit@ : i1\n"
                  "  %%part@ = arith.cmpi ne, %%full@, %%kany@ : i1\n"
                  "  %%vm@ = scf.if %%part@ -> (vector<16xi8>) {\n"
                  "    %%kv@ = vector.broadcast %%ka@ : index to vector<16xindex>\n"
                  "    %%ks@ = arith.addi %%kv@, %%iota : vector<16xindex>\n"
                  "    %%lov@ = vector.broadcast %%k_lo : index to vector<16xindex>\n"
                  "    %%hiv@ = vector.broadcast %%k_hi : index to vector<16xindex>\n"
                  "    %%ge@ = arith.cmpi sge, %%ks@, %%lov@ : vector<16xindex>\n"
                  "    %%lt@ = arith.cmpi slt, %%ks@, %%hiv@ : vector<16xindex>\n"
                  "    %%m@ = arith.andi %%ge@, %%lt@ : vector<16xi1>\n"
                  "    %%sel@ = arith.select %%m@, %%vi@, %%zero16 : vector<16xi1>, vector<16xi8>\n"
                  "    scf.yield %%sel@ : vector<16xi8>\n"
                  "  } else {\n    scf.yield %%vi@ : vector<16xi8>\n  }\n");
      value = "%vm@";
    }
    emit_tagged(&t, tag,
                "  %%vw@ = vector.bitcast %s : vector<16xi8> to vector<4xi32>\n"
                "  %%t%s = vector.insert %%vw@, %%t@ [%lld] : vector<4xi32> into vector<%lldx4xi32>\n",
                value, next, c, chunks);
  }
  gg_text_printf(&t, "  return %%t_%lld : vector<%lldx4xi32>\n}\n", chunks, chunks);
  MlirValue args[7] = {src};
  for (int i = 1; i < 6; ++i) args[i] = mlirOperationGetOperand(op, i);
  args[6] = k->tid;
  gg_tile_replace(l, op, &t, args, 7);
  gg_text_free(&t);
  tile_load_free(&load);
  return l->ok;
}

// Where a thread keeps preshuffled B's 16 bytes of K block kb (64 wide) for its column of
// block na: ordered so that each MFMA operand is whole registers in a row (gfx950: the two
// K blocks of a 128-wide step side by side; gfx942: a step is half a chunk), so nothing is
// copied to assemble it.
static long long b_chunk(const kernel_shape* k, long long kb, int na) {
  if (k->mma_k == 128) return ((kb / 2) * k->n_acc + na) * 2 + kb % 2;
  return kb * k->n_acc + na;
}

// Preshuffled B: global -> registers in fragment order, vector<(tk/64) n_acc x 16 x i8> per
// thread; chunk b_chunk(kb, na) holds, for column wcol + 16 na + lane % 16 of the tile, the
// 16 K bytes 64 kb + 16 (lane / 16) + [0, 16) of the tile's K range: one 16-byte load from
// fragment (row / 16, k / 64), at byte 256 (lane / 16) + 16 (lane % 16) of its 1 KiB block.
// The tile is whole (the contract makes N and K multiples of the tile), so nothing is masked.
static bool lower_load_preshuffled(gg_tile_lowering* l, MlirOperation op) {
  kernel_shape* k = l->state;
  bool mask_rows = true, mask_k = true;
  gg_attr_bool(op, "mask_rows", &mask_rows);
  gg_attr_bool(op, "mask_k", &mask_k);
  if (mask_rows || mask_k) {
    gg_emit_error(op, "gg-to-amdgpu: a preshuffled B tile must be whole (N and K multiples of "
                      "the tile); gg-mask could not prove it");
    l->ok = false;
    return false;
  }
  MlirValue src = mlirOperationGetOperand(op, 0);
  MlirType src_type = mlirValueGetType(src);
  long long k_total = mlirShapedTypeGetDimSize(src_type, 1);
  long long kblocks = k->tk / 64, chunks = kblocks * k->n_acc;
  char flat[128], view[192];
  flat_type(flat, sizeof flat, src_type);
  view_type(view, sizeof view, flat);
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t, "func.func @load_b(%%src: ");
  gg_text_type(&t, src_type);
  gg_text_printf(&t, ", %%row0: index, %%k0: index, %%tid: index) -> vector<%lldx4xi32> {\n",
                 chunks);
  emit_flat(&t, "src", src_type);
  emit_lane(&t, k);
  emit_index(&t, "c256", 256);
  emit_index(&t, "c1024", 1024);
  emit_index(&t, "kfrags", k_total / 64);
  gg_text_printf(&t,
                 "  %%kf0 = arith.divui %%k0, %%c64 : index\n"
                 // The tile's first fragment (row0 is a multiple of 16); lanes go from it.
                 "  %%tn0 = arith.divui %%row0, %%c16 : index\n"
                 "  %%tfr0 = arith.muli %%tn0, %%kfrags : index\n"
                 "  %%base = arith.muli %%tfr0, %%c1024 : index\n"
                 // The K step's fragments: the uniform buffer offset, so the view and the
                 // lanes' offsets stay the same over the K loop.
                 "  %%kb0 = arith.muli %%kf0, %%c1024 : index\n"
                 "  %%soff = arith.index_cast %%kb0 : index to i32\n"
                 "  %%lane_off0 = arith.muli %%lg, %%c256 : index\n"
                 "  %%lane_off1 = arith.muli %%l16, %%c16 : index\n"
                 "  %%lane_off = arith.addi %%lane_off0, %%lane_off1 : index\n"
                 "  %%t_0 = arith.constant dense<0> : vector<%lldx4xi32>\n",
                 chunks);
  emit_view(&t, "srcv", "src", "%base", flat, 1);
  // Per column block, the offset of K block 0 from the tile's first fragment; the K blocks follow 1 KiB apart, a
  // constant the buffer load's immediate offset absorbs.
  for (int na = 0; na < k->n_acc; ++na) {
    char tag[48];
    snprintf(tag, sizeof tag, "_n%d", na);
    emit_tagged(&t, tag,
                "  %%co@ = arith.constant %d : index\n"
                "  %%col@ = arith.addi %%wcol, %%co@ : index\n"
                "  %%n0@ = arith.divui %%col@, %%c16 : index\n"
                "  %%fr@ = arith.muli %%n0@, %%kfrags : index\n"
                "  %%fb@ = arith.muli %%fr@, %%c1024 : index\n"
                "  %%base@ = arith.addi %%fb@, %%lane_off : index\n",
                na * 16);
  }
  for (long long kb = 0; kb < kblocks; ++kb)
    for (int na = 0; na < k->n_acc; ++na) {
      long long c = b_chunk(k, kb, na), order = kb * k->n_acc + na;
      char tag[48], next[48];
      snprintf(tag, sizeof tag, "_%lld", order);
      snprintf(next, sizeof next, "_%lld", order + 1);
      emit_tagged(&t, tag,
                  "  %%kbo@ = arith.constant %lld : index\n"
                  "  %%ix@ = arith.addi %%base_n%d, %%kbo@ : index\n"
                  "  %%i@ = arith.index_cast %%ix@ : index to i32\n"
                  "  %%v@ = amdgpu.raw_buffer_load {gg.load = \"b_preshuffled\"} %%srcv[%%i@] sgprOffset %%soff : %s, i32 -> vector<16x%s>\n"
                  "  %%vi@ = vector.bitcast %%v@ : vector<16x%s> to vector<4xi32>\n"
                  "  %%t%s = vector.insert %%vi@, %%t@ [%lld] : vector<4xi32> into vector<%lldx4xi32>\n",
                  kb * 1024, na, view, k->f8, k->f8, next, c, chunks);
    }
  gg_text_printf(&t, "  return %%t_%lld : vector<%lldx4xi32>\n}\n", chunks, chunks);
  MlirValue args[4] = {src, mlirOperationGetOperand(op, 1), mlirOperationGetOperand(op, 3), k->tid};
  gg_tile_replace(l, op, &t, args, 4);
  gg_text_free(&t);
  return l->ok;
}

// ---------------------------------------------------------------------------------------
// gg.load_scales: thread t loads, per 128-wide K block j of the tile, an x_scale and a
// w_scale (vector<blocks x f32> each; 0 past the tile, the group or the operand): of tile
// row t and column t, or with scale_products of row t % tm and column block t / tm. The mma
// stages them (or their product) into LDS beside the tile, where each lane reads those of
// its accumulator rows and columns when it scales a partial.

// The loads of one scale operand (`which`: "x" from %sav, "w" from %sbv) of every K
// block j into %<which>_<blocks>: element `index` of block j's slice (%s<a|b>b_j) where
// %<which>ok_j holds, else the out-of-range index, which reads 0.
static void emit_scale_loads(gg_text* t, const char* which, const char* index, const char* view,
                             long long blocks, const char* tag) {
  const char* v = which[0] == 'x' ? "a" : "b";
  for (long long j = 0; j < blocks; ++j) {
    char jt[48];
    snprintf(jt, sizeof jt, "_%lld", j);
    emit_tagged(t, jt,
                "  %%%sia@ = arith.addi %%s%sb@, %s : index\n"
                "  %%%sib@ = arith.index_cast %%%sia@ : index to i32\n"
                "  %%%si@ = arith.select %%%sok@, %%%sib@, %%oob : i32\n"
                "  %%%sv@ = amdgpu.raw_buffer_load {gg.load = \"scales\"%s} %%s%sv[%%%si@] sgprOffset "
                "%%s%soff : %s, i32 -> f32\n"
                "  %%%s_%lld = vector.insert %%%sv@, %%%s_%lld [%lld] : f32 into vector<%lldxf32>\n",
                which, v, index, which, which, which, which, which, which, tag, v, which, v, view,
                which, j + 1, which, which, j, j, blocks);
  }
}

static bool lower_load_scales(gg_tile_lowering* l, MlirOperation op) {
  kernel_shape* k = l->state;
  MlirValue sa = mlirOperationGetOperand(op, 0), sb = mlirOperationGetOperand(op, 1);
  MlirType sx_type = mlirValueGetType(mlirOperationGetResult(op, 0));
  long long blocks = mlirShapedTypeGetDimSize(sx_type, 0);
  char sa_flat[128], sb_flat[128], sa_view[192], sb_view[192];
  flat_type(sa_flat, sizeof sa_flat, mlirValueGetType(sa));
  flat_type(sb_flat, sizeof sb_flat, mlirValueGetType(sb));
  view_type(sa_view, sizeof sa_view, sa_flat);
  view_type(sb_view, sizeof sb_view, sb_flat);
  // The tile row of the thread's x_scale and the tile column whose w_scale it loads: with
  // scale_products row t % tm and the first column of block t / tm (past the tile's
  // products, none), else row t and column t.
  char row_and_column[512];
  if (k->scale_products)
    snprintf(row_and_column, sizeof row_and_column,
             "  %%ctm = arith.constant %d : index\n"
             "  %%cprod = arith.constant %lld : index\n"
             "  %%xrow0 = arith.remui %%tid, %%ctm : index\n"
             "  %%xblk = arith.divui %%tid, %%ctm : index\n"
             "  %%wcol0 = arith.muli %%xblk, %%c128 : index\n"
             "  %%inprod = arith.cmpi slt, %%tid, %%cprod : index\n"
             "  %%xrow = arith.select %%inprod, %%xrow0, %%cprod : index\n"
             "  %%wcol = arith.select %%inprod, %%wcol0, %%cprod : index\n",
             k->tm, (long long)k->tm * (k->tn > 128 ? k->tn / 128 : 1));
  else
    snprintf(row_and_column, sizeof row_and_column,
             "  %%xrow = arith.addi %%tid, %%c0 : index\n  %%wcol = arith.addi %%tid, %%c0 : index\n");
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t, "func.func @scales(%%sa: ");
  gg_text_type(&t, mlirValueGetType(sa));
  gg_text_printf(&t, ", %%sb: ");
  gg_text_type(&t, mlirValueGetType(sb));
  gg_text_printf(&t,
                 ", %%k0: index, %%k_lo: index, %%k_hi: index, %%sa_row: index, %%sa_kstride: "
                 "index, %%row_limit: index, %%sb_base: index, %%sb_col: index, %%sb_kstride: "
                 "index, %%col_limit: index, %%tid: index) -> (vector<%lldxf32>, vector<%lldxf32>) {\n",
                 blocks, blocks);
  emit_flat(&t, "sa", mlirValueGetType(sa));
  emit_flat(&t, "sb", mlirValueGetType(sb));
  emit_index(&t, "c0", 0);
  emit_index(&t, "c128", 128);
  gg_text_printf(&t,
                 "  %%oob = arith.constant %d : i32\n"
                 "  %%kbase = arith.floordivsi %%k0, %%c128 : index\n"
                 // The K step's first block: the uniform buffer offset, so the views and the
                 // lanes' offsets stay the same over the K loop.
                 "  %%sao = arith.muli %%kbase, %%sa_kstride : index\n"
                 "  %%sbo = arith.muli %%kbase, %%sb_kstride : index\n"
                 "  %%saoff = arith.index_cast %%sao : index to i32\n"
                 "  %%sboff = arith.index_cast %%sbo : index to i32\n"
                 "%s"
                 "  %%rok = arith.cmpi slt, %%xrow, %%row_limit : index\n"
                 "  %%cok = arith.cmpi slt, %%wcol, %%col_limit : index\n"
                 "  %%wg = arith.addi %%sb_col, %%wcol : index\n"
                 "  %%wn = arith.floordivsi %%wg, %%c128 : index\n"
                 "  %%x_0 = arith.constant dense<0.0> : vector<%lldxf32>\n"
                 "  %%w_0 = arith.constant dense<0.0> : vector<%lldxf32>\n",
                 OOB_INDEX(4), row_and_column, blocks, blocks);
  emit_view(&t, "sav", "sa", "%sa_row", sa_flat, 4);
  emit_view(&t, "sbv", "sb", "%sb_base", sb_flat, 4);
  // Per block: whether it meets [k_lo, k_hi) (block kb covers K [128 kb, 128 kb + 128)).
  for (long long j = 0; j < blocks; ++j) {
    char jt[48];
    snprintf(jt, sizeof jt, "_%lld", j);
    emit_tagged(&t, jt,
                "  %%j@ = arith.constant %lld : index\n"
                "  %%kb@ = arith.addi %%kbase, %%j@ : index\n"
                "  %%ks@ = arith.muli %%kb@, %%c128 : index\n"
                "  %%ke@ = arith.addi %%ks@, %%c128 : index\n"
                "  %%b1@ = arith.cmpi slt, %%ks@, %%k_hi : index\n"
                "  %%b2@ = arith.cmpi sgt, %%ke@, %%k_lo : index\n"
                "  %%bv@ = arith.andi %%b1@, %%b2@ : i1\n"
                "  %%sab@ = arith.muli %%j@, %%sa_kstride : index\n"
                "  %%sbb@ = arith.muli %%j@, %%sb_kstride : index\n"
                "  %%xok@ = arith.andi %%rok, %%bv@ : i1\n"
                "  %%wok@ = arith.andi %%cok, %%bv@ : i1\n",
                j);
  }
  // The x_scale loads of every block, then the w_scale loads, in the order the mma stages them.
  // With LDS DMA the loads say whose buffer's tile they scale, as the DMAs do
  // (collect_movable keeps a tile's loads with its DMAs).
  char tag[64] = "";
  int64_t buffer;
  if (k->dma && gg_attr_int(op, "gg.lds_buffer", &buffer))
    snprintf(tag, sizeof tag, ", gg.lds_buffer = %lld : i64", (long long)buffer);
  emit_scale_loads(&t, "x", "%xrow", sa_view, blocks, tag);
  emit_scale_loads(&t, "w", "%wn", sb_view, blocks, tag);
  gg_text_printf(&t, "  return %%x_%lld, %%w_%lld : vector<%lldxf32>, vector<%lldxf32>\n}\n", blocks,
                 blocks, blocks, blocks);
  MlirValue args[13] = {sa, sb};
  for (int i = 2; i < 12; ++i) args[i] = mlirOperationGetOperand(op, i);
  args[12] = k->tid;
  gg_tile_replace(l, op, &t, args, 13);
  gg_text_free(&t);
  return l->ok;
}

// ---------------------------------------------------------------------------------------
// gg.mma_tile / gg.mma_scaled_tile: registers -> LDS (swizzled), MFMAs from LDS.
//
// A tile's LDS buffer (gg.lds_buffer, its parity, with two buffers) holds A at its start,
// plain B after it, then blockwise scales. With one buffer an mma stages its own tile
// (registers -> LDS, a barrier), then the next tile's loads are issued into the registers
// it freed, then its MFMAs run, and a barrier ends it. With two buffers (stage_ahead) an
// mma stages the next tile into the other buffer while its MFMAs run, issues the loads of
// the tile after that into the same registers, and ends with the one barrier of the tile:
// the loads then have a whole tile's MFMAs to land (gg-k-loop issues them two tiles ahead).
// Preshuffled B is never staged: the MFMAs read it from the registers it was loaded into,
// and the loads of the tile after next take them after the tile's last MFMA.

// Rows r and r + swizzle_period(k) share their swizzle.
static int swizzle_period(const kernel_shape* k) {
  return (k->chip == GG_TARGET_GFX950 ? 2 : 1) * (k->tk / 16);
}

// The XOR swizzle of a 16-byte chunk in LDS row `row` (an SSA name; %cpr chunks a row):
// chunk c sits at c ^ swizzle(row). Fragment reads take one chunk of 16 consecutive rows;
// the swizzle spreads them over the banks. gfx942 reads 8 lanes (rows) a cycle through 32
// banks, which chunk ^ row % 8 separates; gfx950 reads 16 lanes a cycle through 64 banks,
// where rows r and r + 1 already fall in different halves, so the 8 even and the 8 odd
// rows need distinct chunks: chunk ^ (row / 2) % 8.
static void emit_swizzle(gg_text* t, const kernel_shape* k, const char* tag, const char* row,
                         const char* out) {
  if (k->chip == GG_TARGET_GFX950)
    emit_tagged(t, tag,
                "  %%%s_h@ = arith.divui %s, %%c2 : index\n"
                "  %%%s@ = arith.remui %%%s_h@, %%cpr : index\n",
                out, row, out, out);
  else
    emit_tagged(t, tag, "  %%%s@ = arith.remui %s, %%cpr : index\n", out, row);
}

// Byte offsets in LDS buffer `buffer` of a tile's A, (plain) B, and the blockwise scales of
// K block j, THREADS f32 each: with scale_products the products (thread t stages the one of
// tile row t % tm and column block t / tm, so a lane's 4 rows lie together), else x_scale of
// the tile's rows and w_scale of its columns (thread t stages row t's and column t's).
static long long a_lds_base(const kernel_shape* k, int buffer) { return buffer * k->stage_bytes; }
static long long b_lds_base(const kernel_shape* k, int buffer) {
  return buffer * k->stage_bytes + (long long)k->tm * k->tk;
}
static long long tiles_bytes(const kernel_shape* k) {
  return (long long)k->tm * k->tk + (k->preshuffled ? 0 : (long long)k->tn * k->tk);
}
static long long x_lds_base(const kernel_shape* k, int buffer, int j) {
  return buffer * k->stage_bytes + tiles_bytes(k) + 4LL * THREADS * j;
}
static long long w_lds_base(const kernel_shape* k, int buffer, int j) {
  return x_lds_base(k, buffer, k->scale_blocks) + 4LL * THREADS * j;
}

// gg.load_tile straight into LDS (k->dma, gfx950): an LDS DMA (`buffer_load_dwordx4 ...
// lds`) writes lane l's 16 bytes at a wave-uniform base + 16 l. DMA tiles lie in LDS in
// K planes (emit_fragment reads them): 16-byte chunk c of every row, row after row, then
// chunk c + 1. So a wave's DMA fills 64 rows of one plane: wave w takes row block w % hb
// (hb = rows / 64) of planes (w / hb) p + i, i < p (p = its DMAs), and lane l loads row
// 64 (w % hb) + l, whose global offset is then the same for all its DMAs but for 16 i:
// one address register an operand, and one add a DMA (LLVM cannot fold 16 i into the
// instruction's immediate offset, which moves the LDS address too). Rows past the limit
// lie past the buffer's valid bytes and land as zeros; chunks past K (only in a tile that
// masks K) take the out-of-range offset. Whole chunks only: gg_amd_lds_dma takes K a
// multiple of 16, and the K loops it applies to start at K 0, so no chunk straddles the
// group's K range. The view starts at the tile's first row and K 0, so it is the same for
// every K step (LLVM makes it once, outside the loop), and the K step goes into the
// lane's offset. The tile value it returns is zero: the mma reads the tile from LDS once
// the loads have landed (lower_mma's wait).
static bool lower_load_tile_dma(gg_tile_lowering* l, MlirOperation op, bool is_a) {
  kernel_shape* k = l->state;
  tile_load load;
  tile_load_read(op, &load);
  MlirValue src = load.src;
  long long rows = load.rows, chunks = load.chunks, hb = rows / 64;
  bool mask_rows = load.mask_rows, mask_k = load.mask_k;
  const char* flat = load.flat;
  const char* view = load.view;
  const char* f8s = gg_text_str(&load.f8);
  int64_t buffer = 0;
  gg_attr_int(op, "gg.lds_buffer", &buffer);
  long long lds_bytes = mlirShapedTypeGetDimSize(mlirValueGetType(k->lds[0]), 0);
  char fat[160], lds_f8[160];
  snprintf(fat, sizeof fat, "memref<?x%s, #amdgpu.address_space<fat_raw_buffer>>", f8s);
  snprintf(lds_f8, sizeof lds_f8, "memref<%lldx%s, #gpu.address_space<workgroup>>", lds_bytes, f8s);

  // Preshuffled B: row n's 16-byte K chunk c lies at (n / 16) 16 K + (c / 4) 1 KiB +
  // (c % 4) 256 + (n % 16) 16 (ops.md, section 7), the tile whole (no masks). A wave's
  // first plane c0p and its chunks i take offsets (c0p + i) / 4 and % 4 apart; that is
  // c0p's plus i's where c0p is a multiple of 4 or its chunks stay in one group of four.
  bool shuffled = !is_a && k->b_shuffled;
  if (shuffled && (mask_rows || mask_k || (chunks % 4 != 0 && 4 % chunks != 0))) {
    gg_emit_error(op, "gg-to-amdgpu: a preshuffled B tile loaded into LDS must be whole (N and K "
                      "multiples of the tile) and move 1, 2 or a multiple of 4 chunks a thread");
    tile_load_free(&load);
    l->ok = false;
    return false;
  }
  gg_text t;
  gg_text_init(&t);
  char more[160];
  snprintf(more, sizeof more, ", %%lds: %s, %%wave: index", k->lds_type);
  emit_load_header(&t, &load, more);
  emit_index(&t, "c16", 16);
  emit_index(&t, "c64", 64);
  emit_index(&t, "chb", hb);
  gg_text_printf(&t, "  %%base = arith.muli %%row0, %%rowb : index\n");
  emit_view(&t, "srcv", "src", "%base", flat, 1);
  long long tile_base = is_a ? a_lds_base(k, 0) : b_lds_base(k, 0);
  gg_text_printf(&t,
                 // Rows past the limit lie past the buffer's valid bytes: the row's K, 16-byte
                 // chunk offsets and all, stays under one row's bytes.
                 "  %%vbr = arith.muli %%row_limit, %%rowb : index\n"
                 "  %%vb0 = arith.minsi %%vbr, %%srcv_len : index\n"
                 "  %%vbz = arith.constant 0 : index\n"
                 "  %%vb1 = arith.maxsi %%vb0, %%vbz : index\n"
                 "  %%vb = arith.index_cast %s : index to i64\n"
                 "  %%fat = amdgpu.fat_raw_buffer_cast %%srcv validBytes(%%vb) resetOffset : %s to %s\n"
                 "  %%lds_c0 = arith.constant 0 : index\n"
                 "  %%ldsv = memref.view %%lds[%%lds_c0][] : %s to %s\n"
                 "  %%oob = arith.constant %d : index\n"
                 "  %%lane = arith.remui %%tid, %%c64 : index\n"
                 "  %%h = arith.remui %%wave, %%chb : index\n"
                 "  %%g = arith.divui %%wave, %%chb : index\n"
                 "  %%hr = arith.muli %%h, %%c64 : index\n"
                 "  %%r = arith.addi %%hr, %%lane : index\n"
                 "  %%rb = arith.muli %%r, %%rowb : index\n"
                 "  %%cpw = arith.constant %lld : index\n"
                 "  %%c0p = arith.muli %%g, %%cpw : index\n"   // the wave's first plane
                 "  %%c0b = arith.muli %%c0p, %%c16 : index\n"
                 "  %%ix = arith.addi %%rb, %%c0b : index\n"
                 "  %%ixk = arith.addi %%ix, %%k0 : index\n"
                 // LDS: plane c's rows at tile_base + c rows 16; the wave's row block h.
                 "  %%prow = arith.constant %lld : index\n"
                 "  %%dp = arith.muli %%c0p, %%prow : index\n"
                 "  %%dh = arith.constant 1024 : index\n"
                 "  %%dhh = arith.muli %%h, %%dh : index\n"
                 "  %%dtb = arith.constant %lld : index\n"
                 "  %%dw0 = arith.addi %%dp, %%dhh : index\n"
                 "  %%dw = arith.addi %%dw0, %%dtb : index\n",
                 mask_rows ? "%vb1" : "%srcv_len", view, fat, k->lds_type, lds_f8, OOB_INDEX(1),
                 chunks, rows * 16, tile_base);
  if (shuffled)
    gg_text_printf(&t,
                   "  %%s_frag = arith.constant %lld : index\n"  // 16 K: 16 rows' fragments
                   "  %%s_c4 = arith.constant 4 : index\n"
                   "  %%s_c256 = arith.constant 256 : index\n"
                   "  %%s_c1024 = arith.constant 1024 : index\n"
                   "  %%s_rq = arith.divui %%r, %%c16 : index\n"
                   "  %%s_rr = arith.remui %%r, %%c16 : index\n"
                   "  %%s_ra = arith.muli %%s_rq, %%s_frag : index\n"
                   "  %%s_rb = arith.muli %%s_rr, %%c16 : index\n"
                   "  %%s_pq = arith.divui %%c0p, %%s_c4 : index\n"
                   "  %%s_pr = arith.remui %%c0p, %%s_c4 : index\n"
                   "  %%s_pa = arith.muli %%s_pq, %%s_c1024 : index\n"
                   "  %%s_pb = arith.muli %%s_pr, %%s_c256 : index\n"
                   "  %%s_k = arith.muli %%k0, %%c16 : index\n"  // k0 / 64 fragments of 1 KiB
                   "  %%s_0 = arith.addi %%s_ra, %%s_rb : index\n"
                   "  %%s_1 = arith.addi %%s_0, %%s_pa : index\n"
                   "  %%s_2 = arith.addi %%s_1, %%s_pb : index\n"
                   "  %%ixs = arith.addi %%s_2, %%s_k : index\n",
                   16 * load.row_bytes);
  for (long long i = 0; i < chunks; ++i) {
    char tag[48];
    snprintf(tag, sizeof tag, "_%lld", i);
    emit_tagged(&t, tag,
                "  %%imm@ = arith.constant %lld : index\n"
                "  %%ia@ = arith.addi %s, %%imm@ : index\n"
                "  %%dc@ = arith.constant %lld : index\n"
                "  %%dst@ = arith.addi %%dw, %%dc@ : index\n",
                shuffled ? i / 4 * 1024 + i % 4 * 256 : 16 * i, shuffled ? "%ixs" : "%ixk",
                i * rows * 16);
    const char* index = "%ia@";
    if (mask_k) {
      // Chunk c0p + i holds K k0 + 16 (c0p + i) + [0, 16): the same for every lane.
      emit_tagged(&t, tag,
                  "  %%kci@ = arith.constant %lld : index\n"
                  "  %%kcp@ = arith.addi %%c0b, %%kci@ : index\n"
                  "  %%ka@ = arith.addi %%k0, %%kcp@ : index\n"
                  "  %%ke@ = arith.addi %%ka@, %%c16 : index\n"
                  "  %%khi@ = arith.cmpi slt, %%ka@, %%k_hi : index\n"
                  "  %%klo@ = arith.cmpi sgt, %%ke@, %%k_lo : index\n"
                  "  %%kany@ = arith.andi %%khi@, %%klo@ : i1\n"
                  "  %%im@ = arith.select %%kany@, %%ia@, %%oob : index\n",
                  16 * i);
      index = "%im@";
    }
    char line[512];
    snprintf(line, sizeof line,
             "  amdgpu.gather_to_lds %%fat[%s], %%ldsv[%%dst@] {gg.load = \"%s\", "
             "gg.lds_buffer = %lld : i64} : vector<16x%s>, %s, %s\n",
             index, is_a ? "a" : "b", (long long)buffer, f8s, fat, lds_f8);
    emit_tagged(&t, tag, "%s", line);
  }
  gg_text_printf(&t,
                 "  %%none = arith.constant dense<0> : vector<%lldx4xi32>\n"
                 "  return %%none : vector<%lldx4xi32>\n}\n",
                 chunks, chunks);
  MlirValue args[9] = {src};
  for (int i = 1; i < 6; ++i) args[i] = mlirOperationGetOperand(op, i);
  args[6] = k->tid;
  args[7] = k->lds[buffer];
  args[8] = k->wave;
  gg_tile_replace(l, op, &t, args, 9);
  gg_text_free(&t);
  tile_load_free(&load);
  return l->ok;
}

// Stores chunk c of a thread's register chunks of one operand tile (%<name>, `rows` rows)
// into LDS at `base`: chunk q = c 256 + tid (row q / chunks_per_row, chunk q %
// chunks_per_row) goes to base + row tile_k + 16 (chunk ^ swizzle(row)). `tag` names it.
// Row c 256 / chunks_per_row + tid / chunks_per_row: as for fragments (emit_fragment), what
// c adds beyond the swizzle's period goes into the address's constant, so the chunks share
// one address register and LLVM folds the rest into the write's offset.
static void emit_stage_chunk(gg_text* t, const kernel_shape* k, const char* name, long long rows,
                             long long base, long long c, const char* tag) {
  long long chunks = rows * k->tk / (16 * THREADS);
  long long row_offset = c * THREADS / (k->tk / 16), period = swizzle_period(k);
  emit_tagged(t, tag,
              "  %%ro@ = arith.constant %lld : index\n"
              "  %%r0@ = arith.divui %%tid, %%cpr : index\n"
              "  %%r@ = arith.addi %%r0@, %%ro@ : index\n"
              "  %%ch@ = arith.remui %%tid, %%cpr : index\n",
              row_offset % period);
  emit_swizzle(t, k, tag, "%r@", "sw");
  emit_tagged(t, tag,
              "  %%x@ = arith.xori %%ch@, %%sw@ : index\n"
              "  %%xb@ = arith.muli %%x@, %%c16 : index\n"
              "  %%rb@ = arith.muli %%r@, %%ctk : index\n"
              "  %%ad0@ = arith.addi %%rb@, %%xb@ : index\n"
              "  %%base@ = arith.constant %lld : index\n"
              "  %%ad@ = arith.addi %%ad0@, %%base@ : index\n"
              "  %%vw@ = vector.extract %%%s[%lld] : vector<4xi32> from vector<%lldx4xi32>\n"
              "  %%v@ = vector.bitcast %%vw@ : vector<4xi32> to vector<16xi8>\n"
              "  vector.store %%v@, %%lds[%%ad@] : %s, vector<16xi8>\n",
              base + (row_offset - row_offset % period) * k->tk, name, c, chunks, k->lds_type);
}

// The LDS writes of a tile: A's chunks, plain B's, then per K block the thread's x_scale
// and w_scale. Write w of the tile held in %<p>a, %<p>b, %<p>sx and %<p>sw (p = `prefix`)
// into LDS buffer `buffer`.
static long long tile_writes(const kernel_shape* k) {
  long long a = (long long)k->tm * k->tk / (16 * THREADS), b = (long long)k->tn * k->tk / (16 * THREADS);
  return a + (k->preshuffled ? 0 : b);
}
static long long stage_writes(const kernel_shape* k) {
  return tile_writes(k) + (k->scale_products ? 1LL : 2LL) * k->scale_blocks;
}

// What LDS write w stages: the kind of load (gg.load) whose registers it frees.
static const char* stage_write_kind(const kernel_shape* k, long long w) {
  long long a_chunks = (long long)k->tm * k->tk / (16 * THREADS);
  return w < a_chunks ? "a" : w < tile_writes(k) ? "b" : "scales";
}

static void emit_stage_write(gg_text* t, const kernel_shape* k, const char* prefix, int buffer,
                             long long w, const char* lds) {
  long long a_chunks = (long long)k->tm * k->tk / (16 * THREADS);
  char tag[48], a_name[16], b_name[16];
  snprintf(tag, sizeof tag, "_%sst%lld", prefix, w);
  snprintf(a_name, sizeof a_name, "%sa", prefix);
  snprintf(b_name, sizeof b_name, "%sb", prefix);
  if (w < a_chunks) {
    emit_stage_chunk(t, k, a_name, k->tm, a_lds_base(k, buffer), w, tag);
  } else if (w < tile_writes(k)) {
    emit_stage_chunk(t, k, b_name, k->tn, b_lds_base(k, buffer), w - a_chunks, tag);
  } else {  // a scale, or the product of block j's: thread t's f32 at t
    long long s = w - tile_writes(k);
    int j = (int)(s % k->scale_blocks), is_w = s >= k->scale_blocks;
    if (k->scale_products)
      emit_tagged(t, tag,
                  "  %%sx@ = vector.extract %%%ssx[%d] : f32 from vector<%dxf32>\n"
                  "  %%sw@ = vector.extract %%%ssw[%d] : f32 from vector<%dxf32>\n"
                  "  %%sv@ = arith.mulf %%sx@, %%sw@ : f32\n",
                  prefix, j, k->scale_blocks, prefix, j, k->scale_blocks);
    else
      emit_tagged(t, tag, "  %%sv@ = vector.extract %%%s%s[%d] : f32 from vector<%dxf32>\n", prefix,
                  is_w ? "sw" : "sx", j, k->scale_blocks);
    emit_tagged(t, tag,
                "  %%svv@ = vector.broadcast %%sv@ : f32 to vector<1xf32>\n"
                "  %%svb@ = vector.bitcast %%svv@ : vector<1xf32> to vector<4xi8>\n"
                "  %%sbase@ = arith.constant %lld : index\n"
                "  %%st4@ = arith.muli %%tid, %%c4 : index\n"
                "  %%sad@ = arith.addi %%st4@, %%sbase@ : index\n"
                "  vector.store %%svb@, %s[%%sad@] : %s, vector<4xi8>\n",
                is_w ? w_lds_base(k, buffer, j) : x_lds_base(k, buffer, j), lds, k->lds_type);
  }
}

// %f<tag>: a 16x16x128 fragment, the lane's two 16-byte reads %fr_v0<tag> and %fr_v1<tag>.
static void emit_fragment_halves(gg_text* t, const kernel_shape* k, const char* tag) {
  emit_tagged(t, tag,
              "  %%fr_cat@ = vector.shuffle %%fr_v0@, %%fr_v1@ [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, "
              "13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : "
              "vector<16xi8>, vector<16xi8>\n"
              "  %%f@ = vector.bitcast %%fr_cat@ : vector<32xi8> to vector<32x%s>\n",
              k->f8);
}

// Emits %f<tag> = the MFMA operand fragment of tile row %row<tag> + `row_offset` (a multiple
// of swizzle_period) for MFMA step `ks` from the LDS tile at byte `base` (lane layouts of
// ../shared/notes/mma-layouts.md). The offset goes into the address's constant, after the
// lane's own row and chunk, so every fragment of a wave shares one address register and
// LLVM folds the rest into the read's immediate offset. Each lane
// reads whole 16-byte chunks. gfx942's 16x16x32 steps take K in the fragment order (lane
// group lg holds K 16 lg + [0, 16) of each 64: the low half for even steps, the high half
// for odd ones, from one read made at the even step, `even_tag`), for A and B alike, which
// leaves every sum unchanged.
static void emit_fragment(gg_text* t, const kernel_shape* k, const char* tag, const char* even_tag,
                          int ks, long long base, long long row_offset, long long rows,
                          const char* lds) {
  if (k->dma) {
    // K planes (lower_load_tile_dma): chunk c of row r at base + 16 (c rows + r). A lane
    // group's 16 rows of one chunk are 256 contiguous bytes, which gfx950 reads in a cycle.
    for (int half = 0; half < 2; ++half)
      emit_tagged(t, tag,
                  "  %%fr_co%d@ = arith.constant %d : index\n"
                  "  %%fr_c%d@ = arith.addi %%lg, %%fr_co%d@ : index\n"
                  "  %%fr_pr%d@ = arith.constant %lld : index\n"
                  "  %%fr_p%d@ = arith.muli %%fr_c%d@, %%fr_pr%d@ : index\n"
                  "  %%fr_r%d@ = arith.muli %%row@, %%c16 : index\n"
                  "  %%fr_l%d@ = arith.addi %%fr_p%d@, %%fr_r%d@ : index\n"
                  "  %%fr_b%d@ = arith.constant %lld : index\n"
                  "  %%fr_a%d@ = arith.addi %%fr_l%d@, %%fr_b%d@ : index\n"
                  "  %%fr_v%d@ = vector.load %s[%%fr_a%d@] : %s, vector<16xi8>\n",
                  half, ks * 8 + half * 4, half, half, half, rows * 16, half, half, half, half,
                  half, half, half, half, base + row_offset * 16, half, half, half, half, lds,
                  half, k->lds_type);
    emit_fragment_halves(t, k, tag);
    return;
  }
  emit_swizzle(t, k, tag, "%row@", "fr_sw");
  emit_tagged(t, tag,
              "  %%fr_rb@ = arith.muli %%row@, %%ctk : index\n"
              "  %%fr_base@ = arith.constant %lld : index\n",
              base + row_offset * k->tk);
  if (k->mma_k == 128) {  // 16x16x128: K 16 lg + [0, 16) and 64 + 16 lg + [0, 16) of the step
    for (int half = 0; half < 2; ++half)
      emit_tagged(t, tag,
                  "  %%fr_co%d@ = arith.constant %d : index\n"
                  "  %%fr_c%d@ = arith.addi %%lg, %%fr_co%d@ : index\n"
                  "  %%fr_x%d@ = arith.xori %%fr_c%d@, %%fr_sw@ : index\n"
                  "  %%fr_xb%d@ = arith.muli %%fr_x%d@, %%c16 : index\n"
                  "  %%fr_l%d@ = arith.addi %%fr_rb@, %%fr_xb%d@ : index\n"
                  "  %%fr_a%d@ = arith.addi %%fr_l%d@, %%fr_base@ : index\n"
                  "  %%fr_v%d@ = vector.load %s[%%fr_a%d@] : %s, vector<16xi8>\n",
                  half, ks * 8 + half * 4, half, half, half, half, half, half, half, half, half,
                  half, half, lds, half, k->lds_type);
    emit_fragment_halves(t, k, tag);
    return;
  }
  // 16x16x32: chunk 4 (ks / 2) + lg, half ks % 2.
  if (ks % 2 == 0)
    emit_tagged(t, tag,
                "  %%fr_co@ = arith.constant %d : index\n"
                "  %%fr_c@ = arith.addi %%lg, %%fr_co@ : index\n"
                "  %%fr_x@ = arith.xori %%fr_c@, %%fr_sw@ : index\n"
                "  %%fr_xb@ = arith.muli %%fr_x@, %%c16 : index\n"
                "  %%fr_l@ = arith.addi %%fr_rb@, %%fr_xb@ : index\n"
                "  %%fr_a@ = arith.addi %%fr_l@, %%fr_base@ : index\n"
                "  %%fr_v@ = vector.load %s[%%fr_a@] : %s, vector<16xi8>\n",
                (ks / 2) * 4, lds, k->lds_type);
  int h = (ks % 2) * 8;
  char chunk[64];
  snprintf(chunk, sizeof chunk, "%%fr_v%s", ks % 2 ? even_tag : tag);
  emit_tagged(t, tag,
              "  %%fr_h@ = vector.shuffle %s, %s [%d, %d, %d, %d, %d, %d, %d, %d] : "
              "vector<16xi8>, vector<16xi8>\n"
              "  %%f@ = vector.bitcast %%fr_h@ : vector<8xi8> to vector<8x%s>\n",
              chunk, chunk, h, h + 1, h + 2, h + 3, h + 4, h + 5, h + 6, h + 7, k->f8);
}

// %f_a<s>_<mr>: A fragment of rows 16 mr + lane % 16 for step s, from the LDS tile at base.
static void emit_a_fragment(gg_text* t, const kernel_shape* k, const char* name, int s, int mr,
                            long long base, const char* lds) {
  char tag[48], even_tag[48];
  snprintf(tag, sizeof tag, "_%s%d_%d", name, s, mr);
  snprintf(even_tag, sizeof even_tag, "_%s%d_%d", name, s - s % 2, mr);
  int period = swizzle_period(k), ro = mr * 16;
  emit_tagged(t, tag,
              "  %%ro@ = arith.constant %d : index\n  %%row0@ = arith.addi %%l16, %%ro@ : index\n"
              "  %%row@ = arith.addi %%row0@, %%wrow : index\n",
              ro % period);
  emit_fragment(t, k, tag, even_tag, s, base, ro - ro % period, k->tm, lds);
}

// %f_b<s>_<na>: B fragment of the wave's columns 16 na + lane % 16 for step s: from the LDS
// tile at base, or with preshuffled B from the registers %b (chunk b_chunk(kb, na) holds K
// 64 kb + 16 lg + [0, 16) of the lane's column).
static void emit_b_fragment(gg_text* t, const kernel_shape* k, const char* name, int s, int na,
                            long long base, const char* lds) {
  char tag[48], even_tag[48];
  snprintf(tag, sizeof tag, "_%s%d_%d", name, s, na);
  snprintf(even_tag, sizeof even_tag, "_%s%d_%d", name, s - s % 2, na);
  if (!k->preshuffled) {
    int period = swizzle_period(k), co = na * 16;
    emit_tagged(t, tag,
                "  %%bco@ = arith.constant %d : index\n"
                "  %%bcol@ = arith.addi %%wcol, %%bco@ : index\n"
                "  %%row@ = arith.addi %%bcol@, %%l16 : index\n",
                co % period);
    emit_fragment(t, k, tag, even_tag, s, base, co - co % period, k->tn, lds);
    return;
  }
  long long chunks = (long long)(k->tk / 64) * k->n_acc;
  if (k->mma_k == 128) {  // step s: K blocks 2 s and 2 s + 1
    emit_tagged(t, tag,
                "  %%bv0@ = vector.extract %%b[%lld] : vector<4xi32> from vector<%lldx4xi32>\n"
                "  %%bv1@ = vector.extract %%b[%lld] : vector<4xi32> from vector<%lldx4xi32>\n"
                "  %%bcat@ = vector.shuffle %%bv0@, %%bv1@ [0, 1, 2, 3, 4, 5, 6, 7] : "
                "vector<4xi32>, vector<4xi32>\n"
                "  %%f@ = vector.bitcast %%bcat@ : vector<8xi32> to vector<32x%s>\n",
                b_chunk(k, 2 * s, na), chunks, b_chunk(k, 2 * s + 1, na), chunks, k->f8);
  } else {  // step s: half s % 2 of K block s / 2
    int h = (s % 2) * 2;
    emit_tagged(t, tag,
                "  %%bv@ = vector.extract %%b[%lld] : vector<4xi32> from vector<%lldx4xi32>\n"
                "  %%bh@ = vector.shuffle %%bv@, %%bv@ [%d, %d] : vector<4xi32>, vector<4xi32>\n"
                "  %%f@ = vector.bitcast %%bh@ : vector<2xi32> to vector<8x%s>\n",
                b_chunk(k, s / 2, na), chunks, h, h + 1, k->f8);
  }
}

// Ops a tile's staging and MFMAs may move above: they neither touch LDS nor order anything
// (address arithmetic, register shuffles, buffer views, global loads), and the gg ops the
// walk has already rewritten (erased when it ends).
static bool stage_may_pass(MlirOperation op) {
  static const char* const prefixes[] = {"arith.", "vector.insert", "vector.extract", "vector.bitcast",
                                         "vector.shuffle", "vector.broadcast", "memref.reinterpret_cast",
                                         "memref.collapse_shape", "memref.cast", "memref.dim",
                                         "memref.view", "gpu.subgroup_broadcast", "amdgpu.raw_buffer_load",
                                         "amdgpu.fat_raw_buffer_cast", "amdgpu.gather_to_lds", "gg."};
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; ++i) {
    size_t n = strlen(prefixes[i]);
    if (name.length >= n && !memcmp(name.data, prefixes[i], n)) return true;
  }
  return false;
}

// A global load whose issue the stream places (gg.load tells its kind): into registers,
// or straight into LDS.
static bool is_global_load(MlirOperation op) {
  return gg_op_is(op, "amdgpu.raw_buffer_load") || gg_op_is(op, "amdgpu.gather_to_lds");
}

// The ops between the previous tile's MFMAs (or the start of the block) and `mma` that
// none of `needed` depends on: the loads of a later tile, which go where the mma's stream
// marks (gg.loads_here), after the staging whose registers they take. In order. With
// LDS DMA only the DMAs into `buffer` (the tile after next's; -1 without DMA) move: the
// others load this tile or the next (issued in front of the first mma) and stay.
static void collect_movable(MlirOperation mma, const MlirValue* needed, int needed_count,
                            int buffer, gg_op_list* out) {
  gg_op_list range = {0}, forward = {0};
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirOperationGetBlock(mma));
       !mlirOperationEqual(op, mma); op = mlirOperationGetNextInBlock(op)) {
    if (!stage_may_pass(op)) forward.count = 0;  // the range starts after it
    else gg_op_list_push(&forward, op);
  }
  for (size_t i = forward.count; i-- > 0;) gg_op_list_push(&range, forward.ops[i]);  // backwards
  gg_op_list_free(&forward);
  gg_value_map need = {0};
  for (int i = 0; i < needed_count; ++i) gg_value_map_set(&need, needed[i], needed[i]);
  bool* keep = calloc(range.count ? range.count : 1, sizeof *keep);
  for (size_t i = 0; keep && i < range.count; ++i) {  // users come before their producers here
    MlirOperation op = range.ops[i];
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op) && !keep[i]; ++r)
      keep[i] = gg_value_map_has(&need, mlirOperationGetResult(op, r));
    int64_t into = -1;
    if (is_global_load(op) && gg_attr_int(op, "gg.lds_buffer", &into))
      keep[i] = keep[i] || into != buffer;
    if (!keep[i]) continue;
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
      MlirValue v = mlirOperationGetOperand(op, o);
      gg_value_map_set(&need, v, v);
    }
  }
  for (size_t i = range.count; keep && i-- > 0;)
    if (!keep[i]) gg_op_list_push(out, range.ops[i]);
  free(keep);
  gg_value_map_free(&need);
  gg_op_list_free(&range);
}

// Moves `ops` in front of the markers the mma's template left (ops in front of `mma` with
// gg.loads_here = the kind of load they take: "a", "b", "b_preshuffled", "scales", or "*"
// for any), which then keep only their scheduling role. The i-th global load of a kind
// (gg.load) goes in front of the i-th marker of that kind (the last takes the loads
// beyond; a kind with no marker goes to "*", or else the last marker), so that with
// staging in the stream each load follows the LDS write that frees its registers; every
// other op goes in front of the first marker after all the ops it uses, so each op still
// follows what it uses; with `late`, in front of the first marker of the ops that use it
// instead (LDS DMA: a buffer view and a load's address are made next to the load, not in
// one burst with every other load's).
#define MAX_MARKERS 128
typedef struct marker {
  MlirOperation op;
  char kind[16];
} marker;

static void string_attr(MlirOperation op, const char* name, char* out, size_t size) {
  out[0] = 0;
  MlirAttribute a = mlirOperationGetDiscardableAttributeByName(op, gg_str(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a)) return;
  MlirStringRef v = mlirStringAttrGetValue(a);
  snprintf(out, size, "%.*s", (int)v.length, v.data);
}

// The index of the marker for the index-th load of a kind.
static int marker_for(const marker* markers, int count, const char* kind, int index) {
  int found = -1, any = -1, seen = 0;
  for (int i = 0; i < count; ++i) {
    if (!strcmp(markers[i].kind, "*") && any < 0) any = i;
    if (strcmp(markers[i].kind, kind) != 0) continue;
    found = i;
    if (seen++ == index) return found;
  }
  if (found >= 0) return found;
  return any >= 0 ? any : count - 1;
}

static void move_to_markers(MlirOperation mma, const gg_op_list* ops, bool late) {
  marker markers[MAX_MARKERS];
  int count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirOperationGetBlock(mma));
       !mlirOperationEqual(op, mma) && count < MAX_MARKERS; op = mlirOperationGetNextInBlock(op)) {
    string_attr(op, "gg.loads_here", markers[count].kind, sizeof markers[count].kind);
    if (markers[count].kind[0]) markers[count++].op = op;
  }
  if (count == 0) return;
  static const char* const kinds[] = {"a", "b", "b_preshuffled", "scales"};
  int seen[sizeof kinds / sizeof kinds[0]] = {0};
  int* target = calloc(ops->count ? ops->count : 1, sizeof *target);
  for (size_t i = 0; target && i < ops->count; ++i) {
    MlirOperation op = ops->ops[i];
    int at = 0;
    for (intptr_t o = 0; o < mlirOperationGetNumOperands(op); ++o) {
      MlirValue v = mlirOperationGetOperand(op, o);
      if (!mlirValueIsAOpResult(v)) continue;
      MlirOperation owner = mlirOpResultGetOwner(v);
      for (size_t j = i; j-- > 0;)
        if (mlirOperationEqual(ops->ops[j], owner)) {
          if (target[j] > at) at = target[j];
          break;
        }
    }
    if (is_global_load(op)) {
      char kind[16];
      string_attr(op, "gg.load", kind, sizeof kind);
      size_t k = 0;
      while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k], kind) != 0) ++k;
      int m = marker_for(markers, count, kind, k < sizeof kinds / sizeof kinds[0] ? seen[k]++ : 0);
      if (m > at) at = m;
    }
    target[i] = at;
  }
  for (size_t i = ops->count; late && target && i-- > 0;) {
    MlirOperation op = ops->ops[i];
    if (is_global_load(op)) continue;
    int latest = -1;  // the earliest marker of the ops that use it (later in the list)
    for (size_t j = i + 1; j < ops->count; ++j)
      for (intptr_t o = 0; o < mlirOperationGetNumOperands(ops->ops[j]); ++o) {
        MlirValue v = mlirOperationGetOperand(ops->ops[j], o);
        if (mlirValueIsAOpResult(v) && mlirOperationEqual(mlirOpResultGetOwner(v), op) &&
            (latest < 0 || target[j] < latest))
          latest = target[j];
      }
    if (latest > target[i]) target[i] = latest;
  }
  for (size_t i = 0; target && i < ops->count; ++i)
    mlirOperationMoveBefore(ops->ops[i], markers[target[i]].op);
  free(target);
  for (int i = 0; i < count; ++i)
    mlirOperationRemoveDiscardableAttributeByName(markers[i].op, gg_str("gg.loads_here"));
}

// The operands an mma stages into LDS: its tiles (0, 1) and blockwise scales (3, 4).
static int staged_operands(MlirOperation mma, int out[4]) {
  int n = 0;
  out[n++] = 0;
  out[n++] = 1;
  if (gg_op_is(mma, GG_OP_MMA_SCALED_TILE)) {
    out[n++] = 3;
    out[n++] = 4;
  }
  return n;
}

// How an mma's operand is reached from the one before it: directly (the same block), as
// the initial value of a loop's iteration argument, or as what a loop body yields into it.
typedef enum reach { REACH_DIRECT, REACH_LOOP_INIT, REACH_YIELD } reach;

static bool reach_operand(gg_tile_lowering* l, MlirOperation target, int operand, reach how,
                          MlirOperation via, MlirValue* out) {
  MlirValue v = mlirOperationGetOperand(target, operand);
  if (how != REACH_DIRECT) {
    MlirBlock body = mlirOperationGetBlock(target);
    if (!mlirValueIsABlockArgument(v) || !mlirBlockEqual(mlirBlockArgumentGetOwner(v), body))
      return false;
    intptr_t slot = mlirBlockArgumentGetArgNumber(v) - 1;  // after the induction variable
    v = how == REACH_LOOP_INIT ? mlirOperationGetOperand(via, 3 + slot) : mlirOperationGetOperand(via, slot);
  }
  if (!gg_value_map_has(&l->values, v)) return false;
  *out = gg_value_map_get(&l->values, v);
  return true;
}

static MlirOperation first_mma(MlirBlock block) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (gg_is_mma(op)) return op;
  return (MlirOperation){NULL};
}

// The staged operands (lowered) of the mma that runs after `mma`, when they are defined
// before it: the next mma of the block; the first mma of a loop that follows in the block
// (its initial values); or, for the last mma of a loop body, what the body yields into the
// first mma's iteration arguments (the next iteration's, or after the loop the first mma's
// there). False when there is none (the last tile) or its operands come later.
static bool next_tiles(gg_tile_lowering* l, MlirOperation mma, MlirValue out[4]) {
  MlirOperation target = {NULL}, via = {NULL};
  reach how = REACH_DIRECT;
  for (MlirOperation op = mlirOperationGetNextInBlock(mma); !mlirOperationIsNull(op) && !target.ptr;
       op = mlirOperationGetNextInBlock(op)) {
    if (gg_is_mma(op)) {
      target = op;
    } else if (gg_op_is(op, "scf.for")) {
      target = first_mma(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
      how = REACH_LOOP_INIT;
      via = op;
    }
  }
  if (mlirOperationIsNull(target)) {  // the last mma of a loop body
    MlirBlock block = mlirOperationGetBlock(mma);
    MlirOperation parent = mlirBlockGetParentOperation(block);
    if (mlirOperationIsNull(parent) || !gg_op_is(parent, "scf.for")) return false;
    target = first_mma(block);
    how = REACH_YIELD;
    via = mlirBlockGetTerminator(block);
  }
  if (mlirOperationIsNull(target) || gg_op_is(target, GG_OP_MMA_SCALED_TILE) != gg_op_is(mma, GG_OP_MMA_SCALED_TILE))
    return false;
  int operands[4], n = staged_operands(target, operands);
  for (int i = 0; i < n; ++i)
    if (!reach_operand(l, target, operands[i], how, via, &out[i])) return false;
  return true;
}

// How far a fragment read stays ahead of its first MFMA (about 128 clocks of LDS latency),
// and a blockwise partial's scaling behind its last MFMA (the MFMA's result latency, which
// LLVM otherwise fills with s_nop), in clocks of MFMA issue.
#define READ_AHEAD_CLOCKS 128
#define SCALE_AFTER_CLOCKS 96

// Fragments ride from tile to tile in the accumulator vector, after its accs rows: the
// c-th of `carried` (gg_stream_carried) in rows accs + 2 c and accs + 2 c + 1, as the
// f32 bit patterns of its 32 bytes (only bitcasts, inserts and extracts touch them).
#define CARRIED_ROWS 2

// Whether a tile's first fragments may ride from the tile before it: where each tile
// stages the next (two LDS buffers), with gfx950's 32-byte fragments, and not where the
// registers are at their limit: accumulators of more than 128 registers (gfx950 256x256
// rowwise spilled 20 bytes), nor blockwise with preshuffled B, whose accumulators take
// VGPRs (the scaling FMAs read them) beside B's fragments of two tiles (gfx950 128x256:
// AGPR reloads 7 -> 18 an iteration).
static bool carry_fragments(const kernel_shape* k, bool scaled) {
  int accs = k->m_repeat * k->n_acc;
  if (k->dma) return k->mma_k == 128 && accs * 4 <= 128;
  return k->stage_ahead && k->mma_k == 128 && accs * 4 <= 128 && !(scaled && k->preshuffled);
}

// %<dst> (vector<dst_rows x 4 x f32>): the first `copy` rows of %<src> (src_rows rows), the
// rest zero. Names take `tag`.
static void emit_rows(gg_text* t, const char* src, int src_rows, int copy, const char* dst,
                      int dst_rows, const char* tag) {
  gg_text_printf(t, "  %%%s_z = arith.constant dense<0.0> : vector<%dx4xf32>\n", tag, dst_rows);
  for (int i = 0; i < copy; ++i) {
    char into[48], out[48];
    if (i) snprintf(into, sizeof into, "%%%s_%d", tag, i);
    else snprintf(into, sizeof into, "%%%s_z", tag);
    if (i + 1 == copy) snprintf(out, sizeof out, "%s", dst);
    else snprintf(out, sizeof out, "%%%s_%d", tag, i + 1);
    gg_text_printf(t,
                   "  %%%s_e%d = vector.extract %s[%d] : vector<4xf32> from vector<%dx4xf32>\n"
                   "  %s = vector.insert %%%s_e%d, %s [%d] : vector<4xf32> into vector<%dx4xf32>\n",
                   tag, i, src, i, src_rows, out, tag, i, into, i, dst_rows);
  }
}

static int carried_index(const gg_stream_item* carried, int ncarried, const gg_stream_item* it) {
  bool a = it->kind == GG_STREAM_CARRIED_A || it->kind == GG_STREAM_NEXT_A;
  for (int c = 0; c < ncarried; ++c)
    if ((carried[c].kind == GG_STREAM_READ_A) == a && carried[c].step == it->step &&
        (a ? carried[c].mr == it->mr : carried[c].na == it->na))
      return c;
  return -1;
}

// With dma: a workgroup barrier after `wait`, the operands of the memory_counter_wait in
// front of it (this wave's LDS writes, and its loads but those it may leave in flight).
// Not gpu.barrier: its release fence makes LLVM wait for every LDS DMA in flight
// (vmcnt(0)), the next tile's too; the acquire fence keeps LDS accesses on their side.
static void emit_dma_barrier(gg_text* t, const char* wait) {
  gg_text_printf(t,
                 "  amdgpu.memory_counter_wait %s\n"
                 "  rocdl.s.barrier\n"
                 "  llvm.fence syncscope(\"workgroup\") acquire\n",
                 wait);
}

// Emits one stream item (amdgpu_stream.h) of the tile in LDS buffer `buffer`; `carried`
// lists the fragments that ride in the accumulator (rows_in: the rows of %acc_in).
static void emit_item(gg_text* t, const kernel_shape* k, const gg_stream_item* it, int buffer,
                      int scaled, int steps_per_block, int* version, const char* frag,
                      const gg_stream_item* carried, int ncarried, int rows_in) {
  int accs = k->m_repeat * k->n_acc;
  switch (it->kind) {
    case GG_STREAM_BARRIER:
      gg_text_printf(t, "  amdgpu.sched_barrier allow = <none>\n  gpu.barrier\n");
      break;
    case GG_STREAM_CARRIED_A:
    case GG_STREAM_CARRIED_B: {  // %f_a<s>_<mr> / %f_b<s>_<na> from the incoming rows
      bool a = it->kind == GG_STREAM_CARRIED_A;
      int row = accs + CARRIED_ROWS * carried_index(carried, ncarried, it);
      char tag[48];
      snprintf(tag, sizeof tag, "_%s%d_%d", a ? "a" : "b", it->step, a ? it->mr : it->na);
      emit_tagged(t, tag,
                  "  %%cu_lo@ = vector.extract %%acc_in[%d] : vector<4xf32> from vector<%dx4xf32>\n"
                  "  %%cu_hi@ = vector.extract %%acc_in[%d] : vector<4xf32> from vector<%dx4xf32>\n"
                  "  %%cu_cat@ = vector.shuffle %%cu_lo@, %%cu_hi@ [0, 1, 2, 3, 4, 5, 6, 7] : "
                  "vector<4xf32>, vector<4xf32>\n"
                  "  %%f@ = vector.bitcast %%cu_cat@ : vector<8xf32> to %s\n",
                  row, rows_in, row + 1, rows_in, frag);
      break;
    }
    // The next tile's buffer: with dma an allocation of its own (%lds_next).
    case GG_STREAM_NEXT_A:
      emit_a_fragment(t, k, "na", it->step, it->mr, a_lds_base(k, k->dma ? 0 : 1 - buffer),
                      k->dma ? "%lds_next" : "%lds");
      break;
    case GG_STREAM_NEXT_B:
      emit_b_fragment(t, k, "nb", it->step, it->na, b_lds_base(k, k->dma ? 0 : 1 - buffer),
                      k->dma ? "%lds_next" : "%lds");
      break;
    case GG_STREAM_FENCE:
      gg_text_printf(t, "  amdgpu.sched_barrier allow = <none>\n");
      break;
    case GG_STREAM_LOADS:  // after LDS write `step`: the load that takes its registers
      if (k->dma) break;   // (with dma the loads have markers of their own)
      gg_text_printf(t, "  amdgpu.sched_barrier allow = <none> {gg.loads_here = \"%s\"}\n",
                     stage_write_kind(k, it->step));
      break;
    case GG_STREAM_STAGE:  // with dma only the next tile's scales stage (into its allocation)
      if (k->dma) emit_stage_write(t, k, "n", 0, tile_writes(k) + it->step, "%lds_next");
      else emit_stage_write(t, k, "n", 1 - buffer, it->step, "%lds");
      break;
    case GG_STREAM_READ_A:
      for (int s = it->step; s < it->step + (k->mma_k == 32 ? 2 : 1); ++s)
        emit_a_fragment(t, k, "a", s, it->mr, a_lds_base(k, buffer), "%lds");
      break;
    case GG_STREAM_READ_B:
      for (int s = it->step; s < it->step + (k->mma_k == 32 ? 2 : 1); ++s)
        emit_b_fragment(t, k, "b", s, it->na, b_lds_base(k, buffer), "%lds");
      break;
    case GG_STREAM_MFMA: {
      int s = it->step, i = it->mr * k->n_acc + it->na;
      if (!scaled) {
        gg_text_printf(t,
                       "  %%p_%d_%d = amdgpu.mfma 16x16x%d %%f_a%d_%d * %%f_b%d_%d + %%p_%d_%d blgp = "
                       "none : %s, %s, vector<4xf32>\n",
                       i, s + 1, k->mma_k, s, it->mr, s, it->na, i, s, frag, frag);
        break;
      }
      // Blockwise: the block's partial starts from zero.
      int j = s / steps_per_block;
      char c_in[48];
      if (s % steps_per_block == 0) snprintf(c_in, sizeof c_in, "%%z4");
      else snprintf(c_in, sizeof c_in, "%%q_%d_%d_%d", j, i, s);
      gg_text_printf(t,
                     "  %%q_%d_%d_%d = amdgpu.mfma 16x16x%d %%f_a%d_%d * %%f_b%d_%d + %s blgp = "
                     "none : %s, %s, vector<4xf32>\n",
                     j, i, s + 1, k->mma_k, s, it->mr, s, it->na, c_in, frag, frag);
      break;
    }
    case GG_STREAM_READ_XS: {  // x_scale (or the products) of the lane's 4 rows of row block mr
      int j = it->step / steps_per_block;
      char tag[48];
      snprintf(tag, sizeof tag, "_%d_%d", j, it->mr);
      if (k->scale_products)  // the wave's column block's products start at (wcol / 128) tm
        emit_tagged(t, tag,
                    "  %%xcb@ = arith.divui %%wcol, %%c128 : index\n"
                    "  %%xcr@ = arith.muli %%xcb@, %%ctm : index\n"
                    "  %%xsr@ = arith.addi %%xcr@, %%lrow : index\n");
      else
        emit_tagged(t, tag, "  %%xsr@ = arith.muli %%lrow, %%c1 : index\n");
      emit_tagged(t, tag,
                  "  %%xso@ = arith.constant %lld : index\n"
                  "  %%xsa0@ = arith.muli %%xsr@, %%c4 : index\n"
                  "  %%xsa@ = arith.addi %%xsa0@, %%xso@ : index\n"
                  "  %%xsb@ = vector.load %%lds[%%xsa@] : %s, vector<16xi8>\n"
                  "  %%xs@ = vector.bitcast %%xsb@ : vector<16xi8> to vector<4xf32>\n",
                  x_lds_base(k, buffer, j) + 4LL * 16 * it->mr, k->lds_type);
      break;
    }
    case GG_STREAM_READ_WS: {  // w_scale of the lane's column of column block na
      int j = it->step / steps_per_block;
      char tag[48];
      snprintf(tag, sizeof tag, "_%d_%d", j, it->na);
      emit_tagged(t, tag,
                  "  %%wso@ = arith.constant %lld : index\n"
                  "  %%wsc@ = arith.addi %%wcol, %%l16 : index\n"
                  "  %%wsa0@ = arith.muli %%wsc@, %%c4 : index\n"
                  "  %%wsa@ = arith.addi %%wsa0@, %%wso@ : index\n"
                  "  %%wsb@ = vector.load %%lds[%%wsa@] : %s, vector<4xi8>\n"
                  "  %%wsf@ = vector.bitcast %%wsb@ : vector<4xi8> to vector<1xf32>\n"
                  "  %%wss@ = vector.extract %%wsf@[0] : f32 from vector<1xf32>\n"
                  "  %%ws@ = vector.broadcast %%wss@ : f32 to vector<4xf32>\n",
                  w_lds_base(k, buffer, j) + 4LL * 16 * it->na, k->lds_type);
      break;
    }
    case GG_STREAM_SCALE: {
      // acc = fma(partial, x_scale[row] w_scale[col], acc), in K block order per
      // accumulator (docs/semantics.md). Where a wave's columns share one w_scale block the
      // product is the row block's for every column block (LLVM computes it once).
      int j = it->step / steps_per_block, i = it->mr * k->n_acc + it->na;
      int last = (j + 1) * steps_per_block, wna = k->ws_per_column_block ? it->na : 0;
      char tag[48];
      snprintf(tag, sizeof tag, "_%d_%d", j, i);
      char product[48];  // the products were staged, or the lane multiplies the scales
      if (k->scale_products) {
        snprintf(product, sizeof product, "%%xs_%d_%d", j, it->mr);
      } else {
        snprintf(product, sizeof product, "%%sp@");
        emit_tagged(t, tag, "  %%sp@ = arith.mulf %%xs_%d_%d, %%ws_%d_%d : vector<4xf32>\n", j,
                    it->mr, j, wna);
      }
      emit_tagged(t, tag,
                  "  %%old@ = vector.extract %%acc_%d[%d] : vector<4xf32> from vector<%dx4xf32>\n"
                  "  %%new@ = vector.fma %%q@_%d, %s, %%old@ : vector<4xf32>\n"
                  "  %%acc_%d = vector.insert %%new@, %%acc_%d [%d] : vector<4xf32> into vector<%dx4xf32>\n",
                  *version, i, accs, last, product, *version + 1, *version, i, accs);
      ++*version;
      break;
    }
  }
}

static bool lower_mma(gg_tile_lowering* l, MlirOperation op) {
  kernel_shape* k = l->state;
  int scaled = gg_op_is(op, GG_OP_MMA_SCALED_TILE);
  int accs = k->m_repeat * k->n_acc;
  long long a_chunks = (long long)k->tm * k->tk / (16 * THREADS);
  long long b_chunks = k->preshuffled ? (long long)(k->tk / 64) * k->n_acc
                                      : (long long)k->tn * k->tk / (16 * THREADS);
  int steps = k->tk / k->mma_k, steps_per_block = 128 / k->mma_k;
  int blocks = scaled ? k->tk / 128 : 1;
  int64_t parity = 0;
  if (k->lds_buffers >= 2) gg_attr_int(op, "gg.lds_buffer", &parity);
  // With dma the buffers are allocations of their own: the tile's is passed as %lds, and
  // offsets are within it.
  int buffer = k->dma ? 0 : (int)parity;
  MlirValue args[11], next[4];
  args[0] = gg_tile_lookup(l, mlirOperationGetOperand(op, 0), op);
  args[1] = gg_tile_lookup(l, mlirOperationGetOperand(op, 1), op);
  args[2] = gg_tile_lookup(l, mlirOperationGetOperand(op, 2), op);
  args[3] = k->tid;
  args[4] = k->lds[k->dma ? parity : 0];
  int argc = 5;
  if (scaled) {
    args[argc++] = gg_tile_lookup(l, mlirOperationGetOperand(op, 3), op);
    args[argc++] = gg_tile_lookup(l, mlirOperationGetOperand(op, 4), op);
  }
  if (!l->ok) return false;
  // This tile is in LDS already when the previous mma staged it; this one stages the next
  // tile when it can (stage_ahead) and it exists.
  bool own_staging = !k->staged_next;
  bool stage_next = k->stage_ahead && next_tiles(l, op, next);
  if (stage_next)
    for (int i = 0; i < (scaled ? 4 : 2); ++i) args[argc++] = next[i];
  // With dma: whether the next tile's loads were issued before this one (so that they may
  // still be in flight).
  bool next_loaded = false;
  gg_attr_bool(op, "gg.next_loaded", &next_loaded);
  char frag[48];
  snprintf(frag, sizeof frag, "vector<%dx%s>", k->mma_k == 128 ? 32 : 8, k->f8);
  int mfma_clocks = k->mma_k == 128 ? 32 : 16;
  gg_stream_shape shape = {
      .steps = steps,
      .read_span = k->mma_k == 32 ? 2 : 1,
      .m_repeat = k->m_repeat,
      .n_acc = k->n_acc,
      .block_steps = scaled ? steps_per_block : 0,
      // gfx942 256x256 (more than 128 accumulator registers) runs the two steps of a
      // 16-byte chunk together, so the chunk is live for one row block only: 0 scratch.
      .pair_steps = k->mma_k == 32 && accs * 4 > 128 ? 2 : 1,
      .read_ahead = READ_AHEAD_CLOCKS / mfma_clocks,
      .scale_after = SCALE_AFTER_CLOCKS / mfma_clocks,
      .ws_reads = k->scale_products ? 0 : k->ws_per_column_block ? k->n_acc : 1,
      .b_from_lds = !k->preshuffled,
  };
  gg_stream_item carried[GG_STREAM_MAX_CARRIED];
  int ncarried = carry_fragments(k, scaled) ? gg_stream_carried(&shape, carried, GG_STREAM_MAX_CARRIED) : 0;
  if (ncarried < 0) {
    gg_emit_error(op, "internal error: gg-to-amdgpu could not list the tile's carried fragments");
    l->ok = false;
    return false;
  }
  int barrier = -1;  // the MFMA a carrying tile's barrier precedes
  // With dma a carrying tile also stages the next tile's blockwise scales, right before
  // its barrier, which publishes them with the next tile's DMAs: LLVM makes an LDS write
  // wait for the DMAs in flight into the same allocation (the next tile's, which the
  // barrier waits for anyway), not knowing that they fill other bytes of it.
  int dma_scale_writes = k->dma ? (int)(stage_writes(k) - tile_writes(k)) : 0;
  if (ncarried > 0) {
    // Planned as a tile that stages the next: its barrier must leave each carried
    // fragment a gap of its own before the tile ends (else nothing overlaps). The same
    // for every tile of the kernel, so the tiles agree on what rides. (With dma nothing
    // is staged in the stream.)
    gg_stream_shape staging = shape;
    gg_stream_place_stage(&staging, k->dma ? 0 : (int)stage_writes(k), accs * 4 <= 128);
    barrier = gg_stream_carry_barrier(&staging);
    if (barrier < 0 || barrier + ncarried > gg_stream_mfmas(&shape)) ncarried = 0;
  }
  // A tile the previous one staged takes its first fragments from it; one that stages the
  // next reads the next one's. With dma every tile but the last reads the next one's,
  // once the barrier mid-tile has published it.
  shape.carry_in = ncarried > 0 && (k->dma ? k->dma_carried : !own_staging);
  shape.carry_out = ncarried > 0 && (k->dma ? next_loaded : stage_next);
  if (k->dma && shape.carry_out && dma_scale_writes > 0) {
    if (!next_tiles(l, op, next)) {
      gg_emit_error(op, "internal error: gg-to-amdgpu found no next tile's scales to stage");
      l->ok = false;
      return false;
    }
    args[argc++] = next[2];
    args[argc++] = next[3];
  }
  if (k->dma && shape.carry_out) args[argc++] = k->lds[(parity + 1) % 3];
  // The later tiles' loads in front of this mma that go into its stream (with dma the
  // tile after next's: collected here, so that its waits can count them).
  MlirValue needed[sizeof args / sizeof args[0] + 5];  // the template arguments and the op's operands
  int needed_count = 0;
  for (int i = 0; i < argc; ++i) needed[needed_count++] = args[i];
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    needed[needed_count++] = mlirOperationGetOperand(op, i);
  gg_op_list movable = {0};
  collect_movable(op, needed, needed_count, k->dma ? (int)(parity + 2) % 3 : -1, &movable);
  // The vector memory instructions of one tile's loads with dma, which a wait may leave
  // in flight where they were issued after those it waits for: a DMA each, and blockwise
  // at least one for the x_scales and one for the w_scales (LLVM may merge a thread's
  // loads of adjacent K blocks; counting fewer only waits for more). This tile issues
  // them (the tile after next's) if it issues any DMA.
  long long group_loads = a_chunks + b_chunks + (scaled ? 2 : 0), moved_loads = 0;
  for (size_t i = 0; i < movable.count; ++i)
    if (gg_op_is(movable.ops[i], "amdgpu.gather_to_lds")) moved_loads = group_loads;
  int rows_in = accs + (shape.carry_in ? CARRIED_ROWS * ncarried : 0);
  int rows_out = accs + (shape.carry_out ? CARRIED_ROWS * ncarried : 0);
  gg_text t;
  gg_text_init(&t);
  // Tiles ride in registers as i32 words: i8 vectors carried through the loop leave LLVM
  // casts in the loop header, which then cannot rotate (gfx950 preshuffled B moved its
  // accumulators every iteration).
  gg_text_printf(&t,
                 "func.func @mma(%%a: vector<%lldx4xi32>, %%b: vector<%lldx4xi32>, %%acc_%s: "
                 "vector<%dx4xf32>, %%tid: index, %%lds: %s",
                 a_chunks, b_chunks, shape.carry_in ? "in" : "0", rows_in, k->lds_type);
  if (scaled) gg_text_printf(&t, ", %%sx: vector<%dxf32>, %%sw: vector<%dxf32>", blocks, blocks);
  if (stage_next)
    gg_text_printf(&t, ", %%na: vector<%lldx4xi32>, %%nb: vector<%lldx4xi32>", a_chunks, b_chunks);
  bool dma_stages_next = k->dma && shape.carry_out && dma_scale_writes > 0;
  if ((stage_next || dma_stages_next) && scaled)
    gg_text_printf(&t, ", %%nsx: vector<%dxf32>, %%nsw: vector<%dxf32>", blocks, blocks);
  if (k->dma && shape.carry_out) gg_text_printf(&t, ", %%lds_next: %s", k->lds_type);
  gg_text_printf(&t, ") -> vector<%dx4xf32> {\n", rows_out);
  if (shape.carry_in) emit_rows(&t, "%acc_in", rows_in, accs, "%acc_0", accs, "cin");
  emit_lane(&t, k);
  emit_index(&t, "c2", 2);
  emit_index(&t, "c4", 4);
  emit_index(&t, "cpr", k->tk / 16);
  emit_index(&t, "ctk", k->tk);
  emit_index(&t, "c1", 1);
  emit_index(&t, "c128", 128);
  emit_index(&t, "ctm", k->tm);
  gg_text_printf(&t, "  %%lrow0 = arith.muli %%lg, %%c4 : index\n"
                     "  %%lrow = arith.addi %%lrow0, %%wrow : index\n"
                     "  %%z4 = arith.constant dense<0.0> : vector<4xf32>\n");
  // With dma the tile's A and B are in LDS once this wave's loads have landed (the wait,
  // which leaves the next tile's in flight: issued after this tile's, they land after
  // them; and before the scales' LDS writes, which LLVM would otherwise make wait for
  // every DMA into this allocation) and every wave's have (the barrier). A tile whose
  // first fragments the previous one read needs neither: that one's barrier did it.
  if (own_staging && !(k->dma && shape.carry_in)) {
    if (k->dma)
      gg_text_printf(&t, "  amdgpu.memory_counter_wait load(%lld)\n", next_loaded ? group_loads : 0);
    for (long long w = k->dma ? tile_writes(k) : 0; w < stage_writes(k); ++w)
      emit_stage_write(&t, k, "", buffer, w, "%lds");
    if (k->dma) emit_dma_barrier(&t, "ds(0)");
    else gg_text_printf(&t, "  gpu.barrier\n");
  }
  // Without staging in the stream, the next tile's loads follow this tile's staging (they
  // reuse its registers) and stay ahead of every MFMA. A fence opens the stream either
  // way: LLVM may not hoist a convergent op out of a branch's successors, so the stream's
  // first fragment reads stay in it (where a loop's body and the code after the loop both
  // begin with the same tile's reads, SimplifyCFG would otherwise hoist them into the loop
  // header, which then cannot rotate: gfx950 preshuffled B moved its accumulators every
  // iteration).
  gg_text_printf(&t, "  amdgpu.sched_barrier allow = <none>%s\n",
                 stage_next || k->dma ? "" : " {gg.loads_here = \"*\"}");
  for (int i = 0; i < accs && !scaled; ++i)
    gg_text_printf(&t, "  %%p_%d_0 = vector.extract %%acc_0[%d] : vector<4xf32> from vector<%dx4xf32>\n",
                   i, i, accs);
  int mfmas = gg_stream_mfmas(&shape);
  // Where the accumulators take more than 128 registers (AGPRs) the allocation is at its
  // limit, and writes spread from early on spill (gfx950 256x256 rowwise: 12 bytes).
  if (stage_next) gg_stream_place_stage(&shape, (int)stage_writes(k), accs * 4 <= 128);
  if (dma_stages_next) {
    shape.stage_count = dma_scale_writes;
    shape.stage_at = barrier > dma_scale_writes ? barrier - dma_scale_writes : 0;
    shape.stage_every = 1;
  }
  int capacity = 4 * mfmas + 64 + shape.stage_count + 4 * (k->m_repeat + k->n_acc) * steps;
  gg_stream_item* items = malloc((size_t)capacity * sizeof *items);
  int count = items ? gg_stream_plan(&shape, items, capacity) : -1;
  if (count < 0) {
    free(items);
    gg_text_free(&t);
    gg_op_list_free(&movable);
    gg_emit_error(op, "internal error: gg-to-amdgpu could not plan the tile's MFMA stream");
    l->ok = false;
    return false;
  }
  int version = 0;  // %acc_<n>: the accumulators after n updates (blockwise)
  // With dma the tile after next's loads (they have two tiles to land) spread evenly
  // over the MFMAs from the second, A's DMAs, then B's (each marker takes the next DMA of
  // its kind), then the rest (its blockwise scales), so that no MFMA meets more than a
  // load or two with their address adds and M0 moves; all in front of a carrying tile's
  // barrier (marker m before MFMA 1 + m (end - 1) / markers < end), whose wait leaves
  // them in flight.
  long long dma_markers = k->dma ? tile_writes(k) + 1 : 0;
  long long dma_end = shape.carry_out ? barrier : mfmas;
  int mfma_seen = 0;
  long long marked = 0;
  for (int i = 0; i < count; ++i) {
    if (items[i].kind == GG_STREAM_MFMA) {
      while (marked < dma_markers &&
             (dma_end > 1 ? 1 + marked * (dma_end - 1) / dma_markers : 0) <= mfma_seen) {
        gg_text_printf(&t, "  amdgpu.sched_barrier allow = <none> {gg.loads_here = \"%s\"}\n",
                       marked < tile_writes(k) ? stage_write_kind(k, marked) : "*");
        ++marked;
      }
      ++mfma_seen;
    }
    if (items[i].kind == GG_STREAM_BARRIER && k->dma) {
      // The next tile's DMAs have landed once only this tile's loads (of the tile after
      // next) may still be in flight; the barrier publishes them and frees this tile's
      // buffer.
      char wait[48];
      snprintf(wait, sizeof wait, "load(%lld) ds(0)", moved_loads);
      gg_text_printf(&t, "  amdgpu.sched_barrier allow = <none>\n");
      emit_dma_barrier(&t, wait);
      continue;
    }
    emit_item(&t, k, &items[i], buffer, scaled, steps_per_block, &version, frag, carried,
              ncarried, rows_in);
  }
  free(items);
  // Preshuffled B of the tile after next takes this tile's B registers, free once its last
  // MFMAs have read them: the loads go at the end (a tile's MFMAs still cover them).
  if (stage_next && k->preshuffled)
    gg_text_printf(&t, "  amdgpu.sched_barrier allow = <none> {gg.loads_here = \"b_preshuffled\"}\n");
  if (!scaled) {
    for (int i = 0; i < accs; ++i, ++version)
      gg_text_printf(&t, "  %%acc_%d = vector.insert %%p_%d_%d, %%acc_%d [%d] : vector<4xf32> into vector<%dx4xf32>\n",
                     version + 1, i, steps, version, i, accs);
  }
  // Nobody may overwrite the LDS tiles (a later staging, or the epilogue) until every wave
  // has read them, and with stage_ahead the next tile must be whole before its MFMAs.
  // Carrying out, the stream's own barrier did both.
  if (!shape.carry_out) {
    // With dma the next tile's wait and barrier come first, and the DMAs issued after
    // them go into the buffer read two tiles before: only the last tile (which the
    // epilogue's use of the first buffer follows) ends with a barrier.
    gg_text_printf(&t, "  amdgpu.sched_barrier allow = <none>\n%s",
                   k->dma && next_loaded ? "" : "  gpu.barrier\n");
    gg_text_printf(&t, "  return %%acc_%d : vector<%dx4xf32>\n}\n", version, accs);
  } else {
    char last[32];
    snprintf(last, sizeof last, "%%acc_%d", version);
    emit_rows(&t, last, accs, accs, "%cout_w", rows_out, "cw");
    for (int c = 0; c < ncarried; ++c) {  // the next tile's fragments, rows accs + 2 c
      char tag[48];
      bool a = carried[c].kind == GG_STREAM_READ_A;
      snprintf(tag, sizeof tag, "_%s%d_%d", a ? "na" : "nb", carried[c].step, a ? carried[c].mr : carried[c].na);
      int row = accs + CARRIED_ROWS * c;
      emit_tagged(&t, tag,
                  "  %%cp_v@ = vector.bitcast %%f@ : %s to vector<8xf32>\n"
                  "  %%cp_lo@ = vector.shuffle %%cp_v@, %%cp_v@ [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>\n"
                  "  %%cp_hi@ = vector.shuffle %%cp_v@, %%cp_v@ [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>\n",
                  frag);
      char into[32];  // the rows so far
      if (c) snprintf(into, sizeof into, "%%cout_%d", 2 * c - 1);
      else snprintf(into, sizeof into, "%%cout_w");
      gg_text_printf(&t, "  %%cout_%d = vector.insert %%cp_lo%s, %s [%d] : vector<4xf32> into vector<%dx4xf32>\n",
                     2 * c, tag, into, row, rows_out);
      gg_text_printf(&t, "  %%cout_%d = vector.insert %%cp_hi%s, %%cout_%d [%d] : vector<4xf32> into vector<%dx4xf32>\n",
                     2 * c + 1, tag, 2 * c, row + 1, rows_out);
    }
    gg_text_printf(&t, "  return %%cout_%d : vector<%dx4xf32>\n}\n", 2 * ncarried - 1, rows_out);
  }
  // The next tiles' loads between the previous tile and this one move to the marker.
  bool ok = gg_tile_replace(l, op, &t, args, argc);
  if (ok) move_to_markers(op, &movable, k->dma);
  gg_op_list_free(&movable);
  gg_text_free(&t);
  k->staged_next = stage_next;
  k->dma_carried = shape.carry_out;
  return ok;
}

// ---------------------------------------------------------------------------------------
// gg.epilogue: scales in registers, bf16, shuffle through LDS, wide predicated stores.

static bool lower_epilogue(gg_tile_lowering* l, MlirOperation op) {
  kernel_shape* k = l->state;
  bool mask_rows = true, mask_cols = true;
  gg_attr_bool(op, "mask_rows", &mask_rows);
  gg_attr_bool(op, "mask_cols", &mask_cols);
  char scaling[16] = "rowwise";
  gg_attr_string(op, "scaling", scaling, sizeof scaling);
  int rowwise = !strcmp(scaling, "rowwise");
  int accs = k->m_repeat * k->n_acc;
  MlirValue out = mlirOperationGetOperand(op, 1), sa = mlirOperationGetOperand(op, 2),
            sb = mlirOperationGetOperand(op, 3);
  MlirType out_type = mlirValueGetType(out);
  long long n = mlirShapedTypeGetDimSize(out_type, 1);
  // 16-byte stores need 16-byte aligned output rows.
  int ev = n % 8 == 0 ? 8 : 1;
  long long per_row = k->tn / ev, passes = (long long)k->tm * k->tn / ((long long)ev * THREADS);
  char out_flat[128], sa_flat[128], sb_flat[128];
  flat_type(out_flat, sizeof out_flat, out_type);
  flat_type(sa_flat, sizeof sa_flat, mlirValueGetType(sa));
  flat_type(sb_flat, sizeof sb_flat, mlirValueGetType(sb));
  char out_view[192], sa_view[192], sb_view[192];
  view_type(out_view, sizeof out_view, out_flat);
  view_type(sa_view, sizeof sa_view, sa_flat);
  view_type(sb_view, sizeof sb_view, sb_flat);
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t, "func.func @epilogue(%%acc: vector<%dx4xf32>, %%out: ", accs);
  gg_text_type(&t, out_type);
  gg_text_printf(&t, ", %%sa: ");
  gg_text_type(&t, mlirValueGetType(sa));
  gg_text_printf(&t, ", %%sb: ");
  gg_text_type(&t, mlirValueGetType(sb));
  gg_text_printf(&t,
                 ", %%out_row: index, %%row_limit: index, %%out_col: index, %%col_limit: index, "
                 "%%sa_row: index, %%sb_base: index, %%sb_col: index, %%tid: index, %%lds: %s) {\n",
                 k->lds_type);
  emit_flat(&t, "out", out_type);
  emit_flat(&t, "sa", mlirValueGetType(sa));
  emit_flat(&t, "sb", mlirValueGetType(sb));
  emit_lane(&t, k);
  emit_index(&t, "c2", 2);
  emit_index(&t, "c4", 4);
  emit_index(&t, "ctn", k->tn);
  emit_index(&t, "cn", n);
  emit_index(&t, "cpr", per_row);
  emit_index(&t, "cev", ev);
  gg_text_printf(&t,
                 "  %%oob4 = arith.constant %d : i32\n  %%oob2 = arith.constant %d : i32\n"
                 "  %%lrow0 = arith.muli %%lg, %%c4 : index\n"
                 "  %%lrow = arith.addi %%lrow0, %%wrow : index\n"
                 "  %%sbc = arith.addi %%sb_base, %%sb_col : index\n"
                 // The tile's first output element; stores go from it.
                 "  %%obase0 = arith.muli %%out_row, %%cn : index\n"
                 "  %%obase = arith.addi %%obase0, %%out_col : index\n",
                 OOB_INDEX(4), OOB_INDEX(2));
  emit_view(&t, "outv", "out", "%obase", out_flat, 2);
  if (rowwise) {
    emit_view(&t, "sav", "sa", "%sa_row", sa_flat, 4);
    emit_view(&t, "sbv", "sb", "%sbc", sb_flat, 4);
  }
  // The lane's accumulator rows (4 per 16-row block) and columns (one per column block),
  // with their scales (masked scale loads read 0; those outputs are never stored).
  for (int mr = 0; mr < k->m_repeat; ++mr) {
    char mt[48];
    snprintf(mt, sizeof mt, "_%d", mr);
    if (rowwise) emit_tagged(&t, mt, "  %%xs@_0 = arith.constant dense<0.0> : vector<4xf32>\n");
    for (int r = 0; r < 4; ++r) {
      char tag[48];
      snprintf(tag, sizeof tag, "_%d_%d", mr, r);
      emit_tagged(&t, tag,
                  "  %%ro@ = arith.constant %d : index\n"
                  "  %%row@ = arith.addi %%lrow, %%ro@ : index\n",
                  mr * 16 + r);
      if (!rowwise) continue;
      emit_tagged(&t, tag,
                  "  %%xib@ = arith.index_cast %%row@ : index to i32\n"
                  "  %%xok@ = arith.cmpi slt, %%row@, %%row_limit : index\n"
                  "  %%xi@ = arith.select %%xok@, %%xib@, %%oob4 : i32\n"
                  "  %%xv@ = amdgpu.raw_buffer_load %%sav[%s] : %s, i32 -> f32\n"
                  "  %%xs_%d_%d = vector.insert %%xv@, %%xs_%d_%d [%d] : f32 into vector<4xf32>\n",
                  mask_rows ? "%xi@" : "%xib@", sa_view, mr, r + 1, mr, r, r);
    }
  }
  for (int na = 0; na < k->n_acc; ++na) {
    char tag[48];
    snprintf(tag, sizeof tag, "_%d", na);
    emit_tagged(&t, tag,
                "  %%coo@ = arith.constant %d : index\n"
                "  %%coa@ = arith.addi %%wcol, %%coo@ : index\n"
                "  %%col@ = arith.addi %%coa@, %%l16 : index\n",
                na * 16);
    if (!rowwise) continue;
    emit_tagged(&t, tag,
                "  %%wib@ = arith.index_cast %%col@ : index to i32\n"
                "  %%wok@ = arith.cmpi slt, %%col@, %%col_limit : index\n"
                "  %%wi@ = arith.select %%wok@, %%wib@, %%oob4 : i32\n"
                "  %%wv@ = amdgpu.raw_buffer_load %%sbv[%s] : %s, i32 -> f32\n"
                "  %%ws@ = vector.broadcast %%wv@ : f32 to vector<4xf32>\n",
                mask_cols ? "%wi@" : "%wib@", sb_view);
  }
  // The output tile goes through LDS in `parts` row bands, so that it never needs more LDS
  // than the K loop (a 256x256 tile fits gfx942's 64 KiB); a barrier separates each band's
  // stores from the next band's writes. Band p holds row blocks [p bb, (p + 1) bb) of every
  // wave (bb = band_blocks): wave row m's share of the band is its rows [16 p bb, 16 (p +
  // 1) bb), at band row m 16 bb.
  int parts = gg_epilogue_parts(&k->desc);
  int band_blocks = k->m_repeat / parts, share = 16 * band_blocks;
  long long band_passes = passes / parts;
  emit_index(&t, "cshare", share);
  gg_text_printf(&t, "  %%brow0 = arith.muli %%wave_m, %%cshare : index\n"
                     "  %%brow = arith.addi %%brow0, %%lrow0 : index\n");
  for (int part = 0; part < parts; ++part) {
    if (part > 0) gg_text_printf(&t, "  gpu.barrier\n");
    // Scale, round to bf16 and write each lane's fragment into the LDS band [band_rows][tn].
    for (int mr = part * band_blocks; mr < (part + 1) * band_blocks; ++mr)
      for (int na = 0; na < k->n_acc; ++na) {
        int i = mr * k->n_acc + na;
        char tag[48];
        snprintf(tag, sizeof tag, "_%d", i);
        emit_tagged(&t, tag, "  %%ce@ = vector.extract %%acc[%d] : vector<4xf32> from vector<%dx4xf32>\n",
                    i, accs);
        if (rowwise)  // (acc * x_scale) * w_scale, in f32
          emit_tagged(&t, tag,
                      "  %%cx@ = arith.mulf %%ce@, %%xs_%d_4 : vector<4xf32>\n"
                      "  %%cv@ = arith.mulf %%cx@, %%ws_%d : vector<4xf32>\n"
                      "  %%h@ = arith.truncf %%cv@ : vector<4xf32> to vector<4xbf16>\n",
                      mr, na);
        else  // blockwise: scaled in the K loop
          emit_tagged(&t, tag, "  %%h@ = arith.truncf %%ce@ : vector<4xf32> to vector<4xbf16>\n");
        for (int r = 0; r < 4; ++r) {
          char et[64];
          snprintf(et, sizeof et, "_%d_%d", i, r);
          emit_tagged(&t, et,
                      "  %%e@ = vector.shuffle %%h_%d, %%h_%d [%d] : vector<4xbf16>, vector<4xbf16>\n"
                      "  %%eb@ = vector.bitcast %%e@ : vector<1xbf16> to vector<2xi8>\n"
                      "  %%elo@ = arith.constant %d : index\n"
                      "  %%elr@ = arith.addi %%brow, %%elo@ : index\n"
                      "  %%ear@ = arith.muli %%elr@, %%ctn : index\n"
                      "  %%eae@ = arith.addi %%ear@, %%col_%d : index\n"
                      "  %%ea@ = arith.muli %%eae@, %%c2 : index\n"
                      "  vector.store %%eb@, %%lds[%%ea@] : %s, vector<2xi8>\n",
                      i, i, r, (mr - part * band_blocks) * 16 + r, na, k->lds_type);
        }
      }
    gg_text_printf(&t, "  gpu.barrier\n");
    // Each thread stores `ev` adjacent columns per pass; %sr@ is the tile row, %sbr@ the
    // band's.
    for (long long p = 0; p < band_passes; ++p) {
      char tag[48];
      snprintf(tag, sizeof tag, "_%d_%lld", part, p);
      emit_tagged(&t, tag,
                  "  %%sqo@ = arith.constant %lld : index\n"
                  "  %%sq@ = arith.addi %%tid, %%sqo@ : index\n"
                  "  %%sbr@ = arith.divui %%sq@, %%cpr : index\n"
                  // band row -> tile row: wave row (band row / share), then the band's rows
                  "  %%swm@ = arith.divui %%sbr@, %%cshare : index\n"
                  "  %%swr@ = arith.remui %%sbr@, %%cshare : index\n"
                  "  %%swb@ = arith.muli %%swm@, %%cmpw : index\n"
                  "  %%sro@ = arith.constant %d : index\n"
                  "  %%sr0@ = arith.addi %%swb@, %%swr@ : index\n"
                  "  %%sr@ = arith.addi %%sr0@, %%sro@ : index\n"
                  "  %%sc0@ = arith.remui %%sq@, %%cpr : index\n"
                  "  %%sc@ = arith.muli %%sc0@, %%cev : index\n"
                  "  %%slr@ = arith.muli %%sbr@, %%ctn : index\n"
                  "  %%sle@ = arith.addi %%slr@, %%sc@ : index\n"
                  "  %%sl@ = arith.muli %%sle@, %%c2 : index\n"
                  "  %%sb@ = vector.load %%lds[%%sl@] : %s, vector<%dxi8>\n"
                  "  %%sv@ = vector.bitcast %%sb@ : vector<%dxi8> to vector<%dxbf16>\n"
                  "  %%gir@ = arith.muli %%sr@, %%cn : index\n"
                  "  %%gie@ = arith.addi %%gir@, %%sc@ : index\n"
                  "  %%gi@ = arith.index_cast %%gie@ : index to i32\n"
                  "  %%rok@ = arith.cmpi slt, %%sr@, %%row_limit : index\n"
                  "  %%se@ = arith.addi %%sc@, %%cev : index\n"
                  "  %%fit@ = arith.cmpi sle, %%se@, %%col_limit : index\n"
                  "  %%okrf@ = arith.andi %%rok@, %%fit@ : i1\n",
                  p * THREADS, part * share, k->lds_type, 2 * ev, 2 * ev, ev);
      // The store goes out whole when its row is in the group and its last column is.
      const char* ok = mask_rows && mask_cols ? "%okrf@" : mask_rows ? "%rok@" : mask_cols ? "%fit@" : NULL;
      if (ok) emit_tagged(&t, tag, "  %%gm@ = arith.select %s, %%gi@, %%oob2 : i32\n", ok);
      emit_tagged(&t, tag, "  amdgpu.raw_buffer_store %%sv@ -> %%outv[%s] : vector<%dxbf16> -> %s, i32\n",
                  ok ? "%gm@" : "%gi@", ev, out_view);
      if (mask_cols && ev > 1) {  // straddling the group's column end: element by element
        emit_tagged(&t, tag,
                    "  %%nf@ = arith.xori %%fit@, %%true : i1\n"
                    "  %%some@ = arith.cmpi slt, %%sc@, %%col_limit : index\n"
                    "  %%pa@ = arith.andi %%nf@, %%some@ : i1\n"
                    "  %%part@ = arith.andi %%pa@, %s : i1\n"
                    "  scf.if %%part@ {\n",
                    mask_rows ? "%rok@" : "%true");
        for (int e = 0; e < ev; ++e) {
          char et[64];
          snprintf(et, sizeof et, "%s_%d", tag, e);
          emit_tagged(&t, et,
                      "    %%ex@ = vector.shuffle %%sv%s, %%sv%s [%d] : vector<%dxbf16>, vector<%dxbf16>\n"
                      "    %%eo@ = arith.constant %d : index\n"
                      "    %%ec@ = arith.addi %%sc%s, %%eo@ : index\n"
                      "    %%ein@ = arith.cmpi slt, %%ec@, %%col_limit : index\n"
                      "    %%eoi@ = arith.constant %d : i32\n"
                      "    %%eia@ = arith.addi %%gi%s, %%eoi@ : i32\n"
                      "    %%ei@ = arith.select %%ein@, %%eia@, %%oob2 : i32\n"
                      "    amdgpu.raw_buffer_store %%ex@ -> %%outv[%%ei@] : vector<1xbf16> -> %s, i32\n",
                      tag, tag, e, ev, ev, e, tag, e, tag, out_view);
        }
        gg_text_printf(&t, "  }\n");
      }
    }
  }
  gg_text_printf(&t, "  return\n}\n");
  MlirValue args[13];
  args[0] = gg_tile_lookup(l, mlirOperationGetOperand(op, 0), op);
  args[1] = out;
  args[2] = sa;
  args[3] = sb;
  for (int i = 4; i < 11; ++i) args[i] = mlirOperationGetOperand(op, i);
  args[11] = k->tid;
  args[12] = k->lds[0];
  gg_tile_replace(l, op, &t, args, 13);
  gg_text_free(&t);
  return l->ok;
}

static bool lower_constant(gg_tile_lowering* l, MlirOperation op) {
  kernel_shape* k = l->state;
  MlirAttribute value = mlirOperationGetAttributeByName(op, gg_str("value"));
  if (!mlirAttributeIsADenseFPElements(value) || !mlirDenseElementsAttrIsSplat(value) ||
      mlirDenseElementsAttrGetFloatSplatValue(value) != 0.0f) {
    gg_emit_error(op, "gg-to-amdgpu: only zero accumulator constants are supported");
    return false;
  }
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t,
                 "func.func @zero() -> vector<%dx4xf32> {\n  %%z = arith.constant dense<0.0> : "
                 "vector<%dx4xf32>\n  return %%z : vector<%dx4xf32>\n}",
                 k->m_repeat * k->n_acc, k->m_repeat * k->n_acc, k->m_repeat * k->n_acc);
  gg_tile_replace(l, op, &t, NULL, 0);
  gg_text_free(&t);
  return l->ok;
}

// Registers ride loops as they are.
static MlirValue carry_in(gg_tile_lowering* l, MlirOperation loop, MlirValue lowered_init) {
  (void)l;
  (void)loop;
  return lowered_init;
}

static MlirValue carry_out(gg_tile_lowering* l, MlirOperation yield, MlirValue lowered,
                           MlirValue iteration_argument) {
  (void)l;
  (void)yield;
  (void)iteration_argument;
  return lowered;
}

static const gg_tile_target amdgpu_target = {
    .pass_name = "gg-to-amdgpu",
    .load_tile = lower_load_tile,
    .load_scales = lower_load_scales,
    .mma = lower_mma,
    .epilogue = lower_epilogue,
    .constant = lower_constant,
    .carry_in = carry_in,
    .carry_out = carry_out,
};

// ---------------------------------------------------------------------------------------
// The kernel: func.func with a gg.grid -> gpu.module { gpu.func kernel }.

// Reads the kernel's tile, FP8 flavour and B path from the descriptor gg-tile left on the
// grid, so a grid with no mma at all (K = 0: the epilogue writes zeros) still lowers.
static bool tile_of(MlirOperation grid, kernel_shape* k) {
  char text[512];
  gg_op_desc desc;
  if (!gg_attr_string(grid, "descriptor", text, sizeof text)) {
    gg_emit_error(grid, "gg-to-amdgpu: the grid carries no descriptor (run gg-tile first)");
    return false;
  }
  gg_status status = gg_op_desc_parse(text, &desc);
  if (status) {
    gg_emit_error(grid, "gg-to-amdgpu: the grid's %s", gg_status_message(status));
    gg_status_free(status);
    return false;
  }
  k->tm = desc.tile.m;
  k->tn = desc.tile.n;
  k->tk = desc.tile.k;
  k->f8 = desc.fp8 == GG_FP8_E4M3FNUZ ? "f8E4M3FNUZ" : "f8E4M3FN";
  k->desc = gg_op_desc_with_defaults(&desc);
  k->preshuffled = gg_amd_b_in_registers(&k->desc);
  k->b_shuffled = desc.b_layout == GG_B_PRESHUFFLED;
  k->lds_buffers = gg_amd_lds_buffers(&k->desc);
  k->scale_blocks = desc.scaling == GG_SCALING_BLOCKWISE ? k->tk / 128 : 0;
  // A tile starts at a multiple of tile_n within its group, so a wave's tile_n / 4 columns
  // lie in one 128-wide w_scale block, except where groups start anywhere along N.
  k->ws_per_column_block = desc.layout == GG_LAYOUT_N_OFFSETS;
  k->scale_products = k->scale_blocks > 0 && gg_amd_scale_products(&k->desc);
  k->stage_bytes = gg_amd_loop_lds_bytes(&k->desc) / k->lds_buffers;
  k->dma = gg_amd_lds_dma(&k->desc);
  k->stage_ahead = k->lds_buffers == 2 && !k->dma;
  return true;
}

// gg.group_ends as a kernel of its own, `<kernel>_group_ends`, which the runtime launches
// (one workgroup) before the main kernel; both take the function's arguments and the
// workspace %ends. Thread t folds the groups of its chunk [t c, (t + 1) c) with the group
// end rule, starting from 0; thread 0 turns the 256 partial ends into each chunk's start
// (the rule applied to them in order); every thread then walks its chunk again from its
// start, storing each group's end. O(G / 256) loads per thread.
static void emit_group_ends_kernel(gg_text* t, const char* fname, MlirBlock entry,
                                   const gg_group_ends_op* ends) {
  intptr_t argc = mlirBlockGetNumArguments(entry);
  intptr_t meta = mlirBlockArgumentGetArgNumber(mlirOperationGetOperand(ends->op, 0));
  intptr_t a = mlirBlockArgumentGetArgNumber(mlirOperationGetOperand(ends->op, 1));
  const char* part = "memref<256xi64, #gpu.address_space<workgroup>>";
  gg_text_printf(t, "  gpu.func @%s_group_ends(", fname);
  for (intptr_t i = 0; i < argc; ++i) {
    if (i == meta) gg_text_printf(t, "%s%%meta: ", i ? ", " : "");
    else if (i == a) gg_text_printf(t, "%s%%a: ", i ? ", " : "");
    else gg_text_printf(t, "%s%%arg%d: ", i ? ", " : "", (int)i);
    gg_text_type(t, mlirValueGetType(mlirBlockGetArgument(entry, i)));
  }
  gg_text_printf(t,
                 ", %%ends: %s) workgroup(%%part: %s) kernel attributes {known_block_size = "
                 "array<i32: %d, 1, 1>, rocdl.flat_work_group_size = \"%d,%d\"} {\n",
                 gg_text_str(&ends->ends_type), part, THREADS, THREADS, THREADS);
  gg_text_printf(t,
                 "    %%c0 = arith.constant 0 : index\n    %%c1 = arith.constant 1 : index\n"
                 "    %%tid = gpu.thread_id x\n");
  gg_emit_group_ends_scan(t, ends, "    ", THREADS, part);
  gg_text_printf(t, "    gpu.return\n  }\n");
}

static bool to_kernel(MlirOperation func, const void* raw_options) {
  const amdgpu_options* options = raw_options;
  MlirOperation grid;
  if (!gg_find_grid(func, "gg-to-amdgpu", &grid)) return false;
  if (mlirOperationIsNull(grid)) return true;
  kernel_shape k;
  memset(&k, 0, sizeof k);
  k.chip = options->chip;
  if (!tile_of(grid, &k)) return false;
  int fnuz = !strcmp(k.f8, "f8E4M3FNUZ");
  if (k.chip == GG_TARGET_GFX942 && !fnuz) {
    gg_emit_error(grid, "gg-to-amdgpu: gfx942's FP8 MFMA reads e4m3fnuz, the operands are e4m3fn");
    return false;
  }
  if (k.chip == GG_TARGET_GFX950 && fnuz) {
    gg_emit_error(grid, "gg-to-amdgpu: gfx950's FP8 MFMA reads OCP e4m3fn, the operands are e4m3fnuz");
    return false;
  }
  long long lds = gg_amd_lds_bytes(&k.desc), capacity = gg_lds_capacity(k.chip);
  long long lds_allocation = gg_amd_lds_buffer_bytes(&k.desc);
  if (lds > capacity) {
    gg_emit_error(grid, "gg-to-amdgpu: tile %dx%dx%d needs %lld bytes of LDS; %s has %lld", k.tm,
                  k.tn, k.tk, lds, gg_target_name(k.chip), capacity);
    return false;
  }
  k.waves_n = GG_AMD_WAVES / gg_amd_waves_m(&k.desc);
  k.m_per_wave = k.tm / gg_amd_waves_m(&k.desc);
  k.n_per_wave = k.tn / k.waves_n;
  k.m_repeat = k.m_per_wave / 16;
  k.n_acc = k.n_per_wave / 16;
  k.mma_k = k.chip == GG_TARGET_GFX950 ? 128 : 32;
  int64_t requested_wpe = 0;
  gg_attr_int(grid, "waves_per_eu", &requested_wpe);
  k.acc_in_agprs = requested_wpe == 1 && k.m_repeat * k.n_acc * 4 >= 128 &&
                   k.desc.scaling == GG_SCALING_ROWWISE;
  snprintf(k.lds_type, sizeof k.lds_type, "memref<%lldxi8, #gpu.address_space<workgroup>>",
           lds_allocation);

  // The kernel skeleton, with the function's arguments.
  char fname[256];
  MlirAttribute sym = mlirOperationGetAttributeByName(func, gg_str("sym_name"));
  MlirStringRef sym_name = mlirStringAttrGetValue(sym);
  snprintf(fname, sizeof fname, "%.*s", (int)sym_name.length, sym_name.data);
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  intptr_t argc = mlirBlockGetNumArguments(entry);
  // Packed groups: their ends come from a kernel of their own, into a workspace argument.
  gg_op_list ends_ops = {0};
  gg_collect_ops(func, GG_OP_GROUP_ENDS, &ends_ops);
  gg_group_ends_op ends;
  bool has_ends = ends_ops.count > 0, ok = true;
  if (ends_ops.count > 1) {
    gg_emit_error(func, "gg-to-amdgpu: one gg.group_ends per function");
    ok = false;
  } else if (has_ends) {
    ok = gg_group_ends_op_read(ends_ops.ops[0], &ends);
    for (int i = 0; ok && i < 2; ++i) {
      MlirValue operand = mlirOperationGetOperand(ends_ops.ops[0], i);
      if (!mlirValueIsABlockArgument(operand) ||
          !mlirBlockEqual(mlirBlockArgumentGetOwner(operand), entry)) {
        gg_emit_error(ends_ops.ops[0], "gg-to-amdgpu: gg.group_ends must read the function's "
                                       "arguments (its own kernel has no other values)");
        ok = false;
        gg_group_ends_op_free(&ends);
      }
    }
  }
  gg_op_list_free(&ends_ops);
  if (!ok) return false;
  int64_t wpe = 0;
  gg_attr_int(grid, "waves_per_eu", &wpe);
  // A workgroup is one wave per SIMD: no more waves per SIMD than workgroups the LDS holds
  // (gfx942 blockwise 128x128 stages its scales beside 32 KiB of tiles: one), which LLVM
  // would otherwise warn it cannot meet.
  if (wpe > 1 && wpe * lds > capacity) wpe = capacity / lds > 0 ? capacity / lds : 1;
  char descriptor[512] = "";
  gg_attr_string(grid, "descriptor", descriptor, sizeof descriptor);
  gg_text t;
  gg_text_init(&t);
  gg_text_printf(&t, "gpu.module @%s_module {\n", fname);
  // The code object carries gg's descriptor as a constant: <kernel>_gg_descriptor.
  if (descriptor[0])
    gg_text_printf(&t,
                   "  llvm.mlir.global external constant @%s_gg_descriptor(\"%s\\00\") "
                   "{addr_space = 4 : i32} : !llvm.array<%d x i8>\n",
                   fname, descriptor, (int)strlen(descriptor) + 1);
  gg_text_printf(&t, "  gpu.func @%s(", fname);
  for (intptr_t i = 0; i < argc; ++i) {
    gg_text_printf(&t, "%s%%arg%d: ", i ? ", " : "", (int)i);
    gg_text_type(&t, mlirValueGetType(mlirBlockGetArgument(entry, i)));
  }
  if (has_ends) gg_text_printf(&t, ", %%ends: %s", gg_text_str(&ends.ends_type));
  gg_text_printf(&t, ") workgroup(%%lds: %s", k.lds_type);
  if (k.dma) gg_text_printf(&t, ", %%lds1: %s, %%lds2: %s", k.lds_type, k.lds_type);
  gg_text_printf(&t,
                 ") kernel attributes {known_block_size = array<i32: %d, 1, 1>, "
                 "rocdl.flat_work_group_size = \"%d,%d\"",
                 THREADS, THREADS, THREADS);
  if (wpe > 0) gg_text_printf(&t, ", rocdl.waves_per_eu = %d : i32", (int)wpe);
  // Rowwise accumulators of 128 registers or more (the 256-wide tiles, one wave per SIMD)
  // live in AGPRs: LLVM selects the MFMAs' AGPR form when the function's AGPR budget holds
  // their destinations, and the VGPRs stay for fragments, staging and addresses (gfx950
  // 256x256: 0 scratch and no copies, against 76 bytes and 130 copies in VGPRs). Blockwise
  // accumulators take VALU adds every K block, which AGPRs cannot feed.
  if (k.acc_in_agprs)
    gg_text_printf(&t, ", passthrough = [[\"amdgpu-agpr-alloc\", \"%d\"]]", k.m_repeat * k.n_acc * 4);
  gg_text_printf(&t,
                 "} {\n    %%tid = gpu.thread_id x\n    %%bx = gpu.block_id x\n"
                 "    %%by = gpu.block_id y\n    %%bz = gpu.block_id z\n");
  // LDS DMA addresses each wave's loads from its wave number, a wave-uniform value made
  // once here: made in the loop, its broadcast (convergent) would keep the lane's
  // offsets from leaving the loop.
  if (k.dma)
    gg_text_printf(&t, "    %%c64 = arith.constant 64 : index\n"
                       "    %%wave_t = arith.divui %%tid, %%c64 : index\n"
                       "    %%wave = gpu.subgroup_broadcast %%wave_t, first_active_lane : index\n");
  gg_text_printf(&t, "    gpu.return\n  }\n");
  // The group ends kernel follows the main one: code objects, their assembly and metadata
  // list the main kernel first (gg_isa_stats_parse reads the first).
  if (has_ends) emit_group_ends_kernel(&t, fname, entry, &ends);
  gg_text_printf(&t, "}\n");
  // The main kernel is the module's first gpu.func (the group ends kernel follows it).
  MlirOperation kernel = gg_insert_kernel_skeleton(func, t.failed ? NULL : gg_text_str(&t));
  gg_text_free(&t);
  if (has_ends) gg_group_ends_op_free(&ends);
  if (mlirOperationIsNull(kernel)) return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  k.tid = mlirOperationGetResult(mlirBlockGetFirstOperation(body), 0);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); k.dma && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (gg_op_is(op, "gpu.subgroup_broadcast")) k.wave = mlirOperationGetResult(op, 0);
  // Workgroup attributions follow the arguments (and the workspace).
  for (int i = 0; i < (k.dma ? 3 : 1); ++i)
    k.lds[i] = mlirBlockGetArgument(body, argc + (has_ends ? 1 : 0) + i);
  if (has_ends) {
    gg_op_list list = {0};
    gg_collect_ops(func, GG_OP_GROUP_ENDS, &list);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(list.ops[0], 0),
                                  mlirBlockGetArgument(body, argc));
    mlirOperationDestroy(list.ops[0]);
    gg_op_list_free(&list);
  }
  gg_move_grid_into_kernel(func, grid, kernel, 0);

  gg_tile_lowering l = {&amdgpu_target, &k, {0}, {0}, true};
  return gg_tile_lower(&l, body, kernel);
}

static bool run(MlirOperation module, const void* options) {
  return gg_lower_funcs_to_kernels(module, to_kernel, options);
}

const gg_pass_info gg_to_amdgpu_pass = {
    .argument = "gg-to-amdgpu",
    .summary = "Lower tile-level gg IR to a gpu.module kernel with amdgpu MFMA, LDS and buffer ops",
    .anchor = "builtin.module",
    .options_size = sizeof(amdgpu_options),
    .parse_options = parse_options,
    .run = run,
};
