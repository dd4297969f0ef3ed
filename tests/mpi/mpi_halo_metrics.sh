#!/usr/bin/env bash
# probe::metric under mpirun: each rank prints its own line, "[rank N] MLUPS: <value>", and
# probe regress follows one rank with --pattern (docs/mpi.md).
#   mpi_halo_metrics.sh MPIEXEC MPI_HALO PROBE PYTHON WORK_DIR
set -euo pipefail
mpiexec=$1 halo=$2 probe=$3 python=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
for i in 1 2 3; do
  timeout 60 "$mpiexec" "${root[@]}" --oversubscribe -np 4 "$halo" --steps 50 >"run$i.txt" 2>"run$i.err" ||
    { cat "run$i.err"; echo "FAIL: mpirun"; exit 1; }
  for r in 0 1 2 3; do
    n=$(grep -c -E "^\[rank $r\] MLUPS: [0-9.e+-]+$" "run$i.txt" || true)
    [ "$n" = 1 ] || { cat "run$i.txt"; echo "FAIL: run $i has $n metric lines of rank $r"; exit 1; }
  done
  if grep -q -E '^MLUPS:' "run$i.txt"; then echo "FAIL: a metric line without its rank"; exit 1; fi
done
"$probe" regress run1.txt run2.txt run3.txt --pattern '\[rank 0\] MLUPS: (\S+)' --json report.json >/dev/null
"$python" - <<'PY'
import json, re
runs = json.load(open("report.json"))["runs"]
for i, run in enumerate(runs, 1):
    want = [float(m) for m in re.findall(r"^\[rank 0\] MLUPS: (\S+)$", open(f"run{i}.txt").read(), re.M)]
    assert run["values"] == want, (run, want)
print("regress read rank 0's values:", [r["value"] for r in runs])
PY
echo "ok: one metric line per rank, regress follows rank 0"
