// gg tune: sweeps every candidate configuration of each descriptor (runtime/tune.h),
// compiled in parallel, checks each against the C reference once, times the ones that
// pass, and records the fastest in a tuning database (docs/tuning.md).
//
//   gg tune --target host -o TABLE [--list FILE|-] [descriptor flags] [--threads T]
//           [--repeat N] [--allow-fast] [--device NAME]
//   gg tune --target gfx942|gfx950 --model -o TABLE [--list FILE|-] [descriptor flags]
//           [--threads T]
//   gg tune --target T --candidates --list FILE|-
//
// --model ranks AMD candidates, which no machine here can time, by the K loop model's
// launch time (compiler/amd_estimate.h), after pruning those that spill or have no loop
// to model and checking the rest in sim; the entries carry no device name (modelled).
//
// --candidates sweeps nothing: it prints, for each line of the list, the line once per
// candidate with its --tile (and --split-k), for `gg bundle --list` and for sweeps that
// time elsewhere (bench/gpu/bench.py --tune on the H200, which has no compiler).
//
// Each candidate is checked once against the C reference, then timed: the median of N
// launches (default 20) on the problem's tensors, through the public API, by the CPU clock. (sm_90a is refused: a GPU kernel needs device timing.) Test hooks, for the sweep's
// own tests: GG_TUNE_FAKE_US="LABEL=us,..." replaces the measured times (candidates not
// listed take 1e9 us) and GG_TUNE_BREAK=LABEL corrupts that candidate's output, where a
// LABEL is MxNxK/wW/sS/ACCUM, e.g. 128x64x128/w0/s1/promoted.
#include "tools/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/amd_estimate.h"
#include "compiler/target.h"
#include "gg/gg.h"
#include "runtime/clock.h"
#include "runtime/files.h"
#include "runtime/parallel.h"
#include "runtime/text.h"
#include "runtime/tune.h"
#include "tests/reference/problem.h"
#include "tests/support/check.h"
#include "tests/support/verify.h"
#include "tools/flags.h"

typedef struct broken_launch {
  gg_verify_api api;
  int corrupt;
} broken_launch;

// The API launch, and for the GG_TUNE_BREAK candidate one output element changed after it.
static gg_status launch(void* user, const gg_problem* problem, gg_check_result* result) {
  broken_launch* b = user;
  GG_RETURN_IF_ERROR(gg_verify_api_launch(&b->api, problem, result));
  if (b->corrupt) ((uint16_t*)problem->buffers[GG_OPERAND_OUT])[0] ^= 0x0040;
  return GG_OK;
}

// Records the sweep's winner for desc over m rows on `device` in the table, and prints
// "tuned KEY: LABEL us SUMMARY"; 0 or an exit code.
static int record_best(const char* table, const gg_op_desc* desc, int64_t m, const char* device,
                       const gg_tune_candidate* best, double us, const char* summary) {
  gg_tune_entry entry;
  entry.key = gg_tune_key_of(desc, m, device);
  entry.best = *best;
  entry.time_us = us;
  gg_status status = gg_tune_db_record(table, &entry);
  if (status) return gg_status_exit(status);
  char key[256], label[96];
  gg_tune_key_format(&entry.key, key, sizeof key);
  gg_tune_candidate_label(&entry.best, label, sizeof label);
  printf("tuned %s: %s %.2f us %s\n", key, label, us, summary);
  fflush(stdout);
  return 0;
}

// The median microseconds of `repeat` launches of a checked candidate (the CPU clock).
static gg_status time_launches(const gg_problem* problem, broken_launch* b, int repeat,
                               gg_check_result* result, double* us) {
  double* times = malloc((size_t)repeat * sizeof *times);
  if (!times) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  gg_status status = GG_OK;
  for (int r = 0; r < repeat && !status; ++r) {
    double start = gg_now_ms();
    status = launch(b, problem, result);
    times[r] = gg_now_ms() - start;
  }
  if (!status) *us = gg_median(times, (size_t)repeat) * 1000.0;
  free(times);
  return status;
}

// One descriptor's sweep: 0 and the best entry, or an exit code.
static int tune_one(gg_context* context, const gg_flags* f, int threads, int repeat, int allow_fast,
                    const char* device, const char* table) {
  gg_tune_candidate candidates[GG_TUNE_MAX_CANDIDATES];
  size_t count = gg_tune_candidates(&f->desc, allow_fast, candidates);
  if (count == 0) return gg_flags_reject("%s", "no candidate configuration is valid for this descriptor");
  gg_kernel* kernels[GG_TUNE_MAX_CANDIDATES] = {0};
  gg_status statuses[GG_TUNE_MAX_CANDIDATES] = {0};
  gg_op_desc descs[GG_TUNE_MAX_CANDIDATES];
  for (size_t i = 0; i < count; ++i) descs[i] = gg_tune_candidate_desc(&f->desc, &candidates[i]);
  double start = gg_now_ms();
  gg_status status = gg_kernels_get(context, descs, count, threads, kernels, statuses);
  if (status) return gg_status_exit(status);
  double compile_ms = gg_now_ms() - start;

  gg_problem_spec spec = gg_flags_problem(f);
  gg_problem* problem;
  status = gg_problem_create(&spec, &problem);
  if (status) {
    for (size_t i = 0; i < count; ++i) gg_status_free(statuses[i]);
    return gg_status_exit(status);
  }
  int best = -1, rejected = 0, code = 0;
  double best_us = 0;
  for (size_t i = 0; i < count && !code; ++i) {
    char label[96];
    gg_tune_candidate_label(&candidates[i], label, sizeof label);
    if (statuses[i]) {
      // A candidate the compiler refuses (registers, say) is skipped, not fatal.
      printf("  %-28s not compiled: %s\n", label, gg_status_message(statuses[i]));
      gg_status_free(statuses[i]);
      statuses[i] = GG_OK;
      continue;
    }
    broken_launch b = {{.context = context, .kernel = kernels[i]}, gg_tune_breaks(label)};
    gg_check_result r;
    memset(&r, 0, sizeof r);
    // Checked once before it is timed: a wrong kernel is never timed, so it never wins.
    status = gg_verify_problem(problem, launch, &b, 1, 0, &r);
    double us = 0;
    if (!status && r.passed) status = time_launches(problem, &b, repeat, &r, &us);
    gg_verify_api_free(&b.api);
    if (status) {
      code = gg_status_exit(status);
      break;
    }
    if (!r.passed) {
      printf("  %-28s REJECTED: %lld mismatches, %lld unwritten against the reference\n", label,
             (long long)r.compare.mismatches, (long long)r.compare.unwritten);
      ++rejected;
      continue;
    }
    double fake = gg_tune_fake_us(label);
    if (fake >= 0) us = fake;
    printf("  %-28s %10.2f us\n", label, us);
    if (best < 0 || us < best_us) best = (int)i, best_us = us;
  }
  for (size_t i = 0; i < count; ++i) gg_status_free(statuses[i]);
  int64_t m = problem->m;
  gg_problem_destroy(problem);
  if (code) return code;
  if (best < 0) {
    fprintf(stderr, "error: every candidate failed its check or its compile\n");
    return GG_EXIT_FAIL;
  }
  char summary[256];
  snprintf(summary, sizeof summary, "(%zu candidates, %d rejected, compiled in %.0f ms on %d threads)",
           count, rejected, compile_ms, threads);
  return record_best(table, &f->desc, m, device, &candidates[best], best_us, summary);
}

// --model (AMD): what one candidate configuration gave, kept for the run, since the lines
// of one shape (its rows-per-group buckets) share their kernels.
typedef struct modelled {
  char desc[512];  // gg_op_desc_format of the candidate
  gg_amd_loop_figures figures;
  char refused[256];  // why it is left out ("" when it is kept)
} modelled;

typedef struct model_cache {
  modelled* items;
  size_t count;
} model_cache;

typedef struct model_batch {
  const gg_op_desc* descs;
  modelled* out;
  uint64_t seed;
} model_batch;

// The candidate's tile on a problem small enough for sim: two groups (a partial row tile
// and a few rows), two column tiles and three K tiles at most.
static gg_status check_in_sim(const gg_op_desc* desc, uint64_t seed, int* passed) {
  gg_problem_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.desc = *desc;
  spec.desc.n = desc->n < 2 * (int64_t)desc->tile.n ? desc->n : 2 * (int64_t)desc->tile.n;
  spec.desc.k = desc->k < 3 * (int64_t)desc->tile.k ? desc->k : 3 * (int64_t)desc->tile.k;
  spec.desc.g = 2;
  int64_t extents[2] = {desc->tile.m + 5, 3};
  spec.extents = extents;
  spec.m = GG_DYNAMIC;
  spec.data = GG_DATA_RANDOM;
  spec.seed = seed;
  gg_check_result r;
  memset(&r, 0, sizeof r);
  GG_RETURN_IF_ERROR(gg_check_run(&spec, GG_CHECK_SIM, 0, &r));
  *passed = r.passed;
  gg_check_result_free(&r);
  return GG_OK;
}

// Compiles candidate i for its statistics, prunes what spills or cannot be modelled, and
// checks the rest in sim.
static void model_one(void* user, size_t i) {
  model_batch* b = user;
  modelled* m = &b->out[i];
  gg_text stats;
  gg_text_init(&stats);
  gg_status status = gg_compile_stats(&b->descs[i], &stats);
  if (!status) status = gg_amd_loop_figures_parse(gg_text_str(&stats), &m->figures);
  gg_text_free(&stats);
  int passed = 0;
  if (status) {
    snprintf(m->refused, sizeof m->refused, "%s", gg_status_message(status));
  } else if (m->figures.scratch_bytes > 0) {
    snprintf(m->refused, sizeof m->refused, "spills: %lld bytes of scratch", (long long)m->figures.scratch_bytes);
  } else if ((status = check_in_sim(&b->descs[i], b->seed + i, &passed))) {
    snprintf(m->refused, sizeof m->refused, "sim: %s", gg_status_message(status));
  } else if (!passed) {
    snprintf(m->refused, sizeof m->refused, "REJECTED: wrong in sim against the reference");
  }
  gg_status_free(status);
}

// One descriptor's modelled sweep (AMD: nothing to time, docs/tuning.md): every candidate
// compiled (in parallel; once a run), pruned, checked in sim, ranked by the K loop model's
// launch time at the line's rows, the fastest recorded with no device name.
static int tune_modelled(model_cache* cache, const gg_flags* f, int threads, const char* table) {
  gg_problem_spec spec = gg_flags_problem(f);
  gg_problem* problem;
  gg_status status = gg_problem_create(&spec, &problem);  // for the grouped extent m
  if (status) return gg_status_exit(status);
  int64_t m = problem->m;
  gg_problem_destroy(problem);
  gg_tune_candidate candidates[GG_TUNE_MAX_CANDIDATES + 1];
  size_t count = gg_tune_candidates(&f->desc, 0, candidates);
  if (count == 0) return gg_flags_reject("%s", "no candidate configuration is valid for this descriptor");
  // The entry points' own choice is always a candidate (the large-M rule's 256-wide tiles
  // take waves_per_eu 1, outside the space), so that the table never ranks below it.
  gg_tune_candidate rule = {gg_tile_config_for_launch(&f->desc, m), f->desc.accum};
  int has_rule = 0;
  for (size_t i = 0; i < count; ++i) {
    const gg_tile_config* c = &candidates[i].tile;
    has_rule |= c->m == rule.tile.m && c->n == rule.tile.n && c->k == rule.tile.k &&
                c->waves_per_eu == rule.tile.waves_per_eu;
  }
  if (!has_rule) candidates[count++] = rule;
  gg_op_desc descs[GG_TUNE_MAX_CANDIDATES + 1], fresh[GG_TUNE_MAX_CANDIDATES + 1];
  size_t index[GG_TUNE_MAX_CANDIDATES + 1], missing = 0;
  modelled* grown = realloc(cache->items, (cache->count + count) * sizeof *grown);
  if (!grown) return gg_status_exit(gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory"));
  cache->items = grown;
  for (size_t i = 0; i < count; ++i) {
    descs[i] = gg_tune_candidate_desc(&f->desc, &candidates[i]);
    char text[512];
    gg_op_desc_format(&descs[i], text, sizeof text);
    index[i] = cache->count + missing;
    for (size_t c = 0; c < cache->count; ++c)
      if (!strcmp(cache->items[c].desc, text)) index[i] = c;
    if (index[i] == cache->count + missing) {
      memset(&cache->items[index[i]], 0, sizeof cache->items[index[i]]);
      snprintf(cache->items[index[i]].desc, sizeof cache->items[index[i]].desc, "%s", text);
      fresh[missing++] = descs[i];
    }
  }
  double start = gg_now_ms();
  model_batch b = {fresh, cache->items + cache->count, (uint64_t)gg_now_ms()};
  gg_parallel_for(missing, threads, model_one, &b);
  cache->count += missing;
  double compile_ms = gg_now_ms() - start;

  int best = -1, refused = 0;
  double best_us = 0;
  for (size_t i = 0; i < count; ++i) {
    const modelled* r = &cache->items[index[i]];
    char label[96];
    gg_tune_candidate_label(&candidates[i], label, sizeof label);
    if (r->refused[0]) {
      printf("  %-28s left out: %s\n", label, r->refused);
      ++refused;
      continue;
    }
    double us = gg_amd_modelled_us(&descs[i], m, &r->figures);
    printf("  %-28s %10.2f us modelled (share_bound %.2f)\n", label, us, r->figures.share_bound);
    if (best < 0 || us < best_us) best = (int)i, best_us = us;
  }
  if (best < 0) {
    fprintf(stderr, "error: every candidate was left out\n");
    return GG_EXIT_FAIL;
  }
  char summary[256];
  snprintf(summary, sizeof summary, "modelled (%zu candidates, %d left out; %zu compiled and checked "
           "in sim in %.0f ms on %d threads)", count, refused, missing, compile_ms, threads);
  return record_best(table, &f->desc, m, "", &candidates[best], best_us, summary);  // no device
}

// One list line's candidates in its own accumulation, each as the line with its tile.
static void print_candidates(const gg_flags* f, const char* line) {
  gg_tune_candidate candidates[GG_TUNE_MAX_CANDIDATES];
  size_t count = gg_tune_candidates(&f->desc, 0, candidates);
  for (size_t i = 0; i < count; ++i) {
    const gg_tile_config* t = &candidates[i].tile;
    if (t->split_k > 1)
      printf("%s --tile %dx%dx%d --split-k %d\n", line, t->m, t->n, t->k, t->split_k);
    else if (f->desc.target == GG_TARGET_SM90A)
      printf("%s --tile %dx%dx%d\n", line, t->m, t->n, t->k);
    else
      printf("%s --tile %dx%dx%d --wpe %d\n", line, t->m, t->n, t->k, t->waves_per_eu);
  }
}

int gg_tune_main(int argc, char** argv) {
  gg_flags f;
  gg_flags_init(&f);
  const char *table = NULL, *list = NULL, *device = "";
  int64_t threads = 0, repeat = 20;
  int allow_fast = 0, candidates_only = 0, model = 0, code = 0;
  model_cache cache = {NULL, 0};
  for (int i = 2; i < argc && !code; ++i) {
    int taken = gg_flags_take(&f, argc, argv, &i);
    if (taken >= 0) {
      code = taken;
    } else if (!strcmp(argv[i], "--allow-fast")) {
      allow_fast = 1;
    } else if (!strcmp(argv[i], "--candidates")) {
      candidates_only = 1;
    } else if (!strcmp(argv[i], "--model")) {
      model = 1;
    } else if (strcmp(argv[i], "-o") && strcmp(argv[i], "--list") && strcmp(argv[i], "--threads") &&
               strcmp(argv[i], "--repeat") && strcmp(argv[i], "--device")) {
      code = gg_flags_reject("unknown flag '%s'", argv[i]);
    } else if (i + 1 >= argc) {
      code = gg_flags_reject("%s needs a value", argv[i]);
    } else if (!strcmp(argv[i], "-o")) {
      table = argv[++i];
    } else if (!strcmp(argv[i], "--list")) {
      list = argv[++i];
    } else if (!strcmp(argv[i], "--device")) {
      device = argv[++i];
    } else if (!strcmp(argv[i], "--threads")) {
      if (!gg_flags_number(argv[++i], 0, 64, &threads))
        code = gg_flags_reject("--threads takes 0 (one per core) to 64, not '%s'", argv[i]);
    } else if (!gg_flags_number(argv[++i], 1, 100000, &repeat)) {
      code = gg_flags_reject("--repeat takes 1 to 100000 launches, not '%s'", argv[i]);
    }
  }
  const char* target = f.target;
  if (!code && !f.target_given) code = gg_flags_reject("%s", "--target is required (host)");
  if (!code && candidates_only && (!list || f.op >= 0))
    code = gg_flags_reject("%s", "--candidates takes a --list of descriptors and no descriptor flags");
  if (!code && candidates_only) candidates_only = 2;  // below: print, sweep nothing
  int amd = !strcmp(target, "gfx942") || !strcmp(target, "gfx950");
  if (!code && model && (candidates_only || !amd))
    code = gg_flags_reject("%s", "--model ranks AMD candidates (--target gfx942|gfx950) by the K "
                                 "loop model; it does not combine with --candidates");
  // The launches are timed around the verify path's copies, which is the host kernel's
  // time but not a GPU kernel's: sm_90a needs device timing (docs/tuning.md).
  if (!code && !candidates_only && !strcmp(target, "sm_90a"))
    code = gg_flags_reject("%s", "gg tune times host kernels; sm_90a is timed on the GPU (the "
                                 "runtime's GG_AUTOTUNE, or bench/gpu/bench.py --tune: docs/tuning.md)");
  if (!code && !candidates_only && !model && strcmp(target, "host"))
    code = gg_flags_reject("gg tune times kernels on the host, not '%s' (AMD: --model, the K "
                           "loop model's ranking)",
                           target);
  if (!code && !candidates_only && !table) code = gg_flags_reject("%s", "-o TABLE is required");
  if (!code && !list && f.op < 0)
    code = gg_flags_reject("%s", "nothing to tune: give descriptor flags, or --list FILE (- for stdin)");
  if (threads == 0) threads = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
  gg_context* context = NULL;
  if (!code && !candidates_only && !model) {
    gg_status status = gg_context_create(NULL, &context);
    if (status) code = gg_status_exit(status);
  }
  if (!code && f.op >= 0 && !(code = gg_flags_finish(&f)))
    code = model ? tune_modelled(&cache, &f, (int)threads, table)
                 : tune_one(context, &f, (int)threads, (int)repeat, allow_fast, device, table);
  gg_text text;
  gg_text_init(&text);
  if (!code && list) {
    gg_status status = !strcmp(list, "-") ? gg_fd_read_text(0, "standard input", &text) : gg_file_read(list, &text);
    if (status) code = gg_status_exit(status);
    int line_number = 0, tuned = 0;
    for (const char* p = gg_text_str(&text); !code && *p;) {
      size_t length = strcspn(p, "\n");
      char* line = strndup(p, length);
      p += length + (p[length] == '\n');
      if (!line) {
        code = GG_EXIT_FAIL;
        break;
      }
      char where[512];
      snprintf(where, sizeof where, "%s:%d", list, ++line_number);
      gg_flags one;
      int blank;
      code = gg_flags_parse_line(line, where, target, &one, &blank);
      if (!code && !blank && candidates_only) {
        print_candidates(&one, line);
        ++tuned;
      } else if (!code && !blank) {
        printf("# %s\n", line);
        code = model ? tune_modelled(&cache, &one, (int)threads, table)
                     : tune_one(context, &one, (int)threads, (int)repeat, allow_fast, device, table);
        ++tuned;
      }
      gg_flags_free(&one);
      free(line);
    }
    if (!code && tuned == 0) code = gg_flags_reject("the list %s holds no descriptor", list);
  }
  gg_text_free(&text);
  free(cache.items);
  gg_context_destroy(context);
  gg_flags_free(&f);
  return code;
}
