#!/usr/bin/env bash
# What one lookup costs behind a web server, in measures that do not depend on the
# machine's load (docs/BENCHMARKS-web.md, second table):
#
#   * Apache prg: `noidr --protocol egg` (as apache-conf/noid-resolve.conf runs it) and the
#     constant C program of bench-web.sh, sent request lines one at a time over pipes as
#     httpd sends them under its rewrite-map mutex (the line httpd writes for a wrk
#     request: `ark:/99999/fk4NNNNNNN.resolve !!!pr=http!!!!!!ac=!!!`);
#   * `noidr --http` on a unix socket and on TCP, sent the request nginx's proxy_pass
#     sends (nginx-conf/noid-proxy.conf), one at a time on one keep-alive connection;
#     and the same requests to bench-web.sh's constant upstream (scripts/constupstream.c),
#     which shows what answering HTTP itself costs.
#
# And `noidr` once more for requests for identifiers never asked before (it resolves
# each and reads RocksDB, where a request asked before gets the answer it kept): after
# one request for every 25th identifier, so that every data block is cached, requests
# for others, each asked once.
#
# Per lookup: instructions (callgrind, of the threads that answer; runs of R and 2R
# requests, the difference divided by R, so start-up cancels out); system calls (strace -c: of the
# prg's threads, by the same difference (the lookup deadline's watchdog wakes ten
# times per deadline: a few ten-thousandths of a call per lookup); of all threads for HTTP, attached
# for R requests, where noidr's store-following thread adds a few hundredths); context
# switches of all the program's threads (/proc/PID/task/*/status, over R requests). Each
# after a warm-up request for each of the 4,096 identifiers asked for, so the store's
# blocks are cached, as in a long run.
#
#   scripts/bench-web-costs.sh [--ids N] [--requests R] [--write]
#
# NOIDR_FLAGS adds flags to every noidr (e.g. "--counts", to measure counting).
# --write replaces the costs section of docs/BENCHMARKS-web.md. Needs valgrind, strace and
# a C compiler (installed from Debian when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
IDS=100000
R=2000
WRITE=0
while [ $# -gt 0 ]; do
    case $1 in
    --ids) IDS=$2; shift 2 ;;
    --requests) R=$2; shift 2 ;;
    --write) WRITE=1; shift ;;
    *) sed -n '2,30p' "$0"; exit 2 ;;
    esac
done
. scripts/env.sh
missing=()
command -v valgrind >/dev/null || missing+=(valgrind)
command -v strace >/dev/null || missing+=(strace)
command -v cc >/dev/null || missing+=(gcc)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ -z "${NOID_BIN_DIR:-}" ]]; then
    cargo build --release -q -p noidr --bin noidr --example web_costs
    cargo build --release -q -p noid-cli --bin noid
fi
BIN=${NOID_BIN_DIR:-$NOID_BIN}
NOID=$BIN/noid
NOIDR=$BIN/noidr
CLIENT=${WEB_COSTS:-$CARGO_TARGET_DIR/release/examples/web_costs}
[ -x "$CLIENT" ] || cargo build --release -q -p noidr --example web_costs
HTHREADS=${BENCH_HTTP_THREADS:-2}

W=$(mktemp -d /tmp/noid-web-costs.XXXXXX)
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then kill -TERM "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; fi
    rm -rf "$W"
}
trap cleanup EXIT
log() { echo "bench-web-costs: $*" >&2; }

# --- the store and the requests (the same bindings as bench-web.sh) ----------------------
awk -v n="$IDS" 'BEGIN { for (i = 1; i <= n; i++)
    printf "bind set ark:/99999/fk4%07d _t https://example.org/obj/%07d\n", i, i }' >"$W/bulk.txt"
mkdir -p "$W/db"
"$NOID" -f "$W/db" dbcreate >/dev/null
"$NOID" -f "$W/db" - <"$W/bulk.txt" >/dev/null
awk -v n="$IDS" 'BEGIN { srand(7); for (i = 0; i < 4096; i++) {
    k = 1 + int(rand() * n)
    printf "ark:/99999/fk4%07d.resolve !!!pr=http!!!!!!ac=!!!\n", k > "'"$W"'/lines.txt"
    printf "/redirect/ark:/99999/fk4%07d\n", k > "'"$W"'/paths.txt"
} }'
# first.txt: every 25th identifier (the warm-up: each data block read once), then 2R
# others in random order, none asked twice (first requests).
awk -v n="$IDS" -v m=$((2 * R)) 'BEGIN { srand(9)
    for (i = 1; i <= n; i += 25) { printf "ark:/99999/fk4%07d.resolve !!!pr=http!!!!!!ac=!!!\n", i; w++ }
    while (c < m) { k = 1 + int(rand() * n); if (k % 25 == 1 || (k in seen)) continue
        seen[k] = 1; c++; printf "ark:/99999/fk4%07d.resolve !!!pr=http!!!!!!ac=!!!\n", k }
    print w > "'"$W"'/first.warm" }' >"$W/first.txt"
FIRST_WARM=$(cat "$W/first.warm")
[ "$IDS" -gt $((4 * R)) ] || { log "--ids must exceed 4 x --requests (first requests)"; exit 2; }
cc -O2 -o "$W/constprg" "$REPO/scripts/constprg.c"
cc -O2 -o "$W/constupstream" "$REPO/scripts/constupstream.c"

# --- measures ----------------------------------------------------------------------------
# callgrind's instructions (run with --separate-threads=yes) of the threads that answer,
# those that ran noidr's line loop or its HTTP server (all threads when none did: the C
# program): the store-following thread wakes every 100 ms, so its share would depend on
# how long the run took.
instructions_of() { # PREFIX
    local f n sum=0 all=0
    for f in "$1"-*; do
        n=$(awk '/^summary:/ { print $2 }' "$f")
        all=$((all + n))
        if grep -q 'noidr::lines::serve\|noidr::deadline::\|noid_http::' "$f"; then sum=$((sum + n)); fi
    done
    if [ "$sum" -gt 0 ]; then echo "$sum"; else echo "$all"; fi
}
# strace -c's total calls (its table: % time, seconds, usecs/call, calls, [errors,] name)
syscalls_of() { awk '$NF == "total" { print $4 }' "$1"; }
syscall_names() { # FILE-A FILE-B N: per-request calls of each system call, from two runs
    awk -v n="$3" '/^-|^%|total$/ { next }
        NF >= 5 { if (FILENAME == ARGV[1]) a[$NF] = $4; else b[$NF] = $4 }
        END { for (k in b) { d = (b[k] - a[k]) / n; if (d >= 0.05) printf "%s %.2f\n", k, d } }' "$1" "$2" |
        sort -k2,2nr | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }'
}
per() { awk -v a="$1" -v b="$2" -v n="$3" -v f="${4:-%.1f}" 'BEGIN { printf f, (b - a) / n }'; }

ROWS=()
prg_costs() { # NAME EXPECT LINES WARM CMD…: one row (WARM: lines sent first, empty: all)
    local name=$1 expect=$2 lines=$3
    export WEB_COSTS_WARM=$4
    [ -n "$4" ] || unset WEB_COSTS_WARM
    shift 4
    local a b sa sb ctxt
    rm -f "$W"/cg1-* "$W"/cg2-*
    "$CLIENT" prg "$lines" "$R" "$expect" -- valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$W/cg1" "$@" 2>/dev/null >/dev/null
    "$CLIENT" prg "$lines" $((2 * R)) "$expect" -- valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$W/cg2" "$@" 2>/dev/null >/dev/null
    a=$(instructions_of "$W/cg1") b=$(instructions_of "$W/cg2")
    "$CLIENT" prg "$lines" "$R" "$expect" -- strace -f -c -o "$W/st1" "$@" >/dev/null 2>&1
    "$CLIENT" prg "$lines" $((2 * R)) "$expect" -- strace -f -c -o "$W/st2" "$@" >/dev/null 2>&1
    sa=$(syscalls_of "$W/st1") sb=$(syscalls_of "$W/st2")
    ctxt=$("$CLIENT" prg "$lines" "$R" "$expect" -- "$@" 2>/dev/null | awk '/^ctxt/ { print $2 + $3 }')
    unset WEB_COSTS_WARM
    ROWS+=("| $name | $(per "$a" "$b" "$R" %.0f) | $(per "$sa" "$sb" "$R") ($(syscall_names "$W/st1" "$W/st2" "$R")) | $(per 0 "$ctxt" "$R") |")
    log "${ROWS[-1]}"
}
read -ra FLAGS <<<"${NOIDR_FLAGS:-}"
prg_costs "Apache prg: \`noidr --protocol egg\`" "redir302 https://example.org/obj/" "$W/lines.txt" "" \
    "$NOIDR" -f "$W/db" --protocol egg --egg-miss null "${FLAGS[@]}"
prg_costs "Apache prg: \`noidr --protocol egg\`, first request for each identifier" \
    "redir302 https://example.org/obj/" "$W/first.txt" "$FIRST_WARM" \
    "$NOIDR" -f "$W/db" --protocol egg --egg-miss null "${FLAGS[@]}"
prg_costs "Apache prg: constant C program" "redir302 https://example.org/obj/0000000" "$W/lines.txt" "" "$W/constprg"

start_http() { # ADDR WRAPPER…: start noidr --http on ADDR under WRAPPER, wait until it answers
    local addr=$1
    shift
    "$@" "$NOIDR" -f "$W/db" --http "$addr" --http-threads "$HTHREADS" "${FLAGS[@]}" 2>>"$W/http.log" &
    SERVER=$!
    for _ in $(seq 1 600); do
        if [[ $addr == unix:* ]]; then
            curl -s -o /dev/null --unix-socket "${addr#unix:}" http://x/health && return 0
        else
            curl -s -o /dev/null "http://$addr/health" && return 0
        fi
        sleep 0.1
    done
    log "noidr --http $addr did not start"
    cat "$W/http.log" >&2
    exit 1
}
start_const() { # ADDR WRAPPER…: the constant upstream of bench-web.sh on ADDR's port
    local addr=$1
    shift
    "$@" "$W/constupstream" "${addr##*:}" 2>>"$W/http.log" &
    SERVER=$!
    for _ in $(seq 1 600); do
        curl -s -o /dev/null "http://$addr/health" && return 0
        sleep 0.1
    done
    log "constupstream on $addr did not start"
    exit 1
}
stop_http() {
    kill -TERM "$SERVER"
    wait "$SERVER" || true
    SERVER=""
}
http_costs() { # NAME ADDR [STARTER]: one row (STARTER: start_http, or start_const)
    local name=$1 addr=$2 start=${3:-start_http} a b n calls ctxt spid
    rm -f "$W"/cg-*
    # instructions: two servers under callgrind, R and 2R requests each
    for n in $R $((2 * R)); do
        $start "$addr" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$W/cg-$n"
        "$CLIENT" http "$addr" "$W/paths.txt" "$n" "HTTP/1.1 302" >/dev/null
        stop_http
    done
    a=$(instructions_of "$W/cg-$R") b=$(instructions_of "$W/cg-$((2 * R))")
    # system calls: strace attached to every thread for R requests (after a warm-up);
    # context switches from the same server, unattached, over R requests
    $start "$addr"
    ctxt=$("$CLIENT" http "$addr" "$W/paths.txt" "$R" "HTTP/1.1 302" "$SERVER" | awk '/^ctxt/ { print $2 + $3 }')
    : >"$W/st-empty"
    strace -f -c -o "$W/st-http" -p "$SERVER" 2>/dev/null &
    spid=$!
    sleep 1
    WEB_COSTS_WARM=0 "$CLIENT" http "$addr" "$W/paths.txt" "$R" "HTTP/1.1 302" >/dev/null
    kill -INT "$spid"
    wait "$spid" || true
    stop_http
    calls=$(syscalls_of "$W/st-http")
    ROWS+=("| $name | $(per "$a" "$b" "$R" %.0f) | $(per 0 "$calls" "$R") ($(syscall_names "$W/st-empty" "$W/st-http" "$R")) | $(per 0 "$ctxt" "$R") |")
    log "${ROWS[-1]}"
}
http_costs "\`noidr --http\`, unix socket, keep-alive (nginx proxy_pass)" "unix:$W/noidr.sock"
take_port() { local p=$((20000 + RANDOM % 10000)); while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done; echo "$p"; }
http_costs "\`noidr --http\`, TCP, keep-alive (nginx proxy_pass)" "127.0.0.1:$(take_port)"
http_costs "constant C upstream (scripts/constupstream.c), TCP, keep-alive" "127.0.0.1:$(take_port)" start_const

TABLE=$(
    echo "| per lookup | instructions | system calls | context switches |"
    echo "|---|---:|---|---:|"
    printf '%s\n' "${ROWS[@]}"
)
echo "$TABLE"
if [ "$WRITE" = 1 ]; then
    f=$REPO/docs/BENCHMARKS-web.md
    {
        echo "<!-- costs:begin (written by scripts/bench-web-costs.sh --write) -->"
        echo "$IDS bound identifiers, $R requests one at a time (runs of $R and $((2 * R)) for instructions);"
        echo "\`noidr --http-threads $HTHREADS\`; $(valgrind --version), $(strace -V | head -1)."
        echo
        echo "$TABLE"
        echo "<!-- costs:end -->"
    } >"$W/section.md"
    if grep -q '<!-- costs:begin' "$f"; then
        awk -v sec="$W/section.md" '
            /<!-- costs:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
            /<!-- costs:end/ { skip = 0; next }
            !skip { print }' "$f" >"$W/new.md"
        cp "$W/new.md" "$f"
    else
        cat "$W/section.md" >>"$f"
    fi
    log "wrote $f"
fi
