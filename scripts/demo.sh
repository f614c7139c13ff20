#!/usr/bin/env bash
# Set up and run the main job on a fresh machine: build noid and noidr, create a demo
# minter of ARKs, mint, bind a target URL, and resolve it the way Apache would.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/setup.sh
cargo build --release --bins -q
demo=$(mktemp -d /tmp/noid-demo.XXXXXX)
noid="$NOID_BIN/noid -f $demo"
echo "\$ noid dbcreate f5.reedeedk long 13030 example.org demo"
$noid dbcreate f5.reedeedk long 13030 example.org demo
echo "\$ noid mint 3"
$noid mint 3 | tee "$demo/minted"
id=$(sed -n 's/^id: //p' "$demo/minted" | head -1)
echo "\$ noid bind set $id _t https://example.org/objects/1"
$noid bind set "$id" _t https://example.org/objects/1
echo "\$ noid bind set $id myGoto https://example.org/objects/1"
$noid bind set "$id" myGoto https://example.org/objects/1 >/dev/null
echo "\$ noid fetch $id"
$noid fetch "$id"
echo "# noidr answers one line per request, as Apache's RewriteMap prg: expects"
printf 'get %s myGoto\nget ark:/13030/nope myGoto\n' "$id" | tee /dev/stderr | "$NOID_BIN/noidr" -f "$demo"
echo "# the N2T protocol, with suffix passthrough"
printf 'ark:/%s/chapter/2.resolve\n' "$id" | tee /dev/stderr | "$NOID_BIN/noidr" -f "$demo" --protocol egg
echo "demo minter left in $demo"
