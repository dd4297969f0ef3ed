#!/usr/bin/env python3
"""Breakpoints as users meet them: piped and scripted prompt sessions, a real terminal
(util-linux `script` gives the program a pty), the non-terminal default (npy files),
end of input, quit's exit status, trap under gdb, abort, several threads, non-finite checks.

usage: check_breakpoints.py BREAKPOINT_PROGRAM SOURCE_FILE"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np

PROGRAM, SOURCE = sys.argv[1], sys.argv[2]
failures = []


def line_of(marker):
    with open(SOURCE) as f:
        for i, text in enumerate(f, 1):
            if marker in text:
                return i
    raise SystemExit("marker %r not in %s" % (marker, SOURCE))


BASIC_LINE = line_of("// basic-line")
LOOP_LINE = line_of("// loop-line")
TWICE_A, TWICE_B = line_of("// twice-a"), line_of("// twice-b")
NONFINITE_LINE = line_of("// nonfinite-line")
SRC = os.path.basename(SOURCE)


def run(scenario, flags="", stdin=b"", env_extra=None, timeout=60):
    env = dict(os.environ)
    env["PROBE_FLAGS"] = flags
    env.update(env_extra or {})
    p = subprocess.run([PROGRAM, scenario], input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def check(name, cond, detail=""):
    if not cond:
        failures.append(name)
        print("FAIL: %s\n%s" % (name, detail))
    else:
        print("ok: %s" % name)


def header(rest):
    return re.compile(r"probe: %s \[thread \d+, tid \d+, step \d+, hit \d+\]; 'help' lists the commands\n"
                      % re.escape(rest))


# ---- piped stdin with --probe_breakpoint=prompt: every frame, exact transcript ----
rc, out, err = run("basic", "--probe_breakpoint=prompt",
                   b"p y\np y[1, ::2]\nw\nu\ninfo\np out[-1]\nu\np x.shape\nd\nd\nstats y\nbogus\nc\n")
where = "breakpoint at %s:%d in run_basic()" % (SOURCE, BASIC_LINE)
expected = (
    "-> PROBE_BREAKPOINT(probe::var(\"y\", probe::view(y.data(), {2, 3})), probe::var(\"step\", step));  // basic-line\n"
    "(probe) p y\n[[1. 2. 3.]\n [4. 5. 6.]]\n"
    "(probe) p y[1, ::2]\n[4. 6.]\n"
    "(probe) w\n"
    "  #2 op block (Block) seq 1, step 0\n"
    "  #1 op conv1 (Conv) seq 2, step 0\n"
    "> #0 " + where + "\n"
    "(probe) u\n> #1 op conv1 (Conv) seq 2, step 0\n"
    "(probe) info\nframe #1 op conv1 (Conv) seq 2, step 0:\n  out  float32[6]  host\n"
    "(probe) p out[-1]\n6.0\n"
    "(probe) u\n> #2 op block (Block) seq 1, step 0\n"
    "(probe) p x.shape\n(2, 3)\n"
    "(probe) d\n> #1 op conv1 (Conv) seq 2, step 0\n"
    "(probe) d\n> #0 " + where + "\n"
    "(probe) stats y\ny: float32[2, 3] count 6, finite 6, nan 0, +inf 0, -inf 0, zero 0, subnormal 0, "
    "negative 0, positive 6\n  min 1.0, max 6.0, mean 3.5, std 1.707825127659933\n"
    "(probe) bogus\n*** unknown command 'bogus' (help lists the commands)\n"
    "(probe) c\n")
m = header(where).search(err)
check("piped prompt: header", m is not None, err)
check("piped prompt: transcript", m is not None and err[m.end():] == expected, err[m.end() if m else 0:])
check("piped prompt: the program goes on", rc == 0 and out == "after the breakpoint\n", "rc=%d out=%r" % (rc, out))

# ---- q ends the program with status 3 ----
rc, out, err = run("basic", "--probe_breakpoint=prompt", b"p step\nq\n")
check("quit: exit status 3", rc == 3, "rc=%d" % rc)
check("quit: says so, and the program stops", "exit status 3" in err and "after the breakpoint" not in out, err)
rc, out, err = run("basic", "--probe_breakpoint=prompt", b"exit\n")
check("exit: exit status 3", rc == 3, "rc=%d" % rc)

# ---- end of input: a message, and the program goes on ----
rc, out, err = run("basic", "--probe_breakpoint=prompt", b"")
check("EOF: continues with a message",
      rc == 0 and "end of input on stdin at the breakpoint prompt; continuing" in err and
      out == "after the breakpoint\n", "rc=%d out=%r err=%s" % (rc, out, err))

# ---- a commands file feeds the prompt, breakpoint after breakpoint ----
tmp = tempfile.mkdtemp(prefix="probe_bp_test_")
try:
    cmds = os.path.join(tmp, "cmds.txt")
    # Blocks per stop: the lines before any header run at every stop, then each matching block.
    with open(cmds, "w") as f:
        f.write("# both stops\ninfo\n@ %s:%d\np a\nc\np never_reached\n@ %s:%d\np b\np b.dtype\n"
                % (SRC, TWICE_A, SRC, TWICE_B))
    # No --probe_breakpoint: a commands file makes 'auto' mean the prompt, even off a terminal.
    rc, out, err = run("twice", "--probe_breakpoint_commands=" + cmds, b"")
    first = err.find("(probe) info\nframe #0 breakpoint at %s:%d in run_twice():\n  a  int32[]  host\n"
                     "(probe) p a\n1\n(probe) c\n" % (SOURCE, TWICE_A))
    second = err.find("(probe) info\nframe #0 breakpoint at %s:%d in run_twice():\n  b  float64[]  host\n"
                      "(probe) p b\n2.5\n(probe) p b.dtype\nfloat64\n(probe) \nprobe: end of input on %s (the commands "
                      "for this stop) at the breakpoint prompt; continuing\n" % (SOURCE, TWICE_B, cmds))
    check("commands file: each stop runs its own block, in order", 0 <= first < second, err)
    check("commands file: a block ends at its 'c'", "never_reached" not in err, err)
    check("commands file: the program goes on", rc == 0 and out == "after both\n", "rc=%d out=%r" % (rc, out))

    # '@ hit N' and '@ NAME' (an enclosing op); the file alone gives op frames ('up' reaches the op).
    with open(cmds, "w") as f:
        f.write("p i\n@ hit 2\nup\n@ L3.mlp\nw\n")
    rc, out, err = run("loop", "--probe_breakpoint_commands=" + cmds, b"")
    stops = err.split("'help' lists the commands\n")[1:]
    check("commands file blocks: three stops", len(stops) == 3 and rc == 0 and out == "loop done\n", err)
    if len(stops) == 3:
        check("commands file blocks: every stop runs the lines before any header",
              all("(probe) p i\n%d\n" % k in stops[k - 1] for k in (1, 2, 3)), err)
        check("commands file blocks: '@ hit 2' at the second stop only, with op frames",
              "(probe) up\n> #1 op L2.attn (Block) seq 2, step 2\n" in stops[1] and "(probe) up" not in stops[0] + stops[2],
              err)
        check("commands file blocks: '@ L3.mlp' inside that op only",
              "(probe) w\n  #1 op L3.mlp (Block) seq 3, step 3\n> #0 breakpoint" in stops[2] and
              "(probe) w" not in stops[0] + stops[1], err)
    check("commands file blocks: the header shows the step and hit",
          "run_loop() [thread 0, tid" in err and ", step 2, hit 2]; 'help'" in err, err)

    # ---- --probe_break_if: op name regex, step and hit comparisons ----
    with open(cmds, "w") as f:
        f.write("p i\n")
    for cond, want in [(r"op=L\d\.mlp && step>=2", [3]), ("hit==1 || op=attn", [1, 2]), ("step!=2 && type=Bl", [1, 3]),
                       ("op!=mlp", [2])]:
        rc, out, err = run("loop", "--probe_breakpoint_commands=%s '--probe_break_if=%s'" % (cmds, cond), b"")
        got = [int(x) for x in re.findall(r"\(probe\) p i\n(\d+)\n", err)]
        check("break_if %r stops at %r" % (cond, want), got == want and rc == 0, "got %r\n%s" % (got, err))
    rc, out, err = run("loop", "--probe_breakpoint_commands=%s '--probe_break_if=step>=x'" % cmds, b"")
    check("break_if: a bad condition is one message and no stop",
          err.count("--probe_break_if='step>=x': expected a number after 'step>=' at 7, not 'x'; breakpoints will not stop")
          == 1 and "(probe)" not in err and rc == 0 and out == "loop done\n", err)

    # Every command from a file, with --probe_breakpoint=prompt (op frames recorded).
    npy = os.path.join(tmp, "row.npy")
    with open(cmds, "w") as f:
        f.write("help\np y[1]\npp y[:, 0]\ninfo\ninfo step\nstats y\ndump y[1] %s\nl\nw\nbt\nwhere\n"
                "up\nu\nd 1\ndown\np step\nlist\nq\n" % npy)
    rc, out, err = run("basic", "--probe_breakpoint=prompt --probe_breakpoint_commands=" + cmds, b"p y\n")
    lines = "\n".join("%4d%s\t%s" % (n, " ->" if n == BASIC_LINE else "   ", t.rstrip("\n"))
                      for n, t in enumerate(open(SOURCE).readlines()[BASIC_LINE - 6:BASIC_LINE + 5], BASIC_LINE - 5))
    for piece in ["(probe) help\nCommands:\n",
                  "(probe) p y[1]\n[4. 5. 6.]\n",
                  "(probe) pp y[:, 0]\n[1. 4.]\n",
                  "(probe) info\nframe #0 " + where + ":\n  y     float32[2, 3]  host\n  step  int32[]        host\n",
                  "(probe) info step\nstep: int32[], strides () (elements), host, 0x",
                  "(probe) stats y\ny: float32[2, 3] count 6,",
                  "(probe) dump y[1] %s\nwrote %s (float32[3])\n" % (npy, npy),
                  "(probe) l\n" + lines + "\n",
                  "(probe) w\n  #2 op block", "(probe) bt\n  #2 op block", "(probe) where\n  #2 op block",
                  "(probe) up\n> #1 op conv1 (Conv) seq 2, step 0\n(probe) u\n> #2 op block (Block) seq 1, step 0\n"
                  "(probe) d 1\n> #1 op conv1 (Conv) seq 2, step 0\n(probe) down\n> #0 " + where + "\n",
                  "(probe) p step\n7\n",
                  # after moving between frames, 'list' starts again around the line (as pdb)
                  "(probe) list\n  %d   \t" % (BASIC_LINE - 5),
                  "(probe) q\n"]:
        check("commands file, every command: %r" % piece[:40], piece in err, err)
    check("commands file, every command: q ends with status 3, stdin unread", rc == 3 and "(probe) p y\n" not in err,
          "rc=%d" % rc)
    check("commands file, every command: dump wrote the row", np.load(npy).tolist() == [4, 5, 6])

    rc, out, err = run("twice", "--probe_breakpoint_commands=" + os.path.join(tmp, "missing.txt"), b"")
    check("commands file missing: one message, the program goes on",
          rc == 0 and err.count("cannot read --probe_breakpoint_commands") == 1 and out == "after both\n", err)

    # ---- not a terminal, no flags: one line per stop, no files, the program goes on ----
    rc, out, err = run("loop", "", b"", env_extra={"TMPDIR": tmp})
    lines = err.splitlines()
    check("non-tty default: one line per stop", len(lines) == 3 and all(
        re.fullmatch(r"probe: breakpoint at %s:%d in run_loop\(\) \[thread \d+, tid \d+, step %d, hit %d\]: "
                     r"not at a terminal; continuing \(--probe_breakpoint=prompt stops here, "
                     r"--probe_breakpoint=dump writes its variables\)" % (re.escape(SOURCE), LOOP_LINE, k, k), l)
        for k, l in zip((1, 2, 3), lines)), err)
    check("non-tty default: no files", not [n for n in os.listdir(tmp) if n.startswith("probe_")], repr(os.listdir(tmp)))
    check("non-tty default: the program goes on", rc == 0 and out == "loop done\n", out)

    # earlier prints come first in the log, as before a prompt
    rc, out, err = run("printed", "", b"")
    order = [l.split(":")[0] if l.startswith("print") else "stop" for l in err.splitlines()]
    check("non-tty default: each print before its stop's line", rc == 0 and order == ["print 0", "stop", "print 1", "stop"],
          err)
    rc, out, err = run("printed", "--probe_breakpoint=trap", b"")
    order = [l.split(":")[0] if l.startswith("print") else "stop" for l in err.splitlines()]
    check("trap without a debugger: each print before its stop's line",
          rc == 0 and order == ["print 0", "stop", "print 1", "stop"], err)

    # ---- --probe_breakpoint=dump without a dump folder: the variables as npy under TMPDIR ----
    rc, out, err = run("basic", "--probe_breakpoint=dump", b"", env_extra={"TMPDIR": tmp})
    m = re.search(r"\]: wrote (\d+) variables? to (\S+)\n", err)
    check("dump mode: message", rc == 0 and m is not None, err)
    if m:
        folder = m.group(2)
        check("dump mode: under TMPDIR", folder.startswith(tmp), folder)
        y = np.load(os.path.join(folder, "f0.y.npy"))
        step = np.load(os.path.join(folder, "f0.step.npy"))
        check("dump mode: y.npy", y.dtype == np.float32 and y.tolist() == [[1, 2, 3], [4, 5, 6]], repr(y))
        check("dump mode: step.npy", step.dtype == np.int32 and step.shape == () and int(step) == 7, repr(step))
        with open(os.path.join(folder, "frames.txt")) as f:
            frames = f.read()
        check("dump mode: frames.txt", ("#0 " + where) in frames and "f0.y.npy" in frames, frames)
        check("dump mode: the program goes on", out == "after the breakpoint\n", out)

    # ---- with a dump directory, the breakpoint's files go under it, op frames included ----
    dump = os.path.join(tmp, "dump")
    rc, out, err = run("basic", "--probe_breakpoint=dump --probe_dump_to=%s --probe_dump_stats_only" % dump, b"")
    m = re.search(r"\]: wrote (\d+) variables to (\S+)\n", err)
    check("dump dir: used", rc == 0 and m is not None and m.group(2).startswith(os.path.join(dump, "breakpoints")), err)
    if m:
        names = sorted(os.listdir(m.group(2)))
        check("dump dir: every frame's variables", names == ["f0.step.npy", "f0.y.npy", "f1.out.npy", "f2.x.npy",
                                                            "frames.txt"], repr(names))
        check("dump dir: op tensor values", np.load(os.path.join(m.group(2), "f2.x.npy")).shape == (2, 3))

    # ---- a 'breakpoints' link planted in the dump folder leads nowhere ----
    planted, elsewhere = os.path.join(tmp, "planted"), os.path.join(tmp, "elsewhere")
    os.makedirs(planted)
    os.makedirs(elsewhere)
    os.symlink(elsewhere, os.path.join(planted, "breakpoints"))
    rc, out, err = run("basic", "--probe_breakpoint=dump --probe_dump_to=%s --probe_dump_stats_only" % planted, b"")
    check("planted link: nothing written through it", os.listdir(elsewhere) == [], repr(os.listdir(elsewhere)))
    check("planted link: one message, the program goes on",
          "cannot create" in err and "Too many levels of symbolic links" in err and rc == 0 and
          out == "after the breakpoint\n", err)
finally:
    shutil.rmtree(tmp)

# ---- a real terminal: `script` runs the program on a pty; no flags: auto means the prompt ----
if shutil.which("script"):
    env = dict(os.environ, PROBE_FLAGS="", TERM="dumb")
    p = subprocess.run(["script", "-qec", "%s basic" % PROGRAM, "/dev/null"], input=b"p y[0]\nw\nc\n",
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=60)
    text = p.stdout.decode(errors="replace").replace("\r\n", "\n")
    check("pty: prompt mode on a terminal", p.returncode == 0 and "(probe) " in text and "[1. 2. 3.]" in text and
          "> #0 " + where in text and "after the breakpoint" in text and "wrote" not in text, text)
else:
    check("pty: util-linux script is installed", False, "script not found")

# ---- a real terminal: Ctrl-D leaves one stop; the next stop reads the terminal again ----
def pty_session(args, answers, timeout=60):
    """Runs args on a pty; at the n-th prompt types answers[n-1]. Returns (output, status)."""
    import pty
    import select
    import time
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["PROBE_FLAGS"] = ""
        os.environ["TERM"] = "dumb"
        os.execv(args[0], args)
    out, answered, end = b"", 0, time.time() + timeout
    while time.time() < end:
        if answered < len(answers) and out.count(b"(probe) ") > answered:
            os.write(fd, answers[answered])
            answered += 1
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the program ended: the terminal is gone
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return out.decode(errors="replace").replace("\r\n", "\n"), status


text, status = pty_session([PROGRAM, "loop"], [b"\x04", b"p i\n", b"c\n", b"c\n"])
check("pty: after Ctrl-D at one stop, the next stop prompts again",
      os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and text.count("end of input") == 1 and
      re.search(r"\(probe\) p i\n2\n", text) is not None and "loop done" in text, text)

# ---- trap: gdb stops inside the breakpoint; without a debugger, a message ----
rc, out, err = run("basic", "--probe_breakpoint=trap")
check("trap without a debugger: message and go on",
      rc == 0 and "no debugger attached" in err and out == "after the breakpoint\n", err)
if shutil.which("gdb"):
    env = dict(os.environ, PROBE_FLAGS="--probe_breakpoint=trap")
    p = subprocess.run(["gdb", "-nx", "-batch", "-ex", "run", "-ex", "bt", "--args", PROGRAM, "basic"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=120)
    text = p.stdout.decode(errors="replace")
    check("trap under gdb: stopped by SIGTRAP", "SIGTRAP" in text and "raising SIGTRAP for the debugger" in text, text)
    # probe's own frame with or without its debug information (a Release libprobe.a shows
    # "breakpoint_hit(char const*, ...) ()"), then the marked line.
    check("trap under gdb: the backtrace shows the breakpoint's frame",
          re.search(r"breakpoint_hit\b.*\n.*run_basic.*%s:%d" % (re.escape(SRC), BASIC_LINE), text) is not None, text)
else:
    check("gdb is installed", False, "gdb not found")

# ---- abort and off ----
rc, out, err = run("basic", "--probe_breakpoint=abort")
check("abort: SIGABRT with a message", rc == -signal.SIGABRT and "aborting (--probe_breakpoint=abort)" in err,
      "rc=%d %s" % (rc, err))
rc, out, err = run("basic", "--probe_breakpoint=off", b"p y\n")
check("off: nothing happens", rc == 0 and err == "" and out == "after the breakpoint\n", "rc=%d %r" % (rc, err))

# ---- two threads: one at a time in the prompt, each session whole, thread ids shown ----
rc, out, err = run("threads", "--probe_breakpoint=prompt", b"p t\nc\np t\nc\n")
sessions = re.findall(r"probe: breakpoint at [^\n]* \[thread (\d+), tid (\d+), step 0, hit \d\]; 'help' lists the commands\n"
                      r"-> [^\n]*\n\(probe\) p t\n(\d+)\n\(probe\) c\n", err)
check("threads: two whole sessions", len(sessions) == 2 and sorted(s[2] for s in sessions) == ["100", "101"], err)
check("threads: different threads", len(sessions) == 2 and sessions[0][1] != sessions[1][1], repr(sessions))
check("threads: the program goes on", rc == 0 and out == "threads done\n", out)

# ---- non-finite: the first op output holding NaN/Inf, once; integer outputs ignored ----
rc, out, err = run("nonfinite_ops", "--probe_break_on_nonfinite --probe_breakpoint=prompt", b"w\np y\nu\np x\nc\n")
check("nonfinite ops: stops once, at op2",
      err.count("'help' lists the commands") == 1 and
      "probe: non-finite values in output 'y' of op op2 (Mul) seq 2, step 0: 0 NaN, 1 +Inf, 0 -Inf among 2 "
      "elements (the first such output; later ones are not reported)" in err, err)
check("nonfinite ops: frames",
      "  #1 op op2 (Mul) seq 2, step 0\n> #0 non-finite output 'y' of op op2\n" in err and
      "(probe) p y\n[ 4. inf]\n" in err and "(probe) p x\n[2. 3.]\n" in err, err)
check("nonfinite ops: the program goes on", rc == 0 and out == "ops done\n", out)
rc, out, err = run("nonfinite_ops", "--probe_breakpoint=prompt", b"c\n")
check("nonfinite ops: off without the flag", rc == 0 and "non-finite" not in err, err)

# ---- |value| above a limit: the first op output, once; print arguments too ----
rc, out, err = run("large", "--probe_break_on_abs_above=100 --probe_breakpoint=prompt", b"w\np y\nc\n")
check("abs_above: stops once, at the first output above the limit",
      err.count("'help' lists the commands") == 1 and
      "probe: |value| above 100 in output 'y' of op grow (Mul) seq 2, step 2: largest magnitude 150, min -75, max 150 "
      "(the first such value; later ones are not reported) [thread 0, tid" in err and ", step 2]" in err, err)
check("abs_above: frames", "  #1 op grow (Mul) seq 2, step 2\n> #0 large value in output 'y' of op grow (Mul) seq 2, "
      "step 2\n" in err and "(probe) p y\n[150. -75.]\n" in err, err)
check("abs_above: the program goes on", rc == 0 and out == "large done\n", out)
rc, out, err = run("large", "--probe_break_on_abs_above=1e6 --probe_breakpoint=prompt", b"p arg1\nc\n")
check("abs_above: a print argument",
      err.count("'help' lists the commands") == 1 and
      "probe: |value| above 1000000 in argument 1 of probe::print(\"big {} {}\"): largest magnitude 2000000" in err and
      "(probe) p arg1\n-2000000.0\n" in err and rc == 0, err)
rc, out, err = run("large", "--probe_break_on_abs_above=lots --probe_breakpoint=prompt", b"")
check("abs_above: a bad limit is one message, no stop",
      err.count("--probe_break_on_abs_above=lots: expected a number >= 0; the check is off") == 1 and
      "(probe)" not in err and rc == 0, err)

rc, out, err = run("nonfinite_check", "--probe_breakpoint=prompt", b"p bad\nc\n")
check("breakpoint_if_nonfinite: only the tensor with NaN/Inf",
      err.count("'help' lists the commands") == 1 and
      ("probe: 'bad' holds non-finite values (1 NaN, 0 +Inf, 1 -Inf among 3 elements) at %s:%d in run_nonfinite_check()"
       % (SOURCE, NONFINITE_LINE)) in err and "(probe) p bad\n[  1.  nan -inf]\n" in err, err)
check("breakpoint_if_nonfinite: the program goes on", rc == 0 and out == "checks done\n", out)
rc, out, err = run("nonfinite_loop", "--probe_breakpoint=prompt", b"c\n")
check("breakpoint_if_nonfinite: every arrival counts as a hit (NaN at the third: hit 3)",
      err.count("'help' lists the commands") == 1 and ", hit 3]; 'help'" in err and rc == 0 and
      out == "loop done\n", err)

# ---- --probe_help in PROBE_FLAGS: the flag table on stdout, exit 0, the program does not run ----
rc, out, err = run("basic", "--probe_help --probe_breakpoint=prompt", b"c\n")
check("--probe_help: table, exit 0, nothing else",
      rc == 0 and "--probe_break_if=VALUE" in out and "--probe_breakpoint=MODE" in out and
      "after the breakpoint" not in out and "(probe)" not in err, "rc=%d out=%r err=%r" % (rc, out[:200], err))

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
