#!/usr/bin/env bash
# Set up and run every test: formatting, lints, unit and integration tests against
# real RocksDB stores; then, as root, the Debian package: built, installed with dpkg -i,
# the end-to-end tests with real Apache httpd and nginx run against the installed
# binaries and config snippets, the package's own checks, and its removal.
# Not root: the end-to-end tests run against the build tree instead, and the tests that
# need root (tmpfs and FUSE mounts, the HA drill's network namespaces) are left out by
# name and counted as skipped; CI runs as root and runs them all.
# Each phase prints its time when it ends ("   (NAME: N s)").
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

PHASE=""
PHASE_START=$SECONDS
# phase NAME: end the current phase (print its time) and start NAME.
phase() {
    if [ -n "$PHASE" ]; then
        echo "   ($PHASE: $((SECONDS - PHASE_START)) s)"
    fi
    PHASE=$1
    PHASE_START=$SECONDS
    [ -z "$PHASE" ] || echo "== $PHASE"
}
# passed LOG: the number of tests cargo test ran and passed, per its "test result:" lines.
passed() {
    sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'
}
# filtered LOG: the number of tests the filters left out, per the same lines.
filtered() {
    sed -n 's/^test result: .* \([0-9]*\) filtered out.*/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'
}
LOGS=$(mktemp -d)
# At the end, also of a phase that failed: its time.
trap 'phase ""; rm -rf "$LOGS"' EXIT

# The tests that need root, by name (cargo test's --skip matches a part of the name):
# tmpfs mounts (noid-cli faults), a FUSE mount (noidr stall), network namespaces and
# PostgreSQL as the postgres user (noidr ha_drill).
ROOT_ONLY=(faults::a_full_disk faults::a_read_only_store stall::a_stalled_store ha_drill::)

phase "setup (scripts/setup.sh)"
scripts/setup.sh
phase "cargo fmt --check"
cargo fmt --all --check
phase "cargo clippy (release profile, shared with the tests; the first build compiles RocksDB's C++ for several minutes)"
cargo clippy --release --workspace --all-targets -- -D warnings
phase "noid without the server and PostgreSQL (no tokio, no hyper)"
# The same release profile, so RocksDB is not compiled again. Before the build below,
# which puts the default noid (with the server) back in place for the tests.
cargo build --release -p noid-cli --no-default-features
if cargo tree -p noid-cli --no-default-features -e normal --prefix none | grep -E '^(tokio|hyper) '; then
    echo "error: noid built without its server features still depends on tokio or hyper"
    exit 1
fi
# The API's CGI is in that build too (noid-binder, no server): a write and a read
# through it, as Apache runs it (`noidu-api`, NOID_API_CONFIG, PATH_INFO, QUERY_STRING).
cgi_dir="$LOGS/cgi"
mkdir -p "$cgi_dir"
"$NOID_BIN/noid" -f "$cgi_dir/binder" dbcreate >/dev/null
printf '[populator.sam]\nopen = true\nbinder = "%s/binder"\n' "$cgi_dir" >"$cgi_dir/api.toml"
cp "$NOID_BIN/noid" "$cgi_dir/noidu-api"
cgi() {
    env -i NOID_API_CONFIG="$cgi_dir/api.toml" PATH_INFO=/sam/b QUERY_STRING="$1" \
        REMOTE_ADDR=127.0.0.1 "$cgi_dir/noidu-api" </dev/null
}
cgi 'i.set%20moo%20cow' >/dev/null
head=$'Status: 200 OK\r\ncontent-type: text/plain; charset=UTF-8\r\negg-version: noid 0.1.0\r\n\r\n'
if [ "$(cgi 'i.get%20moo'; echo .)" != "${head}moo: cow"$'\n\n'"egg-status: 0"$'\n.' ]; then
    echo "error: the API's CGI in noid built without its server did not answer as expected"
    exit 1
fi

phase "noidr and noid-embed without PostgreSQL (no postgres client, no tokio)"
# Also before the build below, which puts the default noidr back; the same release
# profile and target directory, so only noid-store and the programs are compiled again.
cargo build --release -p noidr -p noid-embed --no-default-features
for p in noidr noid-embed; do
    if cargo tree -p "$p" --no-default-features -e normal --prefix none |
        grep -E '^(postgres|tokio-postgres|tokio|hyper) '; then
        echo "error: $p built without PostgreSQL still links the crates above"
        exit 1
    fi
done
# Such a noidr refuses a minter held by PostgreSQL, naming the feature it lacks.
want='noidr: error: --follow: the minter fk4 is held by PostgreSQL (postgres://noid:***@127.0.0.1/noid), and this build has no PostgreSQL support (built without the cargo feature "postgres")'
got=$("$NOID_BIN/noidr" --follow postgres://noid:pw@127.0.0.1/noid --minter fk4 --cache "$LOGS/copy" 2>&1) && {
    echo "error: noidr without PostgreSQL accepted --follow"
    exit 1
}
[ "$got" = "$want" ] || { echo "error: noidr without PostgreSQL said: $got"; exit 1; }
echo "noidr without PostgreSQL refuses --follow: $got"
phase "cargo build --release"
cargo build --release --workspace --bins
phase "cargo test --release"
if [ "$(id -u)" = 0 ]; then
    cargo test --release --workspace
else
    skips=()
    for t in "${ROOT_ONLY[@]}"; do skips+=(--skip "$t"); done
    cargo test --release --workspace -- "${skips[@]}" 2>&1 | tee "$LOGS/test.log"
    n=$(filtered "$LOGS/test.log")
    echo "skipped $n tests that need root (not root): ${ROOT_ONLY[*]} (tmpfs and FUSE mounts, network namespaces; CI runs them as root)"
    [ "$n" -gt 0 ] || { echo "error: no test matched the root-only names: they changed; update ROOT_ONLY"; exit 1; }
fi
phase "noid-store without PostgreSQL (a database-held minter refused clearly)"
cargo test --release -p noid-store --lib open:: 2>&1 | tee "$LOGS/open.log"
n=$(passed "$LOGS/open.log")
[ "$n" -gt 0 ] || { echo "error: no test of noid-store's open:: ran (renamed?)"; exit 1; }
echo "$n tests of open:: ran"
phase "browser: headless Chromium on noidr --http's and noid serve's pages, axe-core (tests/browser)"
tests/browser/run.sh
phase "fuzz: every target's kept inputs, then 10 s of coverage-guided fuzzing each"
scripts/fuzz.sh all 10
if [ "$(id -u)" != 0 ]; then
    phase "end-to-end: Apache httpd and nginx, build tree (not root: no package)"
    scripts/build-modules.sh >/dev/null
    tests/e2e/run.sh
    exit
fi
phase "the Debian package: scripts/package.sh, dpkg -i"
debs=$(scripts/package.sh)
deb=$(echo "$debs" | head -1)
dpkg-deb --info "$deb" | sed -n '/Package:/,$p'
# shellcheck disable=SC2086 # one path a line: noid, then the web server modules
dpkg -i $debs
phase "end-to-end: Apache httpd and nginx, installed package"
tests/e2e/run.sh --installed
phase "the installed package: files, user, demo, a minter, dpkg -r"
tests/package/run.sh
