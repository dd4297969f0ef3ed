#!/usr/bin/env bash
# The LBM example's walls: collide writes the fluid cells of the distribution array and
# bounce_back its wall cells, both in place (op.inout). With a bug planted in bounce_back,
# probe compare must name bounce_back as the one root cause, never collide, whose output
# carries bounce_back's wrong wall values in the shared array.
#   lbm_in_place.sh LBM PROBE WORK_DIR
set -euo pipefail
lbm=$1 probe=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
run() { PROBE_FLAGS="--probe_dump_to=$1 --probe_dump_as_npy" "$lbm" --cavity --size 8 --steps 5 "${@:2}" >/dev/null 2>&1; }
run good
run bad --bug
grep -q '"inout":true' good/manifest.jsonl || { echo "FAIL: no inout records in the dump"; exit 1; }
set +e
"$probe" compare bad good >report.txt 2>&1
rc=$?
set -e
cat report.txt
[ "$rc" = 1 ] || { echo "FAIL: compare exited $rc, expected 1 (mismatch)"; exit 1; }
grep -Eq 'First divergence: op bounce_back#[0-9]+' report.txt || { echo "FAIL: first divergence is not bounce_back"; exit 1; }
# collide runs after the bug on arrays holding bounce_back's wrong wall values: it must not be blamed.
grep -Eq 'collide#[0-9]+/out/f .*MISMATCH' report.txt || { echo "FAIL: the error never reached collide (test too short)"; exit 1; }
roots=$(grep -Eo 'Root cause: op [A-Za-z_]+' report.txt | sort -u)
[ "$roots" = "Root cause: op bounce_back" ] || { echo "FAIL: root causes: '$roots' (expected bounce_back alone)"; exit 1; }
if grep -Eq 'Root cause: op collide' report.txt; then echo "FAIL: collide blamed"; exit 1; fi
echo "ok: one root cause, bounce_back"
