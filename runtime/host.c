// Host kernels: the memref calling convention, and shared objects.
#include "runtime/host.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A ranked memref descriptor of the C interface: pointers, offset, sizes, strides.
typedef struct memref_descriptor {
  void* allocated;
  void* aligned;
  int64_t offset;
  int64_t sizes_and_strides[6];
} memref_descriptor;

typedef void (*entry5)(void*, void*, void*, void*, void*);
typedef void (*entry6)(void*, void*, void*, void*, void*, void*);

gg_status gg_host_invoke(gg_host_entry entry, const gg_op_desc* desc,
                         void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing) {
  if (!entry) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "no kernel entry point");
  GG_RETURN_IF_ERROR(gg_launch_check(desc, buffers, m));
  gg_launch_plan plan = gg_launch_plan_of(desc, m, zeroing);
  gg_operand_shape out_shape = gg_operand_shape_of(desc, GG_OPERAND_OUT, m);
  if (plan.zero_output)
    memset(buffers[GG_OPERAND_OUT], 0,
           (size_t)gg_operand_shape_numel(&out_shape) * gg_dtype_size(out_shape.dtype));
  if (!plan.launch) return GG_OK;

  memref_descriptor descriptors[GG_OPERAND_COUNT];
  void* args[GG_OPERAND_COUNT];
  int count = 0;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    gg_operand_shape shape = gg_operand_shape_of(desc, (gg_operand)i, m);
    if (!shape.present) continue;
    memref_descriptor* d = &descriptors[count];
    memset(d, 0, sizeof *d);
    d->allocated = d->aligned = buffers[i];
    gg_operand_shape_memref_fields(&shape, d->sizes_and_strides);
    args[count++] = d;
  }
  // The C interface takes one descriptor pointer per operand; call it with its arity.
  if (count == 5) ((entry5)(uintptr_t)entry)(args[0], args[1], args[2], args[3], args[4]);
  else ((entry6)(uintptr_t)entry)(args[0], args[1], args[2], args[3], args[4], args[5]);
  return GG_OK;
}

struct gg_host_library {
  void* handle;
  gg_host_entry entry;
};

gg_status gg_host_library_open(const char* path, const char* kernel_name, gg_host_library** out) {
  *out = NULL;
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return gg_status_make(GG_STATUS_IO, "cannot load host kernel %s: %s", path, dlerror());
  char symbol[300];
  snprintf(symbol, sizeof symbol, "_mlir_ciface_%s", kernel_name);
  void* entry = dlsym(handle, symbol);
  if (!entry) {
    dlclose(handle);
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "%s has no entry point %s", path, symbol);
  }
  gg_host_library* library = malloc(sizeof *library);
  if (!library) {
    dlclose(handle);
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  library->handle = handle;
  library->entry = (gg_host_entry)(uintptr_t)entry;
  *out = library;
  return GG_OK;
}

gg_host_entry gg_host_library_entry(const gg_host_library* library) { return library->entry; }

void gg_host_library_close(gg_host_library* library) {
  if (!library) return;
  dlclose(library->handle);
  free(library);
}
