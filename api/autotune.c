// Autotuning on a miss (docs/tuning.md). Opt-in, as upstream: with GG_AUTOTUNE=1 or the
// context option, a launch whose caller names no tile and whose key no table holds is
// tuned once, on the caller's own tensors and device: every candidate of the key is got
// (compiled in parallel with libgg; libgg_runtime takes those its bundles hold), checked
// against the output of the kernel the entry points would launch, and only then timed,
// on the caller's stream with device events (CUDA) or the clock (host), cycling through
// copies of B so that the weights do not stay in L2. The fastest is recorded in the
// tuning database next to the kernel cache and in the context's tables. A stream that is
// capturing a graph is never benchmarked on, and AMD has no device timing yet: those
// launches keep the table or the rule, logged once a context.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "runtime/clock.h"

#define WARMUP_LAUNCHES 3
#define HOST_TIMED_LAUNCHES 20
#define CUDA_ROUNDS 5             // each timed by one pair of events ...
#define CUDA_LAUNCHES_A_ROUND 10  // ... around this many launches, so no launch waits for the host
#define ROTATED_B_BYTES ((size_t)128 << 20)  // the copies of B cycled through: twice an H200's L2
#define MAX_B_COPIES 8
#define DATABASE_NAME "tuning.db"

enum { NOTE_CAPTURE = 1, NOTE_AMD = 2 };

// Logs message once in the context's life (note is one of the NOTE_ bits).
static void note_once(gg_context* context, unsigned note, const char* message) {
  pthread_mutex_lock(&context->mutex);
  int first = !(context->autotune_notes & note);
  context->autotune_notes |= note;
  pthread_mutex_unlock(&context->mutex);
  if (first) gg_log(context, GG_LOG_INFO, "autotune: %s", message);
}

// The stream the caller launches on (NULL: the legacy default stream).
static void* stream_of(const gg_checked_call* call) { return call->launch ? call->launch->stream : NULL; }

// Scratch for a sweep on the call's device: the output the entry points' kernel writes
// (the reference), each candidate's output, copies of B, and both outputs on the host.
typedef struct scratch {
  gg_cuda_device* cuda;  // NULL: host memory
  size_t out_bytes, b_bytes;
  void* out;
  void* reference;
  void* b[MAX_B_COPIES];  // b[0] is the caller's
  int b_copies;
  uint16_t* host_out;  // bf16
  uint16_t* host_reference;
} scratch;

static void scratch_free(scratch* s) {
  if (s->cuda) {
    gg_cuda_free(s->cuda, s->out);
    gg_cuda_free(s->cuda, s->reference);
    for (int i = 1; i < s->b_copies; ++i) gg_cuda_free(s->cuda, s->b[i]);
  } else {
    free(s->out);
    free(s->reference);
  }
  free(s->host_out);
  free(s->host_reference);
}

static size_t operand_bytes(const gg_checked_call* call, gg_operand operand) {
  gg_operand_shape shape = gg_operand_shape_of(&call->desc, operand, call->m);
  return shape.present ? (size_t)gg_operand_shape_numel(&shape) * gg_dtype_size(shape.dtype) : 0;
}

static gg_status scratch_make(gg_context* context, const gg_checked_call* call, scratch* s) {
  memset(s, 0, sizeof *s);
  s->out_bytes = operand_bytes(call, GG_OPERAND_OUT);
  s->b_bytes = operand_bytes(call, GG_OPERAND_B);
  s->b[0] = call->buffers[GG_OPERAND_B];
  s->b_copies = 1;
  s->host_out = malloc(s->out_bytes ? s->out_bytes : 1);
  s->host_reference = malloc(s->out_bytes ? s->out_bytes : 1);
  if (!s->host_out || !s->host_reference)
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "autotune: out of host memory");
  if (call->device_type != kDLCUDA) {
    s->out = malloc(s->out_bytes ? s->out_bytes : 1);
    s->reference = malloc(s->out_bytes ? s->out_bytes : 1);
    return s->out && s->reference ? GG_OK : gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "autotune: out of memory");
  }
  GG_RETURN_IF_ERROR(gg_context_cuda(context, call->device_id, &s->cuda));
  GG_RETURN_IF_ERROR(gg_cuda_alloc(s->cuda, s->out_bytes, &s->out));
  GG_RETURN_IF_ERROR(gg_cuda_alloc(s->cuda, s->out_bytes, &s->reference));
  // B is whole once the caller's stream has run what it queued; the copies (on the
  // legacy stream) are whole before any launch on the caller's stream reads them.
  GG_RETURN_IF_ERROR(gg_cuda_stream_synchronize(s->cuda, stream_of(call)));
  size_t wanted = s->b_bytes ? (ROTATED_B_BYTES + s->b_bytes - 1) / s->b_bytes : 1;
  for (; s->b_copies < MAX_B_COPIES && (size_t)s->b_copies < wanted; ++s->b_copies) {
    GG_RETURN_IF_ERROR(gg_cuda_alloc(s->cuda, s->b_bytes, &s->b[s->b_copies]));
    GG_RETURN_IF_ERROR(gg_cuda_copy_on_device(s->cuda, s->b[s->b_copies], s->b[0], s->b_bytes));
  }
  return gg_cuda_stream_synchronize(s->cuda, NULL);
}

// Fills the device buffer `where` with 0xFF bytes (a bf16 NaN), so what a kernel leaves
// unwritten shows.
static gg_status poison(scratch* s, void* where) {
  if (!s->cuda) {
    memset(where, 0xFF, s->out_bytes);
    return GG_OK;
  }
  memset(s->host_out, 0xFF, s->out_bytes);  // the bytes to copy there
  return gg_cuda_copy_to_device(s->cuda, where, s->host_out, s->out_bytes);
}

// Runs kernel on the call's inputs (B from copy b) into `out`.
static gg_status run(gg_context* context, gg_kernel* kernel, const gg_checked_call* call, scratch* s,
                     void* out, int b) {
  gg_checked_call c = *call;
  c.desc = kernel->desc;
  c.buffers[GG_OPERAND_OUT] = out;
  c.buffers[GG_OPERAND_B] = s->b[b];
  return gg_kernel_run(context, kernel, &c);
}

// Waits for the call's stream and copies `from` (the device's) to `to` (the host's).
static gg_status read_back(const gg_checked_call* call, scratch* s, const void* from, uint16_t* to) {
  if (!s->cuda) {
    memcpy(to, from, s->out_bytes);
    return GG_OK;
  }
  GG_RETURN_IF_ERROR(gg_cuda_stream_synchronize(s->cuda, stream_of(call)));
  return gg_cuda_copy_to_host(s->cuda, to, from, s->out_bytes);
}

static float bf16_value(uint16_t bits) {
  uint32_t word = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &word, sizeof value);
  return value;
}

// Elements of `got` that disagree with the reference, and the relative Frobenius norm of
// the difference. Two correct kernels of one key differ by their order of summation
// (another tile, another split of K) and, in fast mode, by the tensor cores' narrower
// accumulator: on the H200 at K 7168 such pairs differed by up to ~2% of the output's RMS
// in a few elements, and by ~0.4% in the norm. So an element agrees when it is bit-equal
// (elements neither writes, say) or within 2% of itself plus 5% of the reference's RMS,
// and both are finite; a wrong kernel (a tile missed, misplaced or stale) is off by the
// RMS itself.
static int64_t disagreements(const uint16_t* got, const uint16_t* want, size_t count, double* relative) {
  double squares = 0, differences = 0;
  size_t finite = 0;
  for (size_t i = 0; i < count; ++i) {
    float w = bf16_value(want[i]);
    if (isfinite(w)) squares += (double)w * w, ++finite;
  }
  double rms = finite ? sqrt(squares / (double)finite) : 0;
  int64_t bad = 0;
  for (size_t i = 0; i < count; ++i) {
    if (got[i] == want[i]) continue;
    float g = bf16_value(got[i]), w = bf16_value(want[i]);
    if (!isfinite(g) || !isfinite(w)) {
      ++bad;
      continue;
    }
    double d = (double)g - w;
    differences += d * d;
    if (fabs(d) > 0.02 * fabs(w) + 0.05 * rms) ++bad;
  }
  *relative = squares > 0 ? sqrt(differences / squares) : 0;
  return bad;
}

// The median microseconds of one launch of a checked kernel.
static gg_status time_kernel(gg_context* context, gg_kernel* kernel, const gg_checked_call* call,
                             scratch* s, double* us) {
  int launches = 0;
  for (int w = 0; w < WARMUP_LAUNCHES; ++w)
    GG_RETURN_IF_ERROR(run(context, kernel, call, s, s->out, launches++ % s->b_copies));
  if (!s->cuda) {
    double times[HOST_TIMED_LAUNCHES];
    for (int r = 0; r < HOST_TIMED_LAUNCHES; ++r) {
      double start = gg_now_ms();
      GG_RETURN_IF_ERROR(run(context, kernel, call, s, s->out, 0));
      times[r] = gg_now_ms() - start;
    }
    *us = gg_median(times, HOST_TIMED_LAUNCHES) * 1000.0;
    return GG_OK;
  }
  void *start = NULL, *stop = NULL;
  gg_status status = gg_cuda_event_create(s->cuda, &start);
  if (!status) status = gg_cuda_event_create(s->cuda, &stop);
  double rounds[CUDA_ROUNDS];
  for (int r = 0; r < CUDA_ROUNDS && !status; ++r) {
    status = gg_cuda_event_record(s->cuda, start, stream_of(call));
    for (int l = 0; l < CUDA_LAUNCHES_A_ROUND && !status; ++l)
      status = run(context, kernel, call, s, s->out, launches++ % s->b_copies);
    if (!status) status = gg_cuda_event_record(s->cuda, stop, stream_of(call));
    double ms = 0;
    if (!status) status = gg_cuda_event_elapsed_ms(s->cuda, start, stop, &ms);
    rounds[r] = ms * 1000.0 / CUDA_LAUNCHES_A_ROUND;
  }
  if (!status) *us = gg_median(rounds, CUDA_ROUNDS);
  gg_cuda_event_destroy(s->cuda, start);
  gg_cuda_event_destroy(s->cuda, stop);
  return status;
}

// For the GG_TUNE_BREAK test hook: the candidate's first output element made infinite.
static gg_status corrupt(scratch* s) {
  static const uint16_t infinity = 0x7F80;
  if (!s->cuda) {
    memcpy(s->out, &infinity, sizeof infinity);
    return GG_OK;
  }
  return gg_cuda_copy_to_device(s->cuda, s->out, &infinity, sizeof infinity);
}

// Every candidate of the call's descriptor, checked against the entry points' kernel, and
// the fastest that passes into *best (*found 0 when none passes).
static gg_status sweep(gg_context* context, const gg_checked_call* call, const char* key,
                       gg_tune_candidate* best, double* best_us, int* found) {
  *found = 0;
  gg_tune_candidate candidates[GG_TUNE_MAX_CANDIDATES + 1];
  size_t count = gg_tune_candidates(&call->desc, 0, candidates);
  // The kernel the entry points launch without tuning, last: the reference.
  gg_op_desc descs[GG_TUNE_MAX_CANDIDATES + 1];
  for (size_t i = 0; i < count; ++i) descs[i] = gg_tune_candidate_desc(&call->desc, &candidates[i]);
  descs[count] = call->desc;
  gg_kernel* kernels[GG_TUNE_MAX_CANDIDATES + 1] = {0};
  gg_status statuses[GG_TUNE_MAX_CANDIDATES + 1] = {0};
  double start = gg_now_ms();
  GG_RETURN_IF_ERROR(gg_kernels_get(context, descs, count + 1, 0, kernels, statuses));
  gg_log(context, GG_LOG_INFO, "autotune: %s: %zu candidates got in %.0f ms", key, count,
         gg_now_ms() - start);
  for (size_t i = 0; i < count; ++i)
    if (statuses[i]) {
      // A candidate that cannot be had (not in a runtime-only context's bundles, or one the
      // compiler refuses) is left out, not fatal.
      char label[96];
      gg_tune_candidate_label(&candidates[i], label, sizeof label);
      gg_log(context, GG_LOG_DEBUG, "autotune: %s: %s left out: %s", key, label,
             gg_status_message(statuses[i]));
      gg_status_free(statuses[i]);
      kernels[i] = NULL;
    }
  if (statuses[count]) {
    // The launch takes its own way (a runtime-only context runs the tile unsplit where
    // its bundles lack the split-K kernel): nothing to check the candidates against.
    gg_log(context, GG_LOG_INFO, "autotune: %s: not tuned: %s", key, gg_status_message(statuses[count]));
    gg_status_free(statuses[count]);
    return GG_OK;
  }

  scratch s;
  gg_status status = scratch_make(context, call, &s);
  if (!status) status = poison(&s, s.reference);
  if (!status) status = run(context, kernels[count], call, &s, s.reference, 0);
  if (!status) status = read_back(call, &s, s.reference, s.host_reference);
  size_t elements = s.out_bytes / sizeof(uint16_t), written = 0;
  for (size_t i = 0; !status && i < elements; ++i) written += s.host_reference[i] != 0xFFFF;
  if (!status && elements && !written) {
    gg_log(context, GG_LOG_INFO, "autotune: %s: the entry points' kernel wrote nothing; not tuned", key);
    scratch_free(&s);
    return GG_OK;
  }
  int passed = 0, rejected = 0;
  for (size_t i = 0; i < count && !status; ++i) {
    if (!kernels[i]) continue;
    char label[96];
    gg_tune_candidate_label(&candidates[i], label, sizeof label);
    status = poison(&s, s.out);
    if (!status) status = run(context, kernels[i], call, &s, s.out, 0);
    if (!status && gg_tune_breaks(label)) status = corrupt(&s);
    if (!status) status = read_back(call, &s, s.out, s.host_out);
    if (status) break;
    // Checked once before it is timed: a wrong kernel is never timed, so it never wins.
    double relative = 0;
    int64_t bad = disagreements(s.host_out, s.host_reference, elements, &relative);
    if (bad || relative > 0.01) {
      gg_log(context, GG_LOG_INFO, "autotune: %s: %s REJECTED: %lld elements disagree with the "
             "entry points' kernel (relative difference %.2g)", key, label, (long long)bad, relative);
      ++rejected;
      continue;
    }
    double us = 0;
    status = time_kernel(context, kernels[i], call, &s, &us);
    if (status) break;
    double fake = gg_tune_fake_us(label);
    if (fake >= 0) us = fake;
    gg_log(context, GG_LOG_DEBUG, "autotune: %s: %s %.2f us", key, label, us);
    if (!*found || us < *best_us) *best = candidates[i], *best_us = us, *found = 1;
    ++passed;
  }
  if (!status)
    gg_log(context, GG_LOG_INFO, "autotune: %s: %d candidates timed, %d rejected", key, passed, rejected);
  scratch_free(&s);
  return status;
}

// Adds entry to the context's tables (in memory).
static gg_status remember(gg_context* context, const gg_tune_entry* entry) {
  gg_tune_db one = {(gg_tune_entry*)entry, 1, 0};
  return gg_context_merge_tuning(context, "autotune", &one);
}

gg_status gg_context_autotune(gg_context* context, gg_checked_call* call) {
  if (!context->autotune || !call->tile_from_rule || call->m <= 0) return GG_OK;
  if (call->device_type == kDLROCM) {
    note_once(context, NOTE_AMD, "AMD launches are not tuned (no device timing through HSA "
              "yet); they take the tables or the rule");
    return GG_OK;
  }
  const char* device = "";
  if (call->device_type == kDLCUDA) {
    gg_cuda_device* cuda;
    GG_RETURN_IF_ERROR(gg_context_cuda(context, call->device_id, &cuda));
    int capturing = 0;
    GG_RETURN_IF_ERROR(gg_cuda_stream_capturing(cuda, stream_of(call), &capturing));
    if (capturing) {
      // Timing would put the sweep's launches in the caller's graph: never.
      note_once(context, NOTE_CAPTURE, "the stream is capturing a graph: launches with no "
                "tuned entry take the tables or the rule, untuned");
      return GG_OK;
    }
    device = gg_cuda_device_name(cuda);
  }
  gg_tune_entry entry;
  memset(&entry, 0, sizeof entry);
  entry.key = gg_tune_key_of(&call->desc, call->m, device);
  char key[256];
  gg_tune_key_format(&entry.key, key, sizeof key);
  // One sweep at a time in a context; a thread that waited finds the entry made meanwhile.
  pthread_mutex_lock(&context->tune_mutex);
  gg_status status = GG_OK;
  gg_tile_config tile;
  if (gg_context_tuned_tile(context, &call->desc, call->m, call->device_type, call->device_id, &tile)) {
    gg_checked_call_take_tile(call, tile);
    pthread_mutex_unlock(&context->tune_mutex);
    return GG_OK;
  }
  // The database next to the kernel cache: an earlier process may have tuned this key.
  const char* cache = gg_context_cache_dir(context);
  char path[4096] = "";
  if (cache) snprintf(path, sizeof path, "%s/%s", cache, DATABASE_NAME);
  const gg_tune_entry* stored = NULL;
  gg_tune_db db = {0};
  if (*path && !(status = gg_tune_db_load(path, &db))) stored = gg_tune_db_find(&db, &entry.key);
  int found = 0;
  if (!status && stored) {
    entry = *stored;
    found = 1;
    gg_log(context, GG_LOG_DEBUG, "autotune: %s: from %s", key, path);
  } else if (!status) {
    status = sweep(context, call, key, &entry.best, &entry.time_us, &found);
    if (!status && found && *path) status = gg_tune_db_record(path, &entry);
  }
  gg_tune_db_free(&db);
  if (!status && !found) {
    // Nothing passed: the rule's own tile, remembered so that the key is not swept again.
    entry.best.tile = call->desc.tile;
    entry.best.accum = call->desc.accum;
    entry.time_us = 0;
  }
  if (!status) status = remember(context, &entry);
  pthread_mutex_unlock(&context->tune_mutex);
  if (status) return gg_status_annotate(status, "autotune");
  char label[96];
  gg_tune_candidate_label(&entry.best, label, sizeof label);
  gg_log(context, GG_LOG_INFO, "autotune: %s: %s%s", key, label, found ? "" : " (the rule's: none passed)");
  if (gg_context_tuned_tile(context, &call->desc, call->m, call->device_type, call->device_id, &tile))
    gg_checked_call_take_tile(call, tile);
  return GG_OK;
}
