#!/usr/bin/env bash
# Web-server benchmarks of issue 5, all in one run (docs/BENCHMARKS-web.md):
#
#   Apache + noidr prg: (apache-conf/noid-resolve.conf)      vs
#   Apache + a trivial constant prg: (same config, a 10-line C program: the ceiling)  vs
#   Apache + dbm=sdbm: (httxt2dbm from the same bindings)     vs
#   Apache without any map (a fixed redirect: Apache's own ceiling);
#   Apache mod_proxy -> noidr --http (apache-conf/noid-proxy.conf);
#   nginx proxy_pass / auth_request / njs -> noidr --http (nginx-conf/*.conf)  vs
#   nginx proxy_pass -> a constant C upstream (scripts/constupstream.c: proxy_pass's ceiling);
#   nginx with the same bindings in a native `map`;
#   the modules (scripts/build-modules.sh): Apache + mod_noid (the children's answers
#   shared, and each child's its own) vs the same rules with int:tolower; nginx's module
#   vs its native `map` and vs proxy_pass to noidr --http.
#
# noidr --http runs with --http-threads ${BENCH_HTTP_THREADS:-2}; nginx with
# worker_processes ${NOID_WEB_NGINX_WORKERS:-1}.
# Every run: wrk -t1 -c16 -d${BENCH_SECONDS:-10}s --latency on loopback (-c: --connections), each request for a
# random one of the N (default 1,000,000) bound identifiers; the runs go round-robin over
# the setups (odd rounds in order, even rounds reversed), and each goal is the median of the
# pair ratios setup/reference, round by round.
#
#   scripts/bench-web.sh [--ids N] [--runs R] [--seconds S] [--warmup S] [--connections C]
#                        [--only REGEX] [--write]
#
# Before the runs every setup is asked for every bound identifier once, in a random order,
# unrecorded: the caches of every setup (the page cache, Apache's children and the answers
# they keep, noidr's) are measured as in a server that has been answering for a while, and
# by a number of requests, not of seconds, so the same on a slower or busier machine;
# --warmup 2 (seconds of random requests) measures them while they still fill.
#
# --write replaces the results section of docs/BENCHMARKS-web.md (the goals' table) and
# then runs scripts/bench-web-costs.sh --write (the costs per lookup: instructions, system
# calls, context switches; --no-costs skips it). On a shared machine,
# run it as `nice -n -5 scripts/bench-web.sh` (root) and read the load-average column:
# the written section says when the machine was loaded. Expects release
# binaries in ${CARGO_TARGET_DIR:-~/.cache/noid-target}/release (noid, noidr); installs
# apache2-bin, apache2-utils, nginx, libnginx-mod-http-js, wrk, curl when missing (root).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NOID_BIN_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/noid-target}/release}
NOID=$BIN/noid
NOIDR=$BIN/noidr
IDS=1000000
RUNS=3
SECS=${BENCH_SECONDS:-10}
WARMUP=sweep
# Other work on the machine: the load before anything here starts (goals are judged only
# when it is at most the cores; the runs' own load is reported beside each ratio).
START_LOAD=$(cut -d' ' -f1 /proc/loadavg)
CONNS=16
ONLY=.
WRITE=0
COSTS=1
while [ $# -gt 0 ]; do
    case $1 in
    --ids) IDS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --seconds) SECS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --connections) CONNS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --write) WRITE=1; shift ;;
    --no-costs) COSTS=0; shift ;;
    *) sed -n '2,27p' "$0"; exit 2 ;;
    esac
done
for b in "$NOID" "$NOIDR"; do
    [ -x "$b" ] || { echo "bench-web: $b missing (cargo build --release)" >&2; exit 1; }
done

"$REPO/scripts/web-apache.sh" install
"$REPO/scripts/web-nginx.sh" install
if ! command -v wrk >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y wrk >/dev/null
fi

W=$(mktemp -d /tmp/noid-bench-web.XXXXXX)
chmod 755 "$W"
HTTP_PID=""
cleanup() {
    for d in "$W"/ap-*; do [ -d "$d" ] && "$REPO/scripts/web-apache.sh" stop "$d" >/dev/null 2>&1; done
    for d in "$W"/ng-*; do [ -d "$d" ] && "$REPO/scripts/web-nginx.sh" stop "$d" >/dev/null 2>&1; done
    # (wait answers the killed noidr's status: not this script's failure)
    for p in $HTTP_PID; do kill -TERM "$p" 2>/dev/null && { wait "$p" 2>/dev/null || true; }; done
    rm -rf "$W"
}
trap cleanup EXIT
log() { echo "bench-web: $*" >&2; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
NEXT_PORT=$((10000 + RANDOM % 10000)) # below the ephemeral range (32768-)
take_port() { # VAR: set VAR to a free port (no subshell: NEXT_PORT must advance)
    while ! port_free "$NEXT_PORT"; do NEXT_PORT=$((NEXT_PORT + 1)); done
    printf -v "$1" '%s' "$NEXT_PORT"
    NEXT_PORT=$((NEXT_PORT + 1))
}

# --- data: N identifiers, one file per consumer ----------------------------------------
# ark:/99999/fk4NNNNNNN -> https://example.org/obj/NNNNNNN (same lengths for every id)
log "generating $IDS bindings"
awk -v n="$IDS" 'BEGIN {
    for (i = 1; i <= n; i++) {
        id = sprintf("ark:/99999/fk4%07d", i); t = sprintf("https://example.org/obj/%07d", i)
        print "bind set " id " _t " t                    > "'"$W"'/bulk.txt"
        print id " " t                                   > "'"$W"'/dbm.txt"
        print "\"/" id "\" \"" t "\";"                   > "'"$W"'/nginx.map"
        print "/" id                                     > "'"$W"'/paths.txt"
    }
}'
DB=$W/db
mkdir -p "$DB"
"$NOID" -f "$DB" dbcreate >/dev/null
t0=$(date +%s.%N)
"$NOID" -f "$DB" - <"$W/bulk.txt" >/dev/null
t1=$(date +%s.%N)
log "loaded $IDS bindings with noid bulk mode in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
httxt2dbm -f SDBM -i "$W/dbm.txt" -o "$W/map.dbm" >/dev/null
log "built the sdbm map"

# wrk: a random bound identifier per request; prints one machine-readable line.
cat >"$W/rand.lua" <<EOF
local paths = {}
for line in io.lines("$W/paths.txt") do paths[#paths + 1] = line end
local n = #paths
math.randomseed(os.time())
request = function()
    return wrk.format("GET", paths[math.random(n)])
end
done = function(summary, latency, requests)
    local s = summary.duration / 1e6
    io.write(string.format("RESULT %.0f %d %d %d %d %d\n", summary.requests / s,
        latency:percentile(50), latency:percentile(99), summary.errors.status,
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
        summary.requests))
end
EOF

# The warm-up: every bound identifier once, in a random order, then wrk stops.
cat >"$W/sweep.lua" <<EOF
local paths = {}
for line in io.lines("$W/paths.txt") do paths[#paths + 1] = line end
local n = #paths
math.randomseed(os.time())
for i = n, 2, -1 do local j = math.random(i); paths[i], paths[j] = paths[j], paths[i] end
local sent, answered = 0, 0
request = function()
    sent = sent + 1
    return wrk.format("GET", paths[(sent - 1) % n + 1])
end
response = function()
    answered = answered + 1
    if answered == n then
        io.open("$W/swept", "w"):close() -- wrk's own clock runs on: the script stops it
        wrk.thread:stop()
    end
end
EOF

# The trivial prg: answers a constant of the same length as a real answer.
cc -O2 -o "$W/constprg" "$REPO/scripts/constprg.c"
# The trivial HTTP upstream: answers every request with a constant 302 (proxy_pass's ceiling).
cc -O2 -o "$W/constupstream" "$REPO/scripts/constupstream.c"

# --- running -----------------------------------------------------------------------------
RESULTS=$W/results.txt
: >"$RESULTS"
sanity() { # PORT: a random id must redirect to its own target
    local port=$1 i loc want code
    for i in 17 $((IDS / 2)) $IDS; do
        want=$(printf "https://example.org/obj/%07d" "$i")
        read -r code loc < <(curl -s -o /dev/null -w '%{http_code} %{redirect_url}\n' \
            "http://127.0.0.1:$port/$(printf 'ark:/99999/fk4%07d' "$i")")
        if [ "$code" != 302 ] || { [ "$loc" != "$want" ] && [ "$2" != const ]; }; then
            log "sanity check failed on port $port: $code $loc (want 302 $want)"
            return 1
        fi
    done
}
# Every setup is started first and stays up; then the runs go round-robin over the setups
# (run 1 of each, run 2 of each, ...), so that load from elsewhere on a shared machine hits
# all of them alike instead of whichever setup happened to run at that moment.
NAMES=() PORTS=() KINDS=()
add() { # NAME PORT [const]
    NAMES+=("$1") PORTS+=("$2") KINDS+=("${3:-}")
}
apache() { # NAME PORT CONF-BODY: starts an instance
    local d=$W/ap-$1 port=$2
    mkdir -p "$d"
    printf 'Listen 127.0.0.1:%s\nDefine NOIDR %s\nDefine NOID_DBDIR %s\n%s\n' "$port" "${NOIDR_PROG:-$NOIDR}" "$DB" "$3" >"$d/site.conf"
    NOID_WEB_ACCESSLOG=0 "$REPO/scripts/web-apache.sh" start "$d" >&2
    for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
}
apache_stop() { "$REPO/scripts/web-apache.sh" stop "$W/ap-$1"; }

nginx() { # NAME SITE-BODY [HTTP-EXTRA]
    local d=$W/ng-$1
    mkdir -p "$d"
    echo "$2" >"$d/site.conf"
    NOID_WEB_ACCESSLOG=0 NOID_WEB_NGINX_HTTP="${3:-}" "$REPO/scripts/web-nginx.sh" start "$d" >&2
}
nginx_stop() { "$REPO/scripts/web-nginx.sh" stop "$W/ng-$1"; }

# noidr --http on TCP and on a unix socket, shared by the proxy variants
HTHREADS=${BENCH_HTTP_THREADS:-2}
take_port H
"$NOIDR" -f "$DB" --http "127.0.0.1:$H" --http-threads "$HTHREADS" 2>"$W/noidr-http.log" &
HTTP_PID=$!
# umask 0: nginx's workers (www-data) must be able to connect to the socket
(umask 0 && exec "$NOIDR" -f "$DB" --http "unix:$W/noidr.sock" --http-threads "$HTHREADS" 2>"$W/noidr-unix.log") &
HTTP_PID="$HTTP_PID $!"
for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$H/health" && curl -s -o /dev/null --unix-socket "$W/noidr.sock" http://x/health && break
    sleep 0.1
done

RESOLVE_CONF="Include $REPO/apache-conf/noid-server.conf
Include $REPO/apache-conf/noid-resolve.conf"

want() { [[ $1 =~ $ONLY ]]; }
if want apache-noidr-prg; then
    take_port p
    apache noidr "$p" "$RESOLVE_CONF"
    add apache-noidr-prg "$p"
fi
if want apache-constant-prg; then
    take_port p
    NOIDR_PROG=$W/constprg apache const "$p" "$RESOLVE_CONF"
    add apache-constant-prg "$p" const
fi
# The web server modules (scripts/build-modules.sh): mod_noid against the same Apache with
# mod_rewrite's own internal map function (the same rules; only the RewriteMap differs),
# and against the prg path it replaces (the shipped noid-resolve.conf either way).
MODULES=${NOID_MODULES_DIR:-$BIN/../modules}
MIN_RULES='RewriteEngine On
RewriteCond "${rslv:get $1 _t|__NF__}" "^(?!__NF__$)(.+)$"'
if want apache-int-tolower; then
    take_port p
    apache tolower "$p" "RewriteMap rslv int:tolower
$MIN_RULES
RewriteRule \"^/(ark:/.+)\$\" \"http://example.org/%1\" [R=302,NE,L,UnsafeAllow3F]
RewriteRule \"^/ark:/\" \"-\" [R=404,L]"
    add apache-int-tolower "$p" const
fi
NOID_GET_RULES="RewriteMap rslv int:noid_get
$MIN_RULES
RewriteRule \"^/(ark:/.+)\$\" \"%1\" [R=302,NE,L,UnsafeAllow3F]
RewriteRule \"^/ark:/\" \"-\" [R=404,L]"
if want apache-mod_noid && [ -f "$MODULES/mod_noid.so" ]; then
    take_port p
    apache modnoid "$p" "LoadModule noid_module $MODULES/mod_noid.so
NoidMap noid $DB
$NOID_GET_RULES"
    add apache-mod_noid "$p"
fi
# The same, each child keeping its own answers (shared-answers=0): what the children's
# shared answers are worth.
if want apache-mod_noid-unshared && [ -f "$MODULES/mod_noid.so" ]; then
    take_port p
    apache modnoidunshared "$p" "LoadModule noid_module $MODULES/mod_noid.so
NoidMap noid $DB shared-answers=0
$NOID_GET_RULES"
    add apache-mod_noid-unshared "$p"
fi
if want apache-mod_noid-resolve && [ -f "$MODULES/mod_noid.so" ]; then
    take_port p
    apache modnoidegg "$p" "LoadModule noid_module $MODULES/mod_noid.so
Define NOID_MODULE
$RESOLVE_CONF"
    add apache-mod_noid-resolve "$p"
fi
if want apache-dbm-sdbm; then
    take_port p
    apache dbm "$p" "RewriteEngine On
RewriteMap m \"dbm=sdbm:$W/map.dbm\"
RewriteCond \"\${m:\$1|__NOTFOUND__}\" \"^(?!__NOTFOUND__\$)(.+)\$\"
RewriteRule \"^/(ark:/.+)\$\" \"%1\" [R=302,NE,L,UnsafeAllow3F]
RewriteRule \"^/ark:/\" \"-\" [R=404,L]"
    add apache-dbm-sdbm "$p"
fi
if want apache-fixed-redirect; then
    take_port p
    apache fixed "$p" "RewriteEngine On
RewriteRule \"^/ark:/\" \"https://example.org/obj/0000000\" [R=302,L]"
    add apache-fixed-redirect "$p" const
fi
if want apache-mod_proxy-noidr-http; then
    take_port p
    apache proxy "$p" "Define NOIDR_URL http://127.0.0.1:$H
Include $REPO/apache-conf/noid-proxy.conf"
    add apache-mod_proxy-noidr-http "$p"
fi
take_port C
"$W/constupstream" "$C" &
HTTP_PID="$HTTP_PID $!"
for v in proxy:tcp auth:tcp njs:tcp proxy:unix proxy:const; do
    pattern=${v%:*} via=${v#*:}
    name=nginx-$pattern-noidr-http
    server="127.0.0.1:$H"
    if [ "$via" = unix ]; then name=$name-unix; server="unix:$W/noidr.sock"; fi
    if [ "$via" = const ]; then name=nginx-$pattern-constant-upstream; server="127.0.0.1:$C"; fi
    want "$name" || continue
    take_port p
    nginx "$pattern-$via" "js_import noid from $REPO/nginx-conf/noid.js;
upstream noidr { server $server; keepalive 32; keepalive_timeout 60s; keepalive_requests 100000; }
server { listen 127.0.0.1:$p; root $W/ng-$pattern-$via/empty; include $REPO/nginx-conf/noid-$pattern.conf; }"
    if [ "$via" = const ]; then add "$name" "$p" const; else add "$name" "$p"; fi
done
if want nginx-module && [ -f "$MODULES/ngx_http_noid_module.so" ]; then
    take_port p
    NOID_WEB_NGINX_MAIN="load_module $MODULES/ngx_http_noid_module.so;" nginx module "server {
    listen 127.0.0.1:$p;
    noid_map egg $DB;
    include $REPO/nginx-conf/noid-module.conf;
    include $REPO/nginx-conf/noid-module-local.conf;
}"
    add nginx-module "$p"
fi
# The module sending the redirect itself (`noid_resolve on`), where the tree has it.
if want nginx-module-resolve && [ -f "$MODULES/ngx_http_noid_module.so" ] &&
    [ -f "$REPO/nginx-conf/noid-module-resolve.conf" ]; then
    take_port p
    NOID_WEB_NGINX_MAIN="load_module $MODULES/ngx_http_noid_module.so;" nginx moduleresolve "server {
    listen 127.0.0.1:$p;
    noid_map egg $DB;
    include $REPO/nginx-conf/noid-module-resolve.conf;
    include $REPO/nginx-conf/noid-module-local.conf;
}"
    add nginx-module-resolve "$p"
fi
if want nginx-native-map; then
    take_port p
    t0=$(date +%s.%N)
    nginx map "map \$uri \$noid_target {
    default \"\";
    include $W/nginx.map;
}
server {
    listen 127.0.0.1:$p;
    location / {
        if (\$noid_target) { return 302 \$noid_target; }
        return 404;
    }
}" "map_hash_bucket_size 256; map_hash_max_size 2097152;"
    for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$p/" && break; sleep 0.1; done
    t1=$(date +%s.%N)
    log "nginx with a $IDS-entry map started in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
    add nginx-native-map "$p"
fi

# sanity checks and the warm-up of each setup (unrecorded: every identifier asked for once,
# so that every setup's caches are measured as a server's that has been answering for a
# while, not as they fill; --warmup S: S seconds of random requests instead)
OK=()
for i in "${!NAMES[@]}"; do
    if sanity "${PORTS[$i]}" "${KINDS[$i]}"; then
        OK+=(1)
        if [ "$WARMUP" = sweep ]; then
            rm -f "$W/swept"
            wrk -t1 -c"$CONNS" -d600s -s "$W/sweep.lua" "http://127.0.0.1:${PORTS[$i]}" >/dev/null 2>&1 &
            sweeper=$!
            while [ ! -e "$W/swept" ] && kill -0 "$sweeper" 2>/dev/null; do sleep 0.1; done
            kill -INT "$sweeper" 2>/dev/null || true
            wait "$sweeper" 2>/dev/null || true
        else
            wrk -t1 -c"$CONNS" -d"${WARMUP}s" -s "$W/rand.lua" "http://127.0.0.1:${PORTS[$i]}" >/dev/null 2>&1 || true
        fi
    else
        OK+=(0)
        log "${NAMES[$i]}: sanity check FAILED"
    fi
done
# the runs, round-robin; each line: NAME RESULT rps p50 p99 status-errors socket-errors requests load.
# Odd rounds go over the setups in their order, even rounds in the reverse order: the
# machine's speed drifts within a round (a setup that loads both cores for 10 s slows the
# next one), and a fixed order would hand that drift to the later setup of every pair.
ORDER=("${!NAMES[@]}")
REVERSED=()
for ((k = ${#ORDER[@]} - 1; k >= 0; k--)); do REVERSED+=("${ORDER[$k]}"); done
for r in $(seq 1 "$RUNS"); do
    if ((r % 2 == 1)); then round=("${ORDER[@]}"); else round=("${REVERSED[@]}"); fi
    for i in "${round[@]}"; do
        [ "${OK[$i]}" = 1 ] || continue
        line=$(wrk -t1 -c"$CONNS" -d"${SECS}s" --latency -s "$W/rand.lua" "http://127.0.0.1:${PORTS[$i]}" | grep '^RESULT')
        load=$(cut -d' ' -f1 /proc/loadavg)
        echo "${NAMES[$i]} $line $load" >>"$W/runs.txt"
        log "${NAMES[$i]} run $r: $line (load $load)"
    done
done
for i in "${!NAMES[@]}"; do
    if [ "${OK[$i]}" != 1 ]; then
        echo "${NAMES[$i]} FAILED" >>"$RESULTS"
        continue
    fi
    awk -v name="${NAMES[$i]}" '$1 == name {
            n++; rps[n] = $3; p50[n] = $4; p99[n] = $5; st += $6; er += $7
            if (n == 1 || $9 < lo) lo = $9; if (n == 1 || $9 > hi) hi = $9
        }
        function med(a,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
        END { printf "%s %d %d %d %d %d %s %s\n", name, med(rps), med(p50), med(p99), st, er, lo, hi }' "$W/runs.txt" >>"$RESULTS"
done

# --- report ------------------------------------------------------------------------------
# The goals as ratios to a reference measured in the same run: round r of a setup is paired
# with round r of its reference (taken minutes apart at most, under the same outside
# load), and the median of the pair ratios is reported. "correct": no non-3xx answer and no
# socket error in either setup's runs. A goal is not judged when the load average was
# above the cores before the benchmark started (other work on the machine: such runs
# measure the scheduler). The load during the runs is reported, not judged: wrk's 16
# connections alone keep up to 16 of Apache's request threads runnable.
GOALS="apache-noidr-prg apache-constant-prg 0.90
apache-mod_noid apache-int-tolower 0.90
apache-mod_noid apache-mod_noid-unshared 1.0
apache-mod_noid-resolve apache-noidr-prg 2.5
nginx-module nginx-native-map 0.90
nginx-module nginx-proxy-noidr-http 1.6
nginx-module-resolve nginx-native-map 0.90
nginx-module-resolve nginx-proxy-noidr-http 1.6
nginx-proxy-noidr-http nginx-native-map 0.50
nginx-proxy-noidr-http-unix nginx-native-map 0.50
nginx-auth-noidr-http nginx-native-map 0.50
nginx-proxy-constant-upstream nginx-native-map 0.50
nginx-proxy-noidr-http apache-dbm-sdbm 1.0"
RATIOS=$(
    echo "| setup | req/s | reference in the same run | ratio (median of $RUNS pair ratios) | goal | correct | load avg (max) |"
    echo "|---|---:|---|---:|---:|---|---:|"
    echo "$GOALS" | while read -r setup ref goal; do
        grep -q "^$setup " "$W/runs.txt" 2>/dev/null && grep -q "^$ref " "$W/runs.txt" || continue
        awk -v s="$setup" -v f="$ref" -v goal="$goal" -v start="$START_LOAD" -v cores="$(nproc)" '
            function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
            $1 == s { ns++; rs[ns] = $3; bad += $6 + $7 }
            $1 == f { nf++; rf[nf] = $3; bad += $6 + $7 }
            ($1 == s || $1 == f) && $9 > load { load = $9 }
            END {
                n = ns < nf ? ns : nf
                for (i = 1; i <= n; i++) ratio[i] = rf[i] > 0 ? rs[i] / rf[i] : 0
                r = med(ratio, n)
                verdict = start > cores ? " (not judged: load " start " before the runs)" : r >= goal ? " (met)" : " (not met)"
                printf "| %s | %d | %s %d | %.2f | ≥ %s%s | %s | %s |\n", s, med(rs, ns), f, med(rf, nf), r,
                    goal, verdict, (bad == 0 ? "yes" : "NO: " bad " errors"), load
            }' "$W/runs.txt"
    done
)
# Latency: the p99 of a setup (median of its rounds) against its reference's times a factor.
P99_GOALS="apache-mod_noid apache-int-tolower 1.5
nginx-module nginx-native-map 1.5
nginx-module-resolve nginx-native-map 1.5"
P99=$(
    echo "| setup | p99 | reference in the same run | reference p99 | ratio (median of $RUNS pair ratios) | goal |"
    echo "|---|---:|---|---:|---:|---|"
    echo "$P99_GOALS" | while read -r setup ref factor; do
        grep -q "^$setup " "$W/runs.txt" 2>/dev/null && grep -q "^$ref " "$W/runs.txt" || continue
        awk -v s="$setup" -v f="$ref" -v factor="$factor" '
            function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
            $1 == s { ns++; ps[ns] = $5 }
            $1 == f { nf++; pf[nf] = $5 }
            END {
                n = ns < nf ? ns : nf
                for (i = 1; i <= n; i++) ratio[i] = pf[i] > 0 ? ps[i] / pf[i] : 0
                r = med(ratio, n)
                a = med(ps, ns); b = med(pf, nf)
                printf "| %s | %.0f µs | %s | %.0f µs | %.2f | ≤ %s (%s) |\n", s, a, f, b, r, factor,
                    (r <= factor ? "met" : "not met")
            }' "$W/runs.txt"
    done
)
echo "$RATIOS"
echo
echo "$P99"
TABLE=$(
    echo "| setup | req/s (median of $RUNS) | p50 | p99 | non-3xx | socket errors | load avg after the runs (min–max) |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    awk '$2 == "FAILED" { printf "| %s | FAILED (sanity check) | | | | | |\n", $1; next }
         { printf "| %s | %d | %.0f µs | %.0f µs | %d | %d | %s–%s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$RESULTS"
)
echo "$TABLE"
# Said plainly with the figures: whether other work shared the machine during the runs.
LOADED=$(awk -v cores="$(nproc)" -v start="$START_LOAD" '$9 > max { max = $9 } END {
    if (start > cores) printf "**A loaded machine:** the load average was %s on %d cores before the benchmark started (other work shared the cores; the ratios pair rounds taken under the same load, but they scatter more than on an idle machine), and reached %s during the runs.\n", start, cores, max
    else printf "No other work: the load average was %s on %d cores before the benchmark started; during the runs it reached %s (the benchmark itself: wrk keeps up to %d of a server'"'"'s threads runnable).\n", start, cores, max, conns
}' conns="$CONNS" "$W/runs.txt")
echo "$LOADED"
if [ "$WRITE" = 1 ]; then
    f=$REPO/docs/BENCHMARKS-web.md
    {
        echo "<!-- results:begin (written by scripts/bench-web.sh --write) -->"
        echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores; $IDS bound identifiers; \`wrk -t1 -c$CONNS -d${SECS}s\`, median of $RUNS rounds after a warm-up of $([ "$WARMUP" = sweep ] && echo "every identifier once" || echo "${WARMUP} s") per setup;"
        echo "noidr \`--http-threads $HTHREADS\`, nginx \`worker_processes ${NOID_WEB_NGINX_WORKERS:-1}\`; $(/usr/sbin/apache2 -v | head -1 | sed 's/Server version: //'), $(/usr/sbin/nginx -v 2>&1 | sed 's/nginx version: //')."
        echo "$LOADED"
        echo
        echo "$RATIOS"
        echo
        echo "$P99"
        echo
        echo "$TABLE"
        echo "<!-- results:end -->"
    } >"$W/section.md"
    if [ -f "$f" ] && grep -q '<!-- results:begin' "$f"; then
        awk -v sec="$W/section.md" '
            /<!-- results:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
            /<!-- results:end/ { skip = 0; next }
            !skip { print }' "$f" >"$W/new.md"
        cp "$W/new.md" "$f"
    else
        cat "$W/section.md" >>"$f"
    fi
    log "wrote $f"
    if [ "$COSTS" = 1 ]; then
        # after the web servers are gone (the trap), so that they do not share the cores
        cleanup
        trap - EXIT
        NOID_BIN_DIR=$BIN "$REPO/scripts/bench-web-costs.sh" --ids "$IDS" --requests 10000 --write
    fi
fi
