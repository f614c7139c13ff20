#!/usr/bin/env bash
# Build the web server modules: crate noid-embed as a static library (release), linked
# into mod_noid.so (Apache httpd, with apxs from apache2-dev) and ngx_http_noid_module.so
# (nginx, against Debian's nginx-dev sources and flags).
#
#   scripts/build-modules.sh [apache|nginx]...    (default: both)
#
# Output: $CARGO_TARGET_DIR/modules/mod_noid.so and ngx_http_noid_module.so; their paths
# on stdout. Nothing outside the target directory is written.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
. scripts/env.sh
WHICH=${*:-apache nginx}
OUT=$CARGO_TARGET_DIR/modules
mkdir -p "$OUT"
echo "== cargo build --release -p noid-embed (static library)" >&2
cargo build --release -p noid-embed >&2
LIB=$CARGO_TARGET_DIR/release/libnoid_embed.a
# What the Rust standard library and RocksDB's C++ need from the system; the library's
# own symbols stay hidden (--exclude-libs), so that only the module's entry is exported.
LIBS="-lstdc++ -lgcc_s -lpthread -ldl -lm -lrt -lutil"

for w in $WHICH; do
    case $w in
    apache)
        command -v apxs >/dev/null || { echo "build-modules: apxs missing (apt-get install apache2-dev)" >&2; exit 1; }
        B=$OUT/apache-build
        rm -rf "$B" && mkdir -p "$B"
        cp crates/noid-embed/apache/mod_noid.c "$B/"
        (cd "$B" && apxs -c -I "$REPO/crates/noid-embed/include" -Wc,-Wall -Wc,-Werror \
            -Wl,-Wl,--exclude-libs,ALL mod_noid.c "$LIB" $LIBS >&2)
        # a new file renamed into place: servers that have the old one loaded keep it
        cp "$B/.libs/mod_noid.so" "$OUT/.mod_noid.so.new" && mv -f "$OUT/.mod_noid.so.new" "$OUT/mod_noid.so"
        echo "$OUT/mod_noid.so"
        ;;
    nginx)
        "$REPO/crates/noid-embed/nginx/build.sh" "$LIB" "$OUT" "$LIBS"
        ;;
    *) echo "build-modules: unknown module '$w' (apache, nginx)" >&2; exit 2 ;;
    esac
done
