#!/usr/bin/env bash
# Compile cost of including probe: `$CXX -std=c++17 -O2 -c` of a TU that includes the header,
# minus the same for an empty TU; median of interleaved runs. Modes: (a) default header-only,
# (b) a marking TU with PROBE_SEPARATE_IMPLEMENTATION, (c) PROBE_DISABLE; baseline: a TU with
# only <string> and <vector>, measured in the same run. Targets (benchmarks/README.md) are
# stated for a machine where the baseline costs 335 ms: (a) <= 700 ms, (b) <= 60 ms,
# (c) <= 40 ms, i.e. ratios to the baseline of 2.09, 0.18 and 0.12.
#
# Usage: benchmarks/compile_cost.sh [--quick]     (env: CXX, RUNS, COUNT)
# COUNT=instructions measures the compiler's instructions under valgrind instead of wall time
# (one run each, independent of machine load; reported in millions, "ms" columns read "M").
set -euo pipefail
cd "$(dirname "$0")/.."

cxx=${CXX:-g++}
runs=${RUNS:-9}
[ "${1:-}" = "--quick" ] && runs=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=(empty baseline default separate disable)
printf 'int probe_compile_cost_anchor;\n' >"$tmp/empty.cpp"
printf '#include <string>\n#include <vector>\n' >"$tmp/baseline.cpp"
printf '#include <probe/probe.hpp>\n' >"$tmp/default.cpp"
printf '#define PROBE_SEPARATE_IMPLEMENTATION\n#include <probe/probe.hpp>\n' >"$tmp/separate.cpp"
printf '#define PROBE_DISABLE\n#include <probe/probe.hpp>\n' >"$tmp/disable.cpp"

compile_ms() {
  local start end
  if [ "${COUNT:-}" = instructions ]; then
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null \
      "$cxx" -std=c++17 -O2 -Iinclude -c "$tmp/$1.cpp" -o "$tmp/$1.o" 2>&1 |
      awk '/Command: .*cc1plus/ {c = 1; next} c && /Collected/ {printf "%d\n", $4 / 1e6; exit}'
    return
  fi
  start=$(date +%s%N)
  "$cxx" -std=c++17 -O2 -Iinclude -c "$tmp/$1.cpp" -o "$tmp/$1.o"
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
[ "${COUNT:-}" = instructions ] && runs=1

# One warm-up round (file cache), then interleaved rounds so that machine noise hits every
# variant alike.
[ "${COUNT:-}" = instructions ] || for n in "${names[@]}"; do compile_ms "$n" >/dev/null; done
for ((r = 0; r < runs; r++)); do
  for n in "${names[@]}"; do compile_ms "$n" >>"$tmp/$n.times"; done
done

median() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
declare -A ms
for n in "${names[@]}"; do ms[$n]=$(median "$tmp/$n.times"); done

net() { echo $((ms[$1] - ms[empty])); }
base=$(net baseline)
unit="median of $runs runs, ms"
[ "${COUNT:-}" = instructions ] && unit="compiler instructions (millions) under valgrind"
echo "compile cost: $("$cxx" --version | head -1), -std=c++17 -O2, $unit"
printf '%-40s %8s %10s %14s %s\n' "TU" "total" "net" "net/baseline" "target ratio"
row() {
  local n=$1 label=$2 target=$3 ratio
  ratio=$(awk -v a="$(net "$n")" -v b="$base" 'BEGIN {printf (b > 0 ? "%.3f" : "n/a"), (b > 0 ? a / b : 0)}')
  printf '%-40s %8d %10d %14s %s\n' "$label" "${ms[$n]}" "$(net "$n")" "$ratio" "$target"
}
printf '%-40s %8d %10s\n' "empty TU" "${ms[empty]}" "-"
row baseline "<string> + <vector> (baseline)" "1"
row default "(a) probe.hpp, header-only" "<= 2.09 (700/335)"
row separate "(b) probe.hpp, SEPARATE_IMPLEMENTATION" "<= 0.18 (60/335)"
row disable "(c) probe.hpp, PROBE_DISABLE" "<= 0.12 (40/335)"
