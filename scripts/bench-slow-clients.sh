#!/usr/bin/env bash
# What one client's slow connections cost everyone else (issue 42, item 4), on noid
# serve (default [serve] limits) and noidr --http (default limits), as ratios measured
# in the same run: the median time of a fresh request from 127.0.0.2 while 127.0.0.1
# holds SLOW connections with half a request head each, against the same request with
# no slow connections; interleaved A,B,A,B,... over ROUNDS rounds (the slow
# connections are opened and closed around each B). Also the servers' resident set
# with the slow connections open, and how many of them each server kept open (the
# rest it closed at once: over the per-client cap).
# Usage: scripts/bench-slow-clients.sh [SLOW] [ROUNDS]   (defaults 1100 and 5)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
cargo build --release -q --bin noid --bin noidr
SLOW=${1:-1100}
ROUNDS=${2:-5}
NOID="$NOID_BIN/noid"
NOIDR="$NOID_BIN/noidr"
ulimit -n "$(ulimit -Hn)"
command -v htpasswd >/dev/null || apt-get install -y -q apache2-utils >/dev/null
work=$(mktemp -d /tmp/noid-bench-slow.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_port() {
    until python3 -c "import socket; socket.create_connection(('127.0.0.1', $1))" 2>/dev/null; do
        sleep 0.1
    done
}

"$NOID" -f "$work/binder" dbcreate >/dev/null
"$NOID" -f "$work/binder" bind set ark:/99999/fk4x _t https://example.org/x >/dev/null
htpasswd -B -b -c "$work/pwd" sam secret 2>/dev/null
printf '[populator.sam]\nhtpasswd = "%s"\nbinder = "%s"\n' "$work/pwd" "$work/binder" > "$work/api.toml"
api=$(free_port)
RUST_LOG=error "$NOID" serve --http "127.0.0.1:$api" --config "$work/api.toml" &
pids+=($!)
api_pid=$!
resolver=$(free_port)
RUST_LOG=error "$NOIDR" -f "$work/binder" --http "127.0.0.1:$resolver" &
pids+=($!)
resolver_pid=$!
wait_port "$api"
wait_port "$resolver"

python3 - "$SLOW" "$ROUNDS" "$api" "$api_pid" "$resolver" "$resolver_pid" <<'PY'
import base64, socket, statistics, sys, time
slow, rounds = int(sys.argv[1]), int(sys.argv[2])
servers = [("noid serve", int(sys.argv[3]), int(sys.argv[4]),
            b"GET /a/sam/b?ark:/99999/fk4x.fetch HTTP/1.1\r\nHost: x\r\nAuthorization: Basic "
            + base64.b64encode(b"sam:secret") + b"\r\nConnection: close\r\n\r\n"),
           ("noidr --http", int(sys.argv[5]), int(sys.argv[6]),
            b"GET /redirect/ark:/99999/fk4x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")]

def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

def fresh(port, request):
    """Seconds for one request from 127.0.0.2 on a new connection, answer read whole."""
    s = time.perf_counter()
    c = socket.socket()
    c.settimeout(120)
    c.bind(("127.0.0.2", 0))
    c.connect(("127.0.0.1", port))
    c.sendall(request)
    got = b""
    while chunk := c.recv(65536):
        got += chunk
    c.close()
    assert got.split(b" ")[1] in (b"200", b"302"), got[:200]
    return time.perf_counter() - s

def open_slow(port):
    conns = []
    for _ in range(slow):
        c = socket.socket()
        c.bind(("127.0.0.1", 0))
        c.connect(("127.0.0.1", port))
        c.sendall(b"GET / HTTP/1.1\r\nHost:")
        conns.append(c)
    return conns

def still_open(conns):
    """How many the server kept: a closed one reads EOF (or its 503 and EOF) at once."""
    kept = 0
    for c in conns:
        c.setblocking(False)
        try:
            data = c.recv(4096)
            kept += 0 if data == b"" or data.startswith(b"HTTP/1.1 503") else 1
        except BlockingIOError:
            kept += 1
        except ConnectionResetError:
            pass
    return kept

for name, port, pid, request in servers:
    fresh(port, request)  # warm
    alone, crowded, kept, rss = [], [], [], []
    for _ in range(rounds):
        alone.append(fresh(port, request))
        conns = open_slow(port)
        crowded.append(fresh(port, request))
        kept.append(still_open(conns))
        rss.append(rss_kib(pid))
        for c in conns:
            c.close()
    a, b = statistics.median(alone), statistics.median(crowded)
    print(f"{name}: a fresh request with {slow} slow connections of another client open "
          f"takes {b / a:.2f}x as long as without (median of {rounds} interleaved rounds); "
          f"the server kept {statistics.median(kept):.0f} of them open, "
          f"RSS {statistics.median(rss):.0f} KiB")
PY
