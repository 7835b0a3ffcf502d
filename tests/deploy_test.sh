#!/bin/sh
# The SDK as a user meets it (see tests/BUILD): nothing of LLVM or MLIR under the runtime,
# the exported symbols, the install script, pkg-config, a program outside Bazel on a
# bundle, and gg-launch.
set -eu
R="$TEST_SRCDIR/gg"
T="$TEST_TMPDIR"
P="$T/prefix"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# expect WHAT CODE COMMAND...: runs it, requires exit CODE; its output is left in $T/out.
expect() {
  what=$1 want=$2
  shift 2
  set +e
  "$@" >"$T/out" 2>&1
  got=$?
  set -e
  [ "$got" = "$want" ] || { cat "$T/out" >&2; fail "$what: exit $got, want $want"; }
}

echo "== no LLVM or MLIR under the runtime (DT_NEEDED, and ldd's transitive closure)"
for f in "$R/sdk/libgg_runtime.so" "$R/tools/gg-launch"; do
  if readelf -d "$f" | grep NEEDED | grep -iE 'llvm|mlir'; then fail "$f needs LLVM or MLIR"; fi
  if ldd "$f" | grep -iE 'llvm|mlir'; then fail "$f loads LLVM or MLIR"; fi
  echo "  $(basename "$f"): $(readelf -d "$f" | grep -c NEEDED) needed, none of LLVM or MLIR"
done
# The check can fail: libgg holds the compiler.
readelf -d "$R/sdk/libgg.so" | grep NEEDED | grep -q libMLIR || fail "libgg.so does not need libMLIR?"

echo "== the exported functions are the headers' functions"
cat "$R"/include/gg/*.h | tr '\n' ' ' | grep -oE '\bgg_[a-z0-9_]+\(' | tr -d '(' | sort -u >"$T/declared"
for lib in libgg libgg_runtime; do
  nm -D --defined-only "$R/sdk/$lib.so" | awk '$2 == "T" { print $3 }' | sort -u >"$T/exported"
  diff "$T/declared" "$T/exported" >&2 || fail "$lib.so exports other functions than include/gg declares"
  readelf -d "$R/sdk/$lib.so" | grep -q "SONAME.*\[$lib.so.0\]" || fail "$lib.so has no soname $lib.so.0"
  echo "  $lib.so: $(wc -l <"$T/exported") functions, soname $lib.so.0"
done

echo "== install into a temporary prefix"
sh "$R/tools/install.sh" "$P" "$R" "$R"
for f in include/gg/gg.h include/gg/version.h lib/libgg.so lib/libgg_runtime.so.0 bin/gg \
         bin/gg-opt bin/gg-launch lib/pkgconfig/gg.pc lib/pkgconfig/gg-runtime.pc; do
  [ -e "$P/$f" ] || fail "$P/$f was not installed"
done
sh "$R/tools/install.sh" "$P" "$R" "$R" >/dev/null  # again: idempotent
export PKG_CONFIG_PATH="$P/lib/pkgconfig" LD_LIBRARY_PATH="$P/lib"
[ "$(pkg-config --modversion gg-runtime)" = "$(sed -n 's/.*GG_VERSION_STRING "\(.*\)"/\1/p' "$R/include/gg/version.h")" ] ||
  fail "gg-runtime.pc's version is not the header's"

echo "== a C program outside Bazel, built with pkg-config"
# Sanitized builds of the libraries need the sanitizer runtime first in the program.
SAN=""
if readelf -d "$R/sdk/libgg_runtime.so" | grep NEEDED | grep -q libasan; then
  SAN="-fsanitize=address,undefined"
fi
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror $SAN "$R/sdk/example/serve.c" $(pkg-config --cflags --libs gg-runtime) -o "$T/serve_runtime"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror $SAN "$R/sdk/example/serve.c" $(pkg-config --cflags --libs gg) -o "$T/serve_gg"
ldd "$T/serve_runtime" | grep -q "$P/lib/libgg_runtime.so.0" || fail "serve does not load the installed libgg_runtime"
if ldd "$T/serve_runtime" | grep -iE 'llvm|mlir'; then fail "the runtime program loads LLVM or MLIR"; fi

cd "$T"
expect "gg bundle" 0 "$P/bin/gg" bundle --target host -o serve.ggb --op stacked --groups 100,0,37 --N 256 --K 256
grep -q "1 kernel for host" out || { cat out; fail "gg bundle's summary"; }
expect "serve on the bundle" 0 ./serve_runtime serve.ggb
grep -q "^ok .*from bundles 1, compiled 0" out || { cat out; fail "serve_runtime's kernel"; }
cat out
expect "serve without the bundle" 1 ./serve_runtime
grep -q "not found" out && grep -q "gg bundle -o FILE --op stacked" out || { cat out; fail "the miss"; }
expect "serve with libgg" 0 ./serve_gg
grep -q "^ok .*from bundles 0, compiled 1" out || { cat out; fail "serve_gg's kernel"; }

echo "== gg-launch"
cat >list.txt <<'EOF'
# two kernels, three problems
--op stacked --groups 100,0,37 --N 256 --K 256
--op stacked --groups 5,5,5 --N 256 --K 256   # the same kernel again
--op mm --ranks 2d2d --groups 16,512,128,368 --M 128 --N 256 --b plain
EOF
expect "gg bundle --list" 0 "$P/bin/gg" bundle --target host -o two.ggb --list list.txt --threads 2
grep -q "2 kernels for host from 3 descriptors" out || { cat out; fail "the list's summary"; }
expect "gg-launch --list" 0 "$P/bin/gg-launch" --bundle two.ggb --list --repeat 2
[ "$(grep -c '^PASS' out)" = 2 ] || { cat out; fail "gg-launch --list"; }
expect "gg-launch one problem" 0 "$P/bin/gg-launch" --bundle two.ggb --op stacked --groups 3,0,300 --N 256 --K 256 --data exact
grep -q "^PASS" out || { cat out; fail "gg-launch one problem"; }
expect "gg-launch, a kernel not bundled" 2 "$P/bin/gg-launch" --bundle two.ggb --op stacked --groups 3,3 --N 256 --K 256
grep -q "gg bundle -o FILE" out || { cat out; fail "the miss's message"; }
expect "gg-launch --replays on a host kernel" 2 "$P/bin/gg-launch" --bundle two.ggb --op stacked --groups 3,0,300 --N 256 --K 256 --replays 5
grep -q "take sm_90a kernels, not host" out || { cat out; fail "--replays' target message"; }
expect "gg-launch --replays 0" 2 "$P/bin/gg-launch" --bundle two.ggb --op stacked --groups 3,0,300 --N 256 --K 256 --replays 0
grep -q "replay count from 1 to 100000" out || { cat out; fail "--replays' count message"; }
head -c 1000 two.ggb >cut.ggb
expect "gg-launch, a truncated bundle" 2 "$P/bin/gg-launch" --bundle cut.ggb --list
grep -q "truncated" out || { cat out; fail "the truncation's message"; }
expect "gg bundle for gfx950" 0 "$P/bin/gg" bundle --target gfx950 -o amd.ggb --op stacked --groups 1,2,3 --N 256 --K 256
if [ -e /dev/kfd ]; then
  echo "  (an AMD GPU is present: gg-launch runs the gfx950 kernel on it)"
else
  expect "gg-launch, no GPU" 3 "$P/bin/gg-launch" --bundle amd.ggb --list
  grep -q "no AMD GPU" out || { cat out; fail "the missing GPU's message"; }
fi
echo "PASS"
