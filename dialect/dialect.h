// The gg dialect: registration, op accessors and builders.
#ifndef GG_DIALECT_DIALECT_H_
#define GG_DIALECT_DIALECT_H_

#include <stdbool.h>

#include "gg/op.h"
#include "gg/status.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

// The IRDL text of the dialect (dialect/gg.irdl.mlir, embedded at build time).
extern const char gg_dialect_irdl[];

// The upstream dialects gg IR and its lowerings create ops of (what gg passes declare as
// dependent dialects); returns their count.
#define GG_DIALECT_DEPENDENCIES 12
intptr_t gg_dialect_dependencies(MlirDialectHandle handles[GG_DIALECT_DEPENDENCIES]);

// Loads the gg dialect into ctx once (loading an IRDL dialect twice crashes MLIR 22).
// Also loads the upstream dialects gg IR and its lowerings use. Returns false when the
// embedded definition does not load.
bool gg_dialect_load(MlirContext ctx);

// Op names.
#define GG_OP_GROUPED_MATMUL "gg.grouped_matmul"
#define GG_OP_GRID "gg.grid"
#define GG_OP_GROUP_ENDS "gg.group_ends"
#define GG_OP_RESOLVE_GROUP "gg.resolve_group"
#define GG_OP_LOAD_TILE "gg.load_tile"
#define GG_OP_LOAD_SCALES "gg.load_scales"
#define GG_OP_MMA_TILE "gg.mma_tile"
#define GG_OP_MMA_SCALED_TILE "gg.mma_scaled_tile"
#define GG_OP_EPILOGUE "gg.epilogue"

// gg.resolve_group results, in order.
typedef enum gg_frame_field {
  GG_FRAME_VALID = 0,
  GG_FRAME_GROUP,
  GG_FRAME_A_ROW,
  GG_FRAME_ROW_LIMIT,
  GG_FRAME_OUT_ROW,
  GG_FRAME_B_ROW,
  GG_FRAME_COL_LIMIT,
  GG_FRAME_OUT_COL,
  GG_FRAME_K_LO,
  GG_FRAME_K_HI,
  GG_FRAME_SA_ROW,
  GG_FRAME_SA_KSTRIDE,
  GG_FRAME_SB_BASE,
  GG_FRAME_SB_COL,
  GG_FRAME_SB_KSTRIDE,
  GG_FRAME_COUNT
} gg_frame_field;

// The descriptor a gg.grouped_matmul carries (layout, scaling, B layout, target, N, K,
// G, tile) with the FP8 flavour read from A's element type. Fails with a message when
// an attribute is missing or malformed.
gg_status gg_grouped_matmul_desc(MlirOperation op, gg_op_desc* desc);

// The operand value of a gg.grouped_matmul (null value for absent metadata).
MlirValue gg_grouped_matmul_operand(MlirOperation op, gg_operand operand);

// The memref type of an operand for a descriptor (dynamic where the grouped extent enters).
MlirType gg_operand_memref_type(MlirContext ctx, const gg_op_desc* desc, gg_operand operand);

// Builds `gg.grouped_matmul` at the end of block, on operands[GG_OPERAND_COUNT] (the
// metadata entry is ignored when the layout has none).
MlirOperation gg_grouped_matmul_build(MlirBlock block, MlirLocation loc, const gg_op_desc* desc,
                                      const MlirValue* operands);

// Builds a module holding `func.func @<name>` over the operands' memrefs, whose body is
// one gg.grouped_matmul. The function carries llvm.emit_c_interface.
MlirModule gg_build_module(MlirContext ctx, const gg_op_desc* desc, const char* name);

// True for gg.mma_tile and gg.mma_scaled_tile.
bool gg_is_mma(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif  // GG_DIALECT_DIALECT_H_
