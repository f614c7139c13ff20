#!/bin/sh
# Runs noid-store's unit tests of its unsafe code (the kept RocksDB iterators of
# `cursor`, the memory-mapped counters of `generation`, the follower that uses both)
# under valgrind's memcheck: any invalid read or write, use after free or use of
# uninitialised memory fails the run. Miri cannot run RocksDB's C++; valgrind can.
#
#   scripts/memcheck.sh [TEST-NAME-FILTER ...]     (default: cursor generation follow)
set -eu
cd "$(dirname "$0")/.."
. scripts/env.sh
command -v valgrind >/dev/null || { echo "memcheck.sh: valgrind is not installed" >&2; exit 2; }
bin=$(cargo test --release -p noid-store --lib --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "$bin" ] || { echo "memcheck.sh: no test binary" >&2; exit 2; }
[ $# -gt 0 ] || set -- cursor generation follow
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for filter in "$@"; do
    status=0
    valgrind --quiet --error-exitcode=1 --leak-check=no --log-file="$log" \
        "$bin" --test-threads=1 "$filter" || status=$?
    # RocksDB locks files with an fcntl command valgrind does not know; nothing else
    # is expected in the log.
    grep -v 'unimplemented fcntl command' "$log" >&2 || true
    [ "$status" -eq 0 ] || { echo "memcheck.sh: $filter: exit status $status" >&2; exit 1; }
done
echo "memcheck.sh: no errors"
