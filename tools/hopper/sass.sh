#!/bin/sh
# The SASS of an sm_90a kernel, read here (no GPU needed), and what matters in it:
#
#   tools/hopper/sass.sh CUBIN [OUT.sass]
#
# CUBIN is what `gg compile --target sm_90a ... -o k.cubin` writes. It prints counts of the
# instructions that tell a wgmma kernel's health: QGMMA (wgmma), WARPGROUP.ARRIVE and
# WARPGROUP.DEPBAR (a wait for wgmma to finish; one of each around every QGMMA means ptxas
# serialised them, ptxas note C7520), and the local-memory spills (STL/LDL) before and after
# the role split (USETMAXREG.DEALLOC: the prologue before it runs once a CTA).
#
# cuobjdump and the nvdisasm it runs are NVIDIA's, from PyPI's wheels (the CUDA toolkit here
# has ptxas only): the first run downloads them into $GG_SASS_TOOLS (default
# ~/.cache/gg/cuobjdump); they are not part of the build or the tests.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/hopper/sass.sh CUBIN [OUT.sass]" >&2; exit 2; }
cubin=$1
[ -r "$cubin" ] || { echo "sass.sh: cannot read $cubin" >&2; exit 2; }
TOOLS=${GG_SASS_TOOLS:-$HOME/.cache/gg/cuobjdump}
BIN=$TOOLS/nvidia/cu13/bin
CUOBJDUMP=$BIN/cuobjdump
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$CUOBJDUMP" ] || [ ! -x "$BIN/nvdisasm" ]; then
  mkdir -p "$TOOLS"
  python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" download -q --no-deps --disable-pip-version-check -d "$tmp/w" \
    "nvidia-cuda-cuobjdump==13.5.37" "nvidia-cuda-nvdisasm==13.5.37"
  for wheel in "$tmp"/w/*.whl; do python3 -m zipfile -e "$wheel" "$TOOLS"; done
  chmod +x "$CUOBJDUMP" "$BIN/nvdisasm"
fi
out=${2:-$tmp/k.sass}
PATH=$BIN:$PATH "$CUOBJDUMP" -sass "$cubin" > "$out"
awk '
  / USETMAXREG\.DEALLOC/ { split_seen = 1 }
  / QGMMA/ { qgmma++ }
  / WARPGROUP\.ARRIVE/ { arrive++ }
  / WARPGROUP\.DEPBAR/ { depbar++ }
  / (STL|LDL)(\.[A-Z0-9]+)* / { if (split_seen) spill_roles++; else spill_prologue++ }
  END {
    printf "qgmma=%d warpgroup_arrive=%d warpgroup_depbar=%d spills_prologue=%d spills_roles=%d\n",
      qgmma, arrive, depbar, spill_prologue, spill_roles
    if (qgmma > 0 && arrive >= qgmma && depbar >= qgmma)
      print "sass.sh: every QGMMA has an arrive and a wait of its own: serialised" > "/dev/stderr"
  }' "$out"
