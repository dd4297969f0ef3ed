"""Python's json module against probe's JSON writer and reader.

  json_check.py writer FILE      FILE was written by probe's writer: every record must load
                                 and hold the value the C++ side meant (see test_json.cpp)
  json_check.py make FILE SEED   write a random document with Python's json module
  json_check.py same A B         A and B must load to equal documents (NaN equals NaN)

Prints problems and exits 1 if there are any.
"""
import json
import math
import random
import struct
import sys


def check_writer(path):
    with open(path, 'rb') as f:
        doc = json.loads(f.read().decode('utf-8'))  # strict UTF-8: the writer must emit valid text
    bad = 0
    for r in doc['strings']:
        want = bytes.fromhex(r['raw']).decode('utf-8', errors='replace')
        if r['s'] != want:
            bad += 1
            print('string', r['raw'], repr(r['s']), '!=', repr(want))
    for r in doc['doubles']:
        want = struct.unpack('>d', bytes.fromhex(r['bits']))[0]
        got = r['v']
        if math.isfinite(want):
            if got != want or math.copysign(1, got) != math.copysign(1, want):
                bad += 1
                print('double', r['bits'], got, '!=', want)
        elif got is not None:
            bad += 1
            print('non-finite double', r['bits'], 'written as', got)
    for r in doc['ints']:
        if r['v'] != int(r['text']) or not isinstance(r['v'], int):
            bad += 1
            print('int', r['text'], r['v'])
    print(f"checked {len(doc['strings'])} strings, {len(doc['doubles'])} doubles, {len(doc['ints'])} ints: {bad} bad")
    return 1 if bad else 0


def random_string(rng):
    alphabet = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\x00', '\x1f', '\x7f', 'é', '€', '𝄞', '\u2028', '{', ',']
    return ''.join(rng.choice(alphabet) for _ in range(rng.randrange(12)))


def random_value(rng, depth):
    k = rng.randrange(9 if depth < 6 else 6)
    if k == 0:
        return None
    if k == 1:
        return rng.random() < 0.5
    if k == 2:
        return rng.randrange(-2**63, 2**63)
    if k == 3:
        return rng.choice([0.0, -0.0, 0.1, 1e300, 5e-324, float('nan'), float('inf'), -float('inf'),
                           rng.uniform(-1e6, 1e6), rng.random() * 10 ** rng.randrange(-300, 300)])
    if k in (4, 5):
        return random_string(rng)
    if k in (6, 7):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {random_string(rng): random_value(rng, depth + 1) for _ in range(rng.randrange(5))}


def make(path, seed):
    rng = random.Random(int(seed))
    doc = [random_value(rng, 0) for _ in range(200)]
    with open(path, 'w', encoding='utf-8') as f:
        f.write(json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2])))
    return 0


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) != type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def compare(path_a, path_b):
    with open(path_a, encoding='utf-8') as f:
        a = json.load(f)
    with open(path_b, encoding='utf-8') as f:
        b = json.load(f)
    if not same(a, b):
        print('documents differ')
        for i, (x, y) in enumerate(zip(a, b)):
            if not same(x, y):
                print(i, repr(x)[:200], '!=', repr(y)[:200])
                break
        return 1
    print('same')
    return 0


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'writer':
        sys.exit(check_writer(sys.argv[2]))
    if cmd == 'make':
        sys.exit(make(sys.argv[2], sys.argv[3]))
    sys.exit(compare(sys.argv[2], sys.argv[3]))
