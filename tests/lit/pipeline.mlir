// The named pipeline gg-to-llvm takes gg IR to the LLVM dialect, with the C interface
// the JIT calls. gg passes, named pipelines and upstream passes mix in one pipeline.
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 | %gg-opt -p gg-to-llvm | FileCheck %s
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 | %gg-opt -p "builtin.module(gg-tile-level,func.func(canonicalize,cse),gg-to-host,gg-host-to-llvm)" | FileCheck %s
// RUN: %gg compile --op mm --ranks 2d2d --groups 1,2 --N 256 --K 512 --emit llvm | FileCheck %s --check-prefix=LLVMIR

// CHECK-NOT: "gg.
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK: llvm.func @gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w2_rolled_host(
// CHECK: llvm.func @_mlir_ciface_gg_sizes_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w2_rolled_host(

// LLVMIR: define void @_mlir_ciface_gg_k_offsets_rowwise_plain_e4m3fn_n256_k512_g2_t128x128x128_w2_rolled_host(
