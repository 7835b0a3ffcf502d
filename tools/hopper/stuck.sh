#!/bin/sh
# Where a hung sm_90a launch is stuck, on the GPU machine (cuda-gdb attaches there):
#
#   tools/hopper/stuck.sh PID [OUT_DIR]
#
# PID is the process whose launch never ends (bench.py, gg-launch, a user's program). The
# first attach lists the kernels, the blocks still running and their threads grouped by
# PC; the second takes the first block still running and shows the next instructions of
# lane 0 of each of its warps (gg's sm_90a kernels run 384 threads: the producer's
# warpgroup, then the two consumers'). Lanes of one warp at different PCs are a warp that
# came apart. A warp that has ended reads 'Invalid coordinates', and the instructions after
# it repeat the previous warp's (cuda-gdb keeps its focus). Map an offset (kernel+N) to the SASS with tools/hopper/sass.sh here. Both
# attaches detach again; the process is left as it was (unless cuda-gdb runs past its
# 150 s limit and is killed while attached). Where several kernels are running, the block
# read is one of the kernel in cuda-gdb's focus. Output also goes to OUT_DIR
# (default: the current folder) as stuck-threads.txt and stuck-warps.txt.
set -u
[ $# -ge 1 ] || { echo "usage: tools/hopper/stuck.sh PID [OUT_DIR]" >&2; exit 2; }
pid=$1
case "$pid" in '' | *[!0-9]*) echo "stuck.sh: PID must be a process id, not '$pid'" >&2; exit 2 ;; esac
out=${2:-.}
mkdir -p "$out"
command -v cuda-gdb >/dev/null || { echo "stuck.sh: no cuda-gdb on this machine" >&2; exit 2; }
timeout 150 cuda-gdb -p "$pid" -batch -ex "info cuda kernels" -ex "info cuda blocks" \
  -ex "info cuda threads" >"$out/stuck-threads.txt" 2>&1
code=$?
grep -v '^\[' "$out/stuck-threads.txt" | cut -c1-160
[ "$code" = 0 ] || { echo "stuck.sh: cuda-gdb ended with $code" >&2; exit 1; }
block=$(grep -oE '^[* ]*\([0-9]+,0,0\)' "$out/stuck-threads.txt" | head -n 1 | grep -oE '[0-9]+' | head -n 1)
[ -n "$block" ] || { echo "stuck.sh: no CUDA block is running in process $pid" >&2; exit 1; }
set --
for thread in 0 32 64 96 128 160 192 224 256 288 320 352; do
  set -- "$@" -ex "echo -- thread $thread\\n" -ex "cuda block ($block,0,0) thread ($thread,0,0)" -ex "x/3i \$pc"
done
timeout 150 cuda-gdb -p "$pid" -batch "$@" >"$out/stuck-warps.txt" 2>&1
code=$?
echo "== block $block, lane 0 of each warp"
grep -E '^-- thread|^=>|^   0x|Invalid' "$out/stuck-warps.txt" | cut -c1-160
[ "$code" = 0 ] || { echo "stuck.sh: cuda-gdb ended with $code" >&2; exit 1; }
