// One problem checked end to end whatever launches it: poison the output, launch, run the
// C reference, compare. `gg run` and the suites use it through check.h (which compiles);
// gg-launch uses it alone, with kernels from bundles (no compiler, no MLIR).
#ifndef GG_TESTS_SUPPORT_VERIFY_H_
#define GG_TESTS_SUPPORT_VERIFY_H_

#include <stdint.h>

#include "gg/gg.h"
#include "tests/reference/problem.h"
#include "tests/reference/reference.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_check_result {
  int passed;               // no mismatch, nothing unwritten, nothing clobbered
  gg_compare_result compare;
  uint64_t checksum;        // FNV-1a of the whole output buffer (poison included)
  int64_t m;                // the grouped extent the problem used
  double compile_ms;        // what getting the kernel took (compile, cache or bundle)
  double run_ms;            // the first launch
  double median_ms;         // the median of the launches (repeat > 1)
  int64_t sim_mfmas;        // sim: MFMA instructions executed
  char kernel_name[256];
  uint16_t* output;         // the kernel's output when keep_output was set (owned)
  uint16_t* expected;       // the reference's output when keep_output was set (owned)
  int64_t output_count;
} gg_check_result;

// Launches the kernel on the problem's buffers (its output already poisoned).
typedef gg_status (*gg_verify_launch_fn)(void* user, const gg_problem* problem,
                                         gg_check_result* result);

// Launches `repeat` times (at least once) and checks the output of the last launch
// against the reference; result->compile_ms is left as the caller set it.
gg_status gg_verify_problem(const gg_problem* problem, gg_verify_launch_fn launch, void* user,
                            int repeat, int keep_output, gg_check_result* result);

// A launch through the public API: kDLCPU tensors over the problem's buffers for a host
// kernel; for an AMD kernel, the context's GPU memory, copied in and the output back.
// sm_90a kernels run on CUDA device 0 with operands copied in and the output back; with
// `graph` above 0 the first launch is captured into a CUDA graph on a stream of its own and
// every launch replays it `graph` times back to back (one wait, after the last).
// With `out_offset` (sm_90a, an even count of bytes below 16) the output starts that many
// bytes past its allocation's 16-byte aligned start: a base TMA cannot address.
typedef struct gg_verify_api {
  gg_context* context;
  gg_kernel* kernel;
  int graph;  // 0: launched directly; N: N replays of the captured graph a launch
  struct gg_verify_cuda* cuda;  // owned: gg_verify_api_free
  int out_offset;
} gg_verify_api;
gg_status gg_verify_api_launch(void* api, const gg_problem* problem, gg_check_result* result);
void gg_verify_api_free(gg_verify_api* api);

void gg_check_result_free(gg_check_result* result);

#ifdef __cplusplus
}
#endif

#endif  // GG_TESTS_SUPPORT_VERIFY_H_
