// Runs one problem end to end on the host (compile, poison, launch, reference, compare):
// what `gg run` prints and what the GoogleTest suites assert on.
#ifndef GG_TESTS_SUPPORT_CHECK_H_
#define GG_TESTS_SUPPORT_CHECK_H_

#include <stdint.h>

#include "gg/status.h"
#include "tests/reference/problem.h"
#include "tests/reference/reference.h"
#include "tests/support/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

// Where a check runs the kernel.
typedef enum gg_check_backend {
  GG_CHECK_HOST = 0,  // JIT-compiled for this CPU (the spec's target must be host)
  GG_CHECK_SIM,       // the AMD kernel IR of the spec's target (gfx942, gfx950) in sim
  GG_CHECK_API,       // the public API on kDLCPU tensors: a cached host shared object
  GG_CHECK_GPU,       // the public API on kDLROCM tensors: the code object through HSA
} gg_check_backend;

// The target of this machine's GPU (GG_STATUS_UNAVAILABLE, saying why, without one).
gg_status gg_check_gpu_target(gg_target* out);

// Fails with the contract's status (GG_STATUS_INVALID_ARGUMENT) when the spec is
// rejected, or a compile status; otherwise fills result, PASS or FAIL.
gg_status gg_check_run(const gg_problem_spec* spec, gg_check_backend backend, int keep_output,
                       gg_check_result* result);
gg_status gg_check_host(const gg_problem_spec* spec, int keep_output, gg_check_result* result);


#ifdef __cplusplus
}
#endif

#endif  // GG_TESTS_SUPPORT_CHECK_H_
