#!/bin/sh
# The main job: compile the grouped-GEMM family for gfx942 and gfx950 (code object figures)
# and for sm_90a (PTX and cubin figures), run every operator on the host CPU and in sim (the
# AMD kernels executed on the CPU), call the public C API as a library would (the examples,
# a serving loop), and run on an AMD GPU when HSA finds one and on an NVIDIA Hopper GPU when
# the CUDA driver finds one. Every run is checked against the C reference.
set -eu
cd "$(dirname "$0")/.."
GG=bazel-bin/tools/gg
# Failures inside the piped loops below happen in subshells; they leave a mark here.
FAILED=$(mktemp)
trap 'rm -f "$FAILED"' EXIT

OPS="stacked:--op stacked --groups 0,1,130,64 --N 256 --K 512
mm-2d3d:--op mm --ranks 2d3d --groups 64,0,200,17 --N 256 --K 384
dynamic:--op dynamic --groups 0,100,37,128 --M 128 --N 256 --K 256
mm-3d3d:--op mm --ranks 3d3d --groups 100,100,100 --N 256 --K 256
mm-3d2d:--op mm --ranks 3d2d --groups 8,504,128 --M 128 --K 256 --alternate-constant
mm-2d2d:--op mm --ranks 2d2d --groups 16,512,128,368 --M 128 --N 256 --alternate-constant"

run() {
  label=$1
  shift
  out=$("$GG" run "$@" 2>&1) || echo "$label" >>"$FAILED"
  printf '  %-28s %s\n' "$label" "$(echo "$out" | tail -n 1)"
}

# The layouts where a group owns a whole [N, K] also take preshuffled B.
PRESHUFFLE="stacked:--op stacked --groups 0,1,130,64 --N 256 --K 512
mm-2d3d:--op mm --ranks 2d3d --groups 64,0,200,17 --N 256 --K 384
dynamic:--op dynamic --groups 0,100,37,128 --M 128 --N 256 --K 256
mm-3d3d:--op mm --ranks 3d3d --groups 100,100,100 --N 256 --K 640"

echo "== code objects (HSA, code object v5), default tile 128x128x128, waves_per_eu 2"
for chip in gfx942 gfx950; do
  echo "$OPS" | while IFS=: read -r name args; do
    for scaling in rowwise blockwise; do
      # shellcheck disable=SC2086
      stats=$("$GG" compile $args --scaling "$scaling" --target "$chip" -o /dev/null --stats 2>&1) ||
        echo "compile $chip $name $scaling" >>"$FAILED"
      printf '  %-6s %-8s %-9s %s\n' "$chip" "$name" "$scaling" "$stats"
    done
  done
  echo "$PRESHUFFLE" | while IFS=: read -r name args; do
    # shellcheck disable=SC2086
    stats=$("$GG" compile $args --b preshuffled --target "$chip" -o /dev/null --stats 2>&1) ||
      echo "compile $chip $name preshuffled" >>"$FAILED"
    printf '  %-6s %-8s %-9s %s\n' "$chip" "$name" "preshuf" "$stats"
  done
done

echo "== sm_90a (NVIDIA Hopper): PTX through LLVM's NVPTX backend, cubin through ptxas"
# The figures come from ptxas (the CUDA toolkit); without it the kernels are PTX only.
if [ -n "${GG_PTXAS:-}" ] || [ -x /usr/local/cuda/bin/ptxas ] || command -v ptxas >/dev/null; then
  SM90_STATS="-o /dev/null --stats"
else
  echo "  (no ptxas: PTX sizes only)"
  SM90_STATS="--emit ptx"
fi
echo "$OPS" | while IFS=: read -r name args; do
  for mode in "rowwise promoted" "rowwise fast" "blockwise promoted"; do
    set -- $mode
    # shellcheck disable=SC2086
    stats=$("$GG" compile $args --scaling "$1" --accum "$2" --target sm_90a $SM90_STATS 2>&1) ||
      echo "compile sm_90a $name $mode" >>"$FAILED"
    [ "$SM90_STATS" = "--emit ptx" ] && stats="ptx_bytes=$(printf '%s' "$stats" | wc -c)"
    printf '  %-8s %-18s %s\n' "$name" "$mode" "$stats"
  done
done

for target in host "sim --chip gfx942" "sim --chip gfx950"; do
  echo "== $target: exact data (bit-identical to the reference)"
  echo "$OPS" | while IFS=: read -r name args; do
    for scaling in rowwise blockwise; do
      case "$name:$scaling" in mm-3d2d:blockwise) continue ;; esac  # needs N % 128
      # shellcheck disable=SC2086
      run "$name $scaling" $args --scaling "$scaling" --target $target --data exact
    done
  done
  echo "$PRESHUFFLE" | while IFS=: read -r name args; do
    # shellcheck disable=SC2086
    run "$name preshuffled" $args --b preshuffled --target $target --data exact
  done
done
echo "== host and sim, random data (within one bf16 ulp plus an FP32 accumulation bound)"
run "stacked host" --op stacked --groups 0,1,130,64 --N 256 --K 512 --data random --seed 7
run "stacked sim gfx950" --op stacked --groups 0,1,130,64 --N 256 --K 512 --data random --seed 7 --target sim
run "stacked preshuffled sim" --op stacked --groups 0,1,130,64 --N 256 --K 512 --data random --seed 7 --target sim --b preshuffled

echo "== the C API (include/gg/gg.h) on the host: the examples, compiled through the cache"
# Each example's status is its own, not that of the pipe that indents its output.
example() {
  name=$1
  shift
  out=$("bazel-bin/examples/$name" "$@" 2>&1) || echo "example $name" >>"$FAILED"
  echo "$out" | sed 's/^/  /'
}
for name in stacked dynamic mm groupwise; do example "$name"; done
example serving 2 8

echo "== deployment: the demo's kernels bundled ahead of time, run by gg-launch (no LLVM or MLIR)"
BUNDLES=$(mktemp -d)
trap 'rm -f "$FAILED"; rm -rf "$BUNDLES"' EXIT
# Every operator, both scalings, and preshuffled B where it applies: one line per kernel.
{
  echo "$OPS" | while IFS=: read -r name args; do
    for scaling in rowwise blockwise; do
      case "$name:$scaling" in mm-3d2d:blockwise) continue ;; esac
      echo "$args --scaling $scaling"
    done
  done
  echo "$PRESHUFFLE" | while IFS=: read -r name args; do echo "$args --b preshuffled"; done
} >"$BUNDLES/demo.txt"
grep -v preshuffled "$BUNDLES/demo.txt" >"$BUNDLES/demo-plain.txt"  # sm_90a reads plain B
for target in host gfx942 gfx950 sm_90a; do
  list="$BUNDLES/demo.txt"
  [ "$target" = sm_90a ] && list="$BUNDLES/demo-plain.txt"
  out=$("$GG" bundle --target "$target" -o "$BUNDLES/demo-$target.ggb" --list "$list" 2>&1) ||
    echo "bundle $target" >>"$FAILED"
  echo "  $out"
done
echo "  gg-launch needs: $(readelf -d bazel-bin/tools/gg-launch | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
out=$(bazel-bin/tools/gg-launch --bundle "$BUNDLES/demo-host.ggb" --list --data exact 2>&1) ||
  echo "gg-launch host" >>"$FAILED"
echo "$out" | grep -E '^(#|PASS|FAIL|error)' | paste - - | sed 's/ checksum=.*//' |
  awk -F'\t' '{ printf "  %-100s %s\n", substr($1, 3), $2 }'
for target in gfx950 sm_90a; do
  set +e
  out=$(bazel-bin/tools/gg-launch --bundle "$BUNDLES/demo-$target.ggb" --list --data exact 2>&1)
  code=$?
  set -e
  case $code in
    0) echo "$out" | grep -cE '^PASS' | sed "s/^/  $target on the GPU: PASS x /" ;;
    3) echo "  $target bundle: not run: $(echo "$out" | grep '^error' | head -n 1 | sed 's/^error: //')" ;;
    *) echo "$out" | tail -n 3; echo "gg-launch $target" >>"$FAILED" ;;
  esac
done

echo "== AMD GPU through HSA"
if probe=$("$GG" run --op stacked --groups 0,1,130,64 --N 256 --K 512 --target hsa 2>&1); then
  echo "$OPS" | while IFS=: read -r name args; do
    for scaling in rowwise blockwise; do
      case "$name:$scaling" in mm-3d2d:blockwise) continue ;; esac
      # shellcheck disable=SC2086
      run "$name $scaling" $args --scaling "$scaling" --target hsa --data exact
    done
  done
  echo "$PRESHUFFLE" | while IFS=: read -r name args; do
    # shellcheck disable=SC2086
    run "$name preshuffled" $args --b preshuffled --target hsa --data exact
  done
elif [ $? -eq 3 ]; then
  echo "  not run: $(echo "$probe" | tail -n 1 | sed 's/^error: //')"
  echo "  (the gfx942 and gfx950 kernels above were checked in sim, not on hardware)"
else
  echo "  $probe"
  echo "GPU probe" >>"$FAILED"
fi

echo "== NVIDIA GPU through the CUDA driver"
if probe=$("$GG" run --op stacked --groups 0,1,130,64 --N 256 --K 512 --target sm_90a 2>&1); then
  echo "$OPS" | while IFS=: read -r name args; do
    for mode in "rowwise promoted" "rowwise fast" "blockwise promoted"; do
      set -- $mode
      case "$name:$1" in mm-3d2d:blockwise) continue ;; esac
      # shellcheck disable=SC2086
      run "$name $mode" $args --scaling "$1" --accum "$2" --target sm_90a --data exact
    done
  done
elif [ $? -eq 3 ]; then
  echo "  not run: $(echo "$probe" | tail -n 1 | sed 's/^error: //')"
  echo "  (tools/hopper/check.sh runs the sm_90a kernels on an H200: docs/nvidia.md)"
else
  echo "  $probe"
  echo "NVIDIA GPU probe" >>"$FAILED"
fi

if [ -s "$FAILED" ]; then
  echo "== FAILED:"
  sed 's/^/  /' "$FAILED"
  exit 1
fi
echo "== all runs passed"
