// sim: a lockstep interpreter of gg's AMD kernel IR (see sim.h).
//
// The kernel (a gpu.func) is first compiled into a tree of sim_ops with numbered values;
// execution then runs each op over the active lanes of one workgroup. Values are stored
// per lane as 64-bit words holding each element's bits (integers zero-extended, floats
// in their own format); memrefs are uniform descriptors.
#include "sim/sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "tests/reference/numerics.h"

#define LANES 256
#define WAVE 64

// ---------------------------------------------------------------------------------------
// Types and values.

typedef enum kind { K_INT, K_INDEX, K_FLOAT, K_MEMREF } kind;
typedef enum fkind { F_F32, F_BF16, F_F8FN, F_F8FNUZ, F_F64 } fkind;

typedef struct stype {
  kind kind;
  int bits;      // element width
  fkind fk;
  int elems;     // elements per lane (1 for scalars)
  int rank;      // vector rank, 0 for scalars
  int shape[3];
} stype;

typedef struct memref_desc {
  uint8_t* base;     // the first element: the aligned pointer plus the offset
  uint8_t* aligned;  // the kernel argument's allocation, which views must stay inside
  int64_t alloc_bytes;
  int elem_bytes;
  int rank;
  int64_t sizes[4], strides[4];
  int64_t bytes;  // bytes reachable from base: the buffer's num_records
  int is_lds;
} memref_desc;

typedef struct sim_value {
  stype type;
  uint64_t* data;  // LANES x elems
  memref_desc mem;
} sim_value;

// ---------------------------------------------------------------------------------------
// Compiled ops.

typedef enum opcode {
  OP_CONSTANT, OP_ADDI, OP_SUBI, OP_MULI, OP_DIVUI, OP_DIVSI, OP_REMUI, OP_REMSI,
  OP_FLOORDIVSI, OP_CEILDIVSI, OP_MINSI, OP_MAXSI, OP_MINUI, OP_MAXUI, OP_ANDI, OP_ORI,
  OP_XORI, OP_SHLI, OP_SHRUI, OP_SHRSI, OP_CMPI, OP_SELECT, OP_INDEX_CAST, OP_INDEX_CASTUI,
  OP_EXTUI, OP_EXTSI, OP_TRUNCI, OP_BITCAST, OP_ADDF, OP_SUBF, OP_MULF, OP_FMAF, OP_TRUNCF, OP_EXTF,
  OP_V_BROADCAST, OP_V_EXTRACT, OP_V_INSERT, OP_V_SHUFFLE, OP_V_LOAD, OP_V_STORE,
  OP_M_DIM, OP_M_CAST, OP_M_COLLAPSE, OP_M_REINTERPRET,
  OP_THREAD_ID, OP_BLOCK_ID, OP_BARRIER, OP_RETURN,
  OP_FOR, OP_IF, OP_YIELD,
  OP_BUFFER_LOAD, OP_BUFFER_STORE, OP_MFMA, OP_SCHEDULING_HINT,
  OP_M_VIEW, OP_FAT_CAST, OP_GATHER_LDS, OP_COUNTER_WAIT, OP_SUBGROUP_FIRST,
} opcode;

typedef struct sim_op sim_op;

typedef struct sim_block {
  int nargs;
  int* args;
  int nops;
  sim_op* ops;
} sim_block;

struct sim_op {
  opcode code;
  MlirOperation op;
  int nin, nout, nregions;
  int* in;
  int* out;
  sim_block* regions;  // one block per region (nargs = nops = 0 for an empty region)
  int64_t imm;         // predicate, dimension, MFMA K
  int nlist;
  int64_t* list;       // positions, shuffle mask, reassociation group ends
};

typedef struct value_slot {
  const void* key;
  int id;
} value_slot;

typedef struct sim {
  // compile
  value_slot* table;  // open addressing on MlirValue.ptr
  size_t table_size;
  sim_value* values;
  int nvalues, values_capacity;
  sim_block body;
  int nargs;          // kernel arguments (memrefs), then the LDS attribution
  int lds_arg;
  int64_t lds_bytes;
  // run
  const gg_op_desc* desc;
  int64_t block_id[3];
  uint8_t* lds;
  int32_t* lds_epoch;   // epoch of the last write, -1 never written
  int16_t* lds_writer;  // lane of the last write
  int32_t* lds_read_epoch;  // epoch of the last read, -1 never read
  int8_t* lds_reader;       // wave of the reads in that epoch, -1 when several waves read
  // LDS DMA (amdgpu.gather_to_lds) in flight: the lane whose DMA will write the byte
  // (plus 1, 0 when none), the byte it carries, and which of its wave's vector memory
  // instructions it is (the wave's count of buffer loads, stores and DMAs issued in this
  // workgroup when it was: the hardware's counter counts them all, in order). It lands at
  // the wave's counter wait that leaves fewer of them in flight than were issued after
  // it; until then nothing may touch the byte.
  int16_t* lds_dma_lane;
  uint8_t* lds_dma_data;
  int32_t* lds_dma_seq;
  int32_t vmem_issued[LANES / WAVE];
  int64_t lds_dma_pending;
  int32_t epoch;
  gg_sim_stats stats;
  gg_status error;
} sim;

static const uint8_t full_mask[LANES] = {
#define ONE16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
    ONE16, ONE16, ONE16, ONE16, ONE16, ONE16, ONE16, ONE16,
    ONE16, ONE16, ONE16, ONE16, ONE16, ONE16, ONE16, ONE16,
#undef ONE16
};

static void op_name(MlirOperation op, char* buffer, size_t size) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buffer, size, "%.*s", (int)name.length, name.data);
}

// Records the first error (with the op and workgroup); later ones are dropped.
static void fail(sim* s, MlirOperation op, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(sim* s, MlirOperation op, const char* format, ...) {
  if (s->error) return;
  char message[1024], name[96] = "kernel";
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (!mlirOperationIsNull(op)) op_name(op, name, sizeof name);
  s->error = gg_status_make(GG_STATUS_INTERNAL, "sim: %s in workgroup (%lld, %lld, %lld): %s",
                            name, (long long)s->block_id[0], (long long)s->block_id[1],
                            (long long)s->block_id[2], message);
}

// ---------------------------------------------------------------------------------------
// Compilation.

static int type_of(MlirType t, stype* out) {
  memset(out, 0, sizeof *out);
  out->elems = 1;
  MlirType element = t;
  if (mlirTypeIsAVector(t)) {
    out->rank = (int)mlirShapedTypeGetRank(t);
    if (out->rank > 3) return 0;
    for (int i = 0; i < out->rank; ++i) {
      out->shape[i] = (int)mlirShapedTypeGetDimSize(t, i);
      out->elems *= out->shape[i];
    }
    element = mlirShapedTypeGetElementType(t);
  } else if (mlirTypeIsAMemRef(t)) {
    out->kind = K_MEMREF;
    return 1;
  }
  if (mlirTypeIsAIndex(element)) {
    out->kind = K_INDEX;
    out->bits = 64;
  } else if (mlirTypeIsAInteger(element)) {
    out->kind = K_INT;
    out->bits = (int)mlirIntegerTypeGetWidth(element);
  } else if (mlirTypeIsAF32(element)) {
    out->kind = K_FLOAT, out->bits = 32, out->fk = F_F32;
  } else if (mlirTypeIsABF16(element)) {
    out->kind = K_FLOAT, out->bits = 16, out->fk = F_BF16;
  } else if (mlirTypeIsAFloat8E4M3FN(element)) {
    out->kind = K_FLOAT, out->bits = 8, out->fk = F_F8FN;
  } else if (mlirTypeIsAFloat8E4M3FNUZ(element)) {
    out->kind = K_FLOAT, out->bits = 8, out->fk = F_F8FNUZ;
  } else if (mlirTypeIsAF64(element)) {
    out->kind = K_FLOAT, out->bits = 64, out->fk = F_F64;
  } else {
    return 0;
  }
  return 1;
}

static size_t hash_ptr(const void* p, size_t size) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 7) & (size - 1);
}

static int value_id(sim* s, MlirValue v, int create) {
  size_t i = hash_ptr(v.ptr, s->table_size);
  while (s->table[i].key) {
    if (s->table[i].key == v.ptr) return s->table[i].id;
    i = (i + 1) & (s->table_size - 1);
  }
  if (!create) return -1;
  if (s->nvalues == s->values_capacity) {
    int capacity = s->values_capacity ? 2 * s->values_capacity : 1024;
    sim_value* grown = realloc(s->values, (size_t)capacity * sizeof *grown);
    if (!grown) return -1;
    s->values = grown;
    s->values_capacity = capacity;
  }
  int id = s->nvalues++;
  memset(&s->values[id], 0, sizeof s->values[id]);
  if (!type_of(mlirValueGetType(v), &s->values[id].type)) {
    gg_text t;
    gg_text_init(&t);
    gg_text_type(&t, mlirValueGetType(v));
    fail(s, (MlirOperation){NULL}, "values of type %s are not supported", gg_text_str(&t));
    gg_text_free(&t);
  }
  s->table[i].key = v.ptr;
  s->table[i].id = id;
  return id;
}

typedef struct op_entry {
  const char* name;
  opcode code;
} op_entry;

static const op_entry op_table[] = {
    {"arith.constant", OP_CONSTANT},     {"arith.addi", OP_ADDI},
    {"arith.subi", OP_SUBI},             {"arith.muli", OP_MULI},
    {"arith.divui", OP_DIVUI},           {"arith.divsi", OP_DIVSI},
    {"arith.remui", OP_REMUI},           {"arith.remsi", OP_REMSI},
    {"arith.floordivsi", OP_FLOORDIVSI}, {"arith.ceildivsi", OP_CEILDIVSI},
    {"arith.minsi", OP_MINSI},           {"arith.maxsi", OP_MAXSI},
    {"arith.minui", OP_MINUI},           {"arith.maxui", OP_MAXUI},
    {"arith.andi", OP_ANDI},             {"arith.ori", OP_ORI},
    {"arith.xori", OP_XORI},             {"arith.shli", OP_SHLI},
    {"arith.shrui", OP_SHRUI},           {"arith.shrsi", OP_SHRSI},
    {"arith.cmpi", OP_CMPI},             {"arith.select", OP_SELECT},
    {"arith.index_cast", OP_INDEX_CAST}, {"arith.index_castui", OP_INDEX_CASTUI},
    {"arith.extui", OP_EXTUI},           {"arith.extsi", OP_EXTSI},
    {"arith.trunci", OP_TRUNCI},         {"arith.bitcast", OP_BITCAST},
    {"arith.addf", OP_ADDF},             {"arith.subf", OP_SUBF},
    {"arith.mulf", OP_MULF},             {"arith.truncf", OP_TRUNCF},
    {"vector.fma", OP_FMAF},
    {"arith.extf", OP_EXTF},             {"vector.broadcast", OP_V_BROADCAST},
    {"vector.extract", OP_V_EXTRACT},    {"vector.insert", OP_V_INSERT},
    {"vector.shuffle", OP_V_SHUFFLE},    {"vector.bitcast", OP_BITCAST},
    {"vector.load", OP_V_LOAD},          {"vector.store", OP_V_STORE},
    {"memref.dim", OP_M_DIM},            {"memref.cast", OP_M_CAST},
    {"memref.collapse_shape", OP_M_COLLAPSE}, {"memref.load", OP_V_LOAD},
    {"memref.store", OP_V_STORE},        {"memref.reinterpret_cast", OP_M_REINTERPRET},
    {"gpu.thread_id", OP_THREAD_ID},     {"gpu.block_id", OP_BLOCK_ID},
    {"gpu.barrier", OP_BARRIER},         {"amdgpu.lds_barrier", OP_BARRIER},
    {"gpu.return", OP_RETURN},           {"scf.for", OP_FOR},
    {"scf.if", OP_IF},                   {"scf.yield", OP_YIELD},
    {"amdgpu.raw_buffer_load", OP_BUFFER_LOAD}, {"amdgpu.raw_buffer_store", OP_BUFFER_STORE},
    {"amdgpu.mfma", OP_MFMA},            {"amdgpu.sched_barrier", OP_SCHEDULING_HINT},
    {"memref.view", OP_M_VIEW},          {"amdgpu.fat_raw_buffer_cast", OP_FAT_CAST},
    {"amdgpu.gather_to_lds", OP_GATHER_LDS}, {"amdgpu.memory_counter_wait", OP_COUNTER_WAIT},
    {"gpu.subgroup_broadcast", OP_SUBGROUP_FIRST},
    // A barrier without gpu.barrier's fences (LDS DMA kernels wait for their loads
    // themselves); sim's memory is sequentially consistent, so a fence does nothing.
    {"rocdl.s.barrier", OP_BARRIER},     {"llvm.fence", OP_SCHEDULING_HINT},
};

// Bytes of a memref or vector type's element.
static int element_bytes(MlirType type) {
  MlirType e = mlirShapedTypeGetElementType(type);
  if (mlirTypeIsAInteger(e)) return ((int)mlirIntegerTypeGetWidth(e) + 7) / 8;
  if (mlirTypeIsAFloat(e)) return ((int)mlirFloatTypeGetWidth(e) + 7) / 8;
  return 0;
}

static int64_t* dense_i64_list(MlirAttribute a, int* count) {
  *count = 0;
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a)) return NULL;
  int n = (int)mlirDenseArrayGetNumElements(a);
  int64_t* list = malloc((size_t)(n ? n : 1) * sizeof *list);
  for (int i = 0; list && i < n; ++i) list[i] = mlirDenseI64ArrayGetElement(a, i);
  *count = n;
  return list;
}

static int64_t int_attr(MlirOperation op, const char* name, int64_t fallback) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, gg_str(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a)) return fallback;
  return mlirIntegerAttrGetValueSInt(a);
}

static int compile_block(sim* s, MlirBlock block, sim_block* out);

static int compile_op(sim* s, MlirOperation op, sim_op* out) {
  memset(out, 0, sizeof *out);
  out->op = op;
  char name[96];
  op_name(op, name, sizeof name);
  int known = 0;
  for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; ++i)
    if (!strcmp(op_table[i].name, name)) {
      out->code = op_table[i].code;
      known = 1;
      break;
    }
  if (!known) {
    fail(s, op, "operation not supported by the simulator");
    return 0;
  }
  out->nin = (int)mlirOperationGetNumOperands(op);
  out->nout = (int)mlirOperationGetNumResults(op);
  out->in = malloc((size_t)(out->nin + 1) * sizeof *out->in);
  out->out = malloc((size_t)(out->nout + 1) * sizeof *out->out);
  for (int i = 0; i < out->nin; ++i) {
    out->in[i] = value_id(s, mlirOperationGetOperand(op, i), 0);
    if (out->in[i] < 0) {
      fail(s, op, "operand %d is defined outside the kernel", i);
      return 0;
    }
  }
  for (int i = 0; i < out->nout; ++i) out->out[i] = value_id(s, mlirOperationGetResult(op, i), 1);
  switch (out->code) {
    case OP_CMPI: out->imm = int_attr(op, "predicate", 0); break;
    case OP_MFMA:
      out->imm = int_attr(op, "k", 0);
      if (int_attr(op, "m", 0) != 16 || int_attr(op, "n", 0) != 16 || int_attr(op, "blocks", 1) != 1)
        fail(s, op, "only 16x16xK MFMAs with one block are simulated");
      break;
    case OP_THREAD_ID:
    case OP_BLOCK_ID: {
      gg_text t;
      gg_text_init(&t);
      gg_text_attribute(&t, mlirOperationGetAttributeByName(op, gg_str("dimension")));
      const char* d = gg_text_str(&t);
      out->imm = strstr(d, "z") ? 2 : strstr(d, "y") ? 1 : 0;
      gg_text_free(&t);
      break;
    }
    case OP_V_EXTRACT:
    case OP_V_INSERT:
      out->list = dense_i64_list(mlirOperationGetAttributeByName(op, gg_str("static_position")),
                                 &out->nlist);
      if (out->nin != (out->code == OP_V_EXTRACT ? 1 : 2))
        fail(s, op, "dynamic positions are not supported");
      break;
    case OP_V_SHUFFLE:
      out->list = dense_i64_list(mlirOperationGetAttributeByName(op, gg_str("mask")), &out->nlist);
      break;
    case OP_M_REINTERPRET: {
      // list = static offset, then sizes, then strides (ShapedType's dynamic marker where
      // an operand gives the value); imm = the result's rank.
      static const char* const names[3] = {"static_offsets", "static_sizes", "static_strides"};
      int64_t* parts[3];
      int counts[3];
      for (int i = 0; i < 3; ++i)
        parts[i] = dense_i64_list(mlirOperationGetAttributeByName(op, gg_str(names[i])), &counts[i]);
      out->imm = counts[1];
      if (counts[0] != 1 || counts[1] != counts[2] || counts[1] < 1 || counts[1] > 4) {
        fail(s, op, "only ranked reinterpret casts with one offset are simulated");
      } else {
        out->nlist = 1 + 2 * counts[1];
        out->list = malloc((size_t)out->nlist * sizeof *out->list);
        if (out->list) {
          out->list[0] = parts[0][0];
          for (int i = 0; i < counts[1]; ++i) {
            out->list[1 + i] = parts[1][i];
            out->list[1 + counts[1] + i] = parts[2][i];
          }
        }
      }
      for (int i = 0; i < 3; ++i) free(parts[i]);
      break;
    }
    case OP_M_VIEW:  // imm = the result's element bytes
      out->imm = element_bytes(mlirValueGetType(mlirOperationGetResult(op, 0)));
      if (out->nin != 2 || mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(op, 0))) != 1)
        fail(s, op, "only 1-D views at a byte shift are simulated");
      break;
    case OP_FAT_CAST:  // operands: the memref, and validBytes where given
      if (out->nin > 2 || mlirAttributeIsNull(mlirOperationGetAttributeByName(op, gg_str("resetOffset"))))
        fail(s, op, "only fat_raw_buffer_cast with resetOffset is simulated");
      break;
    case OP_GATHER_LDS: {  // imm = bytes a lane moves
      MlirAttribute transfer = mlirOperationGetAttributeByName(op, gg_str("transferType"));
      MlirType t = mlirTypeAttrGetValue(transfer);
      int64_t elements = 1;
      for (intptr_t d = 0; mlirTypeIsAShaped(t) && d < mlirShapedTypeGetRank(t); ++d)
        elements *= mlirShapedTypeGetDimSize(t, d);
      out->imm = (int64_t)(mlirTypeIsAShaped(t) ? element_bytes(t) : 4) * elements;
      if (out->nin != 4) fail(s, op, "only 1-D gather_to_lds is simulated");
      break;
    }
    case OP_COUNTER_WAIT: {  // imm = the loads it leaves in flight, -1 when it waits for none
      // Only the load counter matters here: sim's LDS accesses and stores complete at once.
      MlirAttribute load = mlirOperationGetAttributeByName(op, gg_str("load"));
      out->imm = mlirAttributeIsNull(load) ? -1 : mlirIntegerAttrGetValueInt(load);
      if (!mlirAttributeIsNull(load) && out->imm < 0) fail(s, op, "a negative load count");
      break;
    }
    case OP_SUBGROUP_FIRST: {
      gg_text t;
      gg_text_init(&t);
      gg_text_attribute(&t, mlirOperationGetAttributeByName(op, gg_str("broadcast_type")));
      if (out->nin != 1 || !strstr(gg_text_str(&t), "first_active_lane"))
        fail(s, op, "only subgroup_broadcast first_active_lane is simulated");
      gg_text_free(&t);
      break;
    }
    case OP_M_COLLAPSE: {
      MlirAttribute groups = mlirOperationGetAttributeByName(op, gg_str("reassociation"));
      int n = (int)mlirArrayAttrGetNumElements(groups);
      out->list = malloc((size_t)(n ? n : 1) * sizeof *out->list);
      out->nlist = n;
      int64_t end = 0;
      for (int g = 0; g < n; ++g) {
        end += mlirArrayAttrGetNumElements(mlirArrayAttrGetElement(groups, g));
        out->list[g] = end;
      }
      break;
    }
    default: break;
  }
  out->nregions = (int)mlirOperationGetNumRegions(op);
  if (out->nregions) {
    out->regions = calloc((size_t)out->nregions, sizeof *out->regions);
    for (int r = 0; r < out->nregions; ++r) {
      MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
      if (mlirBlockIsNull(b)) continue;
      if (!mlirBlockIsNull(mlirBlockGetNextInRegion(b))) {
        fail(s, op, "regions with several blocks are not supported");
        return 0;
      }
      if (!compile_block(s, b, &out->regions[r])) return 0;
    }
  }
  return !s->error;
}

static int compile_block(sim* s, MlirBlock block, sim_block* out) {
  out->nargs = (int)mlirBlockGetNumArguments(block);
  out->args = malloc((size_t)(out->nargs + 1) * sizeof *out->args);
  for (int i = 0; i < out->nargs; ++i) out->args[i] = value_id(s, mlirBlockGetArgument(block, i), 1);
  int n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++n;
  out->ops = calloc((size_t)(n ? n : 1), sizeof *out->ops);
  out->nops = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!compile_op(s, op, &out->ops[out->nops++])) return 0;
  }
  return 1;
}

static void free_block(sim_block* b) {
  for (int i = 0; i < b->nops; ++i) {
    sim_op* op = &b->ops[i];
    free(op->in);
    free(op->out);
    free(op->list);
    for (int r = 0; r < op->nregions; ++r) free_block(&op->regions[r]);
    free(op->regions);
  }
  free(b->ops);
  free(b->args);
}

// ---------------------------------------------------------------------------------------
// Element helpers.

static uint64_t mask_bits(uint64_t v, int bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }

static int64_t sext(uint64_t v, int bits) {
  if (bits >= 64) return (int64_t)v;
  uint64_t sign = 1ull << (bits - 1);
  v = mask_bits(v, bits);
  return (int64_t)((v ^ sign) - sign);
}

static double to_double(uint64_t bits, fkind fk) {
  switch (fk) {
    case F_F32: {
      uint32_t b = (uint32_t)bits;
      float f;
      memcpy(&f, &b, sizeof f);
      return f;
    }
    case F_BF16: return gg_bf16_to_float((uint16_t)bits);
    case F_F8FN: return gg_fp8_decode(GG_FP8_E4M3FN, (uint8_t)bits);
    case F_F8FNUZ: return gg_fp8_decode(GG_FP8_E4M3FNUZ, (uint8_t)bits);
    case F_F64: {
      double d;
      memcpy(&d, &bits, sizeof d);
      return d;
    }
  }
  return 0;
}

static uint64_t f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

static float f32_of(uint64_t bits) {
  uint32_t b = (uint32_t)bits;
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

// f32 -> bf16, round to nearest even (as LLVM's fptrunc); NaN stays a quiet NaN.
static uint64_t bf16_from_f32_bits(uint32_t b) {
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return (b >> 16) | 0x40;
  return (b + 0x7FFFu + ((b >> 16) & 1)) >> 16;
}

// ---------------------------------------------------------------------------------------
// Execution.

static uint64_t* lane_data(sim* s, int id, int lane) {
  return s->values[id].data + (size_t)lane * (size_t)s->values[id].type.elems;
}

static int exec_block(sim* s, const sim_block* b, const uint8_t* mask, const int* yield_to);

static void exec_binary_int(sim* s, const sim_op* o, const uint8_t* mask) {
  const stype* t = &s->values[o->out[0]].type;
  int bits = t->bits, n = t->elems;
  for (int l = 0; l < LANES; ++l) {
    if (!mask[l]) continue;
    const uint64_t* a = lane_data(s, o->in[0], l);
    const uint64_t* c = lane_data(s, o->in[1], l);
    uint64_t* r = lane_data(s, o->out[0], l);
    for (int e = 0; e < n; ++e) {
      uint64_t x = mask_bits(a[e], bits), y = mask_bits(c[e], bits), v = 0;
      int64_t sx = sext(x, bits), sy = sext(y, bits);
      switch (o->code) {
        case OP_ADDI: v = x + y; break;
        case OP_SUBI: v = x - y; break;
        case OP_MULI: v = x * y; break;
        case OP_ANDI: v = x & y; break;
        case OP_ORI: v = x | y; break;
        case OP_XORI: v = x ^ y; break;
        case OP_SHLI: v = y >= (uint64_t)bits ? 0 : x << y; break;
        case OP_SHRUI: v = y >= (uint64_t)bits ? 0 : x >> y; break;
        case OP_SHRSI: v = (uint64_t)(y >= (uint64_t)bits ? (sx < 0 ? -1 : 0) : sx >> y); break;
        case OP_MINSI: v = (uint64_t)(sx < sy ? sx : sy); break;
        case OP_MAXSI: v = (uint64_t)(sx > sy ? sx : sy); break;
        case OP_MINUI: v = x < y ? x : y; break;
        case OP_MAXUI: v = x > y ? x : y; break;
        default: {
          if (y == 0) {
            fail(s, o->op, "division by zero (lane %d)", l);
            return;
          }
          switch (o->code) {
            case OP_DIVUI: v = x / y; break;
            case OP_REMUI: v = x % y; break;
            case OP_DIVSI: v = (uint64_t)(sx / sy); break;
            case OP_REMSI: v = (uint64_t)(sx % sy); break;
            case OP_FLOORDIVSI: {
              int64_t q = sx / sy;
              if ((sx % sy != 0) && ((sx < 0) != (sy < 0))) --q;
              v = (uint64_t)q;
              break;
            }
            case OP_CEILDIVSI: {
              int64_t q = sx / sy;
              if ((sx % sy != 0) && ((sx < 0) == (sy < 0))) ++q;
              v = (uint64_t)q;
              break;
            }
            default: break;
          }
        }
      }
      r[e] = mask_bits(v, bits);
    }
  }
}

// arith.addf / subf / mulf, and vector.fma: a b + c with one rounding, as the hardware's
// v_fma_f32 / v_pk_fma_f32.
static void exec_float(sim* s, const sim_op* o, const uint8_t* mask) {
  const stype* t = &s->values[o->out[0]].type;
  if (t->fk != F_F32) {
    fail(s, o->op, "float arithmetic is simulated on f32 only");
    return;
  }
  for (int l = 0; l < LANES; ++l) {
    if (!mask[l]) continue;
    const uint64_t* a = lane_data(s, o->in[0], l);
    const uint64_t* b = lane_data(s, o->in[1], l);
    const uint64_t* c = o->code == OP_FMAF ? lane_data(s, o->in[2], l) : NULL;
    uint64_t* r = lane_data(s, o->out[0], l);
    for (int e = 0; e < t->elems; ++e) {
      float x = f32_of(a[e]), y = f32_of(b[e]), v;
      switch (o->code) {
        case OP_ADDF: v = x + y; break;
        case OP_SUBF: v = x - y; break;
        case OP_MULF: v = x * y; break;
        default: v = fmaf(x, y, f32_of(c[e])); break;
      }
      r[e] = f32_bits(v);
    }
  }
}

static int cmp(int64_t predicate, uint64_t x, uint64_t y, int bits) {
  int64_t sx = sext(x, bits), sy = sext(y, bits);
  x = mask_bits(x, bits);
  y = mask_bits(y, bits);
  switch (predicate) {
    case 0: return x == y;
    case 1: return x != y;
    case 2: return sx < sy;
    case 3: return sx <= sy;
    case 4: return sx > sy;
    case 5: return sx >= sy;
    case 6: return x < y;
    case 7: return x <= y;
    case 8: return x > y;
    case 9: return x >= y;
  }
  return 0;
}

// Reinterprets the bytes of a lane's elements: little-endian, element by element.
static void reinterpret(const uint64_t* in, int in_elems, int in_bits, uint64_t* out,
                        int out_elems, int out_bits) {
  uint8_t bytes[1024];
  int nbytes = in_elems * in_bits / 8;
  for (int e = 0; e < in_elems; ++e)
    for (int b = 0; b < in_bits / 8; ++b) bytes[e * (in_bits / 8) + b] = (uint8_t)(in[e] >> (8 * b));
  for (int e = 0; e < out_elems; ++e) {
    uint64_t v = 0;
    for (int b = 0; b < out_bits / 8 && e * (out_bits / 8) + b < nbytes; ++b)
      v |= (uint64_t)bytes[e * (out_bits / 8) + b] << (8 * b);
    out[e] = v;
  }
}

static int64_t offset_of(const memref_desc* m, const int64_t* index, int n) {
  int64_t off = 0;
  for (int d = 0; d < n; ++d) off += index[d] * m->strides[d];
  return off;
}

static void exec_constant(sim* s, const sim_op* o) {
  MlirAttribute a = mlirOperationGetAttributeByName(o->op, gg_str("value"));
  sim_value* v = &s->values[o->out[0]];
  const stype* t = &v->type;
  uint64_t values[256];
  if (t->elems > 256) {
    fail(s, o->op, "constant too large");
    return;
  }
  for (int e = 0; e < t->elems; ++e) {
    uint64_t bits = 0;
    if (mlirAttributeIsAInteger(a)) {
      bits = (uint64_t)mlirIntegerAttrGetValueSInt(a);
    } else if (mlirAttributeIsAFloat(a)) {
      double d = mlirFloatAttrGetValueDouble(a);
      bits = t->fk == F_F32 ? f32_bits((float)d) : gg_bf16_from_double(d);
    } else if (mlirAttributeIsADenseElements(a)) {
      int splat = mlirDenseElementsAttrIsSplat(a);
      intptr_t pos = splat ? 0 : e;
      if (t->kind == K_FLOAT) {
        float f = splat ? mlirDenseElementsAttrGetFloatSplatValue(a) : mlirDenseElementsAttrGetFloatValue(a, pos);
        if (t->fk != F_F32 && f != 0.0f) {
          fail(s, o->op, "non-zero constants of this float type are not supported");
          return;
        }
        bits = t->fk == F_F32 ? f32_bits(f) : 0;
      } else if (t->kind == K_INDEX) {
        bits = splat ? (uint64_t)mlirDenseElementsAttrGetInt64SplatValue(a)
                     : mlirDenseElementsAttrGetIndexValue(a, pos);
      } else if (t->bits == 1) {
        bits = splat ? mlirDenseElementsAttrGetBoolSplatValue(a) : mlirDenseElementsAttrGetBoolValue(a, pos);
      } else if (t->bits == 8) {
        bits = splat ? (uint8_t)mlirDenseElementsAttrGetInt8SplatValue(a) : (uint8_t)mlirDenseElementsAttrGetInt8Value(a, pos);
      } else if (t->bits == 32) {
        bits = splat ? (uint32_t)mlirDenseElementsAttrGetInt32SplatValue(a) : (uint32_t)mlirDenseElementsAttrGetInt32Value(a, pos);
      } else {
        bits = splat ? (uint64_t)mlirDenseElementsAttrGetInt64SplatValue(a) : (uint64_t)mlirDenseElementsAttrGetInt64Value(a, pos);
      }
    } else {
      fail(s, o->op, "unsupported constant");
      return;
    }
    values[e] = t->kind == K_FLOAT ? bits : mask_bits(bits, t->bits);
  }
  for (int l = 0; l < LANES; ++l) memcpy(lane_data(s, o->out[0], l), values, (size_t)t->elems * 8);
}

// LDS access with the race checks. sim runs the waves in lockstep, hardware does not: a
// byte written in this barrier interval by another lane may not be read (read after
// write), a byte another wave read or wrote in this interval may not be written (write
// after read, write after write: the other wave may not have got there yet), and a byte
// never written may not be read.
static int lds_access(sim* s, const sim_op* o, int lane, int64_t byte, int n, int write) {
  if (byte < 0 || byte + n > s->lds_bytes) {
    fail(s, o->op, "LDS access [%lld, %lld) outside the %lld bytes of LDS (lane %d)",
         (long long)byte, (long long)(byte + n), (long long)s->lds_bytes, lane);
    return 0;
  }
  for (int i = 0; i < n; ++i) {
    int64_t b = byte + i;
    const int wave = lane / 64;
    if (s->lds_dma_lane[b]) {
      fail(s, o->op, "lane %d %s LDS byte %lld, which an LDS DMA of lane %d may still be "
           "writing (no counter wait since)", lane, write ? "writes" : "reads", (long long)b,
           s->lds_dma_lane[b] - 1);
      return 0;
    }
    if (write) {
      int read_by_other = s->lds_read_epoch[b] == s->epoch && s->lds_reader[b] != wave;
      int written_by_other =
          s->lds_epoch[b] == s->epoch && s->lds_writer[b] / 64 != wave;
      if (read_by_other || written_by_other) {
        fail(s, o->op,
             "race: lane %d writes LDS byte %lld that %s in this barrier interval", lane,
             (long long)b, read_by_other ? "another wave read" : "another wave wrote");
        return 0;
      }
      s->lds_epoch[b] = s->epoch;
      s->lds_writer[b] = (int16_t)lane;
    } else {
      if (s->lds_epoch[b] < 0) {
        fail(s, o->op, "lane %d reads LDS byte %lld, which nothing wrote", lane, (long long)b);
        return 0;
      }
      if (s->lds_epoch[b] == s->epoch && s->lds_writer[b] != lane) {
        fail(s, o->op,
             "race: lane %d reads LDS byte %lld written by lane %d with no barrier between them",
             lane, (long long)b, s->lds_writer[b]);
        return 0;
      }
      if (s->lds_read_epoch[b] != s->epoch) {
        s->lds_read_epoch[b] = s->epoch;
        s->lds_reader[b] = (int8_t)wave;
      } else if (s->lds_reader[b] != wave) {
        s->lds_reader[b] = -1;
      }
    }
  }
  return 1;
}

// Copies n little-endian elements of elem_bytes between memory and a lane's value slots.
static void move_elements(uint8_t* p, uint64_t* v, int n, int elem_bytes, int is_store) {
  for (int e = 0; e < n; ++e) {
    if (is_store) {
      for (int b = 0; b < elem_bytes; ++b) p[e * elem_bytes + b] = (uint8_t)(v[e] >> (8 * b));
    } else {
      uint64_t x = 0;
      for (int b = 0; b < elem_bytes; ++b) x |= (uint64_t)p[e * elem_bytes + b] << (8 * b);
      v[e] = x;
    }
  }
}

// vector.load/store, and memref.load/store (a scalar is one element), on LDS with the race
// checks or on global memory within the memref.
static void exec_vector_memory(sim* s, const sim_op* o, const uint8_t* mask) {
  int is_store = o->code == OP_V_STORE;
  int value_id_ = is_store ? o->in[0] : o->out[0];
  int mem_id = is_store ? o->in[1] : o->in[0];
  int first_index = is_store ? 2 : 1;
  const memref_desc* m = &s->values[mem_id].mem;
  const stype* t = &s->values[value_id_].type;
  int elem_bytes = t->bits / 8, n = t->elems;
  for (int l = 0; l < LANES; ++l) {
    if (!mask[l]) continue;
    int64_t index[4];
    int nidx = o->nin - first_index;
    for (int d = 0; d < nidx && d < 4; ++d) index[d] = (int64_t)lane_data(s, o->in[first_index + d], l)[0];
    int64_t byte = offset_of(m, index, nidx) * m->elem_bytes;
    uint64_t* v = lane_data(s, value_id_, l);
    if (m->is_lds) {
      if (byte < 0 || byte + n * elem_bytes > m->bytes) {
        fail(s, o->op, "LDS access [%lld, %lld) outside its allocation of %lld bytes (lane %d)",
             (long long)byte, (long long)(byte + n * elem_bytes), (long long)m->bytes, l);
        return;
      }
      if (!lds_access(s, o, l, (int64_t)(m->base - s->lds) + byte, n * elem_bytes, is_store)) return;
    } else if (byte < 0 || byte + n * elem_bytes > m->bytes) {
      fail(s, o->op, "global access [%lld, %lld) outside its memref (lane %d)", (long long)byte,
           (long long)(byte + n * elem_bytes), l);
      return;
    }
    move_elements(m->base + byte, v, n, elem_bytes, is_store);
  }
}

// The value of a uniform operand (a memref view's offset, size or stride): the same in every
// active lane, as a buffer descriptor's fields must be (they live in scalar registers).
static int uniform_operand(sim* s, const sim_op* o, int operand, const uint8_t* mask,
                           int64_t* value) {
  int seen = 0;
  for (int l = 0; l < LANES; ++l) {
    if (!mask[l]) continue;
    int64_t v = (int64_t)lane_data(s, o->in[operand], l)[0];
    if (seen && v != *value) {
      fail(s, o->op, "operand %d differs across lanes (%lld in lane %d, %lld before): a buffer "
                     "view must be uniform", operand, (long long)v, l, (long long)*value);
      return 0;
    }
    *value = v;
    seen = 1;
  }
  if (!seen) *value = 0;
  return 1;
}

// memref.reinterpret_cast: a view of the kernel argument's allocation from an element
// offset, with its own sizes and strides; it must lie inside the allocation.
static void exec_reinterpret(sim* s, const sim_op* o, const uint8_t* mask) {
  const memref_desc* m = &s->values[o->in[0]].mem;
  memref_desc r = *m;
  int rank = (int)o->imm, operand = 1;
  int64_t fields[9];
  for (int i = 0; i < o->nlist; ++i) {
    fields[i] = o->list[i];
    if (fields[i] == INT64_MIN && !uniform_operand(s, o, operand++, mask, &fields[i])) return;
  }
  int64_t offset = fields[0], extent = 0;
  r.rank = rank;
  for (int d = 0; d < rank; ++d) {
    r.sizes[d] = fields[1 + d];
    r.strides[d] = fields[1 + rank + d];
    if (r.sizes[d] < 0 || r.strides[d] < 0) {
      fail(s, o->op, "a view with a negative size or stride");
      return;
    }
    int64_t span = r.sizes[d] * r.strides[d];
    if (span > extent) extent = span;
  }
  r.base = m->aligned + offset * m->elem_bytes;
  r.bytes = extent * m->elem_bytes;
  if (offset < 0 || offset * m->elem_bytes + r.bytes > m->alloc_bytes) {
    fail(s, o->op, "a view of bytes [%lld, %lld) outside its buffer of %lld bytes",
         (long long)(offset * m->elem_bytes), (long long)(offset * m->elem_bytes + r.bytes),
         (long long)m->alloc_bytes);
    return;
  }
  s->values[o->out[0]].mem = r;
}

// The lanes of wave w that run an op.
static int wave_lanes(const uint8_t* mask, int w) {
  int active = 0;
  for (int l = w * WAVE; l < (w + 1) * WAVE; ++l) active += mask[l];
  return active;
}

// Buffer loads and stores: the offset is a 32-bit byte count; past num_records a load reads
// zero and a store is dropped. A partly out-of-range access is chip-dependent: refused. An
// sgprOffset (soffset, uniform: it lives in a scalar register) moves the access; whether the
// range check counts it differs by chip, so an access whose fate depends on it is refused.
static void exec_buffer(sim* s, const sim_op* o, const uint8_t* mask) {
  int is_store = o->code == OP_BUFFER_STORE;
  for (int w = 0; w < LANES / WAVE; ++w)  // each wave that runs it issues one instruction
    s->vmem_issued[w] += wave_lanes(mask, w) > 0;
  int value_id_ = is_store ? o->in[0] : o->out[0];
  int mem_id = is_store ? o->in[1] : o->in[0];
  int first_index = is_store ? 2 : 1;
  const memref_desc* m = &s->values[mem_id].mem;
  const stype* t = &s->values[value_id_].type;
  int elem_bytes = t->bits / 8, n = t->elems, total = n * elem_bytes;
  int nidx = o->nin - first_index;
  int64_t soffset = 0;
  if (nidx == m->rank + 1) {
    if (!uniform_operand(s, o, o->nin - 1, mask, &soffset)) return;
    --nidx;
  } else if (nidx != m->rank) {
    fail(s, o->op, "%d indices into a rank-%d buffer", nidx, m->rank);
    return;
  }
  // The hardware adds soffset in bytes, 32 bits wide.
  uint64_t soffset_bytes = (uint32_t)((uint32_t)soffset * (uint32_t)m->elem_bytes);
  // gfx9's descriptor holds num_records in 32 bits: a larger buffer is silently truncated.
  if (m->bytes > (int64_t)UINT32_MAX) {
    fail(s, o->op, "a buffer descriptor over %lld bytes: num_records holds 32 bits, so the "
                   "hardware would see %llu", (long long)m->bytes,
         (unsigned long long)((uint64_t)m->bytes & UINT32_MAX));
    return;
  }
  for (int l = 0; l < LANES; ++l) {
    if (!mask[l]) continue;
    // The lowering computes the byte offset in 32 bits (index times stride times element
    // size), wrapping as the hardware's voffset does.
    uint32_t offset = 0;
    for (int d = 0; d < nidx; ++d)
      offset += (uint32_t)lane_data(s, o->in[first_index + d], l)[0] * (uint32_t)m->strides[d];
    uint64_t byte = (uint32_t)(offset * (uint32_t)m->elem_bytes);
    uint64_t* v = lane_data(s, value_id_, l);
    int out = byte >= (uint64_t)m->bytes;
    if (soffset_bytes && out != (byte + soffset_bytes >= (uint64_t)m->bytes)) {
      fail(s, o->op, "lane %d: offset %llu is %s range only with the soffset %llu, which chips "
           "count differently", l, (unsigned long long)byte, out ? "in" : "out of",
           (unsigned long long)soffset_bytes);
      return;
    }
    if (out) {  // out of range: zero, or dropped
      if (!is_store) memset(v, 0, (size_t)n * sizeof *v);
      continue;
    }
    byte += soffset_bytes;
    if (byte + (uint64_t)total > (uint64_t)m->bytes) {
      fail(s, o->op, "lane %d: a %d-byte buffer access at %llu straddles the end (%lld bytes)",
           l, total, (unsigned long long)byte, (long long)m->bytes);
      return;
    }
    move_elements(m->base + byte, v, n, elem_bytes, is_store);
  }
}

// memref.view of an LDS allocation (i8) at a byte shift, as another element type.
static void exec_view(sim* s, const sim_op* o, const uint8_t* mask) {
  const memref_desc* m = &s->values[o->in[0]].mem;
  memref_desc r = *m;
  int64_t shift;
  if (!uniform_operand(s, o, 1, mask, &shift)) return;
  MlirType type = mlirValueGetType(mlirOperationGetResult(o->op, 0));
  int64_t size = mlirShapedTypeGetDimSize(type, 0);
  r.base = m->base + shift;
  r.elem_bytes = (int)o->imm;
  r.rank = 1;
  r.sizes[0] = size;
  r.strides[0] = 1;
  r.bytes = size * o->imm;
  if (m->elem_bytes != 1 || m->rank != 1 || shift < 0 || shift + r.bytes > m->bytes) {
    fail(s, o->op, "a view of bytes [%lld, %lld) outside its i8 buffer of %lld bytes",
         (long long)shift, (long long)(shift + r.bytes), (long long)m->bytes);
    return;
  }
  s->values[o->out[0]].mem = r;
}

// amdgpu.fat_raw_buffer_cast: the same memory, whose loads read 0 past validBytes where
// given (the buffer's record count: a raw buffer's bounds).
static void exec_fat_cast(sim* s, const sim_op* o, const uint8_t* mask) {
  memref_desc r = s->values[o->in[0]].mem;
  int64_t valid;
  if (o->nin == 2) {
    if (!uniform_operand(s, o, 1, mask, &valid)) return;
    if (valid < 0) valid = 0;
    if (valid < r.bytes) r.bytes = valid;
  }
  s->values[o->out[0]].mem = r;
}

// amdgpu.gather_to_lds: lane l of a wave moves imm bytes from its source offset (zero
// past the buffer's end, as a buffer load reads) to LDS at the wave-uniform destination
// + l imm. The bytes are in flight until the wave's counter wait (exec_counter_wait).
static void exec_gather_lds(sim* s, const sim_op* o, const uint8_t* mask) {
  const memref_desc* src = &s->values[o->in[0]].mem;
  const memref_desc* dst = &s->values[o->in[2]].mem;
  int size = (int)o->imm;
  if (!dst->is_lds) {
    fail(s, o->op, "gather_to_lds into memory other than LDS");
    return;
  }
  for (int w = 0; w < LANES / WAVE; ++w) {
    if (!wave_lanes(mask, w)) continue;
    uint8_t wave_mask[LANES] = {0};
    memcpy(wave_mask + w * WAVE, mask + w * WAVE, WAVE);
    int32_t seq = ++s->vmem_issued[w];
    int64_t to;
    if (!uniform_operand(s, o, 3, wave_mask, &to)) return;
    int64_t base = (int64_t)(dst->base - s->lds) + to * dst->elem_bytes;
    for (int l = w * WAVE; l < (w + 1) * WAVE; ++l) {
      if (!mask[l]) continue;
      int64_t at = (to * dst->elem_bytes) + (int64_t)(l - w * WAVE) * size;
      if (at < 0 || at + size > dst->bytes) {
        fail(s, o->op, "lane %d: an LDS DMA to [%lld, %lld) outside its allocation of %lld bytes",
             l, (long long)at, (long long)(at + size), (long long)dst->bytes);
        return;
      }
      uint64_t from = (uint64_t)lane_data(s, o->in[1], l)[0] * (uint64_t)src->elem_bytes;
      int out = from >= (uint64_t)src->bytes;
      if (!out && from + (uint64_t)size > (uint64_t)src->bytes) {
        fail(s, o->op, "lane %d: a %d-byte LDS DMA at %llu straddles its buffer's end (%lld bytes)",
             l, size, (unsigned long long)from, (long long)src->bytes);
        return;
      }
      for (int i = 0; i < size; ++i) {
        int64_t b = base + (int64_t)(l - w * WAVE) * size + i;
        if (s->lds_dma_lane[b]) {
          fail(s, o->op, "lane %d: an LDS DMA to byte %lld, which another DMA still writes",
               l, (long long)b);
          return;
        }
        s->lds_dma_lane[b] = (int16_t)(l + 1);
        s->lds_dma_seq[b] = seq;
        s->lds_dma_data[b] = out ? 0 : src->base[from + (uint64_t)i];
        s->lds_dma_pending++;
      }
    }
  }
}

// amdgpu.memory_counter_wait load(N): the LDS DMAs of the waves that wait land, but for
// those among the N vector memory instructions each issued last, as their lanes' writes
// at this point (the race checks apply from here). Loads into registers complete at once
// in sim; they count only here, as the hardware's counter counts them.
static void exec_counter_wait(sim* s, const sim_op* o, const uint8_t* mask) {
  if (!s->lds_dma_pending || o->imm < 0) return;
  int waits[LANES / WAVE];
  for (int w = 0; w < LANES / WAVE; ++w) waits[w] = wave_lanes(mask, w) > 0;
  for (int64_t b = 0; b < s->lds_bytes && s->lds_dma_pending; ++b) {
    int lane = s->lds_dma_lane[b] - 1;
    if (lane < 0 || !waits[lane / WAVE]) continue;
    if (s->lds_dma_seq[b] > s->vmem_issued[lane / WAVE] - o->imm) continue;
    s->lds_dma_lane[b] = 0;
    s->lds_dma_pending--;
    if (!lds_access(s, o, lane, b, 1, 1)) return;
    s->lds[b] = s->lds_dma_data[b];
  }
}

// gpu.subgroup_broadcast first_active_lane: each wave's first active lane's value.
static void exec_subgroup_first(sim* s, const sim_op* o, const uint8_t* mask) {
  int n = s->values[o->out[0]].type.elems;
  for (int w = 0; w < LANES / WAVE; ++w) {
    int first = -1;
    for (int l = w * WAVE; l < (w + 1) * WAVE && first < 0; ++l)
      if (mask[l]) first = l;
    if (first < 0) continue;
    for (int l = w * WAVE; l < (w + 1) * WAVE; ++l)
      if (mask[l]) memcpy(lane_data(s, o->out[0], l), lane_data(s, o->in[0], first), (size_t)n * 8);
  }
}

// 16x16xK MFMA per wave. A lane's operand element e is (row l%16, k = k(l, e)) of A and
// (k(l, e), column l%16) of B; D's register r of lane l is (row 4 (l/16) + r, column l%16).
static void exec_mfma(sim* s, const sim_op* o, const uint8_t* mask) {
  int k_total = (int)o->imm;
  const stype* ta = &s->values[o->in[0]].type;
  int per_lane = ta->elems;
  for (int w = 0; w < LANES / WAVE; ++w) {
    int active = wave_lanes(mask, w);
    if (active == 0) continue;
    if (active != WAVE) {
      fail(s, o->op, "an MFMA in wave %d runs with %d of its 64 lanes", w, active);
      return;
    }
    // The wave's operands (32 KiB) on this thread's stack: a static copy was shared by
    // threads running sim at once (gg tune --model checks candidates in parallel).
    double a[16][128], b[128][16];
    for (int l = 0; l < WAVE; ++l) {
      const uint64_t* va = lane_data(s, o->in[0], w * WAVE + l);
      const uint64_t* vb = lane_data(s, o->in[1], w * WAVE + l);
      for (int e = 0; e < per_lane; ++e) {
        int k = k_total == 32 ? 8 * (l / 16) + e : 16 * (l / 16) + 64 * (e / 16) + (e % 16);
        a[l % 16][k] = to_double(va[e], ta->fk);
        b[k][l % 16] = to_double(vb[e], ta->fk);
      }
    }
    for (int l = 0; l < WAVE; ++l) {
      const uint64_t* vc = lane_data(s, o->in[2], w * WAVE + l);
      uint64_t* vd = lane_data(s, o->out[0], w * WAVE + l);
      for (int r = 0; r < 4; ++r) {
        int row = 4 * (l / 16) + r, col = l % 16;
        double sum = 0.0;
        for (int k = 0; k < k_total; ++k) sum += a[row][k] * b[k][col];
        vd[r] = f32_bits((float)((double)f32_of(vc[r]) + sum));
      }
    }
    s->stats.mfmas++;
  }
}

static void copy_lanes(sim* s, int from, int to, const uint8_t* mask) {
  size_t n = (size_t)s->values[to].type.elems;
  for (int l = 0; l < LANES; ++l)
    if (mask[l]) memcpy(lane_data(s, to, l), lane_data(s, from, l), n * sizeof(uint64_t));
}

static int any(const uint8_t* mask) {
  for (int l = 0; l < LANES; ++l)
    if (mask[l]) return 1;
  return 0;
}

static void exec_for(sim* s, const sim_op* o, const uint8_t* mask) {
  const sim_block* body = &o->regions[0];
  int carried = o->nout;
  for (int i = 0; i < carried; ++i) {
    if (s->values[o->out[i]].type.kind == K_MEMREF) {
      fail(s, o->op, "loops carrying memrefs are not simulated");
      return;
    }
    copy_lanes(s, o->in[3 + i], body->args[1 + i], mask);
  }
  uint8_t* active = malloc(LANES);
  if (!active) {
    fail(s, o->op, "out of memory");
    return;
  }
  int iv = body->args[0];
  for (int l = 0; l < LANES; ++l)
    if (mask[l]) lane_data(s, iv, l)[0] = lane_data(s, o->in[0], l)[0];
  for (;;) {
    for (int l = 0; l < LANES; ++l)
      active[l] = mask[l] && (int64_t)lane_data(s, iv, l)[0] < (int64_t)lane_data(s, o->in[1], l)[0];
    if (!any(active) || s->error) break;
    if (!exec_block(s, body, active, body->args + 1)) break;
    for (int l = 0; l < LANES; ++l)
      if (active[l]) lane_data(s, iv, l)[0] += lane_data(s, o->in[2], l)[0];
  }
  free(active);
  for (int i = 0; i < carried; ++i) copy_lanes(s, body->args[1 + i], o->out[i], mask);
}

static void exec_if(sim* s, const sim_op* o, const uint8_t* mask) {
  uint8_t* branch = malloc(LANES);
  if (!branch) {
    fail(s, o->op, "out of memory");
    return;
  }
  for (int side = 0; side < 2 && !s->error; ++side) {
    for (int l = 0; l < LANES; ++l)
      branch[l] = mask[l] && ((lane_data(s, o->in[0], l)[0] & 1) == (side == 0));
    if (!any(branch)) continue;
    if (side < o->nregions && o->regions[side].ops) exec_block(s, &o->regions[side], branch, o->out);
  }
  free(branch);
}

static void exec_op(sim* s, const sim_op* o, const uint8_t* mask, const int* yield_to) {
  s->stats.ops_executed++;
  switch (o->code) {
    case OP_CONSTANT: exec_constant(s, o); break;
    case OP_ADDI: case OP_SUBI: case OP_MULI: case OP_DIVUI: case OP_DIVSI: case OP_REMUI:
    case OP_REMSI: case OP_FLOORDIVSI: case OP_CEILDIVSI: case OP_MINSI: case OP_MAXSI:
    case OP_MINUI: case OP_MAXUI: case OP_ANDI: case OP_ORI: case OP_XORI: case OP_SHLI:
    case OP_SHRUI: case OP_SHRSI:
      exec_binary_int(s, o, mask);
      break;
    case OP_ADDF: case OP_SUBF: case OP_MULF: case OP_FMAF: exec_float(s, o, mask); break;
    case OP_CMPI: {
      const stype* t = &s->values[o->in[0]].type;
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        const uint64_t* a = lane_data(s, o->in[0], l);
        const uint64_t* b = lane_data(s, o->in[1], l);
        uint64_t* r = lane_data(s, o->out[0], l);
        for (int e = 0; e < t->elems; ++e) r[e] = (uint64_t)cmp(o->imm, a[e], b[e], t->bits);
      }
      break;
    }
    case OP_SELECT: {
      int n = s->values[o->out[0]].type.elems, scalar_cond = s->values[o->in[0]].type.elems == 1;
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        const uint64_t* c = lane_data(s, o->in[0], l);
        const uint64_t* a = lane_data(s, o->in[1], l);
        const uint64_t* b = lane_data(s, o->in[2], l);
        uint64_t* r = lane_data(s, o->out[0], l);
        for (int e = 0; e < n; ++e) r[e] = (c[scalar_cond ? 0 : e] & 1) ? a[e] : b[e];
      }
      break;
    }
    case OP_INDEX_CAST: case OP_EXTSI: case OP_INDEX_CASTUI: case OP_EXTUI: case OP_TRUNCI: {
      const stype* ti = &s->values[o->in[0]].type;
      const stype* to = &s->values[o->out[0]].type;
      int sign = o->code == OP_INDEX_CAST || o->code == OP_EXTSI;
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        const uint64_t* a = lane_data(s, o->in[0], l);
        uint64_t* r = lane_data(s, o->out[0], l);
        for (int e = 0; e < to->elems; ++e)
          r[e] = mask_bits(sign ? (uint64_t)sext(a[e], ti->bits) : mask_bits(a[e], ti->bits), to->bits);
      }
      break;
    }
    case OP_BITCAST: {
      const stype* ti = &s->values[o->in[0]].type;
      const stype* to = &s->values[o->out[0]].type;
      for (int l = 0; l < LANES; ++l)
        if (mask[l])
          reinterpret(lane_data(s, o->in[0], l), ti->elems, ti->bits, lane_data(s, o->out[0], l),
                      to->elems, to->bits);
      break;
    }
    case OP_TRUNCF: case OP_EXTF: {
      const stype* ti = &s->values[o->in[0]].type;
      const stype* to = &s->values[o->out[0]].type;
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        const uint64_t* a = lane_data(s, o->in[0], l);
        uint64_t* r = lane_data(s, o->out[0], l);
        for (int e = 0; e < to->elems; ++e) {
          if (ti->fk == F_F32 && to->fk == F_BF16) r[e] = bf16_from_f32_bits((uint32_t)a[e]);
          else if (to->fk == F_F32) r[e] = f32_bits((float)to_double(a[e], ti->fk));
          else {
            fail(s, o->op, "unsupported float conversion");
            return;
          }
        }
      }
      break;
    }
    case OP_V_BROADCAST: {
      int ni = s->values[o->in[0]].type.elems, no = s->values[o->out[0]].type.elems;
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        const uint64_t* a = lane_data(s, o->in[0], l);
        uint64_t* r = lane_data(s, o->out[0], l);
        for (int e = 0; e < no; ++e) r[e] = a[e % ni];
      }
      break;
    }
    case OP_V_EXTRACT: case OP_V_INSERT: {
      int vec = o->code == OP_V_EXTRACT ? o->in[0] : o->in[1];
      const stype* t = &s->values[vec].type;
      int64_t offset = 0, stride = t->elems;
      for (int i = 0; i < o->nlist; ++i) {
        stride /= t->shape[i];
        offset += o->list[i] * stride;
      }
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        if (o->code == OP_V_EXTRACT) {
          memcpy(lane_data(s, o->out[0], l), lane_data(s, vec, l) + offset, (size_t)stride * 8);
        } else {
          uint64_t* r = lane_data(s, o->out[0], l);
          memcpy(r, lane_data(s, vec, l), (size_t)t->elems * 8);
          memcpy(r + offset, lane_data(s, o->in[0], l), (size_t)stride * 8);
        }
      }
      break;
    }
    case OP_V_SHUFFLE: {
      int n1 = s->values[o->in[0]].type.elems;
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        const uint64_t* a = lane_data(s, o->in[0], l);
        const uint64_t* b = lane_data(s, o->in[1], l);
        uint64_t* r = lane_data(s, o->out[0], l);
        for (int e = 0; e < o->nlist; ++e) {
          int64_t i = o->list[e];
          r[e] = i < n1 ? a[i] : b[i - n1];
        }
      }
      break;
    }
    case OP_V_LOAD: case OP_V_STORE: exec_vector_memory(s, o, mask); break;
    case OP_M_DIM: {
      const memref_desc* m = &s->values[o->in[0]].mem;
      for (int l = 0; l < LANES; ++l) {
        if (!mask[l]) continue;
        int64_t d = (int64_t)lane_data(s, o->in[1], l)[0];
        lane_data(s, o->out[0], l)[0] = (uint64_t)(d >= 0 && d < m->rank ? m->sizes[d] : 0);
      }
      break;
    }
    case OP_M_CAST: s->values[o->out[0]].mem = s->values[o->in[0]].mem; break;
    case OP_M_REINTERPRET: exec_reinterpret(s, o, mask); break;
    case OP_M_COLLAPSE: {
      const memref_desc* m = &s->values[o->in[0]].mem;
      memref_desc r = *m;
      r.rank = o->nlist;
      int64_t start = 0;
      for (int g = 0; g < o->nlist; ++g) {
        int64_t size = 1;
        for (int64_t d = start; d < o->list[g]; ++d) size *= m->sizes[d];
        r.sizes[g] = size;
        r.strides[g] = m->strides[o->list[g] - 1];  // contiguous groups: the innermost stride
        start = o->list[g];
      }
      s->values[o->out[0]].mem = r;
      break;
    }
    case OP_THREAD_ID:
      for (int l = 0; l < LANES; ++l)
        if (mask[l]) lane_data(s, o->out[0], l)[0] = o->imm == 0 ? (uint64_t)l : 0;
      break;
    case OP_BLOCK_ID:
      for (int l = 0; l < LANES; ++l)
        if (mask[l]) lane_data(s, o->out[0], l)[0] = (uint64_t)s->block_id[o->imm];
      break;
    case OP_BARRIER:
      if (memcmp(mask, full_mask, LANES) != 0) {
        fail(s, o->op, "a barrier in divergent control flow");
        return;
      }
      s->epoch++;
      s->stats.barriers++;
      break;
    case OP_RETURN: break;
    case OP_M_VIEW: exec_view(s, o, mask); break;
    case OP_FAT_CAST: exec_fat_cast(s, o, mask); break;
    case OP_GATHER_LDS: exec_gather_lds(s, o, mask); break;
    case OP_COUNTER_WAIT: exec_counter_wait(s, o, mask); break;
    case OP_SUBGROUP_FIRST: exec_subgroup_first(s, o, mask); break;
    case OP_SCHEDULING_HINT: break;  // orders LLVM's scheduling, not the lanes
    case OP_FOR: exec_for(s, o, mask); break;
    case OP_IF: exec_if(s, o, mask); break;
    case OP_YIELD:
      for (int i = 0; i < o->nin; ++i) copy_lanes(s, o->in[i], yield_to[i], mask);
      break;
    case OP_BUFFER_LOAD: case OP_BUFFER_STORE: exec_buffer(s, o, mask); break;
    case OP_MFMA: exec_mfma(s, o, mask); break;
  }
}

static int exec_block(sim* s, const sim_block* b, const uint8_t* mask, const int* yield_to) {
  for (int i = 0; i < b->nops && !s->error; ++i) exec_op(s, &b->ops[i], mask, yield_to);
  return !s->error;
}

// ---------------------------------------------------------------------------------------
// Kernel setup and the grid.

// The module's kernels: the main one and, for packed groups, `<main>_group_ends`, which a
// launch runs first (one workgroup) to fill the workspace of group ends.
static gg_status find_kernels(MlirOperation module, MlirOperation* main_kernel,
                              MlirOperation* ends_kernel) {
  gg_op_list funcs = {0};
  gg_collect_ops(module, "gpu.func", &funcs);
  *main_kernel = *ends_kernel = (MlirOperation){NULL};
  int others = 0;
  for (size_t i = 0; i < funcs.count; ++i) {
    MlirStringRef name =
        mlirStringAttrGetValue(mlirOperationGetAttributeByName(funcs.ops[i], gg_str("sym_name")));
    static const char suffix[] = "_group_ends";
    size_t n = sizeof suffix - 1;
    if (name.length > n && !memcmp(name.data + name.length - n, suffix, n)) *ends_kernel = funcs.ops[i];
    else if (mlirOperationIsNull(*main_kernel)) *main_kernel = funcs.ops[i];
    else ++others;
  }
  gg_op_list_free(&funcs);
  if (mlirOperationIsNull(*main_kernel) || others)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "sim: the module must hold one kernel (and its _group_ends kernel)");
  return GG_OK;
}

static void sim_free(sim* s) {
  free_block(&s->body);
  for (int i = 0; i < s->nvalues; ++i) free(s->values[i].data);
  free(s->values);
  free(s->table);
  free(s->lds);
  free(s->lds_epoch);
  free(s->lds_writer);
  free(s->lds_read_epoch);
  free(s->lds_reader);
  free(s->lds_dma_lane);
  free(s->lds_dma_data);
  free(s->lds_dma_seq);
}

// Binds a kernel argument to a row-major buffer of the given dims.
static void bind_buffer(memref_desc* d, void* base, int elem_bytes, int rank, const int64_t* dims) {
  d->base = d->aligned = base;
  d->elem_bytes = elem_bytes;
  d->rank = rank;
  int64_t stride = 1;
  for (int r = rank - 1; r >= 0; --r) {
    d->sizes[r] = dims[r];
    d->strides[r] = stride;
    stride *= dims[r];
  }
  d->bytes = d->alloc_bytes = stride * elem_bytes;
}

// Runs one kernel over the workgroups [lo, hi) of a grid: its arguments are the operands
// present, then the workspace (when given), then one workgroup attribution (LDS).
static gg_status run_kernel(MlirOperation kernel, const gg_op_desc* desc,
                            void* const buffers[GG_OPERAND_COUNT], int64_t m, int64_t* workspace,
                            const int64_t lo[3], const int64_t hi[3], gg_sim_stats* stats) {
  sim* s = calloc(1, sizeof *s);
  if (!s) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  s->desc = desc;
  s->table_size = 1u << 16;
  s->table = calloc(s->table_size, sizeof *s->table);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(kernel, 0));
  if (s->table) compile_block(s, body, &s->body);
  gg_status status = s->error;
  s->error = GG_OK;
  if (!status && !s->table) status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");

  int present = 0;
  for (int i = 0; !status && i < GG_OPERAND_COUNT; ++i) {
    gg_operand_shape shape = gg_operand_shape_of(desc, (gg_operand)i, m);
    if (!shape.present) continue;
    if (present >= s->body.nargs) {
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "sim: the kernel takes too few arguments");
      break;
    }
    bind_buffer(&s->values[s->body.args[present++]].mem, buffers[i], (int)gg_dtype_size(shape.dtype),
                shape.rank, shape.dims);
  }
  if (!status && workspace) {
    if (present >= s->body.nargs) {
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "sim: the kernel takes no workspace");
    } else {
      int64_t groups = desc->g;
      bind_buffer(&s->values[s->body.args[present++]].mem, workspace, 8, 1, &groups);
    }
  }
  // The LDS allocations (workgroup attributions) follow the arguments: one, or three with
  // LDS DMA (one per buffer). They lie side by side in one array, as LLVM lays them out.
  int lds_count = s->body.nargs - present;
  if (!status && (lds_count < 1 || lds_count > 3))
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "sim: the kernel takes %d arguments and LDS allocations, expected %d "
                            "and one to three", s->body.nargs, present);
  if (!status) {
    int64_t sizes[3], elem_sizes[3];
    s->lds_bytes = 0;
    for (int i = 0; i < lds_count; ++i) {
      MlirType lds_type = mlirValueGetType(mlirBlockGetArgument(body, present + i));
      elem_sizes[i] = element_bytes(lds_type) ? element_bytes(lds_type) : 1;
      sizes[i] = mlirShapedTypeGetDimSize(lds_type, 0);
      s->lds_bytes += sizes[i] * elem_sizes[i];
    }
    s->lds = malloc((size_t)s->lds_bytes);
    s->lds_epoch = malloc((size_t)s->lds_bytes * sizeof *s->lds_epoch);
    s->lds_writer = malloc((size_t)s->lds_bytes * sizeof *s->lds_writer);
    s->lds_read_epoch = malloc((size_t)s->lds_bytes * sizeof *s->lds_read_epoch);
    s->lds_reader = malloc((size_t)s->lds_bytes * sizeof *s->lds_reader);
    s->lds_dma_lane = calloc((size_t)s->lds_bytes, sizeof *s->lds_dma_lane);
    s->lds_dma_data = malloc((size_t)s->lds_bytes);
    s->lds_dma_seq = malloc((size_t)s->lds_bytes * sizeof *s->lds_dma_seq);
    int64_t offset = 0;
    for (int i = 0; i < lds_count && s->lds; ++i) {
      memref_desc* d = &s->values[s->body.args[present + i]].mem;
      bind_buffer(d, s->lds + offset, (int)elem_sizes[i], 1, &sizes[i]);
      d->is_lds = 1;
      offset += sizes[i] * elem_sizes[i];
    }
    for (int i = 0; i < s->nvalues && !status; ++i) {
      if (s->values[i].type.kind == K_MEMREF) continue;
      s->values[i].data = calloc((size_t)LANES * (size_t)s->values[i].type.elems, sizeof(uint64_t));
      if (!s->values[i].data) status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    }
    if (!s->lds || !s->lds_epoch || !s->lds_writer || !s->lds_read_epoch || !s->lds_reader ||
        !s->lds_dma_lane || !s->lds_dma_data || !s->lds_dma_seq)
      status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }

  for (int64_t z = lo[2]; !status && z < hi[2]; ++z)
    for (int64_t y = lo[1]; !status && y < hi[1]; ++y)
      for (int64_t x = lo[0]; !status && x < hi[0]; ++x) {
        s->block_id[0] = x;
        s->block_id[1] = y;
        s->block_id[2] = z;
        s->epoch = 0;
        memset(s->lds_epoch, 0xFF, (size_t)s->lds_bytes * sizeof *s->lds_epoch);  // -1
        memset(s->lds_read_epoch, 0xFF, (size_t)s->lds_bytes * sizeof *s->lds_read_epoch);
        memset(s->vmem_issued, 0, sizeof s->vmem_issued);
        exec_block(s, &s->body, full_mask, NULL);
        if (!s->error && s->lds_dma_pending)
          fail(s, kernel, "the workgroup ends with %lld bytes of LDS DMA never waited for",
               (long long)s->lds_dma_pending);
        s->stats.workgroups++;
        status = s->error;
        s->error = GG_OK;
      }
  stats->workgroups += s->stats.workgroups;
  stats->ops_executed += s->stats.ops_executed;
  stats->mfmas += s->stats.mfmas;
  stats->barriers += s->stats.barriers;
  sim_free(s);
  free(s);
  return status;
}

gg_status gg_sim_run(MlirOperation module, const gg_op_desc* desc,
                     void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                     gg_sim_stats* stats) {
  static const int64_t lo[3] = {0, 0, 0}, hi[3] = {INT64_MAX, INT64_MAX, INT64_MAX};
  return gg_sim_run_window(module, desc, buffers, m, zeroing, lo, hi, stats);
}

gg_status gg_sim_run_window(MlirOperation module, const gg_op_desc* in_desc,
                            void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                            const int64_t lo[3], const int64_t hi[3], gg_sim_stats* stats) {
  gg_op_desc desc = gg_op_desc_with_defaults(in_desc);
  gg_sim_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  GG_RETURN_IF_ERROR(gg_launch_check(&desc, buffers, m));
  gg_launch_plan plan = gg_launch_plan_of(&desc, m, zeroing);
  gg_operand_shape out_shape = gg_operand_shape_of(&desc, GG_OPERAND_OUT, m);
  if (plan.zero_output)
    memset(buffers[GG_OPERAND_OUT], 0,
           (size_t)gg_operand_shape_numel(&out_shape) * gg_dtype_size(out_shape.dtype));
  if (!plan.launch) return GG_OK;

  MlirOperation main_kernel, ends_kernel;
  GG_RETURN_IF_ERROR(find_kernels(module, &main_kernel, &ends_kernel));
  int needs_ends = gg_layout_has_group_ends(desc.layout);
  if (needs_ends != !mlirOperationIsNull(ends_kernel))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "sim: the %s layout %s a _group_ends kernel",
                          gg_layout_name(desc.layout), needs_ends ? "needs" : "has no");
  // The workspace starts as garbage, as device memory would: the ends kernel must write it.
  int64_t* workspace = NULL;
  gg_status status = GG_OK;
  if (needs_ends) {
    workspace = malloc((size_t)desc.g * sizeof *workspace);
    if (!workspace) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    memset(workspace, 0xA5, (size_t)desc.g * sizeof *workspace);
    static const int64_t zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    status = run_kernel(ends_kernel, &desc, buffers, m, workspace, zero, one, stats);
  }
  gg_grid_dim_rule rules[3];
  gg_grid_rules(&desc, rules);
  int64_t from[3], to[3];
  for (int d = 0; d < 3; ++d) {
    int64_t extent = gg_grid_dim(&rules[d], m);
    from[d] = lo[d] < 0 ? 0 : lo[d] > extent ? extent : lo[d];
    to[d] = hi[d] < from[d] ? from[d] : hi[d] > extent ? extent : hi[d];
  }
  if (!status) status = run_kernel(main_kernel, &desc, buffers, m, workspace, from, to, stats);
  free(workspace);
  return status;
}
