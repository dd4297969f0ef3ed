"""The probe command line end to end: help (probe VERB --help is probe help VERB), usage
errors (one line, the verb's exit code, "did you mean"), --name=value, and --version.

usage: cli_options.py PATH/TO/probe BUILD_TYPE WITH_CUDA(0|1)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

PROBE, BUILD_TYPE, WITH_CUDA = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
VERBS = {"regress": 2, "bisect-run": 128, "compare": 2, "show": 2, "replay": 2, "bundle": 2, "jitter": 2}  # verb: exit code of a usage error
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def probe(*args):
    p = subprocess.run([PROBE, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


for verb, usage_exit in VERBS.items():
    code, help_text, _ = probe(verb, "--help")
    check(code == 0 and help_text.startswith("usage: "), f"{verb} --help: exit {code}")
    code, same, _ = probe("help", verb)
    check(code == 0 and same == help_text, f"probe help {verb} is probe {verb} --help")
    check(probe(verb, "-h")[1] == help_text, f"{verb} -h")
    code, md, _ = probe("help", verb, "--markdown")
    names = re.findall(r"^\| `(--[a-z-]+)", md, re.M)
    check(code == 0 and len(names) > 2, f"probe help {verb} --markdown: exit {code}, options {names}")
    for name in names:
        check(re.search(rf"^  {name}\b", help_text, re.M), f"{verb} --help lists {name}")
    check(f"probe help {verb}" in help_text, f"{verb} --help points to probe help {verb}")

    # usage errors: one line on stderr, the verb's exit code
    code, _, err = probe(verb, "--no-such-option", "--", "true")
    check(code == usage_exit and err.count("\n") == 1 and err.startswith(f"probe {verb}: unknown option"),
          f"{verb} unknown option: exit {code} (want {usage_exit}), {err!r}")
    code, _, err = probe(verb, "--step=x" if verb in ("compare", "show") else "--metric", *(["--", "true"] if verb == "bisect-run" else []))
    check(code == usage_exit and err.count("\n") == 1, f"{verb} bad value: exit {code}, {err!r}")

code, _, err = probe("regress", "--max-pvalu", "0.1", "x")
check(code == 2 and "did you mean --max-pvalue?" in err, f"near miss: {err!r}")
code, _, err = probe("bisect-run", "--treshold", "0.1", "--", "true")
check(code == 128 and "did you mean --threshold?" in err and "exit 128 stops git bisect run" in err, f"bisect near miss: {err!r}")
code, _, err = probe("regress", "--order", "natral", "x")
check(code == 2 and "did you mean natural?" in err, f"near miss of a value: {err!r}")
code, _, err = probe("compare", "--check", "median", "a", "b")
check(code == 2 and "--check" in err and err.count("\n") == 1, f"--check: {err!r}")
code, _, err = probe("comapre")
check(code == 2 and "did you mean compare?" in err, f"near miss of a verb: {err!r}")
code, _, err = probe("help", "nosuch")
check(code == 2 and "unknown verb 'nosuch'" in err, f"help for no verb: {err!r}")
code, _, err = probe("help", "compare", "--mark")
check(code == 2 and err.count("\n") == 1, f"help with a bad word: {err!r}")
code, out, _ = probe("help")
check(code == 0 and all(v in out for v in VERBS) and "probe --version" in out, "probe help lists the verbs")
check(probe()[0] == 2, "no verb: exit 2")

# --name=value and --name value are the same
with tempfile.TemporaryDirectory() as tmp:
    for i in range(1, 13):
        with open(os.path.join(tmp, f"run-{i}.log"), "w") as f:
            f.write(f"MLUPS: {577 + i % 3}\n")
    code, out, err = probe("regress", tmp, "--metric=MLUPS", "--min-points=4", "--json=-")
    a = json.loads(out) if code == 0 else {}
    code2, out2, _ = probe("regress", "--metric", "MLUPS", "--min-points", "4", "--json", "-", "--", tmp)
    check(code == 0 and code2 == 0 and out == out2, f"--name=value: exit {code}/{code2} {err}")
    check(a.get("options", {}).get("min_points") == 4, f"--min-points=4 reached the analysis: {a.get('options')}")

    # a report asked for on stdout goes there alone; two of them cannot share it
    code, out, err = probe("regress", tmp, "--metric", "MLUPS", "--svg", "-")
    check(code == 0 and out.startswith("<svg") and out.rstrip().endswith("</svg>"), f"--svg -: exit {code}, {out[:60]!r}")
    code, out, err = probe("regress", tmp, "--metric", "MLUPS", "--html", "-")
    check(code == 0 and out.lstrip().lower().startswith("<!doctype html"), f"--html -: exit {code}, {out[:60]!r}")
    code, out, err = probe("regress", tmp, "--metric", "MLUPS", "--json", "-", "--svg", "-")
    check(code == 2 and out == "" and err.count("\n") == 1 and "stdout" in err, f"two reports on stdout: exit {code}, {err!r}")
    code, out, err = probe("compare", tmp, tmp, "--json", "-", "--html", "-")
    check(code == 2 and err.count("\n") == 1 and "stdout" in err, f"compare: two reports on stdout: exit {code}, {err!r}")
    # every input skipped by --label-re: the note says why, then the error
    code, out, err = probe("regress", tmp, "--metric", "MLUPS", "--label-re", "nomatch")
    check(code == 2 and "--label-re" in err and "no run" in err, f"--label-re skipping all: exit {code}, {err!r}")
    # show --health needs a dump folder, for a .npy file as for a folder of them
    with open(os.path.join(tmp, "x.npy"), "wb") as f:
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
        header += " " * (63 - len(header)) + "\n"
        f.write(b"\x93NUMPY\x01\x00" + bytes([len(header), 0]) + header.encode() + b"\x00\x00\xc0\x7f" + b"\x00\x00\x80\x3f")
    code, out, err = probe("show", "--health", os.path.join(tmp, "x.npy"))
    check(code == 2 and "--health needs a dump folder" in err, f"show --health FILE.npy: exit {code}, {err!r}")
    check(probe("show", os.path.join(tmp, "x.npy"))[0] == 0, "show FILE.npy")

# bisect-run takes the ends of the ranges its help gives
code, _, err = probe("bisect-run", "--metric", "X", "--good-value", "10", "--bad-value", "5", "--alpha", "0.5", "--", "sh", "-c", "echo X: 4")
check(code == 1, f"bisect-run --alpha 0.5: exit {code}, {err!r}")
code, _, err = probe("bisect-run", "--metric", "X", "--baseline", "10", "--threshold", "0", "--higher-is-better", "--", "sh", "-c", "echo X: 12")
check(code == 0, f"bisect-run --threshold 0: exit {code}, {err!r}")
code, _, err = probe("bisect-run", "--metric", "X", "--good-value", "10", "--bad-value", "5", "--alpha", "0", "--", "true")
check(code == 128, f"bisect-run --alpha 0 is refused: exit {code}, {err!r}")
# --max-runs caps the runs "in all": below the --repeat runs made first it cannot hold, and is
# refused before CMD runs (CMD here would leave a file per run).
with tempfile.TemporaryDirectory() as tmp:
    runs = os.path.join(tmp, "runs")
    count = f"echo x >> {runs}; echo X: 576"
    for extra in (["--repeat", "5", "--max-runs", "2"], ["--max-runs", "2"]):
        code, out, err = probe("bisect-run", "--metric", "X", "--good-value", "577", "--bad-value", "520", *extra,
                               "--", "sh", "-c", count)
        check(code == 128 and err.count("\n") == 1 and "--max-runs 2 is below --repeat" in err and not os.path.exists(runs),
              f"bisect-run {' '.join(extra)}: exit {code}, {err!r}")
    code, _, err = probe("bisect-run", "--metric", "X", "--good-value", "577", "--bad-value", "520", "--repeat", "2",
                         "--max-runs", "2", "--", "sh", "-c", count)
    check(code == 0 and open(runs).read().count("x") == 2, f"bisect-run --repeat 2 --max-runs 2: exit {code}, {err!r}")
    # crash mode decides on the exit status alone: the metric-mode options are refused, not ignored
    for extra in (["--metric", "X"], ["--good-value", "1", "--bad-value", "2"], ["--max-runs", "4"], ["--ignore-exit-status"]):
        code, _, err = probe("bisect-run", "--crash", *extra, "--", "sh", "-c", count)
        check(code == 128 and err.count("\n") == 1 and "no meaning with --crash" in err and
              all(w in err for w in extra if w.startswith("--")), f"bisect-run --crash {' '.join(extra)}: exit {code}, {err!r}")
    check(open(runs).read().count("x") == 2, "no refused bisect-run ran CMD")
    code, _, err = probe("bisect-run", "--crash", "--repeat", "2", "--timeout", "30", "--", "true")
    check(code == 0, f"bisect-run --crash with both-mode options: exit {code}, {err!r}")

# contradictory directions are a usage error, not the last one winning
with tempfile.TemporaryDirectory() as tmp:
    for i in range(6):
        with open(os.path.join(tmp, "run-%d.txt" % i), "w") as f:
            f.write("MLUPS: 100\n")
    for order in (("--higher-is-better", "--lower-is-better"), ("--lower-is-better", "--higher-is-better")):
        code, out, err = probe("regress", tmp, "--metric", "MLUPS", *order)
        check(code == 2 and out == "" and err.count("\n") == 1 and "--higher-is-better" in err and
              "--lower-is-better" in err, f"regress {' '.join(order)}: exit {code}, {err!r}")
        code, out, err = probe("bisect-run", "--metric", "X", "--baseline", "10", "--threshold", "0.05", *order,
                               "--", "sh", "-c", "echo X: 12")
        check(code == 128 and err.count("\n") == 1 and "--higher-is-better" in err and "--lower-is-better" in err,
              f"bisect-run {' '.join(order)}: exit {code}, {err!r}")

# --version: the version, then the build
code, out, _ = probe("--version")
lines = out.splitlines()
check(code == 0 and re.fullmatch(r"probe \d+\.\d+\.\d+", lines[0]), f"--version first line: {lines[:1]}")
fields = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
check(re.match(r"(GNU|Clang|AppleClang|MSVC|Intel\w*) \d+", fields.get("compiler", "")), f"compiler: {fields}")
check(fields.get("build type") == (BUILD_TYPE or "(none)"), f"build type {fields.get('build type')} != {BUILD_TYPE}")
check(re.match(r"C\+\+(17|20|23) \(__cplusplus \d+\)", fields.get("C++ standard", "")), f"C++ standard: {fields}")
check(fields.get("CUDA support", "").startswith("yes" if WITH_CUDA else "no"), f"CUDA support: {fields}")
check(probe("version")[1] == out, "probe version is probe --version")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("cli_options: all checks passed")
