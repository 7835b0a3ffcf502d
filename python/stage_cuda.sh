#!/bin/sh
# Stages the Python binding's CUDA run here, on the build machine, into DIR (default
# out/python-cuda, git-ignored): the package with the runtime library inside it (no LLVM,
# no MLIR), an sm_90a bundle of the kernels the tests and examples take
# (python/tests/cuda_kernels.list), the C reference for the tests, the tests, the
# examples and pytest. Then, on the GPU machine, with DIR carried:
#   sh DIR/run.sh DIR [pytest|moe|ep|all]
set -eu
D=${1:-out/python-cuda}
bazel build -c opt //sdk:libgg_runtime.so //tools:gg //python/tests:libgg_pyref.so
BIN=$(bazel info -c opt bazel-bin)
rm -rf "$D/python" "$D/examples" "$D/bench"
mkdir -p "$D/python/gg/lib" "$D/examples" "$D/bench/gpu"
cp -r python/gg python/tests "$D/python/"
# The tests of the benchmark's scripts import them from ../../bench/gpu.
cp bench/gpu/*.py "$D/bench/gpu/"
rm -rf "$D/python/gg/__pycache__" "$D/python/tests/__pycache__"
cp "$BIN/sdk/libgg_runtime.so" "$D/python/gg/lib/"
cp "$BIN/python/tests/libgg_pyref.so" "$D/"
cp -r examples/python "$D/examples/"
cp python/run_cuda.sh "$D/run.sh"
# pytest, pure Python, for a machine without a package registry.
[ -d "$D/site/pytest" ] || "${GG_VENV:-/opt/gg/venv}/bin/pip" install -q --target "$D/site" pytest
"$BIN/tools/gg" bundle --target sm_90a --list python/tests/cuda_kernels.list -o "$D/python.ggb" --threads 2
du -sh "$D"
