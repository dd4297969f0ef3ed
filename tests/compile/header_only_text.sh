#!/usr/bin/env bash
# The code a header-only marking file leaves, in bytes of .text (the same on a loaded machine,
# unlike time): a kernel file marking one op (input + output), one PROBE_SCOPE and one
# probe::metric, `-std=c++17 -O2`, header-only. Fails when it grows more than 10% over the
# recorded figure (benchmarks/README.md, "Compile cost"). The figure moves with the amount of
# runtime code every header-only marking file compiles.
# Usage: header_only_text.sh CXX INCLUDE_DIR RECORDED_BYTES WORK_DIR
#        header_only_text.sh --object OBJECT RECORDED_BYTES   (that file, compiled so already:
#        benchmarks/compile_cost.sh --text-recorded)
set -euo pipefail
if [ "$1" = --object ]; then
  object=$2 recorded=$3
else
  cxx=$1 inc=$2 recorded=$3 work=$4
  mkdir -p "$work"
  object=$work/marked.o
  "$cxx" -std=c++17 -O2 -I"$inc" -c "$(dirname "$0")/marking_kernel.cpp" -o "$object"
fi
text=$(size -A "$object" | awk '$1 ~ /^\.text/ {t += $2} END {print t + 0}')
limit=$((recorded * 110 / 100))
echo "header-only marking file: $text bytes of .text (recorded $recorded, limit $limit)"
[ "$text" -le "$limit" ] || { echo "the header-only marking file leaves more than 10% more code than recorded"; exit 1; }
