"""The numpy baseline for bench_compare: what a user would script to compare two dumps.
For every tensor record of A's manifest that B has too, load both .npy files and compute
np.allclose and the maximum absolute error (numpy's default tolerance argument order:
a is the run, b the reference). Prints the number of mismatching tensors.

usage: compare_numpy.py A B [ATOL RTOL]
"""
import json
import os
import sys

import numpy as np


def records(folder):
    out = {}
    with open(os.path.join(folder, "manifest.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("record") == "tensor" and r.get("file"):
                out[r["key"]] = os.path.join(folder, r["file"])
    return out


a_dir, b_dir = sys.argv[1], sys.argv[2]
atol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
rtol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-5
a_files, b_files = records(a_dir), records(b_dir)
bad = 0
worst = 0.0
for key, fa in a_files.items():
    fb = b_files.get(key)
    if fb is None:
        continue
    a, b = np.load(fa), np.load(fb)
    if a.shape != b.shape:
        bad += 1
        continue
    if not np.allclose(a, b, rtol=rtol, atol=atol):
        bad += 1
    if a.size:
        worst = max(worst, float(np.max(np.abs(a - b))))
print(f"{bad} mismatching tensors, max abs error {worst:g}")
