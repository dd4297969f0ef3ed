#!/usr/bin/env bash
# Compile cost where users pay it: a kernel file that marks one op (input + output), one
# PROBE_SCOPE and one probe::metric, against the same file unmarked, in each build mode; and
# a file that only includes probe.hpp. `$CXX -std=c++17 -O2 -c`, median of interleaved runs
# (one warm-up round first), net of the unmarked file measured in the same run; object code
# is the size of the .text sections.
#
# Usage: benchmarks/compile_cost.sh [--quick] [--instructions]    (env: CXX, RUNS)
#   --instructions  also count the compiler's instructions under valgrind (repeatable on a
#                   loaded machine; slow: minutes for the header-only rows)
set -euo pipefail
cd "$(dirname "$0")/.."

cxx=${CXX:-g++}
runs=${RUNS:-7}
count=0
for a in "$@"; do
  case $a in
    --quick) runs=1 ;;
    --instructions) count=1 ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kernel_body='void kernel(const std::vector<float>& x, std::vector<float>& y) {
  MARK_SCOPE
  MARK_OP
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];
  MARK_OUT
  MARK_METRIC
}'
unmarked=$(printf '#include <vector>\n%s\n' "$kernel_body" | sed 's/  MARK_[A-Z]*//')
marked=$(printf '#include <probe/probe.hpp>\n#include <vector>\n%s\n' "$kernel_body" |
  sed 's/MARK_SCOPE/PROBE_SCOPE("kernel");/; s/MARK_OP/probe::op op("scale", "Mul"); op.input("x", x);/;
       s/MARK_OUT/op.output("y", y);/; s/MARK_METRIC/probe::metric("MLUPS", 1.0);/')
echo "$unmarked" >"$tmp/unmarked.cpp"
echo "$marked" >"$tmp/marked.cpp"
printf '#include <probe/probe.hpp>\n' >"$tmp/include.cpp"

# name:file:flags
variants=(
  "unmarked file:unmarked:"
  "include only, header-only:include:"
  "include only, compiled:include:-DPROBE_SEPARATE_IMPLEMENTATION"
  "include only, PROBE_DISABLE:include:-DPROBE_DISABLE"
  "marking file, header-only:marked:"
  "marking file, compiled:marked:-DPROBE_SEPARATE_IMPLEMENTATION"
  "marking file, PROBE_DISABLE:marked:-DPROBE_DISABLE"
)

compile() {  # file flags out -> ms
  local start end
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  "$cxx" -std=c++17 -O2 -Iinclude $2 -c "$tmp/$1.cpp" -o "$3"
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
instructions() {  # file flags -> millions of compiler instructions
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null \
    "$cxx" -std=c++17 -O2 -Iinclude $2 -c "$tmp/$1.cpp" -o "$tmp/i.o" 2>&1 |
    awk '/Command: .*cc1plus/ {c = 1; next} c && /Collected/ {printf "%d\n", $4 / 1e6; exit}'
}
text_bytes() { size -A "$1" | awk '$1 ~ /^\.text/ {t += $2} END {print t + 0}'; }

n=${#variants[@]}
for ((v = 0; v < n; v++)); do
  IFS=: read -r _ file flags <<<"${variants[$v]}"
  compile "$file" "$flags" "$tmp/o$v.o" >/dev/null  # warm-up
done
for ((r = 0; r < runs; r++)); do
  for ((v = 0; v < n; v++)); do
    IFS=: read -r _ file flags <<<"${variants[$v]}"
    compile "$file" "$flags" "$tmp/o$v.o" >>"$tmp/t$v"
  done
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

base=$(median "$tmp/t0")
echo "compile cost: $("$cxx" --version | head -1), -std=c++17 -O2, median of $runs runs"
printf '%-30s %9s %9s %12s' "TU" "wall ms" "net ms" ".text bytes"
((count)) && printf ' %14s %10s' "instructions M" "net M"
printf '\n'
for ((v = 0; v < n; v++)); do
  IFS=: read -r label file flags <<<"${variants[$v]}"
  ms=$(median "$tmp/t$v")
  printf '%-30s %9d %9d %12d' "$label" "$ms" $((ms - base)) "$(text_bytes "$tmp/o$v.o")"
  if ((count)); then
    ins=$(instructions "$file" "$flags")
    ((v == 0)) && base_ins=$ins
    printf ' %14d %10d' "$ins" $((ins - base_ins))
  fi
  printf '\n'
done
