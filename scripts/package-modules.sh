#!/usr/bin/env bash
# Build the Debian packages of the web server modules, apart from the noid package so that
# a site without them keeps today's package (called by scripts/package.sh):
#   noid-apache-module   mod_noid.so and /etc/apache2/mods-available/noid.load (a2enmod noid)
#   noid-nginx-module    ngx_http_noid_module.so and its modules-available snippet
# Each depends on noid at exactly VERSION: the modules link the RocksDB of the noid and
# noid serve that write the minters, and must be the same version.
#
#   scripts/package-modules.sh VERSION OUTDIR      prints the two .deb paths
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
VERSION=$1 OUT=$2
mods=$(scripts/build-modules.sh apache nginx)
apache_so=$(echo "$mods" | grep 'mod_noid.so$')
nginx_so=$(echo "$mods" | grep 'ngx_http_noid_module.so$')
arch=$(dpkg --print-architecture)
nginx_abi=$(sed -n 's/^nginx:abi=//p' /usr/share/nginx/src/debian/libnginx-mod.abisubstvars 2>/dev/null || true)
[ -n "$nginx_abi" ] || nginx_abi=nginx-abi-$(dpkg-query -W -f '${Version}' nginx | sed 's/[+~].*//')
# httpd 2.4's module ABI, which Debian's apache2-bin provides
apache_api=apache2-api-20120211

# deb NAME DEPENDS DESCRIPTION ROOT: the package from the tree ROOT
deb() {
    local name=$1 depends=$2 desc=$3 root=$4
    mkdir -p "$root/DEBIAN" "$root/usr/share/doc/$name"
    cat >"$root/DEBIAN/control" <<CONTROL
Package: $name
Version: $VERSION
Architecture: $arch
Maintainer: noid maintainers <maintainers@users.noreply.a-seed-18de4e28.example>
Section: httpd
Priority: optional
Depends: noid (= $VERSION), $depends, libc6, libgcc-s1, libstdc++6
Description: $desc
 Resolves noid identifiers inside the web server's worker processes, with the code of
 noidr (the same answers), following the minter as noidr does. See
 /usr/share/doc/noid/WEB-SERVERS.md, "Inside the web server".
CONTROL
    if [ -d "$root/etc" ]; then
        (cd "$root" && find etc -type f | sed 's|^|/|') >"$root/DEBIAN/conffiles"
    fi
    dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/${name}_${VERSION}_$arch.deb" >/dev/null
    echo "$OUT/${name}_${VERSION}_$arch.deb"
}

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
A=$W/apache
install -D -m 644 "$apache_so" "$A/usr/lib/apache2/modules/mod_noid.so"
strip --strip-unneeded "$A/usr/lib/apache2/modules/mod_noid.so"
mkdir -p "$A/etc/apache2/mods-available"
cat >"$A/etc/apache2/mods-available/noid.load" <<'LOAD'
# Depends: rewrite
LoadModule noid_module /usr/lib/apache2/modules/mod_noid.so
LOAD
deb noid-apache-module "$apache_api" "noid resolver as an Apache httpd module (mod_noid)" "$A"

N=$W/nginx
install -D -m 644 "$nginx_so" "$N/usr/lib/nginx/modules/ngx_http_noid_module.so"
strip --strip-unneeded "$N/usr/lib/nginx/modules/ngx_http_noid_module.so"
mkdir -p "$N/usr/share/nginx/modules-available"
echo "load_module modules/ngx_http_noid_module.so;" >"$N/usr/share/nginx/modules-available/mod-http-noid.conf"
deb noid-nginx-module "$nginx_abi" "noid resolver as an nginx module" "$N"
