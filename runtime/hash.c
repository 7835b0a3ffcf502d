// FNV-1a.
#include "runtime/hash.h"

uint64_t gg_fnv1a64(const void* data, size_t size) {
  const uint8_t* p = data;
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 0x100000001b3ull;
  return hash;
}
