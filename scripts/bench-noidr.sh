#!/usr/bin/env bash
# Benchmark noidr over a pipe: answers/s and round-trip p50/p99, one request at a time
# (as Apache sends them) and pipelined, for hits, misses and 4-level chop-backs, on a
# store of 1,000,000 bound ids. Prints a Markdown table (docs/BENCHMARKS-noidr.md).
#
#   scripts/bench-noidr.sh [N_IDS [REQUESTS]]      defaults: 1000000 200000
#
# The store is built once under $BENCH_DIR (default: a temp dir, removed at exit).
# Uses the release profile; set CARGO_TARGET_DIR to share a build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
n_ids=${1:-1000000}
reqs=${2:-200000}
# One shared target directory (scripts/env.sh), so RocksDB is not compiled again.
. scripts/env.sh
target=$CARGO_TARGET_DIR
cargo build --release -q -p noidr --bin noidr --example bench_noidr
if [[ -z "${BENCH_DIR:-}" ]]; then
    BENCH_DIR=$(mktemp -d)
    trap 'rm -rf "$BENCH_DIR"' EXIT
fi
store="$BENCH_DIR/store-$n_ids"
mkdir -p "$store"
"$target/release/examples/bench_noidr" load "$store" "$n_ids"
echo "noidr over a pipe, $n_ids bound ids, $reqs requests per row ($(nproc) cores, $(date -u +%Y-%m-%d))"
echo
"$target/release/examples/bench_noidr" run "$target/release/noidr" "$store" "$n_ids" "$reqs"
"$target/release/examples/bench_noidr" rawget "$store" "$n_ids" "$reqs"
"$target/release/examples/bench_noidr" rawchop "$store" "$n_ids" "$reqs"
echo
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
