// HSA: the runtime loaded with dlopen, agents, pools, the queue, code objects, dispatch.
#include "runtime/hsa.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "runtime/code_object.h"
#include "runtime/dispatch.h"

// ---------------------------------------------------------------------------------------
// The HSA entry points gg uses, resolved once from the shared library.

#define GG_HSA_FUNCTIONS(X)                   \
  X(hsa_init)                                 \
  X(hsa_shut_down)                            \
  X(hsa_status_string)                        \
  X(hsa_iterate_agents)                       \
  X(hsa_agent_get_info)                       \
  X(hsa_agent_iterate_isas)                   \
  X(hsa_isa_get_info_alt)                     \
  X(hsa_amd_agent_iterate_memory_pools)       \
  X(hsa_amd_memory_pool_get_info)             \
  X(hsa_amd_memory_pool_allocate)             \
  X(hsa_amd_memory_pool_free)                 \
  X(hsa_amd_agents_allow_access)              \
  X(hsa_amd_memory_fill)                      \
  X(hsa_memory_copy)                          \
  X(hsa_queue_create)                         \
  X(hsa_queue_destroy)                        \
  X(hsa_queue_add_write_index_scacq_screl)    \
  X(hsa_queue_load_read_index_scacquire)      \
  X(hsa_signal_create)                        \
  X(hsa_signal_destroy)                       \
  X(hsa_signal_store_screlease)               \
  X(hsa_signal_wait_scacquire)                \
  X(hsa_signal_subtract_screlease)            \
  X(hsa_amd_signal_async_handler)             \
  X(hsa_code_object_reader_create_from_memory) \
  X(hsa_code_object_reader_destroy)           \
  X(hsa_executable_create_alt)                \
  X(hsa_executable_load_agent_code_object)    \
  X(hsa_executable_freeze)                    \
  X(hsa_executable_get_symbol_by_name)        \
  X(hsa_executable_symbol_get_info)           \
  X(hsa_executable_destroy)

typedef struct hsa_api {
#define GG_HSA_FIELD(name) __typeof__(&name) name;
  GG_HSA_FUNCTIONS(GG_HSA_FIELD)
#undef GG_HSA_FIELD
} hsa_api;

static hsa_api api;
static gg_status api_error;  // why the runtime could not be loaded (GG_OK: loaded)
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_load(void) {
  const char* path = getenv("GG_HSA_LIBRARY");
  // The system runtime talks to the kernel driver; without it there is no GPU to find.
  if (!path || !*path) {
    if (access("/dev/kfd", F_OK) != 0) {
      api_error = gg_status_make(GG_STATUS_UNAVAILABLE,
                                 "no AMD GPU: /dev/kfd does not exist (no amdgpu kernel driver)");
      return;
    }
    path = "libhsa-runtime64.so.1";
  }
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    api_error = gg_status_make(GG_STATUS_UNAVAILABLE, "no HSA runtime: %s", dlerror());
    return;
  }
#define GG_HSA_RESOLVE(name)                                                                 \
  api.name = (__typeof__(&name))dlsym(library, #name);                                     \
  if (!api.name) {                                                                           \
    api_error = gg_status_make(GG_STATUS_UNAVAILABLE, "%s lacks %s", path, #name);          \
    dlclose(library);                                                                        \
    return;                                                                                  \
  }
  GG_HSA_FUNCTIONS(GG_HSA_RESOLVE)
#undef GG_HSA_RESOLVE
}

static gg_status api_ready(void) {
  pthread_once(&api_once, api_load);
  if (api_error)
    return gg_status_make(gg_status_code_of(api_error), "%s", gg_status_message(api_error));
  return GG_OK;
}

// An HSA failure as a status: what gg was doing, and HSA's own words.
static gg_status hsa_error(hsa_status_t status, const char* what) {
  const char* message = NULL;
  if (api.hsa_status_string(status, &message) != HSA_STATUS_SUCCESS || !message)
    message = "unknown HSA error";
  gg_status_code code = status == HSA_STATUS_ERROR_OUT_OF_RESOURCES
                            ? GG_STATUS_RESOURCE_EXHAUSTED
                            : GG_STATUS_INTERNAL;
  return gg_status_make(code, "%s: %s (HSA status 0x%x)", what, message, (unsigned)status);
}

#define HSA_RETURN_IF_ERROR(call, what)                \
  do {                                                 \
    hsa_status_t hsa_status_tmp_ = (call);             \
    if (hsa_status_tmp_ != HSA_STATUS_SUCCESS)         \
      return hsa_error(hsa_status_tmp_, what);         \
  } while (0)

// ---------------------------------------------------------------------------------------
// Devices.

struct gg_hsa_device {
  hsa_agent_t agent;
  hsa_agent_t cpu;
  char chip[64];
  hsa_amd_memory_pool_t kernarg_pool;
  hsa_amd_memory_pool_t fine_pool;
  hsa_amd_memory_pool_t device_pool;  // the GPU's own memory (the fine pool where it has none)
  hsa_queue_t* queue;
  void* zeros;  // 4 zero bytes of shared memory, copied over unaligned output edges
  _Atomic int queue_error;  // hsa_status_t the queue's error callback saw (0: none)
  // Asynchronous launches whose kernels are done: their memory and signal are released by
  // the next launch or the close (HSA's handler thread only marks them).
  pthread_mutex_t finished_mutex;
  struct async_launch* finished;
  _Atomic int in_flight;  // asynchronous launches not yet done
};

// What an asynchronous launch holds until its last packet completes.
typedef struct async_launch {
  gg_hsa_device* device;
  void* kernarg[2];
  void* workspace;
  hsa_signal_t done;  // the last packet's completion signal
  hsa_signal_t user;  // the caller's, decremented when done (0: none)
  struct async_launch* next;
} async_launch;

static void async_release(async_launch* a) {
  for (int i = 0; i < 2; ++i)
    if (a->kernarg[i]) api.hsa_amd_memory_pool_free(a->kernarg[i]);
  if (a->workspace) api.hsa_amd_memory_pool_free(a->workspace);
  if (a->done.handle) api.hsa_signal_destroy(a->done);
  free(a);
}

// Releases the finished asynchronous launches.
static void async_drain(gg_hsa_device* device) {
  pthread_mutex_lock(&device->finished_mutex);
  async_launch* list = device->finished;
  device->finished = NULL;
  pthread_mutex_unlock(&device->finished_mutex);
  while (list) {
    async_launch* next = list->next;
    async_release(list);
    list = next;
  }
}

typedef struct agent_search {
  int wanted, seen;
  hsa_agent_t gpu, cpu;
  int found_gpu, found_cpu;
} agent_search;

static hsa_status_t visit_agent(hsa_agent_t agent, void* data) {
  agent_search* search = data;
  hsa_device_type_t type;
  hsa_status_t status = api.hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (status != HSA_STATUS_SUCCESS) return status;
  if (type == HSA_DEVICE_TYPE_CPU && !search->found_cpu) {
    search->cpu = agent;
    search->found_cpu = 1;
  } else if (type == HSA_DEVICE_TYPE_GPU && search->seen++ == search->wanted) {
    search->gpu = agent;
    search->found_gpu = 1;
  }
  return HSA_STATUS_SUCCESS;
}

typedef struct pool_search {
  uint32_t want_flag;
  hsa_amd_memory_pool_t pool;
  int found;
} pool_search;

static hsa_status_t visit_pool(hsa_amd_memory_pool_t pool, void* data) {
  pool_search* search = data;
  hsa_amd_segment_t segment;
  uint32_t flags = 0;
  bool alloc_allowed = false;
  if (api.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) ||
      segment != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  if (api.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) ||
      api.hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                                       &alloc_allowed) ||
      !alloc_allowed)
    return HSA_STATUS_SUCCESS;
  if ((flags & search->want_flag) && !search->found) {
    search->pool = pool;
    search->found = 1;
  }
  return HSA_STATUS_SUCCESS;
}

static gg_status find_pool(hsa_agent_t agent, uint32_t flag, const char* what,
                           hsa_amd_memory_pool_t* out) {
  pool_search search = {flag, {0}, 0};
  HSA_RETURN_IF_ERROR(api.hsa_amd_agent_iterate_memory_pools(agent, visit_pool, &search),
                      "listing memory pools");
  if (!search.found) return gg_status_make(GG_STATUS_UNAVAILABLE, "HSA offers no %s pool", what);
  *out = search.pool;
  return GG_OK;
}

typedef struct isa_name {
  char name[128];
  int found;
} isa_name;

static hsa_status_t visit_isa(hsa_isa_t isa, void* data) {
  isa_name* out = data;
  uint32_t length = 0;
  if (out->found || api.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) ||
      length >= sizeof out->name)
    return HSA_STATUS_SUCCESS;
  if (api.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, out->name) == HSA_STATUS_SUCCESS) {
    out->name[length] = 0;
    out->found = 1;
  }
  return HSA_STATUS_SUCCESS;
}

// "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-" -> "gfx950".
static void chip_of_isa(const char* isa, char* chip, size_t size) {
  const char* start = strstr(isa, "--");
  start = start ? start + 2 : isa;
  size_t length = strcspn(start, ":");
  if (length >= size) length = size - 1;
  memcpy(chip, start, length);
  chip[length] = 0;
}

static void queue_error_callback(hsa_status_t status, hsa_queue_t* queue, void* data) {
  (void)queue;
  gg_hsa_device* device = data;
  atomic_store(&device->queue_error, (int)status);
}

static gg_status device_init(gg_hsa_device* device, int index) {
  agent_search search = {index, 0, {0}, {0}, 0, 0};
  HSA_RETURN_IF_ERROR(api.hsa_iterate_agents(visit_agent, &search), "listing HSA agents");
  if (!search.found_gpu)
    return gg_status_make(GG_STATUS_UNAVAILABLE, "no AMD GPU: HSA reports %d GPU agent%s",
                          search.seen, search.seen == 1 ? "" : "s");
  if (!search.found_cpu) return gg_status_make(GG_STATUS_UNAVAILABLE, "HSA reports no CPU agent");
  device->agent = search.gpu;
  device->cpu = search.cpu;
  isa_name isa = {{0}, 0};
  HSA_RETURN_IF_ERROR(api.hsa_agent_iterate_isas(device->agent, visit_isa, &isa),
                      "reading the GPU's ISA");
  if (!isa.found) return gg_status_make(GG_STATUS_UNAVAILABLE, "the GPU reports no ISA");
  chip_of_isa(isa.name, device->chip, sizeof device->chip);
  GG_RETURN_IF_ERROR(find_pool(device->cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT,
                               "kernarg", &device->kernarg_pool));
  GG_RETURN_IF_ERROR(find_pool(device->cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                               "fine-grained system", &device->fine_pool));
  gg_status no_device_pool = find_pool(device->agent, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED,
                                       "device", &device->device_pool);
  if (no_device_pool) device->device_pool = device->fine_pool;  // an APU: one memory
  gg_status_free(no_device_pool);
  uint32_t queue_size = 0;
  HSA_RETURN_IF_ERROR(api.hsa_agent_get_info(device->agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE,
                                             &queue_size),
                      "reading the queue size");
  GG_RETURN_IF_ERROR(gg_hsa_alloc_shared(device, 4, &device->zeros));
  memset(device->zeros, 0, 4);
  if (queue_size > 1024) queue_size = 1024;  // a power of two, as the maximum is
  HSA_RETURN_IF_ERROR(api.hsa_queue_create(device->agent, queue_size, HSA_QUEUE_TYPE_MULTI,
                                           queue_error_callback, device, UINT32_MAX, UINT32_MAX,
                                           &device->queue),
                      "creating the queue");
  return GG_OK;
}

gg_status gg_hsa_device_open(int index, gg_hsa_device** out) {
  *out = NULL;
  GG_RETURN_IF_ERROR(api_ready());
  if (index < 0) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "device index %d", index);
  HSA_RETURN_IF_ERROR(api.hsa_init(), "initialising HSA");
  gg_hsa_device* device = calloc(1, sizeof *device);
  if (!device) {
    api.hsa_shut_down();
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  pthread_mutex_init(&device->finished_mutex, NULL);
  gg_status status = device_init(device, index);
  if (status) {
    gg_hsa_device_close(device);
    return status;
  }
  *out = device;
  return GG_OK;
}

void gg_hsa_device_close(gg_hsa_device* device) {
  if (!device) return;
  // Launches still in flight keep their memory: closing while the GPU runs them would
  // pull it away. Wait for them (the caller closes once nothing else uses the device).
  while (atomic_load(&device->in_flight) > 0 && !atomic_load(&device->queue_error)) sched_yield();
  async_drain(device);
  pthread_mutex_destroy(&device->finished_mutex);
  if (device->queue) api.hsa_queue_destroy(device->queue);
  if (device->zeros) api.hsa_amd_memory_pool_free(device->zeros);
  free(device);
  api.hsa_shut_down();  // HSA counts initialisations
}

const char* gg_hsa_device_chip(const gg_hsa_device* device) { return device->chip; }

gg_target gg_hsa_device_target(const gg_hsa_device* device) {
  int target = gg_target_from_name(device->chip);
  return target < 0 ? GG_TARGET_HOST : (gg_target)target;
}

static gg_status pool_alloc(gg_hsa_device* device, hsa_amd_memory_pool_t pool, size_t size,
                            void** out) {
  *out = NULL;
  void* pointer = NULL;
  HSA_RETURN_IF_ERROR(api.hsa_amd_memory_pool_allocate(pool, size ? size : 1, 0, &pointer),
                      "allocating memory");
  hsa_status_t status = api.hsa_amd_agents_allow_access(1, &device->agent, NULL, pointer);
  if (status != HSA_STATUS_SUCCESS) {
    api.hsa_amd_memory_pool_free(pointer);
    return hsa_error(status, "giving the GPU access to memory");
  }
  *out = pointer;
  return GG_OK;
}

gg_status gg_hsa_alloc_shared(gg_hsa_device* device, size_t size, void** out) {
  return pool_alloc(device, device->fine_pool, size, out);
}

void gg_hsa_free(gg_hsa_device* device, void* pointer) {
  (void)device;
  if (pointer) api.hsa_amd_memory_pool_free(pointer);
}

// ---------------------------------------------------------------------------------------
// Kernels.

// One kernel of a loaded executable.
typedef struct hsa_entry {
  gg_kernel_info info;  // from the code object's metadata
  uint64_t kernel_object;
  uint32_t kernarg_size, group_size, private_size;  // as HSA loaded them
} hsa_entry;

struct gg_hsa_kernel {
  gg_hsa_device* device;
  hsa_executable_t executable;
  hsa_entry main;
  int has_group_ends;
  hsa_entry group_ends;  // packed groups: launched first, into the workspace
};

static gg_status entry_load(gg_hsa_kernel* kernel, hsa_entry* entry) {
  gg_hsa_device* device = kernel->device;
  hsa_executable_symbol_t symbol;
  hsa_status_t status = api.hsa_executable_get_symbol_by_name(kernel->executable, entry->info.symbol,
                                                              &device->agent, &symbol);
  if (status != HSA_STATUS_SUCCESS) return hsa_error(status, entry->info.symbol);
  HSA_RETURN_IF_ERROR(api.hsa_executable_symbol_get_info(
                          symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &entry->kernel_object),
                      "reading the kernel object");
  HSA_RETURN_IF_ERROR(
      api.hsa_executable_symbol_get_info(
          symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &entry->kernarg_size),
      "reading the kernarg segment size");
  HSA_RETURN_IF_ERROR(
      api.hsa_executable_symbol_get_info(
          symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &entry->group_size),
      "reading the group segment size");
  HSA_RETURN_IF_ERROR(
      api.hsa_executable_symbol_get_info(
          symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &entry->private_size),
      "reading the private segment size");
  if (entry->kernarg_size < entry->info.kernarg_size)
    return gg_status_make(GG_STATUS_INTERNAL,
                          "HSA reports %u kernarg bytes for %s; its metadata says %u",
                          entry->kernarg_size, entry->info.name, entry->info.kernarg_size);
  return GG_OK;
}

static gg_status kernel_load(gg_hsa_kernel* kernel, const void* code_object, size_t size) {
  gg_hsa_device* device = kernel->device;
  hsa_code_object_reader_t reader;
  HSA_RETURN_IF_ERROR(api.hsa_code_object_reader_create_from_memory(code_object, size, &reader),
                      "reading the code object");
  hsa_status_t status = api.hsa_executable_create_alt(
      HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &kernel->executable);
  if (status == HSA_STATUS_SUCCESS)
    status = api.hsa_executable_load_agent_code_object(kernel->executable, device->agent, reader,
                                                       NULL, NULL);
  api.hsa_code_object_reader_destroy(reader);
  if (status != HSA_STATUS_SUCCESS) return hsa_error(status, "loading the code object");
  HSA_RETURN_IF_ERROR(api.hsa_executable_freeze(kernel->executable, NULL),
                      "freezing the executable");
  GG_RETURN_IF_ERROR(entry_load(kernel, &kernel->main));
  return kernel->has_group_ends ? entry_load(kernel, &kernel->group_ends) : GG_OK;
}

gg_status gg_hsa_kernel_load(gg_hsa_device* device, const void* code_object, size_t size,
                             gg_hsa_kernel** out) {
  *out = NULL;
  gg_hsa_kernel* kernel = calloc(1, sizeof *kernel);
  if (!kernel) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  kernel->device = device;
  gg_code_object_info info;
  gg_status status = gg_code_object_read(code_object, size, &info);
  if (!status) {
    kernel->main.info = info.kernel;
    kernel->has_group_ends = info.has_group_ends;
    kernel->group_ends.info = info.group_ends;
    char chip[64];
    chip_of_isa(info.target, chip, sizeof chip);
    if (strcmp(chip, device->chip) != 0)
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                              "the code object is for %s; the device is %s", chip, device->chip);
  }
  if (!status) status = kernel_load(kernel, code_object, size);
  if (status) {
    gg_hsa_kernel_destroy(kernel);
    return status;
  }
  *out = kernel;
  return GG_OK;
}

void gg_hsa_kernel_destroy(gg_hsa_kernel* kernel) {
  if (!kernel) return;
  if (kernel->executable.handle) api.hsa_executable_destroy(kernel->executable);
  free(kernel);
}

static gg_status queue_status(gg_hsa_device* device) {
  int error = atomic_load(&device->queue_error);
  return error ? hsa_error((hsa_status_t)error, "the GPU queue failed") : GG_OK;
}

// Zero-fills bytes [0, size) of device memory at pointer: 32-bit words by HSA's fill, the
// unaligned ends (a bf16 output may have an odd element count) copied from shared zeros,
// since the output may be coarse-grained memory the host cannot touch.
static gg_status device_zero(gg_hsa_device* device, void* pointer, size_t size) {
  uintptr_t begin = (uintptr_t)pointer, end = begin + size;
  uintptr_t body_begin = (begin + 3) & ~(uintptr_t)3, body_end = end & ~(uintptr_t)3;
  if (body_begin < body_end)
    HSA_RETURN_IF_ERROR(api.hsa_amd_memory_fill((void*)body_begin, 0,
                                                (body_end - body_begin) / 4),
                        "zero-filling the output");
  else
    body_begin = body_end = end;
  if (begin < body_begin)
    HSA_RETURN_IF_ERROR(api.hsa_memory_copy(pointer, device->zeros, body_begin - begin),
                        "zero-filling the output");
  if (body_end < end)
    HSA_RETURN_IF_ERROR(api.hsa_memory_copy((void*)body_end, device->zeros, end - body_end),
                        "zero-filling the output");
  return GG_OK;
}

// Reserves a packet slot, waiting while the queue is full.
static uint64_t reserve_slot(hsa_queue_t* queue) {
  uint64_t index = api.hsa_queue_add_write_index_scacq_screl(queue, 1);
  while (index - api.hsa_queue_load_read_index_scacquire(queue) >= queue->size) sched_yield();
  return index;
}

// One packet of a launch.
typedef struct launch_step {
  const hsa_entry* entry;
  int64_t grid[3];
  void* kernarg;
} launch_step;

// Builds the steps' packets; the last one signals `done`.
static gg_status build_packets(const launch_step* steps, int count, hsa_signal_t done,
                               gg_aql_packet* bodies) {
  for (int i = 0; i < count; ++i) {
    const hsa_entry* e = steps[i].entry;
    GG_RETURN_IF_ERROR(gg_aql_build(&bodies[i], steps[i].grid, &e->info, e->kernel_object,
                                    (uint64_t)(uintptr_t)steps[i].kernarg,
                                    i == count - 1 ? done.handle : 0));
    bodies[i].group_segment_size = e->group_size;
    bodies[i].private_segment_size = e->private_size;
  }
  return GG_OK;
}

// Publishes packets in order on a queue. Every packet carries the barrier bit, so each
// starts after the one before it has finished.
static void publish(hsa_queue_t* queue, const gg_aql_packet* bodies, int count) {
  for (int i = 0; i < count; ++i) {
    uint64_t index = reserve_slot(queue);
    gg_aql_packet* slot = (gg_aql_packet*)queue->base_address + (index & (queue->size - 1));
    // Everything but the first word, then header and setup together with one release
    // store: the packet processor must never see a valid header over a half-written packet.
    memcpy((uint8_t*)slot + 4, (const uint8_t*)&bodies[i] + 4, sizeof bodies[i] - 4);
    uint32_t header_and_setup = (uint32_t)gg_aql_header() | ((uint32_t)gg_aql_setup() << 16);
    atomic_store_explicit((_Atomic uint32_t*)slot, header_and_setup, memory_order_release);
    api.hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);
  }
}

// Publishes the steps' packets on the device's queue and waits for the last.
static gg_status dispatch(gg_hsa_device* device, const launch_step* steps, int count) {
  hsa_signal_t done;
  HSA_RETURN_IF_ERROR(api.hsa_signal_create(1, 0, NULL, &done), "creating a signal");
  gg_aql_packet bodies[2];
  gg_status status = build_packets(steps, count, done, bodies);
  if (status) {
    api.hsa_signal_destroy(done);
    return status;
  }
  publish(device->queue, bodies, count);
  // Wait in slices so a queue error (reported through the callback) ends the wait.
  while (api.hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 100000000ull,
                                       HSA_WAIT_STATE_BLOCKED) >= 1) {
    status = queue_status(device);
    if (status) break;
  }
  api.hsa_signal_destroy(done);
  return status;
}

// A launch's packets with their kernel arguments and workspace, made before any output
// byte is written: a bad image fails here.
typedef struct prepared_launch {
  launch_step steps[2];
  int count;
  void* workspace;
  gg_launch_plan plan;
} prepared_launch;

static void prepared_free(prepared_launch* p) {
  for (int i = 0; i < p->count; ++i)
    if (p->steps[i].kernarg) api.hsa_amd_memory_pool_free(p->steps[i].kernarg);
  if (p->workspace) api.hsa_amd_memory_pool_free(p->workspace);
}

static gg_status prepare(gg_hsa_kernel* kernel, const gg_op_desc* desc,
                         void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                         prepared_launch* p) {
  memset(p, 0, sizeof *p);
  gg_hsa_device* device = kernel->device;
  GG_RETURN_IF_ERROR(queue_status(device));
  GG_RETURN_IF_ERROR(gg_launch_check(desc, buffers, m));
  size_t workspace_bytes = gg_workspace_bytes(desc);
  if (gg_layout_has_group_ends(desc->layout) != (kernel->has_group_ends != 0))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "the code object for %s %s a _group_ends kernel",
                          kernel->main.info.name, kernel->has_group_ends ? "has" : "lacks");
  if (kernel->has_group_ends) p->steps[p->count++] = (launch_step){&kernel->group_ends, {1, 1, 1}, NULL};
  launch_step* main_step = &p->steps[p->count++];
  *main_step = (launch_step){&kernel->main, {0, 0, 0}, NULL};
  gg_grid_dim_rule rules[3];
  gg_grid_rules(desc, rules);
  for (int d = 0; d < 3; ++d) main_step->grid[d] = gg_grid_dim(&rules[d], m);
  p->plan = gg_launch_plan_of(desc, m, zeroing);

  gg_status status = GG_OK;
  if (workspace_bytes) status = pool_alloc(device, device->device_pool, workspace_bytes, &p->workspace);
  for (int i = 0; i < p->count && !status; ++i) {
    launch_step* step = &p->steps[i];
    status = pool_alloc(device, device->kernarg_pool, step->entry->kernarg_size, &step->kernarg);
    if (!status)
      status = gg_kernarg_build(&step->entry->info, desc, buffers, m, p->workspace, step->grid,
                                step->kernarg, step->entry->kernarg_size);
  }
  if (status) prepared_free(p);
  return status;
}

gg_status gg_hsa_kernel_run(gg_hsa_kernel* kernel, const gg_op_desc* desc,
                            void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing) {
  gg_hsa_device* device = kernel->device;
  prepared_launch p;
  GG_RETURN_IF_ERROR(prepare(kernel, desc, buffers, m, zeroing, &p));
  gg_status status = GG_OK;
  if (p.plan.zero_output) {
    gg_operand_shape out = gg_operand_shape_of(desc, GG_OPERAND_OUT, m);
    status = device_zero(device, buffers[GG_OPERAND_OUT],
                         (size_t)gg_operand_shape_numel(&out) * gg_dtype_size(out.dtype));
  }
  if (!status && p.plan.launch) status = dispatch(device, p.steps, p.count);
  prepared_free(&p);
  return status;
}

// HSA's handler thread: the launch's kernels are done. Tell the caller, and leave the
// memory and the signal to the next launch or the close (HSA calls are not made here).
static bool async_finished(hsa_signal_value_t value, void* arg) {
  (void)value;
  async_launch* a = arg;
  gg_hsa_device* device = a->device;
  if (a->user.handle) api.hsa_signal_subtract_screlease(a->user, 1);
  pthread_mutex_lock(&device->finished_mutex);
  a->next = device->finished;
  device->finished = a;
  pthread_mutex_unlock(&device->finished_mutex);
  atomic_fetch_sub(&device->in_flight, 1);
  return false;  // one shot
}

gg_status gg_hsa_kernel_launch(gg_hsa_kernel* kernel, const gg_op_desc* desc,
                               void* const buffers[GG_OPERAND_COUNT], int64_t m, int zeroing,
                               void* queue, uint64_t completion_signal) {
  gg_hsa_device* device = kernel->device;
  async_drain(device);
  GG_RETURN_IF_ERROR(queue_status(device));
  GG_RETURN_IF_ERROR(gg_launch_check(desc, buffers, m));
  gg_launch_plan plan = gg_launch_plan_of(desc, m, zeroing);
  gg_operand_shape out = gg_operand_shape_of(desc, GG_OPERAND_OUT, m);
  if (plan.zero_output && gg_operand_shape_numel(&out) > 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "an asynchronous AMD launch cannot zero-fill the output in queue order "
                          "(%s): zero it on your queue and pass zeroing 0, or launch "
                          "synchronously",
                          plan.launch ? "padded with zeroing" : "a zero extent launches nothing");
  if (!plan.launch) {  // an empty output: nothing to do, done at once
    if (completion_signal)
      api.hsa_signal_subtract_screlease((hsa_signal_t){completion_signal}, 1);
    return GG_OK;
  }
  prepared_launch p;
  GG_RETURN_IF_ERROR(prepare(kernel, desc, buffers, m, zeroing, &p));
  async_launch* a = calloc(1, sizeof *a);
  gg_status status = a ? GG_OK : gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  hsa_status_t r = HSA_STATUS_SUCCESS;
  if (!status && (r = api.hsa_signal_create(1, 0, NULL, &a->done)) != HSA_STATUS_SUCCESS)
    status = hsa_error(r, "creating a signal");
  gg_aql_packet bodies[2];
  if (!status) status = build_packets(p.steps, p.count, a->done, bodies);
  if (!status) {
    a->device = device;
    a->user.handle = completion_signal;
    for (int i = 0; i < p.count; ++i) a->kernarg[i] = p.steps[i].kernarg;
    a->workspace = p.workspace;
    atomic_fetch_add(&device->in_flight, 1);
    // The handler is registered before the packets exist, so it cannot miss their end.
    r = api.hsa_amd_signal_async_handler(a->done, HSA_SIGNAL_CONDITION_LT, 1, async_finished, a);
    if (r != HSA_STATUS_SUCCESS) {
      atomic_fetch_sub(&device->in_flight, 1);
      a->kernarg[0] = a->kernarg[1] = a->workspace = NULL;  // p still owns them
      status = hsa_error(r, "registering the launch's completion handler");
    }
  }
  if (status) {
    if (a) async_release(a);
    prepared_free(&p);
    return status;
  }
  publish(queue ? (hsa_queue_t*)queue : device->queue, bodies, p.count);
  return GG_OK;
}
