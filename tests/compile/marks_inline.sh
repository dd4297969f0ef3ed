#!/usr/bin/env bash
# With every flag off a mark is a load and a branch, inline where it stands: the guard behind
# PROBE_SCOPE must never be left as a function the marked code calls. g++ -O2 did call its
# constructor in a larger function (it holds the whole timed path), which made a scope cost
# 1.4 ns off instead of 0.3 (benchmarks/README.md, "timing"). Compiled mode, every -O level
# a user builds with: no out-of-line copy of the guard may be emitted.
# Usage: marks_inline.sh CXX INCLUDE_DIR WORK_DIR
set -euo pipefail
cxx=$1 inc=$2 work=$3
mkdir -p "$work"
cat >"$work/scoped.cpp" <<'CPP'
#include <probe/probe.hpp>
#include <chrono>
#include <vector>
double run(std::vector<double>& v, long n) {
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    PROBE_SCOPE("step");
    v[static_cast<std::size_t>(i) % v.size()] += 1;
  }
  auto t1 = std::chrono::steady_clock::now();
  {
    PROBE_SCOPE("tail");
    v.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  return v.back();
}
CPP
status=0
for level in -O1 -O2 -O3 -Os; do
  "$cxx" -std=c++17 "$level" -DPROBE_SEPARATE_IMPLEMENTATION -I"$inc" -c "$work/scoped.cpp" -o "$work/scoped.o"
  called=$(nm -C "$work/scoped.o" | grep 'scope_guard::' || true)
  if [ -n "$called" ]; then
    echo "FAIL $level: the scope guard is compiled out of line, so a scope off costs a call:"
    echo "$called"
    status=1
  else
    echo "ok $level: the scope guard is inline"
  fi
done
exit $status
