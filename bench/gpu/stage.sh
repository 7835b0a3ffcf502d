#!/bin/sh
# Stages the GPU benchmark (bench/gpu/bench.py) here, on the build machine: the runtime
# library (no LLVM, no MLIR) and one sm_90a bundle of every kernel the grid takes, with the
# scripts, into DIR (default out/bench-gpu, git-ignored). Then, on the GPU machine, with DIR
# carried:  python3 DIR/bench.py DIR [--part main|ranks|all] [--out FILE]
# Configurations beyond the defaults (NAME=ACCUM:MxNxK[/S], bench.py --config) follow DIR;
# DIR/configs.list keeps them, and bench.py --staged-configs times them all.
set -eu
D=${1:-out/bench-gpu}
[ $# -gt 0 ] && shift
bazel build -c opt //sdk:libgg_runtime.so //tools:gg
mkdir -p "$D"
# A failed staging leaves no bundle or list of an earlier one behind.
rm -f "$D/libgg_runtime.so" "$D/bench.ggb" "$D/configs.list"
cp bazel-bin/sdk/libgg_runtime.so "$D/libgg_runtime.so"
cp bench/gpu/bench.py bench/gpu/cases.py bench/gpu/ggrt.py bench/gpu/profile.sh bench/gpu/tune.py "$D/"
python3 bench/gpu/cases.py all "$@" > "$D/kernels.list"
bazel-bin/tools/gg bundle --target sm_90a --list "$D/kernels.list" -o "$D/bench.ggb" --threads 2
# The configurations named, once the bundle holds them, for bench.py --staged-configs.
[ $# -eq 0 ] || printf '%s\n' "$@" > "$D/configs.list"
ls -la "$D"
