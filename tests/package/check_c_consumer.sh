#!/usr/bin/env bash
# A C project (tests/package/c_consumer) against an installed probe, the two ways docs/c.md
# gives: CMake with LANGUAGES C (find_package, probe::c) and a plain Makefile (libprobe.a and
# the C++ runtime). Each program dumps its op and prints its metric line.
# Usage: check_c_consumer.sh PREFIX WORK_DIR
set -euo pipefail
prefix=$1 work=$2
src=$(cd "$(dirname "$0")" && pwd)/c_consumer
rm -rf "$work" && mkdir -p "$work"
check() {  # PROGRAM LABEL
  rm -rf "$work/dump"
  out=$(PROBE_FLAGS="--probe_dump_to=$work/dump --probe_dump_stats_only" "$1")
  grep -q '^score: 8$' <<<"$out" || { echo "$2: no metric line: $out"; exit 1; }
  grep -q '"key":"scale#0/out/x"' "$work/dump/manifest.jsonl" || { echo "$2: no dump"; exit 1; }
  echo "$2: ok"
}
cmake -S "$src" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/log" 2>&1 &&
  cmake --build "$work/cmake" >>"$work/log" 2>&1 || { cat "$work/log"; echo "C consumer: CMake build fails"; exit 1; }
check "$work/cmake/c_app" "cmake (LANGUAGES C)"
cp "$src/main.c" "$src/Makefile" "$work/"
lib=$(ls "$prefix"/lib*/libprobe.a | head -1)
for cc in gcc clang; do
  command -v $cc >/dev/null || continue
  make -s -C "$work" -B CC=$cc PROBE_PREFIX="$prefix" PROBE_LIB="$lib" >"$work/log" 2>&1 || { cat "$work/log"; echo "C consumer: make CC=$cc fails"; exit 1; }
  check "$work/c_app" "makefile ($cc)"
done
echo "c consumer: all ok"
