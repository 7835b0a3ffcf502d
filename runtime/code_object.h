// Reading AMD code objects without HSA: the ELF header, the NT_AMDGPU metadata note
// (MessagePack) and gg's own descriptor symbol. Pure C, bounds-checked: a malformed file
// is an error status, never a crash.
#ifndef GG_RUNTIME_CODE_OBJECT_H_
#define GG_RUNTIME_CODE_OBJECT_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GG_MAX_KERNEL_ARGS 64

typedef struct gg_kernel_arg_info {
  uint32_t offset;
  uint32_t size;
  char value_kind[32];  // global_buffer, by_value, hidden_...
} gg_kernel_arg_info;

typedef struct gg_kernel_info {
  char name[256];
  char symbol[272];  // <name>.kd
  uint32_t kernarg_size, kernarg_align;
  uint32_t group_segment_size, private_segment_size;
  uint32_t vgpr_count, agpr_count, sgpr_count, wavefront_size;
  uint32_t reqd_workgroup_size[3];
  uint32_t arg_count;
  gg_kernel_arg_info args[GG_MAX_KERNEL_ARGS];
} gg_kernel_info;

typedef struct gg_code_object_info {
  uint32_t machine;          // e_machine (224: EM_AMDGPU)
  uint32_t elf_type;         // e_type (3: ET_DYN)
  char target[96];           // amdhsa.target, e.g. amdgcn-amd-amdhsa--gfx950
  gg_kernel_info kernel;     // the kernel
  // Packed groups' code objects also hold <kernel>_group_ends, launched first.
  int has_group_ends;
  gg_kernel_info group_ends;
  char descriptor[512];      // the <kernel>_gg_descriptor string ("" if absent)
} gg_code_object_info;

gg_status gg_code_object_read(const void* elf, size_t size, gg_code_object_info* info);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_CODE_OBJECT_H_
