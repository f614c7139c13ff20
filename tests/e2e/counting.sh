# shellcheck shell=bash
# Resolution counts (docs/COUNTS.md) through the real web servers, on each path that
# counts: Apache's RewriteMap prg: (noidr --counts), mod_noid (its map's counts= and
# NoidResolve), the nginx module (counts=) and nginx proxying to noidr --http --counts.
# Each path resolves from a minter of its own, so that each minter's `noid stats` holds
# exactly that path's counts. Concurrent clients send a known mix: a redirect asked by
# a browser and by a crawler, and a miss asked by a browser; the expected totals below
# are counted by hand from that mix and from what each path can see (a prg: map gets no
# User-Agent, so all its requests are people's; NoidResolve leaves a miss to the
# rules, whose map counts it, as a line, once). Sourced by run.sh; uses its helpers
# (take_port, ok, bad) and variables (REPO, CONF, NOID, NOIDR, WORK, MOD_NOID, MOD_NGX).

CT=$WORK/counting
CT_PID=""
take_port CP # Apache, noid-resolve.conf, noidr --counts as prg:
take_port CM # Apache + mod_noid, noid-resolve.conf, counts=1
take_port CN # nginx + its module, noid-module.conf, counts=1
take_port CH # nginx, noid-proxy.conf -> noidr --http --counts

# ct_minter NAME: a minter of its own, its counts directory writable by the servers'
# workers (www-data).
ct_minter() {
    local db=$CT/$1
    mkdir -p "$db/counts"
    "$NOID" -f "$db" dbcreate >/dev/null &&
        "$NOID" -f "$db" bind set ark:/13030/xt1 _t https://example.org/xt1 >/dev/null
    chmod 777 "$db/counts"
}

counting_start() {
    local name
    mkdir -p "$CT/apache" "$CT/nginx"
    chmod 755 "$CT"
    for name in prg mod ngx http; do ct_minter "$name"; done
    "$NOIDR" -f "$CT/http" --http 127.0.0.1:0 --counts --counts-interval 1 --log-level info \
        >"$CT/noidr-http.log" 2>&1 &
    CT_PID=$!
    CT_H=$(bound_port "$CT/noidr-http.log" "$CT_PID" "HTTP on")
    [ -n "$CT_H" ] || bad "counting: noidr --http --counts did not start: $(tail -3 "$CT/noidr-http.log")"
    cat >"$CT/apache/site.conf" <<EOF
LoadModule noid_module $MOD_NOID
Listen 127.0.0.1:$CP
Listen 127.0.0.1:$CM
Define NOIDR $NOIDR
Include $CONF/apache-conf/noid-server.conf
<VirtualHost 127.0.0.1:$CP>
    Define NOID_DBDIR $CT/prg
    Define NOIDR_ARGS "--egg-miss null --counts --counts-interval 1"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOIDR_ARGS
    UnDefine NOID_DBDIR
</VirtualHost>
Define NOID_MODULE
<VirtualHost 127.0.0.1:$CM>
    Define NOID_DBDIR $CT/mod
    Define NOID_MODULE_OPTIONS "miss=null counts=1"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOID_MODULE_OPTIONS
    UnDefine NOID_DBDIR
</VirtualHost>
EOF
    NOID_WEB_MODULES=headers "$REPO/scripts/web-apache.sh" start "$CT/apache" >/dev/null 2>&1 ||
        bad "counting: apache start: $(tail -3 "$CT/apache/logs/error.log" 2>/dev/null)"
    cat >"$CT/nginx/site.conf" <<EOF
upstream noidr {
    server 127.0.0.1:$CT_H;
    keepalive 16;
}
server {
    listen 127.0.0.1:$CN;
    noid_map egg $CT/ngx counts=1;
    include $CONF/nginx-conf/noid-module.conf;
    include $CONF/nginx-conf/noid-module-local.conf;
}
server { listen 127.0.0.1:$CH; include $CONF/nginx-conf/noid-proxy.conf; }
EOF
    NOID_WEB_NGINX_WORKERS=2 NOID_WEB_NGINX_MAIN="load_module $MOD_NGX;" \
        "$REPO/scripts/web-nginx.sh" start "$CT/nginx" >/dev/null 2>&1 ||
        bad "counting: nginx start: $(tail -3 "$CT/nginx/logs/error.log" 2>/dev/null)"
    wait_answering "$CP" "$CM" "$CN" "$CH"
}

counting_stop() {
    [ -d "$CT/nginx" ] && "$REPO/scripts/web-nginx.sh" stop "$CT/nginx" >/dev/null 2>&1
    [ -d "$CT/apache" ] && "$REPO/scripts/web-apache.sh" stop "$CT/apache" >/dev/null 2>&1
    if [ -n "$CT_PID" ]; then
        kill -TERM "$CT_PID" 2>/dev/null
        wait "$CT_PID" 2>/dev/null
    fi
}

# ct_send PORT: 4 clients at once, each 25 rounds of the mix on a connection of its
# own; every answer must be what the mix expects (302 to the target, 404).
ct_send() {
    /usr/bin/python3 - "$1" <<'PY'
import http.client, sys, threading
port = int(sys.argv[1])
firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
crawler = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
mix = [("/ark:/13030/xt1", firefox, 302), ("/ark:/13030/xt1", crawler, 302),
       ("/ark:/13030/nope", firefox, 404)]
wrong = []
def client():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    for _ in range(25):
        for path, ua, status in mix:
            c.request("GET", path, headers={"User-Agent": ua})
            r = c.getresponse()
            r.read()
            if r.status != status:
                wrong.append(f"{path} {ua[:20]}: {r.status}")
threads = [threading.Thread(target=client) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
if wrong:
    sys.exit(f"{len(wrong)} wrong answers, e.g. {wrong[0]}")
PY
}

# ct_totals DB: the counts of DB as "kind/class=N" words, sorted (from noid stats' CSV).
ct_totals() {
    "$NOID" -f "$1" stats --format csv --days 2 2>/dev/null |
        awk -F, 'NR > 1 { n[$3 "/" $4] += $5 } END { for (k in n) print k "=" n[k] }' | sort | tr '\n' ' '
}

# ct_expect NAME DB WANT: the counts reach WANT within 30 s (each path writes them
# every second) and are not more than WANT.
ct_expect() {
    local name=$1 db=$2 want=$3 got end=$((SECONDS + 30))
    while :; do
        got=$(ct_totals "$db")
        [ "$got" = "$want" ] && break
        [ "$SECONDS" -ge "$end" ] && break
        sleep 0.2
    done
    if [ "$got" = "$want" ]; then
        ok "counting through $name: $want"
    else
        bad "counting through $name: want [$want], got [$got]"
    fi
}

counting_checks() {
    local name port
    for name in prg:$CP mod:$CM ngx:$CN http:$CH; do
        port=${name#*:}
        ct_send "$port" || bad "counting: requests to ${name%%:*} answered wrong"
    done
    # 4 clients x 25 rounds: 100 of each request of the mix.
    ct_expect "Apache prg: noidr --counts (no User-Agent reaches a map)" "$CT/prg" \
        "miss/person=100 redirect-302/person=200 "
    ct_expect "mod_noid NoidResolve and its map" "$CT/mod" \
        "miss/person=100 redirect-302/person=100 redirect-302/robot=100 "
    ct_expect "the nginx module" "$CT/ngx" \
        "miss/person=100 redirect-302/person=100 redirect-302/robot=100 "
    ct_expect "nginx proxy_pass to noidr --http" "$CT/http" \
        "miss/person=100 redirect-302/person=100 redirect-302/robot=100 "
    # Nothing identifying in any counts store: neither User-Agent nor an address.
    if grep -rlaE 'Firefox|Googlebot|127\.0\.0\.1' "$CT"/*/counts >/dev/null 2>&1; then
        bad "counting: a counts store holds a User-Agent or an address"
    else
        ok "counting: no User-Agent and no address in the counts stores"
    fi
}
