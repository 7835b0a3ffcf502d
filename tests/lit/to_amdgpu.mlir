// gg-to-amdgpu: the tiled IR becomes one gpu.func kernel of 256 threads with buffer loads,
// a swizzled LDS staging, MFMAs and a shuffled, predicated epilogue.
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target gfx950 --emit tiles | %gg-opt -p "gg-to-amdgpu{chip=gfx950}" | FileCheck %s --check-prefix=GFX950
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target gfx942 --emit tiles | %gg-opt -p "gg-to-amdgpu{chip=gfx942}" | FileCheck %s --check-prefix=GFX942
// RUN: %gg compile --op mm --ranks 3d2d --groups 5,250,3 --K 256 --target gfx950 --emit target | FileCheck %s --check-prefix=NARROW
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target gfx950 --emit tiles | not %gg-opt -p "gg-to-amdgpu{chip=gfx942}" 2>&1 | FileCheck %s --check-prefix=FLAVOUR
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --tile 256x256x256 --fp8 e4m3fnuz --emit tiles | not %gg-opt -p "gg-to-amdgpu{chip=gfx942}" 2>&1 | FileCheck %s --check-prefix=TOOBIG
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --tile 256x256x256 --target gfx942 2>&1 | FileCheck %s --check-prefix=TOOBIGDESC
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 1024 --target gfx950 --tile 128x256x128 --wpe 1 --emit target | FileCheck %s --check-prefix=CARRY
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 1024 --target gfx950 --tile 128x256x128 --wpe 2 --scaling blockwise --b preshuffled --emit target | FileCheck %s --check-prefix=NOCARRY
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 1280 --target gfx950 --tile 128x256x128 --wpe 1 --scaling blockwise --emit target | FileCheck %s --check-prefix=DMA
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 1280 --target gfx950 --tile 128x256x128 --wpe 1 --scaling blockwise --b preshuffled --emit target | FileCheck %s --check-prefix=SHUFFLED

// GFX950: module attributes {gpu.container_module}
// GFX950: gpu.module @gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w2_rolled_gfx950_module
// GFX950: gpu.func @gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w2_rolled_gfx950(
// The kernel's arguments: the operands, then the workspace of the group ends.
// GFX950-SAME: %[[ENDS:[a-z0-9_]+]]: memref<2xi64>) workgroup(%[[LDS:.*]] : memref<65536xi8, #gpu.address_space<workgroup>>)
// GFX950-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, rocdl.flat_work_group_size = "256,256", rocdl.waves_per_eu = 2 : i32}
// GFX950: gpu.thread_id x
// GFX950: gpu.block_id x
// The tile's group: a binary search over the ends.
// GFX950: memref.load %[[ENDS]][%{{.*}}] : memref<2xi64>
// Loads: 16-byte buffer loads from a view that starts at the tile's first row (a 64-bit
// base; the lanes' offsets are 32-bit and relative to it, the K step's offset is the
// uniform soffset), its size capped below the offset that out-of-range lanes are sent to.
// GFX950: %[[N:.*]] = memref.dim %[[FLAT:.*]], %{{.*}} : memref<?xf8E4M3FN>
// GFX950: %[[B:.*]] = arith.minsi %{{.*}}, %[[N]] : index
// GFX950: %[[R:.*]] = arith.subi %[[N]], %[[B]] : index
// GFX950: %[[CAP:.*]] = arith.constant 2147483632 : index
// GFX950: %[[LEN:.*]] = arith.minsi %[[R]], %[[CAP]] : index
// GFX950: %[[VIEW:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [%[[B]]], sizes: [%[[LEN]]], strides: [1] : memref<?xf8E4M3FN> to memref<?xf8E4M3FN, strided<[1], offset: ?>>
// GFX950: %[[OOB:.*]] = arith.constant 2147483632 : i32
// GFX950: arith.select %{{.*}}, %{{.*}}, %[[OOB]] : i32
// GFX950: amdgpu.raw_buffer_load {gg.load = "a"} %[[VIEW]][%{{.*}}] sgprOffset %{{.*}} : memref<?xf8E4M3FN, strided<[1], offset: ?>>, i32 -> vector<16xf8E4M3FN>
// Staging: the 16-byte chunk index XOR a swizzle of the row (gfx950: row / 2 mod chunks per row).
// The first tile stages itself into buffer 0; every tile's MFMAs (fenced one by one, so
// LLVM keeps the interleaving) stage the next tile into the other buffer, each LDS write
// followed by the load of the tile after it that reuses its registers; one barrier a tile.
// GFX950: arith.xori
// GFX950: vector.store %{{.*}}, %[[LDS]][%{{.*}}] : memref<65536xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// GFX950: gpu.barrier
// GFX950-NEXT: amdgpu.sched_barrier allow = <none>
// GFX950: amdgpu.sched_barrier allow = <none>
// GFX950-NEXT: amdgpu.mfma 16x16x128 %{{.*}} * %{{.*}} + %{{.*}} blgp =  none : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
// GFX950: %[[STAGE1:.*]] = arith.constant 32768 : index
// GFX950: vector.store %{{.*}}, %[[LDS]][%{{.*}}] : memref<65536xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// GFX950: amdgpu.raw_buffer_load {gg.load = "{{a|b}}"} %{{.*}}[%{{.*}}] sgprOffset %{{.*}} : memref<?xf8E4M3FN, strided<[1], offset: ?>>, i32 -> vector<16xf8E4M3FN>
// GFX950: amdgpu.sched_barrier allow = <none>
// GFX950: amdgpu.mfma 16x16x128
// GFX950: gpu.barrier
// Epilogue: scales, bf16, LDS shuffle, 16-byte stores.
// GFX950: arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// GFX950: amdgpu.raw_buffer_store %{{.*}} -> %{{.*}}[%{{.*}}] : vector<8xbf16> -> memref<?xbf16, strided<[1], offset: ?>>, i32
// GFX950-NOT: "gg.
// The group ends kernel follows: one workgroup folds its chunks of the counts, thread 0
// scans the 256 partial ends in LDS, each thread stores its chunk's ends.
// GFX950: gpu.func @gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w2_rolled_gfx950_group_ends(
// GFX950-SAME: %[[META:[a-z0-9_]+]]: memref<2xi64>, %{{[a-z0-9_]+}}: memref<?x256xbf16>, %[[WS:[a-z0-9_]+]]: memref<2xi64>) workgroup(%[[PART:.*]] : memref<256xi64, #gpu.address_space<workgroup>>)
// GFX950: memref.load %[[META]]
// GFX950: memref.store %{{.*}}, %[[PART]][%{{.*}}]
// GFX950: gpu.barrier
// GFX950: scf.if
// GFX950: gpu.barrier
// GFX950: memref.store %{{.*}}, %[[WS]][%{{.*}}] : memref<2xi64>
// GFX950: gpu.return

// gfx942: FNUZ operands, the 16x16x32 MFMA on 8-byte fragments, two steps' fragments
// read as one 16-byte chunk (the fragment K order) and split in halves.
// GFX942: amdgpu.raw_buffer_load {gg.load = "a"} %{{.*}}[%{{.*}}] sgprOffset %{{.*}} : memref<?xf8E4M3FNUZ, strided<[1], offset: ?>>, i32 -> vector<16xf8E4M3FNUZ>
// GFX942: %[[CHUNK:.*]] = vector.load %{{.*}}[%{{.*}}] : memref<32768xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// GFX942: vector.shuffle %[[CHUNK]], %[[CHUNK]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xi8>, vector<16xi8>
// GFX942: amdgpu.mfma 16x16x32 %{{.*}} * %{{.*}} + %{{.*}} blgp =  none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>

// 3D-2D with N = 258 (not a multiple of 8): output rows are not 16-byte aligned, so the
// epilogue stores element by element.
// NARROW: amdgpu.raw_buffer_store %{{.*}} -> %{{.*}}[%{{.*}}] : vector<1xbf16> -> memref<?xbf16, strided<[1], offset: ?>>, i32
// NARROW-NOT: vector<8xbf16> -> memref

// FLAVOUR: error: gg-to-amdgpu: gfx942's FP8 MFMA reads e4m3fnuz, the operands are e4m3fn
// TOOBIG: error: gg-to-amdgpu: tile 256x256x256 needs 131072 bytes of LDS; gfx942 has 65536
// TOOBIGDESC: error: tile 256x256x256 needs 131072 bytes of LDS; gfx942 has 65536

// gfx950 128x256 rowwise: each tile that stages the next reads the next one's first
// fragments (A's first row block, B's first five column blocks: 6 x 2 rows of f32 bit
// patterns beside the 32 rows of accumulators) after a barrier mid-tile, during its last
// MFMAs; the rolled loop carries them with the accumulators.
// CARRY: arith.constant dense<0.000000e+00> : vector<44x4xf32>
// CARRY: scf.for %{{.*}} iter_args({{.*}}) -> (vector<44x4xf32>,
// CARRY: gpu.barrier
// CARRY-NEXT: arith.constant 0 : index
// CARRY: vector.load %{{.*}} : memref<98304xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CARRY: amdgpu.mfma 16x16x128
// CARRY: scf.yield %{{.*}} : vector<44x4xf32>,
// Blockwise with preshuffled B in registers (at waves_per_eu 2: no LDS DMA) keeps them:
// nothing rides with its accumulators.
// NOCARRY: scf.for %{{.*}} iter_args({{.*}}) -> (vector<32x4xf32>,

// With LDS DMA, preshuffled B goes where plain B's chunks go: the same three stages, A's
// 4 and B's 8 DMAs of the tile after next in each tile, the next tile's first fragments
// carried (12 rows beside the 32 of accumulators), and no B load into registers.
// SHUFFLED: workgroup(%{{.*}} : memref<50176xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<50176xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<50176xi8, #gpu.address_space<workgroup>>)
// SHUFFLED-NOT: gg.load = "b_preshuffled"
// SHUFFLED: scf.for %{{.*}} step %c384 iter_args({{.*}}) -> (vector<44x4xf32>,
// SHUFFLED-COUNT-12: amdgpu.gather_to_lds
// SHUFFLED: amdgpu.memory_counter_wait load(14) ds(0)

// gfx950 blockwise with plain B loads A and B by LDS DMA into three buffers, each an
// allocation of its own (a stage: 48 KiB of tiles and 1 KiB of scale products), two tiles
// ahead. Rows past the group lie past the buffer's valid bytes. A tile waits for its own
// loads (all but the 14 of the tile after next: 12 DMAs and 2 scale loads), and its barrier
// is not gpu.barrier, whose release fence would make LLVM wait for every DMA in flight.
// Carrying the next tile's first fragments, the loop's tiles wait mid-tile, after issuing
// the 12 DMAs each of the tile after next. The tile before the last issues none.
// DMA: workgroup(%{{.*}} : memref<50176xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<50176xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<50176xi8, #gpu.address_space<workgroup>>)
// DMA: amdgpu.fat_raw_buffer_cast %{{.*}} validBytes(%{{.*}}) resetOffset
// DMA: amdgpu.gather_to_lds
// DMA: amdgpu.memory_counter_wait load(14)
// DMA: rocdl.s.barrier
// DMA: scf.for %{{.*}} step %c384
// DMA-COUNT-12: amdgpu.gather_to_lds
// DMA: amdgpu.memory_counter_wait load(14) ds(0)
// DMA-NEXT: rocdl.s.barrier
// DMA-NEXT: llvm.fence syncscope("workgroup") acquire
// DMA: scf.yield
// DMA: amdgpu.memory_counter_wait load(0) ds(0)
// DMA-NEXT: rocdl.s.barrier
