"""Checks probe's shortest float text against Python and numpy.

Each input line is "<kind> <hex bits> <text>": kind d (double) compared with repr(float),
f (float32) with str(numpy.float32), h (float16) with str(numpy.float16) -- all three print
the shortest decimal that reads back to the same value. Prints mismatches and a summary line
"compared N mismatched K"; exits 1 on any mismatch.
"""
import struct
import sys

import numpy as np


def expected(kind, bits):
    if kind == 'd':
        return repr(struct.unpack('<d', bytes.fromhex(bits)[::-1])[0])
    if kind == 'f':
        return str(np.frombuffer(bytes.fromhex(bits)[::-1], dtype='<f4')[0])
    return str(np.frombuffer(bytes.fromhex(bits)[::-1], dtype='<f2')[0])


def main(path):
    compared = mismatched = 0
    with open(path) as f:
        for line in f:
            kind, bits, text = line.split()
            want = expected(kind, bits)
            compared += 1
            if want != text:
                mismatched += 1
                if mismatched <= 20:
                    print(f'MISMATCH {kind} {bits}: python/numpy {want!r} probe {text!r}')
    print(f'compared {compared} mismatched {mismatched}')
    return 1 if mismatched else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
