// Tuning tables in a context (docs/tuning.md): loaded and merged, and consulted for the
// launches whose caller names no tile. Nothing here benchmarks.
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "tuning/shipped.h"

gg_status gg_context_merge_tuning(gg_context* context, const char* name, const gg_tune_db* db) {
  if (db->damaged)
    gg_log(context, GG_LOG_INFO, "tuning table %s: %zu damaged lines ignored", name, db->damaged);
  pthread_mutex_lock(&context->mutex);
  gg_status status = gg_tune_db_merge(&context->tuning, db);
  pthread_mutex_unlock(&context->mutex);
  if (status) return gg_status_annotate(status, "tuning table %s", name);
  gg_log(context, GG_LOG_INFO, "tuning table %s: %zu entries", name, db->count);
  return status;
}

gg_status gg_context_load_tuning_table(gg_context* context, const char* path) {
  if (!context) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the context is NULL");
  if (!path) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the tuning table's path is NULL");
  gg_tune_db db;
  GG_RETURN_IF_ERROR(gg_tune_table_read(path, &db));
  gg_status status = gg_context_merge_tuning(context, path, &db);
  gg_tune_db_free(&db);
  return status;
}

gg_status gg_context_load_shipped_tuning_tables(gg_context* context) {
  gg_tune_db db;
  GG_RETURN_IF_ERROR(gg_shipped_tuning_db(&db));
  gg_status status = gg_context_merge_tuning(context, "tuning/*.table (shipped)", &db);
  gg_tune_db_free(&db);
  return status;
}

gg_status gg_context_load_env_tuning_tables(gg_context* context) {
  const char* env = getenv("GG_TUNING_TABLES");
  if (!env || !*env) return GG_OK;
  char* paths = strdup(env);
  if (!paths) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  gg_status status = GG_OK;
  char* save = NULL;
  for (char* p = strtok_r(paths, ":", &save); p && !status; p = strtok_r(NULL, ":", &save))
    status = gg_status_annotate(gg_context_load_tuning_table(context, p), "GG_TUNING_TABLES");
  free(paths);
  return status;
}

int gg_context_tuned_tile(gg_context* context, const gg_op_desc* desc, int64_t m,
                          int device_type, int device_id, gg_tile_config* tile) {
  pthread_mutex_lock(&context->mutex);
  size_t tables = context->tuning.count;
  pthread_mutex_unlock(&context->mutex);
  if (!tables) return 0;
  // The device's own entries (a CUDA device by its name, opened by the device check
  // before this), then those with no device name: the host's, AMD's modelled ones.
  const char* name = "";
  gg_cuda_device* cuda;
  if (device_type == kDLCUDA && !gg_context_cuda(context, device_id, &cuda)) name = gg_cuda_device_name(cuda);
  gg_tune_key key = gg_tune_key_of(desc, m, name), portable = gg_tune_key_of(desc, m, "");
  pthread_mutex_lock(&context->mutex);
  const gg_tune_entry* e = gg_tune_db_find(&context->tuning, &key);
  if (!e) {
    e = gg_tune_db_find(&context->tuning, &portable);
    key = portable;
  }
  gg_tune_candidate best = e ? e->best : (gg_tune_candidate){{0}, GG_ACCUM_PROMOTED};
  pthread_mutex_unlock(&context->mutex);
  if (!e) return 0;
  char text[256];
  gg_tune_key_format(&key, text, sizeof text);
  // The caller's accumulation is the caller's: a fast entry does not apply to promoted.
  if (best.accum != desc->accum) {
    gg_log(context, GG_LOG_DEBUG, "tuning: %s: the entry's %s accumulation is not the caller's",
           text, gg_accum_name(best.accum));
    return 0;
  }
  gg_op_desc tuned = *desc;
  tuned.tile = best.tile;
  gg_status status = gg_op_desc_validate(&tuned);
  if (status) {
    gg_log(context, GG_LOG_INFO, "tuning: %s: entry refused (%s)", text, gg_status_message(status));
    gg_status_free(status);
    return 0;
  }
  gg_log(context, GG_LOG_DEBUG, "tuning: %s: tile %dx%dx%d split %d", text, best.tile.m,
         best.tile.n, best.tile.k, best.tile.split_k);
  *tile = best.tile;
  return 1;
}
