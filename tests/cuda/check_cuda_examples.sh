#!/usr/bin/env bash
# Runs one CUDA example and checks what it produced; exit 77 (skipped) where there is no GPU.
# Usage: check_cuda_examples.sh NAME PROGRAM WORK_DIR PYTHON CHECK_TRACE
set -euo pipefail
name=$1 prog=$2 work=$3 py=$4 check_trace=$5
rm -rf "$work" && mkdir -p "$work"
run() {
  set +e
  "$@" >"$work/out.txt" 2>"$work/err.txt"
  rc=$?
  set -e
  cat "$work/out.txt" "$work/err.txt"
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { echo "$name: exit $rc"; exit 1; }
}
case $name in
  device_dump)
    run env PROBE_FLAGS="--probe_dump_to=$work/dump --probe_dump_as_npy" "$prog"
    "$py" - "$work/dump" <<'PY'
import json, sys, numpy as np, os
d = sys.argv[1]
recs = [json.loads(l) for l in open(os.path.join(d, "manifest.jsonl"))]
t = [r for r in recs if r.get("record") == "tensor" and r["op"] == "relu" and r["io"] == "out" and r["step"] == 2]
assert t, "no relu output at step 2"
y = np.load(os.path.join(d, t[0]["file"]))
x = (np.arange(4096) % 64 - 32).astype(np.float32)
assert np.array_equal(y, np.maximum(0.5 * x + 1, 0)), "device tensor dumped wrong"
print("device_dump: relu output matches numpy")
PY
    ;;
  stream_print)
    run "$prog"
    grep -q "step 2: y = \[ 0\.  1\.  4\.  9\. 16\. 25\. 36\. 49\. 64\. 81\.\]" "$work/err.txt" || { echo "print lines wrong"; exit 1; }
    ;;
  timing_nvtx)
    run env PROBE_FLAGS="--probe_timing_summary --probe_trace_to=$work/trace.json" "$prog"
    grep -q "^Gelem_per_s: " "$work/out.txt"
    "$py" "$check_trace" "$work/trace.json" --count step=20 --count busy=40  # host op and its GPU twin
    ;;
  nan_check)
    run env PROBE_FLAGS="--probe_breakpoint=dump --probe_dump_to=$work/bp" "$prog"
    grep -qi "non-finite" "$work/err.txt" || { echo "the NaN was not caught"; exit 1; }
    [ "$(grep -ci 'non-finite' "$work/err.txt")" -eq 1 ] || { echo "caught more than once"; exit 1; }
    ;;
esac
echo "$name ok"
