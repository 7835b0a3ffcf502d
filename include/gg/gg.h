// gg's public C API: FP8 grouped GEMMs compiled on demand, cached, and launched on DLPack
// tensors, on the host CPU or on an AMD GPU through HSA.
//
// Two libraries implement it. libgg (pkg-config gg) holds the compiler: a kernel no bundle
// holds is compiled on first use. libgg_runtime (pkg-config gg-runtime) links no LLVM or
// MLIR: kernels come from bundles built ahead of time (`gg bundle`, gg_bundle_write), a
// miss is GG_STATUS_NOT_FOUND, and gg_emit and gg_bundle_write return
// GG_STATUS_UNIMPLEMENTED.
//
//   gg_context* ctx;
//   gg_context_create(NULL, &ctx);                        // defaults: disk cache, GPU 0
//   gg_status s = gg_f8f8bf16_rowwise_grouped_stacked(ctx, &xq, &wq, &x_scale, &w_scale,
//                                                     &m_sizes, &out);
//   if (s) { fprintf(stderr, "%s\n", gg_status_message(s)); gg_status_free(s); }
//   gg_context_destroy(ctx);
//
// Tensors on kDLCPU run on the host; tensors on kDLROCM run on the context's AMD GPU;
// tensors on kDLCUDA run on that CUDA device (sm_90a: Hopper). Group metadata is never
// read on the host. Every entry point checks the operator contract
// first: when it returns an error, nothing was launched and no output byte was written.
// Contexts are thread-safe.
#ifndef GG_GG_H_
#define GG_GG_H_

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "gg/op.h"
#include "gg/status.h"
#include "gg/version.h"

#ifdef __cplusplus
extern "C" {
#endif

// DLPack 1.x type codes for the FP8 flavours (Debian's DLPack 0.6 header predates them).
#define GG_DL_FLOAT8_E4M3FN 10
#define GG_DL_FLOAT8_E4M3FNUZ 11

// ---------------------------------------------------------------------------------------
// Contexts.

typedef enum gg_log_level {
  GG_LOG_ERROR = 0,  // failures the caller also gets as statuses
  GG_LOG_INFO,       // compiles, cache files rejected and rebuilt
  GG_LOG_DEBUG,      // cache hits, launches
} gg_log_level;

typedef void (*gg_log_fn)(void* user, gg_log_level level, const char* message);

typedef struct gg_context_options {
  // Where compiled kernels persist. NULL: $GG_CACHE_DIR, else $XDG_CACHE_HOME/gg, else
  // $HOME/.cache/gg. "": memory only. Created 0700 if missing; a directory not owned by
  // the user or writable by group or others is not used (logged; memory only).
  const char* cache_dir;
  gg_log_fn log;  // NULL: no logging
  void* log_user;
  gg_log_level log_level;
  int gpu;  // the HSA GPU agent kDLROCM tensors live on (0: the first); -1: none
  // (kDLCUDA tensors run on the CUDA device of their device_id.)
  // Bundles loaded at creation (as gg_context_load_bundle): creation fails if one does not
  // load.
  const char* const* bundles;
  size_t bundle_count;
  // 1 (the default): the tuning tables shipped with gg (tuning/, compiled in) are loaded
  // first, as gg_context_load_tuning_table would; 0: only the caller's.
  int shipped_tuning_tables;
  // 1: autotuning (docs/tuning.md), as GG_AUTOTUNE=1 turns it on: a launch whose caller
  // names no tile and whose key no table holds is tuned once, on its own tensors, device
  // and stream, and the fastest candidate kept in the context and in `tuning.db` in the
  // cache directory. Never while the stream is capturing a graph. 0 (the default): nothing
  // is ever benchmarked.
  int autotune;
} gg_context_options;

void gg_context_options_init(gg_context_options* options);

typedef struct gg_context gg_context;

// options may be NULL for the defaults.
gg_status gg_context_create(const gg_context_options* options, gg_context** out);
// Waits for nothing: call it once no other thread uses the context.
void gg_context_destroy(gg_context* context);

// The target of the context's GPU (opened on first use); GG_STATUS_UNAVAILABLE, saying
// why, when there is none.
gg_status gg_context_gpu_target(gg_context* context, gg_target* out);

// Memory the host and the context's GPU can both use, for kDLROCM tensors.
gg_status gg_context_gpu_alloc(gg_context* context, size_t size, void** out);
void gg_context_gpu_free(gg_context* context, void* pointer);

typedef struct gg_cache_stats {
  uint64_t memory_hits;     // kernels found loaded in this context
  uint64_t disk_hits;       // kernels loaded from the cache directory
  uint64_t compiles;        // kernels compiled
  uint64_t files_rejected;  // corrupt, truncated or untrusted cache files, deleted and rebuilt
  uint64_t bundle_hits;     // kernels loaded from a bundle
} gg_cache_stats;

void gg_context_cache_stats(gg_context* context, gg_cache_stats* out);

// ---------------------------------------------------------------------------------------
// Bundles: kernels compiled ahead of time for one target, in one file (docs/bundle.md).

// Loads a bundle into the context: gg_kernel_get then finds its kernels (in O(1)) before
// looking in the memory and disk caches or compiling. The whole file is checked first
// (format version, target, checksums, every kernel's descriptor and metadata against its
// code, no key twice, none already loaded from another bundle; host bundles only on a CPU
// with the features of the one that built them); on failure the message says what and
// nothing of the bundle is loaded. Thread-safe.
gg_status gg_context_load_bundle(gg_context* context, const char* path);

// Tuning tables (docs/tuning.md, written by `gg tune`): for a launch whose caller names no
// tile, the entry of the launch's key (target, layout, scaling, B layout, accumulation,
// rows per group rounded up to a power of two, N, K; the CUDA device's name first, then
// entries with none) gives the tile and split-K, when the descriptor's rules accept it
// and its accumulation is the caller's; otherwise the built-in rule
// (gg_tile_config_for_launch). A later table's entry replaces an earlier one of the same
// key. Contexts load the tables shipped with gg (unless their options say not to) and
// then those $GG_TUNING_TABLES names (paths separated by ':') when they are created.
// Nothing is benchmarked unless the context autotunes (gg_context_options.autotune).
gg_status gg_context_load_tuning_table(gg_context* context, const char* path);

typedef struct gg_bundle_kernel_info {
  gg_op_desc desc;      // defaults filled in
  const char* name;     // the kernel's name
  const char* flags;    // the `gg run` flags it was bundled from
  const char* bundle;   // the path it was loaded from
} gg_bundle_kernel_info;

// The kernels of the context's bundles, in load order; the strings live as long as the
// context.
size_t gg_context_bundle_kernel_count(gg_context* context);
gg_status gg_context_bundle_kernel(gg_context* context, size_t index, gg_bundle_kernel_info* out);

// Compiles count descriptors of one target into a bundle at path, written atomically (all
// or nothing), in parallel on `threads` threads (0: one per core), each with its own MLIR
// context. flags[i] (may be NULL, or NULL entries) records the `gg run` flags of
// descs[i]; descriptors equal after their defaults are bundled once. libgg only.
gg_status gg_bundle_write(const char* path, const gg_op_desc* descs, const char* const* flags,
                          size_t count, int threads);

// ---------------------------------------------------------------------------------------
// Kernels: a descriptor compiled for its target, owned by the context.

typedef struct gg_kernel gg_kernel;

// Finds desc in the context, then in its bundles, then in the disk cache, else compiles it
// (libgg; libgg_runtime returns GG_STATUS_NOT_FOUND with the `gg bundle` line that would
// build it). Threads asking for the same descriptor at once share one build. AMD kernels
// compile without a GPU present.
gg_status gg_kernel_get(gg_context* context, const gg_op_desc* desc, gg_kernel** out);
// gg_kernel_get for count descriptors at once, on `threads` threads (0: one per core; each
// compile has its own MLIR context): kernels[i] and statuses[i] (owned by the caller) are
// what gg_kernel_get gives for descs[i]. Fails only on NULL arguments.
gg_status gg_kernels_get(gg_context* context, const gg_op_desc* descs, size_t count, int threads,
                         gg_kernel** kernels, gg_status* statuses);

const gg_op_desc* gg_kernel_desc(const gg_kernel* kernel);  // defaults filled in
const char* gg_kernel_name(const gg_kernel* kernel);
// The HSA code object of an AMD kernel (NULL and 0 for the host).
void gg_kernel_code_object(const gg_kernel* kernel, const void** data, size_t* size);

// Launches on tensors in gg_operand order (A, B, a_scale, b_scale, metadata, out; the
// metadata is NULL for batched) after checking them against the kernel's descriptor;
// zeroing is the dynamic op's zeroing_output_tensor. Returns once the output is written.
gg_status gg_kernel_launch(gg_context* context, gg_kernel* kernel,
                           const DLTensor* const operands[GG_OPERAND_COUNT], int zeroing);

// Where an asynchronous GPU launch goes. The launch is enqueued and the call returns
// without waiting: it never synchronises the host, never reads group metadata on the host,
// and allocates nothing the caller must free; on NVIDIA it can be captured into a CUDA
// graph. Host launches run to completion whatever the options.
typedef struct gg_launch_options {
  // NVIDIA (kDLCUDA): the CUstream (NULL: the legacy default stream).
  // AMD (kDLROCM): the hsa_queue_t* the caller owns (NULL: the context's own queue).
  void* stream;
  // AMD: the handle of an hsa_signal_t the launch decrements by one when its kernels are
  // done (0: none). NVIDIA: unused (record a CUevent on the stream instead).
  uint64_t completion_signal;
} gg_launch_options;

// gg_kernel_launch, asynchronous on options' queue (options NULL: as gg_kernel_launch).
gg_status gg_kernel_launch_async(gg_context* context, gg_kernel* kernel,
                                 const DLTensor* const operands[GG_OPERAND_COUNT], int zeroing,
                                 const gg_launch_options* options);

// ---------------------------------------------------------------------------------------
// Artifacts, compiled fresh (never cached).

typedef enum gg_artifact {
  GG_ARTIFACT_MLIR_OP = 0,    // the gg.grouped_matmul module
  GG_ARTIFACT_MLIR_TILES,     // after the tile-level gg passes
  GG_ARTIFACT_MLIR_TARGET,    // after gg-to-host or gg-to-amdgpu
  GG_ARTIFACT_MLIR_LLVM,      // in the LLVM (and ROCDL) dialects
  GG_ARTIFACT_LLVM_IR,        // LLVM IR text
  GG_ARTIFACT_ISA,            // the target's assembly: AMD ISA, or PTX for sm_90a
  GG_ARTIFACT_HSACO,          // the binary: the HSA code object, or a cubin for sm_90a (ELF)
  GG_ARTIFACT_HOST_LIBRARY,   // the host kernel as a shared object (ELF)
  GG_ARTIFACT_COUNT
} gg_artifact;

typedef struct gg_bytes {
  char* data;  // NUL-terminated for the text artifacts
  size_t size;
} gg_bytes;

void gg_bytes_free(gg_bytes* bytes);

gg_status gg_emit(const gg_op_desc* desc, gg_artifact artifact, gg_bytes* out);
// The MLIR module right after the pass (or named pipeline) `pass` of the target's pipeline.
gg_status gg_emit_after_pass(const gg_op_desc* desc, const char* pass, gg_bytes* out);

// ---------------------------------------------------------------------------------------
// Entry points named after the upstream operators. The descriptor comes from the tensors:
// N, K and G from their shapes, the FP8 flavour from XQ's dtype, the target from their
// device. `out` is written in place; it must be contiguous.

// XQ [total_M, K], WQ [G, N, K], x_scale numel total_M, w_scale numel G*N,
// M_sizes [G] int64, out [total_M, N] bf16.
gg_status gg_f8f8bf16_rowwise_grouped_stacked(gg_context* context, const DLTensor* XQ,
                                              const DLTensor* WQ, const DLTensor* x_scale,
                                              const DLTensor* w_scale, const DLTensor* M_sizes,
                                              DLTensor* out);

// XQ [G, M, K], WQ [G, N, K], x_scale numel G*M, w_scale numel G*N,
// zero_start_index_M [G] int64, out [G, M, N] bf16.
gg_status gg_f8f8bf16_rowwise_grouped_dynamic(gg_context* context, const DLTensor* XQ,
                                              const DLTensor* WQ, const DLTensor* x_scale,
                                              const DLTensor* w_scale,
                                              const DLTensor* zero_start_index_M,
                                              int zeroing_output_tensor, DLTensor* out);

// The rank combination of (XQ, WQ) selects the case; offsets is int32 [G], NULL for 3D-3D.
//   2D-3D: XQ [total_M, K], WQ [G, N, K], out [total_M, N]
//   3D-3D: XQ [G, M, K],    WQ [G, N, K], out [G, M, N]
//   3D-2D: XQ [G, M, K],    WQ [total_N, K], out [M, total_N]
//   2D-2D: XQ [M, total_K], WQ [N, total_K], out [G, M, N]
gg_status gg_f8f8bf16_rowwise_grouped_mm(gg_context* context, const DLTensor* XQ,
                                         const DLTensor* WQ, const DLTensor* x_scale,
                                         const DLTensor* w_scale, const DLTensor* offsets,
                                         DLTensor* out);

// The layout the mm ops take for these tensors (by the ranks of XQ and WQ, as above), or
// the error they give: ranks that are none of the four, or offsets NULL where one is 2D.
// For bindings that launch the mm case through gg_grouped_gemm (on a stream, say).
gg_status gg_mm_layout(const DLTensor* XQ, const DLTensor* WQ, const DLTensor* offsets,
                       gg_layout* out);

// Blockwise scales: x_scale numel total_M*K/128 (per-group M-major), w_scale
// [G, K/128, N/128]; N and K multiples of 128. Otherwise as the stacked op.
gg_status gg_f8f8bf16_groupwise_grouped(gg_context* context, const DLTensor* XQ,
                                        const DLTensor* WQ, const DLTensor* x_scale,
                                        const DLTensor* w_scale, const DLTensor* M_sizes,
                                        DLTensor* out);

// ---------------------------------------------------------------------------------------
// Preshuffled B: weights shuffled once at load time into the order the matrix cores read
// (16x64 fragments in 1 KiB blocks), then streamed straight into registers. Only layouts
// where a group owns a whole [N, K] take it (stacked, dynamic, 2D-3D and 3D-3D mm,
// groupwise); N and K must be multiples of the tile (128 by default).

// src and dst: contiguous kDLCPU FP8 tensors of one shape, [N, K] or [G, N, K], N a
// multiple of 16 and K of 64. dst must not overlap src.
gg_status gg_preshuffle_b(const DLTensor* src, DLTensor* dst);
// The inverse of gg_preshuffle_b.
gg_status gg_unshuffle_b(const DLTensor* src, DLTensor* dst);

gg_status gg_f8f8bf16_rowwise_grouped_stacked_preshuffle(gg_context* context, const DLTensor* XQ,
                                                         const DLTensor* WQ,
                                                         const DLTensor* x_scale,
                                                         const DLTensor* w_scale,
                                                         const DLTensor* M_sizes, DLTensor* out);
gg_status gg_f8f8bf16_rowwise_grouped_dynamic_preshuffle(
    gg_context* context, const DLTensor* XQ, const DLTensor* WQ, const DLTensor* x_scale,
    const DLTensor* w_scale, const DLTensor* zero_start_index_M, int zeroing_output_tensor,
    DLTensor* out);
// 2D-3D and 3D-3D only: 3D-2D and 2D-2D group along N or K, which the shuffle interleaves.
gg_status gg_f8f8bf16_rowwise_grouped_mm_preshuffle(gg_context* context, const DLTensor* XQ,
                                                    const DLTensor* WQ, const DLTensor* x_scale,
                                                    const DLTensor* w_scale,
                                                    const DLTensor* offsets, DLTensor* out);
gg_status gg_f8f8bf16_groupwise_grouped_preshuffle(gg_context* context, const DLTensor* XQ,
                                                   const DLTensor* WQ, const DLTensor* x_scale,
                                                   const DLTensor* w_scale,
                                                   const DLTensor* M_sizes, DLTensor* out);

// The general form behind the entry points: the layout, scaling and tile configuration
// are chosen here; N, K, G, the FP8 flavour and the target still come from the tensors.
typedef struct gg_grouped_gemm_call {
  gg_layout layout;
  gg_scaling scaling;
  gg_b_layout b_layout;
  gg_tile_config tile;  // zero: the compiler's choice
  const DLTensor* operands[GG_OPERAND_COUNT];  // gg_operand order; metadata NULL for batched
  int zeroing;
  gg_accum accum;                      // sm_90a: promoted (default) or fast
  const gg_launch_options* launch;     // NULL: return once the output is written
} gg_grouped_gemm_call;

gg_status gg_grouped_gemm(gg_context* context, const gg_grouped_gemm_call* call);

#ifdef __cplusplus
}
#endif

#endif  // GG_GG_H_
