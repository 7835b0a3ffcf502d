// Contexts: options, logging, the GPU, cache statistics.
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/disk_cache.h"
#include "api/internal.h"

void gg_context_options_init(gg_context_options* options) {
  memset(options, 0, sizeof *options);
  options->log_level = GG_LOG_INFO;
  options->gpu = 0;
  options->shipped_tuning_tables = 1;
}

// The default cache directory: $GG_CACHE_DIR, $XDG_CACHE_HOME/gg, $HOME/.cache/gg.
static char* default_cache_dir(void) {
  char path[PATH_MAX];
  const char* env = getenv("GG_CACHE_DIR");
  if (env && *env) return strdup(env);
  env = getenv("XDG_CACHE_HOME");
  if (env && *env) {
    snprintf(path, sizeof path, "%s/gg", env);
    return strdup(path);
  }
  env = getenv("HOME");
  if (env && *env) {
    snprintf(path, sizeof path, "%s/.cache/gg", env);
    return strdup(path);
  }
  return NULL;  // nowhere to keep files: memory only
}

gg_status gg_context_create(const gg_context_options* options, gg_context** out) {
  if (!out) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  gg_context_options defaults;
  gg_context_options_init(&defaults);
  if (!options) options = &defaults;
  gg_context* context = calloc(1, sizeof *context);
  if (!context) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  if (!options->cache_dir) context->cache_dir = default_cache_dir();
  else if (*options->cache_dir) context->cache_dir = strdup(options->cache_dir);
  context->log = options->log;
  context->log_user = options->log_user;
  context->log_level = options->log_level;
  context->gpu_index = options->gpu;
  pthread_mutex_init(&context->mutex, NULL);
  pthread_mutex_init(&context->tune_mutex, NULL);
  const char* autotune = getenv("GG_AUTOTUNE");
  context->autotune = options->autotune || (autotune && !strcmp(autotune, "1"));
  pthread_cond_init(&context->built, NULL);
  gg_table_init(&context->kernels);
  gg_table_init(&context->bundle_index);
  for (size_t i = 0; i < options->bundle_count; ++i) {
    gg_status status = gg_context_load_bundle(context, options->bundles ? options->bundles[i] : NULL);
    if (status) {
      gg_context_destroy(context);
      return status;
    }
  }
  // The shipped tables first, so that the caller's own (from the environment, or loaded
  // later) replace their entries.
  gg_status status = options->shipped_tuning_tables ? gg_context_load_shipped_tuning_tables(context) : GG_OK;
  if (!status) status = gg_context_load_env_tuning_tables(context);
  if (status) {
    gg_context_destroy(context);
    return status;
  }
  *out = context;
  return GG_OK;
}

void gg_context_destroy(gg_context* context) {
  if (!context) return;
  for (size_t b = 0; b < context->kernels.bucket_count; ++b)
    for (gg_table_entry* e = context->kernels.buckets[b]; e; e = e->next) gg_kernel_free(e->value);
  gg_table_free(&context->kernels);
  gg_context_bundles_free(context);
  gg_hsa_device_close(context->gpu);
  for (int i = 0; i < GG_MAX_CUDA_DEVICES; ++i) {
    gg_cuda_device_close(context->cuda[i]);
    gg_status_free(context->cuda_error[i]);
  }
  gg_status_free(context->gpu_error);
  gg_tune_db_free(&context->tuning);
  pthread_cond_destroy(&context->built);
  pthread_mutex_destroy(&context->mutex);
  pthread_mutex_destroy(&context->tune_mutex);
  free(context->cache_dir);
  free(context);
}

void gg_log(gg_context* context, gg_log_level level, const char* format, ...) {
  if (!context->log || level > context->log_level) return;
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  context->log(context->log_user, level, message);
}

const char* gg_context_cache_dir(gg_context* context) {
  gg_status refused = GG_OK;
  pthread_mutex_lock(&context->mutex);
  if (context->cache_dir && !context->cache_dir_checked) {
    context->cache_dir_checked = 1;
    // Once per context: the entries themselves are checked on every load.
    refused = gg_disk_cache_prepare(context->cache_dir);
    if (refused) {
      free(context->cache_dir);
      context->cache_dir = NULL;
    }
  }
  const char* dir = context->cache_dir;  // freed only with the context
  pthread_mutex_unlock(&context->mutex);
  // Logged outside the lock: the callback may call back into the context.
  if (refused) gg_log(context, GG_LOG_INFO, "cache: %s; kernels stay in memory",
                      gg_status_message(refused));
  gg_status_free(refused);
  return dir;
}

gg_status gg_context_gpu(gg_context* context, gg_hsa_device** out) {
  *out = NULL;
  pthread_mutex_lock(&context->mutex);
  if (!context->gpu_tried) {
    context->gpu_tried = 1;
    if (context->gpu_index < 0)
      context->gpu_error =
          gg_status_make(GG_STATUS_UNAVAILABLE, "this context was created without a GPU");
    else
      context->gpu_error = gg_hsa_device_open(context->gpu_index, &context->gpu);
    if (context->gpu_error)
      gg_log(context, GG_LOG_INFO, "no GPU: %s", gg_status_message(context->gpu_error));
    else
      gg_log(context, GG_LOG_INFO, "GPU %d is %s", context->gpu_index,
             gg_hsa_device_chip(context->gpu));
  }
  gg_status status = GG_OK;
  if (context->gpu_error)
    status = gg_status_make(gg_status_code_of(context->gpu_error), "%s",
                            gg_status_message(context->gpu_error));
  else
    *out = context->gpu;
  pthread_mutex_unlock(&context->mutex);
  return status;
}

gg_status gg_context_cuda(gg_context* context, int ordinal, gg_cuda_device** out) {
  *out = NULL;
  if (ordinal < 0 || ordinal >= GG_MAX_CUDA_DEVICES)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "device: CUDA:%d is past the %d devices a "
                          "context uses", ordinal, GG_MAX_CUDA_DEVICES);
  pthread_mutex_lock(&context->mutex);
  if (!context->cuda[ordinal] && !context->cuda_error[ordinal]) {
    context->cuda_error[ordinal] = gg_cuda_device_open(ordinal, &context->cuda[ordinal]);
    if (context->cuda_error[ordinal])
      gg_log(context, GG_LOG_INFO, "no CUDA device %d: %s", ordinal,
             gg_status_message(context->cuda_error[ordinal]));
    else
      gg_log(context, GG_LOG_INFO, "CUDA device %d is %s", ordinal,
             gg_cuda_device_name(context->cuda[ordinal]));
  }
  gg_status status = GG_OK;
  if (context->cuda_error[ordinal])
    status = gg_status_make(gg_status_code_of(context->cuda_error[ordinal]), "%s",
                            gg_status_message(context->cuda_error[ordinal]));
  else
    *out = context->cuda[ordinal];
  pthread_mutex_unlock(&context->mutex);
  return status;
}

gg_status gg_context_gpu_target(gg_context* context, gg_target* out) {
  gg_hsa_device* gpu;
  GG_RETURN_IF_ERROR(gg_context_gpu(context, &gpu));
  *out = gg_hsa_device_target(gpu);
  if (*out == GG_TARGET_HOST)
    return gg_status_make(GG_STATUS_UNAVAILABLE, "gg has no backend for the GPU's %s",
                          gg_hsa_device_chip(gpu));
  return GG_OK;
}

gg_status gg_context_gpu_alloc(gg_context* context, size_t size, void** out) {
  *out = NULL;
  gg_hsa_device* gpu;
  GG_RETURN_IF_ERROR(gg_context_gpu(context, &gpu));
  return gg_hsa_alloc_shared(gpu, size, out);
}

void gg_context_gpu_free(gg_context* context, void* pointer) {
  if (pointer && context->gpu) gg_hsa_free(context->gpu, pointer);
}

void gg_context_cache_stats(gg_context* context, gg_cache_stats* out) {
  pthread_mutex_lock(&context->mutex);
  *out = context->stats;
  pthread_mutex_unlock(&context->mutex);
}

void gg_bytes_free(gg_bytes* bytes) {
  if (!bytes) return;
  free(bytes->data);
  bytes->data = NULL;
  bytes->size = 0;
}
