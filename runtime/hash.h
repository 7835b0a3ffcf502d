// 64-bit FNV-1a: cache file names and checksums, output checksums in the checks.
#ifndef GG_RUNTIME_HASH_H_
#define GG_RUNTIME_HASH_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t gg_fnv1a64(const void* data, size_t size);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_HASH_H_
