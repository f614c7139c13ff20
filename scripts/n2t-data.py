#!/usr/bin/env python3
"""N2T-like data for scripts/bench-scale.sh: the same identifiers for the same numbers,
on every machine and in every run (no random module, no clock).

N2T, the global resolver, holds individual records for some 50 million identifiers and
some 3,500 rule records. This makes data of that shape:

* identifiers across 1,000 NAANs (five digits each) and 2,500 shoulders (one to five per
  NAAN), skewed as a resolver's are: NAAN k gets a share of about 1/(k+1) of them, so a
  few NAANs hold most identifiers and most hold a few;
* identifier i (0 <= i < N) is `ark:/NAAN/SHOULDER` + eight extended digits of a
  scramble of i: unique, and in no key order, as a minter's quasi-random ids arrive;
* each has a target (`_t`) and three kernel elements (`who`, `what`, `when`);
* one in 20 also has a suffixed child `ID/sK` with a target of its own (a part of the
  object: requests under it chop back to it, not to ID);
* one in 50 has several targets (two lines in `_t`, written as an egg `:hx` line);
* the rule records: a prefix-registry file (docs/RESOLUTION.md, "The prefix
  registry") with a record for each NAAN and each shoulder, 3,500 in all.

Usage:
  n2t-data.py binds FROM TO            `noid -` bulk lines for identifiers FROM..TO-1
  n2t-data.py registry                 the 3,500 rule records
  n2t-data.py requests KIND N COUNT    COUNT requests for random identifiers among the
                                       first N (fixed seed): KIND hit (`ID.resolve`),
                                       chop (`ID/a/b.c/d.resolve`, a 4-level chop-back),
                                       get (`get ID _t`, noid protocol), path (`/ID`)
"""

import sys

NAANS = 1000
SHOULDERS = 2500
XDIGITS = "0123456789bcdfghjkmnpqrstvwxz"
BLADE_DIGITS = 8
BLADE_SPACE = 29**BLADE_DIGITS
# An odd multiplier coprime with 29: i -> i * SCRAMBLE mod 29^8 is one-to-one.
SCRAMBLE = 0x9E3779B1
MASK = (1 << 64) - 1


def naan_code(k):
    """The five-digit NAAN of NAAN number k (distinct for k < 1000)."""
    return f"{10000 + k * 89 % 90000:05d}"


# NAAN k has 1 + (k % 5) shoulders, except that the counts are trimmed to 2,500 in all
# (sum over 1,000 NAANs of 1..5 is 3,000): the last 500 NAANs get one less, at least 1.
SHOULDERS_OF = [1 + (k % 5) for k in range(NAANS)]
for k in range(NAANS - 1, -1, -1):
    if sum(SHOULDERS_OF) <= SHOULDERS:
        break
    if SHOULDERS_OF[k] > 1:
        SHOULDERS_OF[k] -= 1
assert sum(SHOULDERS_OF) == SHOULDERS, sum(SHOULDERS_OF)


def shoulder_name(k, s):
    """Shoulder s of NAAN k: a letter-digit shoulder as ARK minters use (b3, c7 ...)."""
    return XDIGITS[10 + (k + s) % 19] + XDIGITS[(k * 7 + s) % 10]


# The NAAN of an identifier: drawn from a table in which NAAN k has a weight of
# about 1/(k+1) (a table of 100,000 slots, every NAAN at least one).
def _naan_table():
    weights = [1.0 / (k + 1) for k in range(NAANS)]
    total = sum(weights)
    slots = 100_000 - NAANS
    table = []
    for k, w in enumerate(weights):
        table.extend([k] * (1 + int(w / total * slots)))
    return table


NAAN_TABLE = _naan_table()


def mix(x):
    """splitmix64's finaliser: a well-spread 64-bit hash of x."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def blade(i):
    n = i * SCRAMBLE % BLADE_SPACE
    digits = []
    for _ in range(BLADE_DIGITS):
        digits.append(XDIGITS[n % 29])
        n //= 29
    return "".join(reversed(digits))


def identifier(i):
    """(identifier, hash) of identifier number i."""
    h = mix(i)
    k = NAAN_TABLE[h % len(NAAN_TABLE)]
    s = (h >> 20) % SHOULDERS_OF[k]
    return f"ark:/{naan_code(k)}/{shoulder_name(k, s)}{blade(i)}", h


WORDS = ("river survey letters map field notes archive photograph specimen report "
         "census diary journal sound recording manuscript atlas herbarium ledger "
         "catalogue minutes sketch thesis dataset").split()
NAMES = ("Okafor Lindqvist Nakamura Moreau Castillo Haddad Novak O'Brien Petrov Singh "
         "Kowalski Mensah Takahashi Ferreira Dubois Jensen Rossi Yilmaz Ahmed Garcia").split()


def binds(first, last, out):
    """The bulk lines of identifiers first..last-1; returns nothing (writes to out)."""
    w = out.write
    for i in range(first, last):
        ident, h = identifier(i)
        host = f"repository{(h >> 32) % 997}.example.org"
        target = f"https://{host}/objects/{ident[5:]}"
        if i % 50 == 7:
            # Several targets: two lines in _t, as `:hx` escapes (^0a, ^3a for ':').
            second = f"https://mirror.example.net/{ident[5:]}"
            w(f":hx {ident}.set _t {target.replace(':', '^3a')}^0a{second.replace(':', '^3a')}\n")
        else:
            w(f"bind set {ident} _t {target}\n")
        who = f"{NAMES[h % 20]}, {NAMES[(h >> 8) % 20][0]}."
        what = f"{WORDS[(h >> 16) % 24]} {WORDS[(h >> 24) % 24]} no. {i}"
        w(f'bind set {ident} who "{who}"\n')
        w(f'bind set {ident} what "{what}"\n')
        w(f"bind set {ident} when {1850 + (h >> 40) % 175}\n")
        if i % 20 == 3:
            w(f"bind set {ident}/s{h % 9} _t {target}/part{h % 9}\n")


def registry(out):
    """The rule records: one per NAAN, one per shoulder."""
    for k in range(NAANS):
        naan = naan_code(k)
        out.write(f"prefix: ark:/{naan}\nname: NAAN {naan}\nwho: Organisation {k}\n"
                  f"provider: home https://naan{naan}.example.org/ark:/{naan}/${{nlid}}\n\n")
        for s in range(SHOULDERS_OF[k]):
            out.write(f"prefix: ark:/{naan}/{shoulder_name(k, s)}\nname: shoulder {s} of {naan}\n\n")


def requests(kind, n, count, out):
    """count requests of kind for identifiers drawn among the first n (fixed seed);
    identifiers with several targets are skipped, so that every hit is one redirect."""
    state = 0x2545F4914F6CDD1D
    made = 0
    while made < count:
        state = mix(state)
        i = state % n
        if i % 50 == 7:
            continue
        ident, _ = identifier(i)
        if kind == "hit":
            out.write(f"{ident}.resolve\n")
        elif kind == "chop":
            out.write(f"{ident}/a/b.c/d.resolve\n")
        elif kind == "get":
            out.write(f"get {ident} _t\n")
        elif kind == "path":
            out.write(f"/{ident}\n")
        else:
            sys.exit(f"n2t-data.py: unknown request kind {kind!r}")
        made += 1


def main(argv):
    out = sys.stdout
    if len(argv) == 4 and argv[1] == "binds":
        binds(int(argv[2]), int(argv[3]), out)
    elif len(argv) == 2 and argv[1] == "registry":
        registry(out)
    elif len(argv) == 5 and argv[1] == "requests":
        requests(argv[2], int(argv[3]), int(argv[4]), out)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
