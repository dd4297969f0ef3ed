#!/usr/bin/env bash
# --probe_trace_to=FILE on 4 ranks: one trace file holds every rank as its own process
# ("rank N"), the ranks' parts are gone, and the clocks are aligned (through the MPI_Init
# barrier with probe::mpi, through the wall clock without it).
#   mpi_halo_trace.sh MPIEXEC MPI_HALO MPI_HALO_PLAIN PYTHON WORK_DIR
set -euo pipefail
mpiexec=$1 halo=$2 plain=$3 python=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
root=(); [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
for prog in "$halo" "$plain"; do
  name=$(basename "$prog")
  timeout 60 "$mpiexec" "${root[@]}" --oversubscribe -np 4 -x PROBE_FLAGS="--probe_trace_to=$name.json" "$prog" \
    >"$name.log" 2>&1 || { cat "$name.log"; echo "FAIL: mpirun $name"; exit 1; }
  "$python" - "$name.json" <<'PY'
import json, os, sys
path = sys.argv[1]
t = json.load(open(path))
ev = t["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
assert names == {r: f"rank {r}" for r in range(4)}, names
assert t["otherData"]["ranks"] == 4, t["otherData"]
left = [n for n in os.listdir(".") if n.startswith(path + ".")]
assert not left, f"parts left: {left}"
first = {}
for r in range(4):
    steps = [e for e in ev if e["pid"] == r and e.get("name") == "step" and e.get("ph") == "X"]
    assert len(steps) == 6, (r, len(steps))
    first[r] = min(e["ts"] for e in steps)
# The halo exchange couples the ranks: on one clock their first steps begin within a second.
spread = max(first.values()) - min(first.values())
assert spread < 1e6, f"first steps {spread} us apart: clocks not aligned"
mpi = [e for e in ev if e.get("name") == "MPI_Sendrecv"]
print(path, len(ev), "events,", t["otherData"]["clock_alignment"], ", spread", round(spread), "us,", len(mpi), "MPI_Sendrecv")
PY
done
echo "ok: one trace, 4 ranks"
