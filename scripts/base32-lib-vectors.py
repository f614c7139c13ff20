"""Writes base32-lib 1.1.1's answers for random inputs as a tab-separated table, the
fixture crates/noid-template/tests/fixtures/base32-lib-1.1.1.tsv.

Columns: op, input, split_every, min_length, checksum, result ("ERR" for an error, or
for a decoded number of 64 bits or more, which noid refuses).

Usage: pip install base32-lib==1.1.1; python3 scripts/base32-lib-vectors.py
"""
import random
import base32_lib as b

assert b.__version__ == "1.1.1"
rng = random.Random(17)
rows = []
def num():
    bits = rng.choice([5, 10, 20, 35, 40, 50, 60, 63, 64])
    return rng.getrandbits(bits)
for _ in range(2000):
    n = num()
    split = rng.choice([0, 0, 1, 3, 4, 5])
    minl = rng.choice([0, 0, 6, 10, 14])
    cs = rng.choice([True, False])
    rows.append(("encode", str(n), split, minl, int(cs), b.encode(n, split_every=split, min_length=minl, checksum=cs)))
def mangle(s):
    out = []
    for c in s:
        r = rng.random()
        if c == "1" and r < 0.3: c = rng.choice("IiLl")
        elif c == "0" and r < 0.3: c = rng.choice("Oo")
        elif r < 0.3: c = c.upper()
        out.append(c)
        if rng.random() < 0.1: out.append("-")
    s = "".join(out)
    r = rng.random()
    if r < 0.1 and s: s = s[:-1]
    elif r < 0.2: s = s + rng.choice("0123456789u*")
    elif r < 0.3 and len(s) > 2:
        i = rng.randrange(len(s) - 1); s = s[:i] + s[i+1] + s[i] + s[i+2:]
    return s
for _ in range(1500):
    n = num()
    cs = rng.choice([True, False])
    s = mangle(b.encode(n, split_every=rng.choice([0, 4]), checksum=cs))
    if any(c in s for c in " \t"): continue
    try:
        res = str(b.decode(s, checksum=cs))
        if int(res) >= 2**64: res = "ERR"
    except ValueError:
        res = "ERR"
    rows.append(("decode", s, 0, 0, int(cs), res))
import os
out = os.path.join(os.path.dirname(__file__), "..", "crates", "noid-template", "tests", "fixtures", "base32-lib-1.1.1.tsv")
with open(out, "w") as f:
    f.write("# base32-lib 1.1.1 answers (scripts/base32-lib-vectors.py); op input split_every min_length checksum result\n")
    for r in rows:
        f.write("\t".join(map(str, r)) + "\n")
