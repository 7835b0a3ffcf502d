#!/bin/sh
# Staged builds of gg against each other and against torch, on the GPU machine, in one run:
# bench.py over the same cases for each build in turn, A B [C ...] A B [C ...] (ROUNDS rounds,
# default 2; one process each, so each loads its own libgg_runtime.so and bundle), then
# ab_report.py's table for each build after the first: per case, each side's median time
# over the rounds and its speedup over A.
#
#   sh bench/gpu/ab.sh OUT A_DIR B_DIR [C_DIR ...] [bench.py arguments...]
#
# The build folders are what bench/gpu/stage.sh staged (e.g. main's build and one or more
# changes'); the first argument that starts with '-' begins bench.py's. The raw JSON of
# every run goes to OUT (OUT/a-1.json, OUT/b-1.json, OUT/c-1.json, ...).
set -u
O=$1
shift
builds=""
while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do
  builds="$builds $1"
  shift
done
count=$(echo $builds | wc -w)
[ "$count" -ge 2 ] || { echo "ab.sh: give at least two staged builds" >&2; exit 2; }
[ "$count" -le 6 ] || { echo "ab.sh: at most six staged builds" >&2; exit 2; }
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
mkdir -p "$O"
here=$(dirname "$0")
failed=0
r=1
while [ "$r" -le "${ROUNDS:-2}" ]; do
  sides="a b c d e f"
  for d in $builds; do
    side=${sides%% *}
    sides=${sides#* }
    python3 "$d/bench.py" "$d" --out "$O/$side-$r.json" "$@" >"$O/$side-$r.log" 2>&1 || failed=1
    echo "round $r $side ($d): $(tail -n 1 "$O/$side-$r.log")"
  done
  r=$((r + 1))
done
python3 "$here/ab_report.py" "$O" || failed=1
exit $failed
