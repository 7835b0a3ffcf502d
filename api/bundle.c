// Bundles in a context: loading (all of a bundle or nothing), the index gg_kernel_get
// looks in, and listing what was loaded.
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"

static gg_status check_cpu(const gg_bundle* bundle) {
  if (bundle->header.target != GG_TARGET_HOST) return GG_OK;
  char here[256];
  gg_host_cpu_signature(here, sizeof here);
  if (strcmp(here, bundle->header.cpu) != 0)
    return gg_status_make(GG_STATUS_UNAVAILABLE,
                          "its host kernels were compiled for a CPU with other features (%s; "
                          "this CPU: %s): bundle them on this machine, or bundle an AMD target",
                          bundle->header.cpu, here);
  return GG_OK;
}

// The loaded bundle that holds key (under the lock).
static const gg_loaded_bundle* holder(gg_context* context, const char* key) {
  for (const gg_loaded_bundle* l = context->bundles; l; l = l->next)
    for (size_t i = 0; i < l->bundle->count; ++i)
      if (!strcmp(l->bundle->kernels[i].key, key)) return l;
  return NULL;
}

// Indexes every kernel of loaded, or none of them (under the lock).
static gg_status index_bundle(gg_context* context, gg_loaded_bundle* loaded) {
  const gg_bundle* b = loaded->bundle;
  for (size_t i = 0; i < b->count; ++i) {
    const gg_bundle_kernel* k = &b->kernels[i];
    if (gg_table_get(&context->bundle_index, k->key)) {
      const gg_loaded_bundle* other = holder(context, k->key);
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s is already loaded from %s", k->name,
                            other ? other->path : "another bundle");
    }
  }
  for (size_t i = 0; i < b->count; ++i)
    if (gg_table_put(&context->bundle_index, b->kernels[i].key, &b->kernels[i]) != 0) {
      while (i-- > 0) gg_table_remove(&context->bundle_index, b->kernels[i].key);
      return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    }
  gg_loaded_bundle** tail = &context->bundles;
  while (*tail) tail = &(*tail)->next;
  *tail = loaded;
  context->bundle_kernel_count += b->count;
  return GG_OK;
}

static void loaded_free(gg_loaded_bundle* loaded) {
  if (!loaded) return;
  gg_bundle_free(loaded->bundle);
  free(loaded->path);
  free(loaded);
}

gg_status gg_context_load_bundle(gg_context* context, const char* path) {
  if (!context || !path)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_context_load_bundle: NULL argument");
  gg_bundle* bundle;
  GG_RETURN_IF_ERROR(gg_bundle_read_file(path, &bundle));
  gg_status status = check_cpu(bundle);
  gg_loaded_bundle* loaded = NULL;
  if (!status && (!(loaded = calloc(1, sizeof *loaded)) || !(loaded->path = strdup(path))))
    status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  if (status) {
    free(loaded);
    gg_bundle_free(bundle);
    return gg_status_annotate(status, "bundle %s", path);
  }
  loaded->bundle = bundle;
  pthread_mutex_lock(&context->mutex);
  status = index_bundle(context, loaded);
  pthread_mutex_unlock(&context->mutex);
  if (status) {
    loaded_free(loaded);
    return gg_status_annotate(status, "bundle %s", path);
  }
  gg_log(context, GG_LOG_INFO, "loaded bundle %s: %zu kernels for %s (gg %s, LLVM %s)", path,
         bundle->count, gg_target_name(bundle->header.target), bundle->header.gg_version,
         bundle->header.llvm_version);
  return GG_OK;
}

void gg_context_bundles_free(gg_context* context) {
  gg_table_free(&context->bundle_index);
  for (gg_loaded_bundle* l = context->bundles; l;) {
    gg_loaded_bundle* next = l->next;
    loaded_free(l);
    l = next;
  }
  context->bundles = NULL;
}

size_t gg_context_bundle_kernel_count(gg_context* context) {
  if (!context) return 0;
  pthread_mutex_lock(&context->mutex);
  size_t count = context->bundle_kernel_count;
  pthread_mutex_unlock(&context->mutex);
  return count;
}

gg_status gg_context_bundle_kernel(gg_context* context, size_t index, gg_bundle_kernel_info* out) {
  if (!context || !out)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_context_bundle_kernel: NULL argument");
  gg_status status = GG_OK;
  pthread_mutex_lock(&context->mutex);
  size_t at = index;
  const gg_loaded_bundle* l = context->bundles;
  while (l && at >= l->bundle->count) {
    at -= l->bundle->count;
    l = l->next;
  }
  if (!l) {
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle kernel %zu of %zu", index,
                            context->bundle_kernel_count);
  } else {
    const gg_bundle_kernel* k = &l->bundle->kernels[at];
    out->desc = k->desc;
    out->name = k->name;
    out->flags = k->flags;
    out->bundle = l->path;
  }
  pthread_mutex_unlock(&context->mutex);
  return status;
}
