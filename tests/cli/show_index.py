#!/usr/bin/env python3
"""probe show FILE.npy INDEX: part of a .npy file, indexed as at the breakpoint prompt, checked
against numpy's own indexing (C and Fortran order, negative steps, chained brackets, a
byte-swapped file); bad indices are one message and exit 2; probe --probe_help lists the flags.

usage: show_index.py PATH/TO/probe"""
import os
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
    else:
        print("ok:", what)


def probe(*args):
    p = subprocess.run([PROBE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


tmp = tempfile.mkdtemp(prefix="probe_show_index_")
try:
    a = np.arange(200 * 3 * 4, dtype=np.float32).reshape(200, 3, 4) * 0.5
    files = {"c": a, "fortran": np.asfortranarray(a), "swapped": a.astype(">f4")}
    for name, arr in files.items():
        path = os.path.join(tmp, name + ".npy")
        np.save(path, arr)
        for index, want in (("[126, 2, :]", a[126, 2, :]), ("[-1][::-2, 1]", a[-1][::-2, 1]),
                            ("[5:9, 0, ::3]", a[5:9, 0, ::3]), ("[3, 1, 2]", a[3, 1, 2]), ("[::50]", a[::50]),
                            ("[:0]", a[:0])):
            code, out, err = probe("show", path, index)
            first = out.splitlines()[0] if out else ""
            shape = "[" + ",".join(str(n) for n in want.shape) + "]"
            with np.printoptions(threshold=1000):
                values = str(np.asarray(want, dtype=np.float32))
            check(code == 0 and first == "%s%s: float32%s of float32[200,3,4]" % (path, index, shape) and
                  values in out, "%s %s: %r (rc %d, %s)" % (name, index, out[:300], code, err))
        code, out, _ = probe("show", path, "[126, 2, :]")
        check("health: 4 values, nan 0, +inf 0, -inf 0, zero 0; min 760 max 761.5" in out, "%s: health of the part" % name)

    path = os.path.join(tmp, "c.npy")
    for index, message in (("[300]", "index 300 is out of bounds for axis 0 with size 200"),
                           ("[1, 2, 3, 4]", "too many indices"), ("[::0]", "slice step cannot be zero"),
                           ("x", "expected an index such as '[0, :, 1:3]'"), ("[1", "missing ']'"),
                           ("[a]", "bad index 'a'")):
        code, out, err = probe("show", path, index)
        check(code == 2 and out == "" and len(err.splitlines()) == 1 and message in err, "bad index %r: %r" % (index, err))
    code, _, err = probe("show", tmp, "[0]")
    check(code == 2 and "an INDEX needs a .npy file" in err, "INDEX with a folder: %r" % err)

    code, out, err = probe("--probe_help")
    check(code == 0 and "--probe_break_if=VALUE" in out and "--probe_dump_to=VALUE" in out and err == "",
          "probe --probe_help: the flag table on stdout, exit 0")
finally:
    shutil.rmtree(tmp)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
