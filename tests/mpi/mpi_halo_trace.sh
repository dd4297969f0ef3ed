#!/usr/bin/env bash
# --probe_trace_to=FILE on 4 ranks: one trace file holds every rank as its own process
# ("rank N"), the ranks' parts are gone, and the clocks are aligned (through the MPI_Init
# barrier with probe::mpi, through the wall clock without it); `probe show` reads it per rank
# and across ranks (min, median, max of each row).
#   mpi_halo_trace.sh MPIEXEC MPI_HALO MPI_HALO_PLAIN PYTHON PROBE WORK_DIR
set -euo pipefail
mpiexec=$1 halo=$2 plain=$3 python=$4 probe=$5 work=$6
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
# Two jobs at once (a parameter sweep: 3000 and 2990 steps) tracing to one file: each merges
# its own ranks' parts (named by the launcher's job), so the file holds one whole job, never
# rank 0 of one and rank 1 of the other, and no part is left. Without the job in the parts'
# names, about half of such launches mixed them: four tries.
# Each job's exit status is read and, on any failure, both logs are shown. A launch that
# never ran the program (the launcher's own failure: no rank printed) is tried again, twice at
# most; a job that ran and failed, or jobs that ran and left no trace, fail the test.
tries=0 launch_failures=0
while [ $tries -lt 4 ]; do
  rm -f both.json both.json.*
  pids=()
  for steps in 3000 2990; do
    timeout 90 "$mpiexec" "${root[@]}" --oversubscribe -np 2 -x PROBE_FLAGS="--probe_trace_to=both.json" "$halo" \
      --steps $steps >"both_$steps.log" 2>&1 &
    pids+=($!)
  done
  ran=1 failed=0
  for i in 0 1; do
    rc=0; wait "${pids[$i]}" || rc=$?
    log=both_$([ $i = 0 ] && echo 3000 || echo 2990).log
    grep -q '^mass ' "$log" || ran=0
    [ $rc = 0 ] || failed=1
  done
  if [ $failed = 1 ] && [ $ran = 0 ] && [ $launch_failures -lt 2 ]; then
    launch_failures=$((launch_failures + 1))
    echo "a launch did not run the program; again:"; cat both_*.log
    continue
  fi
  if [ $failed = 1 ] || [ ! -f both.json ]; then
    cat both_*.log; ls -la; echo "FAIL: two jobs at once (exit statuses or no both.json)"; exit 1
  fi
  tries=$((tries + 1))
  "$python" - both.json <<'PY'
import json, os, sys
path = sys.argv[1]
t = json.load(open(path))
ev = t["traceEvents"]
ranks = t["otherData"]["ranks"]
names = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
assert names == {r: f"rank {r}" for r in range(ranks)}, (ranks, names)
steps = [len([e for e in ev if e["pid"] == r and e.get("name") == "step" and e.get("ph") == "X"]) for r in range(ranks)]
assert len(set(steps)) == 1 and steps[0] in (3000, 2990), f"steps per rank {steps}: two jobs' ranks in one trace"
left = [n for n in os.listdir(".") if n.startswith(path + ".")]
assert not left, f"parts left: {left}"
print(path, "one job:", ranks, "ranks of", steps[0], "steps, job", t["otherData"].get("job"))
PY
done
"$probe" show mpi_halo.json >summary.txt
cat summary.txt
"$python" - <<'PY'
rows = open("summary.txt").read().splitlines()
head = rows[1].split()
assert head[:5] == ["name", "rank", "0", "rank", "1"] and head[-4:] == ["median", "max", "max", "at"], head
line = next(r for r in rows if r.startswith("MPI_Sendrecv "))
cells = line.split()
assert [cells[i] for i in (2, 4, 6, 8)] == ["(14)"] * 4, cells  # two exchanges per halo, 7 halos, each rank
per_rank = sorted(float(cells[i]) for i in (1, 3, 5, 7))
lo, mid, hi = (float(x) for x in cells[9:12])
assert lo == per_rank[0] and hi == per_rank[-1] and lo <= mid <= hi, (per_rank, lo, mid, hi)
print("summary ok")
PY
echo "ok: one trace, 4 ranks"
