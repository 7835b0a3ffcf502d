#!/bin/sh
# Installs everything gg's build, tests and tools need on Debian 12 (bookworm).
# (python3-matplotlib: bench/gpu/report.py draws docs/performance.md's plot.)
# Idempotent: when every package is present it changes nothing and returns at once.
# Run as root (or with sudo available); `make demo` and `make test` call it for you.
set -eu

# LLVM/MLIR 22 come from bookworm-security; everything else from bookworm main.
PACKAGES="
  build-essential make python3 pkgconf python3-matplotlib
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

if [ -z "$missing" ]; then
  echo "setup: all packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "setup: missing packages:$missing" >&2
  echo "setup: run tools/setup.sh as root to install them" >&2
  exit 1
fi

echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
echo "setup: done"
