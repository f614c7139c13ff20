#!/usr/bin/env bash
# The link checker's speed and memory, as docs/LINKS.md reports them:
#   * `noid links check` (HEAD, pages not read) over TARGETS targets spread over HOSTS
#     loopback virtual hosts (one port each), against `curl --parallel --parallel-max
#     CONC --head` over the same URLs, at the same total concurrency: interleaved
#     runs, the median of the pairs' ratios (curl's time / the checker's; above 1 the
#     checker is faster); the per-host limit counted at the servers;
#   * the checker's peak RSS at RSS_TARGETS targets (streamed a page at a time).
# Usage: scripts/bench-links.sh [TARGETS] [HOSTS] [CONC] [RUNS] [RSS_TARGETS]
#        (defaults 100000 200 64 3 1000000; PER_HOST=2)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
TARGETS=${1:-100000}
HOSTS=${2:-200}
CONC=${3:-64}
RUNS=${4:-3}
RSS_TARGETS=${5:-1000000}
PER_HOST=${PER_HOST:-2}
command -v curl >/dev/null || apt-get install -y -q curl >/dev/null
[ -x /usr/bin/time ] || apt-get install -y -q time >/dev/null
cargo build --release -q -p noid-cli --bin noid
cargo build --release -q -p noid-links --features testing --example bench-hosts
NOID="$NOID_BIN/noid"
HOSTS_BIN="$NOID_BIN/examples/bench-hosts"
work=$(mktemp -d /tmp/noid-bench-links.XXXXXX)
pid=
trap 'exec 3>&- 2>/dev/null || true; [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
now() { date +%s.%N; }

mkfifo "$work/control"
"$HOSTS_BIN" "$HOSTS" < "$work/control" > "$work/ports" &
pid=$!
exec 3> "$work/control"
while [ ! -s "$work/ports" ]; do sleep 0.1; done
read -r -a ports < "$work/ports"
# What the hosts saw since the last call: "requests N" and "most_in_flight_per_host M".
stats() {
    rm -f "$work/stats"
    echo "$work/stats.new" >&3
    while [ ! -s "$work/stats.new" ]; do sleep 0.05; done
    sleep 0.05
    mv "$work/stats.new" "$work/stats"
    cat "$work/stats"
}

# A minter with N identifiers, the i-th bound to host i mod HOSTS.
minter() {
    local dir=$1 n=$2
    "$NOID" -f "$dir" dbcreate b.sddddddd >/dev/null
    "$NOID" -f "$dir" mint "$n" | awk -v hosts="$HOSTS" -v ports="${ports[*]}" '
        BEGIN { split(ports, p, " ") }
        /^id: / { i = NR - 1; print "bind set " $2 " _t http://127.0.0.1:" p[i % hosts + 1] "/t/" i }' \
        > "$dir.binds"
    "$NOID" -f "$dir" - < "$dir.binds" > /dev/null
}
check() {
    "$NOID" -f "$1" links check --no-pages --interval 0s --per-host "$PER_HOST" \
        --concurrency "$CONC" --allow-net 127.0.0.0/8 --failures 1 --span 0s \
        --contact https://example.org/bench > "$work/summary"
}

minter "$work/m" "$TARGETS"
sed -e 's/^bind set [^ ]* _t \(.*\)$/url = "\1"/' "$work/m.binds" > "$work/curl.cfg"
stats > /dev/null
ratios=()
most=0
for run in $(seq "$RUNS"); do
    t0=$(now); check "$work/m"; t1=$(now)
    seen=$(stats)
    grep -q "^ok: $TARGETS$" "$work/summary" || { echo "checker: $(cat "$work/summary")" >&2; exit 1; }
    [ "$(awk '/^requests/ {print $2}' <<<"$seen")" = "$TARGETS" ] || { echo "hosts saw: $seen" >&2; exit 1; }
    m=$(awk '/^most_in_flight/ {print $2}' <<<"$seen")
    [ "$m" -gt "$most" ] && most=$m
    t2=$(now); curl -s --no-progress-meter --parallel --parallel-max "$CONC" --head -K "$work/curl.cfg" > /dev/null; t3=$(now)
    seen=$(stats)
    [ "$(awk '/^requests/ {print $2}' <<<"$seen")" = "$TARGETS" ] || { echo "curl: hosts saw $seen" >&2; exit 1; }
    ratios+=("$(python3 -c "print(($t3 - $t2) / ($t1 - $t0))")")
done
[ "$most" -le "$PER_HOST" ] || { echo "per-host limit $PER_HOST exceeded: $most at once" >&2; exit 1; }
median=$(python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "${ratios[@]}")
pairs=$(python3 -c "import sys; print(' '.join(f'{float(r):.2f}' for r in sys.argv[1:]))" "${ratios[@]}")

minter "$work/r" "$RSS_TARGETS"
/usr/bin/time -f '%M' -o "$work/rss" "$NOID" -f "$work/r" links check --no-pages --interval 0s \
    --per-host "$PER_HOST" --concurrency "$CONC" --allow-net 127.0.0.0/8 --failures 1 \
    --span 0s --contact https://example.org/bench > "$work/summary"
grep -q "^ok: $RSS_TARGETS$" "$work/summary" || { echo "checker: $(cat "$work/summary")" >&2; exit 1; }
rss=$(python3 -c "print(f'{int(open(\"$work/rss\").read().split()[-1]) / 1024:.0f}')")

echo "| figure | reference | ratio | command |"
echo "| --- | --- | --- | --- |"
echo "| noid links check, $TARGETS targets over $HOSTS loopback hosts, $CONC at once, at most $PER_HOST per host (most seen: $most) | curl --parallel --parallel-max $CONC --head, same URLs | ${median}x (median of $RUNS interleaved pairs: $pairs; above 1 the checker is faster) | scripts/bench-links.sh $TARGETS $HOSTS $CONC $RUNS $RSS_TARGETS |"
echo "| peak RSS of noid links check at $RSS_TARGETS targets | 200 MiB | $rss MiB | scripts/bench-links.sh $TARGETS $HOSTS $CONC $RUNS $RSS_TARGETS |"
