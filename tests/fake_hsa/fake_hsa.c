// A stand-in for libhsa-runtime64 that runs on the CPU, so the tests can drive gg's HSA
// launcher (runtime/hsa.c) through every call it makes without a GPU: one CPU and one GPU
// agent, pools over host memory, and a packet processor that runs when the doorbell
// rings. It executes no kernel: it checks each packet's header, records the packet and
// its kernel arguments, and completes (or fails) the dispatch. The test_* functions at the
// end configure it and read what it saw.
#define _GNU_SOURCE  // memmem
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#define EXPORT __attribute__((visibility("default")))

enum { CPU_AGENT = 1, GPU_AGENT = 2, KERNARG_POOL = 11, FINE_POOL = 12, DEVICE_POOL = 13 };
// Kernel objects: KERNEL_OBJECT for a kernel, KERNEL_OBJECT + 1 for a _group_ends kernel.
enum { KERNEL_OBJECT = 0xC0DE0000 };

typedef struct fake_signal {
  _Atomic int64_t value;
  int is_doorbell;
} fake_signal;

typedef struct fake_state {
  int initialised;  // hsa_init count
  char chip[32];
  uint32_t kernarg_size, group_size, private_size;
  int fail_dispatch;
  // The queue.
  hsa_queue_t queue;
  void (*callback)(hsa_status_t, hsa_queue_t*, void*);
  void* callback_data;
  _Atomic uint64_t write_index;
  _Atomic uint64_t read_index;
  fake_signal doorbell;
  // What the loaded code object held.
  char* code_object;
  size_t code_object_size;
  // What the packet processor saw.
  int dispatches;
  int bad_headers;
  uint8_t packets[2][64];     // the last packet, then the one before it
  uint8_t kernargs[2][4096];
  int live_allocations;
  // Handlers registered with hsa_amd_signal_async_handler, run when their signal drops
  // below the value (the stand-in calls them on the thread that completes the packet).
  struct {
    fake_signal* signal;
    hsa_signal_value_t below;
    hsa_amd_signal_handler handler;
    void* arg;
  } handlers[64];
  int handler_count;
} fake_state;

static fake_state state = {.chip = "gfx950", .kernarg_size = 256};

EXPORT hsa_status_t hsa_init(void) {
  ++state.initialised;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_shut_down(void) {
  if (state.initialised == 0) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  --state.initialised;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_status_string(hsa_status_t status, const char** message) {
  *message = status == HSA_STATUS_ERROR_EXCEPTION ? "fake HSA: the kernel raised an exception"
                                                  : "fake HSA: error";
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  hsa_status_t s = callback((hsa_agent_t){CPU_AGENT}, data);
  return s != HSA_STATUS_SUCCESS ? s : callback((hsa_agent_t){GPU_AGENT}, data);
}

EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute,
                                       void* value) {
  switch ((int)attribute) {
    case HSA_AGENT_INFO_DEVICE:
      *(hsa_device_type_t*)value = agent.handle == GPU_AGENT ? HSA_DEVICE_TYPE_GPU
                                                             : HSA_DEVICE_TYPE_CPU;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
      *(uint32_t*)value = 131072;
      return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

EXPORT hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent,
                                           hsa_status_t (*callback)(hsa_isa_t, void*),
                                           void* data) {
  if (agent.handle != GPU_AGENT) return HSA_STATUS_ERROR_INVALID_AGENT;
  return callback((hsa_isa_t){1}, data);
}

EXPORT hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value) {
  (void)isa;
  char name[96];
  snprintf(name, sizeof name, "amdgcn-amd-amdhsa--%s:sramecc+:xnack-", state.chip);
  if (attribute == HSA_ISA_INFO_NAME_LENGTH) *(uint32_t*)value = (uint32_t)strlen(name);
  else if (attribute == HSA_ISA_INFO_NAME) memcpy(value, name, strlen(name));
  else return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t agent, hsa_status_t (*callback)(hsa_amd_memory_pool_t, void*), void* data) {
  if (agent.handle == GPU_AGENT) return callback((hsa_amd_memory_pool_t){DEVICE_POOL}, data);
  hsa_status_t s = callback((hsa_amd_memory_pool_t){FINE_POOL}, data);
  return s != HSA_STATUS_SUCCESS ? s : callback((hsa_amd_memory_pool_t){KERNARG_POOL}, data);
}

EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool,
                                                 hsa_amd_memory_pool_info_t attribute,
                                                 void* value) {
  switch (attribute) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
      *(hsa_amd_segment_t*)value = HSA_AMD_SEGMENT_GLOBAL;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
      *(uint32_t*)value =
          pool.handle == KERNARG_POOL
              ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
          : pool.handle == FINE_POOL ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                                     : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
      *(bool*)value = true;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

EXPORT hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t pool, size_t size,
                                                 uint32_t flags, void** ptr) {
  (void)pool;
  (void)flags;
  // Poisoned, as fresh device memory may be: gg must write every byte it relies on.
  *ptr = aligned_alloc(64, (size + 63) & ~(size_t)63);
  if (!*ptr) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  memset(*ptr, 0xA5, size);
  ++state.live_allocations;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_memory_pool_free(void* ptr) {
  if (ptr) --state.live_allocations;
  free(ptr);
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t* agents,
                                                const uint32_t* flags, const void* ptr) {
  (void)flags;
  (void)ptr;
  return num_agents == 1 && agents[0].handle == GPU_AGENT ? HSA_STATUS_SUCCESS
                                                          : HSA_STATUS_ERROR_INVALID_AGENT;
}

EXPORT hsa_status_t hsa_amd_memory_fill(void* ptr, uint32_t value, size_t count) {
  if ((uintptr_t)ptr % 4) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (size_t i = 0; i < count; ++i) memcpy((char*)ptr + 4 * i, &value, 4);
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_memory_copy(void* dst, const void* src, size_t size) {
  memcpy(dst, src, size);
  return HSA_STATUS_SUCCESS;
}

// The packet processor: every packet up to the write index, when the doorbell rings.
static void process_packets(void) {
  hsa_queue_t* q = &state.queue;
  while (atomic_load(&state.read_index) < atomic_load(&state.write_index)) {
    uint64_t index = atomic_load(&state.read_index);
    uint8_t* slot = (uint8_t*)q->base_address + 64 * (index & (q->size - 1));
    hsa_kernel_dispatch_packet_t packet;
    memcpy(&packet, slot, sizeof packet);
    if (packet.header != 0x1502 || packet.setup != 3) ++state.bad_headers;
    memcpy(state.packets[1], state.packets[0], 64);
    memcpy(state.kernargs[1], state.kernargs[0], sizeof state.kernargs[0]);
    memcpy(state.packets[0], slot, 64);
    size_t kernarg = state.kernarg_size < sizeof state.kernargs[0] ? state.kernarg_size
                                                                  : sizeof state.kernargs[0];
    memcpy(state.kernargs[0], (const void*)(uintptr_t)packet.kernarg_address, kernarg);
    ++state.dispatches;
    // The slot goes back to INVALID, as a packet processor leaves it.
    *(uint16_t*)slot = HSA_PACKET_TYPE_INVALID;
    atomic_store(&state.read_index, index + 1);
    if (state.fail_dispatch) {
      state.callback(HSA_STATUS_ERROR_EXCEPTION, q, state.callback_data);
      continue;  // the completion signal is never decremented
    }
    if (packet.completion_signal.handle) {
      fake_signal* done = (fake_signal*)(uintptr_t)packet.completion_signal.handle;
      hsa_signal_value_t value = atomic_fetch_sub(&done->value, 1) - 1;
      for (int h = 0; h < state.handler_count;) {
        if (state.handlers[h].signal == done && value < state.handlers[h].below) {
          hsa_amd_signal_handler handler = state.handlers[h].handler;
          void* arg = state.handlers[h].arg;
          state.handlers[h] = state.handlers[--state.handler_count];
          if (handler(value, arg)) return;  // re-arming is not modelled
        } else {
          ++h;
        }
      }
    }
  }
}

EXPORT hsa_status_t hsa_amd_signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t condition,
                                                 hsa_signal_value_t value,
                                                 hsa_amd_signal_handler handler, void* arg) {
  if (condition != HSA_SIGNAL_CONDITION_LT || !handler || state.handler_count == 64)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  fake_signal* s = (fake_signal*)(uintptr_t)signal.handle;
  if (atomic_load(&s->value) < value) {  // already there
    handler(atomic_load(&s->value), arg);
    return HSA_STATUS_SUCCESS;
  }
  state.handlers[state.handler_count].signal = s;
  state.handlers[state.handler_count].below = value;
  state.handlers[state.handler_count].handler = handler;
  state.handlers[state.handler_count++].arg = arg;
  return HSA_STATUS_SUCCESS;
}

EXPORT void hsa_signal_subtract_screlease(hsa_signal_t signal, hsa_signal_value_t value) {
  atomic_fetch_sub(&((fake_signal*)(uintptr_t)signal.handle)->value, value);
}

EXPORT hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                     void (*callback)(hsa_status_t, hsa_queue_t*, void*),
                                     void* data, uint32_t private_segment_size,
                                     uint32_t group_segment_size, hsa_queue_t** queue) {
  (void)private_segment_size;
  (void)group_segment_size;
  if (agent.handle != GPU_AGENT || type != HSA_QUEUE_TYPE_MULTI || size == 0 ||
      (size & (size - 1)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  state.queue.type = type;
  state.queue.size = size;
  state.queue.base_address = aligned_alloc(64, 64 * (size_t)size);
  memset(state.queue.base_address, 0, 64 * (size_t)size);
  for (uint32_t i = 0; i < size; ++i)
    *(uint16_t*)((uint8_t*)state.queue.base_address + 64 * i) = HSA_PACKET_TYPE_INVALID;
  state.doorbell.is_doorbell = 1;
  state.queue.doorbell_signal.handle = (uint64_t)(uintptr_t)&state.doorbell;
  state.callback = callback;
  state.callback_data = data;
  *queue = &state.queue;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_queue_destroy(hsa_queue_t* queue) {
  free(queue->base_address);
  queue->base_address = NULL;
  return HSA_STATUS_SUCCESS;
}

EXPORT uint64_t hsa_queue_add_write_index_scacq_screl(const hsa_queue_t* queue, uint64_t value) {
  (void)queue;
  return atomic_fetch_add(&state.write_index, value);
}

EXPORT uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t* queue) {
  (void)queue;
  return atomic_load(&state.read_index);
}

EXPORT hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                      const hsa_agent_t* consumers, hsa_signal_t* signal) {
  (void)num_consumers;
  (void)consumers;
  fake_signal* s = calloc(1, sizeof *s);
  if (!s) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  atomic_store(&s->value, initial_value);
  signal->handle = (uint64_t)(uintptr_t)s;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
  free((void*)(uintptr_t)signal.handle);
  return HSA_STATUS_SUCCESS;
}

EXPORT void hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value) {
  fake_signal* s = (fake_signal*)(uintptr_t)signal.handle;
  atomic_store(&s->value, value);
  if (s->is_doorbell) process_packets();
}

EXPORT hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal,
                                                    hsa_signal_condition_t condition,
                                                    hsa_signal_value_t compare_value,
                                                    uint64_t timeout_hint,
                                                    hsa_wait_state_t wait_state_hint) {
  (void)condition;
  (void)compare_value;
  (void)timeout_hint;
  (void)wait_state_hint;
  // Dispatches complete when the doorbell rings, so there is nothing to wait for.
  return atomic_load(&((fake_signal*)(uintptr_t)signal.handle)->value);
}

EXPORT hsa_status_t hsa_code_object_reader_create_from_memory(const void* code_object,
                                                              size_t size,
                                                              hsa_code_object_reader_t* reader) {
  if (size < 20 || memcmp(code_object, "\177ELF", 4) != 0 ||
      *(const uint16_t*)((const uint8_t*)code_object + 18) != 224)  // EM_AMDGPU
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  free(state.code_object);
  state.code_object = malloc(size);
  memcpy(state.code_object, code_object, size);
  state.code_object_size = size;
  reader->handle = 1;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t reader) {
  (void)reader;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_create_alt(hsa_profile_t profile,
                                              hsa_default_float_rounding_mode_t mode,
                                              const char* options, hsa_executable_t* executable) {
  (void)profile;
  (void)mode;
  (void)options;
  executable->handle = 1;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t executable,
                                                          hsa_agent_t agent,
                                                          hsa_code_object_reader_t reader,
                                                          const char* options,
                                                          hsa_loaded_code_object_t* loaded) {
  (void)executable;
  (void)reader;
  (void)options;
  (void)loaded;
  return agent.handle == GPU_AGENT ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_AGENT;
}

EXPORT hsa_status_t hsa_executable_freeze(hsa_executable_t executable, const char* options) {
  (void)executable;
  (void)options;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t executable,
                                                      const char* name, const hsa_agent_t* agent,
                                                      hsa_executable_symbol_t* symbol) {
  (void)executable;
  size_t n = strlen(name);
  // The symbol must be the kernel descriptor named in the loaded object's string table.
  if (!agent || agent->handle != GPU_AGENT || n < 4 || strcmp(name + n - 3, ".kd") != 0 ||
      !memmem(state.code_object, state.code_object_size, name, n + 1))
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  static const char ends[] = "_group_ends.kd";
  size_t e = sizeof ends - 1;
  symbol->handle = n > e && !strcmp(name + n - e, ends) ? 2 : 1;
  return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t symbol,
                                                   hsa_executable_symbol_info_t attribute,
                                                   void* value) {
  switch (attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
      *(uint64_t*)value = KERNEL_OBJECT + (symbol.handle == 2 ? 1 : 0);
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
      *(uint32_t*)value = state.kernarg_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
      *(uint32_t*)value = state.group_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
      *(uint32_t*)value = state.private_size;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

EXPORT hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  (void)executable;
  return HSA_STATUS_SUCCESS;
}

// ---------------------------------------------------------------------------------------
// The test's side.

EXPORT void test_configure(const char* chip, uint32_t kernarg_size, uint32_t group_size,
                           uint32_t private_size, int fail_dispatch) {
  snprintf(state.chip, sizeof state.chip, "%s", chip);
  state.kernarg_size = kernarg_size;
  state.group_size = group_size;
  state.private_size = private_size;
  state.fail_dispatch = fail_dispatch;
}

EXPORT int test_dispatches(void) { return state.dispatches; }
EXPORT hsa_queue_t* test_queue(void) { return &state.queue; }
EXPORT int test_pending_handlers(void) { return state.handler_count; }
EXPORT int test_bad_headers(void) { return state.bad_headers; }
EXPORT int test_initialised(void) { return state.initialised; }
EXPORT int test_live_allocations(void) { return state.live_allocations; }
// back = 0: the last packet (and its kernel arguments); 1: the one before it.
EXPORT const uint8_t* test_packet(int back) { return state.packets[back ? 1 : 0]; }
EXPORT const uint8_t* test_kernarg(int back) { return state.kernargs[back ? 1 : 0]; }
