#!/usr/bin/env python3
"""scripts/check_dump.py on real dumps: the C solver's snapshot dump as docs/c.md makes it
passes, and so does it with an implicit input (the record the library writes for an op that
writes over another op's unread bytes: no file of its own) added to one snapshot; a snapshot
naming pieces of a sibling's file passes while they lie within its data and fails when they
do not or when the name leaves the folder; a truncated tensor file fails. The solver runs on
two threads: each worker records its rows of every plane (a strided view), which interleave
with the other's, and neither updates the other's in place, so the dump holds no implicit
input of its own whichever records first.

usage: check_dump_script.py C_LBM CHECK_DUMP WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

c_lbm, checker, work = sys.argv[1:4]
failures = []


def check(what, ok, detail=""):
    if not ok:
        failures.append(what)
        print("FAIL: %s\n%s" % (what, detail))


def run_checker(folder):
    r = subprocess.run([sys.executable, checker, folder], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
snap = os.path.join(work, "snap")
flags = "--probe_dump_to=%s --probe_dump_snapshots --probe_dump_steps=2" % snap
r = subprocess.run([c_lbm], env=dict(os.environ, PROBE_FLAGS=flags, OMP_NUM_THREADS="2"), capture_output=True,
                   text=True)
check("the solver runs", r.returncode == 0, r.stderr)
rc, text = run_checker(snap)
check("the solver's dump passes", rc == 0, text)
snaps = os.path.join(snap, "snapshots")
implicit = None
for entry in sorted(os.listdir(snaps)):
    meta = os.path.join(snaps, entry, "snapshot.json")
    with open(meta) as f:
        d = json.load(f)
    if any("prior" in t for t in d.get("inputs", [])):
        implicit = meta
        break
check("the solver's workers update nothing in place", implicit is None, str(implicit))
if implicit is None:  # one snapshot gets the record
    for entry in sorted(os.listdir(snaps)):
        meta = os.path.join(snaps, entry, "snapshot.json")
        with open(meta) as f:
            d = json.load(f)
        if d.get("outputs"):
            out = d["outputs"][0]
            d.setdefault("inputs", []).append({"slot": out["slot"], "key": out["key"].replace("/out/", "/in/"),
                                               "implicit": True, "prior": "unknown", "dtype": out["dtype"],
                                               "shape": out["shape"]})
            with open(meta, "w") as f:
                json.dump(d, f)
            implicit = meta
            break
check("a snapshot holds an implicit input", implicit is not None)
rc, text = run_checker(snap)
check("a valid dump with an implicit input passes", rc == 0, text)

# Pieces: the implicit input's prior state as bytes of another snapshot's output file.
source = None
for entry in sorted(os.listdir(snaps)):
    outs = [n for n in os.listdir(os.path.join(snaps, entry)) if n.startswith("out.")]
    if outs:
        source = entry + "/" + outs[0]
        break
check("some snapshot has an output file", source is not None)


def with_piece(piece):
    with open(implicit) as f:
        d = json.load(f)
    for t in d["inputs"]:
        if "prior" in t:
            t["prior"] = "producers"
            t["pieces"] = [piece]
    with open(implicit, "w") as f:
        json.dump(d, f)
    return run_checker(snap)


original = open(implicit).read()
rc, text = with_piece({"key": "k#0/out/f", "file": source, "offset": 0, "bytes": 64, "at": 0})
check("pieces within a sibling's data pass", rc == 0, text)
rc, text = with_piece({"key": "k#0/out/f", "file": source, "offset": 0, "bytes": 1 << 40, "at": 0})
check("a piece past the file's data fails", rc == 1 and "lies past its data" in text, text)
rc, text = with_piece({"key": "k#0/out/f", "file": "../../x.npy", "offset": 0, "bytes": 8, "at": 0})
check("a piece leaving the folder fails", rc == 1 and "could leave the snapshots folder" in text, text)
with open(implicit, "w") as f:
    f.write(original)

# A tensor file cut short.
victim = None
for folder, _, files in os.walk(snaps):
    for n in sorted(files):
        if n.endswith(".npy"):
            victim = os.path.join(folder, n)
            break
    if victim:
        break
with open(victim, "r+b") as f:
    f.truncate(os.path.getsize(victim) - 8)
rc, text = run_checker(snap)
check("a truncated tensor file fails", rc == 1, text)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
