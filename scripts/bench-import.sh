#!/usr/bin/env bash
# Benchmark: importing a 1,000,000-identifier minter (docs/MIGRATION.md).
#
# Builds a Perl-style BerkeleyDB minter the way an old installation would have one:
# `f5.reedeedk long` with N identifiers minted (circulation record and automatic hold
# each) and a `_t` target bound on every one, i.e. about 3N keys. noid mints them;
# the bindings are added to the export text with awk (quicker than N bind commands),
# and the result goes through noid import/export into db_dump -p text, which Debian's
# db_load turns into NOID/noid.bdb. Then it times
#   1. noid import of the NOID directory (db_dump -p piped into the import),
#   2. noid import of the db_dump -p text file,
#   3. noid export, and noid import of that export,
#   4. noid check of the imported minter,
# and mints from the imported minter to show that it carries on where the original
# stops.
#
# Usage: scripts/bench-import.sh [N]      (default N=1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
N="${1:-1000000}"
command -v db_load >/dev/null || { apt-get update -qq && apt-get install -y -qq db-util >/dev/null; }
cargo build --release -q -p noid-cli --bin noid
noid="$NOID_BIN/noid"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "== building a $N-identifier minter (f5.reedeedk long, one _t binding each)"
"$noid" -f "$work/src" dbcreate f5.reedeedk long 13030 example.org bench >/dev/null
"$noid" -f "$work/src" mint "$N" >/dev/null
"$noid" -f "$work/src" export >"$work/minted.export"
# Add `ID<TAB>_t` = https://example.org/ID for every circulation record `ID\t:/c`.
awk -F '\t' '$1 ~ /\\t:\/c$/ { id = substr($1, 1, length($1) - 5); print id "\\t_t\thttps://example.org/" id }' \
    "$work/minted.export" >"$work/bindings"
{
    grep -v '^# end ' "$work/minted.export"
    cat "$work/bindings"
    echo "# end $(( $(grep -vc '^#' "$work/minted.export") + $(wc -l <"$work/bindings") ))"
} >"$work/bound.export"
"$noid" -f "$work/bound" import "$work/bound.export" >/dev/null
"$noid" -f "$work/bound" export dbdump >"$work/minter.dump"
mkdir -p "$work/perl/NOID"
t0=$(now)
db_load -f "$work/minter.dump" "$work/perl/NOID/noid.bdb"
t1=$(now)
keys=$(( ($(wc -l <"$work/minter.dump") - 5) / 2 ))
echo "minter: $keys keys; dump $(du -h "$work/minter.dump" | cut -f1); noid.bdb $(du -h "$work/perl/NOID/noid.bdb" | cut -f1) (db_load: $(secs "$t0" "$t1") s)"

echo "== import of the NOID directory (through db_dump -p)"
t0=$(now)
"$noid" -f "$work/a" import "$work/perl/NOID" >/dev/null
t1=$(now)
bdb=$(secs "$t0" "$t1")
echo "import NOID/noid.bdb: $bdb s"

echo "== import of the db_dump -p text"
t0=$(now)
"$noid" -f "$work/b" import "$work/minter.dump" >/dev/null
t1=$(now)
echo "import db_dump text: $(secs "$t0" "$t1") s"

echo "== export (noid format), then import of the export"
t0=$(now)
"$noid" -f "$work/a" export >"$work/minter.export"
t1=$(now)
"$noid" -f "$work/c" import "$work/minter.export" >/dev/null
t2=$(now)
echo "export: $(secs "$t0" "$t1") s; import of the export: $(secs "$t1" "$t2") s"

echo "== check"
t0=$(now)
"$noid" -f "$work/a" check | tail -1
t1=$(now)
echo "check: $(secs "$t0" "$t1") s"

"$noid" -f "$work/bound" mint 3 >"$work/want"
"$noid" -f "$work/a" mint 3 >"$work/got"
cmp -s "$work/want" "$work/got" && echo "the imported minter mints what the original mints next: $(grep -c '^id:' "$work/got") ids match"
awk -v t="$bdb" 'BEGIN { if (t + 0 >= 30) { print "SLOWER THAN THE 30 s TARGET"; exit 1 } }'
