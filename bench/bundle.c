// bench/bundle: what bundles cost. Bundling 100 kernels (host, and gfx950) with one
// thread per core and with one thread; loading the bundle into a context (median of 5);
// the first launch of a kernel from it (the lookup, loading the shared object from memory,
// and the call; median over the 100 kernels) against a launch of a kernel already loaded.
// Every launched output is checked against the reference.
//
//   bazel run -c opt //bench:bundle -- [--kernels N] [--skip-amd]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gg/gg.h"
#include "runtime/clock.h"
#include "tests/reference/problem.h"
#include "tests/support/verify.h"




static int fail(gg_status status, const char* what) {
  fprintf(stderr, "bench: %s: %s\n", what, gg_status_message(status));
  gg_status_free(status);
  return 1;
}

// Kernel i of the family: stacked, rowwise, N x K x G over a small grid of shapes.
static gg_op_desc kernel_desc(int i, gg_target target) {
  gg_op_desc d = {0};
  d.layout = GG_LAYOUT_SIZES;
  d.n = 128 * (1 + i % 5);
  d.k = 128 * (1 + (i / 5) % 4);
  d.g = 1 + i / 20;
  d.target = target;
  d.fp8 = target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  return d;
}

static long long file_bytes(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int bundle(const char* path, const gg_op_desc* descs, int count, int threads, double* ms) {
  double start = gg_now_ms();
  gg_status status = gg_bundle_write(path, descs, NULL, (size_t)count, threads);
  *ms = gg_now_ms() - start;
  return status ? fail(status, "gg_bundle_write") : 0;
}

static gg_context* context_with(const char* path) {
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = "";
  options.bundles = &path;
  options.bundle_count = 1;
  gg_context* context = NULL;
  gg_status status = gg_context_create(&options, &context);
  if (status) fail(status, "loading the bundle");
  return context;
}

// Gets and launches a kernel of the family from the context, checking its output: the
// time of the get (a lookup, plus loading the shared object from memory the first time)
// plus that of the call (the reference's time is not counted).
static int launch(gg_context* context, const gg_op_desc* desc, double* ms) {
  int64_t* groups = calloc((size_t)desc->g, sizeof *groups);
  if (!groups) return 1;
  for (int64_t g = 0; g < desc->g; ++g) groups[g] = 64 + 16 * g;
  gg_problem_spec spec = {*desc, groups, GG_DYNAMIC, 1, GG_DATA_RANDOM, 1, 0};
  gg_problem* p;
  gg_status status = gg_problem_create(&spec, &p);
  free(groups);
  if (status) return fail(status, "problem");
  double start = gg_now_ms();
  gg_kernel* kernel = NULL;
  status = gg_kernel_get(context, &p->desc, &kernel);
  double get_ms = gg_now_ms() - start;
  gg_verify_api api = {.context = context, .kernel = kernel};
  gg_check_result r = {0};
  if (!status) status = gg_verify_problem(p, gg_verify_api_launch, &api, 1, 0, &r);
  gg_problem_destroy(p);
  if (status) return fail(status, "launch");
  if (!r.passed) {
    fprintf(stderr, "bench: kernel %lld x %lld x %lld FAILED against the reference\n",
            (long long)desc->n, (long long)desc->k, (long long)desc->g);
    return 1;
  }
  *ms = get_ms + r.run_ms;
  return 0;
}

int main(int argc, char** argv) {
  int count = 100, amd = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--kernels") && i + 1 < argc) count = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--skip-amd")) amd = 0;
    else {
      fprintf(stderr, "usage: bench/bundle [--kernels N] [--skip-amd]\n");
      return 2;
    }
  }
  if (count < 1 || count > 100) count = 100;
  const char* tmp = getenv("TMPDIR");
  char host_path[4096], amd_path[4096];
  snprintf(host_path, sizeof host_path, "%s/gg-bench-%d-host.ggb", tmp && *tmp ? tmp : "/tmp", (int)getpid());
  snprintf(amd_path, sizeof amd_path, "%s/gg-bench-%d-gfx950.ggb", tmp && *tmp ? tmp : "/tmp", (int)getpid());
  gg_op_desc host[100], gpu[100];
  for (int i = 0; i < count; ++i) {
    host[i] = kernel_desc(i, GG_TARGET_HOST);
    gpu[i] = kernel_desc(i, GG_TARGET_GFX950);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  double host_all, host_one, amd_all = 0, amd_one = 0;
  if (bundle(host_path, host, count, 0, &host_all) || bundle(host_path, host, count, 1, &host_one))
    return 1;
  if (amd && (bundle(amd_path, gpu, count, 0, &amd_all) || bundle(amd_path, gpu, count, 1, &amd_one)))
    return 1;

  double loads[5], amd_loads[5];
  for (int r = 0; r < 5; ++r) {
    double start = gg_now_ms();
    gg_context* context = context_with(host_path);
    loads[r] = gg_now_ms() - start;
    if (!context) return 1;
    gg_context_destroy(context);
    if (amd) {
      start = gg_now_ms();
      context = context_with(amd_path);
      amd_loads[r] = gg_now_ms() - start;
      if (!context) return 1;
      gg_context_destroy(context);
    }
  }
  gg_context* context = context_with(host_path);
  if (!context) return 1;
  double* first = malloc((size_t)count * sizeof *first);
  double* again = malloc((size_t)count * sizeof *again);
  if (!first || !again) return 1;
  for (int i = 0; i < count; ++i)
    if (launch(context, &host[i], &first[i]) || launch(context, &host[i], &again[i])) return 1;
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  gg_context_destroy(context);

  printf("bundles of %d kernels (stacked rowwise, N 128..640, K 128..512, G 1..5), %ld cores\n",
         count, cores);
  printf("| target | bundle bytes | bundling, %ld threads (ms) | bundling, 1 thread (ms) | load, median of 5 (ms) |\n", cores);
  printf("|---|---:|---:|---:|---:|\n");
  printf("| host | %lld | %.0f | %.0f | %.2f |\n", file_bytes(host_path), host_all, host_one,
         gg_median(loads, 5));
  if (amd)
    printf("| gfx950 | %lld | %.0f | %.0f | %.2f |\n", file_bytes(amd_path), amd_all, amd_one,
           gg_median(amd_loads, 5));
  printf("host launches from the bundle, each checked: first (lookup + load + call) median %.2f ms, "
         "again (call) median %.2f ms; bundle_hits=%llu compiles=%llu\n",
         gg_median(first, count), gg_median(again, count), (unsigned long long)stats.bundle_hits,
         (unsigned long long)stats.compiles);
  unlink(host_path);
  if (amd) unlink(amd_path);
  free(first);
  free(again);
  return 0;
}
