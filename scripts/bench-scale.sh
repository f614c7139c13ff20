#!/usr/bin/env bash
# How the embedded store's costs grow with the number of identifiers (issue 46,
# docs/SCALING.md, "Capacity on one machine"): N2T's load, some 50 million identifiers
# and 3,500 rule records, on one small machine. Each figure at each size is a ratio to
# the same figure at the smallest size, measured in the same run.
#
#   scripts/bench-scale.sh --ids N [--sizes A,B,...] [--rounds R] [--requests Q]
#                          [--cache-mb MIB] [--compact whole|pieces] [--web]
#                          [--web-seconds S] [--bin DIR] [--keep DIR]
#
# --ids N: the largest size; the sizes are those of 1M, 10M and 50M below N, and N (N/2
# and N when that leaves one). --sizes gives them instead (ascending; --ids is then the
# last). The data is N2T-like and the same in every run (scripts/n2t-data.py):
# identifiers across 1,000 NAANs and 2,500 shoulders, each with a target and who, what,
# when; one in 20 with a suffixed child of its own, one in 50 with several targets; and
# a prefix registry of 3,500 records that noidr is given (--registry).
#
# The load: one store grows by `noid -` runs (bulk lines) of one chunk each (the
# smallest size), as a migration loads its parts; when it reaches a size it is copied
# aside (its table files hard-linked), so that every size is there to be read in the
# same rounds. The reference for the load rate is the median of fresh loads of the
# smallest size, one at the start and one each time a larger size is reached, so that
# the machine's other work over a long load weighs on both sides.
#
# --compact LAYOUT: after the load, every size's store is compacted (`noid compact
# --index LAYOUT`: its tables rewritten into one level, their index and filters whole or
# in pieces; seconds per million identifiers), and the rounds read the compacted stores
# (as a site does after a migration's load).
#
# Then R rounds (default 3), each over every size (odd rounds smallest first, even
# rounds largest first): noidr over a pipe (scripts/bench-noidr.sh's method, the
# example bench_noidr's `file` mode) for Q random known identifiers (default 200,000),
# hits and 4-level chop-backs, one request at a time (p99) and pipelined (answers/s, and
# noidr's CPU time per answer, which other work on the machine moves less), with
# noidr's peak resident memory (--cache-mb MIB: noidr's block cache, default its own);
# 21 `noid get` processes (median wall time); `noid check` and `noid export` (seconds
# per million identifiers). A ratio is the median of the rounds' ratios (size /
# smallest size in the same round).
#
# --web adds, in the same rounds, Apache + mod_noid and nginx + its module (the
# modules of scripts/build-modules.sh, in bench-web.sh's configurations; every size's
# servers started before the rounds and warmed up): wrk -t1 -c16 for S seconds (default
# 10) of requests for random known identifiers, req/s, and the servers' resident memory
# (the largest Apache child, the nginx worker) after the rounds. Needs root when
# apache2-bin, nginx or wrk must be installed.
#
# Prints one Markdown table on standard output (progress on standard error). Uses the
# release binaries noid, noidr and the example bench_noidr, built here unless --bin DIR
# names a directory holding them (DIR/noid, DIR/noidr, DIR/examples/bench_noidr). The
# stores are made under a temporary directory, removed at the end (--keep DIR: made in
# DIR and kept). A run at 50M needs some 15 GB of disk while it loads (the store, about
# 110 bytes per identifier, room for its compactions, its copies at the smaller sizes,
# one chunk of input at a time).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

IDS=""
SIZES=""
ROUNDS=3
REQS=200000
BIN=""
KEEP=""
WEB=0
WEB_SECS=10
CACHE=()
COMPACT=""
usage() { sed -n '2,48p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --ids) IDS=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --requests) REQS=$2; shift 2 ;;
    --cache-mb) CACHE=(--cache-mb "$2"); shift 2 ;;
    --compact)
        case ${2:-} in whole | pieces) COMPACT=$2 ;; *) echo "bench-scale: --compact takes whole or pieces" >&2; exit 2 ;; esac
        shift 2 ;;
    --web) WEB=1; shift ;;
    --web-seconds) WEB_SECS=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    *) usage ;;
    esac
done
if [ -n "$SIZES" ]; then
    IFS=, read -r -a SIZE_LIST <<<"$SIZES"
else
    [ -n "$IDS" ] || usage
    SIZE_LIST=()
    for s in 1000000 10000000 50000000; do [ "$s" -lt "$IDS" ] && SIZE_LIST+=("$s"); done
    SIZE_LIST+=("$IDS")
    [ "${#SIZE_LIST[@]}" -gt 1 ] || SIZE_LIST=($((IDS / 2)) "$IDS")
fi
for ((k = 1; k < ${#SIZE_LIST[@]}; k++)); do
    [ "${SIZE_LIST[$k]}" -gt "${SIZE_LIST[$((k - 1))]}" ] || { echo "bench-scale: --sizes must ascend" >&2; exit 2; }
done
SMALL=${SIZE_LIST[0]}
LARGE=${SIZE_LIST[-1]}
CHUNK=$SMALL

if [ -z "$BIN" ]; then
    . scripts/env.sh
    cargo build --release -q -p noid-cli --bin noid
    cargo build --release -q -p noidr --bin noidr --example bench_noidr
    BIN=$CARGO_TARGET_DIR/release
fi
NOID=$BIN/noid
NOIDR=$BIN/noidr
BENCH=$BIN/examples/bench_noidr
for b in "$NOID" "$NOIDR" "$BENCH"; do
    [ -x "$b" ] || { echo "bench-scale: $b is missing" >&2; exit 1; }
done
DATA="python3 $REPO/scripts/n2t-data.py"

if [ -n "$KEEP" ]; then
    W=$KEEP
    mkdir -p "$W"
else
    W=$(mktemp -d)
fi
chmod 755 "$W" # the web servers' workers (www-data) read the stores
# At the end: the web servers stopped, the stores removed (unless --keep).
cleanup() {
    for d in "$W"/ap-*; do [ -d "$d" ] && "$REPO/scripts/web-apache.sh" stop "$d" >/dev/null 2>&1; done
    for d in "$W"/ng-*; do [ -d "$d" ] && "$REPO/scripts/web-nginx.sh" stop "$d" >/dev/null 2>&1; done
    [ -n "$KEEP" ] || rm -rf "$W"
}
trap cleanup EXIT
log() { echo "bench-scale: $*" >&2; }
now() { date +%s.%N; }
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
RESULTS=$W/results.txt # lines: SIZE ROUND MEASURE VALUE
: >"$RESULTS"
record() { echo "$1 $2 $3 $4" >>"$RESULTS"; }

$DATA registry >"$W/registry"

# `noid -` of one file of bulk lines into the store in $1; its wall time in seconds.
# Any line the load refused fails the benchmark.
load_file() {
    local t0 t1
    t0=$(now)
    "$NOID" -q -f "$1" - <"$2" >"$W/load.out" 2>&1 || { grep -m3 -i error "$W/load.out" >&2; exit 1; }
    t1=$(now)
    if grep -qi '^error' "$W/load.out"; then grep -m3 -i '^error' "$W/load.out" >&2; exit 1; fi
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
# A copy of the store $1 at $2 that the growing store's next loads leave alone: table
# files never change once written, so they are hard-linked; every other file copied.
snapshot() {
    cp -al "$1" "$2"
    find "$2" -type f ! -name '*.sst' | while read -r f; do
        cp -p --remove-destination "$1/${f#"$2"/}" "$f"
    done
}
# The smallest size loaded into a new store (removed after): the load rate's reference.
reference_load() {
    local t
    rm -rf "$W/ref"
    "$NOID" -f "$W/ref" dbcreate >/dev/null
    t=$(load_file "$W/ref" "$W/first-chunk")
    rm -rf "$W/ref"
    echo "$t"
}

# --- the load ---------------------------------------------------------------------------
STORE=$W/store
"$NOID" -f "$STORE" dbcreate >/dev/null # bind-only: any identifier may be bound
loaded=0
elapsed=0
input_bytes=0
refs=()
last_chunk=""
for size in "${SIZE_LIST[@]}"; do
    while [ "$loaded" -lt "$size" ]; do
        next=$((loaded + CHUNK))
        [ "$next" -le "$size" ] || next=$size
        $DATA binds "$loaded" "$next" >"$W/chunk"
        input_bytes=$((input_bytes + $(stat -c %s "$W/chunk")))
        t=$(load_file "$STORE" "$W/chunk")
        if [ "$loaded" = 0 ]; then
            mv "$W/chunk" "$W/first-chunk"
            refs+=("$t")
        fi
        elapsed=$(awk -v a="$elapsed" -v b="$t" 'BEGIN { printf "%.3f", a + b }')
        last_chunk="$((next - loaded)) $t"
        log "loaded $loaded..$next in $t s (load average $(cut -d' ' -f1 /proc/loadavg))"
        loaded=$next
    done
    record "$size" 0 load_rate "$(awk -v n="$size" -v t="$elapsed" 'BEGIN { printf "%.0f", n / t }')"
    record "$size" 0 last_chunk_rate "$(echo "$last_chunk" | awk '{ printf "%.0f", $1 / $2 }')"
    bytes=$(du -sb "$STORE/NOID" | cut -f1)
    record "$size" 0 disk_mb "$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')"
    record "$size" 0 bytes_per_id "$(awk -v b="$bytes" -v n="$size" 'BEGIN { printf "%.1f", b / n }')"
    record "$size" 0 bytes_per_input_byte "$(awk -v b="$bytes" -v i="$input_bytes" 'BEGIN { printf "%.3f", b / i }')"
    record "$size" 0 input_bytes_per_id "$(awk -v i="$input_bytes" -v n="$size" 'BEGIN { printf "%.1f", i / n }')"
    if [ "$size" != "$LARGE" ]; then
        snapshot "$STORE" "$W/at-$size"
        log "copied the store at $size identifiers aside"
    fi
    if [ "$size" != "$SMALL" ]; then
        refs+=("$(reference_load)")
        log "reference load of $SMALL: ${refs[-1]} s"
    fi
done
mv "$STORE" "$W/at-$LARGE"
rm -f "$W/chunk"
# The median; of two, the faster (the one other work slowed least).
ref_rate=$(printf '%s\n' "${refs[@]}" | sort -g | awk -v n="$SMALL" '{ v[NR] = $1 } END { printf "%.0f", n / v[int((NR + 1) / 2)] }')
log "load rate reference: $ref_rate identifiers/s (median of ${#refs[@]} loads of $SMALL: ${refs[*]} s)"
if [ -n "$COMPACT" ]; then
    for size in "${SIZE_LIST[@]}"; do
        t0=$(now)
        "$NOID" -q -f "$W/at-$size" compact --index "$COMPACT" >"$W/compact.out"
        t1=$(now)
        grep -qx "index and filters: $([ "$COMPACT" = pieces ] && echo "in pieces" || echo whole)" "$W/compact.out" ||
            { echo "bench-scale: noid compact at $size said:" >&2; cat "$W/compact.out" >&2; exit 1; }
        record "$size" 0 compact_s_per_m "$(awk -v a="$t0" -v b="$t1" -v n="$size" 'BEGIN { printf "%.3f", (b - a) / n * 1000000 }')"
        log "compacted the store at $size identifiers, index and filters $COMPACT ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
    done
fi

# --- the reads, round by round ----------------------------------------------------------
for size in "${SIZE_LIST[@]}"; do
    for kind in hit chop get; do
        $DATA requests "$kind" "$size" "$REQS" >"$W/req-$kind-$size"
    done
    head -21 "$W/req-get-$size" | awk '{ print $2 }' >"$W/get-ids-$size"
done
# noidr on the store at $1 answering the requests of file $2 ($3: egg or noid, $4: what
# every answer starts with): one/s p50 p99 piped/s cpu-µs peak-RSS-kB.
noidr_run() {
    "$BENCH" file "$NOIDR" "$3" "$2" "$4" -f "$W/at-$1" --registry "$W/registry" "${CACHE[@]}" | sed -n 's/^RESULT //p'
}
# The median wall time of 21 `noid get ID _t` processes, in ms.
get_ms() {
    python3 - "$NOID" "$W/at-$1" "$W/get-ids-$1" <<'PY'
import subprocess, sys, time
noid, d, ids = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().split()
ts = []
for i in ids:
    t = time.perf_counter()
    out = subprocess.run([noid, "-f", d, "get", i, "_t"], capture_output=True, check=True)
    ts.append(time.perf_counter() - t)
    assert out.stdout.startswith(b"https://"), out.stdout
ts.sort()
print(f"{ts[len(ts) // 2] * 1000:.2f}")
PY
}
# Seconds per million identifiers of the command "$2 ..." on the store at size $1.
per_million() {
    local size=$1 t0 t1
    shift
    t0=$(now)
    "$NOID" -q -f "$W/at-$size" "$@" >/dev/null
    t1=$(now)
    awk -v a="$t0" -v b="$t1" -v n="$size" 'BEGIN { printf "%.3f", (b - a) / n * 1000000 }'
}
# The web servers, one Apache and one nginx per size, started before the rounds.
if [ "$WEB" = 1 ]; then
    MODULES=${NOID_MODULES_DIR:-$BIN/../modules}
    for m in mod_noid.so ngx_http_noid_module.so; do
        [ -f "$MODULES/$m" ] || { echo "bench-scale: $MODULES/$m is missing (scripts/build-modules.sh)" >&2; exit 1; }
    done
    "$REPO/scripts/web-apache.sh" install
    "$REPO/scripts/web-nginx.sh" install
    command -v wrk >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y wrk >/dev/null
    port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
    NEXT_PORT=$((10000 + RANDOM % 10000)) # below the ephemeral range (32768-)
    take_port() {                         # VAR: set VAR to a free port
        while ! port_free "$NEXT_PORT"; do NEXT_PORT=$((NEXT_PORT + 1)); done
        printf -v "$1" '%s' "$NEXT_PORT"
        NEXT_PORT=$((NEXT_PORT + 1))
    }
    # A known identifier (number 3) and its target, from the generator.
    read -r _ _ SANE_ID _ SANE_TARGET < <($DATA binds 3 4 | sed -n 1p)
    declare -A AP_PORT NG_PORT
    for size in "${SIZE_LIST[@]}"; do
        $DATA requests path "$size" "$REQS" >"$W/paths-$size"
        cat >"$W/rand-$size.lua" <<EOF
local paths = {}
for line in io.lines("$W/paths-$size") do paths[#paths + 1] = line end
local n = #paths
math.randomseed(os.time())
request = function() return wrk.format("GET", paths[math.random(n)]) end
done = function(summary, latency, requests)
    local s = summary.duration / 1e6
    io.write(string.format("RESULT %.0f %d %d\n", summary.requests / s, summary.errors.status,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
EOF
        take_port p
        mkdir -p "$W/ap-$size"
        cat >"$W/ap-$size/site.conf" <<EOF
Listen 127.0.0.1:$p
LoadModule noid_module $MODULES/mod_noid.so
NoidMap noid $W/at-$size
RewriteMap rslv int:noid_get
RewriteEngine On
RewriteCond "\${rslv:get \$1 _t|__NF__}" "^(?!__NF__\$)(.+)\$"
RewriteRule "^/(ark:/.+)\$" "%1" [R=302,NE,L,UnsafeAllow3F]
RewriteRule "^/ark:/" "-" [R=404,L]
EOF
        NOID_WEB_ACCESSLOG=0 "$REPO/scripts/web-apache.sh" start "$W/ap-$size" >&2
        AP_PORT[$size]=$p
        take_port p
        mkdir -p "$W/ng-$size"
        cat >"$W/ng-$size/site.conf" <<EOF
server {
    listen 127.0.0.1:$p;
    noid_map egg $W/at-$size;
    include $REPO/nginx-conf/noid-module.conf;
    include $REPO/nginx-conf/noid-module-local.conf;
}
EOF
        NOID_WEB_ACCESSLOG=0 NOID_WEB_NGINX_MAIN="load_module $MODULES/ngx_http_noid_module.so;" \
            "$REPO/scripts/web-nginx.sh" start "$W/ng-$size" >&2
        NG_PORT[$size]=$p
        for port in "${AP_PORT[$size]}" "$p"; do
            for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
            got=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$port/$SANE_ID")
            [ "$got" = "302 $SANE_TARGET" ] ||
                { echo "bench-scale: port $port answered '$got' for $SANE_ID, not 302 $SANE_TARGET" >&2; exit 1; }
            # The warm-up (unrecorded): S seconds of the same requests.
            wrk -t1 -c16 -d"${WEB_SECS}s" -s "$W/rand-$size.lua" "http://127.0.0.1:$port" >/dev/null
        done
        log "web servers on $size identifiers: Apache ${AP_PORT[$size]}, nginx ${NG_PORT[$size]}"
    done
fi
# wrk on port $2 with size $1's identifiers: req/s. A non-3xx answer or a socket error
# fails the benchmark.
web_rps() {
    local rps status errors
    read -r rps status errors < <(wrk -t1 -c16 -d"${WEB_SECS}s" -s "$W/rand-$1.lua" "http://127.0.0.1:$2" | sed -n 's/^RESULT //p')
    if [ "$status" != 0 ] || [ "$errors" != 0 ]; then
        echo "bench-scale: port $2: $status non-3xx answers, $errors socket errors" >&2
        exit 1
    fi
    echo "$rps"
}
# The largest peak resident memory (VmHWM, MB) among the children of the server whose
# pid file is $1: Apache's children, nginx's worker.
children_mb() {
    local kb=0 k c
    for c in $(pgrep -P "$(cat "$1")"); do
        k=$(awk '/^VmHWM:/ { print $2 }' "/proc/$c/status" 2>/dev/null)
        [ "${k:-0}" -gt "$kb" ] && kb=$k
    done
    awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }'
}
REVERSED=()
for ((k = ${#SIZE_LIST[@]} - 1; k >= 0; k--)); do REVERSED+=("${SIZE_LIST[$k]}"); done
for r in $(seq 1 "$ROUNDS"); do
    if ((r % 2 == 1)); then order=("${SIZE_LIST[@]}"); else order=("${REVERSED[@]}"); fi
    for size in "${order[@]}"; do
        read -r one p50 p99 piped cpu rss < <(noidr_run "$size" "$W/req-hit-$size" egg "redir302 https://")
        record "$size" "$r" hit_piped "$piped"
        record "$size" "$r" hit_cpu "$cpu"
        record "$size" "$r" hit_p99 "$p99"
        record "$size" "$r" noidr_rss_mb "$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')"
        read -r one p50 p99 piped cpu rss < <(noidr_run "$size" "$W/req-chop-$size" egg "redir302 https://")
        record "$size" "$r" chop_piped "$piped"
        record "$size" "$r" chop_cpu "$cpu"
        record "$size" "$r" chop_p99 "$p99"
        record "$size" "$r" get_ms "$(get_ms "$size")"
        record "$size" "$r" check_s_per_m "$(per_million "$size" check)"
        record "$size" "$r" export_s_per_m "$(per_million "$size" export)"
        if [ "$WEB" = 1 ]; then
            record "$size" "$r" apache_rps "$(web_rps "$size" "${AP_PORT[$size]}")"
            record "$size" "$r" nginx_rps "$(web_rps "$size" "${NG_PORT[$size]}")"
        fi
        log "round $r, $size identifiers: done (load average $(cut -d' ' -f1 /proc/loadavg))"
    done
done

if [ "$WEB" = 1 ]; then
    for size in "${SIZE_LIST[@]}"; do
        record "$size" 0 apache_child_mb "$(children_mb "$W/ap-$size/run/httpd.pid")"
        record "$size" 0 nginx_worker_mb "$(children_mb "$W/ng-$size/run/nginx.pid")"
    done
fi

# --- the table --------------------------------------------------------------------------
# A row per measure: its value at each size (the median of the rounds), and at each
# larger size the ratio to the smallest (the median of the rounds' ratios; the load's
# against the reference loads), with the goal.
ROWS="load_rate|bulk load through \`noid -\`, identifiers/s (whole load)|>=|0.7
last_chunk_rate|bulk load, identifiers/s of the last chunk of $CHUNK|>=|0.7
hit_piped|noidr hits pipelined, answers/s|>=|0.8
chop_piped|noidr 4-level chop-backs pipelined, answers/s|>=|0.8
hit_cpu|noidr hits pipelined, noidr's CPU µs per answer|<=|1.25
chop_cpu|noidr chop-backs pipelined, noidr's CPU µs per answer|<=|1.25
hit_p99|noidr hits one at a time, p99 µs|<=|1.5
chop_p99|noidr chop-backs one at a time, p99 µs|<=|1.5
get_ms|one \`noid get\` process, ms (median of 21)|<=|1.5
check_s_per_m|\`noid check\`, s per million identifiers|<=|1.3
export_s_per_m|\`noid export\`, s per million identifiers|<=|1.3
noidr_rss_mb|noidr peak resident memory, MB|<=|stated
apache_rps|Apache + mod_noid, req/s (random identifiers)|>=|0.8
nginx_rps|nginx + the noid module, req/s (random identifiers)|>=|0.8
apache_child_mb|Apache + mod_noid, the largest child's peak resident memory, MB|<=|stated
nginx_worker_mb|nginx + the noid module, the worker's peak resident memory, MB|<=|stated
compact_s_per_m|\`noid compact --index $COMPACT\` after the load, s per million identifiers|<=|stated
disk_mb|store on disk (\`NOID/\`), MB|<=|stated
bytes_per_id|store bytes per identifier|<=|stated
input_bytes_per_id|input (\`noid -\` lines) bytes per identifier|<=|stated
bytes_per_input_byte|store bytes per input byte (absolute, each size)|<=|1.0"
header="| measure |"
rule="|---|"
for s in "${SIZE_LIST[@]}"; do
    header+=" $s |"
    rule+="---:|"
done
header+=" goal | met |"
rule+="---|---|"
echo "N2T-like data, sizes ${SIZES:-${SIZE_LIST[*]}} identifiers; $ROUNDS round(s), $REQS requests per noidr run${CACHE[1]:+, noidr --cache-mb ${CACHE[1]}}; $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'); load average at the start $START_LOAD, at the end $(cut -d' ' -f1-3 /proc/loadavg). Cells: the value (the median of the rounds), and in brackets its ratio to the smallest size (the median of the rounds' ratios)."
echo
echo "$header"
echo "$rule"
echo "$ROWS" | while IFS='|' read -r key label dir goal; do
    case $key in apache_* | nginx_*) [ "$WEB" = 1 ] || continue ;; compact_*) [ -n "$COMPACT" ] || continue ;; esac
    awk -v key="$key" -v label="$label" -v dir="$dir" -v goal="$goal" -v sizes="${SIZE_LIST[*]}" -v ref="$ref_rate" '
        function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
        $3 == key { v[$1, $2] = $4; rounds[$2] = 1 }
        END {
            ns = split(sizes, s, " ")
            row = "| " label " |"
            met = "yes"
            for (k = 1; k <= ns; k++) {
                n = 0; for (r in rounds) if ((s[k], r) in v) vals[++n] = v[s[k], r]
                if (n == 0) { row = row " MISSING |"; met = "MISSING"; continue }
                value = med(vals, n)
                if (key == "bytes_per_input_byte") {
                    row = row " " value " |"
                    if (value + 0 > goal + 0) met = "no"
                    continue
                }
                if (key == "load_rate" || key == "last_chunk_rate") {
                    if (k == 1) { row = row " " ref " |"; continue }
                    row = row sprintf(" %s (%.2f) |", value, value / ref)
                    if (value / ref < goal + 0) met = "no"
                    continue
                }
                if (k == 1) { row = row " " value " |"; continue }
                n = 0
                for (r in rounds) if ((s[k], r) in v && (s[1], r) in v && v[s[1], r] > 0) ratios[++n] = v[s[k], r] / v[s[1], r]
                if (n == 0) { row = row " " value " (MISSING) |"; met = "MISSING"; continue }
                q = med(ratios, n)
                row = row sprintf(" %s (%.2f) |", value, q)
                if (goal != "stated" && ((dir == ">=" && q < goal) || (dir == "<=" && q > goal))) met = "no"
            }
            if (goal == "stated") { row = row " stated |  |" } else { row = row " " (dir == ">=" ? "≥ " : "≤ ") goal " | " met " |" }
            print row
        }' "$RESULTS"
done
echo
echo "The load's figure at $SMALL is the median (of two, the faster) of ${#refs[@]} fresh loads of $SMALL identifiers (${refs[*]} s), one at the start and one after each larger size was loaded; the larger sizes' ratios are to it. The store grew by \`noid -\` runs of $CHUNK identifiers.${COMPACT:+ Then the store at each size was compacted (\`noid compact --index $COMPACT\`), and the reads are of the compacted stores; the disk figures are of the stores as loaded.}"
