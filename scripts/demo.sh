#!/usr/bin/env bash
# Builds the quickstart example and runs it with dumping on, then shows what probe wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PROBE_BUILD_DIR:-build/demo}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPROBE_BUILD_TESTS=OFF \
  -DPROBE_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target quickstart >/dev/null
out=${PROBE_DEMO_DIR:-/tmp/probe_demo}
rm -rf "$out"
echo "== running examples/quickstart with PROBE_FLAGS=\"--probe_dump_to=$out --probe_dump_as_npy --probe_dump_as_text\""
PROBE_FLAGS="--probe_dump_to=$out --probe_dump_as_npy --probe_dump_as_text" "$build/examples/quickstart/quickstart"
echo
echo "== files in $out"
ls "$out"
