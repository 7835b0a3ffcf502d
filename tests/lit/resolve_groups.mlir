// gg-resolve-groups: the only layout-aware lowering. Packed layouts binary-search the
// group ends that gg.group_ends computes once per launch; slab layouts index the metadata
// by the grid's z; batched reads nothing.
// RUN: %gg compile --op stacked --groups 1,2,3 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=SIZES
// RUN: %gg compile --op mm --ranks 2d3d --groups 1,2,3 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=OFFSETS
// RUN: %gg compile --op dynamic --groups 1,2,3 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=PADDED
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4,4 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=BATCHED
// RUN: %gg compile --op mm --ranks 3d2d --groups 8,504,128 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=NSPLIT
// RUN: %gg compile --op mm --ranks 2d2d --groups 16,512,128 --N 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=KSPLIT
// RUN: %gg compile --op stacked --groups 1*1000 --N 256 --K 256 | %gg-opt -p gg-tile,gg-resolve-groups | FileCheck %s --check-prefix=MANY

// sizes: the ends of the groups once per launch, then per tile a binary search of
// bit_length(3) = 2 steps for the last group whose first slot (start / tile_m + g) is at
// most the tile's y index; ceil(extent / tile_m) slots per group.
// SIZES: %[[ENDS:.*]] = "gg.group_ends"(%arg4, %arg0) {layout = "sizes", n = 256 : i64} : (memref<3xi64>, memref<?x256xf8E4M3FN>) -> memref<3xi64>
// SIZES-NOT: gg.resolve_group
// SIZES: "gg.grid"
// SIZES-NEXT: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// SIZES: %[[BS:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[LO:.*]] = %{{.*}}, %[[HI:.*]] = %{{.*}}) -> (index, index)
// SIZES: %[[MID:.*]] = arith.divui
// SIZES: memref.load %[[ENDS]][%{{.*}}] : memref<3xi64>
// SIZES: arith.divsi %{{.*}}, %c128
// SIZES: %[[LE:.*]] = arith.cmpi sle, %{{.*}}, %[[BY]] : index
// SIZES: arith.select %[[LE]], %[[MID]], %[[LO]] : index
// SIZES: arith.select %[[LE]], %[[HI]], %[[MID]] : index
// SIZES: memref.load %[[ENDS]][%{{.*}}] : memref<3xi64>
// SIZES: arith.ceildivsi %{{.*}}, %c128
// SIZES: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// SIZES: scf.if %[[VALID]] {

// offsets: the same search; the group ends come from the int32 prefix ends.
// OFFSETS: "gg.group_ends"(%arg4, %arg0) {layout = "offsets", n = 256 : i64} : (memref<3xi32>, memref<?x256xf8E4M3FN>) -> memref<3xi64>
// OFFSETS: scf.for
// OFFSETS: arith.ceildivsi
// OFFSETS: scf.if

// 1000 groups: bit_length(1000) = 10 steps, O(log G) loads per tile.
// MANY: "gg.group_ends"{{.*}} -> memref<1000xi64>
// MANY: arith.constant 10 : index
// MANY: scf.for

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

// n_offsets: the search runs over N blocks (the grid's x), tiles of tile_n columns.
// NSPLIT: %[[ENDS:.*]] = "gg.group_ends"(%arg4, %arg0) {layout = "n_offsets", n = 640 : i64}
// NSPLIT: ^bb0(%[[BX:.*]]: index, %[[BY:.*]]: index, %[[BZ:.*]]: index):
// NSPLIT: scf.for
// NSPLIT: memref.load %[[ENDS]][%{{.*}}] : memref<3xi64>
// NSPLIT: arith.cmpi sle, %{{.*}}, %[[BX]] : index
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
