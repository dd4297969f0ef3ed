"""numpy's side of the .npy interop tests (run by test_npy_interop).

  npy_interop.py check DIR   load every DIR/*.npy that probe wrote and compare it with the
                             expectation probe wrote next to it (DIR/expect.txt + NAME.bin)
  npy_interop.py write DIR   write arrays for probe to read: NAME.npy, NAME.bin (the expected
                             C-order, native-byte-order bytes), and DIR/expect.txt

expect.txt lines: NAME DTYPE SHAPE, with DTYPE probe's dtype name and SHAPE comma-separated
("-" for 0-d).
"""
import os
import sys

import numpy as np

PROBE_TO_NUMPY = {
    "bool": "?", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8",
    "uint8": "u1", "uint16": "u2", "uint32": "u4", "uint64": "u8",
    "float16": "f2", "float32": "f4", "float64": "f8",
    "complex64": "c8", "complex128": "c16",
}


def parse_shape(text):
    return () if text == "-" else tuple(int(x) for x in text.split(","))


def check(directory):
    failures = []
    with open(os.path.join(directory, "expect.txt")) as f:
        entries = [line.split() for line in f if line.strip()]
    for name, dtype, shape in entries:
        path = os.path.join(directory, name + ".npy")
        try:
            a = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - report any load failure
            failures.append(f"{name}: numpy cannot load it: {e}")
            continue
        if a.shape != parse_shape(shape):
            failures.append(f"{name}: shape {a.shape}, expected {shape}")
        if dtype == "bfloat16":
            if a.dtype.names != ("bfloat16",) or a.dtype["bfloat16"] != np.dtype("=u2"):
                failures.append(f"{name}: bfloat16 stored as {a.dtype}")
        elif a.dtype != np.dtype("=" + PROBE_TO_NUMPY[dtype]):
            failures.append(f"{name}: dtype {a.dtype}, expected {dtype}")
        with open(os.path.join(directory, name + ".bin"), "rb") as f:
            expected = f.read()
        if np.ascontiguousarray(a).tobytes() != expected:
            failures.append(f"{name}: values differ from what probe was given")
        with open(path, "rb") as f:
            head = f.read(12)
        major = head[6]
        length = int.from_bytes(head[8:10], "little") if major == 1 else int.from_bytes(head[8:12], "little")
        offset = (10 if major == 1 else 12) + length
        if offset % 64 != 0:
            failures.append(f"{name}: data starts at {offset}, not a multiple of 64")
    for line in failures:
        print("FAIL", line)
    print(f"checked {len(entries)} files, {len(failures)} failures")
    return 1 if failures else 0


def write(directory):
    rng = np.random.default_rng(11)
    arrays = {}

    def ints(dtype, shape):
        native = np.dtype(dtype).newbyteorder("=")
        info = np.iinfo(native)
        return rng.integers(info.min, info.max, size=shape, dtype=native, endpoint=True).astype(dtype)

    for t in ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]:
        arrays["int_" + t] = ints(t, (3, 5))
    arrays["big_endian_i8"] = ints(">i8", (4, 3))
    arrays["big_endian_u2"] = ints(">u2", (7,))
    arrays["bool"] = rng.integers(0, 2, size=(6, 2)).astype(bool)
    f32 = rng.standard_normal((4, 6)).astype("f4")
    arrays["f4"] = f32
    arrays["big_endian_f4"] = f32.astype(">f4")
    arrays["f8"] = rng.standard_normal((2, 3, 4))
    arrays["big_endian_f8"] = rng.standard_normal(9).astype(">f8")
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 6e-8, -6.1e-5, 65504.0, 1.0 / 3]
    arrays["f2"] = np.array(specials, dtype="f2")
    arrays["big_endian_f2"] = np.array(specials, dtype=">f2")
    arrays["c8"] = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype("c8")
    arrays["big_endian_c16"] = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(">c16")
    arrays["fortran_2d"] = np.asfortranarray(rng.standard_normal((3, 7)).astype("f4"))
    arrays["fortran_3d"] = np.asfortranarray(ints("i4", (2, 3, 4)))
    arrays["fortran_big_endian_c8"] = np.asfortranarray(
        (rng.standard_normal((4, 3)) + 1j).astype(">c8"))
    arrays["zero_d"] = np.array(2.5, dtype="f8")
    arrays["zero_d_int"] = np.array(-7, dtype="i2")
    arrays["empty"] = np.zeros((0,), dtype="f4")
    arrays["empty_2d"] = np.zeros((2, 0, 3), dtype="i8")
    arrays["eight_dims"] = ints("u1", (1, 2, 1, 2, 1, 2, 1, 2))
    bf = np.zeros(6, dtype=[("bfloat16", "<u2")])
    bf["bfloat16"] = [0x3F80, 0xC000, 0x7F80, 0x0001, 0x7FC0, 0x8000]
    arrays["bfloat16"] = bf
    bf_be = np.zeros((2, 2), dtype=[("bfloat16", ">u2")])
    bf_be["bfloat16"] = [[0x3F80, 0x4000], [0x4040, 0x4080]]
    arrays["bfloat16_big_endian"] = bf_be
    # Conversion cross-check: float32 bit patterns and numpy's float16 of them.
    bits = rng.integers(0, 2**32, size=20000, dtype=np.uint64).astype(np.uint32)
    bits[:4] = [0x477FF000, 0x477FEFFF, 0x33000000, 0x33000001]  # overflow and underflow ties
    as_f32 = bits.view(np.float32)
    arrays["half_source"] = as_f32
    with np.errstate(over="ignore", invalid="ignore"):
        arrays["half_numpy"] = as_f32.astype(np.float16)

    versions = {"v2_header": (2, 0), "v3_header": (3, 0)}
    arrays["v2_header"] = rng.standard_normal((2, 2)).astype("f4")
    arrays["v3_header"] = ints("i2", (3,))

    lines = []
    for name, a in arrays.items():
        path = os.path.join(directory, name + ".npy")
        if name in versions:
            with open(path, "wb") as f:
                np.lib.format.write_array(f, a, version=versions[name])
        else:
            np.save(path, a)
        if a.dtype.names == ("bfloat16",):
            probe_dtype = "bfloat16"
            native = np.ascontiguousarray(a["bfloat16"]).astype("=u2")
        else:
            native = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("="))
            probe_dtype = {v: k for k, v in PROBE_TO_NUMPY.items()}[
                a.dtype.kind.replace("b", "?") + ("" if a.dtype.kind == "b" else str(a.dtype.itemsize))]
        with open(os.path.join(directory, name + ".bin"), "wb") as f:
            f.write(native.tobytes())
        shape = ",".join(str(d) for d in a.shape) or "-"
        lines.append(f"{name} {probe_dtype} {shape}\n")
    with open(os.path.join(directory, "expect.txt"), "w") as f:
        f.writelines(lines)
    print(f"wrote {len(lines)} arrays")
    return 0


if __name__ == "__main__":
    mode, directory = sys.argv[1], sys.argv[2]
    sys.exit(check(directory) if mode == "check" else write(directory))
