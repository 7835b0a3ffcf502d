#!/bin/sh
# The sm_90a backend checked on a real Hopper GPU, in two steps:
#
#   tools/hopper/check.sh stage [DIR]   here (the build machine): builds gg and gg-launch,
#                                       bundles every problem of tools/hopper/cases.list for
#                                       sm_90a, and puts what the GPU machine needs in DIR
#                                       (default out/hopper, git-ignored).
#   tools/hopper/check.sh run [DIR]     on the GPU machine (no LLVM, no MLIR, no build):
#                                       every case with exact data (bit-identical to the C
#                                       reference), random data (within the documented
#                                       bound; the odd cases' output 2 bytes past a
#                                       16-byte boundary), and replayed from a CUDA graph (cases
#                                       GG_CHECK_JOBS at a time, default 6; only those whose
#                                       flags match GG_CHECK_ONLY, a regular expression, if
#                                       set: GG_CHECK_ONLY=split-k for split-K's).
#   tools/hopper/check.sh sanitize [DIR]  there too: compute-sanitizer memcheck, racecheck
#                                       and synccheck on a small set.
#   tools/hopper/check.sh stress [DIR]  there too: each case of tools/hopper/stress.list
#                                       launched GG_STRESS_REPEAT times (default 100), each
#                                       launch GG_STRESS_REPLAYS (default 20) replays of a
#                                       CUDA graph back to back, random data, under a time
#                                       limit (GG_STRESS_SECONDS, default 90): a kernel that
#                                       hangs now and then fails here instead of in a
#                                       benchmark; GG_STRESS_TOOL=racecheck (or memcheck,
#                                       synccheck) runs each under compute-sanitizer (with
#                                       fewer: GG_STRESS_REPEAT=5 GG_STRESS_REPLAYS=2). Staged with
#                                       GG_SM90_WAIT_LIMIT set, the kernels' waits give up
#                                       and say which barrier they waited on.
#   tools/hopper/check.sh all [DIR]     run and sanitize (over ten minutes: the device
#                                       machine's limit per command is why they are two).
# Each prints a table last and exits 1 if anything failed.
#
# Every check poisons the output first and fails on an element left unwritten or one
# written outside the groups (tests/support/verify.c).
set -u
mode=${1:-}
D=${2:-out/hopper}
CASES=tools/hopper/cases.list
STRESS=tools/hopper/stress.list

stage() {
  set -e
  bazel build -c opt //tools:gg //tools:gg-launch
  mkdir -p "$D"
  rm -f "$D/gg-launch"
  cp bazel-bin/tools/gg-launch "$D/gg-launch"
  chmod u+w "$D/gg-launch"
  cp "$CASES" "$D/cases.list"
  cp "$STRESS" "$D/stress.list"
  cat "$CASES" "$STRESS" | bazel-bin/tools/gg bundle --target sm_90a --list - -o "$D/cases.ggb"
  ls -la "$D"
}

# The verdict of one gg-launch run: PASS/FAIL and its figures, or the error (exit 124: it
# ran past its time limit, $limit seconds, default 120).
verdict() {
  out=$(timeout "${limit:-120}" "$@" 2>&1)
  code=$?
  line=$(echo "$out" | grep -E '^(PASS|FAIL)' | tail -n 1)
  [ -z "$line" ] && line=$(echo "$out" | grep -E 'error' | head -n 1)
  [ -z "$line" ] && [ "$code" = 124 ] && line="timed out after ${limit:-120} s (a hang?)"
  # A bundle built with GG_SM90_WAIT_LIMIT (docs/nvidia.md, "Debugging a hang"): the first
  # waits that gave up, on the log.
  echo "$out" | grep -m 8 'wait gave up' >&2
  echo "$code ${line:-exit $code}"
}

# One case's three runs: its report lines in $T/case.N, its table row in $T/row.N, and
# $T/fail.N when a run failed. Cases run GG_CHECK_JOBS at a time (default 6), so that one
# case's GPU work overlaps another's C reference, which is most of a case's time (it
# spreads its rows over the machine's cores). The odd cases' random run puts the output 2
# bytes past a 16-byte boundary ("random (out+2)" in the report), where TMA cannot store it: the
# kernels store through their threads alone.
check_case() {
  n=$1
  shift
  off=""
  [ $((n % 2)) = 1 ] && off="--out-offset 2"
  e=$(verdict "$D/gg-launch" --bundle "$D/cases.ggb" "$@" --target sm_90a --data exact --seed $n)
  r=$(verdict "$D/gg-launch" --bundle "$D/cases.ggb" "$@" --target sm_90a --data random --seed $n --repeat 3 $off)
  g=$(verdict "$D/gg-launch" --bundle "$D/cases.ggb" "$@" --target sm_90a --data exact --seed $((n + 100)) --graph --repeat 3)
  for v in "$e" "$r" "$g"; do [ "${v%% *}" = 0 ] || : >"$T/fail.$n"; done
  printf '== case %d: %s\n   exact:  %s\n   random%s: %s\n   graph:  %s\n' $n "$*" "${e#* }" "${off:+ (out+2)}" "${r#* }" "${g#* }" >"$T/case.$n"
  short() { echo "$1" | awk '{print $2, $3}' | cut -c1-28; }
  printf '| %2d | %-78s | %-28s | %-28s | %-28s |\n' $n "$*" "$(short "$e")" "$(short "$r")" "$(short "$g")" >"$T/row.$n"
}

machine() {
  echo "== the machine ($(date -u +%Y-%m-%dT%H:%MZ))"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader || true
}

# The reports of the cases finished since the last call, in the list's order (so that a
# run cut short by the device's time limit still shows every batch it finished).
show_finished() {
  i=$((shown + 1))
  while [ $i -le $n ]; do
    if [ -e "$T/case.$i" ]; then
      cat "$T/case.$i"
      [ -e "$T/fail.$i" ] && failed=1
      table="$table$(cat "$T/row.$i")
"
    fi
    i=$((i + 1))
  done
  shown=$n
}

# Every case of the list, GG_CHECK_JOBS at a time; with GG_CHECK_ONLY (an extended regular
# expression) only the cases whose flags match it, numbered and seeded as in a full run.
cases() {
  T=$(mktemp -d)
  jobs=${GG_CHECK_JOBS:-6}
  n=0
  shown=0
  started=0
  while IFS= read -r line; do
    case "$line" in '#'* | '') continue ;; esac
    n=$((n + 1))
    if [ -n "${GG_CHECK_ONLY:-}" ] && ! printf '%s\n' "$line" | grep -Eq -- "$GG_CHECK_ONLY"; then
      continue
    fi
    check_case $n $line &
    started=$((started + 1))
    if [ $((started % jobs)) -eq 0 ]; then
      wait
      show_finished
    fi
  done < "$D/cases.list"
  wait
  show_finished
  [ $started -gt 0 ] || { echo "no case matches GG_CHECK_ONLY='${GG_CHECK_ONLY:-}'"; failed=1; }
  rm -rf "$T"
}

sanitizers() {
  sanitize() {
    tool=$1
    shift
    out=$(timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 "$D/gg-launch" --bundle "$D/cases.ggb" "$@" --target sm_90a --data random 2>&1)
    code=$?
    summary=$(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -n 1)
    echo "== compute-sanitizer --tool $tool $* (exit $code)"
    echo "$out" | tail -n 4
    [ "$code" = 0 ] || failed=1
    table="$table$(printf '| %-14s | %-66s | exit %d: %s |' "$tool" "$*" "$code" "$summary")
"
  }
  for tool in memcheck racecheck synccheck; do
    sanitize $tool --op stacked --groups 0,1,130,257,64 --N 264 --K 704 --accum promoted
    sanitize $tool --op mm --ranks 2d2d --groups 0,1,130,301,48 --M 200 --N 264 --accum fast
    sanitize $tool --op dynamic --groups 0,1,130,200 --M 256 --N 256 --K 640 --scaling blockwise
    sanitize $tool --op stacked --groups 600,1,300,0,500 --N 2048 --K 128 --accum fast --tile 128x128x128
    sanitize $tool --op stacked --groups 600,1,300,0,500 --N 4096 --K 256 --accum fast --tile 128x128x128
    sanitize $tool --op mm --ranks 2d3d --groups 1,0,0,5 --N 4096 --K 2112 --accum fast --split-k 3
    sanitize $tool --op stacked --groups 1,0,3,0,17,70 --N 1536 --K 2048 --accum fast --tile 128x256x128 --split-k 4
    sanitize $tool --op stacked --groups 600,1,300,0,500 --N 1600 --K 1024 --accum promoted --tile 128x192x128 --split-k 2
    sanitize $tool --op stacked --groups 0,1,130,257,64 --N 512 --K 704 --accum fast --tile 256x256x128
    sanitize $tool --op mm --ranks 2d3d --groups 0,1,130,257,64 --N 256 --K 640 --scaling blockwise --tile 256x128x128
  done
}

# Every case of stress.list, one at a time (the GPU to itself), replayed from a CUDA graph
# many times: a race that deadlocks one launch in a few hundred shows as a time-out. Each
# of GG_STRESS_REPEAT launches copies the operands in, replays the graph GG_STRESS_REPLAYS
# times back to back (as a framework's graph runs, with no copy or wait between), and
# checks the output.
stress() {
  limit=${GG_STRESS_SECONDS:-90}
  repeat=${GG_STRESS_REPEAT:-100}
  replays=${GG_STRESS_REPLAYS:-20}
  n=0
  while IFS= read -r line; do
    case "$line" in '#'* | '') continue ;; esac
    n=$((n + 1))
    v=$(verdict ${GG_STRESS_TOOL:+compute-sanitizer --tool "$GG_STRESS_TOOL" --error-exitcode 9} \
      "$D/gg-launch" --bundle "$D/cases.ggb" $line --target sm_90a --data random --seed $n --replays "$replays" --repeat "$repeat")
    [ "${v%% *}" = 0 ] || failed=1
    echo "== stress $n${GG_STRESS_TOOL:+ ($GG_STRESS_TOOL)}: $line, $repeat launches of $replays graph replays: exit ${v%% *}, ${v#* }"
    table="$table$(printf '| s%d | %-78s | %-28s | %-28s | %-28s |' $n "$line" "-" "-" "$(echo "exit ${v%% *}: ${v#* }" | cut -c1-28)")
"
  done < "$D/stress.list"
  unset limit
}

# Runs the given steps, then prints the table; exits 1 if anything failed.
check() {
  machine
  failed=0
  table=""
  for step in "$@"; do $step; done
  echo
  echo "| #  | case (gg-launch flags) | exact data | random data (odd cases: output 2 bytes off 16) | CUDA graph replay |"
  echo "|---:|---|---|---|---|"
  printf '%s' "$table"
  [ "$failed" = 0 ] && echo "ALL PASSED" || echo "SOMETHING FAILED"
  return $failed
}

case "$mode" in
  stage) stage ;;
  run) check cases ;;
  sanitize) check sanitizers ;;
  stress) check stress ;;
  all) check cases sanitizers ;;
  *) echo "usage: tools/hopper/check.sh stage|run|sanitize|stress|all [DIR]" >&2; exit 2 ;;
esac
