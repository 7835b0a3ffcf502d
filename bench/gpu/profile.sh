#!/bin/sh
# Nsight Compute over single launches of the GPU benchmark, on the GPU machine:
#
#   sh DIR/profile.sh DIR OUTDIR NAME "BENCH ARGS" [NAME "BENCH ARGS"]...
#
# For each NAME, bench.py runs with BENCH ARGS (--match ... --config ...: one case, one
# configuration, so the first gg launch, its check, is the one profiled) under ncu, which
# reads the launch (grid, cluster, registers), the occupancy (clusters resident at once),
# the speed of light, the compute and memory workloads, the warp stalls by reason, the
# tensor pipe's active cycles and the SM clock. The full report goes to OUTDIR/NAME-gg.txt.
# With GG_PROFILE_TORCH=1 the same bench run is profiled again for torch's kernel (the
# first CUTLASS launch, torch._scaled_grouped_mm's GEMM) into OUTDIR/NAME-torch.txt: the
# two kernels side by side on the same case. A short table is printed last.
# The clocks are left alone (--clock-control none), as the machine's notes require.
set -u
D=$1
O=$2
shift 2
export NCCL_NVLS_ENABLE=0
sides="gg"
[ "${GG_PROFILE_TORCH:-0}" = 1 ] && sides="gg torch"
metrics="sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum"
for reason in barrier long_scoreboard short_scoreboard wait math_pipe_throttle mio_throttle \
  lg_throttle membar sleeping dispatch_stall no_instruction branch_resolving not_selected selected; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio"
done
names=""
while [ $# -ge 2 ]; do
  name=$1
  args=$2
  shift 2
  names="$names $name"
  for side in $sides; do
    # gg's kernels are named gg_*; torch's GEMM is a CUTLASS device kernel.
    kernel='regex:^gg'
    [ "$side" = torch ] && kernel='regex:cutlass'
    # shellcheck disable=SC2086  # the bench arguments are words
    timeout 170 ncu --clock-control none --target-processes all --kernel-name-base demangled \
      -k "$kernel" --launch-count 1 \
      --section LaunchStats --section Occupancy --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section SchedulerStats --metrics "$metrics" \
      python3 "$D/bench.py" "$D" --quick --only fast $args >"$O/$name-$side.txt" 2>&1
    echo "$name-$side: ncu exit $?"
  done
done
printf '%-20s %s\n' profile "duration | SM clock | tensor pipe % | DRAM % | instructions | grid | cluster | max active clusters"
for name in $names; do
  for side in $sides; do
    f="$O/$name-$side.txt"
    pick() { grep -m1 -E "^ +$1 " "$f" | awk '{print $NF}'; }
    printf '%-20s %s | %s | %s | %s | %s | %s | %s | %s\n' "$name-$side" "$(pick 'Duration')" \
      "$(pick 'sm__cycles_elapsed.avg.per_second')" \
      "$(pick 'sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active')" \
      "$(pick 'DRAM Throughput')" "$(pick 'smsp__inst_executed.sum')" "$(pick 'Grid Size')" \
      "$(pick 'Cluster Size')" "$(pick 'Max Active Clusters')"
    grep -E 'Warp Cycles Per Issued Instruction|Issue Slots Busy|No Eligible|One or More Eligible' "$f" | head -4 | sed 's/^/      /'
    # The three largest stall reasons (warps stalled per issued instruction).
    grep -E '^ +smsp__average_warps_issue_stalled_' "$f" | awk '{print $NF, $1}' | sort -rn | head -3 |
      sed -e 's/smsp__average_warps_issue_stalled_//' -e 's/_per_issue_active.ratio//' -e 's/^/      stall /'
  done
done
