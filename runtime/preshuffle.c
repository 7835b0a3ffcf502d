// The MFMA B-preshuffle as a permutation of a 5-D view: [rows, K] read as
// (N0, NLane 16, K0, KLane 4, KPack 16) and written as (N0, K0, KLane, NLane, KPack).
#include <string.h>

#include "gg/op.h"

gg_status gg_preshuffle_b_bytes(const uint8_t* src, uint8_t* dst, int64_t rows, int64_t k,
                                int inverse) {
  if (!src || !dst) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "preshuffle: NULL buffer");
  if (rows < 0 || rows % 16 != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "preshuffle: N must be a multiple of 16 (the fragment's 16 columns), "
                          "got %lld rows",
                          (long long)rows);
  if (k < 0 || k % 64 != 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT,
                          "preshuffle: K must be a multiple of 64 (the fragment's 64 K), got %lld",
                          (long long)k);
  const int64_t n0_count = rows / 16, k0_count = k / 64;
  for (int64_t n0 = 0; n0 < n0_count; ++n0)
    for (int64_t nl = 0; nl < 16; ++nl)
      for (int64_t k0 = 0; k0 < k0_count; ++k0)
        for (int64_t kl = 0; kl < 4; ++kl) {
          // 16 contiguous bytes (KPack) move as one.
          int64_t plain = (n0 * 16 + nl) * k + k0 * 64 + kl * 16;
          int64_t shuffled = (((n0 * k0_count + k0) * 4 + kl) * 16 + nl) * 16;
          if (inverse) memcpy(dst + plain, src + shuffled, 16);
          else memcpy(dst + shuffled, src + plain, 16);
        }
  return GG_OK;
}
