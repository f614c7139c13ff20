#!/usr/bin/env bash
# Instructions per request of Apache with mod_noid against the same Apache with
# mod_rewrite's own `int:tolower` (the same rules; only the RewriteMap differs), and of
# nginx with its noid module (nginx-conf/noid-module.conf) against nginx's own `map` of the
# same bindings, counted by callgrind on one server process (`apache2 -X`; nginx with
# `master_process off`), so that the machine's load does not matter:
# each setup runs twice, for R and 2R requests of `wrk -t1 -c1` (the same random
# sequence, so the second run repeats the first and adds R requests), and the difference
# of the instructions is divided by the difference of the requests (start-up and shutdown
# cancel out; so does the machine's load, which a run of so many seconds would not). Two
# request mixes: a hot set (random ids among the first 2,000: answers kept) and all N
# bound ids (nearly all asked for the first time: resolved, a RocksDB read, with the
# store's blocks cached by then).
#
#   scripts/bench-modules-costs.sh [--ids N] [--requests R]
#
# NOID_MAP_OPTIONS adds options to both modules' maps (e.g. "counts=5", to measure
# counting: docs/COUNTS.md).
# Needs release binaries (noid) and scripts/build-modules.sh's modules in the target
# directory; valgrind, wrk, apache2-bin (installed from Debian when missing, as root).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NOID_BIN_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/noid-target}/release}
MOD=${NOID_MODULES_DIR:-$BIN/../modules}/mod_noid.so
NGXMOD=${NOID_MODULES_DIR:-$BIN/../modules}/ngx_http_noid_module.so
IDS=100000
REQS=5000
while [ $# -gt 0 ]; do
    case $1 in
    --ids) IDS=$2; shift 2 ;;
    --requests) REQS=$2; shift 2 ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
    esac
done
[ -f "$MOD" ] || { echo "bench-modules-costs: $MOD missing (scripts/build-modules.sh)" >&2; exit 1; }
"$REPO/scripts/web-apache.sh" install
for p in valgrind wrk; do
    command -v $p >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y $p >/dev/null
done

W=$(mktemp -d /tmp/noid-modcosts.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
"$BIN/noid" -f "$W/db" dbcreate >/dev/null
awk -v n="$IDS" 'BEGIN { for (i = 1; i <= n; i++) printf "bind set ark:/99999/fk4%07d _t https://example.org/obj/%07d\n", i, i }' |
    "$BIN/noid" -f "$W/db" - >/dev/null
awk -v n="$IDS" 'BEGIN { for (i = 1; i <= n; i++) printf "\"/ark:/99999/fk4%07d\" \"https://example.org/obj/%07d\";\n", i, i }' >"$W/nginx.map"

# setup NAME PORT MAP-LINES TARGET: an httpd configuration in $W/NAME
setup() {
    local d=$W/$1
    mkdir -p "$d"
    cat >"$d/site.conf" <<EOF
Listen 127.0.0.1:$2
$3
RewriteEngine On
RewriteCond "\${rslv:get \$1 _t|__NF__}" "^(?!__NF__\$)(.+)\$"
RewriteRule "^/(ark:/.+)\$" "$4" [R=302,NE,L,UnsafeAllow3F]
RewriteRule "^/ark:/" "-" [R=404,L]
EOF
    NOID_WEB_ACCESSLOG=0 "$REPO/scripts/web-apache.sh" test "$d" >/dev/null 2>&1
    chmod 777 "$d" # the children (www-data) write callgrind's output at exit
}
setup tolower 18801 'RewriteMap rslv int:tolower' 'http://example.org/%1'
setup modnoid 18802 "LoadModule noid_module $MOD
NoidMap noid $W/db ${NOID_MAP_OPTIONS:-}
RewriteMap rslv int:noid_get" '%1'

# nginx_setup NAME PORT SERVER-BODY [HTTP-EXTRA]: an nginx configuration in $W/NAME
nginx_setup() {
    local d=$W/$1
    mkdir -p "$d/logs" "$d/tmp"
    cat >"$d/nginx.conf" <<EOF
load_module $NGXMOD;
master_process off;
daemon off;
worker_processes 1;
pid $d/run.pid;
error_log $d/logs/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    keepalive_requests 1000000;
    ${4:-}
    server {
        listen 127.0.0.1:$2;
        $3
    }
}
EOF
}
nginx_setup ngxmap 18803 'location / {
            if ($native_target) { return 302 $native_target; }
            return 404;
        }' "map_hash_bucket_size 256; map_hash_max_size 2097152;
    map \$uri \$native_target { default \"\"; include $W/nginx.map; }"
nginx_setup ngxmod 18804 "noid_map egg $W/db ${NOID_MAP_OPTIONS:-};
        include $REPO/nginx-conf/noid-module.conf;
        include $REPO/nginx-conf/noid-module-local.conf;"

# start NAME: the server of $W/NAME under callgrind (in the background; pid in VP)
start() {
    local d=$W/$1
    if [ -f "$d/nginx.conf" ]; then
        valgrind --tool=callgrind --callgrind-out-file="$d/cg.out.%p" /usr/sbin/nginx \
            -p "$d" -c "$d/nginx.conf" >"$d/valgrind.log" 2>&1 &
    else
        env -i valgrind --tool=callgrind --callgrind-out-file="$d/cg.out.%p" /usr/sbin/apache2 \
            -f "$d/httpd.conf" -X >"$d/valgrind.log" 2>&1 &
    fi
    VP=$!
}
# stop NAME
stop() {
    if [ -f "$W/$1/nginx.conf" ]; then kill -QUIT "$VP"; else kill -TERM "$(cat "$W/$1/run/httpd.pid")"; fi
    wait "$VP" || true
}

# count NAME PORT REQUESTS SPREAD: "REQUESTS INSTRUCTIONS" of one run
count() {
    local d=$W/$1 port=$2 n
    rm -f "$d"/cg.out.* "$d/run/httpd.pid"
    cat >"$d/rand.lua" <<EOF
math.randomseed(42)
request = function() return wrk.format("GET", string.format("/ark:/99999/fk4%07d", math.random($4))) end
local answered = 0
response = function()
    answered = answered + 1
    if answered == $3 then io.open("$d/answered", "w"):close(); wrk.thread:stop() end
end
done = function(s) io.write(string.format("REQUESTS %d\n", s.requests)) end
EOF
    start "$1"
    for _ in $(seq 1 600); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done
    chmod 666 "$d"/cg.out.*
    # wrk's own clock runs on after its thread stopped: it is interrupted (and reports)
    # once the last answer is in.
    rm -f "$d/answered"
    wrk -t1 -c1 -d3600s -s "$d/rand.lua" "http://127.0.0.1:$port" >"$d/wrk.out" &
    local wrk_pid=$!
    while [ ! -e "$d/answered" ] && kill -0 "$wrk_pid" 2>/dev/null; do sleep 0.1; done
    kill -INT "$wrk_pid" 2>/dev/null || true
    wait "$wrk_pid" || true
    n=$(sed -n 's/^REQUESTS //p' "$d/wrk.out")
    stop "$1"
    # the module's own share: what its calls cost (mod_noid's map lookup, the nginx
    # module's noid_map_redirect: every call passes there), which unlike the whole
    # process's count holds no thread that runs by the clock (the store's follower,
    # the counts' flusher)
    m=$(callgrind_annotate --inclusive=yes --threshold=100 "$d"/cg.out.* 2>/dev/null |
        awk '/mod_noid\.c:lookup |:noid_map_redirect / { gsub(",", "", $1); print $1; exit }')
    echo "$n $(sed -n 's/^totals: //p' "$d"/cg.out.* | head -1) ${m:-0}"
}
# per_request NAME PORT SPREAD: instructions per request
per_request() {
    local a b
    a=$(count "$1" "$2" "$REQS" "$3")
    b=$(count "$1" "$2" $((2 * REQS)) "$3")
    echo "bench-modules-costs: $1, ids 1..$3: $a, then $b (requests, instructions, the module's)" >&2
    echo "$a $b" | awk '{ printf "%.0f %.0f", ($5 - $2) / ($4 - $1), ($6 - $3) / ($4 - $1) }'
}
echo "| server | requests | reference | module | reference / module | the module's calls |"
echo "|---|---|---:|---:|---:|---:|"
# row LABEL SPREAD REFERENCE MODULE: one table row ("INSTRUCTIONS MODULE'S" each)
row() {
    echo "$3 $4" | awk -v label="$1" -v spread="$2" '{
        printf "| %s | random among %s ids | %d | %d | %.2f | %d |\n", label, spread, $1, $3, $1 / $3, $4 }'
}
for spread in 2000 "$IDS"; do
    row "Apache: int:tolower, mod_noid" "$spread" "$(per_request tolower 18801 "$spread")" \
        "$(per_request modnoid 18802 "$spread")"
    if [ -f "$NGXMOD" ]; then
        row "nginx: map, noid module" "$spread" "$(per_request ngxmap 18803 "$spread")" \
            "$(per_request ngxmod 18804 "$spread")"
    fi
done
