// Cache files.
#include "api/disk_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/files.h"

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

// Why a file someone other than this user may have written is not to be trusted (NULL
// when only the user can have): a kernel read from it may be dlopen'ed.
static const char* not_private(const struct stat* st) {
  if (st->st_uid != geteuid()) return "owned by another user";
  if (st->st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
  return NULL;
}

// Why a header does not describe an entry of file_size bytes for a key of key_size bytes
// (NULL when it does). The sizes are checked against the file before anything they
// claim is allocated or read.
static const char* invalid_header(const uint8_t* header, uint64_t file_size, size_t key_size) {
  if (memcmp(header, kMagic, sizeof kMagic) != 0) return "not a gg cache file";
  if (get_le(header + 8, 4) != kFormatVersion) return "another format version";
  uint64_t claimed_key = get_le(header + 12, 4), payload_size = get_le(header + 16, 8);
  if (payload_size > GG_DISK_CACHE_MAX_PAYLOAD) return "claims a payload over the 1 GiB limit";
  if (kHeaderSize + claimed_key + payload_size != file_size) return "truncated or extended";
  if (claimed_key != key_size) return "for another key";
  return NULL;
}

// Reads size bytes; a file that ends sooner has changed since its size was checked.
static gg_status read_part(int fd, const char* path, void* data, size_t size,
                           const char** problem) {
  ssize_t n = gg_fd_read_all(fd, data, size);
  if (n < 0) return gg_status_make(GG_STATUS_IO, "reading %s failed: %s", path, strerror(errno));
  if ((size_t)n < size) *problem = "truncated or extended";
  return GG_OK;
}

// Checks the open entry and appends its payload to out when it is a valid entry for key;
// otherwise *problem says why not. Only this descriptor is inspected and read, so the
// file checked is the file loaded.
static gg_status read_entry(int fd, const char* path, const char* key, gg_text* out,
                            const char** problem) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return gg_status_make(GG_STATUS_IO, "cannot stat %s: %s", path, strerror(errno));
  *problem = S_ISREG(st.st_mode) ? not_private(&st) : "not a regular file";
  if (*problem) return GG_OK;
  if (st.st_size < kHeaderSize) {
    *problem = "shorter than its header";
    return GG_OK;
  }
  uint8_t header[kHeaderSize];
  size_t key_size = strlen(key);
  GG_RETURN_IF_ERROR(read_part(fd, path, header, sizeof header, problem));
  if (!*problem) *problem = invalid_header(header, (uint64_t)st.st_size, key_size);
  if (*problem) return GG_OK;
  // The header bounded the rest: at most the key and 1 GiB.
  size_t rest = (size_t)st.st_size - kHeaderSize;
  uint8_t* bytes = malloc(rest + 1);  // + 1: never a zero-size allocation
  if (!bytes)
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory reading %s", path);
  gg_status status = read_part(fd, path, bytes, rest, problem);
  const uint8_t* payload = bytes + key_size;
  size_t payload_size = rest - key_size;
  if (!status && !*problem) {
    if (memcmp(bytes, key, key_size) != 0) *problem = "for another key";
    else if (gg_fnv1a64(payload, payload_size) != get_le(header + 24, 8))
      *problem = "checksum mismatch";
    else gg_text_append(out, (const char*)payload, payload_size);
  }
  free(bytes);
  return status;
}

gg_status gg_disk_cache_prepare(const char* dir) {
  GG_RETURN_IF_ERROR(gg_make_dirs(dir, 0700));
  struct stat link, st;
  if (lstat(dir, &link) != 0 || stat(dir, &st) != 0)
    return gg_status_make(GG_STATUS_IO, "cannot stat %s: %s", dir, strerror(errno));
  // A link is followed only when it is the user's; what it names is checked like any
  // directory.
  const char* problem;
  if (S_ISLNK(link.st_mode) && link.st_uid != geteuid())
    problem = "a symbolic link owned by another user";
  else if (!S_ISDIR(st.st_mode))
    problem = "not a directory";
  else
    problem = not_private(&st);
  if (problem) return gg_status_make(GG_STATUS_UNAVAILABLE, "not using %s: %s", dir, problem);
  return GG_OK;
}

gg_status gg_disk_cache_load(const char* dir, const char* key, gg_text* payload,
                             gg_disk_lookup* result, char* why, size_t why_size) {
  *result = GG_DISK_MISS;
  if (why_size) why[0] = 0;
  char path[PATH_MAX];
  gg_disk_cache_path(dir, key, path, sizeof path);
  // A link is not followed, and a FIFO does not wait for a writer: fstat then refuses both.
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return GG_OK;  // no file: a miss
  const char* problem = NULL;
  if (fd < 0 && errno != ELOOP)
    return gg_status_make(GG_STATUS_IO, "cannot read %s: %s", path, strerror(errno));
  if (fd < 0) {
    problem = "a symbolic link, not followed";
  } else {
    gg_status status = read_entry(fd, path, key, payload, &problem);
    close(fd);
    GG_RETURN_IF_ERROR(status);
  }
  if (problem) {
    // The directory is the user's alone, so is every name in it: removing a link or a
    // FIFO removes only the name, never what a link points to. Another process may have
    // replaced the entry meanwhile with a good file; deleting that costs one recompile,
    // never a wrong kernel.
    unlink(path);
    snprintf(why, why_size, "%s: %s", path, problem);
    *result = GG_DISK_CORRUPT;
  } else {
    *result = GG_DISK_HIT;
  }
  return GG_OK;
}

gg_status gg_disk_cache_store(const char* dir, const char* key, const void* payload,
                              size_t size) {
  GG_RETURN_IF_ERROR(gg_make_dirs(dir, 0700));
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
