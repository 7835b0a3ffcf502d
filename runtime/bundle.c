// Kernel bundles: encoding, decoding with every check, and reading files.
#include "runtime/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/dispatch.h"
#include "runtime/files.h"
#include "runtime/hash.h"
#include "runtime/host.h"
#include "runtime/table.h"

#define RECORD_TAG 0x4C4E524Bu  // "KRNL" little-endian

// ---------------------------------------------------------------------------------------
// Launch metadata.

gg_status gg_bundle_launch_of(const gg_op_desc* desc, const void* code, size_t code_size,
                              gg_bundle_launch* out) {
  memset(out, 0, sizeof *out);
  gg_grid_rules(desc, out->grid);
  out->workspace_bytes = gg_workspace_bytes(desc);
  if (desc->target == GG_TARGET_HOST) {
    // The C interface: one memref descriptor pointer per operand the layout has.
    out->block[0] = out->block[1] = out->block[2] = 1;
    for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
      gg_operand_shape shape = gg_operand_shape_of(desc, (gg_operand)i, 1);
      if (!shape.present) continue;
      gg_kernel_arg_info* arg = &out->args[out->arg_count++];
      arg->offset = out->arg_bytes;
      arg->size = GG_HOST_MEMREF_BYTES;
      strcpy(arg->value_kind, "memref");
      out->arg_bytes += GG_HOST_MEMREF_BYTES;
    }
    return GG_OK;
  }
  if (desc->target == GG_TARGET_SM90A) {
    // The kernel parameters: the tensor maps by value (128 bytes, 64-aligned), then
    // every operand's memref fields (8 bytes each); dynamic shared memory for the ring.
    out->block[0] = GG_SM90_THREADS;
    out->block[1] = out->block[2] = 1;
    out->shared_bytes = (uint32_t)gg_sm90_dynamic_shared_bytes(desc);
    void* none[GG_OPERAND_COUNT] = {NULL};
    size_t fields = gg_operand_arg_values(desc, none, 1, NULL, NULL, 0);
    size_t maps = GG_SM90_TENSOR_MAPS;
    if (maps + fields > GG_MAX_KERNEL_ARGS)
      return gg_status_make(GG_STATUS_INTERNAL, "sm_90a kernel with %zu parameters", maps + fields);
    for (size_t i = 0; i < maps + fields; ++i) {
      gg_kernel_arg_info* arg = &out->args[out->arg_count++];
      arg->offset = out->arg_bytes;
      arg->size = i < maps ? 128 : 8;
      strcpy(arg->value_kind, i < maps ? "tensor_map" : "memref_field");
      out->arg_bytes += arg->size;
    }
    (void)code;
    (void)code_size;
    return GG_OK;
  }
  gg_code_object_info info;
  GG_RETURN_IF_ERROR(gg_code_object_read(code, code_size, &info));
  const gg_kernel_info* k = &info.kernel;
  memcpy(out->block, k->reqd_workgroup_size, sizeof out->block);
  out->shared_bytes = k->group_segment_size;
  out->private_bytes = k->private_segment_size;
  out->companions = info.has_group_ends ? 1 : 0;
  out->arg_bytes = k->kernarg_size;
  out->arg_count = k->arg_count;
  memcpy(out->args, k->args, sizeof out->args);
  return GG_OK;
}

static int launch_equal(const gg_bundle_launch* a, const gg_bundle_launch* b) {
  for (int d = 0; d < 3; ++d) {
    const gg_grid_dim_rule *x = &a->grid[d], *y = &b->grid[d];
    if (x->uses_m != y->uses_m || x->constant != y->constant || x->divisor != y->divisor ||
        x->ceil != y->ceil || x->addend != y->addend || a->block[d] != b->block[d])
      return 0;
  }
  if (a->shared_bytes != b->shared_bytes || a->private_bytes != b->private_bytes ||
      a->workspace_bytes != b->workspace_bytes || a->companions != b->companions ||
      a->arg_bytes != b->arg_bytes || a->arg_count != b->arg_count)
    return 0;
  for (uint32_t i = 0; i < a->arg_count; ++i)
    if (a->args[i].offset != b->args[i].offset || a->args[i].size != b->args[i].size ||
        strcmp(a->args[i].value_kind, b->args[i].value_kind) != 0)
      return 0;
  return 1;
}

// ---------------------------------------------------------------------------------------
// Encoding (little-endian fields; strings carry their length and a terminating NUL).

static void put_u8(gg_text* out, uint8_t v) { gg_text_append(out, (const char*)&v, 1); }

static void put_u32(gg_text* out, uint32_t v) {
  uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = (uint8_t)(v >> (8 * i));
  gg_text_append(out, (const char*)b, 4);
}

static void put_u64(gg_text* out, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = (uint8_t)(v >> (8 * i));
  gg_text_append(out, (const char*)b, 8);
}

static void put_str(gg_text* out, const char* s) {
  size_t n = strlen(s) + 1;
  put_u32(out, (uint32_t)n);
  gg_text_append(out, s, n);
}

static void put_checksum(gg_text* out, size_t from) {
  if (!out->failed) put_u64(out, gg_fnv1a64(out->data + from, out->length - from));
}

static void patch_u64(gg_text* out, size_t at, uint64_t v) {
  if (out->failed) return;
  for (int i = 0; i < 8; ++i) out->data[at + i] = (char)(uint8_t)(v >> (8 * i));
}

static gg_status check_string(const char* what, const char* s) {
  if (!s || strlen(s) + 1 > GG_BUNDLE_MAX_STRING)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle: the %s is %s", what,
                          s ? "longer than 64 KiB" : "missing");
  return GG_OK;
}

gg_status gg_bundle_encode(const gg_bundle_header* header, const gg_bundle_kernel* kernels,
                           size_t count, gg_text* out) {
  if (count == 0) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle: no kernels to write");
  if (count > GG_BUNDLE_MAX_KERNELS)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle: %zu kernels; the most is %u",
                          count, GG_BUNDLE_MAX_KERNELS);
  GG_RETURN_IF_ERROR(check_string("gg version", header->gg_version));
  GG_RETURN_IF_ERROR(check_string("LLVM version", header->llvm_version));
  GG_RETURN_IF_ERROR(check_string("CPU signature", header->cpu));
  gg_table keys;
  gg_table_init(&keys);
  gg_status status = GG_OK;
  for (size_t i = 0; i < count && !status; ++i) {
    const gg_bundle_kernel* k = &kernels[i];
    if (!(status = check_string("key", k->key)) && !(status = check_string("name", k->name)))
      status = check_string("flags", k->flags);
    if (!status && k->desc.target != header->target)
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                              "bundle: kernel %s is for %s, the bundle for %s", k->name,
                              gg_target_name(k->desc.target), gg_target_name(header->target));
    if (!status && k->launch.arg_count > GG_MAX_KERNEL_ARGS)
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle: %s has %u arguments",
                              k->name, k->launch.arg_count);
    if (!status && gg_table_get(&keys, k->key))
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle: %s is listed twice", k->key);
    if (!status && gg_table_put(&keys, k->key, (void*)k) != 0)
      status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  gg_table_free(&keys);
  if (status) return status;

  size_t start = out->length;
  gg_text_append(out, GG_BUNDLE_MAGIC, 8);
  put_u32(out, GG_BUNDLE_FORMAT_VERSION);
  put_u32(out, (uint32_t)count);
  size_t file_size_at = out->length;
  put_u64(out, 0);  // the file's size, patched at the end
  put_str(out, header->gg_version);
  put_str(out, header->llvm_version);
  put_str(out, gg_target_name(header->target));
  put_str(out, header->cpu);
  size_t header_sum_at = out->length;
  put_u64(out, 0);  // the header's checksum, once the file's size is in it
  for (size_t i = 0; i < count; ++i) {
    const gg_bundle_kernel* k = &kernels[i];
    const gg_bundle_launch* l = &k->launch;
    size_t record = out->length;
    put_u32(out, RECORD_TAG);
    put_u64(out, 0);  // the record's size, patched below
    put_str(out, k->key);
    put_str(out, k->name);
    put_str(out, k->flags);
    for (int d = 0; d < 3; ++d) {
      put_u8(out, (uint8_t)(l->grid[d].uses_m != 0));
      put_u8(out, (uint8_t)(l->grid[d].ceil != 0));
      put_u64(out, (uint64_t)l->grid[d].constant);
      put_u64(out, (uint64_t)l->grid[d].divisor);
      put_u64(out, (uint64_t)l->grid[d].addend);
    }
    for (int d = 0; d < 3; ++d) put_u32(out, l->block[d]);
    put_u32(out, l->shared_bytes);
    put_u32(out, l->private_bytes);
    put_u64(out, l->workspace_bytes);
    put_u32(out, l->companions);
    put_u32(out, l->arg_bytes);
    put_u32(out, l->arg_count);
    for (uint32_t a = 0; a < l->arg_count; ++a) {
      put_u32(out, l->args[a].offset);
      put_u32(out, l->args[a].size);
      put_str(out, l->args[a].value_kind);
    }
    put_u64(out, k->code_size);
    gg_text_append(out, (const char*)k->code, k->code_size);
    patch_u64(out, record + 4, out->length + 8 - record);
    put_checksum(out, record);
  }
  gg_text_append(out, GG_BUNDLE_TRAILER, 8);
  patch_u64(out, file_size_at, out->length + 8 - start);
  if (!out->failed)
    patch_u64(out, header_sum_at, gg_fnv1a64(out->data + start, header_sum_at - start));
  put_checksum(out, start);
  if (out->failed) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  return GG_OK;
}

// ---------------------------------------------------------------------------------------
// Decoding.

typedef struct reader {
  const uint8_t* base;
  size_t at, end;
  int short_read;  // a field ran past end
} reader;

static uint64_t get(reader* r, int bytes) {
  if (r->short_read || r->end - r->at < (size_t)bytes) {
    r->short_read = 1;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= (uint64_t)r->base[r->at + i] << (8 * i);
  r->at += (size_t)bytes;
  return v;
}

// A NUL-terminated string of at most GG_BUNDLE_MAX_STRING bytes, with no NUL inside.
static const char* get_str(reader* r) {
  uint32_t n = (uint32_t)get(r, 4);
  if (r->short_read || n == 0 || n > GG_BUNDLE_MAX_STRING || r->end - r->at < n) {
    r->short_read = 1;
    return NULL;
  }
  const char* s = (const char*)r->base + r->at;
  if (s[n - 1] != 0 || strlen(s) != n - 1) {
    r->short_read = 1;
    return NULL;
  }
  r->at += n;
  return s;
}

static int checksum_ok(const reader* r, size_t from) {
  reader c = *r;
  uint64_t stored = get(&c, 8);
  return !c.short_read && stored == gg_fnv1a64(r->base + from, r->at - from);
}

static gg_status fail(const char* format, const char* detail) {
  return gg_status_make(GG_STATUS_INVALID_ARGUMENT, format, detail);
}

static gg_status decode_header(reader* r, gg_bundle* b, uint32_t* count) {
  if (r->end < 16) return fail("bundle: %s", "too short to be a gg bundle");
  if (memcmp(r->base, GG_BUNDLE_MAGIC, 8) != 0)
    return fail("bundle: %s", "not a gg bundle (no GGBUNDLE magic)");
  r->at = 8;
  uint32_t version = (uint32_t)get(r, 4);
  if (version != GG_BUNDLE_FORMAT_VERSION)
    return gg_status_make(GG_STATUS_UNIMPLEMENTED,
                          "bundle: format version %u; this gg reads version %u: rebuild it with "
                          "this gg",
                          version, GG_BUNDLE_FORMAT_VERSION);
  *count = (uint32_t)get(r, 4);
  uint64_t file_size = get(r, 8);
  if (r->short_read) return fail("bundle: %s", "truncated in the header");
  if (file_size != r->end)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "bundle: %s: the header says %llu bytes, the file has %zu",
                          file_size > r->end ? "truncated" : "extended or damaged",
                          (unsigned long long)file_size, r->end);
  b->header.format_version = version;
  b->header.gg_version = get_str(r);
  b->header.llvm_version = get_str(r);
  const char* target = get_str(r);
  b->header.cpu = get_str(r);
  if (r->short_read) return fail("bundle: %s", "the header is damaged");
  if (!checksum_ok(r, 0)) return fail("bundle: %s", "the header's checksum does not match");
  r->at += 8;
  int t = gg_target_from_name(target);
  if (t < 0) return fail("bundle: its target '%s' is not one this gg knows", target);
  b->header.target = (gg_target)t;
  if (*count == 0) return fail("bundle: %s", "it holds no kernels");
  if (*count > GG_BUNDLE_MAX_KERNELS)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle: it claims %u kernels", *count);
  return GG_OK;
}

static gg_status decode_record(reader* r, const gg_bundle* b, size_t index, gg_bundle_kernel* k) {
  size_t start = r->at;
  uint32_t tag = (uint32_t)get(r, 4);
  uint64_t size = get(r, 8);
  if (r->short_read || tag != RECORD_TAG || size < 20 || size > r->end - start)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "bundle: kernel %zu (at byte %zu): %s", index, start,
                          r->short_read || size > r->end - start ? "its record runs past the end"
                                                                 : "not a kernel record");
  reader body = {r->base, r->at, start + (size_t)size - 8, 0};
  reader sum = {r->base, body.end, r->end, 0};
  if (!checksum_ok(&sum, start))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "bundle: kernel %zu (at byte %zu): its checksum does not match", index,
                          start);
  k->key = get_str(&body);
  k->name = get_str(&body);
  k->flags = get_str(&body);
  gg_bundle_launch* l = &k->launch;
  memset(l, 0, sizeof *l);
  for (int d = 0; d < 3; ++d) {
    l->grid[d].uses_m = (int)get(&body, 1);
    l->grid[d].ceil = (int)get(&body, 1);
    l->grid[d].constant = (int64_t)get(&body, 8);
    l->grid[d].divisor = (int64_t)get(&body, 8);
    l->grid[d].addend = (int64_t)get(&body, 8);
  }
  for (int d = 0; d < 3; ++d) l->block[d] = (uint32_t)get(&body, 4);
  l->shared_bytes = (uint32_t)get(&body, 4);
  l->private_bytes = (uint32_t)get(&body, 4);
  l->workspace_bytes = get(&body, 8);
  l->companions = (uint32_t)get(&body, 4);
  l->arg_bytes = (uint32_t)get(&body, 4);
  l->arg_count = (uint32_t)get(&body, 4);
  if (l->arg_count > GG_MAX_KERNEL_ARGS) body.short_read = 1;
  for (uint32_t a = 0; a < l->arg_count && !body.short_read; ++a) {
    l->args[a].offset = (uint32_t)get(&body, 4);
    l->args[a].size = (uint32_t)get(&body, 4);
    const char* kind = get_str(&body);
    if (kind && strlen(kind) < sizeof l->args[a].value_kind) strcpy(l->args[a].value_kind, kind);
    else body.short_read = 1;
  }
  k->code_size = get(&body, 8);
  if (body.short_read || k->code_size != body.end - body.at)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "bundle: kernel %zu (at byte %zu): its fields are damaged", index,
                          start);
  k->code = r->base + body.at;
  r->at = start + (size_t)size;

  // What the record says must be what its code is.
  gg_status status = gg_op_desc_parse(k->key, &k->desc);
  if (!status) status = gg_op_desc_validate(&k->desc);
  if (status)
    return gg_status_annotate(status, "bundle: kernel %zu: its descriptor", index);
  char canonical[1024], name[256];
  gg_op_desc_format(&k->desc, canonical, sizeof canonical);
  gg_op_desc_kernel_name(&k->desc, name, sizeof name);
  if (strcmp(canonical, k->key) != 0 || strcmp(name, k->name) != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "bundle: kernel %zu (%s): its key or name is not the descriptor's", index,
                          k->name);
  if (k->desc.target != b->header.target)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle: kernel %zu (%s) is for %s, the bundle for %s",
                          index, k->name, gg_target_name(k->desc.target),
                          gg_target_name(b->header.target));
  gg_bundle_launch derived;
  status = gg_bundle_launch_of(&k->desc, k->code, (size_t)k->code_size, &derived);
  if (status) return gg_status_annotate(status, "bundle: kernel %zu (%s): its code", index, k->name);
  if (!launch_equal(&derived, l))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "bundle: kernel %zu (%s): its launch metadata disagrees with its code",
                          index, k->name);
  return GG_OK;
}

static gg_status decode(gg_bundle* b) {
  reader r = {b->data, 0, b->size, 0};
  uint32_t count = 0;
  GG_RETURN_IF_ERROR(decode_header(&r, b, &count));
  // Every record holds at least its tag, size and checksum: a count the file cannot hold
  // is refused before anything is allocated for it.
  if ((size_t)count > (b->size - r.at) / 20)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "bundle: it claims %u kernels, more than its bytes can hold", count);
  b->kernels = calloc(count, sizeof *b->kernels);
  if (!b->kernels) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  gg_table keys;
  gg_table_init(&keys);
  gg_status status = GG_OK;
  for (uint32_t i = 0; i < count && !status; ++i) {
    status = decode_record(&r, b, i, &b->kernels[i]);
    if (status) break;
    const gg_bundle_kernel* other = gg_table_get(&keys, b->kernels[i].key);
    if (other)
      status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                              "bundle: kernels %zu and %u are both %s",
                              (size_t)(other - b->kernels), i, b->kernels[i].name);
    else if (gg_table_put(&keys, b->kernels[i].key, &b->kernels[i]) != 0)
      status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    b->count = i + 1;
  }
  gg_table_free(&keys);
  if (status) return status;
  size_t trailer = r.at;
  if (b->size - trailer != 16 || memcmp(b->data + trailer, GG_BUNDLE_TRAILER, 8) != 0)
    return fail("bundle: %s", "the end of the bundle is damaged (no trailer after the last kernel)");
  r.at = trailer + 8;
  if (!checksum_ok(&r, 0)) return fail("bundle: %s", "the checksum of the whole does not match");
  return GG_OK;
}

gg_status gg_bundle_decode(uint8_t* data, size_t size, gg_bundle** out) {
  *out = NULL;
  gg_bundle* b = calloc(1, sizeof *b);
  if (!b) {
    free(data);
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  b->data = data;
  b->size = size;
  gg_status status = decode(b);
  if (status) {
    gg_bundle_free(b);
    return status;
  }
  *out = b;
  return GG_OK;
}

void gg_bundle_free(gg_bundle* bundle) {
  if (!bundle) return;
  free(bundle->kernels);
  free(bundle->data);
  free(bundle);
}

gg_status gg_bundle_read_file(const char* path, gg_bundle** out) {
  *out = NULL;
  // A FIFO does not wait for a writer; fstat then refuses anything but a regular file.
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return gg_status_make(errno == ENOENT ? GG_STATUS_NOT_FOUND : GG_STATUS_IO,
                          "bundle %s: %s", path, strerror(errno));
  struct stat st;
  gg_status status = GG_OK;
  uint8_t* data = NULL;
  if (fstat(fd, &st) != 0)
    status = gg_status_make(GG_STATUS_IO, "bundle %s: %s", path, strerror(errno));
  else if (!S_ISREG(st.st_mode))
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle %s: not a regular file", path);
  else if (st.st_mode & (S_IWGRP | S_IWOTH))
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "bundle %s: writable by group or others (mode %03o): whoever can "
                            "write it can run code in this process",
                            path, (unsigned)(st.st_mode & 0777));
  else if (st.st_uid != geteuid() && st.st_uid != 0)
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                            "bundle %s: owned by user %u, not by this user (%u) or root", path,
                            (unsigned)st.st_uid, (unsigned)geteuid());
  else if ((uint64_t)st.st_size > GG_BUNDLE_MAX_FILE_BYTES)
    status = gg_status_make(GG_STATUS_INVALID_ARGUMENT, "bundle %s: %lld bytes; the most is 64 GiB",
                            path, (long long)st.st_size);
  else if (!(data = malloc(st.st_size ? (size_t)st.st_size : 1)))
    status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "bundle %s: out of memory for %lld bytes",
                            path, (long long)st.st_size);
  else if (gg_fd_read_all(fd, data, (size_t)st.st_size) != (ssize_t)st.st_size)
    status = gg_status_make(GG_STATUS_IO, "bundle %s: read failed or the file changed while read",
                            path);
  close(fd);
  if (status) {
    free(data);
    return status;
  }
  status = gg_bundle_decode(data, (size_t)st.st_size, out);
  return status ? gg_status_annotate(status, "%s", path) : GG_OK;
}
