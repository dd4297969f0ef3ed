#!/usr/bin/env python3
"""Checks a probe dump folder's integrity, as a crash, a full disk or a hostile folder may
have left it. Needs nothing outside the standard library.

usage: check_dump.py DIR [--no-files] [--quiet]

- manifest.jsonl is a regular file (not a link) of whole lines: it ends with a newline and
  every line is one JSON object with a "record" field; the first record is "run";
- no two tensor records share a key, and every key is "<op>#<occurrence>/<io>/<slot>";
- every file a record names is a plain name (no '/', no '..'), a regular file inside DIR
  (not a link), and a complete .npy whose header's dtype and shape are the record's and
  whose size is the header plus shape x item size;
- every snapshots/*/snapshot.json (in real folders, links are not followed) parses, and the
  files it names are complete .npy files inside its folder; an implicit input (no file,
  "prior") names pieces of sibling snapshots' files that lie within their data;
- every folder under DIR holding a manifest (forked children's and other processes' private
  folders, rank folders) is checked the same way.
Exit 0 when everything holds, 1 with the problems listed otherwise, 2 on bad usage.
"""
import ast
import json
import os
import stat
import sys

ITEM = {"bool": ("b1", 1), "int8": ("i1", 1), "uint8": ("u1", 1), "int16": ("i2", 2),
        "uint16": ("u2", 2), "int32": ("i4", 4), "uint32": ("u4", 4), "int64": ("i8", 8),
        "uint64": ("u8", 8), "float16": ("f2", 2), "float32": ("f4", 4), "float64": ("f8", 8),
        "complex64": ("c8", 8), "complex128": ("c16", 16), "bfloat16": ("bfloat16", 2)}

problems = []


def problem(msg):
    problems.append(msg)


def inside(root, path):
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root + os.sep)


def npy_header(path):
    """(descr code, shape, data offset) of a .npy file, or raises ValueError."""
    with open(path, "rb") as f:
        head = f.read(12)
        if len(head) < 10 or head[:6] != b"\x93NUMPY":
            raise ValueError("not a .npy file")
        major = head[6]
        if major == 1:
            hlen = int.from_bytes(head[8:10], "little")
            off = 10
        else:
            hlen = int.from_bytes(head[8:12], "little")
            off = 12
        f.seek(off)
        text = f.read(hlen)
        if len(text) != hlen:
            raise ValueError("header cut short")
    d = ast.literal_eval(text.decode("latin1"))
    descr = d["descr"]
    if isinstance(descr, list):  # probe's structured bfloat16
        code = descr[0][0]
    else:
        code = descr.lstrip("<>|=")
    return code, tuple(d["shape"]), off + hlen


def check_npy(root, folder, name, dtype, shape, where):
    if not name or "/" in name or name in (".", ".."):
        problem("%s: file name %r could leave its folder" % (where, name))
        return
    path = os.path.join(folder, name)
    try:
        st = os.lstat(path)
    except OSError as e:
        problem("%s: %s is missing (%s)" % (where, name, e.strerror))
        return
    if not stat.S_ISREG(st.st_mode):
        problem("%s: %s is not a regular file" % (where, name))
        return
    if not inside(root, path):
        problem("%s: %s lies outside %s" % (where, name, root))
        return
    try:
        code, fshape, off = npy_header(path)
    except (ValueError, SyntaxError, KeyError, OSError) as e:
        problem("%s: %s has a bad header (%s)" % (where, name, e))
        return
    want = ITEM.get(dtype)
    if want and code != want[0]:
        problem("%s: %s holds %s, the record says %s" % (where, name, code, dtype))
    if shape is not None and list(fshape) != list(shape):
        problem("%s: %s has shape %s, the record says %s" % (where, name, list(fshape), shape))
    if want:
        n = 1
        for s in fshape:
            n *= s
        if st.st_size != off + n * want[1]:
            problem("%s: %s is %d bytes, a complete file is %d" % (where, name, st.st_size, off + n * want[1]))


def check_manifest(root, folder):
    path = os.path.join(folder, "manifest.jsonl")
    where = os.path.relpath(path, root)
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        problem("%s is not a regular file" % where)
        return
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        problem("%s: the last line is not whole" % where)
    keys = set()
    for i, raw in enumerate(data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"), 1):
        try:
            rec = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            problem("%s:%d: not a JSON object" % (where, i))
            continue
        if not isinstance(rec, dict) or "record" not in rec:
            problem("%s:%d: not a record" % (where, i))
            continue
        if i == 1 and rec["record"] != "run":
            problem("%s:1: the first record is %r, not the run record" % (where, rec["record"]))
        if rec["record"] != "tensor":
            continue
        key = rec.get("key")
        want = "%s#%s/%s/%s" % (rec.get("op"), rec.get("occurrence"), rec.get("io"), rec.get("slot"))
        if key != want:
            problem("%s:%d: key %r is not %r" % (where, i, key, want))
        if key in keys:
            problem("%s:%d: key %r appears twice" % (where, i, key))
        keys.add(key)
        if rec.get("file"):
            check_npy(root, folder, rec["file"], rec.get("dtype"), rec.get("shape"), "%s:%d" % (where, i))


def check_snapshots(root, folder):
    snaps = os.path.join(folder, "snapshots")
    if not os.path.isdir(snaps) or os.path.islink(snaps):
        return
    for entry in sorted(os.listdir(snaps)):
        one = os.path.join(snaps, entry)
        if os.path.islink(one) or not os.path.isdir(one):
            continue
        meta = os.path.join(one, "snapshot.json")
        where = os.path.relpath(meta, root)
        if not os.path.lexists(meta):
            continue  # the op had not received a tensor yet
        try:
            with open(meta, "rb") as f:
                snap = json.loads(f.read().decode("utf-8"))
        except (ValueError, UnicodeDecodeError, OSError) as e:
            problem("%s: not JSON (%s)" % (where, e))
            continue
        for t in snap.get("inputs", []) + snap.get("outputs", []):
            if "file" not in t and t.get("prior") in ("producers", "unknown"):
                check_pieces(root, snaps, t, where)  # an implicit input: no file of its own
                continue
            check_npy(root, one, t.get("file"), t.get("dtype"), t.get("shape"), where)


def check_pieces(root, snaps, t, where):
    """An implicit input's prior state: byte ranges of sibling snapshots' output files."""
    for piece in t.get("pieces", []):
        name = piece.get("file")
        parts = name.split("/") if isinstance(name, str) else []
        if len(parts) != 2 or any(p in ("", ".", "..") for p in parts):
            problem("%s: piece file %r could leave the snapshots folder" % (where, name))
            continue
        path = os.path.join(snaps, *parts)
        if not os.path.lexists(path):
            continue  # a piece may name a file of a snapshot outside the dump filters
        if os.path.islink(path) or not os.path.isfile(path) or not inside(root, path):
            problem("%s: piece file %s is not a regular file inside the dump" % (where, name))
            continue
        try:
            _, _, off = npy_header(path)
        except (ValueError, SyntaxError, KeyError, OSError) as e:
            problem("%s: piece file %s has a bad header (%s)" % (where, name, e))
            continue
        at, size = piece.get("at"), piece.get("bytes")
        if not isinstance(at, int) or not isinstance(size, int) or at < 0 or size < 0 or \
                off + at + size > os.path.getsize(path):
            problem("%s: piece of %s (at %r, %r bytes) lies past its data" % (where, name, at, size))


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = args[0]
    if not os.path.isdir(root):
        print("check_dump: %s is not a folder" % root, file=sys.stderr)
        return 2
    found = 0
    for folder, dirs, files in os.walk(root):  # os.walk does not follow links
        if "manifest.jsonl" in files or (os.path.lexists(os.path.join(folder, "manifest.jsonl"))):
            found += 1
            check_manifest(root, folder)
            check_snapshots(root, folder)
        dirs[:] = [d for d in dirs if d != "snapshots"]
    if not found:
        problem("no manifest.jsonl under %s" % root)
    for p in problems:
        print("check_dump: " + p)
    if "--quiet" not in argv and not problems:
        print("check_dump: %s: %d manifest(s), all whole" % (root, found))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
