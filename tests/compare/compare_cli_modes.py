"""probe compare end to end where its modes and inputs meet: options a mode does not take are
refused (exit 2, one message), a dump cut short by a budget passes where it agrees, a dump
against a folder of .npy files reads only the files its manifest names, and a corrupt
manifest line is named by one line number.

usage: compare_cli_modes.py PATH/TO/probe PATH/TO/compare_engine_dump
"""
import os
import shutil
import subprocess
import sys
import tempfile

PROBE, DUMP = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def probe(*args):
    p = subprocess.run([PROBE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    ref, opt, cut = (os.path.join(tmp, n) for n in ("ref", "opt", "cut"))
    subprocess.run([DUMP, ref, "--reference"], check=True)
    subprocess.run([DUMP, opt], check=True)
    subprocess.run([DUMP, cut, "--max-ops", "3"], check=True, stderr=subprocess.DEVNULL)

    # --- a one-dump check takes --step, --json and --quiet; anything else is refused, not dropped
    page = os.path.join(tmp, "x.html")
    for args in (("--nonfinite", ref, "--html", page), ("--first-above", "5", ref, "--html", page),
                 ("--nonfinite", "--first-above", "5", ref), ("--nonfinite", "--atol", "1", ref),
                 ("--first-above", "1", ref, opt, "--tol", "fc.*=1,1"), ("--nonfinite", ref, "--accept-rounding")):
        code, text, err = probe("compare", *args)
        check(code == 2 and "does not apply to --" in err and "takes only --step, --json and --quiet" in err
              and err.count("\n") == 1 and not text, f"compare {' '.join(args)}: exit 2 with one message: {code} {err}")
    check(not os.path.exists(page), "no page is written by a refused --html")
    nf_json = os.path.join(tmp, "nf.json")
    code, text, err = probe("compare", "--nonfinite", ref, "--step", "0", "--quiet", "--json", nf_json)
    check(code == 0 and not text and os.path.exists(nf_json), f"--nonfinite with what it takes: {code} {err}")
    code, text, err = probe("compare", "--first-above", "1e30", ref, opt, "--step", "0", "--json", "-")
    check(code == 0 and text.startswith("{"), f"--first-above with what it takes: {code} {err}")
    code, text, _ = probe("compare", "--help")
    check("--nonfinite [--step N] [--json FILE] [--quiet] DIR" in text and
          "--nonfinite and --first-above take only --step, --json and --quiet" in text, "help says what each mode takes")

    # --- a run cut short by --probe_dump_max_ops: what it did not record is no data, exit 0
    code, text, err = probe("compare", cut, ref)
    check(code == 0, f"a budget-cut dump that agrees: exit 0, got {code}: {text}{err}")
    check("no data (past A's dump budget)" in text and "only in B" not in text and "op sequences differ" not in text,
          f"the budget in words: {text}")
    check("note: dumping stopped early: --probe_dump_max_ops=3 reached" in text, "the note names the budget")

    # --- a dump against a folder of .npy files: only the files its manifest names
    plain = os.path.join(tmp, "plain")
    os.mkdir(plain)
    for name in os.listdir(ref):
        if name.endswith(".npy"):
            shutil.copy(os.path.join(ref, name), plain)
    shutil.copy(os.path.join(ref, sorted(n for n in os.listdir(ref) if n.endswith(".npy"))[0]),
                os.path.join(ref, "op_000099.stale.out.y.npy"))  # an earlier run's file
    for a, b in ((ref, plain), (plain, ref)):
        code, text, err = probe("compare", a, b)
        check(code == 0 and "stale" not in text and "only in" not in text, f"compare {a} {b}: {code} {text}{err}")
        check("the files it names are paired by path" in text, f"the note says how: {text}")

    # --- a corrupt manifest line: the manifest's line number, and the column within it
    bad = os.path.join(tmp, "bad")
    shutil.copytree(opt, bad)
    lines = open(os.path.join(bad, "manifest.jsonl")).read().split("\n")
    lines[2] = '{"record":"tensor", garbage'
    open(os.path.join(bad, "manifest.jsonl"), "w").write("\n".join(lines))
    code, _, err = probe("compare", bad, ref)
    check(code == 2 and "manifest.jsonl:3: column 21: " in err and "line 1" not in err, f"corrupt manifest: {err}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("compare_cli_modes: all checks passed")
