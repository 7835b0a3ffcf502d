// Whole files.
#include "runtime/files.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gg_status gg_file_read(const char* path, gg_text* out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return gg_status_make(errno == ENOENT ? GG_STATUS_UNAVAILABLE : GG_STATUS_IO,
                          "cannot read %s: %s", path, strerror(errno));
  gg_status status = gg_fd_read_text(fd, path, out);
  close(fd);
  return status;
}

gg_status gg_fd_read_text(int fd, const char* name, gg_text* out) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return gg_status_make(GG_STATUS_IO, "reading %s failed: %s", name, strerror(errno));
    if (n == 0) break;
    gg_text_append(out, chunk, (size_t)n);
  }
  if (out->failed)
    return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory reading %s", name);
  return GG_OK;
}

int gg_fd_write_all(int fd, const void* data, size_t size) {
  const uint8_t* p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return -1;
    }
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

ssize_t gg_fd_read_all(int fd, void* data, size_t size) {
  uint8_t* p = data;
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += (size_t)n;
  }
  return (ssize_t)done;
}

gg_status gg_make_dirs(const char* path, mode_t mode) {
  char partial[PATH_MAX];
  if (snprintf(partial, sizeof partial, "%s", path) >= (int)sizeof partial)
    return gg_status_make(GG_STATUS_IO, "directory path too long: %s", path);
  for (char* p = partial + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(partial, 0755) != 0 && errno != EEXIST)
      return gg_status_make(GG_STATUS_IO, "cannot create %s: %s", partial, strerror(errno));
    *p = '/';
  }
  if (mkdir(partial, mode) != 0 && errno != EEXIST)
    return gg_status_make(GG_STATUS_IO, "cannot create %s: %s", partial, strerror(errno));
  return GG_OK;
}

gg_status gg_file_write(const char* path, const void* data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return gg_status_make(GG_STATUS_IO, "cannot write %s: %s", path, strerror(errno));
  int failed = gg_fd_write_all(fd, data, size);
  failed = close(fd) != 0 || failed;
  return failed ? gg_status_make(GG_STATUS_IO, "writing %s failed: %s", path, strerror(errno))
                : GG_OK;
}

gg_status gg_file_write_atomic(const char* path, const void* data, size_t size, mode_t mode) {
  char temporary[PATH_MAX];
  if (snprintf(temporary, sizeof temporary, "%s.tmp-XXXXXX", path) >= (int)sizeof temporary)
    return gg_status_make(GG_STATUS_IO, "path too long: %s", path);
  int fd = mkstemp(temporary);
  if (fd < 0) return gg_status_make(GG_STATUS_IO, "cannot write %s: %s", path, strerror(errno));
  mode_t mask = umask(0);
  umask(mask);
  int failed = fchmod(fd, mode & ~mask) != 0;
  failed = failed || gg_fd_write_all(fd, data, size) != 0 || fsync(fd) != 0;
  int saved = errno;
  failed = close(fd) != 0 || failed;
  if (!failed && rename(temporary, path) != 0) {
    saved = errno;
    failed = 1;
  }
  if (failed) {
    unlink(temporary);
    return gg_status_make(GG_STATUS_IO, "writing %s failed: %s", path, strerror(saved));
  }
  return GG_OK;
}
