"""probe compare and probe show end to end: dumps of the reference engine (naive kernels
under --probe_reference, optimized ones with and without a planted bug), the exit codes,
the JSON report checked against numpy's own computations on the dumped files, the text
answers, the HTML page parsed and rendered in headless Chromium, and bad input.

usage: compare_cli.py PATH/TO/probe PATH/TO/compare_engine_dump
"""
import html.parser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np

PROBE, DUMP = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def probe(*args):
    p = subprocess.run([PROBE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def dump(folder, *options):
    subprocess.run([DUMP, folder, *options], check=True)


def load(path):
    a = np.load(path)
    return a.astype(np.float64)


def numpy_metrics(fa, fb, atol, rtol):
    """What probe must report, computed with numpy from the two files."""
    a, b = load(fa), load(fb)
    err = np.abs(a - b)
    ok = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    fail = np.flatnonzero(~ok)
    ratio = err / (atol + rtol * np.abs(b))
    out = {
        "max_abs": float(err.max()) if err.size else 0.0,
        "mean_abs": float(err.mean()) if err.size else 0.0,
        "rmse": float(np.sqrt((err ** 2).mean())) if err.size else 0.0,
        "max_rel": float((err / np.maximum(np.abs(b), atol)).max()) if err.size else 0.0,
        "fail": int(fail.size),
        "first_fail": list(np.unravel_index(fail[0], a.shape)) if fail.size else None,
        "worst_fail": list(np.unravel_index(fail[np.argmax(ratio.ravel()[fail])], a.shape)) if fail.size else None,
    }
    na, nb = np.sqrt((a * a).sum()), np.sqrt((b * b).sum())
    out["cosine"] = float((a * b).sum() / (na * nb)) if na and nb else 1.0
    return out


def close(x, y, rel=1e-5, abs_=1e-12):
    return x is not None and abs(x - y) <= abs_ + rel * abs(y)


class page_checker(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "rect", "line", "circle", "path"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.counts = [], [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for c in (a.get("class") or "").split():
            self.counts[c] = self.counts.get(c, 0) + 1
        if tag in ("script", "link", "img", "iframe"):
            self.errors.append(f"<{tag}> in a self-contained page")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        for c in (dict(attrs).get("class") or "").split():
            self.counts[c] = self.counts.get(c, 0) + 1

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()


def check_json_against_numpy(report, label):
    for run in report["runs"]:
        for t in run["tensors"]:
            m = t["metrics"]
            if m is None:
                continue
            want = numpy_metrics(t["a"]["file"], t["b"]["file"], m["atol"], m["rtol"])
            key = f"{label} {t['key']}"
            check(m["fail"] == want["fail"], f"{key}: fail {m['fail']} vs numpy {want['fail']}")
            check(close(m["max_abs"], want["max_abs"]), f"{key}: max_abs {m['max_abs']} vs {want['max_abs']}")
            check(close(m["mean_abs"], want["mean_abs"]), f"{key}: mean_abs {m['mean_abs']} vs {want['mean_abs']}")
            check(close(m["rmse"], want["rmse"]), f"{key}: rmse {m['rmse']} vs {want['rmse']}")
            check(close(m["max_rel"], want["max_rel"]), f"{key}: max_rel {m['max_rel']} vs {want['max_rel']}")
            check(close(m["cosine"], want["cosine"], 1e-9), f"{key}: cosine {m['cosine']} vs {want['cosine']}")
            check(m["first_fail"] == want["first_fail"], f"{key}: first_fail {m['first_fail']} vs {want['first_fail']}")
            check(m["worst_fail"] == want["worst_fail"], f"{key}: worst_fail {m['worst_fail']} vs {want['worst_fail']}")
            check(m["pass"] == (want["fail"] == 0), f"{key}: pass")
            check(t["status"] == ("ok" if want["fail"] == 0 else "mismatch"), f"{key}: status {t['status']}")
            check(sum(m["histogram"]["counts"]) + m["histogram"]["zero"] == m["finite_pairs"], f"{key}: histogram total")
            q = m["quantiles"]
            check(q["p50"] <= q["p90"] <= q["p99"] <= q["max"] == m["max_abs"], f"{key}: quantiles ordered")


with tempfile.TemporaryDirectory() as tmp:
    ref, opt, clean, nan, half, odd = (os.path.join(tmp, n) for n in ("ref", "opt", "clean", "nan", "half", "odd"))
    dump(ref, "--reference", "--snapshots")
    dump(opt, "--plant", "wrong_norm")
    dump(clean)
    dump(nan, "--plant", "nan_act")
    dump(half, "--f16")
    dump(odd, "--extra", "--reshape")

    # --- the planted bug: exit 1, JSON answers, text answers, numpy agrees on every metric
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    code, text, err = probe("compare", opt, ref, "--json", f"{out}/r.json", "--html", f"{out}/r.html")
    check(code == 1, f"planted bug: exit 1, got {code}: {err}")
    report = json.load(open(f"{out}/r.json"))
    check(report["format"] == "probe-compare-1", "format tag")
    run = report["runs"][0]
    roots = [(r["kind"], r["op_key"]) for r in run["roots"]]
    check(roots == [("op", "norm#0")], f"roots {roots}")
    if run["roots"]:
        reach = [r["op_key"] for r in run["roots"][0]["reaches"]]
        check(reach == ["mix#0", "fc2#0", "softmax#0"], f"reaches {reach}")
        check(run["roots"][0]["mismatching_outputs"] == ["norm#0/out/y"], "root's mismatching output")
    check(run["first_divergence"] and run["first_divergence"]["op_key"] == "norm#0", "first divergence in JSON")
    statuses = [t["status"] for t in run["tensors"]]
    s = report["summary"]
    check(s["tensors"] == len(statuses) == 18 and s["mismatch"] == statuses.count("mismatch") == 7,
          f"summary {s} against {statuses}")
    check(s["exit"] == 1, "exit in the summary")
    seqs = [t["seq"] for t in run["tensors"]]
    check(seqs == sorted(seqs), "tensors in sequence order")
    check_json_against_numpy(report, "opt/ref")
    check("Root cause: op norm#0 (LayerNorm) at seq 3: its inputs match" in text, "root cause in words")
    check("First divergence: op norm#0 (LayerNorm) at seq 3" in text, "first divergence in words")
    check("Its error reaches 3 ops: mix#0 (seq 4), fc2#0 (seq 6), softmax#0 (seq 7)" in text, "reach in words")
    check("\x1b[" not in text, "no colour when stdout is not a tty")
    check(text.index("fc1#0/out/y") < text.index("norm#0/out/y") < text.index("softmax#0/out/y"), "table order")

    # the same answers on stdout as JSON
    code, js, _ = probe("compare", opt, ref, "--json", "-")
    check(code == 1 and json.loads(js)["runs"][0]["roots"] == run["roots"], "--json - prints the same report")

    # on a terminal (util-linux script gives it a pty): colour, unless NO_COLOR is set
    if shutil.which("script"):
        cmd = " ".join(shlex.quote(x) for x in (PROBE, "compare", opt, ref))
        for no_color in ("", "1"):
            env = dict(os.environ, TERM="xterm", NO_COLOR=no_color)
            p = subprocess.run(["script", "-qec", cmd, "/dev/null"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=60)
            tty = p.stdout.decode(errors="replace")
            check(p.returncode == 1 and "op norm#0 (LayerNorm) at seq 3: its inputs match" in tty, f"on a tty: exit 1 and the answers: {tty[-300:]}")
            check(("\x1b[" in tty) == (no_color == ""), f"colour on a tty only without NO_COLOR ({no_color!r})")
    else:
        check(False, "util-linux script is installed (scripts/test.sh installs bsdutils)")

    # --- the HTML page: well formed, self-contained, one point per op, rendered by Chromium
    page = open(f"{out}/r.html").read()
    pc = page_checker()
    pc.feed(page)
    check(not pc.errors and not pc.stack, f"HTML structure: {pc.errors[:3]} open {pc.stack[:3]}")
    check(pc.counts.get("op-point", 0) == 7, f"one plot point per op: {pc.counts.get('op-point')}")
    check(pc.counts.get("root-mark", 0) == 1, "the root is marked")
    check(pc.counts.get("histogram", 0) == 18, f"one histogram per compared tensor: {pc.counts.get('histogram')}")
    check("http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page, "no network")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    check(chromium is not None, "chromium is installed (scripts/test.sh installs it)")
    if chromium:
        shot = f"{out}/r.png"
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,2400",
                "--user-data-dir=" + os.path.join(tmp, "chromium")]
        p = subprocess.run(base + [f"--screenshot={shot}", "file://" + f"{out}/r.html"], capture_output=True, text=True,
                           timeout=120)
        check(p.returncode == 0, f"chromium screenshot exit {p.returncode}: {p.stderr[-500:]}")
        check("Page load failed" not in p.stderr and "Uncaught" not in p.stderr, f"chromium errors: {p.stderr[-500:]}")
        check(os.path.exists(shot) and os.path.getsize(shot) > 20000, "a screenshot with content")
        p = subprocess.run(base + ["--dump-dom", "file://" + f"{out}/r.html"], capture_output=True, text=True, timeout=120)
        check(p.returncode == 0 and p.stdout.count('class="op-point') == 7, "the DOM Chromium built holds the plot")
        check("Root cause" in p.stdout, "the DOM holds the answers")

    # --- no planted bug: everything within tolerance, exit 0, although the kernels differ
    code, text, err = probe("compare", clean, ref, "--json", f"{out}/clean.json")
    check(code == 0, f"clean run: exit 0, got {code}: {text}{err}")
    check("All within tolerance." in text and "no op diverges." in text, "clean run in words")
    clean_report = json.load(open(f"{out}/clean.json"))
    check(any(t["metrics"]["max_abs"] > 0 for t in clean_report["runs"][0]["tensors"]), "the kernels do differ")
    check_json_against_numpy(clean_report, "clean/ref")
    code, _, _ = probe("compare", clean, ref, "--atol", "0", "--rtol", "0")
    check(code == 1, "at zero tolerance the rounding differences fail")
    # a CI gate that accepts rounding-level differences, and nothing more
    code, text, _ = probe("compare", clean, ref, "--atol", "0", "--rtol", "0", "--accept-rounding")
    check(code == 0, f"--accept-rounding: rounding-level failures exit 0, got {code}: {text}")
    check("accepted (--accept-rounding)" in text and "Root cause" not in text, f"--accept-rounding in words: {text}")
    code, text, _ = probe("compare", opt, ref, "--accept-rounding")
    check(code == 1 and "Root cause: op norm#0" in text, f"--accept-rounding: a real bug still exits 1, got {code}")

    # --- the planted NaN: the non-finite check names the op; compare roots it
    code, text, err = probe("compare", "--nonfinite", nan)
    check(code == 1, f"--nonfinite finds it: exit 1, got {code}: {err}")
    check("First non-finite output: op act#0 (Gelu) at seq 2" in text, f"--nonfinite names act: {text}")
    check("this op made the NaN/Inf" in text, "its inputs are finite")
    code, js, _ = probe("compare", "--nonfinite", nan, "--json", "-")
    nf = json.loads(js)
    check(nf["found"] and nf["runs"][0]["op_key"] == "act#0" and nf["runs"][0]["outputs"][0]["nan"] == 1, "--nonfinite JSON")
    code, text, _ = probe("compare", "--nonfinite", ref)
    check(code == 0 and "no NaN or Inf" in text, "no NaN in the reference")
    code, text, _ = probe("show", "--health", nan)
    check(code == 1 and "op act#0" in text, f"show --health exits as compare --nonfinite: 1 on NaN, got {code}")
    code, _, _ = probe("show", "--health", ref)
    check(code == 0, "show --health: 0 without NaN")

    # --- --first-above: the first op whose output runs past X, in either run; a NaN is above no X
    code, text, _ = probe("compare", "--first-above", "1e30", nan, ref)
    check(code == 0 and "No output holds a value with |value| > 1e+30" in text and "|value| inf" not in text,
          f"--first-above: act's NaN is not above 1e30: {text}")
    check(re.search(r"\d+ outputs hold NaN, which is above no threshold", text),
          f"--first-above counts the NaNs: {text}")
    code, text, _ = probe("compare", "--first-above", "0", nan, ref)
    check(code == 1 and "First op above 0: fc1#0 at step 0 (in A)" in text and "B: first above 0: op fc1#0" in text,
          f"--first-above in two runs: {text}")
    code, js, _ = probe("compare", "--first-above", "0", ref, "--json", "-")
    fa = json.loads(js)
    check(code == 1 and fa["first"]["op_key"] == "fc1#0" and fa["first"]["seq"] == 1, f"--first-above 0: the first op {js}")
    code, text, _ = probe("compare", "--first-above", "1e30", ref)
    check(code == 0 and "No output holds a value with |value| > 1e+30" in text, f"--first-above: none: {text}")
    code, _, err = probe("compare", "--first-above", "1", ref, ref, ref)
    check(code == 2 and "one or two dump folders" in err, "--first-above takes one or two dumps")
    code, js, _ = probe("compare", nan, ref, "--json", "-")
    r = json.loads(js)["runs"][0]
    check([x["op_key"] for x in r["roots"]] == ["act#0"], f"NaN root {r['roots']}")
    act = [t for t in r["tensors"] if t["key"] == "act#0/out/y"][0]["metrics"]
    check(act["nan_mismatch"] == 1 and act["min_atol"] is None, "NaN disagreement counted, no tolerance passes")
    code, _, _ = probe("compare", nan, nan, "--no-equal-nan")
    check(code == 1, "--no-equal-nan: the same NaN fails against itself")
    code, _, _ = probe("compare", nan, nan)
    check(code == 0, "NaN == NaN by default")

    # --- f16 against f32: upcast, judged at f16 precision
    code, js, _ = probe("compare", half, ref, "--json", "-")
    h = json.loads(js)
    t0 = h["runs"][0]["tensors"][0]
    check(code == 0, f"f16 vs f32 passes at the f16 defaults: {h['summary']}")
    check(t0["a"]["dtype"] == "float16" and t0["b"]["dtype"] == "float32" and t0["metrics"]["rtol"] == 0.01, "f16 pair")
    check_json_against_numpy(h, "half/ref")
    code, _, _ = probe("compare", half, ref, "--atol", "1e-5", "--rtol", "1e-5")
    check(code == 1, "f16 fails at float32 tolerances")
    code, _, _ = probe("compare", half, ref, "--check", "quantile:0.5", "--atol", "1e-3", "--rtol", "1e-3")
    check(code == 0, "the median error of the f16 run is small")

    # --- one-sided and reshaped tensors
    code, text, _ = probe("compare", odd, ref)
    check(code == 1 and "2 only in A" in text and "1 with different shapes" in text, f"unpaired and shapes: {text[-400:]}")
    check("only in A" in text and "SHAPE [1,24] vs [24]" in text, "rows say so")

    # --- folders of .npy and single files
    code, text, _ = probe("compare", os.path.join(opt, "op_000001.fc1.out.y.npy"), os.path.join(ref, "op_000001.fc1.out.y.npy"))
    check(code == 0 and "npy files" in text, "two .npy files")
    plain_a, plain_b = os.path.join(tmp, "pa"), os.path.join(tmp, "pb")
    os.mkdir(plain_a)
    os.mkdir(plain_b)
    for n in ("op_000003.norm.out.y.npy", "op_000001.fc1.out.y.npy"):
        shutil.copy(os.path.join(opt, n), plain_a)
        shutil.copy(os.path.join(ref, n), plain_b)
    code, text, _ = probe("compare", plain_a, plain_b)
    check(code == 1 and "First mismatching file (in name order): op_000003.norm.out.y.npy" in text, "npy folders")

    # --- tolerance options
    code, _, _ = probe("compare", opt, ref, "--tol", "norm|mix|fc2|softmax=1,1")
    check(code == 0, "--tol overrides")
    code, _, _ = probe("compare", opt, ref, "--check", "mean", "--atol", "0.1", "--rtol", "0.1")
    check(code == 0, "--check mean with loose tolerances")

    # --- probe show
    npy = os.path.join(ref, "op_000001.fc1.out.y.npy")
    code, text, _ = probe("show", npy)
    x = np.load(npy)
    check(code == 0 and "float32[16,24], C order" in text, f"show npy header: {text[:200]}")
    with np.printoptions(threshold=1000):
        first_row = str(x)[:40]
    check(first_row in text, "show prints values as numpy does")
    check(f"384 values, nan 0, +inf 0, -inf 0" in text, "show health")
    code, text, _ = probe("show", ref)
    check(code == 0 and len([l for l in text.splitlines() if "#0/" in l]) == 18, "show a dump: one line per tensor")
    check("norm#0/in/gamma" in text and "float32[24]" in text, "show lines carry key, dtype and shape")
    code, text, _ = probe("show", os.path.join(ref, "manifest.jsonl"))
    check(code == 0 and "fc1#0/out/y" in text, "show a manifest file")
    snap = os.path.join(ref, "snapshots", "op_000003.norm")
    code, text, _ = probe("show", snap)
    check(code == 0 and "op norm [LayerNorm] seq 3" in text and "in  gamma" in text and "out y" in text, f"show snapshot {text[:300]}")
    code, text, _ = probe("show", os.path.join(snap, "snapshot.json"))
    check(code == 0 and "health:" in text, "show snapshot.json")

    # --- hostile names (an op named from a model file): the terminal output escapes control
    # characters, so a name can neither break a line nor recolour or clear the terminal
    hostile_name = "no\nrm\x1b[31m\x07\x9b"

    def rename(folder, dest):
        shutil.copytree(folder, dest)
        path = os.path.join(dest, "manifest.jsonl")
        with open(path) as f:
            records = [json.loads(line) for line in f]

        def swap(v):
            if isinstance(v, str):
                return v.replace("norm", hostile_name)
            if isinstance(v, list):
                return [swap(x) for x in v]
            if isinstance(v, dict):
                return {k: (x if k == "file" else swap(x)) for k, x in v.items()}
            return v

        with open(path, "w") as f:
            for r in records:
                f.write(json.dumps(swap(r)) + "\n")

    h_opt, h_ref = os.path.join(tmp, "h_opt"), os.path.join(tmp, "h_ref")
    rename(opt, h_opt)
    rename(ref, h_ref)
    escaped = "no\\nrm\\x1b[31m\\x07\\xc2\\x9b"
    for args, want in ((("compare", h_opt, h_ref), 1), (("show", h_opt), 0), (("show", "--health", h_opt), 0)):
        code, text, err = probe(*args)
        controls = sorted({c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0})
        check(code == want, f"{args[0]} with hostile names: exit {code}: {err}")
        check(not controls, f"{' '.join(args[:2])}: control characters reach the terminal: {controls}")
        check(args[1] == "--health" or escaped in text, f"{' '.join(args[:2])}: the name is shown escaped: {text[:400]!r}")
    code, text, _ = probe("compare", h_opt, h_ref)
    check(f"Root cause: op {escaped}#0 (LayerNorm)" in text, f"root cause with an escaped name: {text[-600:]!r}")

    # --- bad input: exit 2, the message names the file
    bad = os.path.join(tmp, "bad")
    shutil.copytree(opt, bad)
    victim = os.path.join(bad, "op_000002.act.out.y.npy")
    with open(victim, "r+b") as f:
        f.truncate(100)
    code, _, err = probe("compare", bad, ref)
    check(code == 2 and "op_000002.act.out.y.npy" in err, f"truncated file: exit 2 naming it: {code} {err}")
    code, _, err = probe("show", victim)
    check(code == 2 and "op_000002.act.out.y.npy" in err, "show a truncated file")
    with open(os.path.join(bad, "manifest.jsonl"), "a") as f:
        f.write("garbage\n{\"record\":\"end\"}\n")
    code, _, err = probe("compare", bad, ref)
    check(code == 2 and "manifest.jsonl:" in err, f"corrupt manifest: {err}")
    for verb in (("show", "/dev/null"), ("compare", "/dev/null", ref)):
        code, _, err = probe(*verb)
        check(code == 2 and "/dev/null: not a regular file or a folder" in err, f"{verb[0]} /dev/null: {code} {err}")
    for flag in ("--json", "--html"):  # a report that cannot be written: exit 2, naming it
        target = os.path.join(tmp, "no_such_folder", "r.out")
        code, _, err = probe("compare", opt, ref, flag, target)
        check(code == 2 and target in err, f"{flag} into a missing folder: {code} {err}")
    code, _, err = probe("compare", os.path.join(tmp, "missing"), ref)
    check(code == 2 and "missing" in err, "missing folder")
    code, _, err = probe("compare", opt)
    check(code == 2, "one input")
    code, _, err = probe("compare", opt, ref, "--check", "median")
    check(code == 2 and "--check" in err, "bad --check")
    code, _, err = probe("compare", opt, ref, "--bogus")
    check(code == 2 and "--bogus" in err, "unknown option")
    code, text, _ = probe("compare", "--help")
    check(code == 0 and "--nonfinite" in text, "help")
    code, _, _ = probe("show", os.path.join(tmp, "missing.npy"))
    check(code == 2, "show a missing file")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("compare_cli: all checks passed")
