"""probe bisect-run under a real `git bisect run`, in scratch repositories made here:

- speed: a C program printing `MLUPS: <value>` (noisy) that drops at a known commit, one
  earlier commit that does not compile (skipped): bisect must name the known commit;
- crash: a program that starts to segfault at a known commit (and aborts in later ones):
  bisect must name it, and must not stop early (a signal must never become an exit code
  above 127);
- exit codes of bisect-run itself for a failing build, a missing value and bad options.

usage: bisect_git.py PATH/TO/probe
"""
import os
import shutil
import subprocess
import sys
import tempfile

PROBE = os.path.abspath(sys.argv[1])
CC = shutil.which("cc") or shutil.which("gcc")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# The scratch repositories must not see the project's own git state or the user's config.
ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
ENV.update(GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", GIT_CEILING_DIRECTORIES="/")


def git(repo, *args, check_rc=True):
    p = subprocess.run(["git", *args], cwd=repo, env=ENV, capture_output=True, text=True)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr}")
    return p


def make_repo(root, name, sources):
    """sources: one C source per commit. Returns (repo, [commit ids])."""
    repo = os.path.join(root, name)
    os.mkdir(repo)
    ENV["HOME"] = root
    git(repo, "init", "-q")
    shas = []
    for i, src in enumerate(sources):
        with open(os.path.join(repo, "main.c"), "w") as f:
            f.write(f"/* version {i} */\n" + src)
        git(repo, "add", "main.c")
        git(repo, "commit", "-q", "-m", f"commit {i}")
        shas.append(git(repo, "rev-parse", "HEAD").stdout.strip())
    return repo, shas


def bisect(repo, good, bad, run_args):
    git(repo, "bisect", "start", bad, good)
    p = subprocess.run(["git", "bisect", "run", *run_args], cwd=repo, env=ENV, capture_output=True, text=True)
    first_bad = git(repo, "rev-parse", "refs/bisect/bad", check_rc=False).stdout.strip()
    log = git(repo, "bisect", "log").stdout
    git(repo, "bisect", "reset", "-q", check_rc=False)
    return p, first_bad, log


SPEED = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
  srand((unsigned)getpid());
  double noise = ((rand() % 2001) - 1000) / 100000.0;  /* +-1% */
  printf("lbm: grid 128^3\n");
  printf("MLUPS: %.2f\n", VALUE * (1 + noise));
  return 0;
}
"""

CRASH = r"""
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
int main(void) {
  printf("running\n");
  fflush(stdout);
  MODE
  return 0;
}
"""

with tempfile.TemporaryDirectory() as tmp:
    if not CC:
        print("no C compiler: cannot build the scratch programs")
        sys.exit(1)
    build = f"{CC} -O0 -o prog main.c"

    # --- speed regression at commit 12 of 16; commits 7 and 8 (where git bisect starts, halfway)
    # do not compile, so the bisect has to skip and still find commit 12
    sources = []
    for i in range(16):
        src = SPEED.replace("VALUE", "577.3" if i < 12 else "520.0")
        if i in (7, 8):
            src = src.replace("return 0;", "return 0  /* missing semicolon */")
        sources.append(src)
    repo, shas = make_repo(tmp, "speed", sources)
    p, first_bad, log = bisect(repo, shas[0], shas[15],
                               [PROBE, "bisect-run", "--build", build, "--metric", "MLUPS", "--good-value", "577.3",
                                "--bad-value", "520", "--repeat", "3", "--", "./prog"])
    check(p.returncode == 0, f"git bisect run finished (rc {p.returncode}):\n{p.stdout}\n{p.stderr}")
    check(first_bad == shas[12], f"first bad commit is commit 12: got {first_bad[:10]}, want {shas[12][:10]}")
    check(f"{shas[12]} is the first bad commit" in p.stdout, "git reports the first bad commit")
    check(f"# skip: [{shas[7]}]" in log or f"# skip: [{shas[8]}]" in log, f"a broken build was skipped:\n{log}")
    check("mean" in p.stderr and "t-test" in p.stderr, "decisions are logged with their samples")

    # the build failure is a skip (125), never good or bad
    git(repo, "checkout", "-q", shas[8])
    r = subprocess.run([PROBE, "bisect-run", "--build", build, "--metric", "MLUPS", "--good-value", "577.3",
                        "--bad-value", "520", "--", "./prog"], cwd=repo, env=ENV, capture_output=True, text=True)
    check(r.returncode == 125 and "build" in r.stderr, f"failed build: exit 125, got {r.returncode}")
    # commits around it get their decision
    for i, want in ((2, 0), (13, 1)):
        git(repo, "checkout", "-q", shas[i])
        r = subprocess.run([PROBE, "bisect-run", "--build", build, "--metric", "MLUPS", "--threshold", "0.05",
                            "--good-value", "577.3", "--", "./prog"], cwd=repo, env=ENV, capture_output=True, text=True)
        check(r.returncode == want, f"commit {i} with --threshold: exit {want}, got {r.returncode}: {r.stderr}")
    # no value at all: skip, with the program's output named
    r = subprocess.run([PROBE, "bisect-run", "--metric", "GFLOPS", "--good-value", "2", "--bad-value", "1", "--",
                        "./prog"], cwd=repo, env=ENV, capture_output=True, text=True)
    check(r.returncode == 125 and "no value" in r.stderr, f"missing value: exit 125, got {r.returncode}")
    # bad options stop the bisect rather than mark a commit
    r = subprocess.run([PROBE, "bisect-run", "--metric", "MLUPS", "--", "./prog"], cwd=repo, env=ENV,
                       capture_output=True, text=True)
    check(r.returncode == 128, f"bad options: exit 128, got {r.returncode}")
    git(repo, "checkout", "-q", shas[15])

    # --- crash regression: segfault from commit 5, abort from commit 8 on; 10 commits
    sources = []
    for i in range(10):
        mode = "" if i < 5 else ("{ volatile int *p = 0; *p = 1; }" if i < 8 else "abort();")
        sources.append(CRASH.replace("MODE", mode))
    repo, shas = make_repo(tmp, "crash", sources)
    p, first_bad, log = bisect(repo, shas[0], shas[9],
                               [PROBE, "bisect-run", "--crash", "--build", build, "--", "./prog"])
    check(p.returncode == 0, f"crash bisect finished (rc {p.returncode}):\n{p.stdout}\n{p.stderr}")
    check(first_bad == shas[5], f"first crashing commit is commit 5: got {first_bad[:10]}, want {shas[5][:10]}")
    check("SIGSEGV" in p.stderr or "SIGABRT" in p.stderr, "the signal is named in the log")
    check("bisect run failed" not in p.stderr, "git bisect run was never aborted")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("bisect_git: all checks passed")
