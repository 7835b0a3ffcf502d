// gg-k-loop: rolled (prefetch, peeled tail) and unrolled forms of the K loop.
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 512 | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=ROLLED
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 128 | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=ONE
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 512 --loop unrolled | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=UNROLLED
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 512 | %gg-opt -p "gg-tile,gg-resolve-groups,gg-k-loop{mode=unrolled}" | FileCheck %s --check-prefix=UNROLLED
// RUN: %gg compile --op mm --ranks 2d2d --groups 16,512,128 --N 256 | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=DYNAMIC
// RUN: %gg compile --op mm --ranks 2d2d --groups 16,512,128 --N 256 | not %gg-opt -p "gg-tile,gg-resolve-groups,gg-k-loop{mode=unrolled}" 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: not %gg-opt %s -p "gg-k-loop{mode=sideways}" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 1024 --target gfx950 --emit op | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=AHEAD
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 256 --K 1280 --target gfx950 --scaling blockwise --tile 128x256x128 --wpe 1 --emit op | %gg-opt -p gg-tile,gg-resolve-groups,gg-k-loop | FileCheck %s --check-prefix=THREE

// K = 512, tile_k = 128: four tiles. Tile 0 is loaded before the loop; the loop computes
// tiles 0 and 1 while prefetching 1 and 2; tile 3 is loaded after it, then 2 and 3 are
// computed.
// ROLLED: %[[A0:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %[[K0:c0[_0-9]*]],
// ROLLED: %[[B0:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %[[K0]],
// ROLLED: %[[LOOP:.*]]:3 = scf.for %[[K:.*]] = %{{.*}} to %c256{{[_0-9]*}} step %[[STEP:.*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[CA:.*]] = %[[A0]], %[[CB:.*]] = %[[B0]])
// ROLLED: %[[KN:.*]] = arith.addi %[[K]], %[[STEP]] : index
// ROLLED: %[[AN:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %[[KN]],
// ROLLED: %[[BN:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %[[KN]],
// ROLLED: %[[M:.*]] = "gg.mma_tile"(%[[CA]], %[[CB]], %[[ACC]])
// ROLLED: scf.yield %[[M]], %[[AN]], %[[BN]]
// ROLLED: } {gg.loop = "prefetch"}
// ROLLED: %[[K3:c384[_0-9]*]] = arith.constant 384 : index
// ROLLED: %[[AL:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %[[K3]],
// ROLLED: %[[BL:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %[[K3]],
// ROLLED: %[[M2:.*]] = "gg.mma_tile"(%[[LOOP]]#1, %[[LOOP]]#2, %[[LOOP]]#0)
// ROLLED: %[[M3:.*]] = "gg.mma_tile"(%[[AL]], %[[BL]], %[[M2]])
// ROLLED: "gg.epilogue"(%[[M3]],

// One tile: a single straight-line step.
// ONE: scf.if
// ONE-NOT: scf.for
// ONE: "gg.load_tile"
// ONE: "gg.load_tile"
// ONE: "gg.mma_tile"
// ONE-NOT: "gg.mma_tile"
// ONE: "gg.epilogue"

// Unrolled: one step per tile at constant K offsets, in order, no loop.
// UNROLLED: scf.if
// UNROLLED-NOT: scf.for
// UNROLLED: "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c0{{[_0-9]*}},
// UNROLLED: "gg.mma_tile"
// UNROLLED: "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c128{{[_0-9]*}},
// UNROLLED: "gg.mma_tile"
// UNROLLED: "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c256{{[_0-9]*}},
// UNROLLED: "gg.mma_tile"
// UNROLLED: "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c384{{[_0-9]*}},
// UNROLLED: "gg.mma_tile"
// UNROLLED-NOT: "gg.mma_tile"
// UNROLLED: "gg.epilogue"

// k_offsets: the trip count is a runtime value, so the loop runs to the last tile's
// start (computed on the device) and one tile is peeled.
// DYNAMIC: scf.if
// DYNAMIC: %[[A0:.*]] = "gg.load_tile"
// DYNAMIC: arith.ceildivsi
// DYNAMIC: %[[LAST:.*]] = arith.addi
// DYNAMIC: %[[LOOP:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %[[LAST]] step
// DYNAMIC: } {gg.loop = "prefetch"}
// DYNAMIC: %[[M:.*]] = "gg.mma_tile"(%[[LOOP]]#1, %[[LOOP]]#2, %[[LOOP]]#0)
// DYNAMIC-NOT: "gg.mma_tile"
// DYNAMIC: "gg.epilogue"(%[[M]],

// REFUSED: error: gg-k-loop: cannot unroll a K loop whose trip count is a runtime value (the k_offsets layout); use the rolled form
// BADOPT: invalid pipeline: gg-k-loop: mode must be auto, rolled or unrolled, not 'sideways'

// Two LDS buffers with plain B (gfx950, gg.lds_buffers = 2, gg.prefetch = 2): the loads
// run two tiles ahead. K = 1024: eight tiles. Tiles 0 and 1 are loaded, then tile 2, and
// tile 0 is computed (buffer 0); the loop takes pairs (1, 2) and (3, 4), each tile's mma
// after the loads of the tile two ahead, carrying two tiles' loads; tile 7 is loaded and
// 5, 6, 7 are peeled, the buffers alternating throughout.
// AHEAD: %[[A0:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c0{{[_0-9]*}},
// AHEAD: %[[B0:.*]] = "gg.load_tile"
// AHEAD: %[[A1:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c128{{[_0-9]*}},
// AHEAD: %[[B1:.*]] = "gg.load_tile"
// AHEAD: %[[A2:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c256{{[_0-9]*}},
// AHEAD: %[[B2:.*]] = "gg.load_tile"
// AHEAD: %[[M0:.*]] = "gg.mma_tile"(%[[A0]], %[[B0]], %{{.*}}) {gg.lds_buffer = 0 : i64}
// AHEAD: %[[LOOP:.*]]:5 = scf.for %[[K:.*]] = %c128{{[_0-9]*}} to %c640{{[_0-9]*}} step %c256{{[_0-9]*}} iter_args(%[[ACC:.*]] = %[[M0]], %[[QA:.*]] = %[[A1]], %[[QB:.*]] = %[[B1]], %[[RA:.*]] = %[[A2]], %[[RB:.*]] = %[[B2]])
// AHEAD: %[[AN:.*]] = "gg.load_tile"
// AHEAD: %[[BN:.*]] = "gg.load_tile"
// AHEAD: %[[M1:.*]] = "gg.mma_tile"(%[[QA]], %[[QB]], %[[ACC]]) {gg.lds_buffer = 1 : i64}
// AHEAD: %[[AN2:.*]] = "gg.load_tile"
// AHEAD: %[[BN2:.*]] = "gg.load_tile"
// AHEAD: %[[M2:.*]] = "gg.mma_tile"(%[[RA]], %[[RB]], %[[M1]]) {gg.lds_buffer = 0 : i64}
// AHEAD: scf.yield %[[M2]], %[[AN]], %[[BN]], %[[AN2]], %[[BN2]]
// AHEAD: } {gg.loop = "prefetch"}
// AHEAD: %[[A7:.*]] = "gg.load_tile"(%{{.*}}, %{{.*}}, %{{.*}}, %c896{{[_0-9]*}},
// AHEAD: %[[B7:.*]] = "gg.load_tile"
// AHEAD: %[[M5:.*]] = "gg.mma_tile"(%[[LOOP]]#1, %[[LOOP]]#2, %[[LOOP]]#0) {gg.lds_buffer = 1 : i64}
// AHEAD: %[[M6:.*]] = "gg.mma_tile"(%[[LOOP]]#3, %[[LOOP]]#4, %[[M5]]) {gg.lds_buffer = 0 : i64}
// AHEAD: "gg.mma_tile"(%[[A7]], %[[B7]], %[[M6]]) {gg.lds_buffer = 1 : i64}
// AHEAD-NOT: "gg.mma_tile"

// Three LDS buffers (gfx950 blockwise plain B by LDS DMA: gg.lds_buffers = 3, gg.prefetch
// = 2). K = 1280: ten tiles. Tiles 0, 1 and 2 are loaded (buffers 0, 1, 2) before tile 0
// computes; the loop takes threes (1, 2, 3) and (4, 5, 6), each tile's mma after the loads
// of the tile two ahead, so every tile's buffer is the same in every iteration; tile 9 is
// loaded and 7, 8, 9 are peeled. Every mma but the last says the next tile's loads were
// issued before it.
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 0 : i64{{.*}}operand = "a"
// THREE: "gg.load_scales"({{.*}}gg.lds_buffer = 0 : i64
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 1 : i64{{.*}}operand = "a"
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 2 : i64{{.*}}operand = "a"
// THREE: "gg.mma_scaled_tile"({{.*}}) {gg.lds_buffer = 0 : i64, gg.next_loaded = true}
// THREE: scf.for %{{.*}} = %c128{{[_0-9]*}} to %c896{{[_0-9]*}} step %c384{{[_0-9]*}}
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 0 : i64{{.*}}operand = "a"
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 0 : i64{{.*}}operand = "b"
// THREE: "gg.load_scales"({{.*}}gg.lds_buffer = 0 : i64
// THREE: "gg.mma_scaled_tile"({{.*}}) {gg.lds_buffer = 1 : i64, gg.next_loaded = true}
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 1 : i64{{.*}}operand = "a"
// THREE: "gg.mma_scaled_tile"({{.*}}) {gg.lds_buffer = 2 : i64, gg.next_loaded = true}
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 2 : i64{{.*}}operand = "a"
// THREE: "gg.mma_scaled_tile"({{.*}}) {gg.lds_buffer = 0 : i64, gg.next_loaded = true}
// THREE: scf.yield
// THREE: } {gg.loop = "prefetch"}
// THREE: "gg.load_tile"({{.*}}gg.lds_buffer = 0 : i64{{.*}}operand = "a"
// THREE: "gg.mma_scaled_tile"({{.*}}) {gg.lds_buffer = 1 : i64, gg.next_loaded = true}
// THREE-NOT: "gg.load_tile"
// THREE: "gg.mma_scaled_tile"({{.*}}) {gg.lds_buffer = 2 : i64, gg.next_loaded = true}
// THREE: "gg.mma_scaled_tile"({{.*}}) {gg.lds_buffer = 0 : i64, gg.next_loaded = false}
// THREE-NOT: "gg.mma_scaled_tile"
