#!/usr/bin/env bash
# The C example end to end: it dumps, times and prints through probe.h, `probe compare` finds
# the bug planted in its boundary kernel, and the same source built with PROBE_DISABLE (no
# probe library at all) still prints its metric line.
# Usage: check_c_heat.sh C_HEAT PROBE_CLI CC SOURCE_DIR WORK_DIR
set -euo pipefail
heat=$1 cli=$2 cc=$3 src=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work"

out=$(PROBE_FLAGS="--probe_dump_to=clean --probe_dump_as_npy --probe_timing_summary" "$heat" 10 2>summary.txt)
grep -q '^MCUPS: [0-9.e+-]*$' <<<"$out" || { echo "no metric line: $out"; exit 1; }
grep -q '^u\[:8\] = \[1\. ' summary.txt || { echo "no tensor print"; cat summary.txt; exit 1; }
for row in 'step *scope *10' 'L0.smooth *op *10' 'L1.smooth *op *10' 'boundary *op *10'; do
  grep -q "$row" summary.txt || { echo "timing summary lacks '$row'"; cat summary.txt; exit 1; }
done
test -s clean/manifest.jsonl && test -f clean/op_000001.L0.smooth.in.u.npy
PROBE_FLAGS="--probe_dump_to=bug --probe_dump_as_npy" "$heat" 10 --bug >/dev/null

set +e
"$cli" compare clean bug >report.txt
rc=$?
set -e
[ $rc -eq 1 ] || { echo "compare exit $rc, expected 1"; cat report.txt; exit 1; }
grep -q '^Root cause: op boundary#3 (Boundary)' report.txt || { echo "wrong root cause"; cat report.txt; exit 1; }

# Compiled out: the same C file, no probe library, the metric line still printed.
"$cc" -std=c99 -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L -DPROBE_DISABLE -I"$src/include" \
  "$src/examples/c_heat/heat.c" -o heat_disabled
out=$(PROBE_FLAGS="--probe_dump_to=nothing" ./heat_disabled 5)
grep -q '^MCUPS: [0-9.e+-]*$' <<<"$out" || { echo "PROBE_DISABLE build lost the metric line: $out"; exit 1; }
[ ! -e nothing ] || { echo "PROBE_DISABLE build dumped"; exit 1; }
echo "c example ok"
