#!/bin/sh
# The Python binding's tests on the CPU (make test runs them after the Bazel tests): every
# op against the C reference and float64, the contract errors, the fake kernels,
# torch.compile over the MoE layer, kernels from bundles, the wheel in a fresh virtual
# environment, and the expert-parallel example over two gloo ranks. PyTorch is in the
# virtual environment tools/setup.sh made ($GG_VENV, default /opt/gg/venv).
set -eu
cd "$(dirname "$0")/.."
VENV=${GG_VENV:-/opt/gg/venv}
BAZEL=${BAZEL:-bazel}
$BAZEL build //sdk:all //tools:gg //python/tests:libgg_pyref.so
BIN=$($BAZEL info bazel-bin)
export GG_LIBRARY="$BIN/sdk/libgg.so" GG_LIB_DIR="$BIN/sdk" GG_PYREF_LIBRARY="$BIN/python/tests/libgg_pyref.so"
export PYTHONPATH="$PWD/python" GG_TEST_DEVICE=cpu GG_TOOL="$BIN/tools/gg"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A fresh kernel cache, so every kernel the tests take is compiled by this build.
export GG_CACHE_DIR="$work/cache" TORCHINDUCTOR_CACHE_DIR="$work/inductor"
[ $# -gt 0 ] || set -- python/tests
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
