#!/usr/bin/env python3
"""Benchmark: a one-word search with its facets against a point fetch, over the same
`noid serve` API in the same run (issue 44 item 6, docs/SEARCH.md): the p99 of each,
from interleaved batches (A, B, A, B …), and the median of the pairs' ratios.

    scripts/bench-search-api.py NOID BINDER IDS [--rounds R] [--requests K] [--word W]

BINDER is a binder directory already loaded (scripts/bench-search.sh --api runs this on
the minter it loaded), IDS a file of its identifiers, one a line. Each round sends K
`ID.fetch` requests (random identifiers) on one kept-alive connection, then K
`search?q=W` requests (a page of 50 and the facets over every match), and takes each
batch's p99; the ratio is search p99 / fetch p99 (goal: at most 10).
"""

import http.client
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    noid, binder, id_file = sys.argv[1], sys.argv[2], sys.argv[3]
    opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    rounds = int(opts.get("--rounds", 5))
    k = int(opts.get("--requests", 400))
    word = opts.get("--word", "1907")
    with open(id_file, encoding="utf-8") as f:
        ids = [line.strip() for line in f if line.strip()]
    work = tempfile.mkdtemp()
    pw = os.path.join(work, "pwd")
    subprocess.run(["htpasswd", "-B", "-b", "-c", pw, "sam", "secret"], check=True,
                   capture_output=True)
    config = os.path.join(work, "api.toml")
    with open(config, "w", encoding="utf-8") as f:
        f.write(f'[populator.sam]\nhtpasswd = "{pw}"\nbinder = "{binder}"\n')
    proc = subprocess.Popen([noid, "serve", "--http", "127.0.0.1:0", "--config", config],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    port = None
    for line in proc.stderr:
        m = re.search(r" on 127\.0\.0\.1:(\d+)", line)
        if m:
            port = int(m.group(1))
            break
    if port is None:
        sys.exit("noid serve did not say where it listens")
    auth = {"Authorization": "Basic c2FtOnNlY3JldA=="}  # sam:secret
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def ask(path):
        t0 = time.perf_counter()
        conn.request("GET", path, headers=auth)
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            sys.exit(f"{path}: {r.status} {body[:200]!r}")
        return time.perf_counter() - t0, body

    # The first search opens (and brings up to date) the index; not timed.
    _, first = ask(f"/a/sam/search?q={word}")
    total = re.search(rb'"total":(\d+)', first).group(1).decode()
    rng = random.Random(7)

    def p99(times):
        return statistics.quantiles(times, n=100)[98]

    ratios, fetches, searches = [], [], []
    for _ in range(rounds):
        f = [ask(f"/a/sam/b?{rng.choice(ids)}.fetch")[0] for _ in range(k)]
        s = [ask(f"/a/sam/search?q={word}")[0] for _ in range(k)]
        fetches.append(p99(f))
        searches.append(p99(s))
        ratios.append(searches[-1] / fetches[-1])
    proc.terminate()
    print(f"search q={word}: {total} matches of {len(ids)} identifiers; {rounds} rounds of "
          f"{k} requests each")
    print("| Figure | Reference | Ratio (median of pairs; range) | Goal |")
    print("|---|---|---|---|")
    print(f"| search p99, one word with facets ({len(ids)} ids) | point fetch p99 over the same "
          f"API | {statistics.median(ratios):.2f} ({min(ratios):.2f} to {max(ratios):.2f}) | "
          f"<= 10 |")


if __name__ == "__main__":
    main()
