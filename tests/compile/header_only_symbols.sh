#!/usr/bin/env bash
# Header-only mode defines every probe function `inline`: a TU that includes probe.hpp and
# marks an op must leave no strong probe symbol in its object, or two such TUs would not
# link. Usage: header_only_symbols.sh CXX INCLUDE_DIR WORK_DIR
set -euo pipefail
cxx=$1 inc=$2 work=$3
mkdir -p "$work"
"$cxx" -std=c++17 -O0 -I"$inc" -c "$(dirname "$0")/marking_kernel.cpp" -o "$work/mark.o"
strong=$(nm -C "$work/mark.o" | awk '$2 ~ /^[TDBR]$/' | grep 'probe::' || true)
if [ -n "$strong" ]; then
  echo "strong probe symbols in a header-only TU (a definition without inline):"
  echo "$strong"
  exit 1
fi
echo "header-only TU: every probe symbol is inline"

# A TU that only includes probe.hpp emits nothing of probe's: an inline function is compiled
# only where something uses it. One virtual function declared without `inline` in its class
# but defined inline made its class's vtable (and through it most of the library) compile in
# every including TU: 10 s and 365 KB of code instead of about 1 s and none.
printf '#include <probe/probe.hpp>\n' >"$work/include_only.cpp"
"$cxx" -std=c++17 -O0 -I"$inc" -c "$work/include_only.cpp" -o "$work/include_only.o"
emitted=$(nm -C "$work/include_only.o" | awk '$2 ~ /^[TtWwVvu]$/' | grep 'probe::' || true)
if [ -n "$emitted" ]; then
  echo "a TU that only includes probe.hpp emits probe code (a vtable or thread_local rooted it):"
  echo "$emitted" | head -20
  exit 1
fi
echo "include-only TU: no probe code emitted"
