"""--pattern and --label-re end to end, on input that breaks a backtracking regex engine:
a 10 MB line, a line just under the 1 MiB limit matched by a pattern starting with .*, and
a pattern that backtracks exponentially ((?:a*)*b) on long runs of 'a'. Each must finish
(the subprocess timeout is a guard, not a measurement) with the right values. Also: a bad
expression is one clear line and exit 2 (128 for bisect-run).

usage: pattern_cli.py PATH/TO/probe
"""
import json
import os
import subprocess
import sys
import tempfile

PROBE = sys.argv[1]
GUARD_S = 120  # far above the time a linear engine needs; a hang fails instead of stalling ctest
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def probe(*args):
    try:
        p = subprocess.run([PROBE, *args], capture_output=True, text=True, timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {GUARD_S} s"
    return p.returncode, p.stdout, p.stderr


def values_by_label(json_text):
    try:
        return {r["label"]: r["values"] for r in json.loads(json_text)["runs"]}
    except ValueError:
        return {}


with tempfile.TemporaryDirectory() as tmp:
    # --- long lines: run 3 holds a 10 MiB line and a 2 MiB one (skipped, one warning), then
    # its value at the end of a line just under 1 MiB
    runs = os.path.join(tmp, "long")
    os.mkdir(runs)
    for i in range(1, 13):
        with open(os.path.join(runs, f"run-{i}.log"), "w") as f:
            if i == 3:
                f.write("y" * (10 << 20) + "\n")
                f.write("z" * (2 << 20) + " MLUPS: 1\n")
                f.write("x" * 1_000_000 + " MLUPS: 577\n")
            else:
                f.write(f"MLUPS: {577 + i % 3}\n")
    code, out, err = probe("regress", runs, "--pattern", r"^.*MLUPS: (\d+)", "--json", "-")
    got = values_by_label(out)
    check(code == 0, f"long lines: exit 0, got {code}: {err[-300:]}")
    check(got.get("run-3.log") == [577], f"the value after the long lines: {got.get('run-3.log')}")
    check(len(got) == 12 and all(len(v) == 1 for v in got.values()), f"every run has its one value: {got}")
    warnings = [l for l in err.splitlines() if "1 MiB" in l]
    check(len(warnings) == 1, f"one warning for the file's long lines: {err!r}")
    if warnings:
        w = warnings[0]
        check(os.path.join(runs, "run-3.log") in w and "line 1 has 10485760 bytes" in w and "1 more" in w,
              f"the warning names the file, the first line and the others: {w}")
    # a metric name is found on a line of any length
    code, out, err = probe("regress", runs, "--metric", "MLUPS", "--json", "-")
    check(values_by_label(out).get("run-3.log") == [1, 577], f"--metric on long lines: {code} {err[-300:]}")

    # --- exponential backtracking: (?:a*)*b against long runs of 'a' with no b, in the output
    # (--pattern) and in the file names (--label-re)
    runs = os.path.join(tmp, "backtrack")
    os.mkdir(runs)
    for i in range(1, 13):
        with open(os.path.join(runs, f"ab{i}.log"), "w") as f:
            f.write("a" * 30 + "\n" + "a" * 100_000 + "\n" + f"aab={577 + i % 3}\n")
    with open(os.path.join(runs, "a" * 200 + ".log"), "w") as f:  # no b in its name: skipped
        f.write("aab=1\n")
    code, out, err = probe("regress", runs, "--pattern", r"(?:a*)*b=(\d+)", "--label-re", r"(?:a*)*b(\d+)",
                           "--order", "given", "--json", "-")
    got = values_by_label(out)
    check(code == 0, f"pathological patterns: exit 0, got {code}: {err[-300:]}")
    check(list(got) == [str(i) for i in range(1, 13)], f"labels from --label-re: {list(got)}")
    check(all(v == [577 + int(k) % 3] for k, v in got.items()), f"values from --pattern: {got}")
    check("1 input(s) skipped" in err, f"the name without a match is skipped: {err}")

    # --- bad expressions: one line naming the option, exit 2 (bisect-run: 128, stopping the bisect)
    for option, pattern in (("--pattern", "MLUPS: ([0-9"), ("--label-re", r"(a)\1"), ("--pattern", "(?<=x)(1)")):
        args = ("--metric", "MLUPS", option, pattern) if option == "--label-re" else (option, pattern)
        code, out, err = probe("regress", runs, *args)
        lines = err.strip().splitlines()
        check(code == 2 and len(lines) == 1 and option in lines[0] and "not a valid regular expression" in lines[0],
              f"bad {option} {pattern!r}: exit {code}, stderr {err!r}")
    code, out, err = probe("bisect-run", "--pattern", "MLUPS: ([0-9", "--good-value", "2", "--bad-value", "1", "--",
                           "true")
    lines = err.strip().splitlines()
    check(code == 128 and len(lines) == 1 and "not a valid regular expression" in lines[0],
          f"bisect-run with a bad pattern: exit {code}, stderr {err!r}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("pattern_cli: all checks passed")
