// The walk every target lowering of tile-level gg IR shares: it visits the ops in order,
// hands each tile op to the target, maps tile values to what the target made of them,
// and carries lowered tiles through scf.for loops (retyping their iteration arguments).
#ifndef GG_PASSES_TILE_LOWERING_H_
#define GG_PASSES_TILE_LOWERING_H_

#include <stdbool.h>

#include "ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_tile_lowering gg_tile_lowering;

typedef struct gg_tile_target {
  const char* pass_name;  // for messages
  // Each lowers one op, inserting its code in the op's block (before the op, or later in
  // the block: the walk visits only the ops the block held when it began), and maps the
  // op's tile results with gg_tile_map. On failure it emits an error and returns false.
  bool (*load_tile)(gg_tile_lowering* l, MlirOperation op);
  bool (*load_scales)(gg_tile_lowering* l, MlirOperation op);
  bool (*mma)(gg_tile_lowering* l, MlirOperation op);
  bool (*epilogue)(gg_tile_lowering* l, MlirOperation op);
  bool (*constant)(gg_tile_lowering* l, MlirOperation op);  // a splat tile constant
  // The value a loop carries for a lowered initial tile (it becomes the init operand;
  // its type becomes the iteration argument's and the result's).
  MlirValue (*carry_in)(gg_tile_lowering* l, MlirOperation loop, MlirValue lowered_init);
  // The value to yield for a carried slot, given the lowered yielded tile and the slot's
  // iteration argument.
  MlirValue (*carry_out)(gg_tile_lowering* l, MlirOperation yield, MlirValue lowered,
                         MlirValue iteration_argument);
} gg_tile_target;

struct gg_tile_lowering {
  const gg_tile_target* target;
  void* state;              // the target's own
  gg_value_map values;      // tile value -> lowered value
  gg_op_list dead;          // rewritten ops, erased at the end (users first)
  bool ok;
};

// True for the 2-D vector types gg-tile gives tiles (and targets may give lowered tiles).
bool gg_is_tile_type(MlirType type);

// The lowered value of a tile (or the value itself when a loop already carries it).
MlirValue gg_tile_lookup(gg_tile_lowering* l, MlirValue tile, MlirOperation user);
void gg_tile_map(gg_tile_lowering* l, MlirValue tile, MlirValue lowered);
// Marks an op as rewritten: erased when the walk ends.
void gg_tile_done(gg_tile_lowering* l, MlirOperation op);
// Runs a template in front of `before` (see gg_inline_template); failure sticks in l->ok.
bool gg_tile_emit(gg_tile_lowering* l, MlirOperation before, const gg_text* text,
                  const MlirValue* args, intptr_t arg_count, MlirValue* results,
                  intptr_t result_count);

// Replaces a tile op by a template whose results become the lowered values of the op's
// results, in order (at most 4), and marks the op rewritten. Returns l->ok.
bool gg_tile_replace(gg_tile_lowering* l, MlirOperation op, const gg_text* text,
                     const MlirValue* args, intptr_t arg_count);

// Lowers every tile op under `block`, then erases the rewritten ops and checks that no gg
// op is left under `root`. Returns l->ok.
bool gg_tile_lower(gg_tile_lowering* l, MlirBlock block, MlirOperation root);

#ifdef __cplusplus
}
#endif

#endif  // GG_PASSES_TILE_LOWERING_H_
