// gg-launch: runs kernels from bundles and checks them against the C reference, with the
// runtime alone (libgg_runtime: no LLVM, no MLIR). What runs on GPU machines.
//
//   gg-launch --bundle FILE [--bundle FILE ...] [gg run's descriptor flags]
//             [--data exact|random] [--seed S] [--repeat N] [--graph] [--replays R]
//             [--out-offset B]
//   gg-launch --bundle FILE --list [--data ...] [--seed S] [--repeat N] [--graph]
//             [--replays R] [--out-offset B]
//
// The first form runs one problem (the target defaults to the bundle's); --list runs every
// kernel of the bundles with the flags it was bundled from. --graph (sm_90a) captures the
// first launch into a CUDA graph and replays it for every launch; --replays R (implies
// --graph) replays it R times back to back for every launch, with no copy or wait between
// them, as a framework's graph runs: each of the N launches copies the operands in (the
// output poisoned), replays R times, and copies the output back. --out-offset B (sm_90a;
// 2 to 14, even) puts the output B bytes past a 16-byte boundary, where TMA cannot store
// it: the kernels' stores through their threads alone. Each problem prints
//   kernel=<name> m=<m> load_ms=<t> run_ms=<first> median_ms=<of N>
//   PASS max_abs_err=<e> max_ulp=<u> elements=<n> checksum=<16 hex digits>
// as `gg run` does. Exit codes are gg run's: 0 every problem passed, 1 a FAIL, 2 input
// refused (a bad bundle, a kernel no bundle holds, bad flags), 3 no GPU for the kernels.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gg/gg.h"
#include "runtime/clock.h"
#include "tests/reference/problem.h"
#include "tests/support/verify.h"
#include "tools/flags.h"

#define MAX_BUNDLES 64


static void usage(FILE* out) {
  fprintf(out,
          "usage: gg-launch --bundle FILE [--bundle FILE ...] [descriptor flags as gg run]\n"
          "                 [--data exact|random] [--seed S] [--repeat N] [--graph]\n"
          "                 [--replays R] [--out-offset B]\n"
          "       gg-launch --bundle FILE --list [--data exact|random] [--seed S] [--repeat N]\n"
          "                 [--graph] [--replays R] [--out-offset B]\n");
}

// A missing kernel is refused input (exit 2) like a contract violation.
static int exit_of(gg_status status) {
  if (gg_status_code_of(status) == GG_STATUS_NOT_FOUND) {
    fprintf(stderr, "error: %s\n", gg_status_message(status));
    gg_status_free(status);
    return GG_EXIT_REJECTED;
  }
  return gg_status_exit(status);
}

// One problem: the kernel from the context's bundles, launched `repeat` times, checked.
static int run_one(gg_context* context, const gg_flags* f, int repeat, int graph,
                   int out_offset) {
  if (!strcmp(f->target, "sim") || !strcmp(f->target, "hsa"))
    return gg_flags_reject("--target %s: gg-launch runs the bundle's kernels on their target "
                           "(host, gfx942, gfx950 or sm_90a; without --target, the bundle's)",
                           f->target);
  if (graph && strcmp(f->target, "sm_90a") != 0)
    return gg_flags_reject("--graph and --replays replay CUDA graphs: they take sm_90a "
                           "kernels, not %s", f->target);
  if (out_offset && strcmp(f->target, "sm_90a") != 0)
    return gg_flags_reject("--out-offset takes sm_90a kernels, not %s", f->target);
  gg_problem_spec spec = gg_flags_problem(f);
  gg_problem* problem;
  gg_status status = gg_problem_create(&spec, &problem);
  if (status) return exit_of(status);
  gg_check_result r;
  memset(&r, 0, sizeof r);
  double start = gg_now_ms();
  gg_kernel* kernel = NULL;
  status = gg_kernel_get(context, &problem->desc, &kernel);
  r.compile_ms = gg_now_ms() - start;
  gg_verify_api api = {.context = context, .kernel = kernel, .graph = graph, .out_offset = out_offset};
  if (!status) status = gg_verify_problem(problem, gg_verify_api_launch, &api, repeat, 0, &r);
  gg_verify_api_free(&api);
  gg_problem_destroy(problem);
  if (status) return exit_of(status);
  printf("kernel=%s m=%lld load_ms=%.1f run_ms=%.2f median_ms=%.2f\n", r.kernel_name,
         (long long)r.m, r.compile_ms, r.run_ms, r.median_ms);
  printf("%s max_abs_err=%g max_ulp=%d elements=%lld checksum=%016" PRIx64 "\n",
         r.passed ? "PASS" : "FAIL", r.compare.max_abs_err, r.compare.max_ulp,
         (long long)r.compare.elements, r.checksum);
  fflush(stdout);
  return r.passed ? GG_EXIT_PASS : GG_EXIT_FAIL;
}

// The worse of two exit codes (a failure outranks an unavailable device).
static int worse(int a, int b) {
  static const int rank[] = {0, 3, 2, 1};  // PASS, FAIL, REJECTED, UNAVAILABLE
  return rank[b] > rank[a] ? b : a;
}

// Every kernel of the bundles, with the flags it was bundled from.
static int run_list(gg_context* context, const gg_flags* overrides, int repeat, int graph,
                    int out_offset) {
  size_t count = gg_context_bundle_kernel_count(context);
  int code = GG_EXIT_PASS;
  for (size_t i = 0; i < count; ++i) {
    gg_bundle_kernel_info info;
    gg_status status = gg_context_bundle_kernel(context, i, &info);
    if (status) return exit_of(status);
    printf("# %s\n", info.flags);
    char where[64];
    snprintf(where, sizeof where, "kernel %zu of the bundles", i);
    gg_flags f;
    int blank;
    int one = gg_flags_parse_line(info.flags, where, gg_target_name(info.desc.target), &f, &blank);
    if (!one && blank) one = gg_flags_reject("%s", "a bundled kernel has no flags");
    if (!one) {
      f.data = overrides->data;
      f.seed = overrides->seed;
      one = run_one(context, &f, repeat, graph, out_offset);
    }
    gg_flags_free(&f);
    code = worse(code, one);
  }
  return code;
}

int main(int argc, char** argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? GG_EXIT_REJECTED : GG_EXIT_PASS;
  }
  const char* bundles[MAX_BUNDLES];
  size_t bundle_count = 0;
  int list = 0, graph = 0, code = 0;
  int64_t repeat = 1, replays = 0, out_offset = 0;
  gg_flags f;
  gg_flags_init(&f);
  for (int i = 1; i < argc && !code; ++i) {
    int taken = gg_flags_take(&f, argc, argv, &i);
    if (taken > 0) code = taken;
    if (taken >= 0) continue;
    if (!strcmp(argv[i], "--list")) {
      list = 1;
    } else if (!strcmp(argv[i], "--graph")) {
      graph = 1;
    } else if (strcmp(argv[i], "--bundle") != 0 && strcmp(argv[i], "--repeat") != 0 &&
               strcmp(argv[i], "--replays") != 0 && strcmp(argv[i], "--out-offset") != 0) {
      code = gg_flags_reject("unknown flag '%s'", argv[i]);
    } else if (i + 1 >= argc) {
      code = gg_flags_reject("%s needs a value", argv[i]);
    } else if (!strcmp(argv[i], "--bundle")) {
      if (bundle_count == MAX_BUNDLES) code = gg_flags_reject("%s", "more than 64 bundles");
      else bundles[bundle_count++] = argv[++i];
    } else if (!strcmp(argv[i], "--out-offset")) {
      if (!gg_flags_number(argv[++i], 2, 14, &out_offset) || out_offset % 2)
        code = gg_flags_reject("--out-offset takes an even byte count from 2 to 14, not '%s'",
                               argv[i]);
    } else if (!strcmp(argv[i], "--replays")) {
      if (!gg_flags_number(argv[++i], 1, 100000, &replays))
        code = gg_flags_reject("--replays takes a replay count from 1 to 100000, not '%s'", argv[i]);
    } else if (!gg_flags_number(argv[++i], 1, 1000000, &repeat)) {
      code = gg_flags_reject("--repeat takes a launch count from 1 to 1000000, not '%s'", argv[i]);
    }
  }
  if (replays) graph = (int)replays;
  if (!code && bundle_count == 0) code = gg_flags_reject("%s", "--bundle FILE is required");
  if (!code && list && f.op >= 0)
    code = gg_flags_reject("%s", "--list runs the bundled kernels: it takes no descriptor flags");
  if (!code && !list && f.op < 0)
    code = gg_flags_reject("%s", "give descriptor flags (--op ...) or --list");
  if (code) {
    gg_flags_free(&f);
    return code;
  }

  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";  // kernels come from the bundles alone
  options.bundles = bundles;
  options.bundle_count = bundle_count;
  gg_context* context;
  double start = gg_now_ms();
  gg_status status = gg_context_create(&options, &context);
  if (status) {
    gg_flags_free(&f);
    return exit_of(status);
  }
  fprintf(stderr, "loaded %zu kernels from %zu bundle%s in %.1f ms\n",
          gg_context_bundle_kernel_count(context), bundle_count, bundle_count == 1 ? "" : "s",
          gg_now_ms() - start);
  if (list) {
    code = run_list(context, &f, (int)repeat, graph, (int)out_offset);
  } else {
    if (!f.target_given) {  // the bundles' target
      gg_bundle_kernel_info info;
      if (!gg_context_bundle_kernel(context, 0, &info)) f.target = gg_target_name(info.desc.target);
    }
    code = gg_flags_finish(&f);
    if (!code) code = run_one(context, &f, (int)repeat, graph, (int)out_offset);
  }
  gg_context_destroy(context);
  gg_flags_free(&f);
  return code;
}
