// Whole-file reads and writes for the compiler and the cache.
#ifndef GG_RUNTIME_FILES_H_
#define GG_RUNTIME_FILES_H_

#include <stddef.h>
#include <sys/types.h>

#include "runtime/text.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// Appends the file's bytes to out. A missing file is GG_STATUS_UNAVAILABLE (so callers
// can tell it from a failed read, GG_STATUS_IO).
gg_status gg_file_read(const char* path, gg_text* out);
// Appends everything fd holds up to its end (a file, standard input, a pipe) to out;
// messages call it `name`. gg_file_read is this on the file it opens.
gg_status gg_fd_read_text(int fd, const char* name, gg_text* out);

// Writes all of data to fd (retrying short writes); 0 on success, -1 with errno set.
int gg_fd_write_all(int fd, const void* data, size_t size);

// Reads up to size bytes from fd (retrying short reads), fewer only at the end of the
// file; the count read, or -1 with errno set.
ssize_t gg_fd_read_all(int fd, void* data, size_t size);

// Creates a directory and its missing parents (mkdir -p): the directory itself with mode,
// missing parents with 0755 (both less the umask). An existing directory is left as it is.
gg_status gg_make_dirs(const char* path, mode_t mode);

// Creates (or replaces) path holding exactly data.
gg_status gg_file_write(const char* path, const void* data, size_t size);
// Writes a whole file or nothing: a private temporary file beside it, synced, then renamed
// over path, so a reader never sees part of it. mode is the file's permissions (umask
// applies).
gg_status gg_file_write_atomic(const char* path, const void* data, size_t size, mode_t mode);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_FILES_H_
