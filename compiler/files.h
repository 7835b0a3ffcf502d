// Whole-file reads and writes for the compiler and the cache.
#ifndef GG_COMPILER_FILES_H_
#define GG_COMPILER_FILES_H_

#include <stddef.h>

#include "compiler/ir.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// Appends the file's bytes to out. A missing file is GG_STATUS_UNAVAILABLE (so callers
// can tell it from a failed read, GG_STATUS_IO).
gg_status gg_file_read(const char* path, gg_text* out);

// Writes all of data to fd (retrying short writes); 0 on success, -1 with errno set.
int gg_fd_write_all(int fd, const void* data, size_t size);

// Creates a directory and its missing parents (mkdir -p).
gg_status gg_make_dirs(const char* path);

// Creates (or replaces) path holding exactly data.
gg_status gg_file_write(const char* path, const void* data, size_t size);

#ifdef __cplusplus
}
#endif

#endif  // GG_COMPILER_FILES_H_
