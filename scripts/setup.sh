#!/usr/bin/env bash
# Install what building noid needs on a fresh Debian machine (idempotent):
# clang/libclang for RocksDB's bindgen, g++ for its C++, PostgreSQL's server for the
# tests of the PostgreSQL backend; Rust must already be there.
set -euo pipefail
need=()
command -v clang >/dev/null 2>&1 || need+=(clang)
[ -e /usr/lib/llvm-14/lib/libclang.so ] || ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)
# The PostgreSQL backend's tests start real servers from Debian's binaries.
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
# The high-availability drills (scripts/ha-drill.sh, noid-pg's ha tests) run three
# PostgreSQL servers under Patroni, with etcd as its store; iproute2 makes their
# network namespaces.
command -v patroni >/dev/null 2>&1 || need+=(patroni)
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v etcdctl >/dev/null 2>&1 || need+=(etcd-client)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo (Rust) is required" >&2; exit 1; }
# Test tools, as root (CI): python3-fusepy for noidr's stalled-store tests (a FUSE file
# system that pauses, crates/noidr/tests/stallfs.py).
if [ "$(id -u)" = 0 ] && ! /usr/bin/python3 -c "import fusepy" >/dev/null 2>&1; then
    echo "setup: installing python3-fusepy" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-fusepy >/dev/null
fi
