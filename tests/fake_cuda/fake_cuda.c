// A CPU stand-in for libcuda.so.1, loaded by runtime/cuda.c through GG_CUDA_LIBRARY. It
// runs no kernel: it keeps device memory in host memory, checks what the driver checks
// (a current context for the calls that need one, module images, the function name,
// shared memory against the opt-in limit), and records every launch (grid, block, shared
// memory, stream, the parameter bytes, the tensor maps' encoding) for the test to read
// through the test_* hooks. Launches on a capturing stream go into the graph, which
// cuGraphLaunch replays. test_fail makes the next call of a named function fail.
#define _GNU_SOURCE  // memmem
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
enum {
  OK = 0,
  INVALID_VALUE = 1,
  NOT_INITIALIZED = 3,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  NOT_FOUND = 500,
  ILLEGAL_ADDRESS = 700,
  LAUNCH_OUT_OF_RESOURCES = 701,
  STREAM_CAPTURE_UNSUPPORTED = 900,
};

typedef struct tensor_map_record {
  int data_type;
  unsigned rank;
  void* address;
  uint64_t dims[2], strides[1];  // gg's maps are 2-D
  uint32_t box[2], element_strides[2];
  int interleave, swizzle, l2, oob;
} tensor_map_record;

typedef struct launch_record {
  unsigned grid[3], block[3], shared;
  unsigned cluster[3];  // from the launch's cluster attribute; 1 x 1 x 1 without one
  void* stream;
  int param_count;
  unsigned char params[64][128];  // each parameter's bytes (tensor maps 128, others 8)
  int captured;                   // replayed from a graph
} launch_record;

#define MAX_LAUNCHES 64

static struct {
  pthread_mutex_t mutex;
  int initialised, device_count, major, minor, shared_optin;
  int retained;
  int param_count;  // how many parameters the kernel under test takes
  int tensor_maps;  // how many of them, first, are 128-byte tensor maps
  char fail_function[64];
  CUresult fail_code;
  int launches, memsets, synchronizes, live_allocations, modules, encodes, live_events;
  void* last_memset_stream;
  size_t last_memset_bytes;
  int max_dynamic_shared;
  char device_name[64];  // "" : "Fake H200"
  launch_record records[MAX_LAUNCHES];
  launch_record graph[4];
  int graph_count;
  void* capturing;  // the stream being captured
} fake = {.mutex = PTHREAD_MUTEX_INITIALIZER, .device_count = 1, .major = 9,
          .shared_optin = 232448};

static __thread int context_depth;  // contexts pushed on this thread
static char primary_context;        // the one context's handle

static CUresult failing(const char* function) {
  pthread_mutex_lock(&fake.mutex);
  CUresult code = OK;
  if (fake.fail_function[0] && !strcmp(fake.fail_function, function)) {
    code = fake.fail_code;
    fake.fail_function[0] = 0;
  }
  pthread_mutex_unlock(&fake.mutex);
  return code;
}

#define FAIL_IF_ASKED(name)            \
  do {                                 \
    CUresult asked_ = failing(name);   \
    if (asked_) return asked_;         \
  } while (0)
#define NEEDS_CONTEXT() \
  do {                  \
    if (!fake.initialised) return NOT_INITIALIZED; \
    if (context_depth <= 0) return INVALID_CONTEXT; \
  } while (0)

// ---------------------------------------------------------------------------------------
// Test hooks.

EXPORT void test_configure(int device_count, int major, int minor, int shared_optin,
                           int param_count, int tensor_maps) {
  pthread_mutex_lock(&fake.mutex);
  fake.device_count = device_count;
  fake.major = major;
  fake.minor = minor;
  fake.shared_optin = shared_optin;
  fake.param_count = param_count;
  fake.tensor_maps = tensor_maps;
  pthread_mutex_unlock(&fake.mutex);
}
// The name cuDeviceGetName gives ("" or NULL: "Fake H200"), for devices opened after it.
EXPORT void test_set_device_name(const char* name) {
  strncpy(fake.device_name, name ? name : "", sizeof fake.device_name - 1);
}

EXPORT void test_fail(const char* function, int code) {
  pthread_mutex_lock(&fake.mutex);
  strncpy(fake.fail_function, function, sizeof fake.fail_function - 1);
  fake.fail_code = code;
  pthread_mutex_unlock(&fake.mutex);
}
EXPORT int test_launches(void) { return fake.launches; }
EXPORT int test_memsets(void) { return fake.memsets; }
EXPORT int test_encodes(void) { return fake.encodes; }
EXPORT void* test_last_memset_stream(void) { return fake.last_memset_stream; }
EXPORT size_t test_last_memset_bytes(void) { return fake.last_memset_bytes; }
EXPORT int test_synchronizes(void) { return fake.synchronizes; }
EXPORT int test_live_allocations(void) { return fake.live_allocations; }
EXPORT int test_live_events(void) { return fake.live_events; }
EXPORT int test_context_depth(void) { return context_depth; }
EXPORT int test_retained(void) { return fake.retained; }
EXPORT int test_max_dynamic_shared(void) { return fake.max_dynamic_shared; }
// The launch `back` launches ago (0: the last), or NULL.
EXPORT const launch_record* test_launch(int back) {
  int i = fake.launches - 1 - back;
  return i >= 0 && i < MAX_LAUNCHES ? &fake.records[i] : NULL;
}

// ---------------------------------------------------------------------------------------
// The driver API.

EXPORT CUresult cuInit(unsigned flags) {
  FAIL_IF_ASKED("cuInit");
  if (flags) return INVALID_VALUE;
  fake.initialised = 1;
  return OK;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char** name) {
  switch (error) {
    case INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
    case INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; break;
    case INVALID_IMAGE: *name = "CUDA_ERROR_INVALID_IMAGE"; break;
    case NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
    case ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case LAUNCH_OUT_OF_RESOURCES: *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; break;
    default: *name = "CUDA_ERROR_UNKNOWN"; return INVALID_VALUE;
  }
  return OK;
}

EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
  *text = error == ILLEGAL_ADDRESS ? "an illegal memory access was encountered"
                                   : "the fake driver says so";
  return OK;
}

EXPORT CUresult cuDeviceGetCount(int* count) {
  if (!fake.initialised) return NOT_INITIALIZED;
  *count = fake.device_count;
  return OK;
}

EXPORT CUresult cuDeviceGet(int* device, int ordinal) {
  if (ordinal < 0 || ordinal >= fake.device_count) return INVALID_DEVICE;
  *device = ordinal;
  return OK;
}

EXPORT CUresult cuDeviceGetName(char* name, int size, int device) {
  (void)device;
  strncpy(name, fake.device_name[0] ? fake.device_name : "Fake H200", (size_t)size - 1);
  name[size - 1] = 0;
  return OK;
}

EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
  (void)device;
  switch (attribute) {
    case 16: *value = 132; return OK;  // multiprocessors
    case 75: *value = fake.major; return OK;
    case 76: *value = fake.minor; return OK;
    case 97: *value = fake.shared_optin; return OK;
    default: return INVALID_VALUE;
  }
}

EXPORT CUresult cuDevicePrimaryCtxRetain(void** context, int device) {
  (void)device;
  FAIL_IF_ASKED("cuDevicePrimaryCtxRetain");
  *context = &primary_context;
  __atomic_add_fetch(&fake.retained, 1, __ATOMIC_SEQ_CST);
  return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  __atomic_sub_fetch(&fake.retained, 1, __ATOMIC_SEQ_CST);
  return OK;
}

EXPORT CUresult cuCtxPushCurrent_v2(void* context) {
  if (context != &primary_context) return INVALID_CONTEXT;
  ++context_depth;
  return OK;
}

EXPORT CUresult cuCtxPopCurrent_v2(void** context) {
  if (context_depth <= 0) return INVALID_CONTEXT;
  --context_depth;
  if (context) *context = &primary_context;
  return OK;
}

typedef struct module {
  unsigned char* image;
  size_t size;
} module;

EXPORT CUresult cuModuleLoadDataEx(void** out, const void* image, unsigned count, int* options,
                                   void** values) {
  NEEDS_CONTEXT();
  FAIL_IF_ASKED("cuModuleLoadDataEx");
  (void)count;
  (void)options;
  (void)values;
  const unsigned char* bytes = image;
  size_t size;
  if (!memcmp(bytes, "\177ELF", 4)) {
    // An ELF's size is in its header: section headers end it (e_shoff + e_shnum e_shentsize).
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, bytes + 0x28, 8);
    memcpy(&shentsize, bytes + 0x3A, 2);
    memcpy(&shnum, bytes + 0x3C, 2);
    size = shoff + (size_t)shentsize * shnum;
  } else if (strstr((const char*)bytes, ".entry") && strstr((const char*)bytes, ".target sm_90a")) {
    size = strlen((const char*)bytes) + 1;
  } else {
    return INVALID_IMAGE;
  }
  module* m = malloc(sizeof *m);
  m->image = malloc(size);
  memcpy(m->image, bytes, size);
  m->size = size;
  *out = m;
  __atomic_add_fetch(&fake.modules, 1, __ATOMIC_SEQ_CST);
  return OK;
}

EXPORT CUresult cuModuleUnload(void* handle) {
  NEEDS_CONTEXT();
  module* m = handle;
  free(m->image);
  free(m);
  __atomic_sub_fetch(&fake.modules, 1, __ATOMIC_SEQ_CST);
  return OK;
}

EXPORT CUresult cuModuleGetFunction(void** function, void* handle, const char* name) {
  NEEDS_CONTEXT();
  module* m = handle;
  if (!memmem(m->image, m->size, name, strlen(name))) return NOT_FOUND;
  *function = m;
  return OK;
}

EXPORT CUresult cuFuncSetAttribute(void* function, int attribute, int value) {
  NEEDS_CONTEXT();
  (void)function;
  if (attribute != 8) return INVALID_VALUE;
  if (value + 1024 > fake.shared_optin) return INVALID_VALUE;
  fake.max_dynamic_shared = value;
  return OK;
}

EXPORT CUresult cuFuncGetAttribute(int* value, int attribute, void* function) {
  NEEDS_CONTEXT();
  (void)function;
  switch (attribute) {
    case 1: *value = 1024; return OK;  // static shared memory
    case 4: *value = 168; return OK;   // registers
    default: return INVALID_VALUE;
  }
}

EXPORT CUresult cuMemAlloc_v2(unsigned long long* pointer, size_t size) {
  NEEDS_CONTEXT();
  FAIL_IF_ASKED("cuMemAlloc_v2");
  void* p = aligned_alloc(256, (size + 255) / 256 * 256);
  if (!p) return 2;
  *pointer = (unsigned long long)(uintptr_t)p;
  __atomic_add_fetch(&fake.live_allocations, 1, __ATOMIC_SEQ_CST);
  return OK;
}

EXPORT CUresult cuMemFree_v2(unsigned long long pointer) {
  NEEDS_CONTEXT();
  free((void*)(uintptr_t)pointer);
  __atomic_sub_fetch(&fake.live_allocations, 1, __ATOMIC_SEQ_CST);
  return OK;
}

EXPORT CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void* src, size_t size) {
  NEEDS_CONTEXT();
  memcpy((void*)(uintptr_t)dst, src, size);
  return OK;
}

EXPORT CUresult cuMemcpyDtoH_v2(void* dst, unsigned long long src, size_t size) {
  NEEDS_CONTEXT();
  memcpy(dst, (const void*)(uintptr_t)src, size);
  return OK;
}

EXPORT CUresult cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t size) {
  NEEDS_CONTEXT();
  memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, size);
  return OK;
}

EXPORT CUresult cuMemsetD8Async(unsigned long long dst, unsigned char value, size_t size,
                                void* stream) {
  NEEDS_CONTEXT();
  FAIL_IF_ASKED("cuMemsetD8Async");
  memset((void*)(uintptr_t)dst, value, size);
  fake.memsets++;
  fake.last_memset_stream = stream;
  fake.last_memset_bytes = size;
  return OK;
}

EXPORT CUresult cuStreamSynchronize(void* stream) {
  (void)stream;
  NEEDS_CONTEXT();
  FAIL_IF_ASKED("cuStreamSynchronize");
  fake.synchronizes++;
  return OK;
}

static char streams[8];
static int stream_count;

EXPORT CUresult cuStreamCreate(void** stream, unsigned flags) {
  NEEDS_CONTEXT();
  (void)flags;
  *stream = &streams[stream_count++ % 8];
  return OK;
}

EXPORT CUresult cuStreamDestroy_v2(void* stream) {
  (void)stream;
  NEEDS_CONTEXT();
  return OK;
}

EXPORT CUresult cuStreamBeginCapture_v2(void* stream, int mode) {
  NEEDS_CONTEXT();
  (void)mode;
  if (!stream || fake.capturing) return STREAM_CAPTURE_UNSUPPORTED;
  fake.capturing = stream;
  fake.graph_count = 0;
  return OK;
}

EXPORT CUresult cuStreamEndCapture(void* stream, void** graph) {
  NEEDS_CONTEXT();
  if (stream != fake.capturing) return INVALID_VALUE;
  fake.capturing = NULL;
  *graph = &fake.graph;
  return OK;
}

EXPORT CUresult cuStreamIsCapturing(void* stream, int* status) {
  NEEDS_CONTEXT();
  *status = fake.capturing && stream == fake.capturing;  // 1: CU_STREAM_CAPTURE_STATUS_ACTIVE
  return OK;
}

// Events: each is the launch count when it was recorded; the time between two is 1 ms a
// launch (the sweep's own tests replace times through GG_TUNE_FAKE_US anyway).
static int events[64];
static int event_count;

EXPORT CUresult cuEventCreate(void** event, unsigned flags) {
  NEEDS_CONTEXT();
  (void)flags;
  *event = &events[event_count++ % 64];
  fake.live_events++;
  return OK;
}

EXPORT CUresult cuEventRecord(void* event, void* stream) {
  NEEDS_CONTEXT();
  (void)stream;
  if (fake.capturing) return STREAM_CAPTURE_UNSUPPORTED;  // gg never times a capture
  *(int*)event = fake.launches;
  return OK;
}

EXPORT CUresult cuEventSynchronize(void* event) {
  (void)event;
  NEEDS_CONTEXT();
  return OK;
}

EXPORT CUresult cuEventElapsedTime(float* ms, void* start, void* stop) {
  NEEDS_CONTEXT();
  *ms = (float)(*(int*)stop - *(int*)start);
  return OK;
}

EXPORT CUresult cuEventDestroy_v2(void* event) {
  (void)event;
  NEEDS_CONTEXT();
  fake.live_events--;
  return OK;
}

EXPORT CUresult cuGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long flags) {
  NEEDS_CONTEXT();
  (void)flags;
  *exec = graph;
  return OK;
}

static void record(const launch_record* r) {
  if (fake.launches < MAX_LAUNCHES) fake.records[fake.launches] = *r;
  fake.launches++;
}

EXPORT CUresult cuGraphLaunch(void* exec, void* stream) {
  NEEDS_CONTEXT();
  (void)exec;
  for (int i = 0; i < fake.graph_count; ++i) {
    launch_record r = fake.graph[i];
    r.stream = stream;
    r.captured = 1;
    record(&r);
  }
  return OK;
}

EXPORT CUresult cuGraphExecDestroy(void* exec) {
  (void)exec;
  return OK;
}

EXPORT CUresult cuGraphDestroy(void* graph) {
  (void)graph;
  return OK;
}

typedef struct launch_attribute {
  int id;
  char pad[4];
  unsigned value[16];
} launch_attribute;

typedef struct launch_config {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
  void* stream;
  launch_attribute* attrs;
  unsigned attr_count;
} launch_config;

#define ATTRIBUTE_CLUSTER_DIMENSION 4

// The cluster a launch asks for: 1 x 1 x 1 without the attribute.
static void cluster_of(const launch_config* config, unsigned cluster[3]) {
  cluster[0] = cluster[1] = cluster[2] = 1;
  for (unsigned i = 0; i < config->attr_count; ++i)
    if (config->attrs[i].id == ATTRIBUTE_CLUSTER_DIMENSION)
      memcpy(cluster, config->attrs[i].value, 3 * sizeof(unsigned));
}

// A stand-in H200's GPCs: as if 16 of its 132 SMs could not join clusters of more than one.
EXPORT CUresult cuOccupancyMaxActiveClusters(int* clusters, void* function,
                                             const launch_config* config) {
  NEEDS_CONTEXT();
  FAIL_IF_ASKED("cuOccupancyMaxActiveClusters");
  (void)function;
  unsigned cluster[3];
  cluster_of(config, cluster);
  unsigned size = cluster[0] * cluster[1] * cluster[2];
  *clusters = size > 1 ? (int)(116 / size) : 132;
  return OK;
}

EXPORT CUresult cuLaunchKernelEx(const launch_config* config, void* function, void** params,
                                 void** extra) {
  NEEDS_CONTEXT();
  FAIL_IF_ASKED("cuLaunchKernelEx");
  (void)function;
  if (extra || !params) return INVALID_VALUE;
  if (config->shared_bytes > (unsigned)fake.max_dynamic_shared) return LAUNCH_OUT_OF_RESOURCES;
  launch_record r;
  memset(&r, 0, sizeof r);
  r.grid[0] = config->grid_x, r.grid[1] = config->grid_y, r.grid[2] = config->grid_z;
  r.block[0] = config->block_x, r.block[1] = config->block_y, r.block[2] = config->block_z;
  r.shared = config->shared_bytes;
  cluster_of(config, r.cluster);
  if (config->grid_x % r.cluster[0] || config->grid_y % r.cluster[1] || config->grid_z % r.cluster[2])
    return INVALID_VALUE;  // the driver's rule: a grid of whole clusters
  r.stream = config->stream;
  r.param_count = fake.param_count < 64 ? fake.param_count : 64;
  for (int i = 0; i < r.param_count; ++i) memcpy(r.params[i], params[i], i < fake.tensor_maps ? 128 : 8);
  if (fake.capturing && config->stream == fake.capturing) {
    if (fake.graph_count < 4) fake.graph[fake.graph_count++] = r;
    return OK;
  }
  record(&r);
  return OK;
}

// The map's 128 bytes hold what it was encoded from, for the test to read back.
EXPORT CUresult cuTensorMapEncodeTiled(void* map, int data_type, uint32_t rank, void* address,
                                       const uint64_t* dims, const uint64_t* strides,
                                       const uint32_t* box, const uint32_t* element_strides,
                                       int interleave, int swizzle, int l2, int oob) {
  NEEDS_CONTEXT();
  FAIL_IF_ASKED("cuTensorMapEncodeTiled");
  if ((uintptr_t)map % 64 || rank < 1 || rank > 2 || (uintptr_t)address % 16) return INVALID_VALUE;
  for (uint32_t i = 0; i + 1 < rank; ++i)
    if (strides[i] % 16) return INVALID_VALUE;
  if (swizzle == 3 && box[0] > 128) return INVALID_VALUE;  // 128-byte swizzle: box inner <= 128 B
  tensor_map_record t;
  memset(&t, 0, sizeof t);
  t.data_type = data_type;
  t.rank = rank;
  t.address = address;
  for (uint32_t i = 0; i < rank; ++i) {
    t.dims[i] = dims[i];
    t.box[i] = box[i];
    t.element_strides[i] = element_strides[i];
    if (i + 1 < rank) t.strides[i] = strides[i];
  }
  t.interleave = interleave, t.swizzle = swizzle, t.l2 = l2, t.oob = oob;
  _Static_assert(sizeof t <= 128, "a tensor map is 128 bytes");
  memset(map, 0, 128);
  memcpy(map, &t, sizeof t);
  fake.encodes++;
  return OK;
}
