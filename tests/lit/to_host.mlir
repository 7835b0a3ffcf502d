// gg-to-host: the grid becomes a loop nest, tiles become buffers, loads decode FP8 to
// f32 (masked loads only where gg-mask kept a bound), the epilogue rounds to bf16.
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 | %gg-opt -p gg-tile-level,gg-to-host | FileCheck %s
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --fp8 e4m3fnuz | %gg-opt -p gg-tile-level,gg-to-host | FileCheck %s --check-prefix=FNUZ
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --scaling blockwise | %gg-opt -p gg-tile-level,gg-to-host | FileCheck %s --check-prefix=BLOCKWISE

// CHECK-LABEL: func.func @gg_sizes_rowwise
// CHECK-NOT: "gg.
// Buffers are allocated once per call, before the grid.
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<128x128xf32>
// The group ends: one loop over the counts, each clamped to [0, total] and added, the
// running end clamped to the total.
// CHECK: %[[ENDS:.*]] = memref.alloc() : memref<2xi64>
// CHECK: scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PREV:.*]] = %{{.*}}) -> (index)
// CHECK: memref.load %arg4[%[[G]]] : memref<2xi64>
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.addi %[[PREV]]
// CHECK: arith.minsi
// CHECK: memref.store %{{.*}}, %[[ENDS]][%[[G]]] : memref<2xi64>
// CHECK: scf.for %[[Z:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: scf.for %[[X:.*]] = %{{.*}} to %{{.*}} step
// A's rows are bounded by the group: a masked load.
// CHECK: vector.maskedload {{.*}} : memref<?x512xf8E4M3FN>, vector<16xi1>, vector<16xf8E4M3FN> into vector<16xf8E4M3FN>
// B divides the tile: a plain load.
// CHECK: vector.load {{.*}} : memref<512x512xf8E4M3FN>, vector<16xf8E4M3FN>
// OCP decode: magnitude bits times 2^120 (0x7B800000), NaN at 0x7F.
// CHECK: arith.constant dense<2071986176> : vector<16xi32>
// The mma: 16-wide fused multiply-adds, then an ordered reduction.
// CHECK: vector.fma
// CHECK: vector.reduction <add>
// Rowwise scales after the K loop: (acc * x_scale) * w_scale, then bf16 (RNE).
// CHECK: %[[AX:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.mulf %[[AX]], %{{.*}} : f32
// CHECK: arith.constant 32767 : i32
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x256xbf16>
// CHECK: memref.dealloc %[[ENDS]] : memref<2xi64>
// CHECK: memref.dealloc
// CHECK: return

// FNUZ: arith.constant dense<2063597568> : vector<16xi32>

// Blockwise: scales gathered per K tile, applied per 128-wide block inside the mma.
// BLOCKWISE: arith.floordivsi %{{.*}}, %c128
// BLOCKWISE: vector.reduction <add>
// BLOCKWISE: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x128xf32>
// BLOCKWISE: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x128xf32>
// BLOCKWISE: arith.mulf
// BLOCKWISE: arith.mulf
