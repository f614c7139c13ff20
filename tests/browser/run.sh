#!/usr/bin/env bash
# Browser tests: Debian's headless Chromium, driven through chromedriver by
# python3-selenium, loads the pages of the real noidr --http and noid serve (the build
# tree's binaries, or $NOID_BIN_DIR's) and checks them: exact texts, forms, and
# axe-core's WCAG 2.0/2.1 A and AA rules. Every test_*.py here runs (one browser session
# per file); screenshots are kept in $NOID_BROWSER_ARTIFACTS (made outside the clone if
# unset, printed at the end). Builds nothing. Exits non-zero on any failure.
#
#   tests/browser/run.sh             every file
#   tests/browser/run.sh test_x.py   one file (or several)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3 # Debian's: python3-selenium is installed for it
BIN=${NOID_BIN_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/noid-target}/release}
for b in "$BIN/noid" "$BIN/noidr"; do
    if [ ! -x "$b" ]; then
        echo "browser: $b missing: build with: CARGO_TARGET_DIR=${BIN%/release} cargo build --release" >&2
        exit 1
    fi
done
if ! "$PY" -c "import selenium" 2>/dev/null; then
    echo "browser: python3-selenium missing: run scripts/setup.sh" >&2
    exit 1
fi
export NOID_BIN_DIR=$BIN
export PYTHONDONTWRITEBYTECODE=1 # nothing written into the clone
if [ -z "${NOID_BROWSER_ARTIFACTS:-}" ]; then
    NOID_BROWSER_ARTIFACTS=$(mktemp -d /tmp/noid-browser.XXXXXX)
fi
export NOID_BROWSER_ARTIFACTS
mkdir -p "$NOID_BROWSER_ARTIFACTS"
cd "$HERE" || exit 1
if [ $# -gt 0 ]; then
    files=("$@")
else
    files=(test_*.py)
fi
status=0
for f in "${files[@]}"; do
    echo "== browser: $f"
    "$PY" -m unittest -v "${f%.py}" || status=1
done
echo "browser screenshots: $NOID_BROWSER_ARTIFACTS"
exit $status
