#!/usr/bin/env bash
# Benchmarks of the noid CLI on this machine (release build):
#   * mint 1,000,000 on .zd and on f5.reedeedk (long term: every id auto-held too)
#   * bulk `bind set` of 1,000,000 ids through `noid -`
#   * wall time of one `noid get` process on the resulting 1M-id store (median of 101)
#   * minting LUIs (lui10-4) and extended-repertoire ids (x4.rvvvvk, .rllllwk) as ratios
#     to f5.reedeedk minting in the same run: N/5 ids each, interleaved, three rounds,
#     the median of the three pair ratios (goal: at most 1.5)
# Usage: scripts/bench-noid.sh [N]   (N defaults to 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
cargo build --release -q --bin noid
N=${1:-1000000}
NOID="$NOID_BIN/noid"
work=$(mktemp -d /tmp/noid-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
secs() { python3 -c "import sys; print(f'{float(sys.argv[1]):.2f}')" "$1"; }
rate() { python3 -c "import sys; print(f'{int(sys.argv[1])/float(sys.argv[2]):,.0f}')" "$1" "$2"; }
timeit() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); python3 -c "print($e-$s)"; }

for tpl in ".zd" "f5.reedeedk long 13030 example.org bench"; do
    d="$work/m$RANDOM"; mkdir -p "$d"
    # shellcheck disable=SC2086
    "$NOID" -f "$d" dbcreate $tpl >/dev/null
    t=$(timeit "$NOID" -f "$d" mint "$N")
    echo "mint $N on ${tpl%% *}: $(secs "$t") s ($(rate "$N" "$t") ids/s)"
    # Minting must not slow down once the store is large (it once did, 70-fold).
    t=$(timeit "$NOID" -f "$d" mint 100000)
    echo "then mint 100000 more on that ${tpl%% *} minter: $(secs "$t") s ($(rate 100000 "$t") ids/s)"
done

d="$work/bind"; mkdir -p "$d"
"$NOID" -f "$d" dbcreate >/dev/null   # bind-only minter: any identifier may be bound
python3 - "$N" > "$work/binds.txt" <<'PY'
import sys
n = int(sys.argv[1])
out = sys.stdout
for i in range(n):
    out.write(f"bind set ark:/99999/fk4{i:07d} _t https://example.org/objects/{i}\n")
PY
s=$(date +%s.%N); "$NOID" -f "$d" - < "$work/binds.txt" > /dev/null; e=$(date +%s.%N)
t=$(python3 -c "print($e-$s)")
echo "bulk bind set of $N ids via 'noid -': $(secs "$t") s ($(rate "$N" "$t") binds/s)"

python3 - "$NOID" "$d" <<'PY'
import subprocess, sys, time, random
noid, d = sys.argv[1], sys.argv[2]
ts = []
for i in range(101):
    k = random.randrange(1000)
    t = time.perf_counter()
    subprocess.run([noid, "-f", d, "get", f"ark:/99999/fk4{k:07d}", "_t"], stdout=subprocess.DEVNULL, check=True)
    ts.append(time.perf_counter() - t)
ts.sort()
print(f"one 'noid get' process on the store: median {ts[50]*1000:.1f} ms, p90 {ts[90]*1000:.1f} ms")
PY

# Beyond Perl Noid: the cost per id of LUIs and extended repertoires against f5.reedeedk,
# each run next to a baseline run so that the machine's phase affects both alike.
M=$((N / 5))
python3 - "$NOID" "$work" "$M" <<'PY'
import os, subprocess, sys, time
noid, work, m = sys.argv[1], sys.argv[2], sys.argv[3]
term = ["long", "13030", "example.org", "bench"]
def mint_time(template, tag):
    d = os.path.join(work, f"ratio-{tag}")
    subprocess.run(["rm", "-rf", d], check=True)
    os.makedirs(d)
    subprocess.run([noid, "-f", d, "dbcreate", template, *term], stdout=subprocess.DEVNULL, check=True)
    t = time.perf_counter()
    subprocess.run([noid, "-f", d, "mint", m], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
for template in ["lui10-4", "x4.rvvvvk", ".rllllwk"]:
    ratios = []
    for round_ in range(3):
        base = mint_time("f5.reedeedk", "base")
        other = mint_time(template, "other")
        ratios.append(other / base)
    ratios.sort()
    print(f"mint {m} on {template} vs f5.reedeedk: ratio {ratios[1]:.2f} (median of "
          + ", ".join(f"{r:.2f}" for r in ratios) + ")")
PY
