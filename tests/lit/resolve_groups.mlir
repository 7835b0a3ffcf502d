// gg-resolve-groups: the only layout-aware lowering. Packed layouts scan the metadata on
// the device; slab layouts index it by the grid's z; batched reads nothing.
// RUN: %gg compile --op stacked --groups 1,2,3 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=SIZES
// RUN: %gg compile --op mm --ranks 2d3d --groups 1,2,3 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=OFFSETS
// RUN: %gg compile --op dynamic --groups 1,2,3 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=PADDED
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4,4 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=BATCHED
// RUN: %gg compile --op mm --ranks 3d2d --groups 8,504,128 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=NSPLIT
// RUN: %gg compile --op mm --ranks 2d2d --groups 16,512,128 --N 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=KSPLIT

// sizes: int64 counts, a running row start, ceil(count / tile_m) tiles per group.
// SIZES-NOT: gg.resolve_group
// SIZES: "gg.grid"
// SIZES-NEXT: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// SIZES: %[[SCAN:.*]]:7 = scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[FOUND:.*]] = %false, {{.*}}, %[[TBASE:.*]] = %{{.*}}, %[[CURSOR:.*]] = %{{.*}})
// SIZES: %[[RAW:.*]] = memref.load %arg4[%[[G]]] : memref<3xi64>
// SIZES: %[[V:.*]] = arith.index_cast %[[RAW]] : i64 to index
// SIZES: arith.maxsi %[[V]]
// SIZES: arith.ceildivsi %{{.*}}, %c128
// SIZES: arith.cmpi slt, %[[BY]], %{{.*}} : index
// SIZES: scf.if %[[SCAN]]#0 {

// offsets: int32 inclusive prefix sums; a group ends at its own entry.
// OFFSETS: scf.for
// OFFSETS: %[[RAW:.*]] = memref.load %arg4[%{{.*}}] : memref<3xi32>
// OFFSETS: arith.index_cast %[[RAW]] : i32 to index
// OFFSETS: arith.ceildivsi
// OFFSETS: scf.if

// padded: one slab per group (grid z); the valid rows come from zero_start_index_M.
// PADDED: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// PADDED-NOT: scf.for
// PADDED: memref.load %arg4[%[[BZ]]] : memref<3xi64>
// PADDED: %[[ROW0:.*]] = arith.muli %[[BY]], %{{.*}} : index
// PADDED: %[[VALID:.*]] = arith.cmpi slt, %[[ROW0]], %{{.*}} : index
// PADDED: scf.if %[[VALID]] {

// batched: no metadata read at all, but rows are still bounded by the slab.
// BATCHED: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// BATCHED-NOT: memref.load
// BATCHED: %[[ROW0:.*]] = arith.muli %[[BY]], %{{.*}} : index
// BATCHED: arith.cmpi slt, %[[ROW0]], %dim : index
// BATCHED: arith.subi %dim, %[[ROW0]] : index
// BATCHED: scf.if

// n_offsets: the scan runs over N blocks (the grid's x), tiles of tile_n columns.
// NSPLIT: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// NSPLIT: scf.for
// NSPLIT: memref.load %arg4[%{{.*}}] : memref<3xi32>
// NSPLIT: arith.cmpi slt, %[[BX]], %{{.*}} : index
// NSPLIT: scf.if

// k_offsets: the group is grid z; its K range [k_lo, k_hi) is read and clamped to K.
// KSPLIT: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// KSPLIT-NOT: scf.for
// KSPLIT: memref.load %arg4[%{{.*}}] : memref<3xi32>
// KSPLIT: memref.load %arg4[%[[BZ]]] : memref<3xi32>
// KSPLIT: %[[FIRST:.*]] = arith.cmpi eq, %[[BZ]], %{{.*}} : index
// KSPLIT: arith.select %[[FIRST]]
// KSPLIT: %[[KLO:.*]] = arith.minsi %{{.*}}, %c656 : index
// KSPLIT: %[[KHI:.*]] = arith.minsi %{{.*}}, %c656 : index
// KSPLIT: scf.for %{{.*}} = %{{.*}} to %[[KHI]] step
// KSPLIT: "gg.load_tile"({{.*}}, %[[KLO]], %[[KHI]])
