"""probe regress end to end: result files as a nightly job writes them, the exit codes, the
JSON report, and the SVG / HTML pictures parsed as XML / HTML.

usage: regress_cli.py PATH/TO/probe
"""
import html.parser
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PROBE = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def regress(*args):
    p = subprocess.run([PROBE, "regress", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def nightly(folder, levels, fail=(), seed=1, noise=0.005, samples=1):
    """levels: list of (days, value). Writes nightly-2024-<day>.log like a benchmark does."""
    rnd = random.Random(seed)
    day = 0
    for days, value in levels:
        for _ in range(days):
            day += 1
            with open(os.path.join(folder, f"nightly-2024-{day}.log"), "w") as f:
                if day in fail:
                    f.write("running lbm on cuda:0\nTraceback (most recent call last):\n"
                            '  File "bench.py", line 12, in <module>\n    main()\n'
                            f"RuntimeError: CUDA error: an illegal memory access (day {day})\n")
                    continue
                f.write(f"\x1b[1mlbm\x1b[0m grid 256^3\n")
                for _ in range(samples):
                    v = value * (1 + noise * rnd.gauss(0, 1))
                    f.write(f"step done, \x1b[32mMLUPS: {v:.2f}\x1b[0m\n")


class html_checker(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "rect", "line", "circle", "path"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.event_rows, self.event_marks = [], [], 0, 0

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class", "") or ""
        if tag == "tr" and "event-row" in cls.split():
            self.event_rows += 1
        if tag == "g" and "event" in cls.split():
            self.event_marks += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        cls = dict(attrs).get("class", "") or ""
        if tag == "g" and "event" in cls.split():
            self.event_marks += 1

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()


with tempfile.TemporaryDirectory() as tmp:
    runs = os.path.join(tmp, "runs")
    os.mkdir(runs)
    # two regressions, a transient dip that recovers, failed days (one right at a change)
    nightly(runs, [(40, 577.3), (30, 520.0), (4, 450.0), (30, 520.0), (30, 500.0)],
            fail={7, 41, 90}, samples=2)
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    code, text, err = regress(runs, "--metric", "MLUPS", "--json", f"{out}/r.json", "--svg",
                              f"{out}/r.svg", "--html", f"{out}/r.html")
    check(code == 1, f"regressions found: exit 1, got {code}: {err}")
    report = json.load(open(f"{out}/r.json"))
    kinds = [e["kind"] for e in report["events"]]
    check(kinds == ["regression", "transient", "regression"], f"events {kinds}")
    ev = report["events"]
    if len(ev) == 3:
        # day 41 failed: the first regression goes from the last good run (40) to the first changed (42)
        check((ev[0]["from_run"], ev[0]["to_run"]) == ("nightly-2024-40.log", "nightly-2024-42.log"),
              f"first range {ev[0]['from_run']} -> {ev[0]['to_run']}")
        check(ev[0]["failed_between"] == 1, "one failed run inside the first range")
        check(abs(ev[0]["percent_change"] + 9.9) < 1.0, f"percent {ev[0]['percent_change']}")
        check(ev[0]["p_value"] < 1e-6, "p-value of a clear step")
        check(ev[0]["before"]["points"] == 39 and ev[0]["after"]["points"] == 29, "points on each side")
        check((ev[1]["to_run"], ev[1]["last_changed_run"], ev[1]["back_run"]) ==
              ("nightly-2024-71.log", "nightly-2024-74.log", "nightly-2024-75.log"), f"transient span {ev[1]}")
        check(ev[2]["to_run"] == "nightly-2024-105.log", f"second regression at {ev[2]['to_run']}")
    failed = report["failed_runs"]
    check([f["label"] for f in failed] == ["nightly-2024-7.log", "nightly-2024-41.log", "nightly-2024-90.log"],
          f"failed runs {failed}")
    check(all(f["error"].startswith("RuntimeError: CUDA error") for f in failed), "traceback's last line")
    check(all(r["value"] is None for r in report["runs"] if r["failed"]), "failed runs are not filled")
    check(len(report["runs"][0]["values"]) == 2, "two matching lines: two samples")
    check(report["levels"][0]["points"] == 39, "levels")
    for word in ("levels", "events", "failed runs (3)", "transient dip", "nightly-2024-90.log"):
        check(word in text, f"text report mentions {word!r}")
    check(text.index("levels") < text.index("events") < text.index("failed runs"), "report order")

    svg = ET.parse(f"{out}/r.svg").getroot()
    marks = [e for e in svg.iter() if "event" in (e.get("class") or "").split()]
    check(len(marks) == len(report["events"]), f"one SVG mark per event: {len(marks)}")
    crosses = [e for e in svg.iter() if e.tag.endswith("g") and e.get("class") == "failed"]
    check(len(crosses) == 3, "one SVG mark per failed run")
    for name in ("r.html", "r.svg"):  # opens offline: nothing fetched from the network
        body = open(f"{out}/{name}").read().replace("http://www.w3.org/2000/svg", "")
        check("http://" not in body and "https://" not in body and "<script src" not in body, f"{name}: no network")
    page = html_checker()
    page.feed(open(f"{out}/r.html").read())
    page.close()
    check(not page.errors and page.stack == [], f"HTML well nested: {page.errors} {page.stack}")
    check(page.event_rows == len(report["events"]) and page.event_marks == len(report["events"]),
          f"HTML event rows {page.event_rows}, marks {page.event_marks}")

    # deterministic: the same input gives the same report, byte for byte
    code2, _, _ = regress(runs, "--metric", "MLUPS", "--json", f"{out}/r2.json")
    check(open(f"{out}/r.json").read() == open(f"{out}/r2.json").read(), "same input, same JSON")

    # --json - prints the JSON instead of the text
    code, text, _ = regress(runs, "--metric", "mlups", "--json", "-")
    check(json.loads(text)["exit_code"] == 1, "--json - on stdout")

    # flat noisy series: no false positive, exit 0
    flat = os.path.join(tmp, "flat")
    os.mkdir(flat)
    nightly(flat, [(120, 577.3)], noise=0.03, seed=5, fail={50})
    code, text, err = regress(flat, "--metric", "MLUPS")
    check(code == 0 and "events: none" in text, f"flat series: exit {code}\n{text}")

    # two first nights on a faster machine, 5 nights, 8 nights 9% slower: an edge level, set
    # aside, and the regression after it
    edge = os.path.join(tmp, "edge")
    os.mkdir(edge)
    nightly(edge, [(2, 690.0), (5, 577.3), (8, 525.3)], noise=0.007, seed=3)
    code, text, err = regress(edge, "--metric", "MLUPS")
    check(code == 1 and "events: none" not in text and "-> nightly-2024-8.log" in text
          and "the first 2 runs (nightly-2024-1.log .. nightly-2024-2.log) are +" in text,
          f"edge level at the start: exit {code}\n{text}")

    # rates at 7.4, 3.0 and 1.2 MLUPS varying by 1% each: on a log scale (the default for
    # values above zero) two regressions and nothing else; --scale linear is the values
    scaled = os.path.join(tmp, "scaled")
    os.mkdir(scaled)
    nightly(scaled, [(6, 7.4), (6, 3.0), (6, 1.2)], noise=0.01, seed=11)
    code, text, err = regress(scaled, "--metric", "MLUPS", "--json", "-")
    r = json.loads(text) if code in (0, 1) else {}
    check(code == 1 and r["scale"] == "log" and r["options"]["scale"] == "auto"
          and [e["to_run"] for e in r["events"]] == ["nightly-2024-7.log", "nightly-2024-13.log"]
          and 0.003 < r["relative_noise"] < 0.03, f"log scale: {code} {err} {text[:400]}")
    code, text, err = regress(scaled, "--metric", "MLUPS", "--scale", "linear", "--json", "-")
    check(code == 1 and json.loads(text)["scale"] == "linear", f"--scale linear: {code} {err}")
    code, _, err = regress(scaled, "--metric", "MLUPS", "--scale", "cubic")
    check(code == 2 and "--scale" in err, f"--scale takes auto, log or linear: {code} {err}")
    # a file named on its own and in its folder, and by a second path, is one run
    again = os.path.join(scaled, "nightly-2024-3.log")
    code, text, err = regress(scaled, again, os.path.join(scaled, ".", "nightly-2024-3.log"),
                              "--metric", "MLUPS", "--json", "-")
    check(code == 1 and len(json.loads(text)["runs"]) == 18
          and "2 input file(s) named more than once, read once" in err, f"a file given twice: {code} {err}")

    # a lower-is-better metric: the same drop is an improvement
    code, text, _ = regress(runs, "--metric", "MLUPS", "--lower-is-better", "--json", "-")
    check(code == 0 and json.loads(text)["summary"]["improvements"] == 2, "direction flag")

    # --pattern, --label-re, given order
    code, text, _ = regress(runs, "--pattern", r"MLUPS: ([0-9.]+)", "--label-re", r"-(\d+)\.log$", "--json", "-")
    labels = [r["label"] for r in json.loads(text)["runs"]]
    check(labels[:3] == ["1", "2", "3"] and labels[-1] == "134", f"labels from --label-re {labels[:3]}")
    code, text, _ = regress(*(os.path.join(runs, f"nightly-2024-{d}.log") for d in (3, 1, 2)),
                            "--metric", "MLUPS", "--order", "given", "--json", "-")
    check([r["label"][-5:] for r in json.loads(text)["runs"]] == ["3.log", "1.log", "2.log"], "--order given")

    # CSV and JSON-lines series
    with open(f"{tmp}/s.csv", "w") as f:
        f.write("date,MLUPS\n")
        for d in range(1, 31):
            f.write(f"2024-01-{d:02d},{577 if d <= 15 else 500}.{d % 7}\n")
        f.write("2024-01-31,build failed\n")
    code, text, _ = regress(f"{tmp}/s.csv", "--metric", "MLUPS", "--json", "-")
    r = json.loads(text)
    check(code == 1 and r["events"][0]["to_run"] == "2024-01-16" and r["summary"]["failed_runs"] == 1, "CSV")
    with open(f"{tmp}/s.jsonl", "w") as f:
        for d in range(1, 21):
            f.write(json.dumps({"label": f"b{d}", "value": 10.0 + (d > 10) + 0.01 * (d % 3)}) + "\n")
    code, text, _ = regress(f"{tmp}/s.jsonl", "--lower-is-better")
    check(code == 1 and "b10 -> b11" in text, f"JSON lines: {code} {text}")
    # the same two files with a UTF-8 byte-order mark, as spreadsheets write them
    for name in ("s.csv", "s.jsonl"):
        with open(f"{tmp}/{name}", encoding="utf-8") as f:
            body = f.read()
        with open(f"{tmp}/bom_{name}", "w", encoding="utf-8-sig") as f:
            f.write(body)
    code, text, err = regress(f"{tmp}/bom_s.csv", "--metric", "MLUPS", "--json", "-")
    r = json.loads(text)
    check(code == 1 and r["summary"]["failed_runs"] == 1 and len(r["runs"]) == 31, f"CSV with a BOM: {code} {err}")
    code, text, err = regress(f"{tmp}/bom_s.jsonl", "--lower-is-better", "--json", "-")
    check(code == 1 and len(json.loads(text)["runs"]) == 20 and "skipped" not in err, f"JSON lines with a BOM: {code} {err}")
    # labels holding control characters are shown escaped: they cannot break the report's
    # lines or drive the terminal
    with open(f"{tmp}/hostile.jsonl", "w") as f:
        for d in range(1, 21):
            f.write(json.dumps({"label": f"b{d}\x1b[2J\n\u009b", "value": 10.0 + (d > 10) + 0.01 * (d % 3)}) + "\n")
    code, text, _ = regress(f"{tmp}/hostile.jsonl", "--lower-is-better")
    controls = sorted({c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0})
    check(code == 1 and not controls, f"hostile labels: exit {code}, control characters {controls}")
    check("b10\\x1b[2J\\n\\xc2\\x9b -> b11" in text, f"hostile labels shown escaped: {text!r}")

    # a -3.5% dip lasting 36 nights: a regression and its recovery, linked; one transient with
    # --max-transient-runs 40; a wild run (a crash that still printed a number) is an outlier
    long_dip = os.path.join(tmp, "long_dip")
    os.mkdir(long_dip)
    nightly(long_dip, [(40, 500.0), (36, 482.5), (40, 500.0)], noise=0.002, seed=7)
    with open(os.path.join(long_dip, "nightly-2024-20.log"), "w") as f:
        f.write("MLUPS: 300.0\n")
    code, text, err = regress(long_dip, "--metric", "MLUPS", "--json", "-")
    r = json.loads(text)
    kinds = [e["kind"] for e in r["events"]]
    check(code == 1 and kinds == ["regression", "improvement"], f"long dip: exit {code}, events {kinds} {err}")
    if len(r["events"]) == 2:
        check(r["events"][0]["returned_by"] == 2 and r["events"][1]["returns"] == 1, "long dip: linked events")
        check(r["events"][0]["runs_away"] == 36, f"long dip: {r['events'][0]['runs_away']} runs away")
        titles = [e["title"] for e in r["events"]]
        check(titles == ["regression", "recovery"], f"long dip: titles {titles} (the text's names)")
    check([o["label"] for o in r["outliers"]] == ["nightly-2024-20.log"] and r["summary"]["outliers"] == 1,
          f"outliers {r['outliers']}")
    check(r["levels"][0]["outliers"] == 1 and r["levels"][0]["std"] < 2.0, f"level without its outlier {r['levels'][0]}")
    code, text, _ = regress(long_dip, "--metric", "MLUPS", "--max-transient-runs", "40", "--json", "-")
    r = json.loads(text)
    check(code == 0 and [e["kind"] for e in r["events"]] == ["transient"], f"--max-transient-runs 40: {code}")
    code, text, _ = regress(long_dip, "--metric", "MLUPS")
    lines = [l for l in text.split("\n") if l.startswith("  1. ")]
    check(len(lines) == 1 and "(event 2)" in lines[0] and " sd): " in lines[0], f"one line per event: {lines}")
    code, _, err = regress(long_dip, "--metric", "MLUPS", "--max-transient-runs", "x")
    check(code == 2 and "--max-transient-runs" in err, "--max-transient-runs needs a number")

    # bad input: exit 2 with one clear message
    code, _, err = regress(runs, "--pattern", "MLUPS: ([0-9")
    check(code == 2 and "not a valid regular expression" in err, f"bad regex: {code} {err}")
    code, _, err = regress(runs, "--pattern", "MLUPS: [0-9]+")
    check(code == 2 and "capture group" in err, "pattern without a group")
    code, _, err = regress(runs)
    check(code == 2 and "--metric" in err, "no metric")
    code, _, err = regress(f"{tmp}/missing")
    check(code == 2 and "No such file" in err, "missing input")
    code, _, err = regress(runs, "--metric", "nope")
    check(code == 2 and "no run has a value" in err, f"metric found nowhere: {err}")
    code, _, err = regress(runs, "--metric", "MLUPS", "--max-pvalue", "2")
    check(code == 2 and "--max-pvalue" in err, "option out of range")
    code, _, err = regress(runs, "--metric", "MLUPS", "--bogus")
    check(code == 2 and "unknown option" in err, "unknown option")
    code, _, err = regress(runs, "--metric", "time_ms", "--pattern", r"MLUPS: (\S+)")
    check(code == 2 and "--metric and --pattern contradict each other" in err, f"--metric with --pattern: {err}")
    p = subprocess.run([PROBE, "bisect-run", "--metric", "x", "--pattern", "x: (.*)", "--good-value", "1",
                        "--bad-value", "2", "--", "true"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 128 and "contradict" in p.stderr, f"bisect-run --metric with --pattern: {p.stderr}")
    # (under a memory limit: were devices read, /dev/zero would take the machine's memory).
    # AddressSanitizer reserves terabytes of address space, so a sanitized build runs without
    # the limit, and skips the out-of-memory check that needs it.
    with open(PROBE, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    limit = None if sanitized else (lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)))
    p = subprocess.run([PROBE, "regress", "/dev/zero", "--metric", "MLUPS"], preexec_fn=limit,
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 2 and "/dev/zero: a device" in p.stderr, f"a device as input: {p.returncode} {p.stderr}")
    # an endless pipe under a memory limit: out of memory is a message and exit 2, not an abort
    if sanitized:
        print("out of memory under RLIMIT_AS: skipped (AddressSanitizer build)")
    else:
        feed = subprocess.Popen(["yes", "MLUPS: 1"], stdout=subprocess.PIPE)
        p = subprocess.run([PROBE, "regress", "--metric", "MLUPS", f"/dev/fd/{feed.stdout.fileno()}"],
                           pass_fds=(feed.stdout.fileno(),), preexec_fn=limit, capture_output=True, text=True,
                           timeout=120)
        feed.kill()
        feed.wait()
        check(p.returncode == 2 and "probe regress: out of memory; exit 2" in p.stderr,
              f"out of memory: {p.returncode} {p.stderr[-300:]}")
    # very short: says it cannot conclude, exit 0
    short = os.path.join(tmp, "short")
    os.mkdir(short)
    nightly(short, [(2, 577.0), (2, 400.0)])
    code, text, _ = regress(short, "--metric", "MLUPS")
    check(code == 0 and "too few runs" in text, f"short series: {code} {text}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("regress_cli: all checks passed")
