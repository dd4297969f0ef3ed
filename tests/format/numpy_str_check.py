"""Checks probe's numpy-style tensor text against numpy itself.

Reads a case file written by the C++ test (each case: dtype, shape, byte strides and offset
into a raw buffer, print options, and the text probe produced), rebuilds every array with
numpy over the same bytes, prints it with numpy and compares. Prints each mismatch and a
summary line "compared N skipped M mismatched K"; exits 1 on any mismatch.

Cases in 'f'/'e' float mode only mean "numpy's fixed floatmode in positional/scientific
notation"; numpy picks the notation itself, so cases where it picked the other are skipped.
"""
import sys

import numpy as np


def numpy_text(dtype, shape, strides, offset, base, precision, mode, sign_plus, threshold, edgeitems, linewidth):
    a = np.ndarray(shape, dtype=dtype, buffer=base, offset=offset, strides=strides)
    if precision < 0 and mode == 'g' and (not sign_plus or a.ndim == 0):
        with np.printoptions(threshold=threshold, edgeitems=edgeitems, linewidth=linewidth):
            return str(a), True
    text = np.array2string(
        a, max_line_width=linewidth, precision=8 if precision < 0 else precision,
        threshold=threshold, edgeitems=edgeitems,
        floatmode='maxprec' if mode == 'g' else 'fixed', sign='+' if sign_plus else '-')
    if mode in 'fe' and a.dtype.kind in 'fc' and a.size:
        if any(s != (mode == 'e') for s in numpy_notation(a, threshold, edgeitems, precision)):
            return text, False
    return text, True


def numpy_notation(a, threshold, edgeitems, precision):
    """Whether numpy prints each part (real, imaginary) of `a` in scientific notation."""
    from numpy.core import arrayprint as ap
    data = np.asarray(a)
    if data.size > threshold:
        data = ap._leading_trailing(data, edgeitems)
    parts = [data.real, data.imag] if data.dtype.kind == 'c' else [data]
    return [ap.FloatingFormat(p, precision, 'fixed', False, legacy=sys.maxsize).exp_format for p in parts]


def main(path):
    compared = skipped = mismatched = 0
    with open(path, 'rb') as f:
        lines = iter(f.read().split(b'\n'))
        for line in lines:
            if not line.startswith(b'case '):
                continue
            w = line.decode().split()
            name, dtype, ndim = w[1], w[2], int(w[3])
            shape = [int(x) for x in w[4:4 + ndim]]
            strides = [int(x) for x in w[4 + ndim:4 + 2 * ndim]]
            rest = w[4 + 2 * ndim:]
            offset, precision, mode = int(rest[0]), int(rest[1]), rest[2]
            sign_plus, threshold, edgeitems, linewidth = rest[3] == '1', int(rest[4]), int(rest[5]), int(rest[6])
            base = bytes.fromhex(next(lines).decode()[5:])
            size = int(next(lines).decode().split()[1])
            got = b''
            while len(got) < size:
                got += next(lines) + b'\n'
            got = got[:size].decode()
            if dtype == 'bfloat16':
                skipped += 1
                continue
            expect, applies = numpy_text(dtype, shape, strides, offset, base, precision, mode, sign_plus,
                                         threshold, edgeitems, linewidth)
            if not applies:
                skipped += 1
                continue
            compared += 1
            if got != expect:
                mismatched += 1
                if mismatched <= 20:
                    print(f'MISMATCH {name} {dtype} shape={shape} strides={strides} p={precision} mode={mode}'
                          f' sign_plus={sign_plus} threshold={threshold} edge={edgeitems} lw={linewidth}')
                    print('  numpy: ' + repr(expect))
                    print('  probe: ' + repr(got))
    print(f'compared {compared} skipped {skipped} mismatched {mismatched}')
    return 1 if mismatched else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
