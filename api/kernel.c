// Kernels: the context's table (one build per descriptor however many threads ask), the
// loaded bundles, installing an artifact, and running a checked call. Nothing here
// compiles: a kernel neither held nor bundled goes to gg_api_build.
#define _GNU_SOURCE  // memmem
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "runtime/code_object.h"

static gg_status check_code_object(const gg_kernel* kernel, const void* data, size_t size);

// An sm_90a module: a cubin (ELF) or PTX, which the driver reads as a C string.
static gg_status check_cuda_module(const gg_kernel* kernel, const void* data, size_t size) {
  int elf = size >= 4 && !memcmp(data, "\177ELF", 4);
  if (elf || (size && ((const char*)data)[size - 1] == 0 && memmem(data, size, kernel->name, strlen(kernel->name))))
    return GG_OK;
  return gg_status_make(GG_STATUS_INTERNAL,
                        "the module for %s is neither a cubin nor PTX that defines it", kernel->name);
}

gg_status gg_kernel_install(gg_kernel* kernel, const void* data, size_t size) {
  if (kernel->desc.target == GG_TARGET_HOST)
    return gg_host_library_load(data, size, kernel->name, &kernel->host);
  if (kernel->desc.target == GG_TARGET_SM90A) {
    GG_RETURN_IF_ERROR(check_cuda_module(kernel, data, size));
  } else {
    GG_RETURN_IF_ERROR(check_code_object(kernel, data, size));
  }
  void* copy = malloc(size ? size : 1);
  if (!copy) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(copy, data, size);
  kernel->code_object = copy;
  kernel->code_object_size = size;
  return GG_OK;
}

static gg_status check_code_object(const gg_kernel* kernel, const void* data, size_t size) {
  gg_code_object_info info;
  GG_RETURN_IF_ERROR(gg_code_object_read(data, size, &info));
  if (strcmp(info.kernel.name, kernel->name) != 0)
    return gg_status_make(GG_STATUS_INTERNAL, "the code object holds %s, not %s",
                          info.kernel.name, kernel->name);
  if (info.has_group_ends != gg_layout_has_group_ends(kernel->desc.layout))
    return gg_status_make(GG_STATUS_INTERNAL, "the code object for %s %s a _group_ends kernel",
                          kernel->name, info.has_group_ends ? "has" : "lacks");
  return GG_OK;
}

static gg_status copy_error(gg_status error) {
  return gg_status_make(gg_status_code_of(error), "%s", gg_status_message(error));
}

void gg_kernel_free(gg_kernel* kernel) {
  if (!kernel) return;
  gg_hsa_kernel_destroy(kernel->hsa);
  for (int i = 0; i < GG_MAX_CUDA_DEVICES; ++i) gg_cuda_kernel_destroy(kernel->cuda[i]);
  gg_host_library_close(kernel->host);
  gg_status_free(kernel->error);
  free(kernel->code_object);
  free(kernel->key);
  free(kernel);
}

static gg_status out_of_memory(void) {
  return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
}

gg_status gg_kernel_get(gg_context* context, const gg_op_desc* in, gg_kernel** out) {
  if (!context || !in || !out)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "gg_kernel_get: NULL argument");
  *out = NULL;
  GG_RETURN_IF_ERROR(gg_op_desc_validate(in));
  gg_op_desc desc = gg_op_desc_with_defaults(in);
  char key[1024];
  gg_op_desc_format(&desc, key, sizeof key);

  pthread_mutex_lock(&context->mutex);
  gg_kernel* found;
  while ((found = gg_table_get(&context->kernels, key))) {
    if (found->state == KERNEL_BUILDING) {  // another thread is building it
      pthread_cond_wait(&context->built, &context->mutex);
      continue;
    }
    if (found->state == KERNEL_READY) {
      ++context->stats.memory_hits;
      pthread_mutex_unlock(&context->mutex);
      *out = found;
      return GG_OK;
    }
    // A failed build: drop it and try again (the failure may have been transient).
    gg_table_remove(&context->kernels, key);
    gg_kernel_free(found);
  }
  const gg_bundle_kernel* bundled = gg_table_get(&context->bundle_index, key);
  gg_kernel* kernel = calloc(1, sizeof *kernel);
  if (kernel) kernel->key = strdup(key);
  if (!kernel || !kernel->key || gg_table_put(&context->kernels, kernel->key, kernel) != 0) {
    pthread_mutex_unlock(&context->mutex);
    gg_kernel_free(kernel);
    return out_of_memory();
  }
  kernel->desc = desc;
  gg_op_desc_kernel_name(&desc, kernel->name, sizeof kernel->name);
  pthread_mutex_unlock(&context->mutex);

  // Built outside the lock; bundles live as long as the context.
  gg_kernel_source source = GG_KERNEL_FROM_BUNDLE;
  gg_status status = bundled ? gg_kernel_install(kernel, bundled->code, (size_t)bundled->code_size)
                             : gg_api_build(context, kernel, &source);

  pthread_mutex_lock(&context->mutex);
  if (status) {
    kernel->state = KERNEL_FAILED;
    kernel->error = copy_error(status);
  } else {
    kernel->state = KERNEL_READY;
    if (source == GG_KERNEL_FROM_BUNDLE) ++context->stats.bundle_hits;
    else if (source == GG_KERNEL_FROM_DISK) ++context->stats.disk_hits;
    else ++context->stats.compiles;
  }
  pthread_cond_broadcast(&context->built);
  pthread_mutex_unlock(&context->mutex);
  if (status) return status;
  static const char* const sources[] = {"from a bundle", "from the disk cache", "compiled"};
  gg_log(context, GG_LOG_DEBUG, "%s ready (%s)", kernel->name, sources[source]);
  *out = kernel;
  return GG_OK;
}

const gg_op_desc* gg_kernel_desc(const gg_kernel* kernel) { return &kernel->desc; }
const char* gg_kernel_name(const gg_kernel* kernel) { return kernel->name; }

void gg_kernel_code_object(const gg_kernel* kernel, const void** data, size_t* size) {
  *data = kernel->code_object;
  *size = kernel->code_object_size;
}

// ---------------------------------------------------------------------------------------
// Running.

// The kernel loaded on the context's GPU, on first use.
static gg_status gpu_kernel(gg_context* context, gg_kernel* kernel, gg_hsa_kernel** out) {
  gg_hsa_device* gpu;
  GG_RETURN_IF_ERROR(gg_context_gpu(context, &gpu));
  pthread_mutex_lock(&context->mutex);
  gg_status status = GG_OK;
  if (!kernel->hsa)
    status = gg_hsa_kernel_load(gpu, kernel->code_object, kernel->code_object_size, &kernel->hsa);
  *out = kernel->hsa;
  pthread_mutex_unlock(&context->mutex);
  return status;
}

// The kernel loaded on a CUDA device, on first use there.
static gg_status cuda_kernel(gg_context* context, gg_kernel* kernel, int ordinal,
                             gg_cuda_kernel** out) {
  gg_cuda_device* device;
  GG_RETURN_IF_ERROR(gg_context_cuda(context, ordinal, &device));
  pthread_mutex_lock(&context->mutex);
  gg_status status = GG_OK;
  if (!kernel->cuda[ordinal])
    status = gg_cuda_kernel_load(device, kernel->code_object, kernel->code_object_size,
                                 kernel->name, &kernel->desc, &kernel->cuda[ordinal]);
  *out = kernel->cuda[ordinal];
  pthread_mutex_unlock(&context->mutex);
  return status;
}

gg_status gg_kernel_run(gg_context* context, gg_kernel* kernel, const gg_checked_call* call) {
  if (call->device_type == kDLCUDA) {
    gg_cuda_kernel* cuda;
    GG_RETURN_IF_ERROR(cuda_kernel(context, kernel, call->device_id, &cuda));
    void* stream = call->launch ? call->launch->stream : NULL;
    GG_RETURN_IF_ERROR(gg_cuda_kernel_launch(cuda, &kernel->desc, call->buffers, call->m,
                                             call->zeroing, stream));
    if (call->launch) return GG_OK;
    gg_cuda_device* device;
    GG_RETURN_IF_ERROR(gg_context_cuda(context, call->device_id, &device));
    return gg_cuda_stream_synchronize(device, NULL);
  }
  if (call->device_type == kDLROCM) {
    gg_hsa_kernel* hsa;
    GG_RETURN_IF_ERROR(gpu_kernel(context, kernel, &hsa));
    if (call->launch)
      return gg_hsa_kernel_launch(hsa, &kernel->desc, call->buffers, call->m, call->zeroing,
                                  call->launch->stream, call->launch->completion_signal);
    return gg_hsa_kernel_run(hsa, &kernel->desc, call->buffers, call->m, call->zeroing);
  }
  if (!kernel->host)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s is a %s kernel, not a host kernel",
                          kernel->name, gg_target_name(kernel->desc.target));
  return gg_host_invoke(gg_host_library_entry(kernel->host), &kernel->desc, call->buffers,
                        call->m, call->zeroing);
}
