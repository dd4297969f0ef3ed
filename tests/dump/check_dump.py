"""Checks a probe dump directory the way its users' tools read it.

usage: check_dump.py DIR [EXPECT.json]

- every manifest line parses as JSON on its own; the first record is "run";
- every tensor record has the contract's fields, and its key is "<op>#<occurrence>/<io>/<slot>";
- every file named in the manifest loads with numpy, with the manifest's dtype and shape, and
  the manifest's health stats agree with numpy's over the loaded values; a record with
  "same_as" instead of "file" names an earlier file holding the same bytes (same hash);
- a record's "hash" is the content hash (util/hash.hpp, recomputed here) of the file's data;
- no tensor file exists under a final name without a manifest record (no partial files);
- EXPECT (optional) is {"edges": {consumer_key: producer_key_or_null}, "records": N,
  "end": true|false, "files": true|false, "killed": true|false, "max_unlisted": N}.
Exit 0 when everything holds; otherwise the first problem is printed and the exit code is 1.
"""
import json
import math
import os
import sys

import numpy as np

FIELDS = ("record", "seq", "step", "op", "type", "occurrence", "io", "slot", "key", "producer",
          "dtype", "shape", "strides", "stats", "thread", "wall_time", "parent", "stage")

M64 = (1 << 64) - 1
K_MUL = 0xff51afd7ed558ccd


def _fold(h):
    h ^= h >> 33
    h = (h * 0xc4ceb9fe1a85ec53) & M64
    h ^= h >> 29
    h = (h * K_MUL) & M64
    return h ^ (h >> 32)


def content_hash(data):
    """probe's content hash (include/probe/util/hash.hpp), written again from its description."""
    lanes = [0x243f6a8885a308d3, 0x13198a2e03707344, 0xa4093822299f31d0, 0x082efa98ec4e6c89]
    n = len(data)
    full = n // 32 * 32
    words = np.frombuffer(data[:full], dtype="<u8").tolist()
    for i in range(0, len(words), 4):
        for k in range(4):
            v = ((lanes[k] ^ words[i + k]) * K_MUL) & M64
            lanes[k] = v ^ (v >> 29)
    h = ((n * K_MUL) & M64) ^ 0x9e3779b97f4a7c15
    for i in range(4):
        h = _fold(h ^ _fold((lanes[i] + i) & M64))
    tail = data[full:]
    i = 0
    while i + 8 <= len(tail):
        h = _fold(h ^ int.from_bytes(tail[i:i + 8], "little"))
        i += 8
    if i < len(tail):
        rest = len(tail) - i
        h = _fold(h ^ int.from_bytes(tail[i:], "little") ^ (rest << 59))
    return "%016x" % _fold(h)


def npy_data(path):
    """The data bytes of a .npy file (after its header)."""
    raw = open(path, "rb").read()
    major = raw[6]
    hlen = int.from_bytes(raw[8:10], "little") if major == 1 else int.from_bytes(raw[8:12], "little")
    return raw[(10 if major == 1 else 12) + hlen:]


def fail(msg):
    print("check_dump: " + msg)
    sys.exit(1)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)


def check_stats(rec, arr):
    st = rec["stats"]
    if st is None:
        fail("no stats for %s" % rec["key"])
    values = arr
    if values.dtype.names:  # bfloat16 stored as a structured array
        u = values[values.dtype.names[0]].astype(np.uint32) << 16
        values = u.view(np.float32)
    if np.iscomplexobj(values):
        values = np.concatenate([values.real.ravel(), values.imag.ravel()])
    values = values.astype(np.float64).ravel()
    finite = values[np.isfinite(values)]
    if st["count"] != arr.size:
        fail("%s: count %s, numpy sees %d" % (rec["key"], st["count"], arr.size))
    if st["nan"] != int(np.isnan(values).sum()):
        fail("%s: nan count %s" % (rec["key"], st["nan"]))
    if st["posinf"] != int(np.isposinf(values).sum()) or st["neginf"] != int(np.isneginf(values).sum()):
        fail("%s: inf counts" % rec["key"])
    if finite.size:
        for name, want in (("min", finite.min()), ("max", finite.max()), ("mean", finite.mean()),
                           ("std", finite.std())):
            if not close(st[name], float(want)):
                fail("%s: %s %r, numpy %r" % (rec["key"], name, st[name], want))


def main():
    d = sys.argv[1]
    expect = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else {}
    lines = open(os.path.join(d, "manifest.jsonl"), "rb").read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    records = []
    for i, line in enumerate(lines):
        try:
            records.append(json.loads(line))
        except ValueError as e:
            fail("manifest line %d does not parse: %s: %r" % (i + 1, e, line[:120]))
    if not records or records[0].get("record") != "run":
        fail("the first manifest record is not the run record")
    tensors = [r for r in records if r.get("record") == "tensor"]
    named = set()
    hashes = {}
    for r in tensors:
        for f in FIELDS:
            if f not in r:
                fail("record %s lacks %r" % (r.get("key"), f))
        want_key = "%s#%d/%s/%s" % (r["op"], r["occurrence"], r["io"], r["slot"])
        if r["key"] != want_key:
            fail("key %r, expected %r" % (r["key"], want_key))
        if "file" not in r and "same_as" not in r:
            fail("record %s has neither 'file' nor 'same_as'" % r["key"])
        if r.get("same_as") and "file" in r:
            fail("record %s has both 'file' and 'same_as'" % r["key"])
        if r.get("file"):
            path = os.path.join(d, r["file"])
            named.add(r["file"])
            if "hash" in r and os.path.getsize(path) <= (1 << 20):
                got = content_hash(npy_data(path))
                if got != r["hash"]:
                    fail("%s: hash %s, the file's data hashes to %s" % (r["key"], r["hash"], got))
            hashes[r["file"]] = r.get("hash")
            arr = np.load(path)
            if list(arr.shape) != r["shape"]:
                fail("%s: shape %s, manifest %s" % (path, arr.shape, r["shape"]))
            if r["dtype"] != "bfloat16" and arr.dtype != np.dtype(r["dtype"]):
                fail("%s: dtype %s, manifest %s" % (path, arr.dtype, r["dtype"]))
            check_stats(r, arr)
    # Files are written by several threads: the line naming a file may come after one that
    # refers to it.
    for r in tensors:
        if r.get("same_as"):
            if r["same_as"] not in named:
                fail("%s: same_as %r names no file of the dump" % (r["key"], r["same_as"]))
            if r.get("hash") != hashes.get(r["same_as"]):
                fail("%s: hash %s differs from %s's" % (r["key"], r.get("hash"), r["same_as"]))
    # A process killed between renaming a file into place and appending its line leaves one
    # whole file the manifest does not list per thread writing files ("killed": true allows
    # one, "max_unlisted" more, and each must load).
    unlisted = [n for n in os.listdir(d) if n.endswith(".npy") and n not in named]
    if len(unlisted) > (expect.get("max_unlisted", 1) if expect.get("killed") else 0):
        fail("files without a manifest record: %s" % unlisted)
    for name in unlisted:
        np.load(os.path.join(d, name))
    if "records" in expect and len(tensors) != expect["records"]:
        fail("%d tensor records, expected %d" % (len(tensors), expect["records"]))
    if "files" in expect and expect["files"] != bool(named):
        fail("files written: %s, expected %s" % (bool(named), expect["files"]))
    if "end" in expect and expect["end"] != (records[-1].get("record") == "end"):
        fail("end record present: %s, expected %s" % (records[-1].get("record") == "end", expect["end"]))
    producers = {r["key"]: r["producer"] for r in tensors if r["io"] == "in"}
    for consumer, producer in expect.get("edges", {}).items():
        if consumer not in producers:
            fail("no input record %s" % consumer)
        if producers[consumer] != producer:
            fail("%s comes from %r, expected %r" % (consumer, producers[consumer], producer))
    seqs = [r["seq"] for r in tensors]
    print("check_dump: ok, %d tensor records, %d files" % (len(tensors), len(named)))


if __name__ == "__main__":
    main()
