#!/usr/bin/env python3
"""Checks a Chrome trace written by probe against the trace event format's rules.

usage: check_trace.py TRACE [--count NAME=N ...] [--at-least NAME=N ...]
                            [--inside CHILD:PARENT ...] [--threads N] [--counter NAME=VALUE ...]
                            [--max-x N] [--truncated]

Rules checked: the file is one JSON object with a "traceEvents" list; every event has a known
"ph", integer "pid" and "tid"; complete events ("X") have a name, "ts" and "dur" in
microseconds with dur >= 0; on each thread they nest properly (an event that starts inside
another ends inside it too); every thread with events has a "thread_name" metadata event;
counters ("C") carry numeric values. Exit code 0 when everything holds, 1 otherwise.
"""
import argparse
import collections
import json
import sys


def ns(us):
    # probe writes microseconds with three decimals: whole nanoseconds.
    return round(us * 1000)


def fail(msg):
    print("check_trace: FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--count", action="append", default=[])
    ap.add_argument("--at-least", action="append", default=[])
    ap.add_argument("--inside", action="append", default=[])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--counter", action="append", default=[])
    ap.add_argument("--max-x", type=int, default=-1)
    ap.add_argument("--truncated", action="store_true")
    a = ap.parse_args()

    with open(a.trace, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("not an object with a traceEvents list")

    per_thread = collections.defaultdict(list)
    names = collections.Counter()
    thread_names = {}
    counters = collections.defaultdict(list)
    truncated = False
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if ph not in ("X", "C", "M", "i"):
            fail("unknown ph in %r" % e)
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail("pid/tid not integers in %r" % e)
        if ph == "X":
            if not isinstance(e.get("name"), str):
                fail("X event without a name: %r" % e)
            ts, dur = e.get("ts"), e.get("dur")
            if not isinstance(ts, (int, float)) or not isinstance(dur, (int, float)) or dur < 0:
                fail("bad ts/dur in %r" % e)
            per_thread[(e["pid"], e["tid"])].append((ns(ts), ns(ts) + ns(dur), e["name"]))
            names[e["name"]] += 1
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(isinstance(v, (int, float)) for v in args.values()):
                fail("counter without numeric args: %r" % e)
            counters[e.get("name")].append(args)
        elif ph == "M":
            if e.get("name") not in ("thread_name", "process_name") or not isinstance(e.get("args", {}).get("name"), str):
                fail("bad metadata event %r" % e)
            if e["name"] == "thread_name":
                thread_names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif ph == "i":
            truncated = truncated or "truncated" in e.get("name", "")

    # Proper nesting per thread: sorted by start (longest first on ties), each event either
    # starts after the enclosing one ended, or ends inside it.
    for key, evs in per_thread.items():
        if key not in thread_names:
            fail("thread %r has events but no thread_name metadata" % (key,))
        evs.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for b, e, name in evs:
            while stack and stack[-1][1] <= b:
                stack.pop()
            if stack and e > stack[-1][1]:
                fail("%r [%d, %d] overlaps %r [%d, %d] on thread %r without nesting"
                     % (name, b, e, stack[-1][2], stack[-1][0], stack[-1][1], key))
            stack.append((b, e, name))

    for spec in a.count:
        name, n = spec.rsplit("=", 1)
        if names[name] != int(n):
            fail("%d X events named %r, expected %s" % (names[name], name, n))
    for spec in a.at_least:
        name, n = spec.rsplit("=", 1)
        if names[name] < int(n):
            fail("%d X events named %r, expected at least %s" % (names[name], name, n))
    for spec in a.inside:
        child, parent = spec.split(":", 1)
        for key, evs in per_thread.items():
            parents = [(b, e) for b, e, n in evs if n == parent]
            for b, e, n in evs:
                if n == child and not any(pb <= b and e <= pe for pb, pe in parents):
                    fail("%r at %d on thread %r is not inside any %r" % (child, b, key, parent))
    threads_with_events = len(per_thread)
    if a.threads and threads_with_events < a.threads:
        fail("events on %d threads, expected at least %d" % (threads_with_events, a.threads))
    for spec in a.counter:
        name, v = spec.rsplit("=", 1)
        if not any(abs(args.get("value", float("nan")) - float(v)) == 0 for args in counters.get(name, [])):
            fail("no counter %r with value %s (have %r)" % (name, v, counters.get(name)))
    total_x = sum(names.values())
    if a.max_x >= 0 and total_x > a.max_x:
        fail("%d X events, expected at most %d" % (total_x, a.max_x))
    if a.truncated and not truncated:
        fail("no truncation note in the trace")
    print("check_trace: ok: %d X events on %d threads, %d counters" % (total_x, threads_with_events,
                                                                       sum(len(v) for v in counters.values())))


if __name__ == "__main__":
    main()
