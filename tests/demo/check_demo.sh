#!/usr/bin/env bash
# Runs the README's demo on binaries already built and checks that it shows every part of
# what probe produces. Usage: check_demo.sh BUILD_DIR OUT_DIR PYTHON
set -uo pipefail
build=$1 out=$2 python=$3
here=$(cd "$(dirname "$0")" && pwd)
log=$(PROBE_BUILD_DIR=$build PROBE_DEMO_PREBUILT=1 PROBE_DEMO_DIR=$out bash "$here/../../scripts/demo.sh" 2>&1)
rc=$?
echo "$log"
fail() { echo "check_demo: $*" >&2; exit 1; }
[ "$rc" = 0 ] || fail "demo exited $rc"
for want in 'samples/s: [0-9]' 'step 1: y = \[\[' 'probe timing summary' 'forward +scope +2' \
            '"record":"tensor"' 'from matmul#0/out/y' 'run complete' 'float32\[4,3\]' \
            'All within tolerance' 'Root cause: op norm#0'; do
  grep -Eq -- "$want" <<<"$log" || fail "output lacks /$want/"
done
"$python" -c "import json,sys; json.load(open(sys.argv[1]))['traceEvents']" "$out/trace.json" ||
  fail "trace.json does not parse"
grep -q '<svg' "$out/graph.svg" 2>/dev/null || ! command -v dot >/dev/null || fail "graph.svg not rendered"
# A folder the demo did not make is not emptied: the demo refuses it.
mkdir -p "$out.other" && echo keep >"$out.other/notes.txt"
PROBE_BUILD_DIR=$build PROBE_DEMO_PREBUILT=1 PROBE_DEMO_DIR=$out.other bash "$here/../../scripts/demo.sh" >/dev/null 2>&1 &&
  fail "the demo ran in a folder holding other files"
[ "$(cat "$out.other/notes.txt")" = keep ] || fail "the demo removed a file it did not write"
rm -rf "$out.other"
echo "check_demo: ok"
