// Kernel argument images and AQL packets.
#include "runtime/dispatch.h"

#include <string.h>

#include <hsa/hsa.h>

_Static_assert(sizeof(gg_aql_packet) == 64, "an AQL packet is 64 bytes");
_Static_assert(sizeof(gg_aql_packet) == sizeof(hsa_kernel_dispatch_packet_t),
               "gg_aql_packet mirrors hsa_kernel_dispatch_packet_t");

static gg_status put(const gg_kernel_info* k, uint32_t index, uint64_t value, int is_pointer,
                     uint8_t* out, size_t out_size) {
  if (index >= k->arg_count)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "kernel %s takes %u arguments; the operands need more", k->name,
                          k->arg_count);
  const gg_kernel_arg_info* a = &k->args[index];
  if ((is_pointer && a->size != 8) || (!is_pointer && a->size != 4 && a->size != 8))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "kernel %s: argument %u is %u bytes, not a %s", k->name, index, a->size,
                          is_pointer ? "pointer" : "memref index");
  if (a->size == 4 && value > 0x7FFFFFFFull)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "kernel %s: argument %u (%llu) does not fit the device's 32-bit index",
                          k->name, index, (unsigned long long)value);
  if ((uint64_t)a->offset + a->size > out_size || (uint64_t)a->offset + a->size > k->kernarg_size)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "kernel %s: argument %u outside the kernarg segment",
                          k->name, index);
  for (uint32_t b = 0; b < a->size; ++b) out[a->offset + b] = (uint8_t)(value >> (8 * b));
  return GG_OK;
}

// The hidden arguments of code object v5 that describe the launch; every other hidden
// argument (printf buffer, heap, queue pointers) is left zero, and gg kernels use none.
static void put_hidden(const gg_kernel_arg_info* a, const int64_t grid[3], uint8_t* out) {
  static const char* const block_count[3] = {"hidden_block_count_x", "hidden_block_count_y",
                                             "hidden_block_count_z"};
  static const char* const group_size[3] = {"hidden_group_size_x", "hidden_group_size_y",
                                            "hidden_group_size_z"};
  static const uint64_t workgroup[3] = {GG_WORKGROUP_SIZE, 1, 1};
  for (int d = 0; d < 3; ++d) {
    uint64_t value;
    if (!strcmp(a->value_kind, block_count[d])) value = (uint64_t)grid[d];
    else if (!strcmp(a->value_kind, group_size[d])) value = workgroup[d];
    else continue;
    for (uint32_t b = 0; b < a->size && b < 8; ++b) out[a->offset + b] = (uint8_t)(value >> (8 * b));
  }
}

size_t gg_workspace_bytes(const gg_op_desc* desc) {
  // sm_90a kernels compute the ends into shared memory themselves.
  if (desc->target == GG_TARGET_SM90A) return 0;
  return gg_layout_has_group_ends(desc->layout) ? (size_t)desc->g * sizeof(int64_t) : 0;
}

gg_status gg_kernarg_build(const gg_kernel_info* k, const gg_op_desc* desc,
                           void* const buffers[GG_OPERAND_COUNT], int64_t m, void* workspace,
                           const int64_t grid[3], uint8_t* out, size_t out_size) {
  if (out_size < k->kernarg_size)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "kernarg buffer of %zu bytes, kernel needs %u",
                          out_size, k->kernarg_size);
  memset(out, 0, k->kernarg_size);
  uint64_t values[GG_MAX_OPERAND_ARGS + 5];
  uint8_t is_pointer[GG_MAX_OPERAND_ARGS + 5];
  size_t count = gg_operand_arg_values(desc, buffers, m, values, is_pointer, GG_MAX_OPERAND_ARGS);
  if (gg_layout_has_group_ends(desc->layout)) {
    if (!workspace && desc->g > 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "kernel %s: the %s layout needs a workspace for its group ends",
                            k->name, gg_layout_name(desc->layout));
    // The workspace: a 1-D memref of G int64.
    uint64_t address = (uint64_t)(uintptr_t)workspace;
    const uint64_t ends[5] = {address, address, 0, (uint64_t)desc->g, 1};
    for (int f = 0; f < 5; ++f) {
      values[count] = ends[f];
      is_pointer[count++] = f < 2;
    }
  }
  uint32_t index = 0;
  for (size_t i = 0; i < count; ++i)
    GG_RETURN_IF_ERROR(put(k, index++, values[i], is_pointer[i], out, out_size));
  // Anything past our arguments must be a hidden argument.
  for (; index < k->arg_count; ++index) {
    const gg_kernel_arg_info* a = &k->args[index];
    if (strncmp(a->value_kind, "hidden_", 7) != 0)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "kernel %s takes argument %u (%s) that gg does not provide", k->name,
                            index, a->value_kind);
    if ((uint64_t)a->offset + a->size > k->kernarg_size)
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "kernel %s: argument %u outside the kernarg segment", k->name, index);
    put_hidden(a, grid, out);
  }
  return GG_OK;
}

uint16_t gg_aql_header(void) {
  return (uint16_t)((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                    (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

uint16_t gg_aql_setup(void) { return 3 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS; }

gg_status gg_aql_build(gg_aql_packet* p, const int64_t grid[3], const gg_kernel_info* k,
                       uint64_t kernel_object, uint64_t kernarg_address,
                       uint64_t completion_signal) {
  memset(p, 0, sizeof *p);
  // The packet counts work-items in 32 bits.
  if (grid[0] < 0 || grid[1] < 0 || grid[2] < 0 || grid[0] > UINT32_MAX / GG_WORKGROUP_SIZE ||
      grid[1] > UINT32_MAX || grid[2] > UINT32_MAX)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "grid %lld x %lld x %lld workgroups exceeds what one dispatch holds",
                          (long long)grid[0], (long long)grid[1], (long long)grid[2]);
  p->workgroup_size[0] = GG_WORKGROUP_SIZE;
  p->workgroup_size[1] = 1;
  p->workgroup_size[2] = 1;
  p->grid_size[0] = (uint32_t)(grid[0] * GG_WORKGROUP_SIZE);  // work-items, not workgroups
  p->grid_size[1] = (uint32_t)grid[1];
  p->grid_size[2] = (uint32_t)grid[2];
  p->private_segment_size = k->private_segment_size;
  p->group_segment_size = k->group_segment_size;
  p->kernel_object = kernel_object;
  p->kernarg_address = kernarg_address;
  p->completion_signal = completion_signal;
  return GG_OK;
}
