func.func @f(%a: memref<?x512xf8E4M3FN>, %b: memref<4x256x512xf8E4M3FN>, %sa: memref<?xf32>, %sb: memref<4x256xf32>, %m: memref<4xi64>, %o: memref<?x256xbf16>) {
  "gg.grouped_matmul"(%a, %b, %sa, %sb, %m, %o) {layout = "diagonal", scaling = "rowwise", b_layout = "plain", target = "host", n = 256 : i64, k = 512 : i64, g = 4 : i64, tile_m = 0 : i64, tile_n = 0 : i64, tile_k = 0 : i64, waves_per_eu = 0 : i64, loop = "rolled", accum = "promoted"} : (memref<?x512xf8E4M3FN>, memref<4x256x512xf8E4M3FN>, memref<?xf32>, memref<4x256xf32>, memref<4xi64>, memref<?x256xbf16>) -> ()
  return
}
