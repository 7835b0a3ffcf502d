#!/bin/sh
# Installs the SDK: headers, libgg and libgg_runtime (with sonames), the tools gg, gg-opt
# and gg-launch, and the pkg-config files gg.pc and gg-runtime.pc.
#
#   tools/install.sh PREFIX [SRC [BIN]]
#
# SRC is the workspace (include/gg, sdk/*.pc.in; default .), BIN what Bazel built there
# (sdk/lib*.so, tools/gg ...; default SRC/bazel-bin): `make install` builds and passes
# those, the deploy test its runfiles for both. Nothing is built here. Files are replaced
# by rename, so a running program keeps the library it mapped.
set -eu
PREFIX=${1:?usage: tools/install.sh PREFIX [SRC [BIN]]}
SRC=${2:-.}
BIN=${3:-$SRC/bazel-bin}
VERSION=$(sed -n 's/^#define GG_VERSION_STRING "\(.*\)"$/\1/p' "$SRC/include/gg/version.h")
MAJOR=${VERSION%%.*}
[ -n "$VERSION" ] || { echo "install: no version in $SRC/include/gg/version.h" >&2; exit 1; }

for f in "$SRC/include/gg/gg.h" "$SRC/include/gg/op.h" "$SRC/include/gg/status.h" \
         "$SRC/include/gg/version.h" "$SRC/sdk/gg.pc.in" "$SRC/sdk/gg-runtime.pc.in" \
         "$BIN/sdk/libgg.so" "$BIN/sdk/libgg_runtime.so" "$BIN/tools/gg" "$BIN/tools/gg-opt" \
         "$BIN/tools/gg-launch"; do
  [ -f "$f" ] || { echo "install: $f is missing (make install builds it)" >&2; exit 1; }
done

mkdir -p "$PREFIX/include/gg" "$PREFIX/lib/pkgconfig" "$PREFIX/bin"
# put SOURCE DEST MODE: a copy beside DEST, renamed over it.
put() {
  cp "$1" "$2.new.$$"
  chmod "$3" "$2.new.$$"
  mv -f "$2.new.$$" "$2"
}
for h in gg.h op.h status.h version.h; do put "$SRC/include/gg/$h" "$PREFIX/include/gg/$h" 644; done
for lib in gg gg_runtime; do
  put "$BIN/sdk/lib$lib.so" "$PREFIX/lib/lib$lib.so.$VERSION" 755
  ln -sfn "lib$lib.so.$VERSION" "$PREFIX/lib/lib$lib.so.$MAJOR"
  ln -sfn "lib$lib.so.$MAJOR" "$PREFIX/lib/lib$lib.so"
done
for tool in gg gg-opt gg-launch; do put "$BIN/tools/$tool" "$PREFIX/bin/$tool" 755; done
for pc in gg gg-runtime; do
  sed -e "s|@PREFIX@|$PREFIX|" -e "s|@VERSION@|$VERSION|" "$SRC/sdk/$pc.pc.in" >"$PREFIX/lib/pkgconfig/$pc.pc.new.$$"
  mv -f "$PREFIX/lib/pkgconfig/$pc.pc.new.$$" "$PREFIX/lib/pkgconfig/$pc.pc"
done
echo "installed gg $VERSION into $PREFIX"
