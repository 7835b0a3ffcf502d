// ELF64 and MessagePack reading for AMD code objects.
#include "runtime/code_object.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------
// Little-endian reads with bounds.

typedef struct bytes {
  const uint8_t* data;
  size_t size;
} bytes;

static int in_range(bytes b, uint64_t offset, uint64_t length) {
  return offset <= b.size && length <= b.size - offset;
}

static uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// ---------------------------------------------------------------------------------------
// MessagePack (the subset LLVM writes: maps, arrays, strings, integers, booleans).

typedef struct mp {
  const uint8_t* p;
  const uint8_t* end;
  int error;
} mp;

static int mp_need(mp* m, size_t n) {
  if (m->error || (size_t)(m->end - m->p) < n) {
    m->error = 1;
    return 0;
  }
  return 1;
}

static uint64_t mp_take(mp* m, int n) {
  if (!mp_need(m, (size_t)n)) return 0;
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | m->p[i];  // big-endian
  m->p += n;
  return v;
}

// Reads a map or array header; returns its entry count (-1 when it is not one).
static int64_t mp_container(mp* m, int want_map) {
  if (!mp_need(m, 1)) return -1;
  uint8_t t = *m->p++;
  if (want_map) {
    if ((t & 0xF0) == 0x80) return t & 0x0F;
    if (t == 0xDE) return (int64_t)mp_take(m, 2);
    if (t == 0xDF) return (int64_t)mp_take(m, 4);
  } else {
    if ((t & 0xF0) == 0x90) return t & 0x0F;
    if (t == 0xDC) return (int64_t)mp_take(m, 2);
    if (t == 0xDD) return (int64_t)mp_take(m, 4);
  }
  m->error = 1;
  return -1;
}

// Reads a string into buffer (truncated to fit); 0 when the value is not a string.
static int mp_string(mp* m, char* buffer, size_t size) {
  if (!mp_need(m, 1)) return 0;
  uint8_t t = *m->p++;
  uint64_t n;
  if ((t & 0xE0) == 0xA0) n = t & 0x1F;
  else if (t == 0xD9) n = mp_take(m, 1);
  else if (t == 0xDA) n = mp_take(m, 2);
  else if (t == 0xDB) n = mp_take(m, 4);
  else {
    m->error = 1;
    return 0;
  }
  if (!mp_need(m, n)) return 0;
  size_t copy = n < size - 1 ? (size_t)n : size - 1;
  memcpy(buffer, m->p, copy);
  buffer[copy] = 0;
  m->p += n;
  return 1;
}

static uint64_t mp_uint(mp* m) {
  if (!mp_need(m, 1)) return 0;
  uint8_t t = *m->p++;
  if (t <= 0x7F) return t;
  if (t == 0xCC) return mp_take(m, 1);
  if (t == 0xCD) return mp_take(m, 2);
  if (t == 0xCE) return mp_take(m, 4);
  if (t == 0xCF) return mp_take(m, 8);
  if (t == 0xD0) return (uint64_t)(int8_t)mp_take(m, 1);
  if (t == 0xD1) return (uint64_t)(int16_t)mp_take(m, 2);
  if (t == 0xD2) return (uint64_t)(int32_t)mp_take(m, 4);
  if (t == 0xD3) return mp_take(m, 8);
  m->error = 1;
  return 0;
}

static void mp_skip(mp* m, int depth) {
  if (depth > 32 || !mp_need(m, 1)) {
    m->error = 1;
    return;
  }
  uint8_t t = *m->p;
  if (t <= 0x7F || t >= 0xE0 || t == 0xC0 || t == 0xC2 || t == 0xC3) {
    m->p++;
  } else if ((t & 0xE0) == 0xA0 || t == 0xD9 || t == 0xDA || t == 0xDB) {
    char sink[2];
    mp_string(m, sink, sizeof sink);
  } else if ((t >= 0xCC && t <= 0xD3)) {
    mp_uint(m);
  } else if (t == 0xCA || t == 0xCB) {
    m->p++;
    mp_take(m, t == 0xCA ? 4 : 8);
  } else if ((t & 0xF0) == 0x80 || t == 0xDE || t == 0xDF) {
    int64_t n = mp_container(m, 1);
    for (int64_t i = 0; i < n && !m->error; ++i) {
      mp_skip(m, depth + 1);
      mp_skip(m, depth + 1);
    }
  } else if ((t & 0xF0) == 0x90 || t == 0xDC || t == 0xDD) {
    int64_t n = mp_container(m, 0);
    for (int64_t i = 0; i < n && !m->error; ++i) mp_skip(m, depth + 1);
  } else {
    m->error = 1;
  }
}

static void read_arg(mp* m, gg_kernel_arg_info* arg) {
  int64_t n = mp_container(m, 1);
  for (int64_t i = 0; i < n && !m->error; ++i) {
    char key[64];
    if (!mp_string(m, key, sizeof key)) return;
    if (!strcmp(key, ".offset")) arg->offset = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".size")) arg->size = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".value_kind")) mp_string(m, arg->value_kind, sizeof arg->value_kind);
    else mp_skip(m, 0);
  }
}

static void read_kernel(mp* m, gg_kernel_info* k) {
  int64_t n = mp_container(m, 1);
  for (int64_t i = 0; i < n && !m->error; ++i) {
    char key[64];
    if (!mp_string(m, key, sizeof key)) return;
    if (!strcmp(key, ".name")) mp_string(m, k->name, sizeof k->name);
    else if (!strcmp(key, ".symbol")) mp_string(m, k->symbol, sizeof k->symbol);
    else if (!strcmp(key, ".kernarg_segment_size")) k->kernarg_size = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".kernarg_segment_align")) k->kernarg_align = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".group_segment_fixed_size")) k->group_segment_size = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".private_segment_fixed_size")) k->private_segment_size = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".vgpr_count")) k->vgpr_count = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".agpr_count")) k->agpr_count = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".sgpr_count")) k->sgpr_count = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".wavefront_size")) k->wavefront_size = (uint32_t)mp_uint(m);
    else if (!strcmp(key, ".reqd_workgroup_size")) {
      int64_t d = mp_container(m, 0);
      for (int64_t j = 0; j < d && !m->error; ++j) {
        uint64_t v = mp_uint(m);
        if (j < 3) k->reqd_workgroup_size[j] = (uint32_t)v;
      }
    } else if (!strcmp(key, ".args")) {
      int64_t count = mp_container(m, 0);
      for (int64_t j = 0; j < count && !m->error; ++j) {
        if (j < GG_MAX_KERNEL_ARGS) read_arg(m, &k->args[j]);
        else mp_skip(m, 0);
      }
      k->arg_count = (uint32_t)(count < GG_MAX_KERNEL_ARGS ? count : GG_MAX_KERNEL_ARGS);
    } else {
      mp_skip(m, 0);
    }
  }
}

// True when `ends` is named <kernel's name>_group_ends.
static int group_ends_of(const gg_kernel_info* ends, const gg_kernel_info* kernel) {
  size_t n = strlen(kernel->name);
  return n > 0 && !strncmp(ends->name, kernel->name, n) && !strcmp(ends->name + n, "_group_ends");
}

static gg_status read_metadata(const uint8_t* p, size_t n, gg_code_object_info* info) {
  mp m = {p, p + n, 0};
  int64_t entries = mp_container(&m, 1);
  int64_t kernels = 0;
  gg_kernel_info* read = calloc(2, sizeof *read);
  if (!read) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < entries && !m.error; ++i) {
    char key[64];
    if (!mp_string(&m, key, sizeof key)) break;
    if (!strcmp(key, "amdhsa.target")) {
      mp_string(&m, info->target, sizeof info->target);
    } else if (!strcmp(key, "amdhsa.kernels")) {
      int64_t count = mp_container(&m, 0);
      for (int64_t j = 0; j < count && !m.error; ++j) {
        if (j < 2) read_kernel(&m, &read[j]);
        else mp_skip(&m, 0);
      }
      kernels = count;
    } else {
      mp_skip(&m, 0);
    }
  }
  gg_status status = GG_OK;
  if (m.error) {
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "code object: malformed AMDGPU metadata");
  } else if (kernels == 1) {
    info->kernel = read[0];
  } else if (kernels == 2) {
    // A kernel and its group ends kernel, in either order.
    int ends = group_ends_of(&read[1], &read[0]) ? 1 : group_ends_of(&read[0], &read[1]) ? 0 : -1;
    if (ends < 0) {
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                              "code object: kernels %s and %s are not a kernel and its "
                              "_group_ends kernel",
                              read[0].name, read[1].name);
    } else {
      info->kernel = read[1 - ends];
      info->group_ends = read[ends];
      info->has_group_ends = 1;
    }
  } else {
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "code object: %lld kernels, expected one (and its _group_ends kernel)",
                            (long long)kernels);
  }
  free(read);
  return status;
}

// ---------------------------------------------------------------------------------------
// ELF.

enum { PT_NOTE = 4, SHT_SYMTAB = 2, SHT_DYNSYM = 11, NT_AMDGPU_METADATA = 32 };

// Finds the string that symbol `name` points at (in an allocated section).
static void read_symbol_string(bytes elf, const char* name, char* out, size_t out_size) {
  out[0] = 0;
  uint64_t shoff = le(elf.data + 40, 8);
  uint32_t shentsize = (uint32_t)le(elf.data + 58, 2), shnum = (uint32_t)le(elf.data + 60, 2);
  if (shentsize != 64 || !in_range(elf, shoff, (uint64_t)shnum * 64)) return;
  for (uint32_t s = 0; s < shnum; ++s) {
    const uint8_t* sh = elf.data + shoff + (uint64_t)s * 64;
    uint32_t type = (uint32_t)le(sh + 4, 4);
    if (type != SHT_SYMTAB && type != SHT_DYNSYM) continue;
    uint64_t off = le(sh + 24, 8), size = le(sh + 32, 8);
    uint32_t link = (uint32_t)le(sh + 40, 4);
    if (!in_range(elf, off, size) || link >= shnum) continue;
    const uint8_t* strsh = elf.data + shoff + (uint64_t)link * 64;
    uint64_t str_off = le(strsh + 24, 8), str_size = le(strsh + 32, 8);
    if (!in_range(elf, str_off, str_size)) continue;
    for (uint64_t e = 0; e + 24 <= size; e += 24) {
      const uint8_t* sym = elf.data + off + e;
      uint32_t name_off = (uint32_t)le(sym, 4);
      uint16_t shndx = (uint16_t)le(sym + 6, 2);
      uint64_t value = le(sym + 8, 8), sym_size = le(sym + 16, 8);
      if (name_off >= str_size) continue;
      const char* sym_name = (const char*)elf.data + str_off + name_off;
      size_t max = (size_t)(str_size - name_off);
      if (strnlen(sym_name, max) == max || strcmp(sym_name, name) != 0) continue;
      if (shndx == 0 || shndx >= shnum) return;
      const uint8_t* target = elf.data + shoff + (uint64_t)shndx * 64;
      uint64_t addr = le(target + 16, 8), toff = le(target + 24, 8);
      if (value < addr || !in_range(elf, toff + (value - addr), sym_size) || sym_size == 0) return;
      size_t n = (size_t)sym_size < out_size ? (size_t)sym_size : out_size - 1;
      memcpy(out, elf.data + toff + (value - addr), n);
      out[n] = 0;
      out[strnlen(out, n)] = 0;
      return;
    }
  }
}

// Every segment, the section header table and every section with file contents lie in
// the file: a truncated or padded-out code object is refused before anything reads it.
static gg_status check_extents(bytes elf) {
  uint64_t phoff = le(elf.data + 32, 8), shoff = le(elf.data + 40, 8);
  uint32_t phentsize = (uint32_t)le(elf.data + 54, 2), phnum = (uint32_t)le(elf.data + 56, 2);
  uint32_t shentsize = (uint32_t)le(elf.data + 58, 2), shnum = (uint32_t)le(elf.data + 60, 2);
  if (phentsize != 56 || !in_range(elf, phoff, (uint64_t)phnum * 56))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "code object: bad program headers");
  for (uint32_t i = 0; i < phnum; ++i) {
    const uint8_t* ph = elf.data + phoff + (uint64_t)i * 56;
    if (!in_range(elf, le(ph + 8, 8), le(ph + 32, 8)))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "code object: truncated (segment %u ends past the file)", i);
  }
  if (shentsize != 64 || !in_range(elf, shoff, (uint64_t)shnum * 64))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "code object: truncated (no complete section header table)");
  enum { SHT_NOBITS = 8 };
  for (uint32_t s = 0; s < shnum; ++s) {
    const uint8_t* sh = elf.data + shoff + (uint64_t)s * 64;
    if (le(sh + 4, 4) != SHT_NOBITS && !in_range(elf, le(sh + 24, 8), le(sh + 32, 8)))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "code object: truncated (section %u ends past the file)", s);
  }
  return GG_OK;
}

gg_status gg_code_object_read(const void* data, size_t size, gg_code_object_info* info) {
  memset(info, 0, sizeof *info);
  bytes elf = {data, size};
  if (size < 64 || memcmp(elf.data, "\x7f" "ELF", 4) != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "code object: not an ELF file");
  if (elf.data[4] != 2 || elf.data[5] != 1)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "code object: not 64-bit little-endian ELF");
  info->elf_type = (uint32_t)le(elf.data + 16, 2);
  info->machine = (uint32_t)le(elf.data + 18, 2);
  if (info->machine != 224)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "code object: e_machine %u is not EM_AMDGPU (224)", info->machine);
  GG_RETURN_IF_ERROR(check_extents(elf));
  uint64_t phoff = le(elf.data + 32, 8);
  uint32_t phnum = (uint32_t)le(elf.data + 56, 2);
  int found = 0;
  for (uint32_t i = 0; i < phnum && !found; ++i) {
    const uint8_t* ph = elf.data + phoff + (uint64_t)i * 56;
    if (le(ph, 4) != PT_NOTE) continue;
    uint64_t off = le(ph + 8, 8), filesz = le(ph + 32, 8);
    if (!in_range(elf, off, filesz))
      return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "code object: note segment out of range");
    // Note records are 4-byte aligned; the last one's padding may be missing.
    for (uint64_t p = 0; p + 12 <= filesz && !found;) {
      const uint8_t* note = elf.data + off + p;
      uint64_t namesz = le(note, 4), descsz = le(note + 4, 4), type = le(note + 8, 4);
      uint64_t name_at = p + 12, desc_at = name_at + ((namesz + 3) & ~3ull);
      if (desc_at > filesz || descsz > filesz - desc_at)
        return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "code object: truncated note");
      if (type == NT_AMDGPU_METADATA && namesz == 7 && !memcmp(note + 12, "AMDGPU", 7)) {
        GG_RETURN_IF_ERROR(read_metadata(elf.data + off + desc_at, (size_t)descsz, info));
        found = 1;
      }
      p = desc_at + ((descsz + 3) & ~3ull);
    }
  }
  if (!found)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "code object: no NT_AMDGPU metadata note");
  char symbol[300];
  snprintf(symbol, sizeof symbol, "%s_gg_descriptor", info->kernel.name);
  read_symbol_string(elf, symbol, info->descriptor, sizeof info->descriptor);
  return GG_OK;
}
