// gg-verify: the stacked op's contract, with the broken rule reported at the op.
// RUN: not %gg-opt %s --split-input-file -p gg-verify 2>/dev/null | FileCheck %s --check-prefix=OK
// RUN: not %gg-opt %s --split-input-file -p gg-verify 2>&1 | FileCheck %s --check-prefix=ERR

// OK-LABEL: func.func @valid
// OK: "gg.grouped_matmul"
func.func @valid(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// -----

// B's K does not match the op's K.
func.func @b_shape(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x256xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: B must be [4, 256, 512] for the sizes layout, got [4, 256, 256]
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x256xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// -----

// A 3-D A for the stacked (sizes) layout.
func.func @a_rank(%a: memref<4x?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: A must be 2-D [?, 512] for the sizes layout, got 3-D [4, ?, 512]
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<4x?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// -----

// M_sizes must be int64.
func.func @meta_dtype(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi32>, %o: memref<?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: M_sizes must be int64 for the sizes layout, got i32
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi32>, memref<?x256xbf16>) -> ()
  return
}

// -----

// B's FP8 flavour differs from A's.
func.func @b_flavour(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FNUZ>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: B must hold f8E4M3FN (the FP8 flavour of A, which the host target takes), got f8E4M3FNUZ
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FNUZ>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// -----

// gfx942 takes e4m3fnuz.
func.func @target_flavour(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: gfx942 takes float8_e4m3fnuz operands, not e4m3fn
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "gfx942", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// -----

// The output must be contiguous.
func.func @strided_out(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16, strided<[512, 1]>>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: out must be contiguous (identity layout)
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16, strided<[512, 1]>>) -> ()
  return
}

// -----

// The grouped extent is a runtime value.
func.func @static_rows(%a: memref<195x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: A must be [?, 512] for the sizes layout, got [195, 512] (the grouped extent is a runtime value: write '?')
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<195x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// -----

// A tile outside the candidate set.
func.func @bad_tile(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: tile 32x128x128 is not a candidate
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "sizes", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 32 : i64, tile_n = 128 : i64, tile_k = 128 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}

// -----

// The batched layout takes no metadata; x_scale is [G, M] there.
func.func @batched_meta(%a: memref<4x?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<4x?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi32>, %o: memref<4x?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: the batched layout (3D-3D) takes no group metadata
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "batched", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<4x?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<4x?xf32>, memref<4x256xf32>, memref<4xi32>, memref<4x?x256xbf16>) -> ()
  return
}

// -----

// 2D-2D: per-group scales are flat [G*M] and [G*N].
func.func @k_offsets_scale(%a: memref<?x512xf8E4M3FN>, %b: memref<256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi32>, %o: memref<4x?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: b_scale must be 1-D [1024] for the k_offsets layout, got 2-D [4, 256]
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "k_offsets", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi32>, memref<4x?x256xbf16>) -> ()
  return
}

// -----

// 3D-2D: offsets must be int32.
func.func @n_offsets_meta(%a: memref<4x?x512xf8E4M3FN>, %b: memref<264x512xf8E4M3FN>, %sa: memref<4x?xf32>, %sb: memref<264xf32>, %m: memref<4xi64>, %o: memref<?x264xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: offsets must be int32 for the n_offsets layout, got i64
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "n_offsets", scaling = "rowwise", b_layout = "plain", target = "host", n = 264 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<4x?x512xf8E4M3FN>, memref<264x512xf8E4M3FN>, memref<4x?xf32>, memref<264xf32>, memref<4xi64>, memref<?x264xbf16>) -> ()
  return
}

// -----

// Blockwise scaling: x_scale holds K/128 blocks per row.
func.func @blockwise_scale(%a: memref<4x?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<4x?xf32>, %sb: memref<4x4x2xf32>, %m: memref<4xi64>, %o: memref<4x?x256xbf16>) {
  // ERR: verify.mlir:[[@LINE+1]]:3: error: gg.grouped_matmul: a_scale must be 3-D [4, 4, ?] for the padded layout, got 2-D [4, ?]
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "padded", scaling = "blockwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<4x?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<4x?xf32>, memref<4x4x2xf32>, memref<4xi64>, memref<4x?x256xbf16>) -> ()
  return
}
