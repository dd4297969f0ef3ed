"""Replay end to end: the engine-like replay_engine dumps snapshots (naive kernels), then its
registered kernels replay them (through PROBE_FLAGS and through `probe replay`): the planted
bug is the one mismatch, the reference kernels match the naive run, fake data is finite and
seeded, timing is printed; a crashing op, a missing kernel, a wrong dtype and truncated
files each give exit 2 and one clear line; a bundle unpacked elsewhere replays the same, and
hostile op names stay inside the archive's folder.

usage: replay_cli.py PATH/TO/probe PATH/TO/replay_engine
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

PROBE, ENGINE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, flags=None, cwd=None):
    env = dict(os.environ)
    env.pop("PROBE_FLAGS", None)
    if flags is not None:
        env["PROBE_FLAGS"] = flags
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def replay(dump, *engine_args, flags=""):
    return run([ENGINE, *engine_args], f"--probe_replay={dump} {flags}")


def rows(out):
    """op key -> result of the table's rows (first output of each op)."""
    table = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(\S+)\s+(complete|running|exception|\?)\s+(\S+)", line)
        if m:
            table[m.group(1)] = m.group(4)
    return table


def table_only(out):
    """The table and answer without the folders (bundles live elsewhere)."""
    return [l for l in out.splitlines() if not l.startswith("probe replay:")]


tmp = tempfile.mkdtemp(prefix="probe_replay_")
try:
    naive = os.path.join(tmp, "naive")
    code, out, err = run([ENGINE], f"--probe_dump_to={naive} --probe_dump_snapshots --probe_reference")
    check(code == 0 and "naive kernels" in out, f"naive dump: exit {code} {err}")
    snaps = sorted(os.listdir(os.path.join(naive, "snapshots")))
    check(snaps == ["op_000001.scale", "op_000002.norm", "op_000003.gate", "op_000004.mix"], f"snapshots {snaps}")

    # 1. The optimized kernels without the bug: rounding only.
    code, out, err = replay(naive)
    check(code == 0 and "replay: all 4 ops within tolerance." in out, f"clean replay: exit {code}\n{out}{err}")

    # 2. With the planted bug: exit 1, and only norm#0 mismatches (each op runs on its own
    # recorded inputs, so nothing downstream diverges).
    code, out, err = replay(naive, "--bug")
    t = rows(out)
    check(code == 1, f"bug replay exit {code}\n{out}{err}")
    check(t == {"scale#0": "ok", "norm#0": "MISMATCH", "gate#0": "ok", "mix#0": "ok"}, f"bug rows {t}")
    check("replay: 1 of 4 ops mismatch their recorded outputs: norm#0 (LayerNorm)." in out, f"bug answer\n{out}")
    check(err == "", f"no messages for a mismatch: {err!r}")

    # 3. --probe_reference: the naive kernels reproduce the naive run exactly, bug or not.
    code, out, err = replay(naive, "--bug", flags="--probe_reference")
    check(code == 0 and out.count(" 0 of 512 fail") == 4 and "max abs err 0," in out, f"reference replay: {code}\n{out}")

    # 4. The same through the CLI, which forwards the engine's exit code.
    code, out, err = run([PROBE, "replay", naive, "--", ENGINE, "--bug"])
    check(code == 1 and rows(out).get("norm#0") == "MISMATCH", f"probe replay: exit {code}\n{out}{err}")
    code, out, err = run([PROBE, "replay", "--reference", "--op-re", "norm", naive, "--", ENGINE, "--bug"])
    check(code == 0 and list(rows(out)) == ["norm#0"], f"probe replay --reference --op-re: {code}\n{out}{err}")
    code, out, err = run([PROBE, "replay", "--atol", "0.1", "--rtol", "0", naive, "--", ENGINE, "--bug"])
    check(code == 0 and "(atol 0.1, rtol 0)" in out, f"probe replay --atol: {code}\n{out}{err}")
    code, out, err = run([PROBE, "replay", "--list", naive])
    check(code == 0 and re.search(r"op_000002\.norm\s+norm#0\s+LayerNorm\s+complete\s+x float32\[8,64\] -> y float32\[8,64\]"
                                  r"\s+eps=1e-05 axis=1 mode=\"rows\" normalized_shape=\[64\]", out), f"--list\n{out}{err}")
    # --list shows what --op-re selects, as the replay would (a partial match on op#occurrence).
    code, out, err = run([PROBE, "replay", "--list", "--op-re", "norm", naive])
    check(code == 0 and re.search(r"/op_000002\.norm\s+norm#0\s", out) and "scale#0" not in out and
          "gate#0" not in out and "mix#0" not in out and out.endswith("\n1 snapshot\n"), f"--list --op-re\n{out}{err}")
    code, out, err = run([PROBE, "replay", "--list", "--op-re", "^nosuch", naive])
    check(code == 2 and out == "" and err == "probe replay: no snapshot's op#occurrence matches --op-re '^nosuch'\n",
          f"--list --op-re matching nothing: {code} {out!r} {err!r}")
    code, out, err = run([PROBE, "replay", "--op-re", "^nosuch", naive, "--", ENGINE])
    check(code == 2 and out == "" and err == "probe replay: no snapshot's op#occurrence matches --op-re '^nosuch'\n",
          f"--op-re matching nothing, before the engine runs: {code} {out!r} {err!r}")
    # A bad pattern is told before anything runs, naming the CLI's option: no table header, no
    # engine (it would have told it under --probe_replay_op_re).
    for cmd in (["--op-re", "(", naive, "--", ENGINE], ["--list", "--op-re", "(", naive]):
        code, out, err = run([PROBE, "replay", *cmd])
        check(code == 2 and out == "" and err.count("\n") == 1 and
              err.startswith("probe replay: --op-re '(' is not a valid regular expression") and "--probe_" not in err,
              f"bad --op-re ({' '.join(cmd[:2])}): {code} {out!r} {err!r}")
    code, out, err = run([PROBE, "replay", naive, "--", "true"])
    check(code == 2 and "without replaying" in err, f"an engine that does not replay: {code} {err!r}")
    # An engine stopped by SIGPIPE (its reader quit: | head) did not crash on a kernel.
    code, out, err = run([PROBE, "replay", naive, "--", "sh", "-c", "kill -PIPE $$"])
    check(code == 2 and "closed the pipe" in err and "child process" not in err and "died of" not in err,
          f"an engine stopped by SIGPIPE: {code} {err!r}")
    code, out, err = run([PROBE, "replay", os.path.join(tmp, "nowhere"), "--", ENGINE])
    check(code == 2 and "nowhere" in err and out == "", f"a missing snapshot: {code} {err!r}")

    # 5. Mismatching outputs written next to the recorded ones.
    code, out, err = run([PROBE, "replay", "--write-mismatches", naive, "--", ENGINE, "--bug"])
    written = os.path.join(naive, "snapshots", "op_000002.norm", "replay.out.y.npy")
    check(code == 1 and os.path.exists(written), f"--write-mismatches: {code}\n{out}")
    if os.path.exists(written):
        recorded = np.load(os.path.join(naive, "snapshots", "op_000002.norm", "out.y.npy"))
        check(np.abs(np.load(written) - recorded).max() > 1e-3, "the written output is the buggy one")
        os.remove(written)
    check(not os.path.exists(os.path.join(naive, "snapshots", "op_000001.scale", "replay.out.y.npy")),
          "matching outputs are not written")

    # 6. Fake data: finite, seeded (same seed, same figures; another seed, others).
    a = replay(naive, flags="--probe_replay_fake_data --probe_replay_seed=7")
    b = replay(naive, flags="--probe_replay_fake_data --probe_replay_seed=7")
    c = replay(naive, flags="--probe_replay_fake_data --probe_replay_seed=8")
    check(a[0] == 0 and list(rows(a[1]).values()) == ["finite"] * 4 and a[1].count("0 NaN, 0 Inf") == 4,
          f"fake data\n{a[1]}{a[2]}")
    check(a[1] == b[1], "the same seed gives the same outputs")
    check(a[1] != c[1], "another seed gives other outputs")

    # 7. Timing of the kernel alone.
    code, out, err = replay(naive, flags="--probe_replay_iterations=5 --probe_replay_op_re=norm")
    check(code == 0 and re.search(r"^timing norm#0 \(LayerNorm\): 5 runs of the kernel alone: min [0-9.]+ [nmu]?s, "
                                  r"median [0-9.]+ [nmu]?s, p95 [0-9.]+ [nmu]?s$", out, re.M), f"timing\n{out}{err}")

    # 8. A kernel that crashes: the dump kept its inputs (status running); the replay runs it
    # in a child, reports the signal and the op, and exits 2 (the parent does not crash).
    crash = os.path.join(tmp, "crash")
    code, out, err = run([ENGINE, "--crash"], f"--probe_dump_to={crash} --probe_dump_snapshots")
    check(code == -11, f"the engine itself crashes: {code}")
    snap = os.path.join(crash, "snapshots", "op_000005.explode")
    meta = json.load(open(os.path.join(snap, "snapshot.json")))
    check(meta["status"] == "running" and os.path.exists(os.path.join(snap, "in.x.npy")), f"crash snapshot {meta}")
    code, out, err = replay(crash)
    check(code == 2, f"crash replay exit {code}")
    check(rows(out) == {"scale#0": "ok", "norm#0": "ok", "gate#0": "ok", "mix#0": "ok", "explode#0": "ERROR"}, f"crash rows\n{out}")
    check(err == "probe: replay explode#0: the kernel crashed: SIGSEGV (signal 11, Segmentation fault)\n", f"crash line {err!r}")
    code, out, err = run([PROBE, "replay", "--op-re", "explode", crash, "--", ENGINE])
    check(code == 2 and "SIGSEGV" in out, f"probe replay of the crash: {code}\n{out}{err}")
    # Recorded as complete, the same crash runs in the engine itself unless --isolate asks.
    meta["status"] = "complete"
    json.dump(meta, open(os.path.join(snap, "snapshot.json"), "w"))
    code, out, err = run([PROBE, "replay", "--op-re", "explode", crash, "--", ENGINE])
    check(code == 2 and "died of signal 11" in err and "while replaying explode#0" in err and
          "the kernel crashed: SIGSEGV" in out, f"in-process crash: {code} {err!r}\n{out}")
    # Every row that finished before the crash stays, the op in flight is named, and the rest
    # is replayed each in a child process.
    code, out, err = run([PROBE, "replay", crash, "--", ENGINE])
    check(code == 2 and all(rows(out).get(k) == "ok" for k in ("scale#0", "norm#0", "gate#0", "mix#0")) and
          rows(out).get("explode#0") == "ERROR" and "while replaying explode#0" in err, f"rows before a crash: {code}\n{out}{err}")
    code, out, err = replay(crash)
    check(code == -11 and re.search(r"^mix#0 .* ok ", out, re.M) and re.search(r"^explode#0 +Explode +complete +$", out, re.M),
          f"the engine alone shows its rows and the op in flight: {code}\n{out}")
    code, out, err = run([PROBE, "replay", "--isolate", "--op-re", "explode", crash, "--", ENGINE])
    check(code == 2 and "the kernel crashed: SIGSEGV" in out, f"--isolate: {code}\n{out}{err}")

    # 9. Missing kernel, wrong dtype, truncated files: exit 2, one clear line each.
    tail = os.path.join(tmp, "tail")
    run([ENGINE, "--with-tail"], f"--probe_dump_to={tail} --probe_dump_snapshots")
    # Without --require-kernels the ops without a kernel are skipped, in one line of the table's
    # end, and the ops replayed decide the exit code.
    code, out, err = replay(tail, "--no-runtime")
    check(code == 0 and err == "" and re.search(r"^3 ops of 3 types have no kernel, skipped: ", out, re.M)
          and "ERROR" not in out, f"ops without a kernel skipped: exit {code}\n{out}{err!r}")
    code, out, err = replay(tail, "--no-runtime", flags="--probe_replay_require_kernels")
    check(code == 2, f"missing kernels exit {code}")
    lines = err.splitlines()
    check(len(lines) == 3 and all(l.startswith("probe: replay ") for l in lines), f"one line per missing kernel: {err!r}")
    check("probe: replay tail#0: no kernel registered for op 'tail' or type 'Tail'" in err, f"tail line {err!r}")
    check("probe: replay gate#0: no kernel registered for op 'gate' or type 'Sigmoid'" in err, f"gate line {err!r}")

    bad = os.path.join(tmp, "bad")
    shutil.copytree(naive, bad)
    norm = os.path.join(bad, "snapshots", "op_000002.norm")
    np.save(os.path.join(norm, "in.x.npy"), np.load(os.path.join(norm, "in.x.npy")).astype(np.float64))
    code, out, err = replay(bad, flags="--probe_replay_op_re=norm")
    check(code == 2 and err == f"probe: replay norm#0: input 'x': {norm}/in.x.npy holds float64[8,64], snapshot.json records float32[8,64]\n",
          f"file and snapshot.json disagree: {err!r}")
    meta = json.load(open(os.path.join(norm, "snapshot.json")))
    meta["inputs"][0]["dtype"] = "float64"
    json.dump(meta, open(os.path.join(norm, "snapshot.json"), "w"))
    code, out, err = replay(bad, flags="--probe_replay_op_re=norm")
    check(code == 2 and err == "probe: replay norm#0: input 'x' is float64[8,64]; the kernel reads it as float32\n",
          f"wrong dtype: {err!r}")
    scale = os.path.join(bad, "snapshots", "op_000001.scale", "out.y.npy")
    with open(scale, "r+b") as f:
        f.truncate(1000)
    gate = os.path.join(bad, "snapshots", "op_000003.gate", "snapshot.json")
    with open(gate, "r+b") as f:
        f.truncate(60)
    code, out, err = replay(bad)
    lines = err.splitlines()
    check(code == 2 and len(lines) == 3, f"truncated files: exit {code}, {err!r}")
    check(any(l.startswith("probe: replay scale#0: output 'y': ") and "truncated" in l for l in lines), f"truncated npy {err!r}")
    check(any(l.startswith("probe: replay op_000003.gate: unreadable snapshot: ") and "truncated or corrupt" in l
              for l in lines), f"truncated snapshot.json {err!r}")
    check(rows(out).get("mix#0") == "ok", "the other snapshots still replay")

    # 10. Bundle: one archive; unpacked elsewhere it replays with the same answer.
    tarball = os.path.join(tmp, "repro.tar")
    code, out, err = run([PROBE, "bundle", naive, "--op", "norm#0", "-o", tarball])
    check(code == 0 and os.path.exists(tarball), f"bundle: {code} {out}{err}")
    names = tarfile.open(tarball).getnames()
    check(all(n == "probe-bundle-norm-0" or n.startswith("probe-bundle-norm-0/") for n in names), f"bundle names {names}")
    check("probe-bundle-norm-0/snapshots/op_000002.norm/in.x.npy" in names and
          "probe-bundle-norm-0/bundle.json" in names and "probe-bundle-norm-0/manifest.jsonl" in names, f"{names}")
    elsewhere = os.path.join(tmp, "elsewhere")
    os.mkdir(elsewhere)
    subprocess.run(["tar", "-xf", tarball, "-C", elsewhere], check=True)
    info = json.load(open(os.path.join(elsewhere, "probe-bundle-norm-0", "bundle.json")))
    check(info["key"] == "norm#0" and info["producers"] == ["scale#0/out/y"] and "--probe_reference" in info["flags"]
          and info["build"]["mode"] == "compiled", f"bundle.json {info}")
    manifest = [json.loads(l) for l in open(os.path.join(elsewhere, "probe-bundle-norm-0", "manifest.jsonl"))]
    check([m["record"] for m in manifest] == ["run", "tensor", "tensor", "attrs", "end"] or
          sorted(m["record"] for m in manifest) == ["attrs", "end", "run", "tensor", "tensor"], f"bundle manifest {manifest}")
    here = run([PROBE, "replay", "--op-re", "norm", naive, "--", ENGINE, "--bug"])
    there = run([PROBE, "replay", "probe-bundle-norm-0", "--", ENGINE, "--bug"], cwd=elsewhere)
    check(here[0] == there[0] == 1 and table_only(here[1]) == table_only(there[1]), f"bundle replay\n{here[1]}\n{there[1]}")
    # The next step it prints names the program the run record holds (the naive dump ran ENGINE
    # alone), quoted for a shell.
    check(out.splitlines()[1:] == [f"  tar -xf {shlex.quote(tarball)} && probe replay probe-bundle-norm-0 -- "
                                   f"{shlex.quote(ENGINE)}"], f"bundle hint: {out!r}")
    # With arguments: they are kept and quoted, the run's probe flags left out (the replay adds its
    # own; --probe_dump_to would dump again); the line, run as it is, replays the op.
    argdump = os.path.join(tmp, "arg dump")
    code, out, err = run([ENGINE, "--probe_dump_to", argdump, "--bug", "--probe_dump_snapshots", "--hostile",
                          "it's op", "-probe_reference"])
    check(code == 0 and os.path.isdir(os.path.join(argdump, "snapshots")), f"dump with flags on argv: {code} {err}")
    there = os.path.join(tmp, "hint")
    os.mkdir(there)
    code, out, err = run([PROBE, "bundle", argdump, "--op", "norm#0", "-o", "it's.tar"], cwd=there)
    hint = out.splitlines()[1] if code == 0 and len(out.splitlines()) == 2 else ""
    try:
        hint_words = shlex.split(hint)
    except ValueError:  # an unquoted ' (as in it's.tar)
        hint_words = None
    check(hint_words == ["tar", "-xf", "it's.tar", "&&", "probe", "replay", "probe-bundle-norm-0", "--", ENGINE,
                                "--bug", "--hostile", "it's op"], f"bundle hint with arguments: {code} {out!r} {err!r}")
    env_path = os.path.dirname(PROBE) + os.pathsep + os.environ.get("PATH", "")
    p = subprocess.run(["sh", "-c", hint], capture_output=True, text=True, cwd=there, env=dict(os.environ, PATH=env_path))
    check(p.returncode == 1 and rows(p.stdout) == {"norm#0": "MISMATCH"}, f"the hint run as printed: {p.returncode}\n{p.stdout}{p.stderr}")
    # No program recorded (a manifest without argv): a placeholder no one takes for a program.
    noargv = os.path.join(tmp, "noargv")
    shutil.copytree(naive, noargv)
    lines = open(os.path.join(noargv, "manifest.jsonl")).read().splitlines()
    with open(os.path.join(noargv, "manifest.jsonl"), "w") as f:
        for l in lines:
            rec = json.loads(l)
            rec.pop("argv", None)
            f.write(json.dumps(rec) + "\n")
    code, out, err = run([PROBE, "bundle", noargv, "--op", "norm#0", "-o", tarball])
    check(code == 0 and out.splitlines()[1:] == [f"  tar -xf {shlex.quote(tarball)} && probe replay probe-bundle-norm-0 -- "
                                                 "<your program> [its arguments]"], f"bundle hint without argv: {out!r}")
    code, out, err = run([PROBE, "bundle", naive, "--op", "norm", "--folder", "../bug 1234", "--output", tarball])
    names = tarfile.open(tarball).getnames()
    check(code == 0 and all(n.split("/")[0] == ".._bug_1234" for n in names), f"--folder: {code} {names} {err}")
    code, out, err = run([PROBE, "bundle", naive, "--op", "nosuch#0", "-o", tarball])
    check(code == 2 and "no snapshot of op 'nosuch#0'" in err and "norm#0" in err, f"bundle of an unknown op: {err!r}")

    # Hostile op names: every entry stays inside the archive's one folder.
    hostile = os.path.join(tmp, "hostile")
    names_in = ["../../../../tmp/evil", "a/b/../../c", "x" * 300, "sp ace\tand\nnewline", ".."]
    args = [ENGINE]
    for n in names_in:
        args += ["--hostile", n]
    code, out, err = run(args, f"--probe_dump_to={hostile} --probe_dump_snapshots")
    check(code == 0, f"hostile dump: {code} {err}")
    for n in names_in:
        tarball = os.path.join(tmp, "hostile.tar")
        code, out, err = run([PROBE, "bundle", hostile, "--op", n + "#0", "-o", tarball])
        check(code == 0, f"bundle of {n!r}: {code} {err}")
        listing = subprocess.run(["tar", "-tf", tarball], capture_output=True, text=True).stdout.splitlines()
        tops = {l.split("/")[0] for l in listing}
        check(len(tops) == 1 and tops.pop().startswith("probe-bundle-") and
              not any(".." in l.split("/") or l.startswith("/") for l in listing), f"{n!r}: {listing}")
        where = tempfile.mkdtemp(dir=tmp)
        subprocess.run(["tar", "-xf", tarball, "-C", where], check=True)
        check(len(os.listdir(where)) == 1, f"{n!r} unpacks into one folder: {os.listdir(where)}")
        code, out, err = run([PROBE, "replay", os.path.join(where, os.listdir(where)[0]), "--", ENGINE])
        check(code == 0 and "replay: the op is within tolerance." in out, f"replay of the {n!r} bundle: {code}\n{out}{err}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("replay_cli: ok")
