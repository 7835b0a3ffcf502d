// Host kernels without MLIR: calling a kernel's C interface on host buffers, and loading
// kernels that the compiler built ahead of time as shared objects.
#ifndef GG_RUNTIME_HOST_H_
#define GG_RUNTIME_HOST_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// A kernel's C interface: _mlir_ciface_<kernel>(memref descriptor*...), one per operand
// present (5 or 6).
typedef void (*gg_host_entry)(void);

// Applies the launch rules (zero extents, zeroing) and calls entry on the host buffers,
// shaped as gg_operand_shape_of(desc, ., m). Nothing is written when an argument is bad.
// The bytes of one memref descriptor the C interface takes per operand (pointers, offset,
// sizes and strides of rank up to 3): a host kernel's argument, as bundles record it.
#define GG_HOST_MEMREF_BYTES 72

gg_status gg_host_invoke(gg_host_entry entry, const gg_op_desc* desc,
                         void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing);

// A shared object holding one gg host kernel.
typedef struct gg_host_library gg_host_library;

gg_status gg_host_library_open(const char* path, const char* kernel_name, gg_host_library** out);
// Loads a shared object from memory (no file is written).
gg_status gg_host_library_load(const void* data, size_t size, const char* kernel_name,
                               gg_host_library** out);
gg_host_entry gg_host_library_entry(const gg_host_library* library);
void gg_host_library_close(gg_host_library* library);

// The CPU features host kernels compiled here may use (a bundle of host kernels records
// it and loads only on a CPU with the same signature).
void gg_host_cpu_signature(char* buffer, size_t size);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_HOST_H_
