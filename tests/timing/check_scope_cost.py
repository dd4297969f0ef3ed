#!/usr/bin/env python3
"""What a timed PROBE_SCOPE costs beyond its two clock reads, in instructions.

    check_scope_cost.py VALGRIND SCOPE_COST WORKDIR

Runs scope_cost (scope_cost.cpp) under valgrind's callgrind, which counts the instructions a
program executes: the same count on a quiet machine and a loaded one, where wall time is not.
Each figure is a slope, (count at N2 - count at N1) / (N2 - N1), so start-up and exit cancel:

  hot path    the recording thread alone (callgrind counts only inside the loop), breakpoint
              frames linked (the default when timing is on)
  sustained   the whole process: the loop, the background aggregation and the final drain
  trace       the same with a Chrome trace written (--probe_trace_to), its JSON made at exit
  traced      the same trace, the process ended (_exit) once every event is aggregated: what
              recording a traced scope costs while the program runs (the JSON is made when
              the trace is published, from a binary spool)

and subtracts the two raw TSC reads of the baseline loop; and

  off         the scopes' loop with every flag off, against the same loop without the
              scope: 7 instructions (the gate's load and test on the way in, the guard's
              own flag stored, tested on the way out); ctest marks_inline checks that the
              guard stays inline elsewhere too

Fails when a figure passes its
bound; the bounds sit about a third above the counts recorded in benchmarks/README.md
("timing"), far below the counts before the scope's fast path was made lean.
"""
import os
import re
import subprocess
import sys

# Instructions a scope may add to its two clock reads.
BOUNDS = {"hot path": 66, "sustained": 115, "trace": 950, "traced": 135, "off": 10}


def instructions(valgrind, prog, mode, n, flags, only=None, trace=None):
    env = dict(os.environ)
    # The TSC whatever valgrind's CPUID says (it would fall back to clock_gettime).
    env["PROBE_FLAGS"] = (flags + " --probe_timing_clock=tsc").strip() if flags else ""
    if trace:
        env["PROBE_FLAGS"] += " --probe_trace_to=" + trace
    cmd = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    if only:
        cmd += ["--collect-atstart=no", "--toggle-collect=*%s*" % only]
    cmd += [prog, mode, str(n)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=400)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited %d\n%s" % (" ".join(cmd), r.returncode, r.stderr[-3000:]))
    m = re.search(r"Collected : (\d+)", r.stderr)
    if not m:
        sys.exit("FAIL: no instruction count from callgrind\n" + r.stderr[-3000:])
    return int(m.group(1))


def slope(valgrind, prog, mode, n1, n2, flags, only=None, trace=None):
    a = instructions(valgrind, prog, mode, n1, flags, only, trace)
    b = instructions(valgrind, prog, mode, n2, flags, only, trace)
    return (b - a) / (n2 - n1)


def main():
    valgrind, prog, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "trace.json")
    # Below 16 full chunks (16384 events) no background drain starts during the loop.
    reads = slope(valgrind, prog, "reads", 2000, 10000, "", only="reads_loop")
    hot = slope(valgrind, prog, "scopes", 2000, 10000, "--probe_timing", only="scope_loop")
    sustained = slope(valgrind, prog, "scopes", 20000, 100000, "--probe_timing")
    traced = slope(valgrind, prog, "scopes", 20000, 100000, "--probe_timing", trace=trace)
    recorded = slope(valgrind, prog, "recorded", 20000, 100000, "--probe_timing", trace=trace)
    if not os.path.getsize(trace):
        sys.exit("FAIL: the trace is empty")
    off = slope(valgrind, prog, "off", 2000, 10000, "", only="scope_loop")
    empty = slope(valgrind, prog, "empty", 2000, 10000, "", only="empty_loop")
    print("two raw TSC reads, loop included: %.1f instructions per iteration" % reads)
    status = 0
    for name, per_scope in (("hot path", hot), ("sustained", sustained), ("trace", traced), ("traced", recorded)):
        extra = per_scope - reads
        verdict = "ok" if extra <= BOUNDS[name] else "FAIL"
        print("%-10s %7.1f instructions per scope: %6.1f beyond the two reads (bound %d) %s"
              % (name, per_scope, extra, BOUNDS[name], verdict))
        if verdict != "ok":
            status = 1
    verdict = "ok" if off - empty <= BOUNDS["off"] else "FAIL"
    print("%-10s %7.1f instructions per scope: %6.1f beyond the empty loop (bound %d) %s"
          % ("off", off, off - empty, BOUNDS["off"], verdict))
    if verdict != "ok":
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
