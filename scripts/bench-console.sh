#!/usr/bin/env bash
# The console's batch upload against the API's bulk POST, as a ratio measured in the
# same run: N CSV rows (id, _t, who: 2N egg `set`s) uploaded through /console/ (log in,
# the multipart form, then the result file fetched as soon as the run is done) against
# the same 2N `set` commands as one bulk POST (?-). Interleaved A,B,A,B,...; each pair
# writes two fresh binders; the figure is the median of the pairs' ratios (goal >= 0.5).
# Usage: scripts/bench-console.sh [N] [PAIRS]   (N defaults to 10000, PAIRS to 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
cargo build --release -q --bin noid
N=${1:-10000}
PAIRS=${2:-3}
NOID="$NOID_BIN/noid"
command -v htpasswd >/dev/null || apt-get install -y -q apache2-utils >/dev/null
work=$(mktemp -d /tmp/noid-bench-console.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

htpasswd -B -b -c "$work/pwd" sam secret 2>/dev/null
: > "$work/api.toml"
for i in $(seq 1 "$PAIRS"); do
    for m in up bulk; do
        "$NOID" -f "$work/$m$i" dbcreate >/dev/null
        printf '[populator.%s]\nhtpasswd = "%s"\nbinder = "%s"\n' \
            "$m$i" "$work/pwd" "$work/$m$i" >> "$work/api.toml"
    done
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
RUST_LOG=warn "$NOID" serve --http "127.0.0.1:$port" --config "$work/api.toml" &
pid=$!
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null; do
    sleep 0.1
done

python3 - "$N" "$PAIRS" "$port" "$work" <<'PY'
import base64, http.client, re, statistics, sys, time
n, pairs, port, work = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
auth = "Basic " + base64.b64encode(b"sam:secret").decode()

rows = [(f"ark:/99999/fk4{i:07d}", f"https://example.org/objects/{i}", f"Author {i}")
        for i in range(n)]
csv = ("id,_t,who\r\n" + "".join(f'{i},{t},"{w}"\r\n' for i, t, w in rows)).encode()
egg = "".join(f"{i}.set _t {t}\n{i}.set who '{w}'\n" for i, t, w in rows).encode()

def conn():
    return http.client.HTTPConnection("127.0.0.1", port)

def upload(pop):
    """Seconds from the upload's POST to its result file, read whole."""
    c = conn()
    c.request("GET", f"/console/basic/{pop}", headers={"Authorization": auth})
    r = c.getresponse(); r.read()
    cookie = r.getheader("Set-Cookie").split(";")[0]
    c.request("GET", f"/console/p/{pop}/upload", headers={"Cookie": cookie})
    page = c.getresponse().read().decode()
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    b = "bench-boundary-7d1f"
    body = b"".join([
        f'--{b}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{token}\r\n'.encode(),
        f'--{b}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n'.encode(),
        f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\n'
        f'Content-Type: text/csv\r\n\r\n'.encode(), csv, f"\r\n--{b}--\r\n".encode()])
    s = time.perf_counter()
    c.request("POST", f"/console/p/{pop}/upload", body=body, headers={
        "Cookie": cookie, "Content-Type": f"multipart/form-data; boundary={b}"})
    r = c.getresponse(); r.read()
    assert r.status == 303, (r.status, r.getheaders())
    result = r.getheader("Location").replace("uploads?", "uploads/result.csv?")
    while True:
        c.request("GET", result, headers={"Cookie": cookie})
        r = c.getresponse(); text = r.read().decode()
        if r.status == 200:
            break
        time.sleep(0.002)
    e = time.perf_counter()
    lines = text.splitlines()
    assert len(lines) == n + 1 and all(l.endswith(",written") for l in lines[1:]), lines[:3]
    return e - s

def bulk(pop):
    """Seconds of the bulk POST of the same commands."""
    c = conn()
    s = time.perf_counter()
    c.request("POST", f"/a/{pop}/b?-", body=egg, headers={"Authorization": auth})
    r = c.getresponse(); text = r.read().decode()
    e = time.perf_counter()
    assert text.rstrip().endswith("egg-status: 0"), text[-300:]
    return e - s

ratios = []
for i in range(1, pairs + 1):
    a = upload(f"up{i}")
    b = bulk(f"bulk{i}")
    ratios.append(b / a)
    print(f"pair {i}: console upload {n / a:,.0f} rows/s ({a:.3f} s), "
          f"bulk POST {n / b:,.0f} rows/s ({b:.3f} s), ratio {b / a:.2f}")
print(f"console upload of {n:,} CSV rows / bulk POST of the same {2 * n:,} sets: "
      f"median ratio {statistics.median(ratios):.2f} (goal >= 0.5)")
PY
# The stores hold what was sent: the last row of each binder.
for i in $(seq 1 "$PAIRS"); do
    for m in up bulk; do
        got=$("$NOID" -f "$work/$m$i" get "ark:/99999/fk4$(printf %07d $((N-1)))" who)
        [ "$got" = "Author $((N-1))" ] || { echo "$m$i: last row missing: $got"; exit 1; }
    done
done
