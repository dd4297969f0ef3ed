#!/usr/bin/env bash
# An engine shipped with -O3 -ffast-math against the same source built strictly (-O0):
#  - default tolerances: every tensor passes, although the runs differ (rounding);
#  - no tolerance at all: every failure is called rounding-level and compare names an atol;
#    that atol, given back to compare, passes;
#  - a bug planted in the fast build's attention: one root cause, the attention op.
#   engine_fast_math.sh ENGINE_STRICT ENGINE_FAST PROBE WORK_DIR
set -euo pipefail
strict=$(realpath "$1") fast=$(realpath "$2") probe=$(realpath "$3") work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work"
dump() {
  PROBE_FLAGS="--probe_dump_to=$1 --probe_dump_as_npy" "${@:2}" --tokens 16 >"$1.out" 2>&1 ||
    { cat "$1.out"; echo "FAIL: ${*:2} exited $?"; exit 1; }
}
dump strict "$strict"
dump fast "$fast"
dump fastbug "$fast" --bug
fail() { echo "FAIL: $*"; exit 1; }
cmp -s strict.out fast.out && fail "the fast-math build computes the same checksum: nothing to tell apart ($(cat fast.out))"

set +e
"$probe" compare fast strict >default.txt 2>&1; rc_default=$?
"$probe" compare --atol 0 --rtol 0 fast strict >exact.txt 2>&1; rc_exact=$?
"$probe" compare fastbug strict >bug.txt 2>&1; rc_bug=$?
set -e
[ "$rc_default" = 0 ] || { cat default.txt; fail "default tolerances: exit $rc_default, expected 0"; }
[ "$rc_exact" = 1 ] || { cat exact.txt; fail "atol 0 rtol 0: exit $rc_exact, expected 1"; }
grep -q 'MISMATCH' exact.txt || fail "atol 0 rtol 0: no mismatch listed"
atol=$(sed -n 's/^All failures are rounding-level: --atol \([^ ]*\) passes.*/\1/p' exact.txt)
[ -n "$atol" ] || { cat exact.txt; fail "atol 0 rtol 0: the failures are not called rounding-level with an atol that passes"; }
if grep -Eq 'Root cause: op ' exact.txt && ! grep -Eq 'Root cause: op .*rounding-level' exact.txt; then
  grep -E 'Root cause' exact.txt
  fail "a rounding difference reported as a root cause that is not rounding-level"
fi
set +e
"$probe" compare --atol "$atol" --rtol 0 fast strict >suggested.txt 2>&1; rc_suggested=$?
set -e
[ "$rc_suggested" = 0 ] || { tail -20 suggested.txt; fail "the suggested --atol $atol does not pass (exit $rc_suggested)"; }
[ "$rc_bug" = 1 ] || { cat bug.txt; fail "planted bug: exit $rc_bug, expected 1"; }
roots=$(grep -Eo 'Root cause: [a-z]+ [^ ]+' bug.txt | sort -u)
[ "$roots" = "Root cause: op L0.attn#0" ] || { cat bug.txt; fail "planted bug: root causes '$roots', expected L0.attn#0 alone"; }
echo "ok: -ffast-math vs -O0 is rounding (--atol $atol passes); the planted bug is the one root cause"
