#!/bin/sh
# Installs everything gg's build, tests and tools need on Debian 12 (bookworm): the Debian
# packages, then PyTorch and pytest from PyPI into a virtual environment for the Python
# binding ($GG_VENV, default /opt/gg/venv; about 5 GB with torch's CUDA libraries).
# (python3-matplotlib: bench/gpu/report.py draws docs/performance.md's plot.)
# Idempotent: when everything is present it changes nothing and returns at once.
# Run as root (or with sudo available); `make demo` and `make test` call it for you.
set -eu

# LLVM/MLIR 22 come from bookworm-security; everything else from bookworm main.
PACKAGES="
  build-essential make python3 python3-venv pkgconf python3-matplotlib
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools llvm-22 lld-22
  libhsa-runtime-dev libgtest-dev libdlpack-dev
  bazel-bootstrap
"

missing=""
for p in $PACKAGES; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in
    "install ok installed") ;;
    *) missing="$missing $p" ;;
  esac
done

# The Python binding's environment: pinned versions, checked by importing them.
VENV=${GG_VENV:-/opt/gg/venv}
PYTHON_PACKAGES="torch==2.11.0 pytest==9.2.0 numpy==2.4.6 setuptools wheel"
python_ready() {
  "$VENV/bin/python" -c 'import torch, pytest, numpy, setuptools, wheel
assert torch.__version__.split("+")[0] == "2.11.0" and pytest.__version__ == "9.2.0"' 2>/dev/null
}

if [ -z "$missing" ] && python_ready; then
  echo "setup: all packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "setup: missing:$missing${missing:+ }$(python_ready || echo "the Python environment $VENV")" >&2
  echo "setup: run tools/setup.sh as root to install them" >&2
  exit 1
fi

if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

if ! python_ready; then
  echo "setup: installing $PYTHON_PACKAGES into $VENV (PyPI)"
  [ -x "$VENV/bin/python" ] || $SUDO /usr/bin/python3 -m venv "$VENV"
  # shellcheck disable=SC2086
  $SUDO "$VENV/bin/pip" install -q --disable-pip-version-check $PYTHON_PACKAGES
  python_ready || { echo "setup: $VENV does not import torch and pytest after installing" >&2; exit 1; }
fi
echo "setup: done"
