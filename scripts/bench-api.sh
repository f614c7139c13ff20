#!/usr/bin/env bash
# Benchmarks of the binder API (noid serve), as ratios measured in the same run:
#   * single-command binds over one HTTP keep-alive connection (curl -K, Basic auth)
#     against one `noid bind set` process per write          (goal: >= 10x)
#   * one bulk POST of N egg binds (?-) against `noid -` given the same egg commands
#     (goal: >= 0.5x), and, for reference, `noid -` with N Perl Noid `bind set` lines
# Usage: scripts/bench-api.sh [N] [SINGLES]   (N defaults to 100000, SINGLES to 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
cargo build --release -q --bin noid
N=${1:-100000}
SINGLES=${2:-2000}
PROCS=200
NOID="$NOID_BIN/noid"
command -v htpasswd >/dev/null || apt-get install -y -q apache2-utils >/dev/null
command -v curl >/dev/null || apt-get install -y -q curl >/dev/null
work=$(mktemp -d /tmp/noid-bench-api.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
now() { date +%s.%N; }
calc() { python3 -c "print(f'{$1:,.2f}')"; }

for b in procs keep bulk cli; do "$NOID" -f "$work/$b" dbcreate >/dev/null; done
htpasswd -B -b -c "$work/pwd" sam secret 2>/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/api.toml" <<TOML
[populator.keep]
htpasswd = "$work/pwd"
binder = "$work/keep"
[populator.bulk]
htpasswd = "$work/pwd"
binder = "$work/bulk"
TOML
RUST_LOG=warn "$NOID" serve --http "127.0.0.1:$port" --config "$work/api.toml" &
pid=$!
until curl -s -o /dev/null "http://127.0.0.1:$port/"; do sleep 0.1; done

# One `noid bind set` process per write.
s=$(now)
for i in $(seq 1 "$PROCS"); do
    "$NOID" -f "$work/procs" bind set "ark:/99999/fk4p$i" _t "https://example.org/$i" >/dev/null
done
e=$(now)
procs_rate=$(python3 -c "print($PROCS/($e-$s))")
echo "noid bind set, one process per write: $PROCS writes, $(calc "$procs_rate") writes/s"

# Single-command binds on one keep-alive connection.
python3 - "$SINGLES" "$port" > "$work/curl.cfg" <<'PY'
import sys
n, port = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    print(f'url = "http://127.0.0.1:{port}/a/keep/b?ark:/99999/fk4k{i}.set%20_t%20https://example.org/{i}"')
    print('output = "/dev/null"')
PY
s=$(now); curl -s -u sam:secret -K "$work/curl.cfg"; e=$(now)
keep_rate=$(python3 -c "print($SINGLES/($e-$s))")
got=$("$NOID" -f "$work/keep" get "ark:/99999/fk4k$((SINGLES-1))" _t)
[ "$got" = "https://example.org/$((SINGLES-1))" ] || { echo "keep-alive binds missing: $got"; exit 1; }
echo "API single binds on one keep-alive connection: $SINGLES writes, $(calc "$keep_rate") writes/s"
echo "ratio keep-alive API / process per write: $(calc "$keep_rate/$procs_rate") (goal >= 10)"

# Bulk: the same N egg binds through a POST and through `noid -`; Perl Noid's `bind set`
# (one key per bind, no admin elements) for reference.
python3 - "$N" "$work" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
with open(f"{work}/egg.txt", "w") as egg, open(f"{work}/noid.txt", "w") as noid:
    for i in range(n):
        egg.write(f"ark:/99999/fk4{i:07d}.set _t https://example.org/objects/{i}\n")
        noid.write(f"bind set ark:/99999/fk4{i:07d} _t https://example.org/objects/{i}\n")
PY
"$NOID" -f "$work/perl" dbcreate >/dev/null
s=$(now); "$NOID" -f "$work/perl" - < "$work/noid.txt" > /dev/null; e=$(now)
echo "noid - with $N Perl Noid bind set: $(calc "$N/($e-$s)") binds/s (reference)"
s=$(now); "$NOID" -f "$work/cli" - < "$work/egg.txt" > /dev/null; e=$(now)
cli_rate=$(python3 -c "print($N/($e-$s))")
echo "noid - with $N egg set: $(calc "$cli_rate") binds/s"
s=$(now)
tail=$(curl -s -u sam:secret --data-binary @"$work/egg.txt" "http://127.0.0.1:$port/a/bulk/b?-" | tail -1)
e=$(now)
[ "$tail" = "egg-status: 0" ] || { echo "bulk POST failed: $tail"; exit 1; }
bulk_rate=$(python3 -c "print($N/($e-$s))")
echo "API bulk POST of $N egg set: $(calc "$bulk_rate") binds/s"
echo "ratio bulk POST / noid - (same egg commands): $(calc "$bulk_rate/$cli_rate") (goal >= 0.5)"
