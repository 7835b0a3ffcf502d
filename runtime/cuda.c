// The CUDA driver API loaded with dlopen; devices, modules, tensor maps and launches.
#include "runtime/cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------
// The driver API's types and constants gg uses, from CUDA's cuda.h (ABI-stable), so that
// gg builds without a CUDA toolkit.

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUstream;
typedef unsigned long long CUdeviceptr;
// 128 bytes the driver wants 64-byte aligned. Not declared with alignas: stacks and heaps
// need not honour it (ASan's fake stacks do not), so gg aligns the storage itself
// (aligned_map).
typedef struct CUtensorMap {
  uint64_t opaque[16];
} CUtensorMap;

// Room for one map at a 64-byte boundary.
typedef struct map_storage {
  unsigned char bytes[sizeof(CUtensorMap) + 64];
} map_storage;

static CUtensorMap* aligned_map(map_storage* storage) {
  uintptr_t p = ((uintptr_t)storage->bytes + 63) & ~(uintptr_t)63;
  return (CUtensorMap*)p;
}
typedef struct CUlaunchAttribute {
  int id;
  char pad[4];
  char value[64];
} CUlaunchAttribute;
typedef struct CUlaunchConfig {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  CUstream stream;
  CUlaunchAttribute* attrs;
  unsigned attr_count;
} CUlaunchConfig;

enum {
  CUDA_SUCCESS = 0,
  ATTR_MULTIPROCESSOR_COUNT = 16,
  ATTR_CC_MAJOR = 75,
  ATTR_CC_MINOR = 76,
  ATTR_MAX_SHARED_OPTIN = 97,
  FUNC_SHARED_SIZE_BYTES = 1,
  FUNC_NUM_REGS = 4,
  FUNC_MAX_DYNAMIC_SHARED = 8,
  JIT_ERROR_LOG_BUFFER = 5,
  JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  TENSOR_MAP_UINT8 = 0,
  TENSOR_MAP_INTERLEAVE_NONE = 0,
  TENSOR_MAP_SWIZZLE_128B = 3,
  TENSOR_MAP_L2_256B = 3,
  TENSOR_MAP_OOB_FILL_ZERO = 0,
  LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
};

#define GG_CUDA_FUNCTIONS(X)                                                                 \
  X(cuInit, "cuInit", (unsigned))                                                            \
  X(cuGetErrorName, "cuGetErrorName", (CUresult, const char**))                              \
  X(cuGetErrorString, "cuGetErrorString", (CUresult, const char**))                          \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int*))                                            \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice*, int))                                            \
  X(cuDeviceGetName, "cuDeviceGetName", (char*, int, CUdevice))                              \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int*, int, CUdevice))                     \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext*, CUdevice))            \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                   \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", (CUcontext))                                    \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", (CUcontext*))                                     \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", (CUmodule*, const void*, unsigned, int*, void**)) \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                            \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction*, CUmodule, const char*))        \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction, int, int))                        \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", (int*, int, CUfunction))                       \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr*, size_t))                                     \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                                \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void*, size_t))                     \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void*, CUdeviceptr, size_t))                           \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", (CUdeviceptr, CUdeviceptr, size_t))                     \
  X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr, unsigned char, size_t, CUstream))      \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                                  \
  X(cuStreamCreate, "cuStreamCreate", (CUstream*, unsigned))                                 \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                                       \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream, int))                        \
  X(cuStreamEndCapture, "cuStreamEndCapture", (CUstream, void**))                            \
  X(cuStreamIsCapturing, "cuStreamIsCapturing", (CUstream, int*))                            \
  X(cuEventCreate, "cuEventCreate", (void**, unsigned))                                      \
  X(cuEventRecord, "cuEventRecord", (void*, CUstream))                                       \
  X(cuEventSynchronize, "cuEventSynchronize", (void*))                                       \
  X(cuEventElapsedTime, "cuEventElapsedTime", (float*, void*, void*))                        \
  X(cuEventDestroy, "cuEventDestroy_v2", (void*))                                            \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags", (void**, void*, unsigned long long))   \
  X(cuGraphLaunch, "cuGraphLaunch", (void*, CUstream))                                       \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", (void*))                                       \
  X(cuGraphDestroy, "cuGraphDestroy", (void*))                                               \
  X(cuLaunchKernelEx, "cuLaunchKernelEx", (const CUlaunchConfig*, CUfunction, void**, void**)) \
  X(cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters",                           \
    (int*, CUfunction, const CUlaunchConfig*))                                               \
  X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled",                                        \
    (CUtensorMap*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const uint32_t*,  \
     const uint32_t*, int, int, int, int))

typedef struct cuda_api {
#define GG_CUDA_FIELD(field, symbol, args) CUresult(*field) args;
  GG_CUDA_FUNCTIONS(GG_CUDA_FIELD)
#undef GG_CUDA_FIELD
} cuda_api;

static cuda_api api;
static gg_status api_error;  // why the driver could not be used (GG_OK: loaded)
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static gg_status driver_error(CUresult result, const char* what) {
  const char* name = NULL;
  const char* text = NULL;
  if (api.cuGetErrorName) api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(result, &text);
  return gg_status_make(result == 100 ? GG_STATUS_UNAVAILABLE : GG_STATUS_INTERNAL,
                        "%s failed: %s (%d): %s", what, name ? name : "CUDA error", result,
                        text ? text : "no message");
}

#define CU(call, what)                                            \
  do {                                                            \
    CUresult result_ = (call);                                    \
    if (result_ != CUDA_SUCCESS) return driver_error(result_, what); \
  } while (0)

static void api_load(void) {
  const char* path = getenv("GG_CUDA_LIBRARY");
  if (!path || !*path) path = "libcuda.so.1";
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    api_error = gg_status_make(GG_STATUS_UNAVAILABLE, "no NVIDIA driver: %s", dlerror());
    return;
  }
#define GG_CUDA_RESOLVE(field, symbol, args)                                                  \
  if (!api_error && !(*(void**)&api.field = dlsym(library, symbol)))                        \
    api_error = gg_status_make(GG_STATUS_UNAVAILABLE,                                        \
                               "the NVIDIA driver %s lacks %s (gg needs CUDA 12 or later)", path, \
                               symbol);
  GG_CUDA_FUNCTIONS(GG_CUDA_RESOLVE)
#undef GG_CUDA_RESOLVE
  if (api_error) return;
  CUresult result = api.cuInit(0);
  if (result != CUDA_SUCCESS) api_error = driver_error(result, "cuInit");
}

static gg_status api_ready(void) {
  pthread_once(&api_once, api_load);
  return api_error ? gg_status_make(gg_status_code_of(api_error), "%s", gg_status_message(api_error))
                   : GG_OK;
}

// ---------------------------------------------------------------------------------------
// Devices.

struct gg_cuda_device {
  int ordinal;
  CUdevice device;
  CUcontext context;  // the primary context, retained
  int major, minor;
  int sm_count;
  int shared_optin;  // the most shared memory a block may opt into
  char name[256];
};

static gg_status push(const gg_cuda_device* device) {
  CU(api.cuCtxPushCurrent(device->context), "cuCtxPushCurrent");
  return GG_OK;
}

static void pop(void) {
  CUcontext ignored;
  api.cuCtxPopCurrent(&ignored);
}

gg_status gg_cuda_device_open(int ordinal, gg_cuda_device** out) {
  *out = NULL;
  GG_RETURN_IF_ERROR(api_ready());
  int count = 0;
  CU(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count)
    return gg_status_make(GG_STATUS_UNAVAILABLE, "no CUDA device %d: the driver reports %d",
                          ordinal, count);
  gg_cuda_device* device = calloc(1, sizeof *device);
  if (!device) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  device->ordinal = ordinal;
  gg_status status = GG_OK;
  CUresult r = api.cuDeviceGet(&device->device, ordinal);
  if (!r) r = api.cuDeviceGetName(device->name, (int)sizeof device->name, device->device);
  if (!r) r = api.cuDeviceGetAttribute(&device->major, ATTR_CC_MAJOR, device->device);
  if (!r) r = api.cuDeviceGetAttribute(&device->minor, ATTR_CC_MINOR, device->device);
  if (!r) r = api.cuDeviceGetAttribute(&device->sm_count, ATTR_MULTIPROCESSOR_COUNT, device->device);
  if (!r) r = api.cuDeviceGetAttribute(&device->shared_optin, ATTR_MAX_SHARED_OPTIN, device->device);
  if (r) status = driver_error(r, "querying the CUDA device");
  if (!status) {
    r = api.cuDevicePrimaryCtxRetain(&device->context, device->device);
    if (r) status = driver_error(r, "cuDevicePrimaryCtxRetain");
  }
  if (status) {
    free(device);
    return status;
  }
  *out = device;
  return GG_OK;
}

void gg_cuda_device_close(gg_cuda_device* device) {
  if (!device) return;
  api.cuDevicePrimaryCtxRelease(device->device);
  free(device);
}

const char* gg_cuda_device_name(const gg_cuda_device* device) { return device->name; }
int gg_cuda_device_ordinal(const gg_cuda_device* device) { return device->ordinal; }

gg_target gg_cuda_device_target(const gg_cuda_device* device) {
  return device->major == 9 && device->minor == 0 ? GG_TARGET_SM90A : GG_TARGET_HOST;
}

gg_status gg_cuda_alloc(gg_cuda_device* device, size_t size, void** out) {
  *out = NULL;
  GG_RETURN_IF_ERROR(push(device));
  CUdeviceptr pointer = 0;
  CUresult r = api.cuMemAlloc(&pointer, size ? size : 1);
  pop();
  if (r) return driver_error(r, "cuMemAlloc");
  *out = (void*)(uintptr_t)pointer;
  return GG_OK;
}

void gg_cuda_free(gg_cuda_device* device, void* pointer) {
  if (!pointer || push(device)) return;
  api.cuMemFree((CUdeviceptr)(uintptr_t)pointer);
  pop();
}

gg_status gg_cuda_copy_to_device(gg_cuda_device* device, void* dst, const void* src, size_t size) {
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = size ? api.cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, size) : CUDA_SUCCESS;
  pop();
  return r ? driver_error(r, "cuMemcpyHtoD") : GG_OK;
}

gg_status gg_cuda_copy_to_host(gg_cuda_device* device, void* dst, const void* src, size_t size) {
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = size ? api.cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, size) : CUDA_SUCCESS;
  pop();
  return r ? driver_error(r, "cuMemcpyDtoH") : GG_OK;
}

gg_status gg_cuda_copy_on_device(gg_cuda_device* device, void* dst, const void* src, size_t size) {
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = size ? api.cuMemcpyDtoD((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, size)
                    : CUDA_SUCCESS;
  pop();
  return r ? driver_error(r, "cuMemcpyDtoD") : GG_OK;
}

gg_status gg_cuda_stream_synchronize(gg_cuda_device* device, void* stream) {
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = api.cuStreamSynchronize((CUstream)stream);
  pop();
  return r ? driver_error(r, "cuStreamSynchronize") : GG_OK;
}

// ---------------------------------------------------------------------------------------
// Kernels.

// Encoded tensor maps, by what they were encoded from: a serving loop launches on the
// same weights and buffers again and again.
#define MAP_CACHE_SIZE 16

typedef struct cached_map {
  int used;
  gg_cuda_tensor_map_args args;
  CUtensorMap map;
} cached_map;

struct gg_cuda_kernel {
  gg_cuda_device* device;
  CUmodule module;
  CUfunction function;
  gg_op_desc desc;
  int registers;
  int64_t dynamic_shared;
  unsigned cluster[3];  // cluster dimensions (1 x 1 x 1: none); the launch attribute when > 1
  int resident;         // the CTAs the device holds at once: its SMs, or whole clusters
  pthread_mutex_t maps_mutex;
  cached_map maps[MAP_CACHE_SIZE];
  unsigned next_map;  // the slot the next miss replaces
};

// A launch of `ctas` CTAs of the kernel on `stream`, with its cluster attribute (in
// *cluster) when it has clusters.
static void launch_config_of(const gg_cuda_kernel* kernel, unsigned ctas, void* stream,
                             CUlaunchConfig* config, CUlaunchAttribute* cluster) {
  memset(config, 0, sizeof *config);
  config->grid_x = ctas;
  config->grid_y = config->grid_z = 1;
  config->block_x = GG_SM90_THREADS;
  config->block_y = config->block_z = 1;
  config->shared_bytes = (unsigned)kernel->dynamic_shared;
  config->stream = (CUstream)stream;
  if (kernel->cluster[0] * kernel->cluster[1] * kernel->cluster[2] > 1) {
    memset(cluster, 0, sizeof *cluster);
    cluster->id = LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    memcpy(cluster->value, kernel->cluster, sizeof kernel->cluster);
    config->attrs = cluster;
    config->attr_count = 1;
  }
}

gg_status gg_cuda_kernel_load(gg_cuda_device* device, const void* module, size_t size,
                              const char* name, const gg_op_desc* desc, gg_cuda_kernel** out) {
  *out = NULL;
  gg_op_desc d = gg_op_desc_with_defaults(desc);
  if (d.target != GG_TARGET_SM90A)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "kernel %s is for %s, not sm_90a", name,
                          gg_target_name(d.target));
  if (gg_cuda_device_target(device) != GG_TARGET_SM90A)
    return gg_status_make(GG_STATUS_UNAVAILABLE,
                          "CUDA device %d (%s) has compute capability %d.%d; gg's NVIDIA kernels "
                          "are for sm_90a (Hopper, 9.0)",
                          device->ordinal, device->name, device->major, device->minor);
  // The driver reads PTX as a C string: it must end in a NUL (a cubin is an ELF).
  int is_elf = size >= 4 && !memcmp(module, "\177ELF", 4);
  if (!size || (!is_elf && ((const char*)module)[size - 1] != 0))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "kernel %s: the module is neither a cubin nor NUL-terminated PTX", name);
  gg_cuda_kernel* kernel = calloc(1, sizeof *kernel);
  if (!kernel) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  kernel->device = device;
  kernel->desc = d;
  kernel->dynamic_shared = gg_sm90_dynamic_shared_bytes(&d);
  // One cluster per tile: split-K's shares, or a 256-row tile's two halves.
  kernel->cluster[0] = (unsigned)gg_sm90_cluster_ctas(&d);
  kernel->cluster[1] = kernel->cluster[2] = 1;
  kernel->resident = device->sm_count;
  pthread_mutex_init(&kernel->maps_mutex, NULL);
  gg_status status = push(device);
  if (status) {
    free(kernel);
    return status;
  }
  char log[4096] = "";
  int options[2] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[2] = {log, (void*)(uintptr_t)sizeof log};
  CUresult r = api.cuModuleLoadDataEx(&kernel->module, module, 2, options, values);
  if (r) {
    status = driver_error(r, "cuModuleLoadDataEx");
    if (log[0]) status = gg_status_annotate(status, log);
  }
  if (!status && (r = api.cuModuleGetFunction(&kernel->function, kernel->module, name)))
    status = driver_error(r, "cuModuleGetFunction");
  int static_shared = 0;
  if (!status && (r = api.cuFuncGetAttribute(&static_shared, FUNC_SHARED_SIZE_BYTES, kernel->function)))
    status = driver_error(r, "cuFuncGetAttribute");
  if (!status && static_shared + kernel->dynamic_shared > device->shared_optin)
    status = gg_status_make(GG_STATUS_UNAVAILABLE,
                            "kernel %s needs %lld bytes of shared memory; %s gives a block %d",
                            name, (long long)(static_shared + kernel->dynamic_shared),
                            device->name, device->shared_optin);
  if (!status && (r = api.cuFuncSetAttribute(kernel->function, FUNC_MAX_DYNAMIC_SHARED,
                                             (int)kernel->dynamic_shared)))
    status = driver_error(r, "cuFuncSetAttribute(max dynamic shared memory)");
  if (!status) api.cuFuncGetAttribute(&kernel->registers, FUNC_NUM_REGS, kernel->function);
  if (!status && kernel->cluster[0] > 1) {
    // Clusters need their CTAs on SMs of one GPC, so fewer may fit at once than SMs allow;
    // a persistent launch of more would run the rest after the first finish.
    CUlaunchConfig config;
    CUlaunchAttribute cluster;
    launch_config_of(kernel, kernel->cluster[0], NULL, &config, &cluster);
    int clusters = 0;
    if ((r = api.cuOccupancyMaxActiveClusters(&clusters, kernel->function, &config)))
      status = driver_error(r, "cuOccupancyMaxActiveClusters");
    else if (clusters < 1)
      status = gg_status_make(GG_STATUS_UNAVAILABLE,
                              "kernel %s: %s holds no cluster of %u of its CTAs", name,
                              device->name, kernel->cluster[0]);
    else if ((int64_t)clusters * kernel->cluster[0] < kernel->resident)
      kernel->resident = clusters * (int)kernel->cluster[0];
  }
  if (status && kernel->module) api.cuModuleUnload(kernel->module);
  pop();
  if (status) {
    pthread_mutex_destroy(&kernel->maps_mutex);
    free(kernel);
    return status;
  }
  *out = kernel;
  return GG_OK;
}

void gg_cuda_kernel_destroy(gg_cuda_kernel* kernel) {
  if (!kernel) return;
  if (!push(kernel->device)) {
    api.cuModuleUnload(kernel->module);
    pop();
  }
  pthread_mutex_destroy(&kernel->maps_mutex);
  free(kernel);
}

int gg_cuda_kernel_registers(const gg_cuda_kernel* kernel) { return kernel->registers; }

// One operand as TMA sees it: a 2-D array of rows of `inner` bytes (the last extent is
// K; every other extent folds into the rows, as the kernel's collapsed views do).
static gg_status tensor_map_args(const gg_op_desc* d, void* const buffers[GG_OPERAND_COUNT],
                                 int64_t m, gg_operand operand, uint32_t box_rows,
                                 gg_cuda_tensor_map_args* out) {
  gg_operand_shape shape = gg_operand_shape_of(d, operand, m);
  int64_t inner = shape.dims[shape.rank - 1];
  int64_t rows = inner ? gg_operand_shape_numel(&shape) / inner : 0;
  const char* name = gg_operand_name(operand);
  if ((uintptr_t)buffers[operand] % 16 != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "sm_90a kernels read %s through TMA: its data must be 16-byte aligned",
                          name);
  if (rows > INT32_MAX)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "sm_90a kernels read %s through TMA, whose coordinates are 32-bit: it "
                          "has %lld rows, past %d",
                          name, (long long)rows, INT32_MAX);
  out->address = buffers[operand];
  out->dims[0] = (uint64_t)inner;
  out->dims[1] = (uint64_t)(rows ? rows : 1);
  out->stride = (uint64_t)inner;
  out->box[0] = 128;
  out->box[1] = box_rows;
  return GG_OK;
}

gg_status gg_cuda_tensor_maps(const gg_op_desc* desc, void* const buffers[GG_OPERAND_COUNT],
                              int64_t m, gg_cuda_tensor_map_args maps[GG_SM90_TENSOR_MAPS]) {
  gg_op_desc d = gg_op_desc_with_defaults(desc);
  GG_RETURN_IF_ERROR(tensor_map_args(&d, buffers, m, GG_OPERAND_A, (uint32_t)gg_sm90_a_box_rows(&d), &maps[0]));
  GG_RETURN_IF_ERROR(tensor_map_args(&d, buffers, m, GG_OPERAND_B, (uint32_t)gg_sm90_b_box_rows(&d), &maps[1]));
  maps[2] = maps[0];  // A again, in boxes of few rows
  maps[2].box[1] = GG_SM90_A_FEW_ROWS;
  return GG_OK;
}

static gg_status encode(const gg_cuda_tensor_map_args* a, CUtensorMap* map) {
  const uint64_t strides[1] = {a->stride};
  const uint32_t element_strides[2] = {1, 1};
  CU(api.cuTensorMapEncodeTiled(map, TENSOR_MAP_UINT8, 2, a->address, a->dims, strides, a->box,
                                element_strides, TENSOR_MAP_INTERLEAVE_NONE,
                                TENSOR_MAP_SWIZZLE_128B, TENSOR_MAP_L2_256B,
                                TENSOR_MAP_OOB_FILL_ZERO),
     "cuTensorMapEncodeTiled");
  return GG_OK;
}

static int same_map(const gg_cuda_tensor_map_args* a, const gg_cuda_tensor_map_args* b) {
  return a->address == b->address && a->dims[0] == b->dims[0] && a->dims[1] == b->dims[1] &&
         a->stride == b->stride && a->box[0] == b->box[0] && a->box[1] == b->box[1];
}

// The map for `a`: from the kernel's cache, else encoded (the context must be current)
// and kept, replacing the oldest entry.
static gg_status tensor_map(gg_cuda_kernel* kernel, const gg_cuda_tensor_map_args* a,
                            CUtensorMap* map) {
  pthread_mutex_lock(&kernel->maps_mutex);
  for (int i = 0; i < MAP_CACHE_SIZE; ++i)
    if (kernel->maps[i].used && same_map(&kernel->maps[i].args, a)) {
      *map = kernel->maps[i].map;
      pthread_mutex_unlock(&kernel->maps_mutex);
      return GG_OK;
    }
  pthread_mutex_unlock(&kernel->maps_mutex);
  GG_RETURN_IF_ERROR(encode(a, map));
  pthread_mutex_lock(&kernel->maps_mutex);
  cached_map* slot = &kernel->maps[kernel->next_map++ % MAP_CACHE_SIZE];
  slot->used = 1;
  slot->args = *a;
  slot->map = *map;
  pthread_mutex_unlock(&kernel->maps_mutex);
  return GG_OK;
}

gg_status gg_cuda_kernel_launch(gg_cuda_kernel* kernel, const gg_op_desc* desc,
                                void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                                void* stream) {
  gg_op_desc d = gg_op_desc_with_defaults(desc);
  GG_RETURN_IF_ERROR(gg_launch_check(&d, buffers, m));
  gg_launch_plan plan = gg_launch_plan_of(&d, m, zeroing);
  // Persistent CTAs, one an SM at most: each walks the virtual grid's tiles (gg-to-nvvm).
  int64_t ctas = gg_sm90_launch_ctas(&d, m, kernel->resident);
  // Everything that can be refused is checked before the first byte is written.
  map_storage storage[GG_SM90_TENSOR_MAPS];
  CUtensorMap* maps[GG_SM90_TENSOR_MAPS];
  for (int i = 0; i < GG_SM90_TENSOR_MAPS; ++i) maps[i] = aligned_map(&storage[i]);
  uint64_t values[GG_MAX_OPERAND_ARGS];
  size_t count = 0;
  gg_cuda_tensor_map_args args[GG_SM90_TENSOR_MAPS];
  if (plan.launch) {
    GG_RETURN_IF_ERROR(gg_cuda_tensor_maps(&d, buffers, m, args));
    count = gg_operand_arg_values(&d, buffers, m, values, NULL, GG_MAX_OPERAND_ARGS);
  }
  GG_RETURN_IF_ERROR(push(kernel->device));  // the encoder wants a current context too
  gg_status status = GG_OK;
  for (int i = 0; plan.launch && i < GG_SM90_TENSOR_MAPS && !status; ++i)
    status = tensor_map(kernel, &args[i], maps[i]);
  CUresult r = CUDA_SUCCESS;
  if (!status && plan.zero_output) {
    gg_operand_shape out = gg_operand_shape_of(&d, GG_OPERAND_OUT, m);
    size_t bytes = (size_t)gg_operand_shape_numel(&out) * gg_dtype_size(out.dtype);
    if (bytes && (r = api.cuMemsetD8Async((CUdeviceptr)(uintptr_t)buffers[GG_OPERAND_OUT], 0,
                                          bytes, (CUstream)stream)))
      status = driver_error(r, "cuMemsetD8Async");
  }
  if (!status && plan.launch) {
    // Parameters: the tensor maps by value, then each operand's memref fields.
    void* params[GG_SM90_TENSOR_MAPS + GG_MAX_OPERAND_ARGS];
    for (int i = 0; i < GG_SM90_TENSOR_MAPS; ++i) params[i] = maps[i];
    for (size_t i = 0; i < count; ++i) params[GG_SM90_TENSOR_MAPS + i] = &values[i];
    CUlaunchConfig config;
    CUlaunchAttribute cluster;
    launch_config_of(kernel, (unsigned)ctas, stream, &config, &cluster);
    if ((r = api.cuLaunchKernelEx(&config, kernel->function, params, NULL)))
      status = driver_error(r, "cuLaunchKernelEx");
  }
  pop();
  return status;
}

// ---------------------------------------------------------------------------------------
// Streams and graphs, for tools that replay launches.

#define STREAM_DEFAULT 0  // ordered with the legacy default stream, as copies are
#define CAPTURE_MODE_THREAD_LOCAL 1

gg_status gg_cuda_stream_create(gg_cuda_device* device, void** out) {
  *out = NULL;
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = api.cuStreamCreate((CUstream*)out, STREAM_DEFAULT);
  pop();
  return r ? driver_error(r, "cuStreamCreate") : GG_OK;
}

void gg_cuda_stream_destroy(gg_cuda_device* device, void* stream) {
  if (!stream || push(device)) return;
  api.cuStreamDestroy((CUstream)stream);
  pop();
}

gg_status gg_cuda_capture_begin(gg_cuda_device* device, void* stream) {
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = api.cuStreamBeginCapture((CUstream)stream, CAPTURE_MODE_THREAD_LOCAL);
  pop();
  return r ? driver_error(r, "cuStreamBeginCapture") : GG_OK;
}

gg_status gg_cuda_capture_end(gg_cuda_device* device, void* stream, void** graph_exec) {
  *graph_exec = NULL;
  GG_RETURN_IF_ERROR(push(device));
  void* graph = NULL;
  CUresult r = api.cuStreamEndCapture((CUstream)stream, &graph);
  gg_status status = r ? driver_error(r, "cuStreamEndCapture") : GG_OK;
  if (!status && (r = api.cuGraphInstantiate(graph_exec, graph, 0)))
    status = driver_error(r, "cuGraphInstantiateWithFlags");
  if (graph) api.cuGraphDestroy(graph);
  pop();
  return status;
}

gg_status gg_cuda_graph_launch(gg_cuda_device* device, void* graph_exec, void* stream) {
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = api.cuGraphLaunch(graph_exec, (CUstream)stream);
  pop();
  return r ? driver_error(r, "cuGraphLaunch") : GG_OK;
}

gg_status gg_cuda_stream_capturing(gg_cuda_device* device, void* stream, int* capturing) {
  *capturing = 0;
  GG_RETURN_IF_ERROR(push(device));
  int state = 0;  // CU_STREAM_CAPTURE_STATUS_NONE; ACTIVE and INVALIDATED are both capture
  CUresult r = api.cuStreamIsCapturing((CUstream)stream, &state);
  pop();
  if (r) return driver_error(r, "cuStreamIsCapturing");
  *capturing = state != 0;
  return GG_OK;
}

// ---------------------------------------------------------------------------------------
// Events, for timing on the device.

gg_status gg_cuda_event_create(gg_cuda_device* device, void** out) {
  *out = NULL;
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = api.cuEventCreate(out, 0);  // CU_EVENT_DEFAULT: timed
  pop();
  return r ? driver_error(r, "cuEventCreate") : GG_OK;
}

gg_status gg_cuda_event_record(gg_cuda_device* device, void* event, void* stream) {
  GG_RETURN_IF_ERROR(push(device));
  CUresult r = api.cuEventRecord(event, (CUstream)stream);
  pop();
  return r ? driver_error(r, "cuEventRecord") : GG_OK;
}

gg_status gg_cuda_event_elapsed_ms(gg_cuda_device* device, void* start, void* stop, double* ms) {
  *ms = 0;
  GG_RETURN_IF_ERROR(push(device));
  float elapsed = 0;
  CUresult r = api.cuEventSynchronize(stop);
  gg_status status = r ? driver_error(r, "cuEventSynchronize") : GG_OK;
  if (!status && (r = api.cuEventElapsedTime(&elapsed, start, stop)))
    status = driver_error(r, "cuEventElapsedTime");
  pop();
  *ms = elapsed;
  return status;
}

void gg_cuda_event_destroy(gg_cuda_device* device, void* event) {
  if (!event || push(device)) return;
  api.cuEventDestroy(event);
  pop();
}

void gg_cuda_graph_destroy(gg_cuda_device* device, void* graph_exec) {
  if (!graph_exec || push(device)) return;
  api.cuGraphExecDestroy(graph_exec);
  pop();
}
