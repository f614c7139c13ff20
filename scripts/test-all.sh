#!/usr/bin/env bash
# Set up and run every test: formatting, lints, unit and integration tests against
# real RocksDB stores; then, as root, the Debian package: built, installed with dpkg -i,
# the end-to-end tests with real Apache httpd and nginx run against the installed
# binaries and config snippets, the package's own checks, and its removal.
# Not root: the end-to-end tests run against the build tree instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/setup.sh
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy (release profile, shared with the tests; the first build compiles RocksDB's C++ for several minutes)"
cargo clippy --release --workspace --all-targets -- -D warnings
echo "== cargo build --release"
cargo build --release --workspace --bins
echo "== cargo test --release"
cargo test --release --workspace
echo "== noid-store without PostgreSQL (a database-held minter refused clearly)"
cargo test --release -p noid-store --lib open::
echo "== browser: headless Chromium on noidr --http's and noid serve's pages, axe-core (tests/browser)"
tests/browser/run.sh
echo "== fuzz: every target's kept inputs, then 10 s of coverage-guided fuzzing each"
scripts/fuzz.sh all 10
if [ "$(id -u)" != 0 ]; then
    echo "== end-to-end: Apache httpd and nginx, build tree (not root: no package)"
    scripts/build-modules.sh >/dev/null
    tests/e2e/run.sh
    exit
fi
echo "== the Debian package: scripts/package.sh, dpkg -i"
debs=$(scripts/package.sh)
deb=$(echo "$debs" | head -1)
dpkg-deb --info "$deb" | sed -n '/Package:/,$p'
# shellcheck disable=SC2086 # one path a line: noid, then the web server modules
dpkg -i $debs
echo "== end-to-end: Apache httpd and nginx, installed package"
tests/e2e/run.sh --installed
echo "== the installed package: files, user, demo, a minter, dpkg -r"
tests/package/run.sh
