// Boundary shapes per layout and scaling, shared by the host and sim suites.
#ifndef GG_TESTS_SUPPORT_SHAPES_H_
#define GG_TESTS_SUPPORT_SHAPES_H_

#include <vector>

#include "tests/support/test_util.h"

namespace gg_test {

// A boundary case of a layout: group extents, the grouped extent m, N and K, a tile.
struct Shape {
  const char* name;
  std::vector<int64_t> extents;
  int64_t m, n, k;  // GG_DYNAMIC for N or K: the sum of the extents
  gg_tile_config tile;
  int alternate_constant;

  Spec spec(gg_layout layout, gg_scaling scaling, gg_data_kind data) const {
    Spec s;
    s.layout = layout;
    s.scaling = scaling;
    s.data = data;
    s.extents = extents;
    s.m = m;
    int64_t sum = 0;
    for (int64_t e : extents) sum += e;
    s.n = n == GG_DYNAMIC ? sum : n;
    s.k = k == GG_DYNAMIC ? sum : k;
    s.tile = tile;
    s.alternate_constant = alternate_constant;
    s.seed = 3;
    return s;
  }
};

constexpr gg_tile_config kDefault = {0, 0, 0, 0, GG_LOOP_ROLLED, 0};
constexpr gg_tile_config kTile256 = {256, 256, 256, 0, GG_LOOP_ROLLED, 0};
constexpr gg_tile_config kTile64 = {64, 64, 128, 0, GG_LOOP_ROLLED, 0};

// Shapes per layout, for rowwise (any N % 8, K % 16) or blockwise (N, K % 128) scaling.
inline std::vector<Shape> ShapesFor(gg_layout layout, gg_scaling scaling) {
  const bool bw = scaling == GG_SCALING_BLOCKWISE;
  // N and K tails: not multiples of the tile (rowwise: not even of 128).
  const int64_t tail_n = bw ? 384 : 200, tail_k = bw ? 640 : 400;
  const gg_tile_config tail_tile = bw ? kTile256 : kDefault;
  switch (layout) {
    case GG_LAYOUT_SIZES:
    case GG_LAYOUT_OFFSETS:
      return {
          {"issue_example", {0, 1, 130, 64}, GG_DYNAMIC, 256, 512, kDefault, 0},
          {"first_and_last_empty", {0, 77, 128, 0}, GG_DYNAMIC, 256, 256, kDefault, 0},
          {"one_row_groups", {1, 1, 1}, GG_DYNAMIC, 256, 256, kDefault, 0},
          {"not_tile_multiples", {129, 255, 257}, GG_DYNAMIC, 256, 256, kDefault, 0},
          {"smaller_than_tile", {3, 17, 40}, GG_DYNAMIC, 128, 256, kTile64, 0},
          {"rows_past_groups", {30, 0, 100}, 200, 256, 256, kDefault, 0},
          {"n_and_k_tails", {70, 0, 190}, GG_DYNAMIC, tail_n, tail_k, tail_tile, 0},
      };
    case GG_LAYOUT_PADDED:
      return {
          {"valid_rows_mixed", {0, 1, 128, 77}, 128, 256, 256, kDefault, 0},
          {"slab_not_tile_multiple", {200, 0, 13}, 200, 256, 256, kDefault, 0},
          {"all_full", {64, 64}, 64, 256, 256, kTile64, 0},
          {"n_and_k_tails", {90, 33}, 100, tail_n, tail_k, tail_tile, 0},
      };
    case GG_LAYOUT_BATCHED:
      return {
          {"slab_1", {1, 1, 1, 1}, 1, 256, 256, kDefault, 0},
          {"slab_64", {64, 64, 64, 64}, 64, 256, 256, kDefault, 0},
          {"slab_100", {100, 100, 100, 100}, 100, 256, 256, kDefault, 0},
          {"slab_192", {192, 192, 192, 192}, 192, 256, 256, kDefault, 0},
          {"slab_255", {255, 255, 255, 255}, 255, 256, 256, kDefault, 0},
          {"n_and_k_tails", {50, 50}, 50, tail_n, tail_k, tail_tile, 0},
      };
    case GG_LAYOUT_N_OFFSETS:
      if (bw)
        return {
            {"groups_straddle_blocks", {264, 256, 248}, 128, 768, 256, kDefault, 0},
            {"empty_first_and_last", {0, 128, 384, 0}, 64, 512, 256, kDefault, 0},
            {"k_tail", {200, 184}, 100, 384, 640, kTile256, 0},
            {"narrow_groups", {8, 504, 128, 128}, 32, 768, 256, kDefault, 1},
        };
      return {
          {"264_264", {264, 264}, 128, GG_DYNAMIC, 256, kDefault, 0},
          {"8_504_128", {8, 504, 128}, 128, GG_DYNAMIC, 256, kDefault, 1},
          {"1024_264_8", {1024, 264, 8}, 128, GG_DYNAMIC, 256, kDefault, 0},
          {"not_multiples_of_8", {5, 250, 3}, 64, GG_DYNAMIC, 256, kDefault, 1},
          {"first_and_last_empty", {0, 136, 0}, 64, GG_DYNAMIC, 256, kDefault, 0},
          {"columns_past_groups", {40, 60}, 32, 200, 256, kDefault, 0},
          {"k_tail", {100, 100}, 77, GG_DYNAMIC, 400, kDefault, 0},
      };
    case GG_LAYOUT_K_OFFSETS:
      return {
          {"288x4", {288, 288, 288, 288}, 128, 256, GG_DYNAMIC, kDefault, 0},
          {"16_512_128_368", {16, 512, 128, 368}, 128, 256, GG_DYNAMIC, kDefault, 1},
          {"0_256_256_512", {0, 256, 256, 512}, 128, 256, GG_DYNAMIC, kDefault, 1},
          {"not_multiples_of_16", {17, 100, 3}, 100, 256, 128, kDefault, 1},
          {"last_empty", {384, 128, 0}, 64, 256, GG_DYNAMIC, kTile256, 1},
          {"n_tail", {200, 56}, 90, tail_n, GG_DYNAMIC, tail_tile, 0},
      };
    default:
      return {};
  }
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_SHAPES_H_
