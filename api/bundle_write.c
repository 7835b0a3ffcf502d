// gg_bundle_write: descriptors compiled in parallel into one bundle file (libgg only).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/internal.h"
#include "compiler/host_library.h"
#include "compiler/target.h"
#include "llvm-c/Core.h"
#include "runtime/files.h"

typedef struct job {
  gg_op_desc desc;
  const char* given_flags;  // the caller's, or NULL
  char key[1024];
  char name[256];
  char flags[512];  // derived when none was given
  gg_text code;
  gg_bundle_launch launch;
  gg_status status;
} job;

typedef struct pool {
  job* jobs;
  size_t count;
  atomic_size_t next;
} pool;

// Each compile makes its own MLIR context, so threads share nothing but the queue.
static void* worker(void* arg) {
  pool* p = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&p->next, 1);
    if (i >= p->count) return NULL;
    job* j = &p->jobs[i];
    j->status = gg_compile_artifact(&j->desc, &j->code);
    if (!j->status && j->code.failed)
      j->status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    if (!j->status)
      j->status = gg_bundle_launch_of(&j->desc, j->code.data, j->code.length, &j->launch);
  }
}

static int cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

// The distinct descriptors of descs, in order, as jobs.
static gg_status make_jobs(const gg_op_desc* descs, const char* const* flags, size_t count,
                           job** out, size_t* out_count) {
  *out = calloc(count, sizeof **out);
  *out_count = 0;
  if (!*out) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  gg_table seen;
  gg_table_init(&seen);
  gg_status status = GG_OK;
  for (size_t i = 0; i < count && !status; ++i) {
    status = gg_op_desc_validate(&descs[i]);
    if (status) {
      status = gg_status_annotate(status, "kernel %zu", i);
      break;
    }
    job* j = &(*out)[*out_count];
    j->desc = gg_op_desc_with_defaults(&descs[i]);
    if (j->desc.target != (*out)[0].desc.target && *out_count > 0) {
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                              "kernel %zu is for %s, the bundle for %s: a bundle holds one target",
                              i, gg_target_name(j->desc.target),
                              gg_target_name((*out)[0].desc.target));
      break;
    }
    gg_op_desc_format(&j->desc, j->key, sizeof j->key);
    if (gg_table_get(&seen, j->key)) continue;  // the same kernel again (another M)
    if (gg_table_put(&seen, j->key, j) != 0) {
      status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
      break;
    }
    gg_op_desc_kernel_name(&j->desc, j->name, sizeof j->name);
    j->given_flags = flags ? flags[i] : NULL;
    gg_op_desc_flags(&j->desc, j->flags, sizeof j->flags);
    gg_text_init(&j->code);
    ++*out_count;
  }
  gg_table_free(&seen);
  return status;
}

static void free_jobs(job* jobs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    gg_text_free(&jobs[i].code);
    gg_status_free(jobs[i].status);
  }
  free(jobs);
}

gg_status gg_bundle_write(const char* path, const gg_op_desc* descs, const char* const* flags,
                          size_t count, int threads) {
  if (!path || (!descs && count))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_bundle_write: NULL argument");
  if (count == 0) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "a bundle needs a kernel");
  if (threads < 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "threads must be 0 (one per core) or more");
  job* jobs;
  size_t unique;
  gg_status status = make_jobs(descs, flags, count, &jobs, &unique);
  if (status) {
    free_jobs(jobs, unique);
    return status;
  }

  pool p = {jobs, unique, 0};
  size_t wanted = threads ? (size_t)threads : (size_t)cores();
  if (wanted > unique) wanted = unique;
  pthread_t* ids = calloc(wanted, sizeof *ids);
  size_t started = 0;
  if (ids)
    while (started < wanted && pthread_create(&ids[started], NULL, worker, &p) == 0) ++started;
  if (started == 0) worker(&p);  // no thread could start: compile here
  for (size_t t = 0; t < started; ++t) pthread_join(ids[t], NULL);
  free(ids);

  gg_bundle_kernel* kernels = calloc(unique, sizeof *kernels);
  if (!kernels) status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (size_t i = 0; i < unique && !status; ++i) {
    job* j = &jobs[i];
    if (j->status) {
      status = gg_status_annotate(j->status, "%s (%s)", j->name,
                                  j->given_flags ? j->given_flags : j->flags);
      j->status = GG_OK;
      break;
    }
    kernels[i] = (gg_bundle_kernel){j->key, j->name, j->given_flags ? j->given_flags : j->flags,
                                    j->desc, j->launch, (const uint8_t*)j->code.data,
                                    j->code.length};
  }
  if (!status) {
    unsigned major, minor, patch;
    LLVMGetVersion(&major, &minor, &patch);
    char llvm[32], cpu[256] = "";
    snprintf(llvm, sizeof llvm, "%u.%u.%u", major, minor, patch);
    if (jobs[0].desc.target == GG_TARGET_HOST) gg_host_cpu_signature(cpu, sizeof cpu);
    gg_bundle_header header = {GG_BUNDLE_FORMAT_VERSION, GG_VERSION_STRING, llvm,
                               jobs[0].desc.target, cpu};
    gg_text bytes;
    gg_text_init(&bytes);
    status = gg_bundle_encode(&header, kernels, unique, &bytes);
    if (!status) status = gg_file_write_atomic(path, bytes.data, bytes.length, 0644);
    gg_text_free(&bytes);
  }
  free(kernels);
  free_jobs(jobs, unique);
  return status;
}
