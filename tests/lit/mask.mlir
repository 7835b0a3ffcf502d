// gg-mask keeps a bound only where range facts cannot prove it redundant. Bounds are the
// group's own: A's rows (group sizes are runtime metadata) always stay bounded.
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 | %gg-opt -p gg-tile-level | FileCheck %s --check-prefix=DIVISIBLE
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 200 --K 400 | %gg-opt -p gg-tile-level | FileCheck %s --check-prefix=TAILS
// RUN: %gg compile --op mm --ranks 3d3d --groups 4,4 --N 200 --K 400 --loop unrolled | %gg-opt -p gg-tile-level | FileCheck %s --check-prefix=UNROLLED
// RUN: %gg compile --op mm --ranks 2d2d --groups 256,256 --N 256 | %gg-opt -p gg-tile-level | FileCheck %s --check-prefix=KSPLIT

// N and K divide the tile: no K predicate anywhere, no predicate on B's rows or on the
// output's columns.
// DIVISIBLE-NOT: mask_k = true
// DIVISIBLE: "gg.load_tile"{{.*}} {mask_k = false, mask_rows = true, operand = "a"}
// DIVISIBLE: "gg.load_tile"{{.*}} {mask_k = false, mask_rows = false, operand = "b"}
// DIVISIBLE: scf.for
// DIVISIBLE: "gg.epilogue"{{.*}} {mask_cols = false, mask_rows = true, scaling = "rowwise"}

// N = 200 and K = 400 do not: the K predicate lives only in the peeled last tile (K 384),
// and B's rows and the output's columns are bounded.
// TAILS: "gg.load_tile"{{.*}} {mask_k = false, mask_rows = true, operand = "b"}
// TAILS: scf.for
// TAILS: "gg.load_tile"{{.*}} {mask_k = false, mask_rows = true, operand = "a"}
// TAILS: "gg.load_tile"{{.*}} {mask_k = false, mask_rows = true, operand = "b"}
// TAILS: } {gg.loop = "prefetch"}
// TAILS: "gg.load_tile"({{.*}}, %c384, {{.*}} {mask_k = true, mask_rows = true, operand = "a"}
// TAILS: "gg.load_tile"({{.*}}, %c384, {{.*}} {mask_k = true, mask_rows = true, operand = "b"}
// TAILS: "gg.epilogue"{{.*}} {mask_cols = true, mask_rows = true, scaling = "rowwise"}

// UNROLLED: "gg.load_tile"({{.*}}, %c0{{[_0-9]*}}, {{.*}} {mask_k = false
// UNROLLED: "gg.load_tile"({{.*}}, %c128{{[_0-9]*}}, {{.*}} {mask_k = false
// UNROLLED: "gg.load_tile"({{.*}}, %c256{{[_0-9]*}}, {{.*}} {mask_k = false
// UNROLLED: "gg.load_tile"({{.*}}, %c384{{[_0-9]*}}, {{.*}} {mask_k = true

// 2D-2D: the total K (512) is tile-aligned, but each group's slice is a runtime range:
// every K bound stays.
// KSPLIT-NOT: mask_k = false
// KSPLIT: "gg.load_tile"{{.*}} {mask_k = true
// KSPLIT-NOT: mask_k = false
