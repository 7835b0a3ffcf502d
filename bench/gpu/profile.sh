#!/bin/sh
# Nsight Compute over single gg launches of the GPU benchmark, on the GPU machine:
#
#   sh DIR/profile.sh DIR OUTDIR NAME "BENCH ARGS" [NAME "BENCH ARGS"]...
#
# For each NAME, bench.py runs with BENCH ARGS (--match ... --config ...: one case, one
# configuration, so the first gg launch, its check, is the one profiled) under ncu, which
# reads the launch (grid, cluster, registers), the occupancy (clusters resident at once),
# the speed of light, the memory workload and the warp stalls. The full report goes to
# OUTDIR/NAME.txt; a short table of durations, DRAM throughput and stalls is printed last.
# The clocks are left alone (--clock-control none), as the machine's notes require.
set -u
D=$1
O=$2
shift 2
export NCCL_NVLS_ENABLE=0
names=""
while [ $# -ge 2 ]; do
  name=$1
  args=$2
  shift 2
  names="$names $name"
  # shellcheck disable=SC2086  # the bench arguments are words
  timeout 150 ncu --clock-control none --target-processes all -k 'regex:^gg' --launch-count 1 \
    --section LaunchStats --section Occupancy --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    python3 "$D/bench.py" "$D" --quick --only fast $args >"$O/$name.txt" 2>&1
  echo "$name: ncu exit $?"
done
printf '%-14s %s\n' profile "duration | DRAM % | grid | cluster | max active clusters"
for name in $names; do
  f="$O/$name.txt"
  pick() { grep -m1 -E "^ +$1 " "$f" | awk '{print $NF}'; }
  printf '%-14s %s | %s | %s | %s | %s\n' "$name" "$(pick 'Duration')" \
    "$(pick 'DRAM Throughput')" "$(pick 'Grid Size')" "$(pick 'Cluster Size')" \
    "$(pick 'Max Active Clusters')"
  grep -E 'Warp Cycles Per Issued Instruction|Issue Slots Busy|No Eligible|One or More Eligible' "$f" | head -4 | sed 's/^/      /'
done
