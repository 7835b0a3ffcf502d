// What an HSA launch of a gg kernel puts in memory, as pure functions: the kernel argument
// image (the operands' memref descriptors laid out as the code object's metadata says)
// and the AQL dispatch packet. No HSA call is made here, so all of it is testable
// without a GPU.
#ifndef GG_RUNTIME_DISPATCH_H_
#define GG_RUNTIME_DISPATCH_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"
#include "runtime/code_object.h"

#ifdef __cplusplus
extern "C" {
#endif

// Threads per workgroup of every gg AMD kernel (four waves of 64).
#define GG_WORKGROUP_SIZE 256

// Writes the kernel arguments for the operands (device addresses in buffers, shapes from
// gg_operand_shape_of(desc, ., m)) into out[0, kernel->kernarg_size), zero elsewhere.
// Each memref of rank r is, in order: allocated and aligned pointers, offset, r sizes and
// r strides, matched against the metadata's argument list. For packed groups
// (gg_layout_has_group_ends) the workspace of G int64 group ends follows as a 1-D memref;
// both the kernel and its _group_ends kernel take this image. Hidden arguments describing
// the launch (block counts, group sizes of `grid` workgroups) are filled; others stay 0.
gg_status gg_kernarg_build(const gg_kernel_info* kernel, const gg_op_desc* desc,
                           void* const buffers[GG_OPERAND_COUNT], int64_t m, void* workspace,
                           const int64_t grid[3], uint8_t* out, size_t out_size);

// The workspace a launch of desc needs on the device (G int64 group ends; 0 for layouts
// without packed groups, and for sm_90a, whose kernels keep the ends in shared memory).
size_t gg_workspace_bytes(const gg_op_desc* desc);

// The 64-byte AQL kernel dispatch packet, every field but the first 32 bits (header and
// setup), which the launcher publishes last with one release store.
typedef struct gg_aql_packet {
  uint16_t header;
  uint16_t setup;
  uint16_t workgroup_size[3];
  uint16_t reserved0;
  uint32_t grid_size[3];  // in work-items
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  uint64_t kernarg_address;
  uint64_t reserved2;
  uint64_t completion_signal;
} gg_aql_packet;

// grid: workgroups in x, y, z (gg_grid_rules); workgroups are 256 x 1 x 1. Fails when the
// grid does not fit the packet's 32-bit work-item counts.
gg_status gg_aql_build(gg_aql_packet* packet, const int64_t grid[3],
                       const gg_kernel_info* kernel, uint64_t kernel_object,
                       uint64_t kernarg_address, uint64_t completion_signal);

// KERNEL_DISPATCH, barrier bit, system-scope acquire and release fences.
uint16_t gg_aql_header(void);
// Three grid dimensions.
uint16_t gg_aql_setup(void);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_DISPATCH_H_
