#!/usr/bin/env bash
# Set up and run the main job on a fresh machine: build noid and noidr, create a demo
# minter of ARKs, mint, bind a target URL, and resolve it the way Apache would.
#
#   scripts/demo.sh               build this tree (release profile), then run the demo
#   scripts/demo.sh --installed   run the demo with the installed package (/usr/bin)
#
# The output is a plain transcript, each command shown before its output, so that
# `scripts/demo.sh > demo.log 2>&1` is as readable as the terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
case "${1:-}" in
"")
    # Only what building needs (a compiler, clang for RocksDB's bindings): the test
    # command installs the test tools (PostgreSQL, Chromium, ...) itself.
    scripts/setup.sh --build
    echo "== building noid and noidr: cargo build --release --bins (into $CARGO_TARGET_DIR)"
    echo "== the first build on a machine compiles RocksDB's C++ for several minutes (about 10 on 2 cores);"
    echo "== later builds reuse it and take seconds"
    cargo build --release --bins
    bin=$NOID_BIN
    ;;
--installed) bin=/usr/bin ;;
*)
    sed -n '4,5p' "$0" >&2
    exit 2
    ;;
esac

demo=$(mktemp -d /tmp/noid-demo.XXXXXX)
noid=$bin/noid
noidr=$bin/noidr
# show CMD ARGS...: print the command as a shell line, then run it.
show() {
    printf '$'
    printf ' %q' "$@"
    printf '\n'
    "$@"
}
# ask INPUT CMD ARGS...: print the pipeline, then feed INPUT (printf's format, with \n
# between request lines) to the command.
ask() {
    local input=$1
    shift
    printf "\$ printf '%s' |" "$input"
    printf ' %q' "$@"
    printf '\n'
    # shellcheck disable=SC2059 # INPUT is a printf format on purpose
    printf "$input" | "$@"
}

echo "== a demo minter of ARKs in $demo"
show "$noid" -f "$demo" dbcreate f5.reedeedk long 13030 example.org demo
show "$noid" -f "$demo" mint 3 | tee "$demo/minted"
id=$(sed -n 's/^id: //p' "$demo/minted" | head -1)
show "$noid" -f "$demo" bind set "$id" _t https://example.org/objects/1
show "$noid" -f "$demo" bind set "$id" myGoto https://example.org/objects/1 >/dev/null
show "$noid" -f "$demo" fetch "$id"
echo "== noidr answers one line per request line, as Apache's RewriteMap prg: expects"
ask "get $id myGoto\nget ark:/13030/nope myGoto\n" "$noidr" -f "$demo"
echo "== the N2T protocol, with suffix passthrough"
ask "ark:/$id/chapter/2.resolve\n" "$noidr" -f "$demo" --protocol egg
echo "== demo minter left in $demo"
