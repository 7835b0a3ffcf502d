// What every target's lowering of gg.group_ends shares: the op's parameters and the one
// rule for a packed group's end (dialect/gg.irdl.mlir states it). The host runs it as a
// loop before the grid; AMD targets as a kernel of its own that the runtime launches first.
#ifndef GG_PASSES_GROUP_ENDS_H_
#define GG_PASSES_GROUP_ENDS_H_

#include <stdbool.h>

#include "ir/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_group_ends_op {
  MlirOperation op;
  bool counts;     // sizes: the metadata counts rows; otherwise it holds inclusive prefix ends
  bool rows;       // the axis is A's rows (its dimension 0); otherwise the N columns
  long long n, g;  // N, and the number of groups
  gg_text meta_type, a_type, ends_type;  // the operand and result types, as text
} gg_group_ends_op;

// Reads a gg.group_ends op; emits an error and returns false when it is malformed.
// gg_group_ends_op_free releases the type texts.
bool gg_group_ends_op_read(MlirOperation op, gg_group_ends_op* out);
void gg_group_ends_op_free(gg_group_ends_op* ends);

// Emits, each line prefixed by `indent`, `%<total> = ` the axis length from the template's
// %a (and %c0).
void gg_emit_group_axis(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                        const char* total);

// Emits `%<name> = ` the end of a group that follows one ending at `previous` (an index
// in [0, total]), from its metadata value `raw` (an index): a count is clamped to
// [0, total] and added, a prefix end replaces it; the result is clamped to
// [previous, total]. Applied from 0 over a run of groups it gives the run's combined
// effect, so the same rule serves a serial loop and a parallel scan.
void gg_emit_group_end(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                       const char* name, const char* previous, const char* raw,
                       const char* total);

// Emits `%<result> = scf.for` over groups [lo, hi) from a run ending at `start`, yielding
// the last end; with `store` each end is written to %ends[g] as i64. Reads %meta, uses
// %c1; the names are index values of the template.
void gg_emit_group_ends_loop(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                             const char* result, const char* lo, const char* hi,
                             const char* start, const char* total, bool store);

// Emits, each line prefixed by `indent`, `%<name> = ` where group `group` (an index value
// below G) starts: the end of the group before it, read from the ends memref `ends` (of
// type `ends_type`, i64), or 0 for group 0. Uses %c0 and %c1 of the template.
void gg_emit_group_start(gg_text* t, const char* indent, const char* name, const char* group,
                         const char* ends, const char* ends_type);

// Emits the parallel computation of every group end into %ends by `threads` threads:
// thread %tid folds the groups of its chunk with the group end rule from 0 and stores the
// result in %part (of part_type); after a barrier thread 0 turns the partial ends of the
// chunks that hold groups (ceil(G / chunk) of them) into chunk starts; after another, every thread walks its chunk again from its start, storing
// each end. Reads %meta, %a, %tid, %c0 and %c1 of the template. O(G / threads) loads per
// thread.
void gg_emit_group_ends_scan(gg_text* t, const gg_group_ends_op* ends, const char* indent,
                             int threads, const char* part_type);

#ifdef __cplusplus
}
#endif

#endif  // GG_PASSES_GROUP_ENDS_H_
