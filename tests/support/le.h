// Reading little-endian fields out of byte images (packets, kernel arguments, files).
#ifndef GG_TESTS_SUPPORT_LE_H_
#define GG_TESTS_SUPPORT_LE_H_

#include <cstdint>

namespace gg_test {

inline uint64_t Le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_LE_H_
