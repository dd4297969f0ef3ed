#!/usr/bin/env python3
"""What probe compare's reports, and the whole comparison, cost per root cause, in instructions.

    check_report_cost.py VALGRIND TEST_COMPARE

Runs test_compare's case "report cost" (n independent ops, each its own root cause; skipped
in the suite's runs) under valgrind's
callgrind, counting only inside compare_text or compare_json, or inside compare_paths for the
whole comparison of two manifest-only dumps (reading the manifests, pairing, the answers):
the same count on a quiet machine and a loaded one, where wall time is not. Each figure is a slope between 1,000 and
4,000 roots, so fixed costs cancel, and must stay under its bound: about a third above the
counts recorded in benchmarks/README.md ("compare: many root causes"), far below the counts
before the reports were made lean (text about 25,000 per root, JSON about 67,000), and a
report that grew quadratically would pass them as the roots grow.
"""
import os
import re
import subprocess
import sys

BOUNDS = {"text": 12500, "json": 24000, "whole": 145000}
FUNCTIONS = {"text": "*::compare_text?abi*", "json": "*::compare_json?abi*", "whole": "*::compare_paths*"}


def instructions(valgrind, prog, mode, n):
    cmd = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", "--collect-atstart=no",
           "--toggle-collect=" + FUNCTIONS[mode], prog, "--no-skip", "-tc=report cost*"]
    env = dict(os.environ, PROBE_REPORT_COST="%s %d" % (mode, n))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=500, env=env)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    if not re.search(r"test cases: *1 *\| *1 passed", r.stdout):  # doctest's summary: it ran, and passed
        sys.exit("FAIL: the report cost case did not run\n" + r.stdout[-3000:])
    m = re.search(r"Collected : (\d+)", r.stderr)
    if not m or int(m.group(1)) == 0:
        sys.exit("FAIL: no instruction count from callgrind\n" + r.stderr[-3000:])
    return int(m.group(1))


def main():
    valgrind, prog = sys.argv[1:3]
    failed = False
    for mode, bound in BOUNDS.items():
        a = instructions(valgrind, prog, mode, 1000)
        b = instructions(valgrind, prog, mode, 4000)
        per_root = (b - a) / 3000
        what = "whole comparison" if mode == "whole" else mode + " report"
        print("%s: %.0f instructions per root cause (bound %d)" % (what, per_root, bound))
        failed = failed or per_root > bound
    if failed:
        sys.exit("FAIL: a report or the whole comparison costs more per root cause than its bound")
    print("ok")


if __name__ == "__main__":
    main()
