"""probe show --passes and probe diff-ir on the engine example's IR dump: the listing, the
exit codes (0 same, 1 differ, 2 bad input), and diffs that turn one stage into the other
when applied, on the engine's stages and on random texts.

usage: cli_ir.py PROBE ENGINE
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

probe, engine = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, env=None):
    p = subprocess.run(list(args), capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def apply_unified(a_text, diff_text):
    """Applies a unified diff to a_text; the lines it yields."""
    a = a_text.split("\n")[:-1] if a_text.endswith("\n") else a_text.split("\n")
    if a_text == "":
        a = []
    out, at = [], 0
    lines = diff_text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$", lines[i])
        i += 1
        if not m:
            continue
        start = int(m.group(1))
        count = int(m.group(2)) if m.group(2) is not None else 1
        first = start - 1 if count > 0 else start
        out.extend(a[at:first])
        at = first
        while i < len(lines) and lines[i][:1] in (" ", "-", "+") and not lines[i].startswith("@@"):
            op, text = lines[i][0], lines[i][1:]
            if op == " ":
                check(a[at] == text, "context line matches")
                out.append(text)
                at += 1
            elif op == "-":
                check(a[at] == text, "removed line matches")
                at += 1
            else:
                out.append(text)
            i += 1
    out.extend(a[at:])
    return out


with tempfile.TemporaryDirectory() as work:
    bad = os.path.join(work, "bad")
    env = dict(os.environ, PROBE_FLAGS="--probe_dump_to=%s --probe_dump_pass_re=.*" % bad)
    code, out = run(engine, "--opt-bug", env=env)
    check(code == 0, "engine ran: " + out)

    code, out = run(probe, "show", bad, "--passes")
    check(code == 0, "show --passes exits 0")
    check(re.search(r"module 1 mlp\.L0 \(14 ops\)", out) is not None, "module line: " + out)
    check(re.search(r"0003 fusion\s+after\s+changed\s+9 lines  module_0001\.mlp\.L0\.0003\.fusion\.after\.txt", out) is not None,
          "fusion changed")
    check(re.search(r"0004 dce\s+after\s+unchanged\s+9 lines  \(same as module_0001\.mlp\.L0\.0003\.fusion\.after\.txt\)", out)
          is not None, "second dce unchanged")

    code, out = run(probe, "diff-ir", bad, "mlp.L0", "2", "fusion")
    check(code == 1, "stages that differ exit 1")
    check("+%act = FusedMatMulBiasGelu(%h, %w1)" in out, "the fused node in the diff")
    check("-%fc1 = MatMul(%h, %w1)" in out, "the matmul it replaced")
    a = open(os.path.join(bad, "module_0001.mlp.L0.0002.dce.after.txt")).read()
    b = open(os.path.join(bad, "module_0001.mlp.L0.0003.fusion.after.txt")).read()
    check(apply_unified(a, out) == b.split("\n")[:-1], "the diff turns dce's output into fusion's")

    code, out = run(probe, "diff-ir", bad, "1", "fusion", "4")
    check(code == 0 and "same IR" in out, "an unchanged pass equals its input: " + out)
    code, out = run(probe, "diff-ir", bad, "module_0002", "exit", "layout")
    check(code == 0, "exit equals the last pass")

    # every stage show --passes lists is named by its index, the entry and exit stages too
    code, listing = run(probe, "show", bad, "--passes")
    first = listing.split("\nmodule 2")[0]
    indices = re.findall(r"^  (\d{4}) \S+\s+(?:entry|after|exit) ", first, re.M)
    check(indices[0] == "0000" and indices[-1] == "0006", "module 1 lists entry to exit: " + first)
    for index in indices:
        code, out = run(probe, "diff-ir", bad, "1", str(int(index)), index)
        check(code == 0 and "same IR" in out, "stage %s by its index: %d %s" % (index, code, out))
    code, out = run(probe, "diff-ir", bad, "1", "0", "entry")
    check(code == 0 and "same IR" in out, "index 0 is the entry stage: " + out)
    code, out = run(probe, "diff-ir", bad, "1", "6", "exit")
    check(code == 0 and "same IR" in out, "the last index is the exit stage: " + out)

    for args, what in [((bad, "mlp.L9", "entry", "exit"), "no such module"),
                       ((bad, "1", "dce", "exit"), "a pass run twice, named by name"),
                       ((bad, "1", "nosuchpass", "exit"), "no such pass"),
                       ((os.path.join(work, "missing"), "1", "entry", "exit"), "no folder"),
                       ((bad, "1", "entry"), "too few operands")]:
        code, out = run(probe, "diff-ir", *args)
        check(code == 2, what + " exits 2: %d %s" % (code, out))
    code, out = run(probe, "diff-ir", bad, "1", "dce", "exit")
    check("name one by index" in out, "ambiguous pass says how to choose")

    plain = os.path.join(work, "plain")
    env = dict(os.environ, PROBE_FLAGS="--probe_dump_to=%s" % plain)
    run(engine, env=env)
    code, out = run(probe, "show", plain, "--passes")
    check(code == 2 and "no engine IR" in out, "a dump without IR: exit 2")

    # The other formats open where they should: numpy reads the manifest's records as JSON,
    # Graphviz lays out the DOT, Chromium builds the page with its drawing.
    fmt = os.path.join(work, "formats")
    env = dict(os.environ, PROBE_FLAGS="--probe_dump_to=%s --probe_dump_ir_as_text --probe_dump_ir_as_dot "
               "--probe_dump_ir_as_html --probe_dump_module_re=L0 --probe_dump_pass_re=fusion" % fmt)
    code, out = run(engine, "--optimize", env=env)
    check(code == 0, "engine with every IR format")
    files = sorted(f for f in os.listdir(fmt) if f.startswith("module_"))
    check(files == ["module_0001.mlp.L0.0000.entry.%s" % e for e in ("dot", "html", "txt")] +
          ["module_0001.mlp.L0.0002.dce.after.%s" % e for e in ("dot", "html", "txt")] +
          ["module_0001.mlp.L0.0003.fusion.after.%s" % e for e in ("dot", "html", "txt")] +
          ["module_0001.mlp.L0.0006.exit.%s" % e for e in ("dot", "html", "txt")], "files: %s" % files)
    code, out = run(probe, "show", fmt, "--passes")
    check(re.search(r"0002 dce\s+after\s+written\s+12 lines", out) is not None,
          "fusion's input, written as dce's output, says nothing of whether dce changed it: " + out)
    dot = shutil.which("dot")
    check(dot is not None, "graphviz is installed")
    if dot:
        p = subprocess.run([dot, "-Tsvg", os.path.join(fmt, "module_0001.mlp.L0.0003.fusion.after.dot")],
                           capture_output=True, text=True)
        check(p.returncode == 0 and p.stdout.count('class="node"') == 9, "graphviz draws 9 nodes: " + p.stderr)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" +
                            os.path.join(work, "chromium"), "--dump-dom",
                            "file://" + os.path.join(fmt, "module_0001.mlp.L0.0003.fusion.after.html")],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0 and "<svg" in p.stdout and "FusedMatMulBiasGelu" in p.stdout, "chromium builds the page")
    py = "/usr/bin/python3"
    if os.path.exists(py):
        script = ("import json,sys,numpy\nrecs=[json.loads(l) for l in open(sys.argv[1]) if '\"record\":\"ir\"' in l]\n"
                  "b=numpy.array([r.get('bytes',0) for r in recs])\nprint(len(recs), int(b.sum()))\n")
        p = subprocess.run([py, "-c", script, os.path.join(fmt, "manifest.jsonl")], capture_output=True, text=True)
        sizes = sum(os.path.getsize(os.path.join(fmt, f)) for f in files)
        check(p.returncode == 0 and p.stdout.split() == [str(len(files)), str(sizes)],
              "numpy reads the records, bytes match the files: %s %s" % (p.stdout, p.stderr))

    # Random texts: the diff applied to A gives B, whatever the edits.
    rnd = random.Random(7)
    d = os.path.join(work, "rand")
    os.mkdir(d)
    for trial in range(40):
        base = ["line %d" % rnd.randrange(12) for _ in range(rnd.randrange(0, 40))]
        other = list(base)
        for _ in range(rnd.randrange(0, 10)):
            op = rnd.randrange(3)
            if op == 0 and other:
                del other[rnd.randrange(len(other))]
            elif op == 1:
                other.insert(rnd.randrange(len(other) + 1), "new %d" % rnd.randrange(5))
            elif other:
                other[rnd.randrange(len(other))] = "changed"
        ta = "".join(x + "\n" for x in base)
        tb = "".join(x + "\n" for x in other)
        with open(os.path.join(d, "module_0001.r.0000.entry.txt"), "w") as f:
            f.write(ta)
        with open(os.path.join(d, "module_0001.r.0001.p.after.txt"), "w") as f:
            f.write(tb)
        with open(os.path.join(d, "manifest.jsonl"), "w") as f:
            f.write('{"record":"ir","module":1,"module_name":"r","ops":1,"pass_index":0,"pass":"entry","stage":"entry",'
                    '"changed":true,"format":"text","file":"module_0001.r.0000.entry.txt","lines":1}\n')
            f.write('{"record":"ir","module":1,"module_name":"r","ops":1,"pass_index":1,"pass":"p","stage":"after",'
                    '"changed":true,"format":"text","file":"module_0001.r.0001.p.after.txt","lines":1}\n')
        code, out = run(probe, "diff-ir", "--context", str(rnd.randrange(0, 4)), d, "r", "entry", "p")
        check(code == (0 if ta == tb else 1), "random trial %d exit %d" % (trial, code))
        if ta != tb:
            check(apply_unified(ta, out) == other, "random trial %d: the diff applies\n%s" % (trial, out))

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
