// A serving loop: one context compiles the MoE layer's kernel once, then several threads
// each launch a stream of requests whose tokens fall differently on the experts. Every
// request is checked against the reference; the report gives the cache counters and the
// launch latency.
//
//   bazel run //examples:serving -- [threads] [requests per thread]
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/example.h"
#include "runtime/clock.h"
#include "tests/reference/reference.h"

enum { G = 8, N = 256, K = 512, TOKENS = 128 };

typedef struct worker {
  gg_context* context;
  int index, requests;
  double* latency_ms;  // one per request
  int failures;
} worker;


// One request: TOKENS tokens routed to G experts at random, launched and checked.
static int serve(worker* w, int request) {
  gg_rng rng = {(uint64_t)(w->index * 1000003 + request)};
  int64_t tokens[G] = {0};
  for (int t = 0; t < TOKENS; ++t) ++tokens[gg_rng_range(&rng, 0, G - 1)];
  gg_op_desc desc = {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FN, N, K, G,
                     {0, 0, 0, 0, GG_LOOP_ROLLED, 0}, GG_TARGET_HOST, GG_ACCUM_PROMOTED};
  gg_problem_spec spec = {desc, tokens, GG_DYNAMIC, 0, GG_DATA_RANDOM, rng.state, 0};
  gg_problem* p;
  gg_status status = gg_problem_create(&spec, &p);
  if (status) return example_fail("inputs", status);
  int64_t count = gg_operand_shape_numel(&p->shapes[GG_OPERAND_OUT]);
  gg_poison_bf16(p->buffers[GG_OPERAND_OUT], count);

  int64_t xq_shape[] = {TOKENS, K}, wq_shape[] = {G, N, K}, xs_shape[] = {TOKENS},
          ws_shape[] = {G, N}, sizes_shape[] = {G}, out_shape[] = {TOKENS, N};
  DLTensor XQ = example_tensor(p->buffers[GG_OPERAND_A], EXAMPLE_FP8, 2, xq_shape);
  DLTensor WQ = example_tensor(p->buffers[GG_OPERAND_B], EXAMPLE_FP8, 3, wq_shape);
  DLTensor XS = example_tensor(p->buffers[GG_OPERAND_A_SCALE], EXAMPLE_F32, 1, xs_shape);
  DLTensor WS = example_tensor(p->buffers[GG_OPERAND_B_SCALE], EXAMPLE_F32, 2, ws_shape);
  DLTensor M_sizes = example_tensor(p->buffers[GG_OPERAND_META], EXAMPLE_I64, 1, sizes_shape);
  DLTensor out = example_tensor(p->buffers[GG_OPERAND_OUT], EXAMPLE_BF16, 2, out_shape);

  double start = gg_now_ms();
  status = gg_f8f8bf16_rowwise_grouped_stacked(w->context, &XQ, &WQ, &XS, &WS, &M_sizes, &out);
  w->latency_ms[request] = gg_now_ms() - start;
  int failed = 0;
  if (status) {
    failed = example_fail("request", status);
  } else {
    uint16_t* want = malloc((size_t)count * sizeof *want);
    double* bound = malloc((size_t)count * sizeof *bound);
    gg_poison_bf16(want, count);
    gg_reference_run(p, want, bound);
    gg_compare_result r = gg_compare_outputs(p->buffers[GG_OPERAND_OUT], want, bound, count, 0);
    failed = r.mismatches || r.unwritten || r.clobbered;
    free(want);
    free(bound);
  }
  gg_problem_destroy(p);
  return failed;
}

static void* run_worker(void* arg) {
  worker* w = arg;
  for (int r = 0; r < w->requests; ++r) w->failures += serve(w, r);
  return NULL;
}


int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  int requests = argc > 2 ? atoi(argv[2]) : 16;
  if (threads < 1 || threads > 64 || requests < 1 || requests > 100000) {
    fprintf(stderr, "usage: serving [threads 1..64] [requests per thread]\n");
    return 2;
  }
  gg_context* context;
  gg_status status = gg_context_create(NULL, &context);
  if (status) return example_fail("context", status);

  // Compile (or load from the disk cache) before traffic arrives.
  gg_op_desc desc = {GG_LAYOUT_SIZES, GG_SCALING_ROWWISE, GG_B_PLAIN, GG_FP8_E4M3FN, N, K, G,
                     {0, 0, 0, 0, GG_LOOP_ROLLED, 0}, GG_TARGET_HOST, GG_ACCUM_PROMOTED};
  double start = gg_now_ms();
  gg_kernel* kernel;
  status = gg_kernel_get(context, &desc, &kernel);
  if (status) return example_fail("warm-up", status);
  double warmup_ms = gg_now_ms() - start;
  gg_cache_stats warm;
  gg_context_cache_stats(context, &warm);

  worker* workers = calloc((size_t)threads, sizeof *workers);
  double* latency = calloc((size_t)threads * (size_t)requests, sizeof *latency);
  pthread_t* ids = calloc((size_t)threads, sizeof *ids);
  if (!workers || !latency || !ids) return 1;
  start = gg_now_ms();
  for (int t = 0; t < threads; ++t) {
    workers[t] = (worker){context, t, requests, latency + (size_t)t * (size_t)requests, 0};
    pthread_create(&ids[t], NULL, run_worker, &workers[t]);
  }
  int failures = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    failures += workers[t].failures;
  }
  double wall_ms = gg_now_ms() - start;

  int total = threads * requests;
  gg_sort_doubles(latency, (size_t)total);
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  printf("serving %s: %d threads x %d requests, %d tokens over %d experts each\n",
         gg_kernel_name(kernel), threads, requests, TOKENS, G);
  printf("  warm-up %.1f ms (%s)\n", warmup_ms,
         warm.compiles ? "compiled" : warm.disk_hits ? "loaded from the disk cache" : "in memory");
  printf("  cache: compiles=%llu disk_hits=%llu memory_hits=%llu files_rejected=%llu\n",
         (unsigned long long)stats.compiles, (unsigned long long)stats.disk_hits,
         (unsigned long long)stats.memory_hits, (unsigned long long)stats.files_rejected);
  printf("  launch latency ms: p50=%.2f p95=%.2f max=%.2f; wall %.0f ms (with input drawing and "
         "reference checks)\n",
         latency[total / 2], latency[(total * 95) / 100], latency[total - 1], wall_ms);
  printf("  %s: %d of %d requests match the reference\n", failures ? "FAIL" : "PASS",
         total - failures, total);
  free(ids);
  free(latency);
  free(workers);
  gg_context_destroy(context);
  return failures ? 1 : 0;
}
