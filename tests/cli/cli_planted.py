"""The probe CLI against what someone else put in a dump folder: a snapshot whose
snapshot.json is a FIFO or a link is reported, not left out; a manifest that is a
FIFO or a link makes the folder a dump that cannot be read, not a folder of .npy files; a
file the manifest names that is a link is not followed; bundle never waits on a FIFO; and
reading a dump past the memory limit is an error, not a crash.

usage: cli_planted.py PATH/TO/probe
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

import numpy as np

PROBE = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def probe(*args, timeout=30, limit_memory=None):
    """Exit code, stdout, stderr; a hang is killed and reads as -1 (a signal: negative)."""
    def limit():
        if limit_memory:
            resource.setrlimit(resource.RLIMIT_AS, (limit_memory, limit_memory))
    try:
        p = subprocess.run([PROBE, *args], capture_output=True, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return -1, "", "(timed out: the CLI hung)"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def snapshot(folder, op, seq, files=()):
    os.makedirs(folder, exist_ok=True)
    inputs = []
    for slot, name in files:
        np.save(os.path.join(folder, name), np.arange(3, dtype=np.float32))
        inputs.append({"slot": slot, "key": f"{op}#0/in/{slot}", "dtype": "float32", "shape": [3], "file": name})
    with open(os.path.join(folder, "snapshot.json"), "w") as f:
        json.dump({"format": "probe-snapshot-1", "op": op, "type": "T", "seq": seq, "step": 0, "occurrence": 0,
                   "status": "complete", "inputs": inputs, "outputs": []}, f)


def dump(folder, names):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "manifest.jsonl"), "w") as f:
        f.write(json.dumps({"record": "run", "version": 1}) + "\n")
        for i, name in enumerate(names):
            np.save(os.path.join(folder, f"op_{i + 1:06d}.y.npy"), np.arange(4, dtype=np.float32) + i)
            f.write(json.dumps({"record": "tensor", "key": f"{name}#0/out/y", "seq": i + 1, "io": "out", "op": name,
                                "occurrence": 0, "slot": "y", "dtype": "float32", "shape": [4],
                                "file": f"op_{i + 1:06d}.y.npy"}) + "\n")
        f.write(json.dumps({"record": "end"}) + "\n")


with tempfile.TemporaryDirectory() as tmp:
    outside = os.path.join(tmp, "outside.npy")
    np.save(outside, np.full(4, 99, dtype=np.float32))

    # --- damaged snapshots are listed as unreadable: the run fails (exit 2) instead of passing
    d = os.path.join(tmp, "snaps")
    snaps = os.path.join(d, "snapshots")
    snapshot(os.path.join(snaps, "op_000001.good"), "good", 1)
    os.makedirs(os.path.join(snaps, "op_000002.fifo"))
    os.mkfifo(os.path.join(snaps, "op_000002.fifo", "snapshot.json"))
    os.makedirs(os.path.join(snaps, "op_000003.zero"))
    os.symlink("/dev/zero", os.path.join(snaps, "op_000003.zero", "snapshot.json"))
    os.makedirs(os.path.join(snaps, "op_000004.pieces"))  # a bundle's producer: pieces only
    code, out, err = probe("replay", "--list", d)
    check(code == 2 and out.count("unreadable") == 2 and "good#0" in out and "3 snapshots" in out,
          f"replay --list of damaged snapshots: exit {code}\n{out}{err}")
    check("not followed" in out and "not a regular file" in out, f"each damage named: {out}")

    # --- a manifest that is not a regular file: the dump cannot be read, said so (exit 2)
    ref = os.path.join(tmp, "ref")
    dump(ref, ["a", "b"])
    for kind in ("fifo", "link"):
        bad = os.path.join(tmp, "manifest_" + kind)
        dump(bad, ["a", "b"])
        os.unlink(os.path.join(bad, "manifest.jsonl"))
        if kind == "fifo":
            os.mkfifo(os.path.join(bad, "manifest.jsonl"))
        else:
            os.symlink("/dev/zero", os.path.join(bad, "manifest.jsonl"))
        for args in (("compare", bad, ref), ("show", bad)):
            code, out, err = probe(*args)
            check(code == 2 and "manifest.jsonl" in err and "npy folders" not in out,
                  f"{args[0]} with a manifest that is a {kind}: exit {code}\n{out}{err}")

    # --- a file the manifest names, planted as a link to another file: not followed
    planted = os.path.join(tmp, "planted")
    dump(planted, ["a", "b"])
    os.unlink(os.path.join(planted, "op_000002.y.npy"))
    os.symlink(outside, os.path.join(planted, "op_000002.y.npy"))
    code, out, err = probe("compare", planted, ref)
    check(code == 2 and "symbolic link" in err and "not followed" in err,
          f"compare with a planted link: exit {code}\n{out}{err}")
    # a file the user names is theirs to name through a link
    mine = os.path.join(tmp, "mine.npy")
    os.symlink(outside, mine)
    code, out, err = probe("compare", mine, outside)
    check(code == 0, f"compare of a link the user named: exit {code}\n{out}{err}")

    # --- bundle does not wait on a FIFO in the manifest's place or in a snapshot's
    b = os.path.join(tmp, "bundle")
    dump(b, ["a"])
    snapshot(os.path.join(b, "snapshots", "op_000001.a"), "a", 1, files=[("x", "in.x.npy")])
    os.unlink(os.path.join(b, "snapshots", "op_000001.a", "in.x.npy"))
    os.mkfifo(os.path.join(b, "snapshots", "op_000001.a", "in.x.npy"))
    code, out, err = probe("bundle", b, "--op", "a#0", "-o", os.path.join(tmp, "a.tar"))
    check(code == 2 and "not a regular file" in err, f"bundle with a FIFO input: exit {code}\n{out}{err}")
    os.unlink(os.path.join(b, "snapshots", "op_000001.a", "in.x.npy"))
    np.save(os.path.join(b, "snapshots", "op_000001.a", "in.x.npy"), np.arange(3, dtype=np.float32))
    os.unlink(os.path.join(b, "manifest.jsonl"))
    os.mkfifo(os.path.join(b, "manifest.jsonl"))
    code, out, err = probe("bundle", b, "--op", "a#0", "-o", os.path.join(tmp, "b.tar"))
    check(code != -1, f"bundle with a FIFO manifest hung\n{out}{err}")

    # --- reading dump A past the memory limit, while B is read on another thread: an error
    big = os.path.join(tmp, "big")
    os.makedirs(big)
    with open(os.path.join(big, "manifest.jsonl"), "wb") as f:
        f.truncate(3 << 30)  # sparse: costs no disk
    for threads in ((), ("--threads", "1")):
        code, out, err = probe("compare", *threads, big, ref, limit_memory=2 << 30)
        check(code == 2 and err.strip(), f"compare {threads} of a 3 GiB manifest under a 2 GiB limit: exit {code}\n{err}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("cli_planted: all checks passed")
