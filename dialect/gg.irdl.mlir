// The gg dialect: FP8 grouped GEMMs, from the op level down to tiles.
//
// IRDL in MLIR 22 gives generic syntax only, no traits, no optional attributes and no
// terminators, so regions end in `gpu.yield` and every attribute listed is required.
// Each operand has its own constraint variable: a shared variable would force equal types.
// Upstream tools read this dialect too: `mlir-opt --irdl-file=dialect/gg.irdl.mlir`.
irdl.dialect @gg {
  // ---------------------------------------------------------------------------------
  // Op level: one grouped GEMM, out[r, c] = bf16(sum_k A[r,k] B[g,c,k] sa sb), over memrefs.
  // Static N, K and G; the grouped extent (rows, or the slab height M) is dynamic.
  irdl.operation @grouped_matmul {
    %a = irdl.base "!builtin.memref"
    %b = irdl.base "!builtin.memref"
    %sa = irdl.base "!builtin.memref"
    %sb = irdl.base "!builtin.memref"
    %meta = irdl.base "!builtin.memref"
    %out = irdl.base "!builtin.memref"
    irdl.operands(a: %a, b: %b, a_scale: %sa, b_scale: %sb, meta: optional %meta, out: %out)

    %sizes = irdl.is "sizes"
    %offsets = irdl.is "offsets"
    %padded = irdl.is "padded"
    %batched = irdl.is "batched"
    %n_offsets = irdl.is "n_offsets"
    %k_offsets = irdl.is "k_offsets"
    %layout = irdl.any_of(%sizes, %offsets, %padded, %batched, %n_offsets, %k_offsets)
    %rowwise = irdl.is "rowwise"
    %blockwise = irdl.is "blockwise"
    %scaling = irdl.any_of(%rowwise, %blockwise)
    %plain = irdl.is "plain"
    %preshuffled = irdl.is "preshuffled"
    %b_layout = irdl.any_of(%plain, %preshuffled)
    %host = irdl.is "host"
    %gfx942 = irdl.is "gfx942"
    %gfx950 = irdl.is "gfx950"
    %sm_90a = irdl.is "sm_90a"
    %target = irdl.any_of(%host, %gfx942, %gfx950, %sm_90a)
    %rolled = irdl.is "rolled"
    %unrolled = irdl.is "unrolled"
    %loop = irdl.any_of(%rolled, %unrolled)
    %promoted = irdl.is "promoted"
    %fast = irdl.is "fast"
    %accum = irdl.any_of(%promoted, %fast)
    %n = irdl.base "#builtin.integer"
    %k = irdl.base "#builtin.integer"
    %g = irdl.base "#builtin.integer"
    %tile_m = irdl.base "#builtin.integer"
    %tile_n = irdl.base "#builtin.integer"
    %tile_k = irdl.base "#builtin.integer"
    %waves_per_eu = irdl.base "#builtin.integer"
    // An sm_90a op may also carry "split_k" (an integer, 2 to 4: split-K over a cluster of
    // that many CTAs); IRDL lists required attributes only, so the verifier of the
    // descriptor (gg_op_desc_validate) checks it.
    irdl.attributes {
      "layout" = %layout, "scaling" = %scaling, "b_layout" = %b_layout, "target" = %target,
      "n" = %n, "k" = %k, "g" = %g, "tile_m" = %tile_m, "tile_n" = %tile_n, "tile_k" = %tile_k,
      "waves_per_eu" = %waves_per_eu, "loop" = %loop, "accum" = %accum
    }
  }

  // ---------------------------------------------------------------------------------
  // Tile level (after gg-tile). A grid of independent tiles; the region's arguments are
  // the block indices (x: N blocks, y: M tiles, z: groups or 0).
  irdl.operation @grid {
    %gx = irdl.is index
    %gy = irdl.is index
    %gz = irdl.is index
    irdl.operands(x: %gx, y: %gy, z: %gz)
    %ix = irdl.is index
    %iy = irdl.is index
    %iz = irdl.is index
    %body = irdl.region(%ix, %iy, %iz) with size 1
    irdl.regions(body: %body)
  }

  // The end of every packed group along its axis (sizes, offsets: rows of A; n_offsets:
  // the N columns), computed once per launch from the metadata so that each tile finds its
  // group by binary search: ends[g] = min(max(ends[g-1] + count, ends[g-1]), total) for
  // sizes, min(max(ends[g-1], offsets[g]), total) for the prefix layouts (ends[-1] = 0,
  // counts clamped to [0, total]). Group g owns [ends[g-1], ends[g]). `a` gives the row
  // total (its dimension 0); n_offsets uses `n`. Targets lower it before the grid: a loop
  // on the host, a kernel of its own on AMD GPUs.
  irdl.operation @group_ends {
    %meta = irdl.base "!builtin.memref"
    %a = irdl.base "!builtin.memref"
    irdl.operands(meta: %meta, a: %a)
    %ends = irdl.base "!builtin.memref"
    irdl.results(ends: %ends)
    %sizes = irdl.is "sizes"
    %offsets = irdl.is "offsets"
    %n_offsets = irdl.is "n_offsets"
    %layout = irdl.any_of(%sizes, %offsets, %n_offsets)
    %n = irdl.base "#builtin.integer"
    irdl.attributes { "layout" = %layout, "n" = %n }
  }

  // Finds the group a tile belongs to and the tile's frame: where its rows and columns
  // start in every operand, how many of them are valid (limits count from the tile's
  // first row or column and may exceed the tile), and the group's K range. The only op
  // whose lowering depends on the layout (gg-resolve-groups). For the packed layouts
  // (sizes, offsets, n_offsets) `meta` is the gg.group_ends result, not the metadata.
  irdl.operation @resolve_group {
    %bx = irdl.is index
    %by = irdl.is index
    %bz = irdl.is index
    %rows = irdl.is index
    %meta = irdl.base "!builtin.memref"
    irdl.operands(bx: %bx, by: %by, bz: %bz, rows: %rows, meta: optional %meta)
    %valid = irdl.is i1
    %group = irdl.is index
    %a_row = irdl.is index
    %row_limit = irdl.is index
    %out_row = irdl.is index
    %b_row = irdl.is index
    %col_limit = irdl.is index
    %out_col = irdl.is index
    %k_lo = irdl.is index
    %k_hi = irdl.is index
    %sa_row = irdl.is index
    %sa_kstride = irdl.is index
    %sb_base = irdl.is index
    %sb_col = irdl.is index
    %sb_kstride = irdl.is index
    irdl.results(valid: %valid, group: %group, a_row: %a_row, row_limit: %row_limit,
                 out_row: %out_row, b_row: %b_row, col_limit: %col_limit, out_col: %out_col,
                 k_lo: %k_lo, k_hi: %k_hi, sa_row: %sa_row, sa_kstride: %sa_kstride,
                 sb_base: %sb_base, sb_col: %sb_col, sb_kstride: %sb_kstride)
    %sizes = irdl.is "sizes"
    %offsets = irdl.is "offsets"
    %padded = irdl.is "padded"
    %batched = irdl.is "batched"
    %n_offsets = irdl.is "n_offsets"
    %k_offsets = irdl.is "k_offsets"
    %layout = irdl.any_of(%sizes, %offsets, %padded, %batched, %n_offsets, %k_offsets)
    %rowwise = irdl.is "rowwise"
    %blockwise = irdl.is "blockwise"
    %scaling = irdl.any_of(%rowwise, %blockwise)
    %tile_m = irdl.base "#builtin.integer"
    %tile_n = irdl.base "#builtin.integer"
    %n = irdl.base "#builtin.integer"
    %k = irdl.base "#builtin.integer"
    %g = irdl.base "#builtin.integer"
    irdl.attributes { "layout" = %layout, "scaling" = %scaling, "tile_m" = %tile_m,
                      "tile_n" = %tile_n, "n" = %n, "k" = %k, "g" = %g }
  }

  // A [rows x cols] tile of an FP8 matrix: element (r, c) is src[row0 + r, k0 + c] when
  // r < row_limit and k_lo <= k0 + c < k_hi, else zero. gg-mask clears mask_rows/mask_k
  // where static facts prove the bound can never cut the tile. With operand =
  // "b_preshuffled" src holds the matrix in MFMA B-preshuffle order (16x64 fragments of
  // 1 KiB): logical element (n, k) sits at flat byte
  // (((n/16 K/64 + k/64) 4 + (k%64)/16) 16 + n%16) 16 + k%16.
  irdl.operation @load_tile {
    %src = irdl.base "!builtin.memref"
    %row0 = irdl.is index
    %row_limit = irdl.is index
    %k0 = irdl.is index
    %k_lo = irdl.is index
    %k_hi = irdl.is index
    irdl.operands(src: %src, row0: %row0, row_limit: %row_limit, k0: %k0, k_lo: %k_lo, k_hi: %k_hi)
    %tile = irdl.base "!builtin.vector"
    irdl.results(tile: %tile)
    %t = irdl.is true
    %f = irdl.is false
    %mask_rows = irdl.any_of(%t, %f)
    %mask_k = irdl.any_of(%t, %f)
    %a = irdl.is "a"
    %b = irdl.is "b"
    %b_preshuffled = irdl.is "b_preshuffled"
    %operand = irdl.any_of(%a, %b, %b_preshuffled)
    irdl.attributes { "operand" = %operand, "mask_rows" = %mask_rows, "mask_k" = %mask_k }
  }

  // Blockwise scales of one K tile: for each 128-wide K block j of the tile,
  // sx[j, r] = sa[sa_row + r + (k0/128 + j) sa_kstride] and
  // sw[j, c] = sb[sb_base + (k0/128 + j) sb_kstride + (sb_col + c) / 128];
  // zero for rows past row_limit, columns past col_limit and blocks outside [k_lo, k_hi).
  irdl.operation @load_scales {
    %sa = irdl.base "!builtin.memref"
    %sb = irdl.base "!builtin.memref"
    %k0 = irdl.is index
    %k_lo = irdl.is index
    %k_hi = irdl.is index
    %sa_row = irdl.is index
    %sa_kstride = irdl.is index
    %row_limit = irdl.is index
    %sb_base = irdl.is index
    %sb_col = irdl.is index
    %sb_kstride = irdl.is index
    %col_limit = irdl.is index
    irdl.operands(sa: %sa, sb: %sb, k0: %k0, k_lo: %k_lo, k_hi: %k_hi, sa_row: %sa_row,
                  sa_kstride: %sa_kstride, row_limit: %row_limit, sb_base: %sb_base,
                  sb_col: %sb_col, sb_kstride: %sb_kstride, col_limit: %col_limit)
    %sx = irdl.base "!builtin.vector"
    %sw = irdl.base "!builtin.vector"
    irdl.results(sx: %sx, sw: %sw)
  }

  // acc[r, c] += sum_k a[r, k] b[c, k]. gg-k-loop tags the mmas of a K loop over
  // preshuffled B with gg.lds_buffer = 0|1: the tile's parity, which AMD targets use to
  // stage A in one of two LDS buffers (ping-pong).
  irdl.operation @mma_tile {
    %a = irdl.base "!builtin.vector"
    %b = irdl.base "!builtin.vector"
    %acc = irdl.base "!builtin.vector"
    irdl.operands(a: %a, b: %b, acc: %acc)
    %res = irdl.base "!builtin.vector"
    irdl.results(result: %res)
  }

  // Blockwise: each 128-wide K block j's partial sum p_j[r, c] joins the accumulator as
  // acc[r, c] += (p_j[r, c] * sx[j, r]) * sw[j, c], blocks in order.
  irdl.operation @mma_scaled_tile {
    %a = irdl.base "!builtin.vector"
    %b = irdl.base "!builtin.vector"
    %acc = irdl.base "!builtin.vector"
    %sx = irdl.base "!builtin.vector"
    %sw = irdl.base "!builtin.vector"
    irdl.operands(a: %a, b: %b, acc: %acc, sx: %sx, sw: %sw)
    %res = irdl.base "!builtin.vector"
    irdl.results(result: %res)
  }

  // Writes out[out_row + r, out_col + c] = bf16(acc[r, c] * sa[sa_row + r] * sb[sb_base +
  // sb_col + c]) (rowwise), or bf16(acc[r, c]) (blockwise: scaled in the K loop), for
  // r < row_limit and c < col_limit.
  irdl.operation @epilogue {
    %acc = irdl.base "!builtin.vector"
    %out = irdl.base "!builtin.memref"
    %sa = irdl.base "!builtin.memref"
    %sb = irdl.base "!builtin.memref"
    %out_row = irdl.is index
    %row_limit = irdl.is index
    %out_col = irdl.is index
    %col_limit = irdl.is index
    %sa_row = irdl.is index
    %sb_base = irdl.is index
    %sb_col = irdl.is index
    irdl.operands(acc: %acc, out: %out, sa: %sa, sb: %sb, out_row: %out_row,
                  row_limit: %row_limit, out_col: %out_col, col_limit: %col_limit,
                  sa_row: %sa_row, sb_base: %sb_base, sb_col: %sb_col)
    %rowwise = irdl.is "rowwise"
    %blockwise = irdl.is "blockwise"
    %scaling = irdl.any_of(%rowwise, %blockwise)
    %t = irdl.is true
    %f = irdl.is false
    %mask_rows = irdl.any_of(%t, %f)
    %mask_cols = irdl.any_of(%t, %f)
    irdl.attributes { "scaling" = %scaling, "mask_rows" = %mask_rows, "mask_cols" = %mask_cols }
  }
}
