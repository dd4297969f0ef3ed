#!/usr/bin/env bash
# The reference workflow end to end: dump with naive kernels (--probe_reference), dump with
# optimized ones, compare; then the same with a bug planted in one optimized kernel; then
# replay the naive run's snapshots op by op on the optimized kernels (the bug is named
# alone) and on the reference kernels (all match).
#   examples/reference_check/run.sh [PATH/TO/reference_check] [PATH/TO/probe] [WORK_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
app=${1:-$here/../../build/examples/reference_check/reference_check}
probe=${2:-$here/../../build/tools/probe}
work=${3:-$(mktemp -d)}
rm -rf "$work/ref" "$work/opt" "$work/bug"

PROBE_FLAGS="--probe_dump_to=$work/ref --probe_dump_as_npy --probe_dump_snapshots --probe_reference" "$app" || exit 2
PROBE_FLAGS="--probe_dump_to=$work/opt --probe_dump_as_npy" "$app" || exit 2
PROBE_FLAGS="--probe_dump_to=$work/bug --probe_dump_as_npy" "$app" --bug || exit 2

echo "== probe compare opt ref (rounding differences only)"
"$probe" compare "$work/opt" "$work/ref"
clean=$?
echo
echo "== probe compare bug ref (a planted bug in the optimized LayerNorm)"
"$probe" compare "$work/bug" "$work/ref" --html "$work/report.html"
buggy=$?
echo "(HTML report: $work/report.html)"
echo
echo "== probe replay ref -- reference_check --bug (each op alone, on the naive run's inputs)"
"$probe" replay "$work/ref" -- "$app" --bug
replayed=$?
echo
echo "== probe replay --reference ref -- reference_check --bug (the naive kernels)"
"$probe" replay --reference "$work/ref" -- "$app" --bug
reference=$?
# expected: 0 for the clean run, 1 for the buggy one; replay: 1 on the bug, 0 on the reference kernels
[ "$clean" = 0 ] && [ "$buggy" = 1 ] && [ "$replayed" = 1 ] && [ "$reference" = 0 ]
