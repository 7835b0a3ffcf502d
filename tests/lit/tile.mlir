// gg-select-config makes the tile explicit; gg-tile turns the op into a grid of tiles:
// a group lookup per tile, the K loop of loads and mma, and the epilogue.
// RUN: %gg-opt %s -p gg-select-config | FileCheck %s --check-prefix=CONFIG
// RUN: %gg-opt %s -p gg-select-config,gg-tile | FileCheck %s

// CONFIG: "gg.grouped_matmul"
// CONFIG-SAME: tile_k = 128 : i64, tile_m = 128 : i64, tile_n = 128 : i64, waves_per_eu = 2 : i64

// CHECK-LABEL: func.func @stacked
// CHECK-NOT: gg.grouped_matmul
// CHECK: %[[ROWS:.*]] = memref.dim %arg0, %c0
// CHECK: %[[B2:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1], [2]] : memref<4x256x512xf8E4M3FN> into memref<1024x512xf8E4M3FN>
// Packed groups: their ends, once per launch, for the tiles' binary search.
// CHECK: %[[ENDS:.*]] = "gg.group_ends"(%arg4, %arg0) {layout = "sizes", n = 256 : i64} : (memref<4xi64>, memref<?x512xf8E4M3FN>) -> memref<4xi64>
// Grid: N/tile_n blocks by total_M/tile_m + G tiles.
// CHECK: %[[GX:.*]] = arith.constant 2 : index
// CHECK: %[[Q:.*]] = arith.divsi %[[ROWS]], %{{.*}} : index
// CHECK: %[[GY:.*]] = arith.addi %[[Q]], %{{.*}} : index
// CHECK: "gg.grid"(%[[GX]], %[[GY]], %{{.*}}) ({
// CHECK: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// CHECK: %[[F:.*]]:15 = "gg.resolve_group"(%[[BX]], %[[BY]], %[[BZ]], %[[ROWS]], %[[ENDS]]) {g = 4 : i64, k = 512 : i64, layout = "sizes", n = 256 : i64, scaling = "rowwise", tile_m = 128 : i64, tile_n = 128 : i64}
// CHECK: scf.if %[[F]]#0 {
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[F]]#9 step %{{.*}} iter_args(%[[ACCI:.*]] = %{{.*}}) -> (vector<128x128xf32>)
// CHECK: %[[AT:.*]] = "gg.load_tile"(%{{.*}}, %[[F]]#2, %[[F]]#3, %[[K]], %[[F]]#8, %[[F]]#9) {mask_k = true, mask_rows = true, operand = "a"} {{.*}} -> vector<128x128xf8E4M3FN>
// CHECK: %[[BT:.*]] = "gg.load_tile"(%[[B2]], %[[F]]#5, %[[F]]#6, %[[K]], %[[F]]#8, %[[F]]#9) {mask_k = true, mask_rows = true, operand = "b"}
// CHECK: %[[NEXT:.*]] = "gg.mma_tile"(%[[AT]], %[[BT]], %[[ACCI]])
// CHECK: scf.yield %[[NEXT]]
// CHECK: } {gg.lds_buffers = 1 : i64, gg.loop = "rolled", gg.prefetch = 1 : i64}
// CHECK: "gg.epilogue"(%[[ACC]], %{{.*}}, %{{.*}}, %{{.*}}, %[[F]]#4, %[[F]]#3, %[[F]]#7, %[[F]]#6, %[[F]]#10, %[[F]]#12, %[[F]]#13) {mask_cols = true, mask_rows = true, scaling = "rowwise"}
// CHECK: gpu.yield
func.func @stacked(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// The blockwise form loads scales per K tile and scales inside the mma.
// CHECK-LABEL: func.func @blockwise
// CHECK: "gg.load_scales"
// CHECK-SAME: -> (vector<1x128xf32>, vector<1x128xf32>)
// CHECK: "gg.mma_scaled_tile"
// CHECK: "gg.epilogue"
// CHECK-SAME: scaling = "blockwise"
func.func @blockwise(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x4x2xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "blockwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x4x2xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}
