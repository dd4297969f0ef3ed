#!/usr/bin/env bash
# Header-only mode defines every probe function `inline`: a TU that includes probe.hpp and
# marks an op must leave no strong probe symbol in its object, or two such TUs would not
# link. Usage: header_only_symbols.sh CXX INCLUDE_DIR WORK_DIR
set -euo pipefail
cxx=$1 inc=$2 work=$3
mkdir -p "$work"
cat >"$work/mark.cpp" <<'CPP'
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
"$cxx" -std=c++17 -O0 -I"$inc" -c "$work/mark.cpp" -o "$work/mark.o"
strong=$(nm -C "$work/mark.o" | awk '$2 ~ /^[TDBR]$/' | grep 'probe::' || true)
if [ -n "$strong" ]; then
  echo "strong probe symbols in a header-only TU (a definition without inline):"
  echo "$strong"
  exit 1
fi
echo "header-only TU: every probe symbol is inline"
