"""probe jitter end to end on examples/engine: its mean pooling sums in thread-completion order,
so three runs name that op, and that op alone, as non-deterministic; under
--probe_reproducible every run agrees. The runs' folders are removed (kept with --keep, whose
run record says the modes); a program that fails is exit 2; tolerances make small jitter pass.

usage: jitter_cli.py PATH/TO/probe PATH/TO/engine
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

PROBE, ENGINE = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def jitter(*args, flags=None, tmp):
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("PROBE_FLAGS", None)
    if flags is not None:
        env["PROBE_FLAGS"] = flags
    p = subprocess.run([PROBE, "jitter", *args], capture_output=True, text=True, timeout=300, env=env)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    code, out, err = jitter("--json", "-", "--", ENGINE, tmp=tmp)
    report = json.loads(out) if out.startswith("{") else {}
    keys = [o["key"] for o in report.get("ops", [])]
    check(code == 1 and keys == ["pool#0"], f"non-deterministic ops: exit {code}, {keys} {err!r}")
    check("pool#0" not in report.get("inheritors", []) and not report.get("fed"), f"inheritors/fed: {report}")
    check(all(k.startswith("head#") for k in report.get("inheritors", [])), f"only the consumer inherits: {report}")
    op = (report.get("ops") or [{}])[0]
    check(op.get("runs_differing", 0) >= 1 and 0 < op.get("max_abs", 0) < 1e-5 and op.get("elements", 0) > 0,
          f"spread of pool#0: {op}")
    check(glob.glob(os.path.join(tmp, "probe-jitter-*")) == [], "the runs' folders are removed")

    code, out, err = jitter("--", ENGINE, flags="--probe_reproducible", tmp=tmp)
    check(code == 0 and "Every run agrees" in out, f"--probe_reproducible: exit {code}, {out!r} {err!r}")

    code, out, err = jitter("--atol", "1e-4", "--runs", "2", "--", ENGINE, tmp=tmp)
    check(code == 0 and "3 runs" not in out and "2 runs" in out, f"--atol 1e-4 --runs 2: exit {code}, {out!r}")

    code, out, err = jitter("--keep", "--runs", "2", "--", ENGINE, flags="--probe_reproducible", tmp=tmp)
    kept = glob.glob(os.path.join(tmp, "probe-jitter-*"))
    check(code == 0 and len(kept) == 1 and kept[0] in out, f"--keep: exit {code}, {kept} {out!r}")
    if kept:
        with open(os.path.join(kept[0], "run_0", "manifest.jsonl")) as f:
            run = json.loads(f.readline())
        check(run.get("record") == "run" and run.get("reproducible") is True and run.get("reference") is False,
              f"the run record says the modes: {run}")
        build = run.get("build", {})
        check(build.get("program") == os.path.realpath(ENGINE) and build.get("program_bytes") == os.path.getsize(ENGINE),
              f"the run record names the program file: {build}")

    # A program that writes no dump (marks nothing): said so, exit 2.
    code, out, err = jitter("--runs", "2", "--", "/bin/true", tmp=tmp)
    check(code == 2 and "wrote no probe dump" in err and "no such file" not in err,
          f"a program without marks: exit {code}, {err!r}")

    # Two dumps of one build: compare calls the op that differs non-deterministic, not a root.
    env = dict(os.environ)
    said = ""
    for attempt in range(4):  # the pooling differs on almost every run; try again if two agree
        for d in ("one", "two"):
            env["PROBE_FLAGS"] = f"--probe_dump_to={os.path.join(tmp, d)} --probe_dump_as_npy"
            subprocess.run([ENGINE], env=env, check=True, capture_output=True, timeout=120)
        p = subprocess.run([PROBE, "compare", os.path.join(tmp, "one"), os.path.join(tmp, "two"), "--atol", "0",
                            "--rtol", "0"], capture_output=True, text=True, timeout=120)
        said = p.stdout
        if p.returncode == 1:
            break
    flat = said.replace("\n    ", " ")
    check(re.search(r"(Differs between runs of the same build, non-deterministic\? op pool#0|"
                    r"between runs of the same build, non-deterministic\?, start at 1 op: pool#0)", flat)
          and "Root cause: op pool#0" not in said and "probe jitter" in said, f"compare of two runs of one build: {said}")
    p = subprocess.run([PROBE, "compare", os.path.join(tmp, "one"), os.path.join(tmp, "two"), "--json", "-"],
                       capture_output=True, text=True, timeout=120)
    check(json.loads(p.stdout).get("same_build") is True, "compare --json says same_build")

    code, out, err = jitter("--", "/bin/false", tmp=tmp)
    check(code == 2 and "exited with status 1" in err, f"a failing program: exit {code}, {err!r}")
    code, out, err = jitter("--", os.path.join(tmp, "no-such-program"), tmp=tmp)
    check(code == 2 and "cannot run" in err, f"a missing program: exit {code}, {err!r}")
    code, out, err = jitter(tmp=tmp)
    check(code == 2 and "needs the program" in err, f"no program: exit {code}, {err!r}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("jitter_cli: all checks passed")
