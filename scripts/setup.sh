#!/usr/bin/env bash
# Install what building and testing noid needs on a fresh Debian machine (idempotent):
# clang/libclang for RocksDB's bindgen, g++ for its C++, PostgreSQL's server for the
# tests of the PostgreSQL backend, apache2-dev and nginx-dev for the web server modules,
# and the command-line tools the tests run; Rust must already be there.
#
#   scripts/setup.sh            everything: building and every test's tools (CI, developers)
#   scripts/setup.sh --build    only what building needs (scripts/demo.sh)
#   --dry-run (after either)    say what would be installed, install nothing
set -euo pipefail
build_only=false
dry_run=false
for arg in "$@"; do
    case "$arg" in
    --build) build_only=true ;;
    --dry-run) dry_run=true ;;
    *)
        echo "setup: unknown argument $arg (scripts/setup.sh [--build] [--dry-run])" >&2
        exit 2
        ;;
    esac
done
# install WHAT PACKAGE...: install the Debian packages (or, with --dry-run, name them).
install() {
    local what=$1
    shift
    if $dry_run; then
        echo "setup: would install $*"
        return
    fi
    echo "setup: installing $*" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $what "$@" >/dev/null
}
build=()
command -v clang >/dev/null 2>&1 || build+=(clang)
[ -e /usr/lib/llvm-14/lib/libclang.so ] || ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1 || build+=(libclang-dev)
command -v g++ >/dev/null 2>&1 || build+=(g++)
if $build_only; then
    if [ ${#build[@]} -gt 0 ]; then
        install "" "${build[@]}"
    fi
    $dry_run || command -v cargo >/dev/null 2>&1 || { echo "setup: cargo (Rust) is required" >&2; exit 1; }
    exit 0
fi
need=("${build[@]}")
# The PostgreSQL backend's tests start real servers from Debian's binaries.
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
# The high-availability drills (scripts/ha-drill.sh, noidr's ha_drill test) run three
# PostgreSQL servers under Patroni, with etcd as its store; iproute2 makes their
# network namespaces.
command -v patroni >/dev/null 2>&1 || need+=(patroni)
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v etcdctl >/dev/null 2>&1 || need+=(etcd-client)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
# The web server modules (scripts/build-modules.sh): apxs and httpd's headers; nginx's
# sources and the flags of Debian's nginx, which the module must be built with.
command -v apxs >/dev/null 2>&1 || need+=(apache2-dev)
[ -x /usr/share/nginx/src/configure ] || need+=(nginx-dev)
if [ ${#need[@]} -gt 0 ]; then
    install "" "${need[@]}"
fi
$dry_run || command -v cargo >/dev/null 2>&1 || { echo "setup: cargo (Rust) is required" >&2; exit 1; }
tools=()
# Tools the tests and scripts run that a fresh Debian image lacks: curl (noidr's and
# noid serve's HTTP tests, tests/e2e), kill and pgrep (procps: the signal tests,
# tests/e2e), db_load/db_dump (db-util: the import tests of Perl Noid's BerkeleyDB
# minters), openssl (tests/e2e's test certificate), systemd-analyze (systemd:
# tests/package verifies the unit files; it needs no running systemd), man (man-db:
# tests/package reads the installed manual pages).
command -v curl >/dev/null 2>&1 || tools+=(curl)
{ [ -x /bin/kill ] || [ -x /usr/bin/kill ]; } && command -v pgrep >/dev/null 2>&1 || tools+=(procps)
command -v db_load >/dev/null 2>&1 || tools+=(db-util)
command -v openssl >/dev/null 2>&1 || tools+=(openssl)
command -v systemd-analyze >/dev/null 2>&1 || tools+=(systemd)
command -v man >/dev/null 2>&1 || tools+=(man-db)
if [ ${#tools[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        install "" "${tools[@]}"
    else
        echo "setup: the tests need ${tools[*]} (not root: install them with apt-get)" >&2
    fi
fi
# promtool (Debian's prometheus package; the service is not started) and python3-yaml
# for the monitoring tests (crates/noidr/tests/monitoring.rs: the alert rules and the
# dashboard in deploy/).
monitoring=()
command -v promtool >/dev/null 2>&1 || monitoring+=(prometheus)
/usr/bin/python3 -c "import yaml" >/dev/null 2>&1 || monitoring+=(python3-yaml)
if [ ${#monitoring[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        install "--no-install-recommends" "${monitoring[@]}"
        # Only promtool is wanted: a booted systemd would have started the server.
        if ! $dry_run && [ -d /run/systemd/system ]; then
            systemctl disable --now prometheus >/dev/null 2>&1 || true
        fi
    else
        echo "setup: the tests need ${monitoring[*]} (not root: install them with apt-get)" >&2
    fi
fi
# Test tools, as root (CI): python3-fusepy for noidr's stalled-store tests (a FUSE file
# system that pauses, crates/noidr/tests/stallfs.py).
if [ "$(id -u)" = 0 ] && ! /usr/bin/python3 -c "import fusepy" >/dev/null 2>&1; then
    install "" python3-fusepy
fi
# The browser tests (tests/browser/run.sh): Debian's Chromium and its WebDriver, and
# python3-selenium to drive it; no browser is downloaded.
if [ "$(id -u)" = 0 ]; then
    web=()
    [ -x /usr/bin/chromium ] || web+=(chromium)
    [ -x /usr/bin/chromedriver ] || web+=(chromium-driver)
    /usr/bin/python3 -c "import selenium" >/dev/null 2>&1 || web+=(python3-selenium)
    command -v npm >/dev/null 2>&1 || web+=(npm)
    if [ ${#web[@]} -gt 0 ]; then
        install "" "${web[@]}"
    fi
fi
# axe-core, the accessibility checker the browser tests run in each page, from the npm
# registry at a pinned version (tests/browser/harness.py's AXE_VERSION), into the cache
# outside the clone; the tests fail, never skip, without it.
AXE_VERSION=4.10.3
AXE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/noid-axe/$AXE_VERSION"
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ] && $dry_run; then
    echo "setup: would install axe-core $AXE_VERSION into $AXE_DIR"
elif [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
    if command -v npm >/dev/null 2>&1; then
        echo "setup: installing axe-core $AXE_VERSION into $AXE_DIR" >&2
        mkdir -p "$AXE_DIR"
        npm install --silent --no-audit --no-fund --prefix "$AXE_DIR" "axe-core@$AXE_VERSION" >/dev/null
    else
        echo "setup: the browser tests need npm (apt-get install npm) for axe-core" >&2
    fi
fi
# The citation tests (tests/e2e/citations.py) read each format back with its own parser:
# Debian's citeproc-py, bibtexparser and pyld, and rispy (no Debian package) from PyPI
# at a pinned version into the cache outside the clone; the tests fail, never skip,
# without them.
if [ "$(id -u)" = 0 ]; then
    cite=()
    for m in citeproc:python3-citeproc bibtexparser:python3-bibtexparser pyld:python3-pyld; do
        /usr/bin/python3 -c "import ${m%%:*}" >/dev/null 2>&1 || cite+=("${m#*:}")
    done
    if [ ${#cite[@]} -gt 0 ]; then
        install "" "${cite[@]}"
    fi
fi
RISPY_VERSION=0.9.0
PYLIB="${XDG_CACHE_HOME:-$HOME/.cache}/noid-pylib"
if [ ! -d "$PYLIB/rispy" ] && $dry_run; then
    echo "setup: would install rispy $RISPY_VERSION into $PYLIB"
elif [ ! -d "$PYLIB/rispy" ]; then
    command -v pip3 >/dev/null 2>&1 || /usr/bin/python3 -m pip --version >/dev/null 2>&1 || install "" python3-pip
    echo "setup: installing rispy $RISPY_VERSION into $PYLIB" >&2
    /usr/bin/python3 -m pip install -q --disable-pip-version-check --target "$PYLIB" "rispy==$RISPY_VERSION" >/dev/null
fi
