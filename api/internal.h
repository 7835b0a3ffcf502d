// What the API's files share: the context, kernels, logging and the tensor checks.
#ifndef GG_API_INTERNAL_H_
#define GG_API_INTERNAL_H_

#include <pthread.h>
#include <stdint.h>

#include "gg/gg.h"
#include "runtime/bundle.h"
#include "runtime/cuda.h"
#include "runtime/host.h"
#include "runtime/hsa.h"
#include "runtime/table.h"
#include "runtime/tune.h"

#ifdef __cplusplus
extern "C" {
#endif

// The CUDA devices a context launches on (ordinals 0 ..).
#define GG_MAX_CUDA_DEVICES 16

typedef enum kernel_state { KERNEL_BUILDING = 0, KERNEL_READY, KERNEL_FAILED } kernel_state;

struct gg_kernel {
  char* key;  // the descriptor with its defaults (gg_op_desc_format): the table's key
  kernel_state state;
  gg_status error;  // when FAILED
  gg_op_desc desc;  // defaults filled in
  char name[256];
  gg_host_library* host;  // host kernels
  void* code_object;      // GPU kernels: the code object (AMD) or the cubin or PTX
  size_t code_object_size;  // (NVIDIA), loaded on a device on first launch there
  gg_hsa_kernel* hsa;
  gg_cuda_kernel* cuda[GG_MAX_CUDA_DEVICES];  // by CUDA device ordinal
};

// A bundle loaded into a context: its kernels are indexed by key in the context's table.
typedef struct gg_loaded_bundle {
  char* path;
  gg_bundle* bundle;
  struct gg_loaded_bundle* next;
} gg_loaded_bundle;

// Where gg_kernel_get found a kernel it did not hold.
typedef enum gg_kernel_source {
  GG_KERNEL_FROM_BUNDLE = 0,
  GG_KERNEL_FROM_DISK,
  GG_KERNEL_FROM_COMPILER,
} gg_kernel_source;

struct gg_context {
  char* cache_dir;  // NULL: memory only; read through gg_context_cache_dir
  gg_log_fn log;
  void* log_user;
  gg_log_level log_level;
  int gpu_index;

  pthread_mutex_t mutex;  // guards everything below
  pthread_cond_t built;   // a kernel left KERNEL_BUILDING
  gg_table kernels;       // key -> gg_kernel
  gg_table bundle_index;  // key -> const gg_bundle_kernel, in the loaded bundles
  gg_loaded_bundle* bundles;  // in load order (the first loaded last in the list)
  size_t bundle_kernel_count;
  gg_cache_stats stats;
  int cache_dir_checked;  // cache_dir was checked (and cleared if refused)
  int gpu_tried;
  gg_status gpu_error;  // why there is no GPU (sticky)
  gg_hsa_device* gpu;
  gg_cuda_device* cuda[GG_MAX_CUDA_DEVICES];  // opened on first use
  gg_status cuda_error[GG_MAX_CUDA_DEVICES];  // why one could not be opened (sticky)
  gg_tune_db tuning;  // the tuning tables loaded, merged (api/tuning.c)
  int autotune;       // GG_AUTOTUNE=1 or the context option (api/autotune.c)
  unsigned autotune_notes;  // what autotuning has logged once
  pthread_mutex_t tune_mutex;  // one sweep at a time (taken before mutex, never inside it)
};

void gg_log(gg_context* context, gg_log_level level, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

// The cache directory, created and checked (gg_disk_cache_prepare) on first use; NULL
// when the context has none or refused it (the reason is logged), so kernels stay in
// memory.
const char* gg_context_cache_dir(gg_context* context);

// The context's GPU, opened on first use.
gg_status gg_context_gpu(gg_context* context, gg_hsa_device** out);
// A CUDA device of the context, opened on first use.
gg_status gg_context_cuda(gg_context* context, int ordinal, gg_cuda_device** out);

// The tuned configuration for a launch of m rows of desc (a descriptor with no tile named)
// on the device (a DLDeviceType and id) from the context's tuning tables: 1 and *tile
// when an entry holds one that desc's rules accept in desc's own accumulation, else 0.
// Entries for the device's name (CUDA) come first, then those with no device name.
int gg_context_tuned_tile(gg_context* context, const gg_op_desc* desc, int64_t m,
                          int device_type, int device_id, gg_tile_config* tile);
// Merges db (read from the table `name`, for the log) into the context's tables: a later
// table's entry replaces an earlier one of the same key.
gg_status gg_context_merge_tuning(gg_context* context, const char* name, const gg_tune_db* db);
// Loads the tables shipped in tuning/ (compiled in: tuning/shipped.h).
gg_status gg_context_load_shipped_tuning_tables(gg_context* context);
// Loads the tables $GG_TUNING_TABLES names (paths separated by ':').
gg_status gg_context_load_env_tuning_tables(gg_context* context);

// A launch checked against the contract: the descriptor the tensors imply, the grouped
// extent and the data pointers.
typedef struct gg_checked_call {
  gg_op_desc desc;
  int64_t m;
  void* buffers[GG_OPERAND_COUNT];
  int zeroing;
  int device_type;  // DLDeviceType of the tensors: kDLCPU, kDLROCM or kDLCUDA
  int device_id;
  const gg_launch_options* launch;  // NULL: synchronous
  // desc's split-K or tile width is the entry points' decode choice, not the caller's
  int decode_by_rule;
  gg_tile_config unsplit;  // under decode_by_rule: the tile the entry points take without it
  int tile_from_rule;  // the caller named no tile and no table holds the launch's key
} gg_checked_call;

// Makes tile (a table's or a sweep's choice) the call's.
void gg_checked_call_take_tile(gg_checked_call* call, gg_tile_config tile);

// Autotuning (api/autotune.c): where the context tunes and the call's tile came from the
// rule, sweeps the candidates for its key (or finds them in the tuning database next to
// the kernel cache) and gives the call the fastest. Never on a capturing stream.
gg_status gg_context_autotune(gg_context* context, gg_checked_call* call);

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

// Frees the context's bundles and their index (gg_context_destroy).
void gg_context_bundles_free(gg_context* context);

// Loads an artifact (a host shared object or an AMD code object, which is copied) into a
// kernel that has its descriptor and name.
gg_status gg_kernel_install(gg_kernel* kernel, const void* data, size_t size);

// ---------------------------------------------------------------------------------------
// The compiler behind the kernel table. libgg links api/compiler_backend.c, which finds a
// missing kernel in the disk cache or compiles it; libgg_runtime links api/no_compiler.c,
// whose gg_api_build fails with GG_STATUS_NOT_FOUND naming the `gg bundle` line that would
// build the kernel.
gg_status gg_api_build(gg_context* context, gg_kernel* kernel, gg_kernel_source* source);

// Runs a checked call with a kernel for its descriptor.
gg_status gg_kernel_run(gg_context* context, gg_kernel* kernel, const gg_checked_call* call);

#ifdef __cplusplus
}
#endif

#endif  // GG_API_INTERNAL_H_
