"""The probe CLI against hostile folders and input: no hang (symbolic link loops, FIFOs named
by a manifest), reports written in place to what is not a regular file (/dev/stdout, '-',
a FIFO), no terminal escape or bidirectional control from a file reaching the terminal,
capped regex patterns, and labels that keep their JSON text.

usage: cli_hostile.py PATH/TO/probe
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

import numpy as np

PROBE = sys.argv[1]
failures = []
ESC, RLO = "\x1b", "\u202e"  # an escape sequence's start; RIGHT-TO-LEFT OVERRIDE


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def probe(*args, timeout=30, **kw):
    """Exit code, stdout, stderr; a run past the timeout (a hang) is killed and reads as -1."""
    try:
        p = subprocess.run([PROBE, *args], capture_output=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        return -1, "", "(timed out: the CLI hung)"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def one_error_line(err):
    return err.count("\n") == 1 and err.strip() != ""


def write_dump(folder, names, dtype_text="float32", note_reason="budget reached", values=None):
    """A dump folder written by hand: one output tensor per name, a budget record."""
    os.makedirs(folder, exist_ok=True)
    records = [{"record": "run"}]
    for i, name in enumerate(names):
        f = f"op_{i + 1:06d}.out.npy"
        x = np.arange(6, dtype=np.float32) if values is None else values[i]
        np.save(os.path.join(folder, f), x)
        records.append({"record": "tensor", "key": f"{name}#0/out/y", "seq": i + 1, "io": "out", "op": name,
                        "type": "T" + name, "occurrence": 0, "slot": "y", "dtype": dtype_text, "shape": list(x.shape),
                        "file": f, "note": "n" + name})
    records.append({"record": "budget", "reason": note_reason})
    records.append({"record": "end"})
    with open(os.path.join(folder, "manifest.jsonl"), "w") as out:
        for r in records:
            out.write(json.dumps(r) + "\n")


with tempfile.TemporaryDirectory() as tmp:
    # --- a symbolic link loop under a folder of .npy files: one error line, exit 2, no hang
    loop_a, loop_b = os.path.join(tmp, "loop_a"), os.path.join(tmp, "loop_b")
    for d in (loop_a, loop_b):
        os.makedirs(os.path.join(d, "sub"))
        np.save(os.path.join(d, "sub", "x.npy"), np.arange(4.0))
    os.symlink(".", os.path.join(loop_a, "sub", "self"))
    os.symlink("..", os.path.join(loop_a, "sub", "up"))
    for args in (("compare", loop_a, loop_b), ("show", loop_a)):
        code, _, err = probe(*args)
        check(code == 2 and one_error_line(err) and "loop" in err, f"{args[0]} of a link loop: exit {code}, {err!r}")
    # a folder reached twice through links (no loop) is fine, and listed once
    diamond = os.path.join(tmp, "diamond")
    os.makedirs(os.path.join(diamond, "real"))
    np.save(os.path.join(diamond, "real", "x.npy"), np.arange(3.0))
    os.symlink("real", os.path.join(diamond, "alias"))
    code, out, err = probe("show", diamond)
    check(code == 0 and out.count("x.npy") == 1, f"a folder behind two names: exit {code}, {out!r} {err!r}")

    # --- a FIFO or a device named by a manifest: refused at once, not waited on
    fifo_dump, ref = os.path.join(tmp, "fifo_dump"), os.path.join(tmp, "ref")
    write_dump(fifo_dump, ["a", "b"])
    write_dump(ref, ["a", "b"])
    with open(os.path.join(fifo_dump, "manifest.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    for r in lines:
        r.pop("stats", None)  # no stats: --nonfinite must read the data
    with open(os.path.join(fifo_dump, "manifest.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in lines))
    victim = os.path.join(fifo_dump, "op_000002.out.npy")
    os.unlink(victim)
    os.mkfifo(victim)
    for args in (("compare", fifo_dump, ref), ("compare", "--nonfinite", fifo_dump), ("show", "--health", fifo_dump)):
        code, _, err = probe(*args, timeout=20)
        check(code == 2 and one_error_line(err) and "op_000002.out.npy" in err and "FIFO" in err,
              f"{' '.join(args[:2])} with a FIFO in the manifest: exit {code}, {err!r}")
    npy_dir = os.path.join(tmp, "npy_fifo")
    os.makedirs(npy_dir)
    os.mkfifo(os.path.join(npy_dir, "x.npy"))
    code, _, err = probe("show", npy_dir, timeout=20)
    check(code == 2 and one_error_line(err) and "FIFO" in err, f"show of a folder holding a FIFO: {code} {err!r}")
    os.unlink(os.path.join(npy_dir, "x.npy"))
    os.symlink("/dev/zero", os.path.join(npy_dir, "x.npy"))
    code, _, err = probe("show", npy_dir, timeout=20)
    check(code == 2 and one_error_line(err) and "device" in err, f"show of a link to /dev/zero: {code} {err!r}")

    # --- reports to what is not a regular file: written in place
    runs = os.path.join(tmp, "runs")
    os.makedirs(runs)
    for i in range(1, 11):
        with open(os.path.join(runs, f"run-{i}.log"), "w") as f:
            f.write(f"MLUPS: {577 + i % 3}\n")
    regress = ("regress", runs, "--metric", "MLUPS", "--quiet")
    # a link to this process's stdout first: a rename would replace the link, not write to it
    to_stdout = os.path.join(tmp, "to_stdout")
    os.symlink("/proc/self/fd/1", to_stdout)
    code, out, err = probe(*regress, "--json", to_stdout)
    in_place = code == 0 and out.startswith("{") and os.path.islink(to_stdout)
    check(in_place, f"--json to a link to stdout: exit {code}, link kept {os.path.islink(to_stdout)}, {err!r}")
    if in_place:  # /dev/stdout itself, only once the link is known to be written through
        for option in ("--json", "--svg", "--html"):
            code, out, err = probe(*regress, option, "/dev/stdout")
            check(code == 0 and len(out) > 100, f"{option} /dev/stdout piped: exit {code}, {len(out)} bytes, {err!r}")
        code, out, _ = probe(*regress, "--json", "/dev/stdout")
        check("min_points" in json.loads(out).get("options", {}), "the JSON on /dev/stdout parses")
        code, out, _ = probe("compare", ref, ref, "--quiet", "--json", "/dev/stdout")
        check(code == 0 and isinstance(json.loads(out), dict), f"compare --json /dev/stdout: {code} {out[:200]!r}")
    for option, start in (("--svg", "<"), ("--html", "<!")):
        code, out, err = probe(*regress, option, "-", cwd=tmp)
        check(code == 0 and out.lstrip().startswith(start) and not os.path.exists(os.path.join(tmp, "-")),
              f"{option} - writes to stdout: exit {code}, {out[:40]!r} {err!r}")
    code, out, err = probe("compare", ref, ref, "--quiet", "--html", "-")
    check(code == 0 and "<html" in out.lower(), f"compare --html -: {code} {err!r}")
    fifo_out = os.path.join(tmp, "report.fifo")
    os.mkfifo(fifo_out)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo_out).read()))
    reader.start()
    code, _, err = probe(*regress, "--json", fifo_out, timeout=20)
    reader.join(timeout=20)
    check(code == 0 and got and got[0].startswith("{"), f"--json to a FIFO: exit {code}, read {len(got)} {err!r}")
    if reader.is_alive():  # let the reader go
        with open(fifo_out, "w"):
            pass
    # a regular file is still replaced whole
    report = os.path.join(tmp, "report.json")
    with open(report, "w") as f:
        f.write("old" * 100000)
    code, _, _ = probe(*regress, "--json", report)
    with open(report) as f:
        check(code == 0 and "min_points" in json.load(f)["options"], "--json to a regular file")

    # --- escape sequences and bidi controls in every name a file holds
    evil = "ev" + ESC + "[2J" + RLO + "il"
    h_a, h_b = os.path.join(tmp, "h_a"), os.path.join(tmp, "h_b")
    write_dump(h_a, ["x" + evil, "y" + evil], dtype_text="float32" + evil, note_reason="reason" + evil,
               values=[np.arange(6, dtype=np.float32), np.array([np.nan, 1], dtype=np.float32)])
    write_dump(h_b, ["x" + evil, "y" + evil], dtype_text="float32" + evil, note_reason="reason" + evil)
    for folder, values in ((h_a, [1.0, 2.0]), (h_b, [1.0, 3.0])):  # an input that differs, its producer not dumped
        np.save(os.path.join(folder, "in.npy"), np.array(values, dtype=np.float32))
        with open(os.path.join(folder, "manifest.jsonl"), "a") as f:
            f.write(json.dumps({"record": "tensor", "key": "y" + evil + "#0/in/x", "seq": 2, "io": "in",
                                "op": "y" + evil, "type": "T", "occurrence": 0, "slot": "x" + evil,
                                "producer": "gone" + evil, "dtype": "float32", "shape": [2], "file": "in.npy"}) + "\n")
    snap = os.path.join(tmp, "snap")
    os.makedirs(snap)
    np.save(os.path.join(snap, "in0.npy"), np.arange(3.0))
    with open(os.path.join(snap, "snapshot.json"), "w") as f:
        json.dump({"format": "probe-snapshot-1", "op": "op" + evil, "type": "T" + evil, "seq": 1, "step": 0,
                   "occurrence": 0, "status": "ok" + evil,
                   "inputs": [{"slot": "s" + evil, "key": "k" + evil, "producer": "p" + evil, "file": "in0.npy"}],
                   "outputs": []}, f)
    series = os.path.join(tmp, "series.jsonl")
    with open(series, "w") as f:
        for i in range(12):
            row = {"label": f"r{i:02d}" + evil, "value": 10 + (i >= 6) * 5}
            if i == 3:
                row = {"label": "bad" + evil, "value": None, "error": "boom" + evil}
            f.write(json.dumps(row) + "\n")
    evil_runs = os.path.join(tmp, "evil_runs")
    os.makedirs(evil_runs)
    for i in range(8):
        with open(os.path.join(evil_runs, f"run{i}" + evil + ".log"), "w") as f:
            f.write(f"MLUPS: {100 + (i >= 4) * 20}\n" if i != 2 else "Error: " + evil + "\n")
    views = [("compare", h_a, h_b), ("compare", "--all", h_a, h_b), ("compare", "--nonfinite", h_a),
             ("show", h_a), ("show", "--health", h_a), ("show", snap), ("show", os.path.join(snap, "in0.npy")),
             ("regress", series, "--min-points", "2"), ("regress", evil_runs, "--metric", "MLUPS", "--min-points", "2"),
             ("regress", evil_runs, "--metric", "MLUPS" + evil), ("regress", evil_runs, "--pattern", "(" + evil + ")"),
             ("regress", evil_runs, "--label-re", evil + "(")]
    for args in views:
        code, out, err = probe(*args)
        text = out + err
        check(code in (0, 1, 2) and text.strip(), f"{' '.join(args[:2])}: exit {code}")
        check(ESC not in text and RLO not in text and "\x9b" not in text,
              f"{' '.join(args[:2])}: a raw ESC or U+202E reaches the terminal: {text[:600]!r}")
    code, out, _ = probe("show", h_a)
    check("\\x1b[2J\\u{202e}" in out and "reason" in out, f"show: names appear escaped: {out[:600]!r}")
    code, out, _ = probe("compare", h_a, h_b)
    check("gone" in out and "\\u{202e}" in out, f"compare: the producer named, escaped: {out[-600:]!r}")

    # --- regex patterns over the size cap: one clear line before any compile
    long_pattern = "(\\d+)" + "x" * 5000
    for args in (("regress", runs, "--pattern", long_pattern), ("regress", runs, "--metric", "MLUPS", "--label-re", long_pattern),
                 ("compare", ref, ref, "--tol", long_pattern + "=1,1")):
        code, _, err = probe(*args)
        check(code == 2 and one_error_line(err) and "4096 bytes" in err and len(err) < 400,
              f"{args[0]} {args[-2][:12]}: a 5 KB pattern: exit {code}, {err[:200]!r}")
    code, _, err = probe("bisect-run", "--pattern", long_pattern, "--", "true")
    check(code == 128 and one_error_line(err) and "4096 bytes" in err, f"bisect-run with a 5 KB pattern: {code} {err[:200]!r}")
    many_groups = "()" * 2000 + "(\\d+)"  # within the size cap; matching would take 250 MB and seconds a label
    code, _, err = probe("regress", runs, "--metric", "MLUPS", "--label-re", many_groups)
    check(code == 2 and one_error_line(err) and "2001 capture groups" in err,
          f"--label-re with 2001 groups: {code} {err[:200]!r}")
    code, _, err = probe("regress", runs, "--pattern", "MLUPS: (\\d+)\n(")
    check(code == 2 and one_error_line(err), f"a pattern with a newline: one line, {err!r}")

    # --- a pattern matching blank lines with an empty capture: the failed run says something
    blank_runs = os.path.join(tmp, "blank_runs")
    os.makedirs(blank_runs)
    for i in range(3):
        with open(os.path.join(blank_runs, f"b{i}.log"), "w") as f:
            f.write("   \n\t\n")
    code, _, err = probe("regress", blank_runs, "--pattern", "(\\d*)")
    check(code == 2 and one_error_line(err) and not err.rstrip().endswith(":"), f"blank error line: {err!r}")

    # --- JSON-lines labels that are not strings keep their JSON text
    labels = os.path.join(tmp, "labels.jsonl")
    with open(labels, "w") as f:
        f.write('{"label": 1e300, "value": 1}\n{"label": true, "value": 2}\n{"label": [1, 2], "value": 3}\n'
                '{"label": 20240109, "value": 4}\n{"label": -0.5, "value": 5}\n')
    code, out, err = probe("regress", labels, "--order", "given", "--min-points", "2", "--json", "-")
    got = [r.get("label") for r in json.loads(out).get("runs", [])] if out.startswith("{") else []
    check(got == ["1e300", "true", "[1, 2]", "20240109", "-0.5"], f"labels as written: {got} {err!r}")

    # --- shapes numpy refuses: a zero dimension does not excuse the others' overflowing product
    big = os.path.join(tmp, "zero_dim_overflow.npy")
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904, 0), }"
    header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
    with open(big, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
    code, _, err = probe("show", big)
    check(code == 2 and one_error_line(err) and "shape too large" in err, f"show of a (2^62, 2^62, 0) .npy: {code} {err!r}")
    code, _, err = probe("compare", big, big)
    check(code == 2 and "shape too large" in err, f"compare of a (2^62, 2^62, 0) .npy: {code} {err!r}")
    shape_dump = os.path.join(tmp, "bad_shape")
    os.makedirs(shape_dump)
    with open(os.path.join(shape_dump, "manifest.jsonl"), "w") as f:
        f.write('{"record": "run", "version": 1}\n')
        f.write(json.dumps({"record": "tensor", "key": "a#0/out/y", "seq": 1, "io": "out", "op": "a", "occurrence": 0,
                            "slot": "y", "dtype": "float32", "shape": [-5, 9223372036854775807, 3], "file": None,
                            "stats": {"count": 6, "finite": 6, "min": 1, "max": 6, "mean": 3.5, "std": 1.7,
                                      "nan": 0, "posinf": 0, "neginf": 0, "zero": 0}}) + "\n")
    for args in (("show", shape_dump), ("compare", shape_dump, shape_dump)):
        code, _, err = probe(*args)
        check(code == 2 and "manifest.jsonl:2:" in err and "-5" in err, f"{args[0]} of a manifest shape [-5, ...]: {code} {err!r}")

    # --- unknown verbs and options: a clear message naming them
    code, _, err = probe("-")
    check(code == 2 and "unknown verb '-'" in err, f"probe -: {err!r}")
    for verb in ("regress", "compare", "show"):
        code, _, err = probe(verb, "--=")
        check(code == 2 and one_error_line(err) and "unknown option '--='" in err, f"probe {verb} --=: {err!r}")
    code, _, err = probe("regress", "--" + ESC + "[2J")
    check(code == 2 and ESC not in err and "unknown option" in err, f"an option with an escape: {err!r}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("cli_hostile: all checks passed")
