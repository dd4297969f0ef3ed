#!/usr/bin/env python3
"""Runs one mode of c_features (tests/c/c_features.c) with the flags that mode needs and checks
what it printed and dumped.

usage: check_c_features.py MODE C_FEATURES PROBE_CLI WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

mode, prog, cli, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "c_features.c")


def run(flags, args=None, env=None, cmd=None, want_rc=0):
    e = dict(os.environ)
    e.pop("PROBE_FLAGS", None)
    if flags:
        e["PROBE_FLAGS"] = flags
    e.update(env or {})
    r = subprocess.run(cmd or [prog, mode] + (args or []), cwd=work, env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, errors="replace", timeout=100)
    if r.returncode != want_rc:
        fail(f"exit {r.returncode}, expected {want_rc}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    return r


def fail(msg):
    print(f"c_api_{mode}: {msg}")
    sys.exit(1)


def manifest(d="dump"):
    with open(os.path.join(work, d, "manifest.jsonl"), encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def line_of(marker):
    for i, l in enumerate(open(source, encoding="utf-8"), 1):
        if marker in l:
            return i
    fail(f"no {marker} in c_features.c")


def need(cond, msg):
    if not cond:
        fail(msg)


if mode == "version":
    r = run(None)
    need(re.search(r"version (\d+) header \1 release \d+\.\d+\.\d+", r.stdout), r.stdout)
    need("reference 0 reproducible 0" in r.stdout, r.stdout)
    r = run("--probe_reproducible")
    need("reference 0 reproducible 1" in r.stdout, r.stdout)
elif mode == "help":
    r = run(None)
    need("--probe_dump_to" in r.stdout and "[default:" in r.stdout, r.stdout)
elif mode == "attrs":
    run("--probe_dump_to=dump --probe_dump_snapshots")
    attrs = [m for m in manifest() if m.get("record") == "attrs"]
    need(attrs, "no attrs record")
    a = attrs[0]
    need(a["op"] == "L2.rope" and a["attrs"] == {"pos": 7, "eps": 1e-5, "causal": True, "mode": "neox",
                                                   "perm": [0, 2, 1]}, f"attrs record: {a}")
elif mode == "views":
    run("--probe_dump_to=dump --probe_dump_as_npy")
    m = manifest()
    tensors = {t["key"]: t for t in m if t.get("record") == "tensor"}
    cache = np.arange(6 * 4 * 2, dtype=np.float32).reshape(6, 4, 2)
    for h in range(4):
        key = f"L3.h{h}.attn#0/in/k"
        need(key in tensors, f"no {key}: {sorted(tensors)}")
        t = tensors[key]
        need(t["shape"] == [6, 2], f"{key} shape {t['shape']}")
        got = np.load(os.path.join(work, "dump", t["file"]))
        need(got.nbytes == 6 * 2 * 4, f"{key}: {got.nbytes} bytes, the head alone is 48")
        need(np.array_equal(got, cache[:, h, :]), f"{key}: {got} is not head {h} of the cache")
    # index -1: no layer (not "L0.h1.attn", layer 0's name)
    need("h1.attn#0/in/k" in tensors, f"no h1.attn#0/in/k: {sorted(tensors)}")
    need(not any(k.startswith("L0.") for k in tensors), f"an op named as layer 0's: {sorted(tensors)}")
    t = tensors.get("gather#0/in/rows")
    need(t and t["shape"] == [2, 3], f"batch tensor: {t}")
    need(np.array_equal(np.load(os.path.join(work, "dump", t["file"])), np.array([[1, 2, 3], [4, 5, 6]], np.float32)),
         "batch tensor values")
elif mode == "print":
    r = run(None)
    need("step 3 loss 0.125" in r.stderr, r.stderr)
    need("u = [1. 2. 3.], twice [2. 3. 4.]" in r.stderr, r.stderr)
    need("ordered line" in r.stderr, r.stderr)
    r = run("--probe_print=off")
    need("step 3" not in r.stderr, f"printed with --probe_print=off: {r.stderr}")
elif mode == "callback":
    r = run(None)
    need("callback calls=2 sum=6 n=3" in r.stdout, r.stdout)
    r = run("--probe_callback=off", want_rc=1)
    need("callback calls=0" in r.stdout, r.stdout)
elif mode == "breakpoint":
    with open(os.path.join(work, "cmds"), "w") as f:
        f.write(f"p rho[1]\np step\nw\n@ c_features.c:{line_of('/* BREAK */') + 1}\np step\n")
    r = run(f"--probe_breakpoint_commands={os.path.join(work, 'cmds')}")
    out = r.stdout + r.stderr
    need(f"breakpoint at c_features.c:{line_of('/* BREAK */')} in breakpoint()" in out or
         re.search(rf"breakpoint at \S*c_features\.c:{line_of('/* BREAK */')} in breakpoint\(\)", out), out)
    need("[4. 5. 6.]" in out, f"rho[1] not shown:\n{out}")
    need(re.search(r"\b42\b", out), f"step not shown:\n{out}")
    need("collide" in out, f"the enclosing op is no frame:\n{out}")
    need(f"c_features.c:{line_of('/* BREAK */') + 1}" in out, f"the second breakpoint did not stop:\n{out}")
elif mode == "nonfinite":
    r = run(None)
    out = r.stdout + r.stderr
    need(re.search(rf"c_features\.c:{line_of('/* NONFINITE */')}\b", out), f"no caller's place:\n{out}")
    need(" at :0" not in out, out)
elif mode == "workers":
    run("--probe_dump_to=dump --probe_dump_stats_only")
    m = [t for t in manifest() if t.get("record") == "tensor"]
    tiles = [t for t in m if re.match(r"L0\.t\d\.tile$", t["op"])]
    need(len(tiles) == 4, f"{len(tiles)} tile outputs: {m}")
    parents = {t["parent"] for t in tiles}
    step_seq = [t for t in manifest() if t.get("op") == "L0.step"]
    need(parents and None not in parents and len(parents) == 1, f"tile parents {parents}")
elif mode == "at_end_link":
    run("--probe_dump_to=dump --probe_dump_stats_only")
    m = {t["key"]: t for t in manifest() if t.get("record") == "tensor"}
    y = m.get("fill#0/out/y")
    need(y and y["stats"]["min"] == 42 and y["stats"]["max"] == 42, f"output_at_end not read at the end: {y}")
    x = m.get("use#0/in/x")
    need(x and x.get("producer") == "fill#0/out/y", f"link not recorded: {x}")
elif mode == "misuse":
    r = run("--probe_dump_to=dump --probe_dump_as_npy --probe_trace_to=t.json --probe_timing_summary "
            "--probe_breakpoint=dump")
    err = r.stderr
    need("op a ended while an op begun inside it was still open" in err, err)
    need("op inner ended twice; the second end is ignored" in err, err)
    need(err.count("ended twice") == 1, err)
    need("misused" in r.stderr + r.stdout, f"the misused scope site is not timed:\n{err}")
    m = manifest()
    ops = {t["op"]: t for t in m if t.get("record") == "tensor"}
    seq = {t["op"]: t["seq"] for t in m if t.get("record") == "tensor"}
    need(ops["child"]["parent"] == seq["after"], f"nesting after the misuse: {ops['child']}")
    need(ops["b"]["parent"] == seq["a"] and ops["a"]["parent"] is None, f"b begun inside a: {ops['b']}")
    huge = [t for t in m if t.get("record") == "tensor" and t["op"] == "huge"]
    need(len(huge) == 2 and all("more bytes than memory" in t.get("note", "") for t in huge),
         f"shapes past memory: {huge}")
    frames = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(work, "dump", "breakpoints")) for f in fs
              if f == "frames.txt"]
    need(len(frames) == 1, f"breakpoint folders: {frames}")
    text = open(frames[0], encoding="utf-8").read()
    need(text.count(" op b (B)") == 1 and text.count(" op a (A)") == 1, text)
    with open(os.path.join(work, "t.json"), encoding="utf-8") as f:
        json.load(f)
elif mode == "log_sink":
    r = run(None)
    need(re.search(r"sink\[mine\]: .*dump_to_typo", r.stdout), r.stdout)
    need("dump_to_typo" not in r.stderr, f"the message also went to stderr: {r.stderr}")
elif mode == "replay":
    run("--probe_dump_to=dump --probe_dump_snapshots")
    r = run(None, cmd=[cli, "replay", "dump", "--", prog, mode])
    need(re.search(r"scale", r.stdout), r.stdout)
    need("reference kernel" not in r.stdout + r.stderr, "the reference kernel ran without --reference")
    r = run(None, cmd=[cli, "replay", "--reference", "dump", "--", prog, mode])
    need("reference kernel for scale (Scale), reference mode 1" in r.stdout + r.stderr, r.stdout + r.stderr)
    r = run(None, cmd=[cli, "replay", "dump", "--", prog, mode], env={"C_FEATURES_KERNEL": "wrong"}, want_rc=1)
    r = run(None, cmd=[cli, "replay", "dump", "--", prog, mode], env={"C_FEATURES_KERNEL": "missing"}, want_rc=2)
    need("no_such_attr" in r.stdout + r.stderr, r.stdout + r.stderr)
else:
    fail("unknown mode")
print(f"c_api_{mode} ok")
