// Kernel bundles: many compiled kernels of one target in one file, with what launching
// them needs, so a machine without a compiler can run them (docs/bundle.md is the format).
// Encoding and decoding are pure: no MLIR, no LLVM, nothing of the machine they run on.
#ifndef GG_RUNTIME_BUNDLE_H_
#define GG_RUNTIME_BUNDLE_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"
#include "runtime/code_object.h"
#include "runtime/text.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GG_BUNDLE_MAGIC "GGBUNDLE"
#define GG_BUNDLE_TRAILER "GGBEND\0\0"
// 2: sm_90a kernels of 256 columns take A in boxes of gg_sm90_a_box_rows rows (version 1's
// took tile_m rows in one box, which today's runtime does not encode for them).
// 3: sm_90a kernels take a third tensor map, A in boxes of GG_SM90_A_FEW_ROWS rows
// (version 2's took two, which today's runtime does not pass).
#define GG_BUNDLE_FORMAT_VERSION 3u
#define GG_BUNDLE_MAX_KERNELS 1000000u
#define GG_BUNDLE_MAX_STRING 65536u

// How a kernel is launched, derived from its descriptor and code (gg_bundle_launch_of) and
// recorded beside the code, so a target whose code carries no metadata of its own can be
// launched from the bundle alone.
typedef struct gg_bundle_launch {
  gg_grid_dim_rule grid[3];  // the grid, in workgroups, from the grouped extent m
  uint32_t block[3];         // work-items per workgroup (1,1,1 on the host)
  uint32_t shared_bytes;     // workgroup memory (AMD LDS)
  uint32_t private_bytes;    // scratch per work-item
  uint64_t workspace_bytes;  // device workspace the launch allocates (group ends)
  uint32_t companions;       // kernels launched first (1: <name>_group_ends)
  uint32_t arg_bytes;        // the kernel-argument block
  uint32_t arg_count;
  gg_kernel_arg_info args[GG_MAX_KERNEL_ARGS];
} gg_bundle_launch;

typedef struct gg_bundle_kernel {
  const char* key;    // gg_op_desc_format of the descriptor, defaults filled in
  const char* name;   // gg_op_desc_kernel_name
  const char* flags;  // the `gg run` flags it was listed with (what gg-launch --list runs)
  gg_op_desc desc;
  gg_bundle_launch launch;
  const uint8_t* code;  // the HSA code object, or the host shared object
  uint64_t code_size;
} gg_bundle_kernel;

typedef struct gg_bundle_header {
  uint32_t format_version;
  const char* gg_version;
  const char* llvm_version;
  gg_target target;
  const char* cpu;  // host bundles: gg_host_cpu_signature of the machine that built them
} gg_bundle_header;

typedef struct gg_bundle {
  uint8_t* data;  // the file's bytes; every string and code pointer points into it
  size_t size;
  gg_bundle_header header;
  gg_bundle_kernel* kernels;
  size_t count;
} gg_bundle;

// The launch metadata of a kernel compiled for desc (read from an AMD code object; from
// the descriptor alone on the host).
gg_status gg_bundle_launch_of(const gg_op_desc* desc, const void* code, size_t code_size,
                              gg_bundle_launch* out);

// Appends the bundle's bytes to out. Keys must be distinct and every kernel's target the
// header's; each kernel's key, name and launch are taken as given.
gg_status gg_bundle_encode(const gg_bundle_header* header, const gg_bundle_kernel* kernels,
                           size_t count, gg_text* out);

// Checks and indexes a bundle: the header, then each kernel record (its checksum, a
// descriptor that validates, a name and launch metadata that agree with its code, a key
// no other record has), then the checksum of the whole. Takes ownership of data (malloc'd)
// in every case; on failure nothing is returned and the message says what was wrong where.
gg_status gg_bundle_decode(uint8_t* data, size_t size, gg_bundle** out);

// Reads a bundle file: it must be a regular file (no FIFO, no device) of at most
// GG_BUNDLE_MAX_FILE_BYTES, owned by the effective user or root and not writable by group
// or others (its code runs in this process); the message names the path.
#define GG_BUNDLE_MAX_FILE_BYTES (UINT64_C(1) << 36)
gg_status gg_bundle_read_file(const char* path, gg_bundle** out);

void gg_bundle_free(gg_bundle* bundle);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_BUNDLE_H_
