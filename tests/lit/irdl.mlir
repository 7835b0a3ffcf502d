// The dialect is defined once in IRDL: upstream mlir-opt reads and prints gg IR with it.
// RUN: %gg compile --op dynamic --groups 3,4 --N 256 --K 256 | %gg-opt -p gg-tile-level > %t.mlir
// RUN: %mlir-opt --irdl-file=%irdl %t.mlir | FileCheck %s
// CHECK: "gg.grid"
// CHECK: "gg.load_tile"
// CHECK: "gg.mma_tile"
// CHECK: "gg.epilogue"
