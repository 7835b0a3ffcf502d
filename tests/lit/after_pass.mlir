// gg compile --after PASS prints the module right after that pass of the target's whole
// pipeline, at any depth of the named pipelines; an unknown pass is refused.
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --after gg-resolve-groups | FileCheck %s --check-prefix=RESOLVED
// RUN: %gg compile --op stacked --groups 1,2 --N 256 --K 512 --target gfx950 --after convert-gpu-to-rocdl | FileCheck %s --check-prefix=ROCDL
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --after gg-no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %gg compile --op stacked --groups 1,2 --N 256 --K 512 --after gg-tile --emit isa 2>&1 | FileCheck %s --check-prefix=COMBINED

// RESOLVED: gg.grid
// RESOLVED-NOT: gg.resolve_group
// RESOLVED: gg.load_tile

// ROCDL: gpu.module
// ROCDL: rocdl.workitem.id.x
// ROCDL-NOT: gpu.binary

// UNKNOWN: error: compiling gg_sizes_{{.*}}: no pass or pipeline 'gg-no-such-pass' in 'gg-to-llvm'

// COMBINED: error: --after prints MLIR; it does not combine with --emit or --stats
