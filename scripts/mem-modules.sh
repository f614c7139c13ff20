#!/usr/bin/env bash
# Memory of the web server modules per worker process (issue 30, docs/WEB-SERVERS.md
# "Memory"): one Apache child (event MPM, mod_noid, noid-resolve.conf) and one nginx
# worker (its module, noid-module-resolve.conf), default map options, each asked
# 100,000 distinct bound identifiers on one kept-alive connection; RSS and open file
# descriptors of the process that answered, from /proc (status, smaps_rollup), before
# and after.
#
#   scripts/mem-modules.sh [N]        (N identifiers, default 100000)
#
# Uses the build tree's noid and modules (scripts/build-modules.sh); starts throw-away
# servers on 127.0.0.1 (scripts/web-apache.sh, scripts/web-nginx.sh); leaves nothing.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
N=${1:-100000}
BIN=$CARGO_TARGET_DIR/release
MODS=$CARGO_TARGET_DIR/modules
for f in "$BIN/noid" "$MODS/mod_noid.so" "$MODS/ngx_http_noid_module.so"; do
    [ -f "$f" ] || { echo "mem-modules: $f missing (cargo build --release; scripts/build-modules.sh)" >&2; exit 1; }
done
W=$(mktemp -d /tmp/noid-mem.XXXXXX)
chmod 755 "$W"
cleanup() {
    "$REPO/scripts/web-apache.sh" stop "$W/ap" >/dev/null 2>&1 || true
    "$REPO/scripts/web-nginx.sh" stop "$W/ng" >/dev/null 2>&1 || true
    rm -rf "$W"
}
trap cleanup EXIT
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
P=$((20000 + RANDOM % 10000))
while ! port_free "$P"; do P=$((P + 1)); done
AP=$P
P=$((P + 1))
while ! port_free "$P"; do P=$((P + 1)); done
NP=$P

awk -v n="$N" -v w="$W" 'BEGIN {
    for (i = 1; i <= n; i++) {
        id = sprintf("ark:/99999/fk4%07d", i)
        print "bind set " id " _t https://example.org/obj/" i > (w "/bulk.txt")
        print "/" id > (w "/paths.txt")
    }
}'
mkdir -p "$W/db" "$W/ap" "$W/ng"
"$BIN/noid" -f "$W/db" dbcreate >/dev/null
"$BIN/noid" -f "$W/db" - <"$W/bulk.txt" >/dev/null

cat >"$W/ap/site.conf" <<CONF
LoadModule noid_module $MODS/mod_noid.so
Listen 127.0.0.1:$AP
Define NOID_DBDIR $W/db
Define NOID_MODULE
<VirtualHost 127.0.0.1:$AP>
    Include $REPO/apache-conf/noid-resolve.conf
</VirtualHost>
CONF
cat >"$W/ng/site.conf" <<CONF
server {
    listen 127.0.0.1:$NP;
    noid_map egg $W/db;
    include $REPO/nginx-conf/noid-module-resolve.conf;
    include $REPO/nginx-conf/noid-module-local.conf;
}
CONF
NOID_WEB_ACCESSLOG=0 "$REPO/scripts/web-apache.sh" start "$W/ap" >/dev/null
NOID_WEB_ACCESSLOG=0 NOID_WEB_NGINX_MAIN="load_module $MODS/ngx_http_noid_module.so;" \
    "$REPO/scripts/web-nginx.sh" start "$W/ng" >/dev/null

# usage PID: RSS (status), anonymous memory (smaps_rollup), open descriptors
usage() {
    local rss anon fds
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status")
    anon=$(awk '/^Anonymous:/ { print $2 }' "/proc/$1/smaps_rollup")
    fds=$(find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l)
    echo "rss=$((rss / 1024))MiB anon=$((anon / 1024))MiB fds=$fds"
}
# ask PORT: every identifier once, on one kept-alive connection; prints the statuses seen
ask() {
    sed "s|^|url = \"http://127.0.0.1:$1|; s|\$|\"\noutput = \"/dev/null\"|" "$W/paths.txt" >"$W/urls.cfg"
    curl -s -K "$W/urls.cfg" -w '%{http_code}\n' | sort | uniq -c | tr '\n' ' '
}
# measure NAME PORT PIDFILE: the child that answered is the one whose RSS grew most
measure() {
    local name=$1 port=$2 parent kids before after k
    parent=$(cat "$3")
    curl -s -o /dev/null "http://127.0.0.1:$port/ark:/99999/fk40000001"
    kids=$(pgrep -P "$parent" | sort)
    declare -A before
    for k in $kids; do before[$k]=$(awk '/^VmRSS:/ { print $2 }' "/proc/$k/status"); done
    local t0 t1 answers
    t0=$(date +%s.%N)
    answers=$(ask "$port")
    t1=$(date +%s.%N)
    local best="" grow=-1 g
    for k in $kids; do
        g=$(($(awk '/^VmRSS:/ { print $2 }' "/proc/$k/status") - ${before[$k]:-0}))
        if [ "$g" -gt "$grow" ]; then grow=$g best=$k; fi
    done
    echo "$name: $N distinct lookups in $(awk "BEGIN { printf \"%.0f\", $t1 - $t0 }") s (statuses: $answers)"
    echo "$name: the process that answered (pid $best): before $((before[$best] / 1024))MiB, after $(usage "$best")"
    for k in $kids; do
        [ "$k" = "$best" ] || echo "$name: another process (pid $k, idle): $(usage "$k")"
    done
}
measure "apache (event MPM) + mod_noid" "$AP" "$W/ap/run/httpd.pid"
measure "nginx + its module" "$NP" "$W/ng/run/nginx.pid"
