// gg-to-nvvm: the tiled IR becomes one sm_90a gpu.func of three warpgroups: a TMA
// producer feeding a ring of stages under full/empty mbarriers, two wgmma consumers, and
// an epilogue staged through the ring; then the NVVM lowering and PTX.
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --emit tiles | %gg-opt -p "gg-to-nvvm" | FileCheck %s --check-prefix=KERNEL
// RUN: %gg compile --op mm --ranks 3d2d --groups 1,130,253 --M 64 --K 512 --target sm_90a --emit tiles | %gg-opt -p "gg-to-nvvm" | FileCheck %s --check-prefix=STRIDED
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --tile 128x256x128 --emit tiles | %gg-opt -p "gg-to-nvvm" | FileCheck %s --check-prefix=WIDE
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --tile 128x256x128 --emit target | FileCheck %s --check-prefix=FAST
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --emit target | FileCheck %s --check-prefix=PINGPONG
// RUN: env GG_SM90_WAIT_LIMIT=7 %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --emit target | FileCheck %s --check-prefix=WAITLIMIT
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --emit target | FileCheck %s --check-prefix=NOWAITLIMIT
// RUN: env GG_SM90_WAIT_LIMIT=7x not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --emit target 2>&1 | FileCheck %s --check-prefix=BADWAITLIMIT
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 1024 --target sm_90a --accum fast --split-k 2 --emit target | FileCheck %s --check-prefix=SPLIT
// RUN: %gg compile --op stacked --groups 1,300 --N 512 --K 512 --target sm_90a --accum fast --tile 256x256x128 --emit target | FileCheck %s --check-prefix=CLUSTER
// RUN: not %gg compile --op stacked --groups 1,300 --N 512 --K 1024 --target sm_90a --tile 256x128x128 --split-k 2 2>&1 | FileCheck %s --check-prefix=CLUSTERSPLIT
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --split-k 2 2>&1 | FileCheck %s --check-prefix=SPLITSHORT
// RUN: not %gg compile --op mm --ranks 2d2d --groups 1,143 --M 200 --N 256 --target sm_90a --split-k 2 2>&1 | FileCheck %s --check-prefix=SPLITKOFF
// RUN: %gg compile --op mm --ranks 2d2d --groups 1,143 --M 200 --N 256 --target sm_90a --emit target | FileCheck %s --check-prefix=KMASK
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --emit target | FileCheck %s --check-prefix=NOKMASK
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --scaling blockwise --target sm_90a --emit target | FileCheck %s --check-prefix=BLOCKWISE
// RUN: %gg compile --op mm --ranks 3d2d --groups 1,130,253 --M 64 --K 512 --scaling blockwise --target sm_90a --emit target | FileCheck %s --check-prefix=SPLITBLOCK
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --tile 128x256x128 --emit target | awk -f %S/Inputs/lane_arrivals.awk | FileCheck %s --check-prefix=ARRIVALS
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --accum fast --emit target | awk -f %S/Inputs/lane_arrivals.awk | FileCheck %s --check-prefix=ARRIVALS
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --emit target | awk -f %S/Inputs/lane_arrivals.awk | FileCheck %s --check-prefix=ARRIVALS
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --scaling blockwise --emit target | awk -f %S/Inputs/lane_arrivals.awk | FileCheck %s --check-prefix=ARRIVALS
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 1024 --target sm_90a --accum fast --split-k 2 --emit target | awk -f %S/Inputs/lane_arrivals.awk | FileCheck %s --check-prefix=ARRIVALS
// RUN: %gg compile --op stacked --groups 1,300 --N 512 --K 512 --target sm_90a --accum fast --tile 256x256x128 --emit target | awk -f %S/Inputs/lane_arrivals.awk | FileCheck %s --check-prefix=ARRIVALS
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --emit llvm-dialect | FileCheck %s --check-prefix=ABI
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target sm_90a --emit ptx | FileCheck %s --check-prefix=PTX
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target gfx950 --emit tiles | not %gg-opt -p "gg-to-nvvm" 2>&1 | FileCheck %s --check-prefix=WRONGTARGET
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --fp8 e4m3fnuz --target sm_90a 2>&1 | FileCheck %s --check-prefix=FNUZ
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --b preshuffled --target sm_90a 2>&1 | FileCheck %s --check-prefix=PRESHUFFLED
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --scaling blockwise --accum fast --target sm_90a 2>&1 | FileCheck %s --check-prefix=BLOCKFAST
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --tile 64x128x128 --target sm_90a 2>&1 | FileCheck %s --check-prefix=TILE

// The tensor maps come first, then the function's operands.
// KERNEL: gpu.func @gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w0_rolled_sm_90a(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<?x512xf8E4M3FN>
// KERNEL-SAME: kernel attributes {gg.tensor_maps = 3 : i64, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32}
// Each role's count of K tiles, first in the function: LLVM's SROA promotes only the entry
// block's allocas (inside the roles' branches one stayed in local memory).
// KERNEL-NEXT: %[[PITER:.*]] = memref.alloca() : memref<1xindex>
// KERNEL-NEXT: %[[CITER:.*]] = memref.alloca() : memref<1xindex>
// The group ends, computed by every CTA into shared memory past the ring (no workspace).
// KERNEL: memref.view %{{.*}} to memref<2xi64, #gpu.address_space<workgroup>>
// KERNEL: memref.view %{{.*}} to memref<384xi64, #gpu.address_space<workgroup>>
// KERNEL: gpu.barrier
// Thread 0 turns the partial ends into chunk starts over the 2 chunks that hold groups
// (not all 384 threads' chunks).
// KERNEL: scf.for %{{.*}} = %{{.*}} to %c2{{(_[0-9]+)?}} step
// KERNEL: gpu.barrier
// Full barriers expect one arrival (the producer's, with the transaction bytes), empty
// ones one per consumer warp.
// KERNEL: nvgpu.mbarrier.init %[[BAR:.*]][%{{.*}}], %{{.*}} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// KERNEL: nvvm.fence.mbarrier.init
// Persistent: each role sets its registers once, then walks the tiles that hold rows
// (densely: rows-packed layouts) from the CTA's block id in steps of the launch's CTAs,
// in panels of 8 tile rows (column by column within a panel), a running pointer over the
// group ends in shared memory finding each panel's group and the tile's a few rows on,
// and counts its K tiles across them.
// KERNEL: gpu.barrier
// KERNEL: %[[FIRST:.*]] = gpu.block_id x
// KERNEL: %[[STEP:.*]] = gpu.grid_dim x
// KERNEL: %[[PGX:.*]] = arith.muli %c8{{[_0-9]*}}, %{{.*}} : index
// KERNEL: nvvm.setmaxregister decrease 40
// KERNEL: scf.while (%[[D:.*]] = %[[FIRST]], %{{.*}} = %c0{{[_0-9]*}}, %{{.*}} = %c0{{[_0-9]*}}) : (index, index, index) -> (index, index, index, index) {
// KERNEL: arith.divui %[[D]], %[[PGX]] : index
// KERNEL: scf.while
// KERNEL: memref.load %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>>
// KERNEL: arith.ceildivui %{{.*}}, %c128{{[_0-9]*}} : index
// KERNEL: scf.condition
// KERNEL: scf.while
// KERNEL: scf.condition
// KERNEL: arith.remui %[[D]], %[[PGX]] : index
// KERNEL: scf.condition
// KERNEL: } do {
// KERNEL: ^bb0(%[[DD:[a-z0-9_]+]]: index, %{{.*}}: index, %{{.*}}: index, %[[PROWS:[a-z0-9_]+]]: index):
// KERNEL: arith.addi %[[DD]], %[[STEP]] : index
// The tile's column: its index within the panel over the panel's rows.
// KERNEL: %[[IDX:.*]] = arith.remui %[[DD]], %[[PGX]] : index
// KERNEL: arith.divui %[[IDX]], %[[PROWS]] : index
// A stage expects the bytes of B and of the A boxes that hold the tile's rows: at 128
// columns one box of 128 rows from the first map, or where the rows are 96 or fewer
// (min(rows, 128) <= 96) that many 32-row boxes, rounded up, from the third (a decode tile
// of 2 rows moves 4 KiB of A, not 16); WIDE below. The map is chosen once a tile, one K
// loop for each, and each counts its boxes dividing by its own box rows (a constant, so
// that a full tile's count folds to one).
// KERNEL: %[[ROWS0:.*]] = arith.minsi %{{.*}}, %c128{{[_0-9]*}} : index
// KERNEL: %[[ROWS:.*]] = arith.maxsi %[[ROWS0]], %c1{{[_0-9]*}} : index
// KERNEL: memref.load %[[PITER]]
// KERNEL: %[[FEW:.*]] = arith.cmpi sle, %[[ROWS]], %c96{{[_0-9]*}} : index
// KERNEL: scf.if %[[FEW]] {
// KERNEL: %[[FROWS:.*]] = arith.constant 32 : index
// KERNEL: %[[FBOXES:.*]] = arith.ceildivsi %[[ROWS]], %[[FROWS]] : index
// KERNEL: %[[FSPAN:.*]] = arith.muli %[[FBOXES]], %[[FROWS]] : index
// KERNEL: %[[FATX:.*]] = arith.muli %[[FSPAN]], %c128{{[_0-9]*}} : index
// KERNEL: %[[FTX:.*]] = arith.addi %[[FATX]], %c16384{{[_0-9]*}} : index
// KERNEL: scf.for
// KERNEL: nvgpu.mbarrier.try_wait.parity
// KERNEL: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %[[FTX]] : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// KERNEL: scf.for %{{.*}} = %c0{{[_0-9]*}} to %[[FBOXES]] step
// KERNEL: nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<32x128xf8E4M3FN, 3>, swizzle = swizzle_128b
// KERNEL: nvgpu.tma.async.load %{{.*}} : <tensor = memref<128x128xf8E4M3FN, 3>
// KERNEL: } else {
// KERNEL: %[[BROWS:.*]] = arith.constant 128 : index
// KERNEL: %[[BOXES:.*]] = arith.ceildivsi %[[ROWS]], %[[BROWS]] : index
// KERNEL: %[[SPAN:.*]] = arith.muli %[[BOXES]], %[[BROWS]] : index
// KERNEL: %[[ATX:.*]] = arith.muli %[[SPAN]], %c128{{[_0-9]*}} : index
// KERNEL: %[[TX:.*]] = arith.addi %[[ATX]], %c16384{{[_0-9]*}} : index
// KERNEL: scf.for
// KERNEL: nvgpu.mbarrier.try_wait.parity
// KERNEL: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %[[TX]] : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// KERNEL: scf.for %{{.*}} = %c0{{[_0-9]*}} to %[[BOXES]] step
// KERNEL: nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<128x128xf8E4M3FN, 3>, swizzle = swizzle_128b
// KERNEL: nvgpu.tma.async.load %{{.*}} : <tensor = memref<128x128xf8E4M3FN, 3>
// KERNEL: memref.store %{{.*}}, %[[PITER]]
// KERNEL: nvvm.setmaxregister increase 232
// KERNEL: scf.while (%{{.*}} = %[[FIRST]],
// Promoted: each K tile's first k32 step starts a fresh partial sum (scale-d zero).
// KERNEL: nvvm.wgmma.fence.aligned
// KERNEL: nvvm.wgmma.mma_async %{{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>, <wrapped>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// KERNEL-COUNT-3: D[<f32>, <one>, <wrapped>]
// KERNEL: nvvm.wgmma.commit.group.sync.aligned
// KERNEL: nvvm.wgmma.wait.group.sync.aligned 0
// KERNEL: nvgpu.mbarrier.arrive
// KERNEL: arith.addf
// Epilogue: bf16 pairs into the epilogue's own buffer (128 rows of 64 columns and 16
// bytes, past the ring and the group ends), 64 columns at a time: the warpgroup's
// barrier, 16-byte row stores (element stores predicated on the group's rows and columns
// where a chunk is cut), the barrier again before the next chunk reuses the buffer.
// KERNEL: memref.store %{{.*}}, %[[CITER]]
// KERNEL: memref.view %{{.*}} to memref<4608xi32, #gpu.address_space<workgroup>>
// KERNEL: arith.truncf %{{.*}} : f32 to bf16
// KERNEL: memref.store %{{.*}} : memref<{{[0-9]+}}xi32, #gpu.address_space<workgroup>>
// KERNEL: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// KERNEL: vector.load %{{.*}} {alignment = 16 : i64} : memref<{{[0-9]+}}xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// KERNEL: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x256xbf16>, vector<8xbf16>
// KERNEL: memref.store %{{.*}} : memref<?x256xbf16>
// KERNEL: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// KERNEL: arith.truncf %{{.*}} : f32 to bf16
// KERNEL-NOT: gg.

// Layouts not packed along M walk the virtual grid strided.
// STRIDED: nvvm.fence.mbarrier.init
// STRIDED: %[[FIRST:.*]] = gpu.block_id x
// STRIDED: %[[STEP:.*]] = gpu.grid_dim x
// STRIDED: nvvm.setmaxregister decrease 40
// STRIDED-NOT: scf.while
// STRIDED: scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %[[STEP]] {
// STRIDED: nvvm.setmaxregister increase 232
// STRIDED: scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %[[STEP]] {

// Split-K: a cluster of two CTAs per tile (consecutive block ids), each on half of its K
// tiles; the walk goes over clusters; the producer passes the cluster's two barriers of
// each tile; the consumers keep their last ring of stages, the second CTA stores its
// partial sums there, the first adds them through distributed shared memory (mapa) and
// writes the tile; then the kept stages go back.
// SPLIT: nvvm.cluster_dim = array<i32: 2, 1, 1>
// SPLIT: nvvm.fence.mbarrier.init
// SPLIT: %[[BLOCK:.*]] = gpu.block_id x
// SPLIT-NEXT: %[[GRID:.*]] = gpu.grid_dim x
// SPLIT-NEXT: arith.divui %[[BLOCK]], %c2{{[_0-9]*}} : index
// SPLIT-NEXT: arith.divui %[[GRID]], %c2{{[_0-9]*}} : index
// SPLIT: nvgpu.tma.async.load
// SPLIT: nvvm.cluster.arrive
// SPLIT-NEXT: nvvm.cluster.wait
// SPLIT-NEXT: nvvm.cluster.arrive
// SPLIT-NEXT: nvvm.cluster.wait
// SPLIT: nvvm.wgmma.mma_async
// Only threads holding a row of the tile store or add partial sums (past the K loops of
// both warpgroups, the one with rows and the one without, which stores the K tile count).
// SPLIT: nvvm.wgmma.wait.group.sync.aligned 0
// SPLIT: } else {
// SPLIT: memref.store %{{.*}} : memref<1xindex>
// SPLIT: %[[LIVE:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// SPLIT: %[[PEER:.*]] = arith.andi %{{.*}}, %[[LIVE]] : i1
// SPLIT-NEXT: %[[LEAD:.*]] = arith.andi %{{.*}}, %[[LIVE]] : i1
// The consumer warpgroups both finish reading the ring before either overwrites it.
// SPLIT: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// SPLIT: scf.if %[[PEER]] {
// SPLIT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// The producer's TMA refills those stages after the reduction: a proxy fence orders the
// generic stores before it.
// SPLIT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// SPLIT-NEXT: }
// SPLIT-NEXT: nvvm.cluster.arrive
// SPLIT-NEXT: nvvm.cluster.wait
// The first CTA adds the peers' sums one peer at a time, in rank order, in a loop kept
// rolled (unrolled, ptxas spilled promoted 192-column tiles split in 4).
// SPLIT: scf.if %[[LEAD]] -> (!llvm.struct
// SPLIT-NEXT: scf.for %[[RANK:.*]] = %c1{{[_0-9]*}} to %{{.*}} step %c1{{[_0-9]*}} iter_args(%[[SUM:[^ ]*]] = %{{.*}}) -> (!llvm.struct
// SPLIT-NEXT: %[[RK:.*]] = arith.index_cast %[[RANK]] : index to i32
// SPLIT-NEXT: nvvm.mapa %{{.*}}, %[[RK]] : !llvm.ptr<3> -> !llvm.ptr<7>
// SPLIT: llvm.load %{{.*}} : !llvm.ptr<7> -> f32
// SPLIT: llvm.extractvalue %[[SUM]][0]
// SPLIT: arith.addf
// SPLIT: } {llvm.loop_annotation = #loop_annotation}
// The peers' TMA refills the stages it read once the second barrier frees them: the
// reader's proxy fence (over the cluster's shared memory) orders its reads before that.
// SPLIT-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cluster>}
// SPLIT-NEXT: scf.yield
// SPLIT: nvvm.cluster.arrive
// SPLIT-NEXT: nvvm.cluster.wait
// SPLIT: nvgpu.mbarrier.arrive
// Every CTA of the cluster runs the epilogue, the first alone with its rows: the others'
// row limit is 0, and no row test after it reads the limit itself.
// SPLIT: %[[ELIM:.*]] = arith.select %{{.*}}, %[[RAW:[^,]*]], %c0{{[_0-9]*}} : index
// SPLIT-NOT: arith.cmpi slt, %{{.*}}, %[[RAW]] : index
// SPLIT: arith.cmpi slt, %{{.*}}, %[[ELIM]] : index
// SPLIT-NOT: arith.cmpi slt, %{{.*}}, %[[RAW]] : index
// SPLIT: arith.truncf %{{.*}} : f32 to bf16
// SPLIT-NOT: arith.cmpi slt, %{{.*}}, %[[RAW]] : index
// SPLIT: gpu.return
// SPLITSHORT: split_k 2 gives shares of 2 K tiles (K=512); each needs at least the ring's 4 stages
// SPLITKOFF: split-K needs a static K; the k_offsets layout's K ranges are runtime values

// FAST-NOT: <zero>
// FAST: nvvm.wgmma.wait.group.sync.aligned 1
// FAST: nvvm.wgmma.wait.group.sync.aligned 0
// A consumer warpgroup whose 64 rows the tile does not reach (decode) runs a K loop that
// waits for each stage and gives it back, with no wgmma; its lane 0 releases the stage for
// the warp only once every lane has passed the wait (without the warp sync a decode launch
// hung on an H100: lane 0 ran the ring on alone).
// FAST: } else {
// FAST-NOT: nvvm.wgmma.mma_async
// FAST: nvgpu.mbarrier.try_wait.parity
// FAST-NOT: nvvm.wgmma.mma_async
// FAST: nvvm.bar.warp.sync %{{.*}} : i32
// FAST-NEXT: scf.if
// FAST-NEXT: arith.addi
// FAST-NEXT: nvgpu.mbarrier.arrive
// FAST-NOT: nvvm.wgmma.mma_async
// FAST: arith.truncf %{{.*}} : f32 to bf16

// Every consumer arrival (128x256 with its idle warpgroup's loop, ping-pong, promoted,
// blockwise, split-K, a 256-row cluster) is lane 0's for its warp, right after a warp sync.
// ARRIVALS: {{^}}[[N:[1-9][0-9]*]] arrivals, [[N]] by one lane, 0 unguarded

// Ping-pong (fast rowwise 128x128): each consumer warpgroup takes every other tile of the
// CTA's walk (the parity of a tile count kept beside the K-tile count), whole: from its
// second tile on it waits on the other warpgroup's order barrier (8 + 1 - cw, past the
// ring's 8; round (tno - 1) / 2), issues both 64-row halves' wgmma a k32 step at a time
// (the second half's A 8192 bytes on), arrives on its own order barrier (8 + cw) once its
// K loop is past its waits, and runs the epilogue, in the same region as its K loop, on
// each chunk of columns for either half in turn (the second's tile rows from 64; both
// through the warpgroup's 64 buffer rows; the chunk's column scales loaded once); a tile
// of 64 rows or fewer takes a region with the first half's wgmma and epilogue alone. The
// first K tile is
// apart: its first wgmma have scale-d zero on no accumulator (a zero accumulator copied
// into both halves' registers between the wgmma made ptxas serialise every wgmma). Only
// its 4 warps release a stage.
// PINGPONG: num_barriers = 10
// PINGPONG: nvgpu.mbarrier.init %{{.*}}[%c4{{[_0-9]*}}], %[[EMPTY:c4[_0-9]*]] :
// PINGPONG: nvgpu.mbarrier.init %{{.*}}[%c8{{[_0-9]*}}], %c4
// PINGPONG: nvgpu.mbarrier.init %{{.*}}[%c9{{[_0-9]*}}], %c4
// PINGPONG: nvvm.setmaxregister increase 232
// PINGPONG: %[[TNO:.*]] = memref.load %{{.*}}[%c1{{[_0-9]*}}] : memref<2xindex>
// PINGPONG: memref.store %{{.*}}, %{{.*}}[%c1{{[_0-9]*}}] : memref<2xindex>
// PINGPONG: %[[PAR:.*]] = arith.remui %[[TNO]], %c2{{[_0-9]*}} : index
// PINGPONG: %[[MINE:.*]] = arith.cmpi eq, %[[PAR]], %[[CW:[^ ]*]] : index
// PINGPONG: scf.if %[[MINE]] {
// PINGPONG: nvvm.prefetch
// PINGPONG: %[[TWO:.*]] = arith.cmpi slt, %c64{{[_0-9]*}}, %{{.*}} : index
// PINGPONG-NEXT: scf.if %[[MINE]] {
// PINGPONG-NEXT: %[[PREV:.*]] = arith.cmpi uge, %[[TNO]], %c1{{[_0-9]*}} : index
// PINGPONG-NEXT: scf.if %[[PREV]] {
// PINGPONG-NEXT: %[[T1:.*]] = arith.subi %[[TNO]], %c1{{[_0-9]*}} : index
// PINGPONG-NEXT: %[[ROUND:.*]] = arith.divui %[[T1]], %c2{{[_0-9]*}} : index
// PINGPONG-NEXT: %[[RI:.*]] = arith.index_cast %[[ROUND]] : index to i64
// PINGPONG-NEXT: %[[PH:.*]] = arith.trunci %[[RI]] : i64 to i1
// PINGPONG-NEXT: %[[OTHER0:.*]] = arith.subi %c1{{[_0-9]*}}, %[[CW]] : index
// PINGPONG-NEXT: %[[OTHER:.*]] = arith.addi %[[OBASE:c8[_0-9]*]], %[[OTHER0]] : index
// PINGPONG-NEXT: nvgpu.mbarrier.try_wait.parity %{{.*}}[%[[OTHER]]], %[[PH]],
// PINGPONG-NEXT: }
// PINGPONG-NEXT: scf.if %[[TWO]] {
// PINGPONG-NEXT: %[[FIRST:.*]]:2 = scf.execute_region -> (!llvm.struct
// PINGPONG-NEXT: arith.constant 0 : index
// PINGPONG-NEXT: %[[P0:.*]] = llvm.mlir.poison
// PINGPONG-NEXT: %[[P1:.*]] = llvm.mlir.poison
// PINGPONG: nvgpu.mbarrier.try_wait.parity
// PINGPONG: arith.addi %[[STAGE:[^,]*]], %c0{{[_0-9]*}} : index
// PINGPONG-NEXT: arith.addi %[[STAGE]], %c8192 : index
// PINGPONG-NOT: nvvm.wgmma.mma_async
// PINGPONG: %[[E0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[P0]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>,
// PINGPONG-NEXT: arith.addi
// PINGPONG-NEXT: %[[E1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[P1]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>,
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[E0]], <m = 64, n = 128, k = 32>, D[<f32>, <one>,
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[E1]], <m = 64, n = 128, k = 32>, D[<f32>, <one>,
// PINGPONG: nvvm.wgmma.commit.group.sync.aligned
// PINGPONG-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// PINGPONG-NOT: nvgpu.mbarrier.arrive
// PINGPONG: scf.yield
// PINGPONG-NEXT: }
// PINGPONG-NEXT: %[[ACC:.*]]:2 = scf.for %{{.*}} = %c1{{[_0-9]*}} to %{{.*}} iter_args(%[[H0:[^ ]*]] = %[[FIRST]]#0, %[[H1:[^ ]*]] = %[[FIRST]]#1) -> (!llvm.struct
// PINGPONG: nvgpu.mbarrier.try_wait.parity
// PINGPONG: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[H0]], <m = 64, n = 128, k = 32>, D[<f32>, <one>,
// PINGPONG-NEXT: arith.addi
// PINGPONG-NEXT: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[H1]], <m = 64, n = 128, k = 32>, D[<f32>, <one>,
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]],
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D1]],
// PINGPONG: nvvm.wgmma.commit.group.sync.aligned
// PINGPONG-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// PINGPONG: nvgpu.mbarrier.arrive
// PINGPONG: scf.yield
// PINGPONG-NEXT: }
// PINGPONG-NEXT: nvvm.bar.warp.sync %{{.*}} : i32
// PINGPONG-NEXT: scf.if
// PINGPONG-NEXT: arith.addi %[[OBASE]], %[[CW]] : index
// PINGPONG-NEXT: nvgpu.mbarrier.arrive
// PINGPONG-NEXT: }
// PINGPONG-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// PINGPONG: %[[ROW64:.*]] = arith.constant 64 : index
// PINGPONG: llvm.extractvalue %[[ACC]]#0[0]
// PINGPONG: arith.truncf %{{.*}} : f32 to bf16
// PINGPONG: nvvm.barrier
// PINGPONG: nvvm.barrier
// PINGPONG-NEXT: llvm.extractvalue %[[ACC]]#1[0]
// PINGPONG: nvvm.barrier
// PINGPONG-NEXT: scf.for
// PINGPONG-NEXT: arith.constant 0 : index
// PINGPONG: arith.addi %[[ROW64]], %{{.*}} : index
// PINGPONG: nvvm.barrier
// PINGPONG: llvm.extractvalue %[[ACC]]#0[32]
// PINGPONG: %[[FIRST1:.*]] = scf.execute_region -> !llvm.struct
// PINGPONG-NEXT: arith.constant 0 : index
// PINGPONG-NEXT: %[[Q0:.*]] = llvm.mlir.poison
// PINGPONG-NOT: llvm.mlir.poison
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[Q0]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>,
// PINGPONG-NEXT: arith.addi
// PINGPONG-NEXT: arith.addi
// PINGPONG-NEXT: nvvm.wgmma.mma_async
// PINGPONG: %[[ACC1:.*]] = scf.for %{{.*}} = %c1{{[_0-9]*}} to %{{.*}} iter_args(%[[I0:[^ ]*]] = %[[FIRST1]]) -> (!llvm.struct
// PINGPONG: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[I0]], <m = 64, n = 128, k = 32>, D[<f32>, <one>,
// PINGPONG: nvvm.wgmma.wait.group.sync.aligned 0
// PINGPONG-NOT: nvvm.wgmma.mma_async
// PINGPONG: llvm.extractvalue %[[ACC1]][0]
// PINGPONG-NOT: nvvm.wgmma.mma_async
// PINGPONG: gpu.return

// 2D-2D: the boundary tile's A columns outside the group's K range are zeroed in shared
// memory, made visible to wgmma, and the warpgroup syncs on its own named barrier.
// KMASK: arith.cmpi slt, %{{.*}}, %{{.*}} : index
// KMASK: vector.store %{{.*}} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// KMASK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// KMASK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// KMASK: nvvm.wgmma.mma_async
// NOKMASK-NOT: nvvm.fence.proxy

// Blockwise: the partial sum is scaled by the tile's row and column block scales.
// BLOCKWISE: nvvm.wgmma.wait.group.sync.aligned 0
// BLOCKWISE: memref.load %{{.*}} : memref<?xf32>
// BLOCKWISE: memref.load %{{.*}} : memref<16xf32>
// BLOCKWISE: arith.mulf
// BLOCKWISE: arith.mulf
// BLOCKWISE: arith.addf

// 3D-2D blockwise: a tile that starts inside a 128-wide column block takes the next
// block's scale from the block boundary on.
// SPLITBLOCK: memref.load %{{.*}} : memref<12xf32>
// SPLITBLOCK: arith.minsi %{{.*}}, %{{.*}} : index
// SPLITBLOCK: memref.load %{{.*}} : memref<12xf32>
// SPLITBLOCK: arith.remsi %{{.*}}, %{{.*}} : index
// SPLITBLOCK: arith.cmpi sge, %{{.*}}, %{{.*}} : index
// SPLITBLOCK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// BLOCKWISE-NOT: arith.remsi

// gg-nvvm-abi: the maps travel by value as grid constants.
// ABI: llvm.func @gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w0_rolled_sm_90a(%arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg1: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg2: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// ABI-SAME: nvvm.kernel

// PTX: .target sm_90a
// PTX: .extern .shared .align 1024 .b8 gg_dsmem[];
// PTX: .visible .entry gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w0_rolled_sm_90a(
// PTX-NEXT: .param .align 64 .b8 gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w0_rolled_sm_90a_param_0[128],
// PTX-NEXT: .param .align 64 .b8 gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w0_rolled_sm_90a_param_1[128],
// PTX-NEXT: .param .align 64 .b8 gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w0_rolled_sm_90a_param_2[128],
// PTX: .maxntid 384, 1, 1
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3

// WRONGTARGET: error: gg-to-nvvm: the grid was tiled for gfx950, not sm_90a
// FNUZ: error: sm_90a takes float8_e4m3fn operands (wgmma's e4m3), not e4m3fnuz
// PRESHUFFLED: error: sm_90a reads B as a plain [N, K] matrix through TMA
// BLOCKFAST: error: blockwise scaling scales each K block's partial sum
// TILE: error: tile 64x128x128 is not an sm_90a tile

// At 256 columns A comes in boxes of 32 rows at every row count, only those that hold the
// tile's rows (min(rows, 128) / 32, rounded up), from the first map: no choice to make.
// WIDE: %[[ROWS0:.*]] = arith.minsi %{{.*}}, %c128{{[_0-9]*}} : index
// WIDE: %[[ROWS:.*]] = arith.maxsi %[[ROWS0]], %c1{{[_0-9]*}} : index
// WIDE-NEXT: memref.load
// WIDE-NEXT: %[[BROWS:.*]] = arith.constant 32 : index
// WIDE-NEXT: %[[BOXES:.*]] = arith.ceildivsi %[[ROWS]], %[[BROWS]] : index
// WIDE-NEXT: %[[SPAN:.*]] = arith.muli %[[BOXES]], %[[BROWS]] : index
// WIDE-NEXT: %[[ATX:.*]] = arith.muli %[[SPAN]], %c128{{[_0-9]*}} : index
// WIDE-NEXT: %[[TX:.*]] = arith.addi %[[ATX]], %c32768{{[_0-9]*}} : index
// WIDE: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %[[TX]]
// WIDE-NOT: scf.if
// WIDE: scf.for %{{.*}} = %c0{{[_0-9]*}} to %[[BOXES]] step
// WIDE: nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<32x128xf8E4M3FN, 3>, swizzle = swizzle_128b
// WIDE: nvgpu.tma.async.load %{{.*}} : <tensor = memref<256x128xf8E4M3FN, 3>

// A 256-row tile: a cluster of two CTAs on its halves. Empty barriers take the peer's 8
// consumer warps too; the peers' barriers are set up before either CTA goes on; the walk
// is over clusters; each CTA is rank block % 2 and loads its half of B's 256 rows (a
// 128-row box), multicast to both (mask 3); releases reach the peer through mapa; no CTA
// leaves before its peer is done.
// CLUSTER: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CLUSTER: nvgpu.mbarrier.init %{{.*}}[%c4], %c16{{[_0-9]*}}
// CLUSTER: nvvm.fence.mbarrier.init
// CLUSTER: nvvm.cluster.arrive
// CLUSTER-NEXT: nvvm.cluster.wait
// CLUSTER: %[[BLOCK:.*]] = gpu.block_id x
// CLUSTER: arith.divui %[[BLOCK]], %c2{{[_0-9]*}} : index
// CLUSTER: %[[RANKBLOCK:.*]] = gpu.block_id x
// CLUSTER: arith.remui %[[RANKBLOCK]], %c2{{[_0-9]*}} : index
// CLUSTER: nvgpu.tma.async.load {{.*}} -> memref<32x128xf8E4M3FN
// CLUSTER: nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16 : <tensor = memref<128x128xf8E4M3FN, 3>
// CLUSTER: nvgpu.mbarrier.arrive
// CLUSTER-NEXT: nvgpu.mbarrier.get
// CLUSTER-NEXT: llvm.inttoptr
// CLUSTER-NEXT: nvvm.mapa
// CLUSTER-NEXT: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// CLUSTER: nvvm.cluster.arrive
// CLUSTER-NEXT: nvvm.cluster.wait
// CLUSTER-NEXT: gpu.return
// CLUSTERSPLIT: split-K clusters are 128-row tiles'

// A debugging aid for hangs: GG_SM90_WAIT_LIMIT bounds every mbarrier wait (the producer's
// on empty stages, the consumers' on full ones, ping-pong's order waits), each then
// printing what it waited for; without it the waits are nvgpu's unbounded ones, no printf.
// WAITLIMIT-NOT: nvgpu.mbarrier.try_wait.parity
// WAITLIMIT-DAG: arith.constant 7 : i32
// WAITLIMIT-DAG: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i1
// WAITLIMIT-DAG: gpu.printf "gg: producer (empty) wait gave up: block %d thread %d barrier %d parity %d k tile %d
// WAITLIMIT-DAG: gpu.printf "gg: consumer (full) wait gave up
// WAITLIMIT-DAG: gpu.printf "gg: ping-pong (order) wait gave up
// WAITLIMIT-NOT: nvgpu.mbarrier.try_wait.parity
// NOWAITLIMIT-NOT: gpu.printf
// NOWAITLIMIT: nvgpu.mbarrier.try_wait.parity
// NOWAITLIMIT-NOT: gpu.printf
// BADWAITLIMIT: GG_SM90_WAIT_LIMIT takes a try count from 0 (off) to 2147483647, not '7x'
