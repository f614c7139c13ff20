# shellcheck shell=bash
# The web server modules (issue 30) in the end-to-end tests: sourced by run.sh, which
# calls modules_start (servers up, before the request tables, which then include the
# modules' resolvers), modules_checks (after the prg programs' signal tests) and
# modules_stop (its cleanup). Uses run.sh's helpers (take_port, expect, req, bind, ok,
# bad) and variables (REPO, CONF, BIN, WORK, DB, H1, CASES).
#
# mod_noid comes from the build tree ($BIN/../modules/, scripts/build-modules.sh) or,
# with --installed, from the package noid-apache-module.

# The Apache instance with mod_noid, and the stalling file system under one of its maps.
AMX=$WORK/apache-mod
STALL=$WORK/stall
STALL_PID=""
STALL_IDS=20000

NMX=$WORK/nginx-mod
if [ "$CONF" = "$REPO" ]; then
    MOD_NOID=$(cd "$BIN/.." && pwd)/modules/mod_noid.so
    MOD_NGX=$(cd "$BIN/.." && pwd)/modules/ngx_http_noid_module.so
else
    MOD_NOID=/usr/lib/apache2/modules/mod_noid.so
    MOD_NGX=/usr/lib/nginx/modules/ngx_http_noid_module.so
fi

take_port MX  # Apache + mod_noid, noid-resolve.conf (egg), pages proxied to H1
take_port MG  # Apache + mod_noid, noid-get.conf
take_port MN  # Apache + mod_noid, noid-resolve.conf, miss=eggnog
take_port MS  # Apache + mod_noid, egg on a store that stalls, deadline=1
take_port MO  # Apache + mod_noid, noid-resolve.conf with NOID_MODULE_RULES_ONLY (no NoidResolve)
take_port MR  # Apache + mod_noid, NoidResolve alone: no rewrite rules behind it
take_port NX  # nginx + its module, noid-module.conf, pages proxied to H1
take_port NS  # nginx + its module on the store that stalls, deadline=1
take_port ND  # nginx + its module, noid-module-resolve.conf (noid_resolve on), pages proxied to H1
take_port NT  # nginx + its module, noid-module-resolve.conf on the store that stalls, deadline=1

stall_id() { printf 'ark:/99999/s%05d' "$1"; }

# A minter of STALL_IDS bindings (one table file, many blocks), seen through stallfs.py
# (crates/noidr/tests/stallfs.py) with other users allowed, so that www-data's children
# read it.
stall_mount() {
    mkdir -p "$STALL/db" "$STALL/mnt"
    "$NOID" -f "$STALL/db" dbcreate >/dev/null || return 1
    awk -v n="$STALL_IDS" 'BEGIN { for (i = 0; i < n; i++) printf "bind set ark:/99999/s%05d _t https://e.org/%d\n", i, i }' |
        "$NOID" -f "$STALL/db" - >/dev/null || return 1
    STALLFS_ALLOW_OTHER=1 /usr/bin/python3 "$REPO/crates/noidr/tests/stallfs.py" \
        "$STALL/db" "$STALL/mnt" "$STALL/pause" >"$WORK/stallfs.log" 2>&1 &
    STALL_PID=$!
    for _ in $(seq 1 300); do
        [ -d "$STALL/mnt/NOID" ] && return 0
        sleep 0.1
    done
    return 1
}

modules_start() {
    if [ "$(id -u)" != 0 ]; then
        skip "the stalling store's checks (stallfs.py: a FUSE mount other users read needs root)"
    elif ! stall_mount; then
        bad "stallfs.py did not mount (python3-fusepy, root): $(tail -3 "$WORK/stallfs.log")"
    fi
    modules_start_nginx
    if [ ! -f "$MOD_NOID" ]; then
        bad "mod_noid.so missing ($MOD_NOID): build it with scripts/build-modules.sh"
        return
    fi
    mkdir -p "$AMX"
    cat >"$AMX/site.conf" <<EOF
LoadModule noid_module $MOD_NOID
Listen 127.0.0.1:$MX
Listen 127.0.0.1:$MG
Listen 127.0.0.1:$MN
Listen 127.0.0.1:$MS
Listen 127.0.0.1:$MO
Listen 127.0.0.1:$MR
Define NOID_DBDIR $DB
Define NOID_MODULE
<VirtualHost 127.0.0.1:$MX>
    Define NOIDR_URL http://127.0.0.1:$H1
    Define NOID_MODULE_OPTIONS "miss=null rules=$SIGNPOSTING_RULES"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOID_MODULE_OPTIONS
    UnDefine NOIDR_URL
</VirtualHost>
<VirtualHost 127.0.0.1:$MG>
    UnDefine NOID_MODULE_OPTIONS
    Include $CONF/apache-conf/noid-get.conf
    UnDefine NOID_MODULE_OPTIONS
</VirtualHost>
<VirtualHost 127.0.0.1:$MN>
    Define NOID_MODULE_OPTIONS "miss=eggnog"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOID_MODULE_OPTIONS
</VirtualHost>
<VirtualHost 127.0.0.1:$MO>
    Define NOIDR_URL http://127.0.0.1:$H1
    Define NOID_MODULE_RULES_ONLY
    Define NOID_MODULE_OPTIONS "miss=null rules=$SIGNPOSTING_RULES"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOID_MODULE_OPTIONS
    UnDefine NOID_MODULE_RULES_ONLY
    UnDefine NOIDR_URL
</VirtualHost>
<VirtualHost 127.0.0.1:$MR>
    NoidMap egg $DB miss=null
    NoidResolve "^/+(?:ark|doi):"
</VirtualHost>
<VirtualHost 127.0.0.1:$MS>
    UnDefine NOID_DBDIR
    Define NOID_DBDIR $STALL/mnt
    Define NOID_MODULE_OPTIONS "deadline=1 cache-mb=1 thread-cache=0"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOID_MODULE_OPTIONS
</VirtualHost>
EOF
    if NOID_WEB_MODULES=headers "$REPO/scripts/web-apache.sh" start "$AMX"; then
        ok "apache starts with mod_noid and the shipped configs"
        RESOLVERS="$RESOLVERS apache-module:$MX apache-module-rules:$MO"
    else
        bad "apache start with mod_noid"
    fi
    wait_answering $MX $MG $MN $MS $MO $MR
}

# wait_answering PORT...: wait (up to 5 s each) until every port answers HTTP, so a
# server's first checks do not race its start.
wait_answering() {
    local p
    for p in "$@"; do
        for _ in $(seq 1 50); do
            curl -s -o /dev/null "http://127.0.0.1:$p/" && break
            sleep 0.1
        done
    done
}

# nginx with the module: two workers, so that one stalled worker leaves the other.
modules_start_nginx() {
    if [ ! -f "$MOD_NGX" ]; then
        bad "ngx_http_noid_module.so missing ($MOD_NGX): build it with scripts/build-modules.sh"
        return
    fi
    mkdir -p "$NMX"
    cat >"$NMX/site.conf" <<EOF
upstream noidr {
    server 127.0.0.1:$H1;
    keepalive 16;
}
server {
    listen 127.0.0.1:$NX;
    noid_map egg $DB rules=$SIGNPOSTING_RULES;
    include $CONF/nginx-conf/noid-module.conf;
    include $CONF/nginx-conf/noid-module-pages.conf;
}
server {
    listen 127.0.0.1:$NS;
    noid_map egg $STALL/mnt deadline=1 cache-mb=1 thread-cache=0;
    include $CONF/nginx-conf/noid-module.conf;
    include $CONF/nginx-conf/noid-module-local.conf;
}
server {
    listen 127.0.0.1:$ND;
    noid_map egg $DB rules=$SIGNPOSTING_RULES;
    include $CONF/nginx-conf/noid-module-resolve.conf;
    include $CONF/nginx-conf/noid-module-pages.conf;
}
server {
    listen 127.0.0.1:$NT;
    noid_map egg $STALL/mnt deadline=1 cache-mb=1 thread-cache=0;
    include $CONF/nginx-conf/noid-module-resolve.conf;
    include $CONF/nginx-conf/noid-module-local.conf;
}
EOF
    if NOID_WEB_NGINX_WORKERS=2 NOID_WEB_NGINX_MAIN="load_module $MOD_NGX;" \
        "$REPO/scripts/web-nginx.sh" start "$NMX"; then
        ok "nginx starts with its noid module and noid-module.conf"
        RESOLVERS="$RESOLVERS nginx-module:$NX nginx-resolve:$ND"
    else
        bad "nginx start with its noid module"
    fi
    wait_answering $NX $ND
}

modules_stop() {
    "$REPO/scripts/web-nginx.sh" stop "$NMX" >/dev/null 2>&1
    "$REPO/scripts/web-apache.sh" stop "$AMX" >/dev/null 2>&1
    if [ -n "$STALL_PID" ]; then
        rm -f "$STALL/pause"
        umount -l "$STALL/mnt" 2>/dev/null
        kill "$STALL_PID" 2>/dev/null
        wait "$STALL_PID" 2>/dev/null
    fi
}

# load_start PORT OUT: in the background (its pid in LOAD_PID), requests for
# /ark:/13030/xt1 one after the other, each on a new connection, until load_stop OUT;
# every status and location into OUT, a line each.
load_start() {
    local port=$1 out=$2
    rm -f "$out.stop"
    : >"$out"
    while [ ! -e "$out.stop" ]; do
        curl -s -m 10 -o /dev/null -w '%{http_code} %{redirect_url}\n' "http://127.0.0.1:$port/ark:/13030/xt1" || echo "curl-failed"
    done >>"$out" &
    LOAD_PID=$!
}
# load_stop OUT PID: end the load writing OUT (started as PID).
load_stop() {
    touch "$1.stop"
    wait "$2"
}
# answers OUT: how many requests of a load have been answered (or failed) so far.
answers() { wc -l <"$1"; }
# more_answers NAME OUT: wait until the load writing OUT has answered 20 more requests
# than so far (60 s at most, a bound for a hang): the load went on across whatever was
# just done; a FAIL names NAME if it did not.
more_answers() {
    local out=$2 want # named: the condition is evaluated inside wait_until
    want=$(($(answers "$out") + 20))
    wait_until eval '[ "$(answers "$out")" -ge "$want" ]' ||
        bad "$1: the load stopped ($(answers "$out") requests, $want awaited)"
}

# every_answer_right NAME OUT: every line of OUT is the right redirect.
every_answer_right() {
    local n wrong
    n=$(grep -c . "$2")
    wrong=$(grep -vc '^302 https://example.org/xt1$' "$2")
    if [ "$n" -gt 0 ] && [ "$wrong" = 0 ]; then
        ok "$1: all $n requests answered 302 https://example.org/xt1"
    else
        bad "$1: $wrong of $n requests answered otherwise: $(grep -v '^302 https://example.org/xt1$' "$2" | sort | uniq -c | head -5 | tr '\n' '|')"
    fi
}

children() { pgrep -P "$(cat "$AMX/run/httpd.pid")" | sort; }
# replaced OLD NOW-COMMAND: whether the processes NOW-COMMAND lists are there and none of
# them is in OLD.
replaced() {
    local now
    now=$($2)
    [ -n "$now" ] && [ -z "$(comm -12 <(echo "$1") <(echo "$now"))" ]
}

modules_checks() {
    modules_nginx_checks
    [ -s "$AMX/run/httpd.pid" ] || return
    # The manual's "get ID myGoto" (NoidMap noid); the binding was changed live before.
    expect apache-module-get "$MG" /ark:/13030/kt639k9 302 https://example.org/kt-v2
    expect apache-module-get "$MG" /ark:/13030/a%20b 302 "https://example.org/get?space=1"
    expect apache-module-get "$MG" /ark:/13030/nope 404 -
    expect apache-module-get "$MG" "/ark:/13030/it's" 404 -
    # A miss under a NAAN the store serves (another NAAN's ARK goes on to N2T, the ARK
    # draft's §3.3, as run.sh's request table shows for every resolver).
    expect apache-module-eggnog-miss "$MN" /ark:/13030/nope 404 -
    expect apache-module-eggnog-miss "$MN" /ark:/13030/xt1 302 https://example.org/xt1
    modules_resolve_checks
    if pgrep -P "$(cat "$AMX/run/httpd.pid")" -f -- "--protocol" >/dev/null; then
        bad "apache with mod_noid started a prg program"
    else
        ok "apache with mod_noid runs no prg program"
    fi

    # Graceful restarts under load: every request answered, the children replaced.
    # Requests are answered before each restart, while its children are replaced and
    # after (checked, not slept for).
    local before after lp old at
    before=$(children)
    load_start "$MX" "$WORK/load-graceful.txt"
    lp=$LOAD_PID
    more_answers "mod_noid before the graceful restart" "$WORK/load-graceful.txt"
    for restart in first second; do
        old=$(children)
        at=$(answers "$WORK/load-graceful.txt")
        "$REPO/scripts/web-apache.sh" graceful "$AMX"
        wait_until replaced "$old" children || bad "the $restart graceful restart did not replace the children"
        echo "# $restart graceful restart: $(($(answers "$WORK/load-graceful.txt") - at)) requests answered while the children were replaced"
        more_answers "mod_noid after the $restart graceful restart" "$WORK/load-graceful.txt"
    done
    load_stop "$WORK/load-graceful.txt" "$lp"
    every_answer_right "mod_noid graceful restart under load" "$WORK/load-graceful.txt"
    after=$(children)
    if [ -n "$after" ] && [ -z "$(comm -12 <(echo "$before") <(echo "$after"))" ]; then
        ok "graceful restart replaced every child (the maps opened anew)"
    else
        bad "after graceful restart: children '$after' (before: '$before')"
    fi
    bind ark:/13030/live _t https://example.org/v4
    expect "apache-module after graceful: live update" "$MX" /ark:/13030/live 302 https://example.org/v4

    # kill -9 of a worker: httpd starts another, requests go on, and the killed
    # child's secondary directory is swept by the next map opened.
    local victim
    victim=$(children | head -1)
    load_start "$MX" "$WORK/load-kill.txt"
    lp=$LOAD_PID
    more_answers "mod_noid before kill -9 of a worker" "$WORK/load-kill.txt"
    kill -KILL "$victim"
    more_answers "mod_noid after kill -9 of a worker" "$WORK/load-kill.txt"
    load_stop "$WORK/load-kill.txt" "$lp"
    # Requests in flight on the killed child's connections are lost with it (curl's
    # failure); every other one is answered right.
    grep -v curl-failed "$WORK/load-kill.txt" | grep -v '^000 ' >"$WORK/load-kill-answered.txt"
    every_answer_right "mod_noid after kill -9 of a worker" "$WORK/load-kill-answered.txt"
    for _ in $(seq 1 50); do
        [ "$(children | grep -c .)" -ge "$(echo "$after" | grep -c .)" ] && break
        sleep 0.1
    done
    for _ in $(seq 1 20); do expect "apache-module after kill -9" "$MX" /ark:/13030/xt1 302 https://example.org/xt1 >/dev/null; done
    expect "apache-module after kill -9" "$MX" /ark:/13030/xt1 302 https://example.org/xt1
    # the next child opened its maps (after the first request or at once): gone by now
    "$REPO/scripts/web-apache.sh" graceful "$AMX"
    for _ in $(seq 1 50); do
        req "$MX" /ark:/13030/xt1
        compgen -G "/tmp/noidr-$victim-*" >/dev/null || break
        sleep 0.1
    done
    if compgen -G "/tmp/noidr-$victim-*" >/dev/null; then
        bad "the killed child's secondary directory was not swept: $(echo /tmp/noidr-"$victim"-*)"
    else
        ok "the killed child's secondary directory was swept"
    fi

    modules_stall_checks
}

# NoidResolve with no rewrite rules behind it: what the module sends itself (the request
# table shows the same answers with the rules behind it, apache-module, and without the
# directive, apache-module-rules), and that it declines everything the rules must
# answer: those get httpd's own 404 here.
modules_resolve_checks() {
    expect "NoidResolve alone" "$MR" /ark:/13030/xt1 302 https://example.org/xt1
    expect "NoidResolve alone, query" "$MR" "/ark:/13030/xt1?x=%26y" 302 "https://example.org/xt1?x=%26y"
    expect "NoidResolve alone, chop-back" "$MR" /ark:/12345/sfx/abc 302 https://h.example/bar/abczaf
    expect "NoidResolve alone, doi" "$MR" /doi:10.5072/FK2ABC 302 https://doi.org/10.5072/FK2ABC
    expect "NoidResolve alone, conneg" "$MR" /ark:/13030/m 303 https://example.org/m.ttl -H "Accept: text/turtle"
    expect "NoidResolve alone, stored code" "$MR" /ark:/13030/mp42 302 https://m.org/42
    expect "NoidResolve alone declines a miss" "$MR" /ark:/13030/nope 404 -
    expect "NoidResolve alone declines a target with a space" "$MR" /ark:/13030/evil 404 -
    expect "NoidResolve alone declines a control character" "$MR" /ark:/13030/esc 404 -
    expect "NoidResolve alone declines 410" "$MR" /ark:/13030/gone 404 -
    expect "NoidResolve alone declines a page" "$MR" "/ark:/13030/m?" 404 -
    expect "NoidResolve alone asks only what its pattern matches" "$MR" /ARK:/13030/x-t1 404 -
    # A pattern that does not compile is refused with its name, at configuration time.
    local bad_conf=$WORK/apache-mod-bad out
    mkdir -p "$bad_conf"
    printf 'LoadModule noid_module %s\nListen 127.0.0.1:%s\nNoidMap egg %s\nNoidResolve "(ark"\n' \
        "$MOD_NOID" "$MR" "$DB" >"$bad_conf/site.conf"
    if out=$("$REPO/scripts/web-apache.sh" test "$bad_conf" 2>&1); then
        bad "a NoidResolve pattern that does not compile was accepted"
    elif [[ $out == *"NoidResolve: cannot compile the pattern (ark"* ]]; then
        ok "a NoidResolve pattern that does not compile is refused with its name"
    else
        bad "a bad NoidResolve pattern: $(echo "$out" | tail -2 | tr '\n' '|')"
    fi
}

nginx_workers() { pgrep -P "$(cat "$NMX/run/nginx.pid")" | sort; }
# The workers that take requests: not those of an earlier configuration still shutting
# down ("nginx: worker process is shutting down"; one whose thread waits on a stalled
# store cannot end until the store is back).
nginx_serving() { pgrep -P "$(cat "$NMX/run/nginx.pid")" -f 'nginx: worker process$' | sort; }

# nginx: a reload (new workers) and kill -9 of a worker under load, both with the
# variables (noid-module.conf) and the directive (noid-module-resolve.conf); a stalled
# store, both ways.
modules_nginx_checks() {
    [ -s "$NMX/run/nginx.pid" ] || return
    local before after lp ld victim
    modules_nginx_resolve_checks
    before=$(nginx_workers)
    load_start "$NX" "$WORK/ngx-load-reload.txt"
    lp=$LOAD_PID
    load_start "$ND" "$WORK/ngx-resolve-load-reload.txt"
    ld=$LOAD_PID
    more_answers "nginx module before reload" "$WORK/ngx-load-reload.txt"
    more_answers "nginx noid_resolve before reload" "$WORK/ngx-resolve-load-reload.txt"
    "$REPO/scripts/web-nginx.sh" reload "$NMX"
    wait_until replaced "$before" nginx_workers || bad "nginx reload did not replace the workers"
    more_answers "nginx module after reload" "$WORK/ngx-load-reload.txt"
    more_answers "nginx noid_resolve after reload" "$WORK/ngx-resolve-load-reload.txt"
    load_stop "$WORK/ngx-load-reload.txt" "$lp"
    load_stop "$WORK/ngx-resolve-load-reload.txt" "$ld"
    every_answer_right "nginx module: reload under load" "$WORK/ngx-load-reload.txt"
    every_answer_right "nginx noid_resolve: reload under load" "$WORK/ngx-resolve-load-reload.txt"
    after=$(nginx_workers)
    if [ -n "$after" ] && [ -z "$(comm -12 <(echo "$before") <(echo "$after"))" ]; then
        ok "nginx reload replaced the workers (the maps opened anew)"
    else
        bad "after nginx reload: workers '$after' (before: '$before')"
    fi
    bind ark:/13030/live _t https://example.org/v5
    expect "nginx-module after reload: live update" "$NX" /ark:/13030/live 302 https://example.org/v5
    expect "nginx-resolve after reload: live update" "$ND" /ark:/13030/live 302 https://example.org/v5
    victim=$(nginx_workers | head -1)
    load_start "$NX" "$WORK/ngx-load-kill.txt"
    lp=$LOAD_PID
    load_start "$ND" "$WORK/ngx-resolve-load-kill.txt"
    ld=$LOAD_PID
    more_answers "nginx module before kill -9 of a worker" "$WORK/ngx-load-kill.txt"
    more_answers "nginx noid_resolve before kill -9 of a worker" "$WORK/ngx-resolve-load-kill.txt"
    kill -KILL "$victim"
    more_answers "nginx module after kill -9 of a worker" "$WORK/ngx-load-kill.txt"
    more_answers "nginx noid_resolve after kill -9 of a worker" "$WORK/ngx-resolve-load-kill.txt"
    load_stop "$WORK/ngx-load-kill.txt" "$lp"
    load_stop "$WORK/ngx-resolve-load-kill.txt" "$ld"
    for f in ngx-load-kill ngx-resolve-load-kill; do
        grep -v curl-failed "$WORK/$f.txt" | grep -v '^000 ' >"$WORK/$f-answered.txt"
    done
    every_answer_right "nginx module after kill -9 of a worker" "$WORK/ngx-load-kill-answered.txt"
    every_answer_right "nginx noid_resolve after kill -9 of a worker" "$WORK/ngx-resolve-load-kill-answered.txt"
    expect "nginx-module after kill -9" "$NX" /ark:/13030/xt1 302 https://example.org/xt1
    expect "nginx-resolve after kill -9" "$ND" /ark:/13030/xt1 302 https://example.org/xt1
    if [ -n "$STALL_PID" ]; then
        stall_checks nginx-module "$NS" "$NMX/logs/error.log" "$NX" nginx_serving
    fi
    if [ -n "$STALL_PID" ]; then
        stall_checks nginx-resolve "$NT" "$NMX/logs/error.log" "$ND" nginx_serving
        reload_stall_checks
    fi
    # the killed worker's secondary directory: swept by the maps opened after it (a
    # reload opens them anew in every worker)
    "$REPO/scripts/web-nginx.sh" reload "$NMX"
    for _ in $(seq 1 50); do
        req "$ND" /ark:/13030/xt1
        compgen -G "/tmp/noidr-$victim-*" >/dev/null || break
        sleep 0.1
    done
    if compgen -G "/tmp/noidr-$victim-*" >/dev/null; then
        bad "the killed nginx worker's secondary directory was not swept: $(echo /tmp/noidr-"$victim"-*)"
    else
        ok "the killed nginx worker's secondary directory was swept"
    fi
}

# A reload while the store stalls: the new workers start and answer (they open their
# stores at their first lookups, under the deadline, not before they accept: with the
# open in init_process both new workers hung in it, and nothing answered at all until
# the store came back), the other store at once, the stalled one within the deadline.
reload_stall_checks() {
    local sp s good=0 from
    from=$(wc -l <"$NMX/logs/error.log")
    touch "$STALL/pause"
    "$REPO/scripts/web-nginx.sh" reload "$NMX"
    expect "nginx reload while a store stalls: the other store" "$ND" /ark:/13030/xt1 302 https://example.org/xt1
    curl -s -m 60 -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$NT/$(stall_id 4321)" >"$WORK/reload-stalled.txt" &
    sp=$!
    past_the_deadline "nginx reload while a store stalls" "$NMX/logs/error.log" "$from" nginx_serving
    expect "nginx reload while a store stalls: the deadline's miss" "$NT" "/$(stall_id 4322)" 404 -
    expect "nginx reload while a store stalls: the other store" "$ND" /ark:/13030/xt1 302 https://example.org/xt1
    rm -f "$STALL/pause"
    wait "$sp"
    s=$(cat "$WORK/reload-stalled.txt")
    if [ "$s" = 302 ]; then ok "nginx reload while a store stalls: the stalled request answered once it was back"; else bad "nginx reload while a store stalls: the stalled request: $s"; fi
    for _ in $(seq 1 200); do
        req "$NT" "/$(stall_id 8)"
        if [ "$STATUS" = 302 ]; then good=$((good + 1)); else good=0; fi
        [ "$good" = 10 ] && break
        sleep 0.02
    done
    expect "nginx reload while a store stalls: after it" "$NT" "/$(stall_id 8)" 302 https://e.org/8
}

# noid_resolve: what the request table (run.sh, RESOLVERS) does not show: a miss is
# answered by the location's own `return 404` (the handler declined: nginx's own page),
# and a location without the directive is untouched.
modules_nginx_resolve_checks() {
    expect_body "nginx-resolve miss: the location's return" "$ND" /ark:/13030/nope 404 "<center>nginx"
    expect "nginx-resolve not an identifier" "$ND" /not-an-id.txt 404 -
}

# A stalled store: the stalled request waits, the others are answered the deadline's
# error (a miss: 404) while the file system is still paused; another server's map goes
# on; after the store is back, resolution again.
modules_stall_checks() {
    [ -n "$STALL_PID" ] || return
    stall_checks apache-module "$MS" "$AMX/logs/error.log" "$MX" children
}

# stalls_logged ERROR-LOG: how many stalls the log reports (lookups the deadline
# claimed, and processes that learnt of another's).
stalls_logged() { grep -c "no answer from the store within" "$1"; }
# stall_known_everywhere ERROR-LOG FROM WORKERS: whether every process the command
# WORKERS lists has logged, after line FROM, that a lookup (its own, or another
# process's through the shared word) had no answer within the deadline: each of them
# then answers without the store.
stall_known_everywhere() {
    local new p pids
    new=$(tail -n +"$(($2 + 1))" "$1" | grep "no answer from the store within")
    pids=$($3)
    [ -n "$pids" ] || return 1
    for p in $pids; do
        # Apache writes "[pid P:tid T]", nginx "P#T:".
        grep -qE "[^0-9]$p[:#]" <<<"$new" || return 1
    done
}
# past_the_deadline NAME ERROR-LOG FROM WORKERS: wait until the stalled request's lookup
# was claimed by the deadline and every worker process knows of it (as the log says
# after its line FROM), however slow the machine: the requests that follow must be
# answered without the store.
past_the_deadline() {
    wait_until stall_known_everywhere "$2" "$3" "$4" ||
        bad "$1: not every process learnt of the stall: $(tail -n +"$(($3 + 1))" "$2" | grep -c "no answer from the store within") log lines, workers $($4 | tr '\n' ' ')"
}

# stall_checks NAME PORT ERROR-LOG OTHER-PORT WORKERS (the command listing the server's
# worker processes)
stall_checks() {
    local name=$1 port=$2 log=$3 other=$4 workers=$5 logged from
    logged=$(stalls_logged "$log")
    from=$(wc -l <"$log")
    expect "$name stallfs" "$port" "/$(stall_id 0)" 302 https://e.org/0
    touch "$STALL/pause"
    curl -s -m 60 -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port/$(stall_id $((STALL_IDS / 2)))" >"$WORK/stalled-$name.txt" &
    local sp=$!
    past_the_deadline "$name" "$log" "$from" "$workers"
    for i in 1 2 3; do
        expect "$name stalled store: the deadline's miss" "$port" "/$(stall_id $((STALL_IDS / 2 + i * 1500)))" 404 -
    done
    expect "$name stalled store: another store goes on" "$other" /ark:/13030/xt1 302 https://example.org/xt1
    if [ -e "$STALL/pause" ] && kill -0 "$sp" 2>/dev/null; then
        ok "$name: those answers came while the store was still stalled"
    else
        bad "$name: the stalled request did not wait for the store"
    fi
    rm -f "$STALL/pause"
    wait "$sp"
    local s
    s=$(cat "$WORK/stalled-$name.txt")
    if [ "$s" = 302 ]; then ok "$name: the stalled request was answered once the store was back"; else bad "$name: the stalled request: $s"; fi
    # every process resolves again within a look or two of the watchdogs (a tenth of the
    # deadline each): wait for ten answers in a row
    local good=0
    for _ in $(seq 1 200); do
        req "$port" "/$(stall_id 7)"
        if [ "$STATUS" = 302 ]; then good=$((good + 1)); else good=0; fi
        [ "$good" = 10 ] && break
        sleep 0.02
    done
    expect "$name after the stall" "$port" "/$(stall_id 7)" 302 https://e.org/7
    expect "$name after the stall" "$port" "/$(stall_id $((STALL_IDS - 1)))" 302 "https://e.org/$((STALL_IDS - 1))"
    if [ "$(stalls_logged "$log")" -gt "$logged" ]; then
        ok "$name: the stall is in the error log"
    else
        bad "$name: no stall message in the error log"
    fi
}
