// Launching gg code objects on AMD GPUs through HSA queues, with no HIP and no MLIR.
//
// The HSA runtime (libhsa-runtime64.so.1, or $GG_HSA_LIBRARY) is loaded on first use, so
// gg runs everywhere else on machines without ROCm. Without a GPU (no /dev/kfd) every call
// returns GG_STATUS_UNAVAILABLE saying so. HSA's own errors come back as statuses carrying
// hsa_status_string's message.
#ifndef GG_RUNTIME_HSA_H_
#define GG_RUNTIME_HSA_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// One GPU agent with a MULTI queue, its kernarg pool and a fine-grained system pool.
// Thread-safe: several threads may launch on one device at once.
typedef struct gg_hsa_device gg_hsa_device;

// Opens the index-th GPU agent HSA reports (0 is the first).
gg_status gg_hsa_device_open(int index, gg_hsa_device** out);
void gg_hsa_device_close(gg_hsa_device* device);

// The agent's processor, e.g. "gfx950", and the matching gg target (GG_TARGET_HOST when
// gg has no backend for it).
const char* gg_hsa_device_chip(const gg_hsa_device* device);
gg_target gg_hsa_device_target(const gg_hsa_device* device);

// Memory both the host and the GPU can read and write (fine-grained system memory).
gg_status gg_hsa_alloc_shared(gg_hsa_device* device, size_t size, void** out);
void gg_hsa_free(gg_hsa_device* device, void* pointer);

// A code object loaded and frozen on a device: its kernel's symbol and segment sizes.
typedef struct gg_hsa_kernel gg_hsa_kernel;

// Loads a gg code object (one kernel) for the device. A code object for another chip is
// refused before HSA sees it.
gg_status gg_hsa_kernel_load(gg_hsa_device* device, const void* code_object, size_t size,
                             gg_hsa_kernel** out);
void gg_hsa_kernel_destroy(gg_hsa_kernel* kernel);

// Launches the kernel for desc on device buffers shaped by gg_operand_shape_of(desc, ., m)
// and waits for it to finish. Applies the launch rules (zero extents, zeroing).
gg_status gg_hsa_kernel_run(gg_hsa_kernel* kernel, const gg_op_desc* desc,
                            void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing);

// Launches without waiting: the packets go on `queue` (an hsa_queue_t* of the device's
// agent; NULL: the device's own) and the call returns. When the kernels are done the
// signal whose handle is completion_signal (0: none) is decremented by one, and the
// launch's kernel arguments and workspace are released (by a later launch or the close).
// Launches that need the output zero-filled first (a zero extent, padded with zeroing)
// are refused: gg has no queue-ordered fill.
gg_status gg_hsa_kernel_launch(gg_hsa_kernel* kernel, const gg_op_desc* desc,
                               void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                               void* queue, uint64_t completion_signal);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_HSA_H_
