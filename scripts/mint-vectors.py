"""An independent re-implementation, from spec-noid.md and spec-minting-extended.md only,
of Noid minting with extended repertoires. It prints the first identifiers of new minters,
which the Rust tests compare with.

Usage: python3 scripts/mint-vectors.py [TEMPLATE[:NAAN] N]...
"""
import string
import sys

REP = {
    "d": "0123456789",
    "e": "0123456789bcdfghjkmnpqrstvwxz",
    "i": "0123456789x",
    "x": "0123456789abcdef_",
    "v": "0123456789abcdefghijklmnopqrstuvwxyz_",
    "E": "123456789bcdfghjkmnpqrstvwxzBCDFGHJKMNPQRSTVWXZ",
    "l": "0123456789abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "w": "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#*+@_",
    "c": "".join(chr(i) for i in range(33, 127) if chr(i) not in "%-./\\"),
}
CHECK_ORDER = "exvElwc"


def check_rep(prefix, mask):
    need = set(prefix) - {"/"}
    for m in mask[1:].rstrip("k"):
        need |= set(REP[m])
    for r in CHECK_ORDER:
        if need <= set(REP[r]):
            return REP[r]
    raise ValueError("no check repertoire")


def check_char(s, rep):
    total = sum((i + 1) * (rep.index(c) if c in rep else 0) for i, c in enumerate(s))
    return rep[total % len(rep)]


def n2xdig(num, mask):
    out = ""
    body = mask[1:].rstrip("k")
    for m in reversed(body):
        r = REP[m]
        out = r[num % len(r)] + out
        num //= len(r)
    if mask[0] == "z":
        r = REP[body[0]]
        while num:
            out = r[num % len(r)] + out
            num //= len(r)
    return out


def first_index(seed, n):
    x0 = ((seed & 0xFFFFFFFF) << 16) | 0x330E
    x1 = (0x5DEECE66D * x0 + 0xB) % (1 << 48)
    return int(float(n) * (float(x1) / float(1 << 48)))


def mint(template, naan, count):
    prefix, mask = template.split(".")
    body = mask[1:].rstrip("k")
    total = 1
    for m in body:
        total *= len(REP[m])
    first = (naan + "/" if naan else "") + prefix
    rep = check_rep(prefix, mask) if mask.endswith("k") else None
    ids = []
    if mask[0] == "r":
        per = int(total / 293 + 1) if total % 293 else total // 293 + 1
        tops, t = [], total
        while t > 0:
            tops.append(min(t, per))
            t -= per
        values = [0] * len(tops)
        sac = list(range(len(tops)))
        for oac in range(count):
            i = first_index(oac, len(sac))
            n = sac[i]
            values[n] += 1
            if values[n] >= tops[n]:
                sac.pop(i)
            ids.append(n2xdig(values[n] + n * per, mask))
    else:
        ids = [n2xdig(k, mask) for k in range(count)]
    out = []
    for b in ids:
        s = first + b
        out.append(s + check_char(s, rep) if rep else s)
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    for t, n in zip(args[::2], args[1::2]):
        tmpl, _, naan = t.partition(":")
        print(t, " ".join(mint(tmpl, naan, int(n))))
