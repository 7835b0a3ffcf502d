#!/bin/sh
# Stages the H200 tuning sweep (docs/tuning.md) into DIR (default out/bench-tune,
# git-ignored): the runtime, the candidates of every tuned case (gg tune --candidates over
# bench/gpu/tune.py's base lines) in one bundle with the entry points' own kernels, and the
# scripts. Then, on the GPU machine, with DIR carried:
#   python3 DIR/bench.py DIR --tune DIR/candidates.list --tune-out TABLE [--match total=16]
set -eu
D=${1:-out/bench-tune}
bazel build -c opt //sdk:libgg_runtime.so //tools:gg
BIN=$(bazel info -c opt bazel-bin)
mkdir -p "$D"
rm -f "$D/libgg_runtime.so"
cp "$BIN/sdk/libgg_runtime.so" "$D/libgg_runtime.so"
cp bench/gpu/bench.py bench/gpu/cases.py bench/gpu/ggrt.py bench/gpu/tune.py bench/gpu/autotune_check.py "$D/"
python3 bench/gpu/tune.py base > "$D/base.list"
"$BIN/tools/gg" tune --target sm_90a --candidates --list "$D/base.list" > "$D/candidates.list"
cat "$D/base.list" "$D/candidates.list" > "$D/kernels.list"
"$BIN/tools/gg" bundle --target sm_90a --list "$D/kernels.list" -o "$D/bench.ggb" --threads 2
ls -la "$D"
