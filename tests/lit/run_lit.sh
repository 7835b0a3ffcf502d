#!/bin/sh
# Runs the lit/FileCheck cases with the gg-opt and gg that Bazel built.
set -eu
root="${TEST_SRCDIR}/${TEST_WORKSPACE:-gg}"
exec /usr/lib/llvm-22/bin/lit -sv \
  --param gg_tools="$root/tools" \
  --param gg_irdl="$root/dialect/gg.irdl.mlir" \
  --param exec_root="${TEST_TMPDIR}/lit" \
  "$root/tests/lit"
