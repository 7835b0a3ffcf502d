// Host kernels: the memref calling convention, shared objects, and the CPU they were
// built for.
#define _GNU_SOURCE  // memfd_create
#include "runtime/host.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "runtime/files.h"

// A ranked memref descriptor of the C interface: pointers, offset, sizes, strides.
typedef struct memref_descriptor {
  void* allocated;
  void* aligned;
  int64_t offset;
  int64_t sizes_and_strides[6];
} memref_descriptor;
_Static_assert(sizeof(memref_descriptor) == GG_HOST_MEMREF_BYTES, "the host argument size");

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
  int memory_file;  // -1, or the memory file it was loaded from (gg_host_library_load)
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
  library->memory_file = -1;
  *out = library;
  return GG_OK;
}

gg_host_entry gg_host_library_entry(const gg_host_library* library) { return library->entry; }

void gg_host_library_close(gg_host_library* library) {
  if (!library) return;
  dlclose(library->handle);
  if (library->memory_file >= 0) close(library->memory_file);
  free(library);
}

// dlopen needs a path: the bytes go into an anonymous memory file (nothing on disk, so a
// read-only filesystem works), loaded through /proc/self/fd/N. The file stays open while
// the library is loaded: glibc takes a path it has loaded before for the same library, so
// no two loaded kernels may share a descriptor number.
gg_status gg_host_library_load(const void* data, size_t size, const char* kernel_name,
                               gg_host_library** out) {
  *out = NULL;
  int fd = memfd_create(kernel_name, MFD_CLOEXEC);
  if (fd < 0)
    return gg_status_make(GG_STATUS_IO, "cannot create a memory file for %s: %s", kernel_name,
                          strerror(errno));
  gg_status status = GG_OK;
  if (gg_fd_write_all(fd, data, size) != 0) {
    status = gg_status_make(GG_STATUS_IO, "cannot fill the memory file for %s: %s", kernel_name,
                            strerror(errno));
  } else {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    status = gg_host_library_open(path, kernel_name, out);
  }
  if (status) close(fd);
  else (*out)->memory_file = fd;
  return status;
}

// What the compiler may assume of this CPU, as the hardware reports it: host kernels use
// every feature the build machine had, so they run only where the same ones are present.
void gg_host_cpu_signature(char* buffer, size_t size) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0, a7 = 0, b7 = 0, c7 = 0, d7 = 0, a71 = 0, b71 = 0,
           c71 = 0, d71 = 0, ae = 0, be = 0, ce = 0, de = 0;
  __get_cpuid(1, &a1, &b1, &c1, &d1);
  __get_cpuid_count(7, 0, &a7, &b7, &c7, &d7);
  __get_cpuid_count(7, 1, &a71, &b71, &c71, &d71);
  __get_cpuid(0x80000001u, &ae, &be, &ce, &de);
  // EBX of leaf 1 holds the core's APIC ID: only the feature registers are kept.
  snprintf(buffer, size, "x86 1:%08x.%08x 7:%08x.%08x.%08x 7.1:%08x 80000001:%08x.%08x", c1,
           d1, b7, c7, d7, a71, ce, de);
#else
  snprintf(buffer, size, "hwcap %lx.%lx", getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
#endif
}
