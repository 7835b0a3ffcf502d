#!/bin/sh
# The main job: compile and run the grouped GEMM family on the host, checked against the
# C reference on exact data (bit-identical) and on random data.
set -eu
cd "$(dirname "$0")/.."
GG=bazel-bin/tools/gg
status=0
run() {
  printf '%-72s ' "gg run $*"
  if out=$("$GG" run "$@" 2>&1); then
    echo "$out" | tail -n 1
  else
    echo "$out" | tail -n 3
    status=1
  fi
}
echo "== host target (this machine's CPU), exact data: results must be bit-identical"
run --op stacked --groups 0,1,130,64 --N 256 --K 512 --target host --data exact
run --op mm --ranks 2d3d --groups 64,0,200,17 --N 256 --K 384 --data exact
run --op dynamic --groups 0,100,37,128 --M 128 --N 256 --K 256 --data exact
run --op mm --ranks 3d3d --groups 100,100,100 --N 256 --K 256 --data exact
run --op mm --ranks 3d2d --groups 8,504,128 --M 128 --K 256 --data exact
run --op mm --ranks 2d2d --groups 16,512,128,368 --M 128 --N 256 --data exact --alternate-constant
run --op stacked --groups 128,0,250,7 --N 256 --K 512 --scaling blockwise --data exact
echo "== host target, random data: within one bf16 ulp plus an FP32 accumulation bound"
run --op stacked --groups 0,1,130,64 --N 256 --K 512 --data random --seed 7
run --op mm --ranks 2d2d --groups 288,288,288,288 --M 128 --N 256 --data random
echo "== AMD targets (gfx942, gfx950) and sim: not built yet on this checkout"
exit $status
