// The on-disk half of the compile cache: one file per key, written atomically, checked
// in full before anything is loaded from it.
//
// A file is a header (magic "GGCACHE\0", format version, key and payload lengths, the
// payload's FNV-1a checksum), the key, then the payload. A file that is short, long,
// for another key or fails its checksum is corrupt: it is deleted and reported, never
// returned. So is an entry that is not a regular file (a link is not followed, a FIFO
// not waited on), one that someone else could have written (another owner, or writable
// by group or others), and one whose header claims a payload over
// GG_DISK_CACHE_MAX_PAYLOAD: the header and the file's size must agree before the rest is
// read, so a lookup reads at most that much.
#ifndef GG_API_DISK_CACHE_H_
#define GG_API_DISK_CACHE_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/text.h"
#include "gg/status.h"
#include "runtime/hash.h"

#ifdef __cplusplus
extern "C" {
#endif

// The largest payload an entry may hold: a kernel is a few megabytes, never this.
#define GG_DISK_CACHE_MAX_PAYLOAD ((uint64_t)1 << 30)

typedef enum gg_disk_lookup {
  GG_DISK_MISS = 0,  // no file for the key
  GG_DISK_HIT,       // payload appended to the output
  GG_DISK_CORRUPT,   // a bad or untrusted entry was found and deleted; *why says why
} gg_disk_lookup;

// The file a key is stored in: <dir>/<fnv-1a-64 of key>.ggc.
void gg_disk_cache_path(const char* dir, const char* key, char* buffer, size_t size);

// Creates dir (0700) if it is missing and checks that only this user can have written
// it: it must be a directory owned by the effective user and not writable by group or
// others. A symbolic link is followed when the user owns it; the directory it names must
// pass the same check. An error says why dir must not be used.
gg_status gg_disk_cache_prepare(const char* dir);

// Looks key up in dir. I/O errors other than a missing file are statuses.
gg_status gg_disk_cache_load(const char* dir, const char* key, gg_text* payload,
                             gg_disk_lookup* result, char* why, size_t why_size);

// Stores payload under key, creating dir (0700) if needed; readers never see a partial
// file. The entry is created 0600.
gg_status gg_disk_cache_store(const char* dir, const char* key, const void* payload,
                              size_t size);

#ifdef __cplusplus
}
#endif

#endif  // GG_API_DISK_CACHE_H_
