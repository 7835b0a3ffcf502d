#!/bin/sh
# Runs on the GPU machine (which has no LLVM or MLIR): the runtime-only deployment from
# bundles built here. Stage out/device first (README, "Deploying"): gg-launch,
# libgg_runtime.so.0, sdk/example/serve built against it, a host bundle and a gfx950
# bundle of out/device/list.txt. Prints what each step did and a table last.
set -u
D=${1:-out/device}
export LD_LIBRARY_PATH="$D"
echo "== the machine"
uname -m; grep -m1 'model name' /proc/cpuinfo
echo "LLVM/MLIR libraries known to the loader: $(ldconfig -p | grep -ciE 'libLLVM|libMLIR')"
echo "== gg-launch and serve need"
ldd "$D/gg-launch" "$D/serve"
row() { printf '| %-44s | %4s | %s |\n' "$1" "$2" "$3"; }
TABLE=""
step() {
  label=$1
  shift
  out=$("$@" 2>&1)
  code=$?
  echo "== $label (exit $code)"
  echo "$out"
  TABLE="$TABLE$(row "$label" "$code" "$(echo "$out" | grep -E '^(PASS|FAIL|ok|error)' | head -n 1 | cut -c1-110)")
"
}
step "gg-launch host bundle --list" "$D/gg-launch" --bundle "$D/host.ggb" --list --data exact
step "serve (libgg_runtime.so) on the host bundle" "$D/serve" "$D/host.ggb"
step "gg-launch gfx950 bundle --list" "$D/gg-launch" --bundle "$D/gfx950.ggb" --list
echo
row "step" "exit" "first verdict line"
echo "|---|---:|---|"
printf '%s' "$TABLE"
