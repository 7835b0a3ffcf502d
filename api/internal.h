// What the API's files share: the context, kernels, logging and the tensor checks.
#ifndef GG_API_INTERNAL_H_
#define GG_API_INTERNAL_H_

#include <pthread.h>
#include <stdint.h>

#include "gg/gg.h"
#include "runtime/host.h"
#include "runtime/hsa.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kernel_state { KERNEL_BUILDING = 0, KERNEL_READY, KERNEL_FAILED } kernel_state;

struct gg_kernel {
  char* key;  // the cache key (descriptor, target, compiler identity)
  kernel_state state;
  gg_status error;  // when FAILED
  gg_op_desc desc;  // defaults filled in
  char name[256];
  gg_host_library* host;  // host kernels
  void* code_object;      // AMD kernels: the code object, loaded on the GPU on first launch
  size_t code_object_size;
  gg_hsa_kernel* hsa;
  struct gg_kernel* next;
};

struct gg_context {
  char* cache_dir;  // NULL: memory only; read through gg_context_cache_dir
  gg_log_fn log;
  void* log_user;
  gg_log_level log_level;
  int gpu_index;

  pthread_mutex_t mutex;  // guards everything below
  pthread_cond_t built;   // a kernel left KERNEL_BUILDING
  gg_kernel* kernels;
  gg_cache_stats stats;
  int cache_dir_checked;  // cache_dir was checked (and cleared if refused)
  int gpu_tried;
  gg_status gpu_error;  // why there is no GPU (sticky)
  gg_hsa_device* gpu;
};

void gg_log(gg_context* context, gg_log_level level, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

// The cache directory, created and checked (gg_disk_cache_prepare) on first use; NULL
// when the context has none or refused it (the reason is logged), so kernels stay in
// memory.
const char* gg_context_cache_dir(gg_context* context);

// The context's GPU, opened on first use.
gg_status gg_context_gpu(gg_context* context, gg_hsa_device** out);

// A launch checked against the contract: the descriptor the tensors imply, the grouped
// extent and the data pointers.
typedef struct gg_checked_call {
  gg_op_desc desc;
  int64_t m;
  void* buffers[GG_OPERAND_COUNT];
  int zeroing;
  int on_gpu;
} gg_checked_call;

// DLPack helpers: element count, "float8_e4m3fn"-style names, row-major without gaps
// (extent-1 dimensions may have any stride).
// The element count saturates at INT64_MAX; gg_dl_check_size refuses a tensor (naming it
// by label) whose bytes pass GG_MAX_OPERAND_BYTES.
int64_t gg_dl_numel(const DLTensor* tensor);
gg_status gg_dl_check_size(const DLTensor* tensor, const char* label);
const char* gg_dl_dtype_name(DLDataType dtype, char* buffer, size_t size);
const char* gg_dl_device_name(DLDeviceType type);
int gg_dl_is_contiguous(const DLTensor* tensor);

// Checks call's tensors against the operator contract and derives the descriptor; the
// GPU target is asked of the context only for kDLROCM tensors.
gg_status gg_check_tensors(gg_context* context, const gg_grouped_gemm_call* call,
                           gg_checked_call* out);

void gg_kernel_free(gg_kernel* kernel);

// Runs a checked call with a kernel for its descriptor.
gg_status gg_kernel_run(gg_context* context, gg_kernel* kernel, const gg_checked_call* call);

#ifdef __cplusplus
}
#endif

#endif  // GG_API_INTERNAL_H_
