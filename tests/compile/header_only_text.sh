#!/usr/bin/env bash
# The code a header-only marking file leaves, in bytes of .text (the same on a loaded machine,
# unlike time): a kernel file marking one op (input + output), one PROBE_SCOPE and one
# probe::metric, `-std=c++17 -O2`, header-only. Fails when it grows more than 10% over the
# recorded figure (benchmarks/README.md, "Compile cost"). The figure moves with the amount of
# runtime code every header-only marking file compiles.
# Usage: header_only_text.sh CXX INCLUDE_DIR RECORDED_BYTES WORK_DIR
set -euo pipefail
cxx=$1 inc=$2 recorded=$3 work=$4
mkdir -p "$work"
"$cxx" -std=c++17 -O2 -I"$inc" -c "$(dirname "$0")/marking_kernel.cpp" -o "$work/marked.o"
text=$(size -A "$work/marked.o" | awk '$1 ~ /^\.text/ {t += $2} END {print t + 0}')
limit=$((recorded * 110 / 100))
echo "header-only marking file: $text bytes of .text (recorded $recorded, limit $limit)"
[ "$text" -le "$limit" ] || { echo "the header-only marking file leaves more than 10% more code than recorded"; exit 1; }
