// gg-opt: errors carry file:line:col; bad pipelines are refused before anything runs.
// RUN: not %gg-opt %s -p no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %gg-opt %s -p "gg-tile{tile=4}" 2>&1 | FileCheck %s --check-prefix=NOOPTS
// RUN: not %gg-opt %s -p "func.func(gg-tile" 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: not %gg-opt %s -p "func.func(gg-to-host),gpu.module(gg-tile)" 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: %gg-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: not %gg-opt %S/Inputs/parse_error.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not %gg-opt %S/Inputs/bad_layout.mlir 2>&1 | FileCheck %s --check-prefix=IRDL
// RUN: %gg-opt %s -p gg-verify,canonicalize --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=PRINT

// UNKNOWN: invalid pipeline: {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// NOOPTS: invalid pipeline: gg-tile takes no options, given 'tile=4'
// UNBALANCED: invalid pipeline: unbalanced brackets in pipeline
// ANCHOR: invalid pipeline: gg-tile runs on func.func, not on gpu.module
// LIST: gg-tile
// LIST: gg-resolve-groups
// LIST: gg-to-llvm
// PARSE: parse_error.mlir:3:22: error: expected attribute value
// IRDL: bad_layout.mlir:2:3: error: '"diagonal"' does not satisfy the constraint
// PRINT: IR Dump After {{.*}}gg-verify
// PRINT: IR Dump After Canonicalizer

func.func @empty() {
  return
}
