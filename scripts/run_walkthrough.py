#!/usr/bin/env python3
"""Runs a walkthrough page (docs/walkthroughs/*.md) as written, so the page cannot rot.

Every fenced block whose info string starts with `sh` is run, in order, in one bash session
(variables and the working directory carry from block to block), in a fresh work folder.
`sh exit=N` says the block's last command must exit N (default 0). A fenced block with info
`expect` right after a command block lists what its output must contain: each line is a
regular expression searched in the block's output (stdout and stderr together).

usage: run_walkthrough.py PAGE.md --path DIR [--path DIR ...] [--env NAME=VALUE ...] [--work DIR]
The --path folders go in front of PATH (the probe CLI, the examples).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

fence = re.compile(r"^```([^`]*)$")


def blocks(text):
    out, cur, info = [], None, None
    for line in text.split("\n"):
        m = fence.match(line.strip())
        if m and cur is None:
            cur, info = [], m.group(1).strip()
        elif line.strip() == "```" and cur is not None:
            out.append((info, "\n".join(cur)))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--path", action="append", default=[])
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--work")
    a = ap.parse_args()
    steps = []  # (command text, expected exit, [patterns])
    for info, body in blocks(open(a.page, encoding="utf-8").read()):
        if info.split(" ")[0] == "sh":
            m = re.search(r"exit=(\d+)", info)
            steps.append([body, int(m.group(1)) if m else 0, []])
        elif info == "expect" and steps:
            steps[-1][2] += [l for l in body.split("\n") if l.strip()]
    if not steps:
        sys.exit(f"{a.page}: no sh blocks")
    work = a.work or tempfile.mkdtemp(prefix="walkthrough_")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    script = ["set -o pipefail", f"cd {work!r}"]
    for i, (cmd, _, _) in enumerate(steps):
        script += [f"echo '@@begin {i}'", cmd, f"echo \"@@end {i} $?\""]
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.abspath(p) for p in a.path] + [env.get("PATH", "")])
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    env.pop("PROBE_FLAGS", None)
    r = subprocess.run(["bash", "-c", "\n".join(script) + "\n"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=env, text=True, errors="replace")
    output = r.stdout
    failures = 0
    for i, (cmd, want_rc, patterns) in enumerate(steps):
        m = re.search(r"@@begin %d\n(.*?)@@end %d (\d+)\n" % (i, i), output, re.S)
        first = cmd.strip().split("\n")[0]
        if not m:
            print(f"FAIL block {i + 1} ({first}): did not finish\n{output[-3000:]}")
            return 1
        text, rc = m.group(1), int(m.group(2))
        problems = []
        if rc != want_rc:
            problems.append(f"exit {rc}, expected {want_rc}")
        for p in patterns:
            if not re.search(p, text, re.M):
                problems.append(f"output lacks /{p}/")
        if problems:
            failures += 1
            print(f"FAIL block {i + 1} ({first}): " + "; ".join(problems))
            print("  " + "\n  ".join(text.rstrip().split("\n")[-30:]))
        else:
            print(f"ok   block {i + 1} ({first})")
    print(f"{a.page}: {len(steps) - failures} of {len(steps)} blocks as the page says (work folder {work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
