// Integer range facts about index values: what gg-mask and gg-k-loop use to prove that a
// bound can never cut a tile, or that a trip count is a compile-time constant.
// Conservative: a side that cannot be proven is reported unknown.
#ifndef GG_PASSES_BOUNDS_H_
#define GG_PASSES_BOUNDS_H_

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_range {
  bool has_lo, has_hi;
  int64_t lo, hi;  // inclusive
} gg_range;

// The range of an integer or index value, from constants, arith on them, loop induction
// variables of scf.for with known bounds, gg.grid block indices and memref.dim.
gg_range gg_value_range(MlirValue value);

// True (and *constant set) when the value is provably one constant.
bool gg_value_constant(MlirValue value, int64_t* constant);

#ifdef __cplusplus
}
#endif

#endif  // GG_PASSES_BOUNDS_H_
