// Cache files.
#include "api/disk_cache.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/files.h"

static const char kMagic[8] = {'G', 'G', 'C', 'A', 'C', 'H', 'E', 0};
enum { kFormatVersion = 1, kHeaderSize = 32 };

void gg_disk_cache_path(const char* dir, const char* key, char* buffer, size_t size) {
  snprintf(buffer, size, "%s/%016llx.ggc", dir,
           (unsigned long long)gg_fnv1a64(key, strlen(key)));
}

static void put_le(uint8_t* p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = (uint8_t)(value >> (8 * i));
}

static uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

// Why the bytes of a file are not a valid entry for key (NULL when they are).
static const char* invalid_entry(const uint8_t* file, size_t size, const char* key) {
  if (size < kHeaderSize) return "shorter than its header";
  if (memcmp(file, kMagic, sizeof kMagic) != 0) return "not a gg cache file";
  if (get_le(file + 8, 4) != kFormatVersion) return "another format version";
  uint64_t key_size = get_le(file + 12, 4), payload_size = get_le(file + 16, 8);
  if (key_size > size - kHeaderSize || payload_size != size - kHeaderSize - key_size)
    return "truncated or extended";
  if (key_size != strlen(key) || memcmp(file + kHeaderSize, key, key_size) != 0)
    return "for another key";
  const uint8_t* payload = file + kHeaderSize + key_size;
  if (gg_fnv1a64(payload, payload_size) != get_le(file + 24, 8)) return "checksum mismatch";
  return NULL;
}

gg_status gg_disk_cache_load(const char* dir, const char* key, gg_text* payload,
                             gg_disk_lookup* result, char* why, size_t why_size) {
  *result = GG_DISK_MISS;
  if (why_size) why[0] = 0;
  char path[PATH_MAX];
  gg_disk_cache_path(dir, key, path, sizeof path);
  gg_text bytes;
  gg_text_init(&bytes);
  gg_status status = gg_file_read(path, &bytes);
  if (status) {
    gg_text_free(&bytes);
    if (gg_status_code_of(status) != GG_STATUS_UNAVAILABLE) return status;
    gg_status_free(status);  // no file: a miss
    return GG_OK;
  }
  const char* problem = invalid_entry((const uint8_t*)bytes.data, bytes.length, key);
  if (problem) {
    // Another process may have replaced it meanwhile with a good file; deleting that
    // costs one recompile, never a wrong kernel.
    unlink(path);
    snprintf(why, why_size, "%s: %s", path, problem);
    *result = GG_DISK_CORRUPT;
  } else {
    size_t key_size = strlen(key);
    gg_text_append(payload, bytes.data + kHeaderSize + key_size,
                   bytes.length - kHeaderSize - key_size);
    *result = GG_DISK_HIT;
  }
  gg_text_free(&bytes);
  return GG_OK;
}

gg_status gg_disk_cache_store(const char* dir, const char* key, const void* payload,
                              size_t size) {
  GG_RETURN_IF_ERROR(gg_make_dirs(dir, 0755));
  char path[PATH_MAX], temporary[PATH_MAX + 32];
  gg_disk_cache_path(dir, key, path, sizeof path);
  // A unique name per writer: concurrent writers of one key each rename a whole file.
  snprintf(temporary, sizeof temporary, "%s.XXXXXX", path);
  int fd = mkstemp(temporary);
  if (fd < 0)
    return gg_status_make(GG_STATUS_IO, "cannot create a file in %s: %s", dir, strerror(errno));
  size_t key_size = strlen(key);
  uint8_t header[kHeaderSize];
  memcpy(header, kMagic, sizeof kMagic);
  put_le(header + 8, kFormatVersion, 4);
  put_le(header + 12, key_size, 4);
  put_le(header + 16, size, 8);
  put_le(header + 24, gg_fnv1a64(payload, size), 8);
  int failed = gg_fd_write_all(fd, header, sizeof header) ||
               gg_fd_write_all(fd, key, key_size) || gg_fd_write_all(fd, payload, size) ||
               fsync(fd) != 0;
  failed = close(fd) != 0 || failed;
  if (!failed && rename(temporary, path) == 0) return GG_OK;
  gg_status status =
      gg_status_make(GG_STATUS_IO, "writing cache file %s failed: %s", path, strerror(errno));
  unlink(temporary);
  return status;
}
