// The reference: every gg operator in plain C on FP8 bytes, accumulating in double and
// rounding once to bf16. It is written from docs/semantics.md, not from the compiler.
#ifndef GG_TESTS_REFERENCE_REFERENCE_H_
#define GG_TESTS_REFERENCE_REFERENCE_H_

#include <stdint.h>

#include "tests/reference/problem.h"

#ifdef __cplusplus
extern "C" {
#endif

// Writes the elements the contract writes into out (numel of the output operand) and
// leaves the others as they are. When bound is not NULL it receives, per output element,
// how far the kernel's accumulation may stray from the exact sum (0 where nothing is
// written): FP32's (K + 4) 2^-24 sum |a b sa sb| on the host and AMD, wgmma's model on
// sm_90a (docs/semantics.md, "Accumulation"). The rows are spread over the machine's
// cores; each element is the same sum in the same order on any of them.
void gg_reference_run(const gg_problem* problem, uint16_t* out, double* bound);

typedef struct gg_compare_result {
  int64_t elements;
  int64_t mismatches;     // outside tolerance, or bits differing under exact data
  int64_t unwritten;      // poison left where the reference wrote
  int64_t clobbered;      // written where the reference left poison
  double max_abs_err;
  int32_t max_ulp;
  int64_t first_bad;      // index of the first bad element, -1 if none
} gg_compare_result;

// Compares a kernel's output with the reference's (both started from the same poison).
// exact: bits must match. Otherwise each element must lie within one bf16 ulp of the
// reference plus the accumulation bound bound[i].
gg_compare_result gg_compare_outputs(const uint16_t* got, const uint16_t* want,
                                     const double* bound, int64_t count, int exact);

#ifdef __cplusplus
}
#endif

#endif  // GG_TESTS_REFERENCE_REFERENCE_H_
