#!/usr/bin/env bash
# Build ngx_http_noid_module.so against Debian's nginx-dev (/usr/share/nginx/src: the
# sources and the flags of Debian's nginx, --with-compat), so that Debian's nginx loads
# it with load_module. Called by scripts/build-modules.sh:
#
#   build.sh LIBNOID_EMBED.a OUTDIR "SYSTEM LIBS"
set -euo pipefail
LIB=$1 OUT=$2 LIBS=$3
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=/usr/share/nginx/src
[ -x "$SRC/configure" ] || { echo "build-modules: $SRC missing (apt-get install nginx-dev)" >&2; exit 1; }
B=$OUT/nginx-build
rm -rf "$B" && mkdir -p "$B"
cp -r "$SRC/." "$B/"
# The flags Debian's nginx was configured with (NGX_CONF_FLAGS, a bash array).
# shellcheck disable=SC1091
. "$B/conf_flags"
(cd "$B" && NOID_EMBED_LIB=$LIB NOID_EMBED_LIBS=$LIBS ./configure "${NGX_CONF_FLAGS[@]}" \
    --add-dynamic-module="$HERE" >"$B/configure.log" 2>&1) ||
    { tail -20 "$B/configure.log" >&2; exit 1; }
make -C "$B" -f objs/Makefile modules >"$B/make.log" 2>&1 || { tail -30 "$B/make.log" >&2; exit 1; }
# a new file renamed into place: servers that have the old one loaded keep it
cp "$B/objs/ngx_http_noid_module.so" "$OUT/.ngx_http_noid_module.so.new"
mv -f "$OUT/.ngx_http_noid_module.so.new" "$OUT/ngx_http_noid_module.so"
echo "$OUT/ngx_http_noid_module.so"
