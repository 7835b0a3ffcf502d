// The LDS part of the K loop model (see amd_lds.h).
#include "compiler/amd_lds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "passes/gpu_kernel.h"

#define LANES 256  // one workgroup: 4 waves of 64

// LDS banks of 4 bytes: gfx942 (CDNA3) has 32 and serves 128 bytes a cycle. gfx950 (CDNA4)
// reads 256 bytes a cycle (64 banks) and writes 128 (32 banks).
static int banks(gg_target chip, int is_write) {
  return chip == GG_TARGET_GFX950 && !is_write ? 64 : 32;
}

int gg_amd_lds_access_cycles(gg_target chip, int is_write, int bytes, const int64_t addresses[64],
                             int* degree) {
  int bank_count = banks(chip, is_write);
  int per_lane = bytes < 4 ? 4 : bytes;
  int lanes_per_cycle = bank_count * 4 / per_lane;
  if (lanes_per_cycle < 1) lanes_per_cycle = 1;
  if (lanes_per_cycle > 64) lanes_per_cycle = 64;
  int cycles = 0;
  *degree = 1;
  for (int first = 0; first < 64; first += lanes_per_cycle) {
    // The distinct dwords each bank serves for this group of lanes.
    int64_t seen[64][64];
    int count[64] = {0};
    int worst = 1;
    for (int lane = first; lane < first + lanes_per_cycle && lane < 64; ++lane) {
      if (addresses[lane] < 0) continue;  // an inactive lane
      for (int64_t dword = addresses[lane] / 4; dword <= (addresses[lane] + bytes - 1) / 4; ++dword) {
        int bank = (int)(dword % bank_count);
        int known = 0;
        for (int i = 0; i < count[bank] && !known; ++i) known = seen[bank][i] == dword;
        if (!known && count[bank] < 64) seen[bank][count[bank]++] = dword;
        if (count[bank] > worst) worst = count[bank];
      }
    }
    cycles += worst;
    if (worst > *degree) *degree = worst;
  }
  return cycles;
}

// ---------------------------------------------------------------------------------------
// Per-lane evaluation of index arithmetic that depends only on gpu.thread_id.

typedef struct lane_values {
  const void* key;
  int64_t* lanes;  // NULL: not a function of the thread id alone
} lane_values;

typedef struct evaluator {
  lane_values* table;
  size_t capacity, count;
  int failed;  // out of memory
} evaluator;

static lane_values* slot(evaluator* e, MlirValue v) {
  size_t h = ((uintptr_t)v.ptr >> 4) * 0x9E3779B97F4A7C15ull;
  for (size_t i = h % e->capacity;; i = (i + 1) % e->capacity)
    if (!e->table[i].key || e->table[i].key == v.ptr) return &e->table[i];
}

static int grow(evaluator* e) {
  if (2 * (e->count + 1) < e->capacity) return 1;
  evaluator bigger = {calloc(e->capacity * 2, sizeof(lane_values)), e->capacity * 2, 0, 0};
  if (!bigger.table) return 0;
  for (size_t i = 0; i < e->capacity; ++i)
    if (e->table[i].key) {
      MlirValue v = {e->table[i].key};
      *slot(&bigger, v) = e->table[i];
      bigger.count++;
    }
  free(e->table);
  *e = bigger;
  return 1;
}

static int64_t* evaluate(evaluator* e, MlirValue v, int depth);

static int64_t* remember(evaluator* e, MlirValue v, int64_t* lanes) {
  if (!grow(e)) {
    e->failed = 1;
    free(lanes);
    return NULL;
  }
  lane_values* s = slot(e, v);
  s->key = v.ptr;
  s->lanes = lanes;
  e->count++;
  return lanes;
}

static int64_t apply(const char* name, int64_t x, int64_t y, int* ok) {
  if (!strcmp(name, "arith.addi")) return x + y;
  if (!strcmp(name, "arith.subi")) return x - y;
  if (!strcmp(name, "arith.muli")) return x * y;
  if (!strcmp(name, "arith.xori")) return x ^ y;
  if (!strcmp(name, "arith.andi")) return x & y;
  if (!strcmp(name, "arith.ori")) return x | y;
  if (!strcmp(name, "arith.shli")) return (int64_t)((uint64_t)x << (y & 63));
  if (!strcmp(name, "arith.shrui")) return (int64_t)((uint64_t)x >> (y & 63));
  if (!strcmp(name, "arith.minsi")) return x < y ? x : y;
  if (!strcmp(name, "arith.maxsi")) return x > y ? x : y;
  if (y != 0) {
    if (!strcmp(name, "arith.divui")) return (int64_t)((uint64_t)x / (uint64_t)y);
    if (!strcmp(name, "arith.remui")) return (int64_t)((uint64_t)x % (uint64_t)y);
    if (!strcmp(name, "arith.divsi")) return x / y;
    if (!strcmp(name, "arith.remsi")) return x % y;
    if (!strcmp(name, "arith.floordivsi")) return x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
  }
  *ok = 0;
  return 0;
}

static int64_t* evaluate(evaluator* e, MlirValue v, int depth) {
  lane_values* known = slot(e, v);
  if (known->key) return known->lanes;
  if (depth > 256 || !mlirValueIsAOpResult(v)) return remember(e, v, NULL);
  MlirOperation op = mlirOpResultGetOwner(v);
  MlirStringRef id = mlirIdentifierStr(mlirOperationGetName(op));
  char name[64];
  if (id.length >= sizeof name) return remember(e, v, NULL);
  memcpy(name, id.data, id.length);
  name[id.length] = 0;
  int64_t* lanes = malloc(LANES * sizeof *lanes);
  if (!lanes) {
    e->failed = 1;
    return NULL;
  }
  int ok = 1;
  if (!strcmp(name, "gpu.thread_id")) {
    for (int l = 0; l < LANES; ++l) lanes[l] = l;
  } else if (!strcmp(name, "arith.constant")) {
    MlirAttribute value = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
    ok = mlirAttributeIsAInteger(value);
    for (int l = 0; ok && l < LANES; ++l) lanes[l] = mlirIntegerAttrGetValueInt(value);
  } else if (!strcmp(name, "arith.index_cast") || !strcmp(name, "arith.index_castui") ||
             !strcmp(name, "arith.extsi") || !strcmp(name, "arith.extui") ||
             !strcmp(name, "arith.trunci")) {
    int64_t* x = evaluate(e, mlirOperationGetOperand(op, 0), depth + 1);
    ok = x != NULL;
    if (ok) memcpy(lanes, x, LANES * sizeof *lanes);
  } else if (!strcmp(name, "arith.select")) {
    int64_t* c = evaluate(e, mlirOperationGetOperand(op, 0), depth + 1);
    int64_t* x = c ? evaluate(e, mlirOperationGetOperand(op, 1), depth + 1) : NULL;
    int64_t* y = x ? evaluate(e, mlirOperationGetOperand(op, 2), depth + 1) : NULL;
    ok = y != NULL;
    for (int l = 0; ok && l < LANES; ++l) lanes[l] = c[l] ? x[l] : y[l];
  } else if (mlirOperationGetNumOperands(op) == 2 && !strncmp(name, "arith.", 6)) {
    int64_t* x = evaluate(e, mlirOperationGetOperand(op, 0), depth + 1);
    int64_t* y = x ? evaluate(e, mlirOperationGetOperand(op, 1), depth + 1) : NULL;
    ok = y != NULL;
    for (int l = 0; ok && l < LANES; ++l) lanes[l] = apply(name, x[l], y[l], &ok);
  } else {
    ok = 0;
  }
  if (!ok) {
    free(lanes);
    lanes = NULL;
  }
  return remember(e, v, lanes);
}

// ---------------------------------------------------------------------------------------
// The K loop's LDS accesses.

static int is_lds_memref(MlirType type) {
  if (!mlirTypeIsAMemRef(type)) return 0;
  MlirAttribute space = mlirMemRefTypeGetMemorySpace(type);
  if (mlirAttributeIsNull(space)) return 0;
  gg_text text;
  gg_text_init(&text);
  gg_text_attribute(&text, space);
  int lds = strstr(gg_text_str(&text), "workgroup") != NULL;
  gg_text_free(&text);
  return lds;
}

static int direct_mfmas(MlirOperation loop) {
  int count = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    count += gg_op_is(op, "amdgpu.mfma");
  return count;
}

// Bytes of a scalar integer or float type; 0 for others.
static int type_bytes(MlirType type) {
  if (mlirTypeIsAInteger(type)) return (int)mlirIntegerTypeGetWidth(type) / 8;
  if (mlirTypeIsAFloat(type)) return (int)mlirFloatTypeGetWidth(type) / 8;
  return 0;
}

static void price_access(evaluator* e, MlirOperation op, gg_target chip, gg_amd_lds* out) {
  int is_write = gg_op_is(op, "vector.store") || gg_op_is(op, "memref.store");
  int memref_operand = is_write ? 1 : 0;
  if (mlirOperationGetNumOperands(op) != memref_operand + 2) return;  // 1-D LDS only
  MlirValue memref = mlirOperationGetOperand(op, memref_operand);
  if (!is_lds_memref(mlirValueGetType(memref))) return;
  MlirType data = mlirValueGetType(is_write ? mlirOperationGetOperand(op, 0)
                                            : mlirOperationGetResult(op, 0));
  MlirType element = mlirTypeIsAVector(data) ? mlirShapedTypeGetElementType(data) : data;
  int64_t elements = 1;
  if (mlirTypeIsAVector(data))
    for (intptr_t d = 0; d < mlirShapedTypeGetRank(data); ++d) elements *= mlirShapedTypeGetDimSize(data, d);
  int element_bytes = type_bytes(element);
  int64_t scale = type_bytes(mlirShapedTypeGetElementType(mlirValueGetType(memref)));
  int64_t* index = evaluate(e, mlirOperationGetOperand(op, memref_operand + 1), 0);
  out->accesses++;
  if (!index || element_bytes <= 0 || scale <= 0) {
    out->unknown++;
    return;
  }
  for (int wave = 0; wave < LANES / 64; ++wave) {
    int64_t addresses[64];
    for (int l = 0; l < 64; ++l) addresses[l] = index[wave * 64 + l] * scale;
    int degree;
    out->cycles += gg_amd_lds_access_cycles(chip, is_write, (int)(elements * element_bytes), addresses, &degree);
    if (degree > out->conflict) out->conflict = degree;
  }
}

static void price_block(evaluator* e, MlirBlock block, gg_target chip, gg_amd_lds* out) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (gg_op_is(op, "vector.load") || gg_op_is(op, "vector.store") || gg_op_is(op, "memref.load") ||
        gg_op_is(op, "memref.store"))
      price_access(e, op, chip, out);
    for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
      for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
           b = mlirBlockGetNextInRegion(b))
        price_block(e, b, chip, out);
  }
}

gg_status gg_amd_lds_analyze(MlirOperation module, gg_target chip, gg_amd_lds* out) {
  memset(out, 0, sizeof *out);
  gg_op_list modules = {0};
  gg_collect_ops(module, "gpu.module", &modules);
  MlirOperation kernel = modules.count ? gg_first_gpu_func(modules.ops[0]) : (MlirOperation){NULL};
  gg_op_list_free(&modules);
  if (mlirOperationIsNull(kernel))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the LDS model reads a module after gg-to-amdgpu");
  gg_op_list loops = {0};
  gg_collect_ops(kernel, "scf.for", &loops);
  MlirOperation k_loop = {NULL};
  int best = 0;
  for (size_t i = 0; i < loops.count; ++i) {
    int mfmas = direct_mfmas(loops.ops[i]);
    if (mfmas > best) {
      best = mfmas;
      k_loop = loops.ops[i];
    }
  }
  gg_op_list_free(&loops);
  if (mlirOperationIsNull(k_loop)) return GG_OK;
  out->found = 1;
  out->conflict = 1;
  evaluator e = {calloc(1024, sizeof(lane_values)), 1024, 0, 0};
  if (!e.table) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  price_block(&e, mlirRegionGetFirstBlock(mlirOperationGetRegion(k_loop, 0)), chip, out);
  for (size_t i = 0; i < e.capacity; ++i) free(e.table[i].lanes);
  free(e.table);
  if (e.failed) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  return GG_OK;
}
