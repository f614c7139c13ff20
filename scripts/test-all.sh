#!/usr/bin/env bash
# Set up and run every test: formatting, lints, unit and integration tests against
# real RocksDB stores, then the end-to-end tests with real Apache httpd and nginx.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
scripts/setup.sh
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== cargo clippy (release profile, shared with the tests)"
cargo clippy --release --workspace --all-targets -- -D warnings
echo "== cargo build --release"
cargo build --release --workspace --bins
echo "== cargo test --release"
cargo test --release --workspace
if [ -x tests/e2e/run.sh ]; then
    echo "== end-to-end: Apache httpd and nginx"
    tests/e2e/run.sh
fi
