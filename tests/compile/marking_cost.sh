#!/usr/bin/env bash
# The compile cost users pay per marking file in compiled mode, in compiler instructions
# (valgrind: the same count on a loaded machine): a kernel file marking one op (input +
# output), one PROBE_SCOPE and one probe::metric, net of the same file unmarked. Fails when it
# grows more than 10% over the recorded figure (benchmarks/README.md, "Compile cost").
# Usage: marking_cost.sh CXX INCLUDE_DIR RECORDED_MILLIONS WORK_DIR
set -euo pipefail
cxx=$1 inc=$2 recorded=$3 work=$4
mkdir -p "$work"
cat >"$work/unmarked.cpp" <<'CPP'
#include <vector>
void kernel(const std::vector<float>& x, std::vector<float>& y) {
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];
}
CPP
cat >"$work/marked.cpp" <<'CPP'
#include <probe/probe.hpp>
#include <vector>
void kernel(const std::vector<float>& x, std::vector<float>& y) {
  PROBE_SCOPE("kernel");
  probe::op op("scale", "Mul");
  op.input("x", x);
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2 * x[i];
  op.output("y", y);
  probe::metric("MLUPS", 1.0);
}
CPP
# cachegrind without its cache simulation counts the instructions callgrind does (within
# 0.5%), in a third of the time.
count() {
  valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
    "$cxx" -std=c++17 -O2 -DPROBE_SEPARATE_IMPLEMENTATION -I"$inc" -c "$work/$1.cpp" -o "$work/$1.o" 2>&1 |
    awk '/Command: .*cc1plus/ {c = 1; next} c && /I *refs/ {gsub(",", "", $4); printf "%d\n", $4 / 1e6; exit}'
}
base=$(count unmarked)
marked=$(count marked)
net=$((marked - base))
limit=$((recorded * 110 / 100))
echo "marking file, compiled mode: $net M compiler instructions net of the unmarked file (recorded $recorded M, limit $limit M)"
[ "$net" -le "$limit" ] || { echo "the marking file costs more than 10% over the recorded figure"; exit 1; }
