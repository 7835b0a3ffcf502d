// Preshuffled B: gg-tile marks B's loads b_preshuffled; gg-k-loop rolls the K loop by
// pairs of tiles whose mmas carry their LDS buffer (the tile's parity), leaving one tile
// after the loop (an even count also peels the first); gg-to-amdgpu loads B straight into
// registers and stages only A.
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 512 --b preshuffled | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=EVEN
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 640 --b preshuffled | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=ODD
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 384 --b preshuffled --loop unrolled | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=UNROLLED
// RUN: %gg compile --op stacked --groups 4,4 --N 256 --K 512 --b preshuffled --target gfx950 --emit target | FileCheck %s --check-prefix=AMD
// RUN: not %gg compile --op mm --ranks 3d2d --groups 128,128 --M 64 --K 256 --b preshuffled 2>&1 | FileCheck %s --check-prefix=REFUSED

// 4 tiles: tile 0 in front, the pair (1, 2) in the loop, tile 3 after it.
// EVEN: operand = "b_preshuffled"
// EVEN: "gg.mma_tile"{{.*}}{gg.lds_buffer = 0 : i64}
// EVEN: scf.for %{{.*}} = %c128{{.*}} to %c384{{.*}} step %c256
// EVEN: "gg.mma_tile"{{.*}}{gg.lds_buffer = 1 : i64}
// EVEN: "gg.mma_tile"{{.*}}{gg.lds_buffer = 0 : i64}
// EVEN: } {gg.loop = "prefetch"}
// EVEN: "gg.mma_tile"{{.*}}{gg.lds_buffer = 1 : i64}
// EVEN-NOT: gg.mma_tile

// 5 tiles: pairs (0, 1) and (2, 3) in the loop, tile 4 after it.
// ODD-NOT: gg.mma_tile
// ODD: scf.for %{{.*}} = %c0{{.*}} to %c512{{.*}} step %c256
// ODD: "gg.mma_tile"{{.*}}{gg.lds_buffer = 0 : i64}
// ODD: "gg.mma_tile"{{.*}}{gg.lds_buffer = 1 : i64}
// ODD: } {gg.loop = "prefetch"}
// ODD: "gg.mma_tile"{{.*}}{gg.lds_buffer = 0 : i64}
// ODD-NOT: gg.mma_tile

// UNROLLED-NOT: scf.for {{.*}}step %c128
// UNROLLED: "gg.mma_tile"{{.*}}{gg.lds_buffer = 0 : i64}
// UNROLLED: "gg.mma_tile"{{.*}}{gg.lds_buffer = 1 : i64}
// UNROLLED: "gg.mma_tile"{{.*}}{gg.lds_buffer = 0 : i64}

// B comes from the buffer load straight into the MFMA operands; LDS holds A only (two
// 16 KiB buffers, the second at byte 16384).
// AMD: gpu.func
// AMD: amdgpu.raw_buffer_load {{.*}} -> vector<16xf8E4M3FN>
// AMD: amdgpu.mfma 16x16x128
// AMD: gpu.barrier

// REFUSED: error: preshuffled B needs each group to own a whole [N, K] matrix; the n_offsets layout groups along N, which the shuffle interleaves across the whole matrix
