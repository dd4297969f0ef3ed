"""What the probe CLI costs: bisect-run sleeps (no busy wait) while its command runs with its
output closed; compare's memory does not grow by an error histogram per tensor pair; show
of a 2 GiB .npy reads only what it prints and the health block by block.

Loose bounds that only the faults they guard against break, not benchmarks: CPU time far
below wall time, peak RSS far below what holding the data would take (a higher bound under
AddressSanitizer, still far below that).

usage: cli_resources.py PATH/TO/probe
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

PROBE = sys.argv[1]
MiB = 1 << 20
with open(PROBE, "rb") as f:  # AddressSanitizer's shadow memory and quarantine add hundreds of MiB
    RSS_BOUND = (1024 if b"__asan_init" in f.read() else 200) * MiB
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# Runs a command and reports its exit status and wait4's rusage as JSON in the file argv[1].
# A small process of its own, without numpy: a child's peak RSS counts the memory of the
# process it was forked from, so probe is forked from this one, not from the test.
SPAWNER = r"""
import json, os, sys, time
start = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    json.dump({"code": os.waitstatus_to_exitcode(status), "wall": time.monotonic() - start,
               "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024}, f)
"""


def measured(*args, timeout=300):
    """Runs probe: exit code, stdout, stderr, wall seconds, CPU seconds and peak RSS in bytes
    of it and the children it waited for. A run past the timeout is killed: exit code -1."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".json") as report:
        p = subprocess.Popen([sys.executable, "-c", SPAWNER, report.name, PROBE, *args], stdout=out, stderr=err,
                             start_new_session=True)
        try:
            p.wait(timeout=timeout)
            usage = json.load(report)
        except (subprocess.TimeoutExpired, ValueError):
            os.killpg(p.pid, 9)
            p.wait()
            usage = {"code": -1, "wall": timeout, "cpu": 0, "rss": 0}
        out.seek(0)
        err.seek(0)
        return (usage["code"], out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                usage["wall"], usage["cpu"], usage["rss"])


with tempfile.TemporaryDirectory() as tmp:
    # --- bisect-run while the command runs with stdout and stderr closed: asleep, not spinning
    code, _, err, wall, cpu, _ = measured("bisect-run", "--crash", "--", "sh", "-c", "exec >&- 2>&-; sleep 2")
    check(code == 0, f"bisect-run --crash on a quiet command: exit {code}: {err}")
    check(wall >= 1.9 and cpu < 0.5, f"bisect-run waits without spinning: {cpu:.2f} s of CPU in {wall:.2f} s")
    code, _, err, wall, cpu, _ = measured("bisect-run", "--crash", "--timeout", "1.5", "--",
                                          "sh", "-c", "exec >&- 2>&-; sleep 30")
    check(code == 1 and "timed out" in err and wall < 10 and cpu < 0.5,
          f"--timeout with the output closed: exit {code}, {wall:.2f} s, {cpu:.2f} s of CPU: {err[-300:]}")

    # --- compare of many small tensors whose errors span many decades (each pair's error
    # histogram is widest then): memory stays flat
    pairs = 10000
    rng = np.random.default_rng(1)
    for side in ("a", "b"):
        folder = os.path.join(tmp, side)
        os.makedirs(folder)
        with open(os.path.join(folder, "manifest.jsonl"), "w") as m:
            m.write('{"record":"run"}\n')
            for i in range(pairs):
                x = (np.arange(1, 5) * 10.0 ** rng.integers(-30, 30, 4)).astype(np.float32)
                if side == "b":
                    x *= np.float32(1 + 1e-3 * (i % 7 + 1))
                f = f"t{i:06d}.npy"
                np.save(os.path.join(folder, f), x)
                m.write(json.dumps({"record": "tensor", "key": f"op{i}#0/out/y", "seq": i + 1, "io": "out",
                                    "op": f"op{i}", "type": "T", "occurrence": 0, "slot": "y", "dtype": "float32",
                                    "shape": [4], "file": f}) + "\n")
            m.write('{"record":"end"}\n')
    for check_mode in ("elementwise", "quantile:0.5"):
        code, out, err, wall, cpu, rss = measured("compare", "--quiet", "--check", check_mode, "--json", "-",
                                                  os.path.join(tmp, "a"), os.path.join(tmp, "b"))
        report = json.loads(out) if out.startswith("{") else {}
        check(code == 1 and report.get("summary", {}).get("tensors") == pairs,
              f"compare {pairs} pairs ({check_mode}): exit {code}, {err[-300:]}")
        check(rss < RSS_BOUND, f"compare {pairs} small pairs ({check_mode}): peak RSS {rss / MiB:.0f} MiB")
        print(f"compare {pairs} pairs ({check_mode}): peak RSS {rss / MiB:.0f} MiB")

    # --- show of a 2 GiB .npy (sparse: its data reads as zeros): a few pages printed, the
    # health read block by block
    big = os.path.join(tmp, "big.npy")
    count = (2 << 30) // 4
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1, np.float32))
    header["shape"] = (count,)
    with open(big, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.truncate(f.tell() + count * 4)
    big2d = os.path.join(tmp, "big2d.npy")  # 2-D and Fortran order: edges of both axes
    header["shape"], header["fortran_order"] = (32768, 16384), True
    with open(big2d, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.truncate(f.tell() + 32768 * 16384 * 4)
    for path, shape in ((big, f"float32[{count}]"), (big2d, "float32[32768,16384], Fortran order")):
        code, out, err, wall, cpu, rss = measured("show", path)
        check(code == 0 and shape in out and f"{count} values, nan 0" in out and "..." in out,
              f"show {os.path.basename(path)}: exit {code}: {out[:300]!r} {err[-300:]}")
        check(rss < RSS_BOUND, f"show {os.path.basename(path)}: peak RSS {rss / MiB:.0f} MiB")
        print(f"show {os.path.basename(path)}: peak RSS {rss / MiB:.0f} MiB")

    # the values shown are numpy's (small arrays of every layout, against numpy's own str)
    cases = {"c3d": np.arange(2 * 30 * 40, dtype=np.float32).reshape(2, 30, 40) / 7,
             "fortran": np.asfortranarray(np.arange(50 * 60, dtype=np.float64).reshape(50, 60) ** 1.5),
             "swapped": np.arange(3000, dtype=">i4") - 1500,
             "complex": (np.arange(1200) + 1j * np.arange(1200)[::-1]).astype(np.complex64),
             "small": np.array([[1.5, -2.25], [3.0, np.nan]]),
             "scalar": np.array(3.25)}
    for name, x in cases.items():
        path = os.path.join(tmp, name + ".npy")
        np.save(path, x)
        code, out, err = measured("show", path)[:3]
        with np.printoptions(threshold=1000):
            want = str(x)
        check(code == 0 and want in out, f"show {name} prints numpy's str:\n{out[:800]}\nwant\n{want[:800]}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("cli_resources: all checks passed")
