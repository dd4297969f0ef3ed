#!/usr/bin/env python3
"""Runs timing_exit_program in one mode with a trace and the summary on, then checks both.

usage: check_exit.py PROGRAM MODE
"""
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))


def main():
    program, mode = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "trace.json")
        flags = "--probe_timing_summary --probe_trace_to=" + trace
        # The portable clock, as on machines without a trusted TSC; timer_first: chosen by
        # the flag although a probe::timer read the clock before any mark.
        if mode in ("monotonic", "timer_first"):
            flags += " --probe_timing_clock=monotonic"
        env = dict(os.environ, PROBE_FLAGS=flags)
        run_mode = "return" if mode == "monotonic" else mode
        r = subprocess.run([program, run_mode], env=env, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            sys.exit("program exited with %d" % r.returncode)
        if mode == "cuda":
            # Runs on machines with and without a GPU: the CPU side always, the device side
            # (CUDA events on the op's stream) when there is one.
            if not r.stdout.startswith("device: ") or "steps: 3\n" not in r.stdout:
                sys.exit("unexpected output %r" % r.stdout)
            has_device = r.stdout.startswith("device: yes")
            c = subprocess.run([sys.executable, os.path.join(here, "check_trace.py"), trace, "--count",
                                "cuda_step=3", "--inside", "scale:cuda_step", "--counter", "steps=3",
                                "--inside", "host_op:host_scope"]
                               + (["--count", "scale=6", "--count", "host_op=2"] if has_device
                                  else ["--count", "scale=3", "--count", "host_op=1"]),
                               capture_output=True, text=True)
            print(c.stdout, end="")
            if c.returncode != 0:
                sys.exit("trace check failed")
            if not has_device and ("device op timing is off" not in r.stderr or "dropped" in r.stderr):
                sys.exit("expected one note that device timing is off: %r" % r.stderr)
            print("ok: cuda (device: %s)" % ("yes" if has_device else "no"))
            return
        if mode == "disabled":
            # Compiled with PROBE_DISABLE: nothing recorded or written; the metric line, the
            # program's result, still prints exactly as in a build with probe.
            if os.path.exists(trace) or r.stderr or r.stdout != "MLUPS: 577.3\n":
                sys.exit("PROBE_DISABLE: %r %r %r" % (os.listdir(d), r.stdout, r.stderr))
            print("ok: nothing recorded, the metric line printed")
            return
        if r.stdout != "MLUPS: 577.3\n":
            sys.exit("stdout is %r, expected the metric line alone" % r.stdout)
        leftovers = [f for f in os.listdir(d) if f != "trace.json"]
        if leftovers:
            sys.exit("temporary files left: %r" % leftovers)
        steps = 3 + (1000 if mode == "threads" else 0)
        args = [sys.executable, os.path.join(here, "check_trace.py"), trace,
                "--count", "setup=1", "--count", "step=%d" % steps, "--count", "leaf=%d" % (12 + (1000 if mode == "threads" else 0)),
                "--count", "matmul=1", "--count", "never_closed=0",
                "--inside", "leaf:step", "--counter", "MLUPS=577.3"]
        if mode == "threads":
            args += ["--threads", "6", "--count", "straggler=1"]
        else:
            args += ["--inside", "step:setup"]
        if mode == "fork":
            args += ["--count", "child_only=0"]
        c = subprocess.run(args, capture_output=True, text=True)
        print(c.stdout, end="")
        if c.returncode != 0:
            sys.exit("trace check failed")
        with open(trace, encoding="utf-8") as f:
            text = f.read()
        if mode == "threads" and '"named_worker"' not in text:
            sys.exit("the named worker thread's name is missing from the trace")
        # The summary goes to stderr at exit and lists every scope, the op and the metric.
        summary = r.stderr
        if mode == "fork":  # the child printed its own summary first, naming itself
            child = re.findall(r"probe timing summary \(forked child, pid (\d+)\)", summary)
            if len(child) != 1 or int(child[0]) <= 0:
                sys.exit("the forked child's summary does not name its pid once: %r" % summary)
            summary = summary[summary.rindex("probe timing summary"):]
            if "forked child" in summary:
                sys.exit("the parent's summary was printed before its child's: %r" % summary)
        if "probe timing summary" not in summary:
            sys.exit("no summary on stderr: %r" % summary)
        if mode in ("monotonic", "timer_first") and "clock monotonic" not in summary:
            sys.exit("the monotonic clock was not used: %r" % summary)
        rows = {line.split()[0]: line.split() for line in summary.splitlines()[2:] if line.strip()}
        for name in ["setup", "step", "leaf", "matmul", "MLUPS"]:
            if name not in rows:
                sys.exit("summary lacks %r:\n%s" % (name, summary))
        if rows["step"][2] != str(steps) or rows["matmul"][1] != "op":
            sys.exit("summary rows wrong:\n%s" % summary)
        print("ok: %s" % mode)


if __name__ == "__main__":
    main()
