// The descriptor flags every gg tool shares (`gg run`, `gg compile`, `gg bundle`, its list
// files, and gg-launch), parsed with range checks: nothing wraps, and a rejection prints
// "error: <the rule>" and gives the exit code. No compiler: gg-launch links it.
//
//   --op stacked|dynamic|mm [--ranks 2d3d|3d3d|3d2d|2d2d] --groups E1,E2,...  (E*C: C groups
//   of extent E) [--M m] [--N n] [--K k] [--scaling rowwise|blockwise] [--b plain|preshuffled]
//   [--target host|sim|gfx942|gfx950|hsa|sm_90a] [--fp8 e4m3fn|e4m3fnuz] [--data random|exact]
//   [--seed S] [--tile MxNxK] [--wpe W] [--loop rolled|unrolled]
//   [--accum promoted|fast] [--no-zeroing]
//   [--alternate-constant] [--chip gfx942|gfx950] [--api]
#ifndef GG_TOOLS_FLAGS_H_
#define GG_TOOLS_FLAGS_H_

#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"
#include "tests/reference/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GG_EXIT_PASS = 0, GG_EXIT_FAIL = 1, GG_EXIT_REJECTED = 2, GG_EXIT_UNAVAILABLE = 3 };

typedef struct gg_flags {
  gg_op_desc desc;  // complete after gg_flags_finish
  int op;           // gg_op_kind
  int ranks;        // gg_ranks
  int64_t* groups;  // owned
  int64_t group_count;
  int has_groups;
  int64_t m, n, k;  // -1: not given
  int fp8_given;
  const char* target;  // host, sim, gfx942, gfx950, hsa, sm_90a (a static string)
  int target_given;
  gg_data_kind data;
  uint64_t seed;
  int zeroing;
  int alternate_constant;
  int api;         // run host kernels through the public API (cached shared objects)
  gg_target chip;  // what --target sim emulates
} gg_flags;

void gg_flags_init(gg_flags* f);
void gg_flags_free(gg_flags* f);

// Takes the flag at argv[*i] (and its value, advancing *i): 0 when taken, -1 when it is
// not a descriptor flag (the caller's to handle), else the exit code of a rejection.
int gg_flags_take(gg_flags* f, int argc, char** argv, int* i);

// Checks what is required and completes f->desc: 0 or the exit code of a rejection.
int gg_flags_finish(gg_flags* f);

// A whole line of descriptor flags (words split at blanks; '#' starts a comment), with
// target standing for --target when the line has none: 0, or the exit code after printing
// the rule and "(in <where>)". A blank line sets *blank.
int gg_flags_parse_line(const char* line, const char* where, const char* target, gg_flags* f,
                        int* blank);

// The problem `gg run` draws for the parsed flags.
gg_problem_spec gg_flags_problem(const gg_flags* f);

// Prints "error: <message>" and frees status: the exit code of its code (the contract and
// what gg does not implement exit 2, a missing target or device 3, the rest 1).
int gg_status_exit(gg_status status);

// Prints "error: " and the formatted rule: GG_EXIT_REJECTED.
int gg_flags_reject(const char* format, const char* detail);

// A decimal integer in [lo, hi], the whole text: no sign where lo >= 0, no wrapping.
int gg_flags_number(const char* text, int64_t lo, int64_t hi, int64_t* value);

#ifdef __cplusplus
}
#endif

#endif  // GG_TOOLS_FLAGS_H_
