#!/usr/bin/env bash
# Rank 3 of the MPI example is killed (SIGKILL) before step 3; mpirun then ends the others.
# Every rank's manifest must stay whole (each line JSON, each file it names complete), and
# compare must say which rank stopped first (the others' last records show them waiting for a
# peer), not only that every run is cut short.
#   mpi_halo_killed.sh MPIEXEC MPI_HALO PROBE PYTHON WORK_DIR
set -uo pipefail
mpiexec=$1 halo=$2 probe=$3 python=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
run() {
  timeout 60 "$mpiexec" "${root[@]}" --oversubscribe -np 4 -x PROBE_FLAGS="--probe_dump_to=$1 --probe_dump_as_npy" \
    "$halo" "${@:2}" >"$1.log" 2>&1
}
run good || { cat good.log; echo "FAIL: the reference run failed"; exit 1; }
run killed --die-rank 3 --die-step 3
rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || { cat killed.log; echo "FAIL: the killed job exited $rc"; exit 1; }
[ -f killed/rank_0003/manifest.jsonl ] || { echo "FAIL: the killed rank left no manifest"; exit 1; }
"$python" - killed <<'PY' || exit 1
import json, os, sys
import numpy as np
for rank in sorted(os.listdir(sys.argv[1])):
    d = os.path.join(sys.argv[1], rank)
    lines = open(os.path.join(d, "manifest.jsonl")).read().split("\n")
    if lines[-1] == "": lines.pop()
    for i, line in enumerate(lines):
        try:
            r = json.loads(line)
        except ValueError:
            if i == len(lines) - 1: continue  # a last line cut by the kill is allowed
            sys.exit(f"FAIL: {rank}: line {i + 1} is not JSON")
        if r.get("record") == "tensor" and r.get("file"):
            np.load(os.path.join(d, r["file"]))  # raises on a partial file
    # A file under its final name is whole (a kill may leave hidden temporaries, never a part file).
    for n in os.listdir(d):
        if n.endswith(".npy") and not n.startswith("."):
            np.load(os.path.join(d, n))
print("dumps whole")
PY
"$probe" compare killed good >report.txt 2>&1
crc=$?
cat report.txt
[ "$crc" = 1 ] || { echo "FAIL: compare exited $crc, expected 1 (tensors only in B)"; exit 1; }
report=$(sed -e ':a' -e 'N' -e '$!ba' -e 's/\n    / /g' report.txt)
grep -q -e 'Incomplete: rank 3 in A is incomplete: no end record .*; it stopped first: rank 2 was waiting for it in MPI' <<<"$report" ||
  { echo "FAIL: compare does not say rank 3 stopped first"; exit 1; }
grep -q -e 'rank 2 in A is incomplete: .*; it was waiting in MPI_Sendrecv for rank 3' <<<"$report" ||
  { echo "FAIL: compare does not say rank 2 was waiting for rank 3"; exit 1; }
n=$(grep -c -e 'it stopped first' <<<"$report")
[ "$n" = 1 ] || { echo "FAIL: $n ranks said to stop first"; exit 1; }
echo "ok: rank 3's dump is whole and compare names it"
