// Descriptors for the suites: a layout on a target with the FP8 flavour that target takes.
#ifndef GG_TESTS_SUPPORT_DESC_H_
#define GG_TESTS_SUPPORT_DESC_H_

#include <cstdint>

#include "gg/op.h"

namespace gg_test {

inline gg_op_desc ChipDesc(gg_layout layout, gg_target target, int64_t n, int64_t k, int64_t g) {
  gg_op_desc d = {};
  d.layout = layout;
  d.fp8 = target == GG_TARGET_GFX942 ? GG_FP8_E4M3FNUZ : GG_FP8_E4M3FN;
  d.n = n;
  d.k = k;
  d.g = g;
  d.target = target;
  return d;
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_DESC_H_
