#!/usr/bin/env bash
# Instructions per request of Apache with mod_noid against the same Apache with
# mod_rewrite's own `int:tolower` (the same rules; only the RewriteMap differs), and of
# nginx with its noid module (nginx-conf/noid-module.conf) against nginx's own `map` of the
# same bindings, counted by callgrind on one server process (`apache2 -X`; nginx with
# `master_process off`), so that the machine's load does not matter:
# each setup runs twice, for S and 2S seconds of `wrk -t1 -c1`, and the difference of the
# instructions is divided by the difference of the requests (start-up and shutdown cancel
# out). Two request mixes: a hot set (random ids among the first 2,000: answers kept) and
# all N bound ids (most asked for the first time: resolved, a RocksDB read).
#
#   scripts/bench-modules-costs.sh [--ids N] [--seconds S]
#
# Needs release binaries (noid) and scripts/build-modules.sh's modules in the target
# directory; valgrind, wrk, apache2-bin (installed from Debian when missing, as root).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NOID_BIN_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/noid-target}/release}
MOD=${NOID_MODULES_DIR:-$BIN/../modules}/mod_noid.so
NGXMOD=${NOID_MODULES_DIR:-$BIN/../modules}/ngx_http_noid_module.so
IDS=100000
SECS=5
while [ $# -gt 0 ]; do
    case $1 in
    --ids) IDS=$2; shift 2 ;;
    --seconds) SECS=$2; shift 2 ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
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
NoidMap noid $W/db
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
nginx_setup ngxmod 18804 "noid_map egg $W/db;
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

# count NAME PORT SECONDS SPREAD: "REQUESTS INSTRUCTIONS" of one run
count() {
    local d=$W/$1 port=$2 n
    rm -f "$d"/cg.out.* "$d/run/httpd.pid"
    cat >"$d/rand.lua" <<EOF
math.randomseed(42)
request = function() return wrk.format("GET", string.format("/ark:/99999/fk4%07d", math.random($4))) end
done = function(s) io.write(string.format("REQUESTS %d\n", s.requests)) end
EOF
    start "$1"
    for _ in $(seq 1 600); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done
    chmod 666 "$d"/cg.out.*
    n=$(wrk -t1 -c1 -d"${3}s" -s "$d/rand.lua" "http://127.0.0.1:$port" | sed -n 's/^REQUESTS //p')
    stop "$1"
    echo "$n $(sed -n 's/^totals: //p' "$d"/cg.out.* | head -1)"
}
# per_request NAME PORT SPREAD: instructions per request
per_request() {
    local a b
    a=$(count "$1" "$2" "$SECS" "$3")
    b=$(count "$1" "$2" $((2 * SECS)) "$3")
    echo "bench-modules-costs: $1, ids 1..$3: $a, then $b (requests, instructions)" >&2
    echo "$a $b" | awk '{ printf "%.0f", ($4 - $2) / ($3 - $1) }'
}
echo "| server | requests | reference | module | reference / module |"
echo "|---|---|---:|---:|---:|"
for spread in 2000 "$IDS"; do
    t=$(per_request tolower 18801 "$spread")
    m=$(per_request modnoid 18802 "$spread")
    echo "| Apache: int:tolower, mod_noid | random among $spread ids | $t | $m | $(awk "BEGIN { printf \"%.2f\", $t / $m }") |"
    if [ -f "$NGXMOD" ]; then
        t=$(per_request ngxmap 18803 "$spread")
        m=$(per_request ngxmod 18804 "$spread")
        echo "| nginx: map, noid module | random among $spread ids | $t | $m | $(awk "BEGIN { printf \"%.2f\", $t / $m }") |"
    fi
done
