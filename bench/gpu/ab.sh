#!/bin/sh
# Two staged builds of gg against each other and against torch, on the GPU machine, in one
# run: bench.py over the same cases for each build in turn, A B A B ... (ROUNDS rounds,
# default 2; one process each, so each loads its own libgg_runtime.so and bundle), then
# ab_report.py's table: per case, each side's median time over the rounds and B's speedup.
#
#   sh bench/gpu/ab.sh OUT A_DIR B_DIR [bench.py arguments...]
#
# A_DIR and B_DIR are what bench/gpu/stage.sh staged (e.g. main's build and a change's).
# The raw JSON of every run goes to OUT (OUT/a-1.json, OUT/b-1.json, ...).
set -u
O=$1
A=$2
B=$3
shift 3
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
mkdir -p "$O"
here=$(dirname "$0")
failed=0
r=1
while [ "$r" -le "${ROUNDS:-2}" ]; do
  for side in a b; do
    if [ $side = a ]; then d=$A; else d=$B; fi
    python3 "$d/bench.py" "$d" --out "$O/$side-$r.json" "$@" >"$O/$side-$r.log" 2>&1 || failed=1
    echo "round $r $side ($d): $(tail -n 1 "$O/$side-$r.log")"
  done
  r=$((r + 1))
done
python3 "$here/ab_report.py" "$O" || failed=1
exit $failed
