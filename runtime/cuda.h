// Launching gg's sm_90a kernels through the CUDA driver API, with no CUDA toolkit and no
// MLIR at build or run time.
//
// The driver (libcuda.so.1, or $GG_CUDA_LIBRARY) is loaded on first use, so gg runs
// everywhere else on machines without it; without a driver or a GPU every call returns
// GG_STATUS_UNAVAILABLE saying why, and the driver's own errors come back as statuses
// carrying its name and message. Calls run in the device's primary context (the one the
// CUDA runtime and PyTorch use), pushed for the call and popped after, so the caller's
// current context is left as it was.
//
// Launches are asynchronous on the caller's stream: they never synchronise the host,
// never read group metadata on the host, allocate nothing on the device, and can be
// captured into a CUDA graph (the tensor maps travel by value in the kernel parameters).
#ifndef GG_RUNTIME_CUDA_H_
#define GG_RUNTIME_CUDA_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_cuda_device gg_cuda_device;

// Opens the device with this ordinal in the driver's numbering (0 is the first).
gg_status gg_cuda_device_open(int ordinal, gg_cuda_device** out);
void gg_cuda_device_close(gg_cuda_device* device);

// The device's name ("NVIDIA H200") and the gg target for its compute capability
// (GG_TARGET_SM90A for 9.0; GG_TARGET_HOST when gg has no backend for it).
const char* gg_cuda_device_name(const gg_cuda_device* device);
gg_target gg_cuda_device_target(const gg_cuda_device* device);
int gg_cuda_device_ordinal(const gg_cuda_device* device);

// Device memory, and synchronous copies (for tools and tests; launches need none).
gg_status gg_cuda_alloc(gg_cuda_device* device, size_t size, void** out);
void gg_cuda_free(gg_cuda_device* device, void* pointer);
gg_status gg_cuda_copy_to_device(gg_cuda_device* device, void* dst, const void* src, size_t size);
gg_status gg_cuda_copy_to_host(gg_cuda_device* device, void* dst, const void* src, size_t size);
// Waits for the stream's work (NULL: the legacy default stream).
gg_status gg_cuda_copy_on_device(gg_cuda_device* device, void* dst, const void* src, size_t size);
gg_status gg_cuda_stream_synchronize(gg_cuda_device* device, void* stream);

// A gg module (a cubin, or NUL-terminated PTX the driver compiles) loaded on a device,
// with its kernel `name` for desc.
typedef struct gg_cuda_kernel gg_cuda_kernel;
gg_status gg_cuda_kernel_load(gg_cuda_device* device, const void* module, size_t size,
                              const char* name, const gg_op_desc* desc, gg_cuda_kernel** out);
void gg_cuda_kernel_destroy(gg_cuda_kernel* kernel);
// Registers and static shared memory, as the driver reports them.
int gg_cuda_kernel_registers(const gg_cuda_kernel* kernel);

// Launches the kernel for desc on device buffers shaped by gg_operand_shape_of(desc, ., m)
// on `stream` (a CUstream; NULL: the legacy default stream) and returns without waiting.
// Applies the launch rules (zero extents and zeroing clear the output on the stream).
gg_status gg_cuda_kernel_launch(gg_cuda_kernel* kernel, const gg_op_desc* desc,
                                void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                                void* stream);

// Streams and CUDA graphs, for tools that capture launches and replay them: a
// stream ordered with the legacy default stream (as synchronous copies are); capture
// (thread-local mode) ended into an instantiated graph.
gg_status gg_cuda_stream_create(gg_cuda_device* device, void** out);
void gg_cuda_stream_destroy(gg_cuda_device* device, void* stream);
gg_status gg_cuda_capture_begin(gg_cuda_device* device, void* stream);
gg_status gg_cuda_capture_end(gg_cuda_device* device, void* stream, void** graph_exec);
gg_status gg_cuda_graph_launch(gg_cuda_device* device, void* graph_exec, void* stream);
void gg_cuda_graph_destroy(gg_cuda_device* device, void* graph_exec);
// Whether stream (NULL: the legacy default stream) is capturing a graph now.
gg_status gg_cuda_stream_capturing(gg_cuda_device* device, void* stream, int* capturing);

// Events, for timing work on a stream: the milliseconds between two recorded events,
// after waiting for the second.
gg_status gg_cuda_event_create(gg_cuda_device* device, void** out);
gg_status gg_cuda_event_record(gg_cuda_device* device, void* event, void* stream);
gg_status gg_cuda_event_elapsed_ms(gg_cuda_device* device, void* start, void* stop, double* ms);
void gg_cuda_event_destroy(gg_cuda_device* device, void* event);

// ---------------------------------------------------------------------------------------
// The launch as data, for tests: the tensor maps' parameters and the grid.
typedef struct gg_cuda_tensor_map_args {
  void* address;
  uint64_t dims[2];    // inner (K bytes), rows
  uint64_t stride;     // bytes between rows
  uint32_t box[2];     // 128 (K), rows (gg_sm90_a_box_rows, tile_n, GG_SM90_A_FEW_ROWS)
} gg_cuda_tensor_map_args;

// The tensor maps of a launch, in the kernel's order (GG_SM90_TENSOR_MAPS: A, B, A in
// boxes of few rows); fails on what TMA cannot address: a base not 16-byte aligned, more
// than 2^31 rows.
gg_status gg_cuda_tensor_maps(const gg_op_desc* desc, void* const buffers[GG_OPERAND_COUNT],
                              int64_t m, gg_cuda_tensor_map_args maps[GG_SM90_TENSOR_MAPS]);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_CUDA_H_
