#!/usr/bin/env bash
# The demo: builds the quickstart example, the probe CLI and the reference-check example, runs
# them with probe's flags on, and shows what probe produced: a dump (manifest, .npy, text),
# a debug print, a metric line, a timing summary and trace, the data-flow graph, and the
# accuracy workflow (dump with naive and optimized kernels, `probe compare`).
#
# Usage: scripts/demo.sh        env: PROBE_BUILD_DIR (default build/demo),
#                                    PROBE_DEMO_DIR (where the outputs go, default /tmp/probe_demo;
#                                      an earlier demo's outputs there are replaced, a folder
#                                      holding anything else is refused),
#                                    PROBE_DEMO_PREBUILT=1 (use binaries already in PROBE_BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PROBE_BUILD_DIR:-build/demo}
out=${PROBE_DEMO_DIR:-/tmp/probe_demo}

if [ -z "${PROBE_DEMO_PREBUILT:-}" ]; then
  echo "== building the examples and the probe CLI in $build"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPROBE_BUILD_TESTS=OFF \
    -DPROBE_BUILD_BENCHMARKS=OFF -DPROBE_BUILD_EXAMPLES=ON -DPROBE_BUILD_TOOLS=ON >/dev/null
  cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" \
    --target quickstart reference_check probe_cli >/dev/null
fi
quickstart=$build/examples/quickstart/quickstart
probe=$build/tools/probe
# The outputs replace an earlier demo's, and nothing else: a folder holding anything the demo
# does not write is left alone.
foreign() {
  [ -L "$out" ] && return 0
  [ -e "$out" ] || return 1
  [ -d "$out" ] || return 0
  local entry
  for entry in "$out"/* "$out"/.[!.]*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    case ${entry##*/} in compare | dump | graph.svg | trace.json) ;; *) return 0 ;; esac
  done
  return 1
}
if foreign; then
  echo "demo: $out holds what the demo did not write; set PROBE_DEMO_DIR to an empty or new folder" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out"

if [ -t 1 ]; then
  section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  section() { printf '\n== %s\n' "$*"; }
fi

flags="--probe_dump_to=$out/dump --probe_dump_as_npy --probe_dump_as_text --probe_dump_as_dot \
--probe_dump_as_html --probe_timing_summary --probe_trace_to=$out/trace.json"
section "examples/quickstart with PROBE_FLAGS=\"$flags\""
echo "(stdout: the metric line; stderr: the debug print, then the timing summary at exit)"
PROBE_FLAGS="$flags" "$quickstart"

section "what probe wrote in $out/dump"
ls "$out/dump" | head -12
echo "... $(ls "$out/dump" | wc -l) entries"

section "manifest.jsonl: one JSON line per tensor record (here the second)"
sed -n 3p "$out/dump/manifest.jsonl"

section "the text dump of op 2 (relu): producer of each input, health stats, first values"
cat "$out/dump/op_000002.relu.txt"

section "probe show: a dump at a glance, then one .npy file"
"$probe" show "$out/dump" | head -7
"$probe" show "$out/dump/op_000003.matmul.out.y.npy"

section "the data-flow graph"
if command -v dot >/dev/null; then
  dot -Tsvg "$out/dump/graph.dot" -o "$out/graph.svg"
  echo "graph.dot rendered by graphviz: $out/graph.svg; the same graph, self-contained: $out/dump/graph.html"
else
  echo "$out/dump/graph.dot (render with graphviz: dot -Tsvg), $out/dump/graph.html"
fi
echo "Chrome trace (chrome://tracing, Perfetto): $out/trace.json"

section "the accuracy workflow: naive (--probe_reference) vs optimized kernels, then a planted bug"
bash examples/reference_check/run.sh "$build/examples/reference_check/reference_check" "$probe" "$out/compare"
echo
echo "done: everything above is under $out"
