// A grouped-GEMM problem on the host: a descriptor, group extents, and input buffers
// drawn from a seed. gg run, the tests and the benchmarks all build their inputs here.
#ifndef GG_TESTS_REFERENCE_PROBLEM_H_
#define GG_TESTS_REFERENCE_PROBLEM_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gg_data_kind {
  GG_DATA_RANDOM = 0,  // every finite FP8 code, scales in [2^-4, 2^2)
  GG_DATA_EXACT,       // small integers and power-of-two scales: every partial sum exact
} gg_data_kind;

typedef struct gg_problem_spec {
  gg_op_desc desc;
  // Extents along the grouped axis, one per group (desc.g of them): rows per group
  // (sizes, offsets), valid rows per slab (padded), the slab height (batched), columns
  // per group (n_offsets), K per group (k_offsets).
  const int64_t* extents;
  // The grouped extent m (see gg_operand_shape_of); GG_DYNAMIC derives it: the sum of
  // the extents (sizes, offsets), the largest extent (padded, batched), 128 otherwise.
  int64_t m;
  int zeroing;             // padded: padding rows are zero-filled
  gg_data_kind data;
  uint64_t seed;
  // Odd groups along a split N or K hold a positive constant, so an over-read past a
  // group boundary accumulates instead of cancelling.
  int alternate_constant;
} gg_problem_spec;

typedef struct gg_problem {
  gg_op_desc desc;  // with defaults resolved
  int64_t m;
  int zeroing;
  gg_data_kind data;
  gg_operand_shape shapes[GG_OPERAND_COUNT];
  void* buffers[GG_OPERAND_COUNT];  // NULL for an absent operand
  size_t bytes[GG_OPERAND_COUNT];
} gg_problem;

// Validates the spec (the descriptor, and extents that fit the grouped axis) and draws
// the inputs. The output buffer is allocated but not filled: callers poison it.
gg_status gg_problem_create(const gg_problem_spec* spec, gg_problem** out_problem);
void gg_problem_destroy(gg_problem* problem);

// The bf16 bit pattern outputs are poisoned with: a signalling NaN no arithmetic makes.
#define GG_POISON_BF16 ((uint16_t)0x7FA5)
void gg_poison_bf16(uint16_t* out, int64_t count);


// Small deterministic generator (splitmix64).
typedef struct gg_rng { uint64_t state; } gg_rng;
uint64_t gg_rng_next(gg_rng* rng);
int64_t gg_rng_range(gg_rng* rng, int64_t lo, int64_t hi);  // inclusive

#ifdef __cplusplus
}
#endif

#endif  // GG_TESTS_REFERENCE_PROBLEM_H_
