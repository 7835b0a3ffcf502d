// bench/groups: what a launch costs as the number of groups grows, on the host through the
// public API: a stacked call with total M 256, N 8, K 16 (the case where every tile used to
// scan all G groups: 0.3 s at G = 10,000 and about 30 s at 100,000). Each group count is
// checked against the reference once, then timed: median of `runs` launches.
//
//   bazel run -c opt //bench:groups -- [--runs N] [--groups 1000,10000,...]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gg/gg.h"
#include "runtime/clock.h"
#include "tests/reference/problem.h"
#include "tests/reference/reference.h"
#include "tests/support/dl.h"



static int fail(gg_status status, const char* what) {
  fprintf(stderr, "bench: %s: %s\n", what, gg_status_message(status));
  gg_status_free(status);
  return 1;
}

// One group count: the first 256 groups hold a row each, the rest are empty.
static int measure(gg_context* context, int64_t groups, int runs) {
  int64_t* extents = calloc((size_t)groups, sizeof *extents);
  if (!extents) return 1;
  for (int64_t g = 0; g < groups && g < 256; ++g) extents[g] = 1;
  gg_op_desc d = {0};
  d.layout = GG_LAYOUT_SIZES;
  d.n = 8;
  d.k = 16;
  d.g = groups;
  gg_problem_spec spec = {d, extents, GG_DYNAMIC, 1, GG_DATA_EXACT, 1, 0};
  gg_problem* p;
  gg_status status = gg_problem_create(&spec, &p);
  free(extents);
  if (status) return fail(status, "problem");
  gg_dl_operands dl;
  gg_dl_wrap(p, p->buffers, (DLDevice){kDLCPU, 0}, &dl);
  int64_t count = gg_operand_shape_numel(&p->shapes[GG_OPERAND_OUT]);
  uint16_t* want = malloc((size_t)count * sizeof *want);
  double* times = malloc((size_t)runs * sizeof *times);
  double compile_ms = gg_now_ms();
  status = gg_f8f8bf16_rowwise_grouped_stacked(context, dl.pointers[0], dl.pointers[1],
                                               dl.pointers[2], dl.pointers[3], dl.pointers[4],
                                               &dl.tensors[GG_OPERAND_OUT]);
  compile_ms = gg_now_ms() - compile_ms;  // the first call compiles (or loads) the kernel
  int ok = !status && want && times;
  if (ok) {
    gg_poison_bf16(want, count);
    gg_reference_run(p, want, NULL);
    ok = memcmp(want, p->buffers[GG_OPERAND_OUT], (size_t)count * sizeof *want) == 0;
  }
  for (int r = 0; ok && r < runs; ++r) {
    double start = gg_now_ms();
    status = gg_f8f8bf16_rowwise_grouped_stacked(context, dl.pointers[0], dl.pointers[1],
                                                 dl.pointers[2], dl.pointers[3], dl.pointers[4],
                                                 &dl.tensors[GG_OPERAND_OUT]);
    times[r] = gg_now_ms() - start;
    ok = !status;
  }
  if (ok) {
    printf("%8lld %10lld %14.2f %14.3f %s\n", (long long)groups,
           (long long)(256 / 128 + groups), compile_ms, gg_median(times, (size_t)runs), "PASS");
  } else if (status) {
    fail(status, "launch");
  } else {
    printf("%8lld FAIL: the output differs from the reference\n", (long long)groups);
  }
  free(want);
  free(times);
  gg_problem_destroy(p);
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  int runs = 5;
  const char* list = "100,1000,10000,30000,100000";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--runs")) runs = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--groups")) list = argv[i + 1];
  }
  if (runs < 1) runs = 1;
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  gg_context* context;
  gg_status status = gg_context_create(&options, &context);
  if (status) return fail(status, "context");
  printf("stacked op on the host, total M 256 (one row in each of the first 256 groups), "
         "N 8, K 16; median of %d launches\n", runs);
  printf("%8s %10s %14s %14s\n", "groups", "tiles", "first_call_ms", "launch_ms");
  int failed = 0;
  char* copy = strdup(list);
  for (char* item = strtok(copy, ","); item; item = strtok(NULL, ","))
    failed |= measure(context, atoll(item), runs);
  free(copy);
  gg_context_destroy(context);
  return failed;
}
