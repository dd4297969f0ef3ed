"""Steps that a dump filter leaves out cost what steps with every flag off cost: the
instructions of filter_cost (12 stencil steps, none of them dumped) under callgrind, against
the same program with no flag. Instructions, not seconds: the same on a loaded machine.
Before ops outside the filters stopped reading their tensors this ratio was 2.4.

usage: check_filter_cost.py PATH/TO/filter_cost
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROGRAM = sys.argv[1]
if not shutil.which("valgrind"):
    print("valgrind not found: skipped")
    sys.exit(0)


def instructions(flags, tmp):
    out = os.path.join(tmp, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, PROGRAM, flags],
                   check=True, capture_output=True, timeout=600)
    with open(out) as f:
        m = re.search(r"^summary:\s+(\d+)", f.read(), re.M)
    return int(m.group(1))


with tempfile.TemporaryDirectory() as tmp:
    off = instructions("", tmp)
    dump = os.path.join(tmp, "dump")
    filtered = instructions(f"--probe_dump_to={dump} --probe_dump_as_npy --probe_dump_steps=1000", tmp)
    listed = os.listdir(dump) if os.path.isdir(dump) else []

ratio = filtered / off
print(f"instructions: every flag off {off:,}, a dump filter leaving every step out {filtered:,}: ratio {ratio:.4f}")
if ratio > 1.03:
    print("FAIL: steps outside the dump filters cost more than 1.03x steps with every flag off")
    sys.exit(1)
if any(name.endswith(".npy") for name in listed):
    print(f"FAIL: the filter dumped files: {listed}")
    sys.exit(1)
print("filter_cost: ok")
