#!/usr/bin/env bash
# Build the Debian package of noid and noidr with cargo deb (what goes where:
# crates/noid-package/Cargo.toml; maintainer scripts: crates/noid-package/debian/).
#
#   scripts/package.sh        build the binaries (release) and the .debs; print their paths
#                             (noid first, then noid-apache-module and noid-nginx-module)
#
# Installs cargo-deb from crates.io when it is missing. Progress goes to stderr, the
# paths of the .debs (under $CARGO_TARGET_DIR/debian/) to stdout, one a line:
#   dpkg -i $(scripts/package.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/setup.sh >&2
CARGO_DEB_VERSION=3.8.0
if ! command -v cargo-deb >/dev/null 2>&1; then
    echo "== installing cargo-deb $CARGO_DEB_VERSION from crates.io (a minute or two)" >&2
    cargo install cargo-deb --version "$CARGO_DEB_VERSION" --locked >&2
fi
echo "== cargo build --release --bins (the first build compiles RocksDB's C++ for several minutes)" >&2
cargo build --release --bins >&2
echo "== cargo deb" >&2
out=$CARGO_TARGET_DIR/debian
mkdir -p "$out"
# cargo deb prints the path without a newline
deb=$(cargo deb -p noid-package --no-build --strip --output "$out")
echo "$deb"
# The web server modules: packages of their own, at the same version (scripts/package-modules.sh).
echo "== the modules' packages (noid-apache-module, noid-nginx-module)" >&2
scripts/package-modules.sh "$(dpkg-deb -f "$deb" Version)" "$out"
