#!/usr/bin/env bash
# Benchmark: the search index (issue 44, docs/SEARCH.md), as ratios from interleaved
# runs in one process of this script.
#
# Mints N identifiers and binds each a target and three kernel elements (who, what,
# when), as `noid -` bulk lines; then, ROUNDS times in turn:
#   A. bind them with `noid -` (bulk lines) in a new minter,   B. `noid index rebuild` of it;
#   C. `noid export` (the minter's whole export),    D. `noid search '' --format csv`
#      (every identifier through the index's export).
# The ratios are the medians of each round's pair: rebuild rate / load rate (B vs A:
# goal >= 0.5) and search-export rate / whole-export rate (D vs C: goal >= 0.5), both
# in identifiers per second.
#
# With --api, the last round's minter is then served by `noid serve` and a one-word
# search with its facets is timed against a point fetch over the same API
# (scripts/bench-search-api.py: p99 of each from interleaved batches; goal <= 10).
#
# Usage: scripts/bench-search.sh [--ids N] [--rounds R] [--api]   (default N=1000000, R=3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
N=1000000
ROUNDS=3
API=false
while [ $# -gt 0 ]; do
    case "$1" in
        --ids) N="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --api) API=true; shift ;;
        *) echo "usage: $0 [--ids N] [--rounds R] [--api]" >&2; exit 2 ;;
    esac
done
cargo build --release -q -p noid-cli --bin noid
noid="$NOID_BIN/noid"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== $N identifiers, a target and who/what/when each"
# The minter's first N identifiers (a mint is the same for the same template), each
# bound by four bulk lines; a bulk line's value is one word.
"$noid" -f "$work/ids" dbcreate f5.reedeedk long 13030 example.org bench >/dev/null
"$noid" -f "$work/ids" mint "$N" | sed -n 's/^id: //p' | awk '{
    print "bind set " $1 " _t https://example.org/item/" NR
    print "bind set " $1 " who Author-" (NR % 1000)
    print "bind set " $1 " what Title-number-" NR
    print "bind set " $1 " when " (1900 + NR % 120)
}' >"$work/lines"

rebuild_ratios=()
export_ratios=()
for r in $(seq 1 "$ROUNDS"); do
    rm -rf "$work/m"
    "$noid" -f "$work/m" dbcreate f5.reedeedk long 13030 example.org bench >/dev/null
    "$noid" -f "$work/m" mint "$N" >/dev/null
    t0=$(now); "$noid" -q -f "$work/m" - <"$work/lines" >"$work/load.out" 2>&1; t1=$(now)
    if grep -qi "err" "$work/load.out"; then grep -im3 err "$work/load.out" >&2; exit 1; fi
    "$noid" -f "$work/m" index rebuild >/dev/null; t2=$(now)
    "$noid" -q -f "$work/m" export >"$work/export"; t3=$(now)
    "$noid" -f "$work/m" search '' --format csv >"$work/search.csv"; t4=$(now)
    rows=$(($(wc -l <"$work/search.csv") - 1))
    [ "$rows" -eq "$N" ] || { echo "search exported $rows rows, not $N" >&2; exit 1; }
    load=$(secs "$t0" "$t1"); rebuild=$(secs "$t1" "$t2")
    whole=$(secs "$t2" "$t3"); found=$(secs "$t3" "$t4")
    rebuild_ratios+=("$(awk -v a="$load" -v b="$rebuild" 'BEGIN { printf "%.2f", a / b }')")
    export_ratios+=("$(awk -v a="$whole" -v b="$found" 'BEGIN { printf "%.2f", a / b }')")
    echo "round $r: rebuild/load ${rebuild_ratios[-1]}, search export/whole export ${export_ratios[-1]}"
done
echo "| Figure | Reference | Ratio | Goal |"
echo "|---|---|---|---|"
echo "| index rebuild ($N ids) | \`noid -\` load | $(printf '%s\n' "${rebuild_ratios[@]}" | median) | >= 0.5 |"
echo "| \`noid search '' --format csv\` | \`noid export\` | $(printf '%s\n' "${export_ratios[@]}" | median) | >= 0.5 |"
if $API; then
    awk '$1 == "bind" && $4 == "_t" { print $3 }' "$work/lines" >"$work/idlist"
    python3 scripts/bench-search-api.py "$noid" "$work/m" "$work/idlist"
fi
