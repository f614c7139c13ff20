#!/usr/bin/env bash
# End-to-end tests: real Apache httpd and nginx, started with the SHIPPED configs
# (apache-conf/*.conf and nginx-conf/*.conf are included, never copied), in front of the
# real noidr (line protocols and --http) on a real minter written by the real noid.
#
#   tests/e2e/run.sh               the build tree's binaries and configs
#   tests/e2e/run.sh --installed   the installed package's: /usr/bin/noid, /usr/bin/noidr,
#                                  /usr/share/noid/apache-conf, /usr/share/noid/nginx-conf
#
# As root it installs apache2-bin, nginx, libnginx-mod-http-js and curl when missing.
# Builds nothing: without --installed it expects release binaries in
# ${NOID_BIN_DIR:-${CARGO_TARGET_DIR:-~/.cache/noid-target}/release}.
# Prints one line per check and a last line "N passed, M failed, K skipped"; exits
# non-zero on any failure. Not root, it skips (and counts, with the reason) what needs
# root: the stalling store's FUSE mount, RewriteMap's user:group. Leaves nothing
# running; keeps its directory on failure (printed) for the logs.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
"")
    BIN=${NOID_BIN_DIR:-${CARGO_TARGET_DIR:-$HOME/.cache/noid-target}/release}
    CONF=$REPO
    ;;
--installed)
    BIN=/usr/bin
    CONF=/usr/share/noid
    ;;
*)
    sed -n '6,8p' "$0" >&2
    exit 2
    ;;
esac
NOID=$BIN/noid
NOIDR=$BIN/noidr
PASS=0
FAIL=0
SKIP=0

for b in "$NOID" "$NOIDR"; do
    if [ ! -x "$b" ]; then
        echo "e2e: $b missing: build with: CARGO_TARGET_DIR=${BIN%/release} cargo build --release" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done
for c in apache-conf/noid-server.conf nginx-conf/noid.js; do
    if [ ! -f "$CONF/$c" ]; then
        echo "e2e: $CONF/$c missing" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
done
echo "# binaries from $BIN, web server configs from $CONF"

"$REPO/scripts/web-apache.sh" install
"$REPO/scripts/web-nginx.sh" install

WORK=$(mktemp -d /tmp/noid-e2e.XXXXXX)
chmod 755 "$WORK" # the noid-get vhost runs its noidr as www-data
DB=$WORK/db
AP=$WORK/apache
NG=$WORK/nginx
mkdir -p "$DB" "$AP" "$NG" "$WORK/bin"
if [ "$CONF" = "$REPO" ]; then
    # A copy that www-data can execute (the build directory may be under a private home).
    cp "$NOIDR" "$WORK/bin/noidr"
    NOIDR=$WORK/bin/noidr
fi
HTTP_PID=""

cleanup() {
    "$REPO/scripts/web-apache.sh" stop "$AP" >/dev/null 2>&1
    "$REPO/scripts/web-nginx.sh" stop "$NG" >/dev/null 2>&1
    [ -n "${APA:-}" ] && "$REPO/scripts/web-apache.sh" stop "$APA" >/dev/null 2>&1
    [ -n "${NGA:-}" ] && "$REPO/scripts/web-nginx.sh" stop "$NGA" >/dev/null 2>&1
    modules_stop
    counting_stop
    for p in $HTTP_PID; do
        kill -TERM "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ "$FAIL" = 0 ] && [ -z "${NOID_E2E_KEEP:-}" ]; then
        rm -rf "$WORK"
    else
        echo "e2e: logs kept in $WORK (apache/logs, nginx/logs, noidr-http.log)" >&2
    fi
}
trap cleanup EXIT

ok() { PASS=$((PASS + 1)); echo "ok   - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
skip() { SKIP=$((SKIP + 1)); echo "skip - $*"; }

# --- ports -----------------------------------------------------------------------------
# noidr --http and noid serve listen on a port the system picks (127.0.0.1:0) and log
# it (bound_port). Apache and nginx cannot, so they get ports nothing answers on; one
# that another process takes before they bind it makes their start fail, loudly.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
NEXT_PORT=$((20000 + RANDOM % 10000)) # below the ephemeral range (32768-)
take_port() { # VAR: set VAR to a free port (no subshell: NEXT_PORT must advance)
    while ! port_free "$NEXT_PORT"; do NEXT_PORT=$((NEXT_PORT + 1)); done
    printf -v "$1" '%s' "$NEXT_PORT"
    NEXT_PORT=$((NEXT_PORT + 1))
}
take_port AE  # Apache, noid-resolve.conf (egg), pages proxied to H1
take_port AG  # Apache, noid-get.conf (manual), noidr as www-data
take_port AP_ # Apache, noid-proxy.conf -> H1
take_port AM  # Apache, noid-resolve.conf, misses forwarded to a global resolver
take_port AF  # Apache, noid-resolve.conf, misses fall through
take_port AN  # Apache, noid-resolve.conf, noidr --egg-miss eggnog
take_port AU  # Apache, noid-proxy.conf -> noidr --http on a unix socket
take_port N1  # nginx, noid-proxy.conf
take_port N2  # nginx, noid-auth.conf
take_port N3  # nginx, noid-njs.conf
# the web server modules (issue 30): their ports, servers and checks
. "$REPO/tests/e2e/modules.sh"
. "$REPO/tests/e2e/signposting.sh"
. "$REPO/tests/e2e/counting.sh"

# --- the minter and its bindings -------------------------------------------------------
bind() { "$NOID" -f "$DB" bind set "$1" "$2" "$3" >/dev/null || bad "noid bind set $1 $2 $3"; }
if ! "$NOID" -f "$DB" dbcreate >"$WORK/dbcreate.log" 2>&1; then
    cat "$WORK/dbcreate.log" >&2
    bad "noid dbcreate"
    echo "$PASS passed, $FAIL failed"
    exit 1
fi
# N2T style: the _t element of full identifiers
bind ark:/13030/xt1 _t https://example.org/xt1
bind ark:/13030/p1 _t "301 https://example.org/moved"
bind ark:/13030/t7 _t "307 https://example.org/temp"
bind ark:/13030/q1 _t "https://example.org/search?x=1&y=2"
bind ark:/00224/foo _t https://example.org/zaf
bind ark:/12345/xt2 _t http://obj.example.com/datasets/
# shellcheck disable=SC2016 # ${suffix} is for the resolver, not the shell
bind ark:/12345/sfx _t 'https://h.example/bar${suffix}zaf'
bind "ark:/13030/a b" _t https://example.org/space
bind "ark:/13030/€uro" _t https://example.org/euro
bind "ark:/13030/pct%41" _t https://example.org/literal-percent
bind ark:/13030/live _t https://example.org/v1
bind ark:/13030/gone _t "410 withdrawn"
bind ark:/13030/gone successor ark:/13030/live
bind ark:/13030/m _t https://example.org/m
bind ark:/13030/m who "Smith, J."
bind ark:/13030/m what "A test object"
bind ark:/13030/m _,eTm,text/turtle https://example.org/m.ttl
# the manual's style: myGoto on NAAN-relative ids
bind 13030/kt639k9 myGoto https://example.org/kt639k9
bind "13030/a b" myGoto "https://example.org/get?space=1"
bind 13030/local myGoto /local/page.html
# :idmap (a pattern's captures in the target) and a hostile target (a CR and a header of
# its own: the Location must carry neither the CR nor a second header)
bind ':idmap/^ark:/13030/mp([0-9]+)$' _t 'https://m.org/$1'
bind ark:/13030/evil _t "$(printf 'https://example.org/a\rX-Evil: 1')"
# A target without a path: a suffix never changes its host (issue 42); a script target
# is no target.
bind ark:/13030/bare _t https://example.org
bind ark:/13030/js _t 'javascript:alert(document.domain)'
bind ark:/13030/esc _t "$(printf 'https://example.org/a\001\033b')"
# Citations by content negotiation (tests/e2e/citations.py reads them back).
bind ark:/13030/cite _t https://example.org/cite
bind ark:/13030/cite who "Smith, Jane; Doe, J."
bind ark:/13030/cite what "Tide gauges 100% & more"
bind ark:/13030/cite when 2020-05-01
bind ark:/13030/cite how "(:mtype data) time series"
bind ark:/13030/cite dc.publisher "Example Archive"
# Several targets (each a signposting item, tests/e2e/signposting.sh).
bind ark:/13030/multi _t "$(printf 'https://example.org/m1\nhttps://example.org/m2')"

# The ARK draft's rules table (docs/RESOLUTION.md): its bindings; its rows are asked of
# every resolver below.
DRAFT_TABLE="$REPO/tests/e2e/draft_table.py"
while IFS=$'\t' read -r id elem value; do
    bind "$id" "$elem" "$value"
done < <(/usr/bin/python3 "$DRAFT_TABLE" "$REPO/docs/RESOLUTION.md" bindings)

# --- noidr --http ----------------------------------------------------------------------
# bound_port LOG PID WORDS: the port of the address a server logs once it listens
# ("WORDS 127.0.0.1:PORT"), waited for while its process PID runs (60 s at most: a bound
# for a hang); empty if it never says.
bound_port() {
    local log=$1 pid=$2 words=$3 port end=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$end" ] && kill -0 "$pid" 2>/dev/null; do
        port=$(sed -n "s/.*$words 127\.0\.0\.1:\([0-9]*\).*/\1/p" "$log" | head -1)
        [ -n "$port" ] && { echo "$port"; return; }
        sleep 0.05
    done
}
# Every full resolver runs with the built-in rules and FAIR Signposting on
# (tests/e2e/signposting.sh checks its headers and linksets on each).
SIGNPOSTING_RULES="$WORK/signposting.rules"
{ grep -v '^#' "$REPO/crates/noid-resolve/rules/default.rules"; echo "signposting on"; } >"$SIGNPOSTING_RULES"
"$NOIDR" -f "$DB" --rules "$SIGNPOSTING_RULES" --http 127.0.0.1:0 --log-level info >"$WORK/noidr-http.log" 2>&1 &
HTTP_PID=$!
H1=$(bound_port "$WORK/noidr-http.log" "$HTTP_PID" "HTTP on")
[ -n "$H1" ] || bad "noidr --http did not say where it listens: $(tail -3 "$WORK/noidr-http.log")"
# and on a unix socket (umask 0: httpd's children, www-data, must be able to connect)
(umask 0 && exec "$NOIDR" -f "$DB" --rules "$SIGNPOSTING_RULES" --http "unix:$WORK/noidr.sock" >"$WORK/noidr-unix.log" 2>&1) &
HTTP_PID="$HTTP_PID $!"
for _ in $(seq 1 600); do
    curl -s -o /dev/null "http://127.0.0.1:$H1/health" &&
        curl -s -o /dev/null --unix-socket "$WORK/noidr.sock" http://localhost/health && break
    sleep 0.1
done

# --- Apache ----------------------------------------------------------------------------
mkdir -p "$AP/htdocs/local" "$AP/htdocs/ark:/99999"
echo "local page" >"$AP/htdocs/local/page.html"
echo "a static file" >"$AP/htdocs/ark:/99999/static"
# The Apache miss behaviours (fall through, a global resolver of the site's own, EggNog's
# miss line) need noidr's own misses: noidr sends ARKs of NAANs it does not serve to
# N2T by default (the ARK draft's §3.3), which a rules file turns off.
printf 'global-resolver off\n' >"$WORK/no-forwarding.rules"
cat >"$AP/site.conf" <<EOF
Listen 127.0.0.1:$AE
Listen 127.0.0.1:$AG
Listen 127.0.0.1:$AP_
Listen 127.0.0.1:$AM
Listen 127.0.0.1:$AF
Listen 127.0.0.1:$AN
Listen 127.0.0.1:$AU
Define NOIDR $NOIDR
Define NOID_DBDIR $DB
Include $CONF/apache-conf/noid-server.conf
<VirtualHost 127.0.0.1:$AE>
    Define NOIDR_URL http://127.0.0.1:$H1
    Define NOIDR_ARGS "--egg-miss null --rules $SIGNPOSTING_RULES"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOIDR_ARGS
    UnDefine NOIDR_URL
</VirtualHost>
<VirtualHost 127.0.0.1:$AG>
    $([ "$(id -u)" = 0 ] && echo "Define NOIDR_USER www-data:www-data")
    Include $CONF/apache-conf/noid-get.conf
    UnDefine NOIDR_USER
</VirtualHost>
<VirtualHost 127.0.0.1:$AP_>
    Define NOIDR_URL http://127.0.0.1:$H1
    Include $CONF/apache-conf/noid-proxy.conf
    UnDefine NOIDR_URL
</VirtualHost>
<VirtualHost 127.0.0.1:$AM>
    Define NOID_MISS_GLOBAL https://n2t.example
    Define NOIDR_ARGS "--rules $WORK/no-forwarding.rules"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOIDR_ARGS
    UnDefine NOID_MISS_GLOBAL
</VirtualHost>
<VirtualHost 127.0.0.1:$AF>
    Define NOID_MISS_FALLTHROUGH
    Define NOIDR_ARGS "--rules $WORK/no-forwarding.rules"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOIDR_ARGS
    UnDefine NOID_MISS_FALLTHROUGH
</VirtualHost>
<VirtualHost 127.0.0.1:$AU>
    Define NOIDR_URL "unix:$WORK/noidr.sock|http://localhost"
    Include $CONF/apache-conf/noid-proxy.conf
    UnDefine NOIDR_URL
</VirtualHost>
<VirtualHost 127.0.0.1:$AN>
    Define NOIDR_ARGS "--egg-miss eggnog --rules $WORK/no-forwarding.rules"
    Include $CONF/apache-conf/noid-resolve.conf
    UnDefine NOIDR_ARGS
</VirtualHost>
EOF
if NOID_WEB_MODULES=headers "$REPO/scripts/web-apache.sh" start "$AP"; then ok "apache starts with the shipped configs"; else bad "apache start"; fi

# --- nginx -----------------------------------------------------------------------------
cat >"$NG/site.conf" <<EOF
js_import noid from $CONF/nginx-conf/noid.js;
upstream noidr {
    server 127.0.0.1:$H1;
    keepalive 16;
    keepalive_timeout 60s;
    keepalive_requests 100000;
}
server { listen 127.0.0.1:$N1; include $CONF/nginx-conf/noid-proxy.conf; include $CONF/nginx-conf/noidr-status.conf; }
server { listen 127.0.0.1:$N2; root $NG/empty; include $CONF/nginx-conf/noid-auth.conf; }
server { listen 127.0.0.1:$N3; include $CONF/nginx-conf/noid-njs.conf; }
EOF
if "$REPO/scripts/web-nginx.sh" start "$NG"; then ok "nginx starts with the shipped configs"; else bad "nginx start"; fi

# wait until every server answers
for p in $AE $AG $AP_ $AM $AF $AN $AU $N1 $N2 $N3; do
    for _ in $(seq 1 600); do
        curl -s -o /dev/null "http://127.0.0.1:$p/" && break
        sleep 0.1
    done
done

# --- checking --------------------------------------------------------------------------
# req PORT PATH [curl args...] -> STATUS LOC BODY CTYPE
req() {
    local port=$1 path=$2
    shift 2
    rm -f "$WORK/h" "$WORK/b"
    STATUS=$(curl -s --path-as-is -m 10 -D "$WORK/h" -o "$WORK/b" -w '%{http_code}' "$@" "http://127.0.0.1:$port$path") || STATUS=000
    LOC=$(sed -n 's/^[Ll]ocation: //p' "$WORK/h" | tr -d '\r')
    CTYPE=$(sed -n 's/^[Cc]ontent-[Tt]ype: //p' "$WORK/h" | tr -d '\r')
    BODY=$(cat "$WORK/b" 2>/dev/null)
}
# expect NAME PORT PATH STATUS [LOCATION|-] [curl args...]
expect() {
    local name=$1 port=$2 path=$3 status=$4 loc=${5:--}
    shift 5 2>/dev/null || shift $#
    req "$port" "$path" "$@"
    if [ "$STATUS" = "$status" ] && { [ "$loc" = "*" ] || [ "$loc" = "$LOC" ] || { [ "$loc" = - ] && [ -z "$LOC" ]; }; }; then
        ok "$name $path -> $STATUS ${LOC}"
    else
        bad "$name $path: want $status ${loc}, got $STATUS ${LOC} $(head -c 200 "$WORK/b" 2>/dev/null | tr '\n' ' ')"
    fi
}
# expect_body NAME PORT PATH STATUS SUBSTRING [curl args...]
expect_body() {
    local name=$1 port=$2 path=$3 status=$4 sub=$5
    shift 5
    req "$port" "$path" "$@"
    if [ "$STATUS" = "$status" ] && [[ "$BODY" == *"$sub"* ]]; then
        ok "$name $path -> $STATUS body has '${sub//$'\n'/\\n}'"
    else
        bad "$name $path: want $status with '${sub//$'\n'/\\n}', got $STATUS [$CTYPE] $(head -c 300 "$WORK/b" 2>/dev/null | tr '\n' '|')"
    fi
}

# The full resolvers: same requests, same answers on every server and pattern.
RESOLVERS="apache-egg:$AE apache-proxy:$AP_ apache-proxy-unix:$AU nginx-proxy:$N1 nginx-auth:$N2 nginx-njs:$N3 noidr-http:$H1"
modules_start # adds the modules' resolvers
CASES=$(
    cat <<'EOF'
/ark:/13030/xt1|302|https://example.org/xt1
/ark:/13030/p1|301|https://example.org/moved
/ark:/13030/t7|307|https://example.org/temp
/ark:/13030/q1|302|https://example.org/search?x=1&y=2
/ark:/00224/foo/bar//zif?zaf=ab&cd|302|https://example.org/zaf/bar//zif?zaf=ab&cd
/ark:/12345/xt2rv8b/chap3/sect5//para4.txt.1.bak|302|http://obj.example.com/datasets/rv8b/chap3/sect5//para4.txt.1.bak
/ark:/12345/sfx|302|https://h.example/barzaf
/ark:/12345/sfx/abc|302|https://h.example/bar/abczaf
/ark:/13030/a%20b|302|https://example.org/space
/ark:/13030/%E2%82%ACuro|302|https://example.org/euro
/ark:/13030/pct%2541|302|https://example.org/literal-percent
/ark:/13030/xt1?x=%26y|302|https://example.org/xt1?x=%26y
/ark:/13030/m|302|https://example.org/m
/ark:/13030/gone|410|-
/ark:/99999/nope|302|https://n2t.net/ark:/99999/nope
/ark:/13030/a%0Ab|404|-
/ark:/13030/mp42|302|https://m.org/42
/ark:/13030/x%E2%80%90t1|302|https://example.org/xt1
/ark:/13030/evil|302|https://example.org/aX-Evil: 1
/ark:/13030/bare@evil.example|302|https://example.org/@evil.example
/ark:/13030/bare.evil.example|302|https://example.org/.evil.example
/ark:/13030/js|404|-
/ark:/13030/xt1%0D%0AX-Evil:%201|404|-
EOF
)
# Other schemes and spellings (the built-in rules' doi:, the ARK specification's
# equivalences: an en dash, no slash after "ark:", "ARK:"): every resolver but
# noid-proxy.conf, which proxies one prefix (NOID_PROXY_PATH, /ark: as shipped).
CASES_SCHEMES=$(
    cat <<'EOF'
/doi:10.5072/FK2ABC|302|https://doi.org/10.5072/FK2ABC
/ark:13030/xt%E2%80%931|302|https://example.org/xt1
/ARK:/13030/x-t1|302|https://example.org/xt1
EOF
)
# Control characters: a target holding some (noidr --http drops them from the Location),
# and a decoded CR (and a space) in a chop-back's suffix (a miss for noidr --http). Not
# for Apache's mod_rewrite paths (prg, mod_noid): httpd answers 500 rather than send a
# Location holding a control character, and mod_rewrite makes its own key of the CR
# request (both checked below). No header injected either way.
CASES_CR=$(
    cat <<'EOF'
/ark:/13030/esc|302|https://example.org/ab
/ark:/12345/sfx/a%0DX-Evil:%201|404|-
EOF
)
for r in $RESOLVERS; do
    name=${r%%:*} port=${r##*:}
    cases=$CASES
    case $name in apache-proxy*) ;; *) cases="$cases"$'\n'"$CASES_SCHEMES" ;; esac
    case $name in apache-*) ;; *) cases="$cases"$'\n'"$CASES_CR" ;; esac
    while IFS='|' read -r path status loc; do
        if [ "$name" = noidr-http ]; then path=/redirect$path; fi
        expect "$name" "$port" "$path" "$status" "$loc"
        # no header injected, and no CR inside a header line (curl would show it
        # as part of the value)
        if grep -qi '^X-Evil' "$WORK/h" || LC_ALL=C grep -q $'\r.' "$WORK/h"; then
            bad "$name $path: a control character in the response head: $(tr '\r\n' '~|' <"$WORK/h")"
        fi
    done <<<"$cases"
done
for r in $RESOLVERS; do
    name=${r%%:*} port=${r##*:}
    case $name in apache-egg | apache-module | apache-module-rules) ;; *) continue ;; esac
    req "$port" /ark:/12345/sfx/a%0DX-Evil:%201
    if [ "$STATUS" = 302 ] && [ "$LOC" = "https://h.example/bar/aX-Evil: 1zaf" ] && ! grep -qi '^X-Evil' "$WORK/h"; then
        ok "$name hostile suffix -> 302 without the CR, no header injected"
    else
        bad "$name hostile suffix: $STATUS [$LOC] $(tr '\r\n' '  ' <"$WORK/h")"
    fi
    expect "$name control characters in the target: httpd's 500" "$port" /ark:/13030/esc 500 -
done

# The ARK draft's rules (docs/RESOLUTION.md's table, the same rows the Rust tests read),
# through every pattern; through noid-proxy.conf only the /ark:/ paths (as CASES_SCHEMES,
# the other spellings are not proxied by its prefix).
CASES_DRAFT=$(/usr/bin/python3 "$DRAFT_TABLE" "$REPO/docs/RESOLUTION.md" rows)
[ "$(wc -l <<<"$CASES_DRAFT")" = 35 ] || bad "the draft's rules table: want 35 rows, got $(wc -l <<<"$CASES_DRAFT")"
for r in $RESOLVERS; do
    name=${r%%:*} port=${r##*:}
    pre=""
    [ "$name" = noidr-http ] && pre=/redirect
    while IFS='|' read -r path status loc body; do
        case $name:$path in apache-proxy*:/ark:/*) ;; apache-proxy*:*) continue ;; esac
        if [ "$status" = 200 ]; then
            expect_body "$name draft" "$port" "$pre$path" 200 "$body"
        else
            expect "$name draft" "$port" "$pre$path" "$status" "$loc"
        fi
    done <<<"$CASES_DRAFT"
done

# Inflections and content negotiation (issue 7), through every pattern.
for r in $RESOLVERS; do
    name=${r%%:*} port=${r##*:}
    pre=""
    [ "$name" = noidr-http ] && pre=/redirect
    expect_body "$name ?" "$port" "$pre/ark:/13030/m?" 200 $'erc:\nwho: Smith, J.\nwhat: A test object\n'
    expect_body "$name ??" "$port" "$pre/ark:/13030/m??" 200 $'who: Smith, J.'
    expect_body "$name ? json" "$port" "$pre/ark:/13030/m?" 200 '"who":"Smith, J."' -H "Accept: application/json"
    expect "$name conneg" "$port" "$pre/ark:/13030/m" 303 https://example.org/m.ttl -H "Accept: text/turtle"
    expect "$name browser accept" "$port" "$pre/ark:/13030/m" 302 https://example.org/m -H "Accept: text/html,application/xhtml+xml,*/*;q=0.8"
done

# Citations by content negotiation (CSL-JSON, BibTeX, RIS, JSON-LD, a reference), each
# read back by its format's own parser, through every pattern (the web servers pass
# them on to noidr --http as they pass every page).
for r in $RESOLVERS; do
    name=${r%%:*} port=${r##*:}
    pre=""
    [ "$name" = noidr-http ] && pre=/redirect
    out=$(PYTHONPATH="${XDG_CACHE_HOME:-$HOME/.cache}/noid-pylib" /usr/bin/python3 "$REPO/tests/e2e/citations.py" "http://127.0.0.1:$port$pre/ark:/13030/cite" 2>&1)
    if [ "$(grep -c '^ok ' <<<"$out")" = 5 ]; then
        ok "$name citations: CSL-JSON, BibTeX, RIS, JSON-LD and a reference read back by their parsers"
    else
        bad "$name citations: $(tr '\n' '|' <<<"$out")"
    fi
done

signposting_checks

# A withdrawn identifier: 410 with the HTTP mode's tombstone page naming the successor,
# and its Link header, on every full resolver; on the prg path noid-resolve.conf proxies
# a "redir410" answer to NOIDR_URL for it. Without NOIDR_URL, httpd's own bare 410.
# expect_gone NAME PORT PATH BODY [curl args...]
expect_gone() {
    local name=$1 port=$2 path=$3 want=$4
    shift 4
    req "$port" "$path" "$@"
    local link
    link=$(sed -n 's/^[Ll]ink: //p' "$WORK/h" | tr -d '\r')
    if [ "$STATUS" = 410 ] && [ "$BODY" = "$want" ] && [ "$link" = '</ark:/13030/live>; rel="successor-version"' ]; then
        ok "$name $path -> 410 tombstone naming the successor, Link header"
    else
        bad "$name $path: want 410, the tombstone and its Link; got $STATUS [$link] $(head -c 300 "$WORK/b" 2>/dev/null | tr '\n' '|')"
    fi
}
for r in $RESOLVERS; do
    name=${r%%:*} port=${r##*:}
    pre=""
    [ "$name" = noidr-http ] && pre=/redirect
    expect_gone "$name gone" "$port" "$pre/ark:/13030/gone" $'erc:\nwhere: ark:/13030/gone\nwithdrawn: withdrawn\nsuccessor: ark:/13030/live'
    expect_gone "$name gone json" "$port" "$pre/ark:/13030/gone" \
        '{"id":"ark:/13030/gone","withdrawn":"withdrawn","successor":"ark:/13030/live","erc":{"where":"ark:/13030/gone"}}' \
        -H "Accept: application/json"
done
req "$AF" /ark:/13030/gone
if [ "$STATUS" = 410 ] && [[ "$BODY" != *"ark:/13030/live"* ]]; then
    ok "apache-egg without NOIDR_URL /ark:/13030/gone -> httpd's bare 410"
else
    bad "apache-egg without NOIDR_URL /ark:/13030/gone: want a bare 410, got $STATUS $(head -c 200 "$WORK/b" | tr '\n' '|')"
fi

# noid-proxy.conf sends noidr only Accept, If-Modified-Since and X-Forwarded-Proto: a
# conditional request still gets its 304 through nginx, and an older date the page.
for r in nginx-proxy:$N1 noidr-http:$H1; do
    name=${r%%:*} port=${r##*:}
    pre=""
    [ "$name" = noidr-http ] && pre=/redirect
    expect "$name not modified" "$port" "$pre/ark:/13030/m?" 304 - -H "If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT"
    expect_body "$name modified since" "$port" "$pre/ark:/13030/m?" 200 $'erc:\nwho: Smith, J.' -H "If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT" -H "Cookie: a=b"
done

# The manual's "get ID myGoto" (noidr --protocol noid, run as www-data).
expect apache-get "$AG" /ark:/13030/kt639k9 302 https://example.org/kt639k9
expect apache-get "$AG" /ark:/13030/a%20b 302 "https://example.org/get?space=1"
expect_body apache-get "$AG" /ark:/13030/local 200 "local page"
expect apache-get "$AG" /ark:/13030/nope 404 -
expect apache-get "$AG" "/ark:/13030/it's" 404 -

# Misses: forwarded to a global resolver, or falling through to the file system.
expect apache-miss-global "$AM" /ark:/99999/nope 302 https://n2t.example/ark:/99999/nope
expect apache-miss-global "$AM" "/ark:/99999/nope?q=%20x" 302 "https://n2t.example/ark:/99999/nope?q=%20x"
expect apache-miss-global "$AM" /ark:/13030/xt1 302 https://example.org/xt1
expect_body apache-miss-fallthrough "$AF" /ark:/99999/static 200 "a static file"
expect apache-miss-fallthrough "$AF" /ark:/99999/nope 404 -
expect apache-miss-fallthrough "$AF" /ark:/13030/xt1 302 https://example.org/xt1
# EggNog's miss answer ("redir302 " with an empty target) is a miss too.
expect apache-eggnog-miss "$AN" /ark:/99999/nope 404 -
expect apache-eggnog-miss "$AN" /ark:/13030/xt1 302 https://example.org/xt1

# A binding changed while everything runs: visible at once, no restart, no sleep.
bind ark:/13030/live _t https://example.org/v2
for r in $RESOLVERS; do
    name=${r%%:*} port=${r##*:}
    pre=""
    [ "$name" = noidr-http ] && pre=/redirect
    expect "$name live update" "$port" "$pre/ark:/13030/live" 302 https://example.org/v2
done
bind 13030/kt639k9 myGoto https://example.org/kt-v2
expect "apache-get live update" "$AG" /ark:/13030/kt639k9 302 https://example.org/kt-v2
bind ark:/13030/new _t https://example.org/new
expect "apache-egg new binding" "$AE" /ark:/13030/new 302 https://example.org/new

# --- the prg programs under signals ----------------------------------------------------
APID=$(cat "$AP/run/httpd.pid")
prg_pids() { pgrep -P "$APID" -f -- "--protocol" | sort; }
# Wait until a condition (a command) holds: 60 s at most, a bound for a hang, not a speed.
# One deadline: a condition that waits itself (reopens) waits within the caller's.
wait_until() {
    local end=$((SECONDS + 60))
    if [ -n "${WAIT_END:-}" ] && [ "$WAIT_END" -lt "$end" ]; then end=$WAIT_END; fi
    local WAIT_END=$end # seen by the wait_until calls of the condition
    while [ "$SECONDS" -lt "$end" ]; do "$@" && return 0; sleep 0.05; done
    return 1
}
# How many times prg program $1 has reopened its store, as its SIGUSR1 metrics line says
# ("… reopens=N …", written to its stderr: httpd's main error log). One program is
# asked at a time, so the next such line in the log is its own.
reopens() {
    local log=$AP/logs/error.log before
    before=$(grep -c 'reopens=' "$log")
    kill -USR1 "$1"
    wait_until eval '[ "$(grep -c "reopens=" "$log")" -gt "$before" ]'
    grep -o 'reopens=[0-9]*' "$log" | tail -1 | cut -d= -f2
}
# Whether prg program $1 has reopened its store more than $2 times.
reopened() { [ "$(reopens "$1")" -gt "$2" ]; }
# Whether process $1 has ended (gone, or a zombie not reaped yet): its pipes are closed.
ended() { [ ! -e "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }
PIDS=$(prg_pids)
n=$(echo "$PIDS" | grep -c .)
if [ "$n" = 5 ]; then ok "apache started 5 noidr prg programs (one per map)"; else bad "expected 5 noidr prg programs, found $n: $PIDS"; fi
if [ "$(id -u)" != 0 ]; then
    skip "RewriteMap user:group (not root)"
elif [ -n "$PIDS" ] && [ "$(stat -c %U "/proc/$(pgrep -P "$APID" -f -- '--protocol noid' | head -1)")" = www-data ]; then
    ok "the noid-get prg runs as www-data (RewriteMap user:group)"
else
    bad "the noid-get prg does not run as www-data"
fi

# SIGHUP: noidr reopens its store and keeps answering (same processes). Checked once
# each has reopened (its metrics say so), not after a pause.
declare -A BEFORE_HUP
for p in $PIDS; do BEFORE_HUP[$p]=$(reopens "$p"); done
for p in $PIDS; do kill -HUP "$p"; done
for p in $PIDS; do
    wait_until reopened "$p" "${BEFORE_HUP[$p]}" || bad "noidr $p did not reopen its store after SIGHUP"
done
expect "after SIGHUP apache-egg" "$AE" /ark:/13030/xt1 302 https://example.org/xt1
expect "after SIGHUP apache-get" "$AG" /ark:/13030/kt639k9 302 https://example.org/kt-v2
bind ark:/13030/live _t https://example.org/v3
expect "after SIGHUP live update" "$AE" /ark:/13030/live 302 https://example.org/v3
if [ "$(prg_pids)" = "$PIDS" ]; then ok "noidr survived SIGHUP"; else bad "prg programs changed after SIGHUP"; fi

# Killed: httpd does not respawn it; lookups come back empty: the configured miss answer.
for p in $PIDS; do kill -KILL "$p"; done
for p in $PIDS; do wait_until ended "$p" || bad "noidr $p still running after SIGKILL"; done
expect "noidr killed: apache-egg misses" "$AE" /ark:/13030/xt1 404 -
expect "noidr killed: apache-get misses" "$AG" /ark:/13030/kt639k9 404 -
expect "noidr killed: global forward" "$AM" /ark:/13030/xt1 302 https://n2t.example/ark:/13030/xt1

# Graceful restart (SIGUSR1): a fresh noidr for every map.
"$REPO/scripts/web-apache.sh" graceful "$AP"
for _ in $(seq 1 600); do
    req "$AE" /ark:/13030/xt1
    [ "$STATUS" = 302 ] && break
    sleep 0.1
done
NEW=$(prg_pids)
if [ "$(echo "$NEW" | grep -c .)" = 5 ] && [ -z "$(comm -12 <(echo "$PIDS") <(echo "$NEW"))" ]; then
    ok "graceful restart started 5 fresh noidr programs"
else
    bad "after graceful restart: prg pids '$NEW' (before: '$PIDS')"
fi
expect "after graceful apache-egg" "$AE" /ark:/13030/xt1 302 https://example.org/xt1
expect "after graceful apache-get" "$AG" /ark:/13030/kt639k9 302 https://example.org/kt-v2

modules_checks
counting_start
counting_checks

# --- the HTTP mode's own contract ------------------------------------------------------
expect_body noidr-http "$H1" /health 200 ok
expect_body noidr-http-healthz "$H1" /healthz 200 ok
# Health and metrics through nginx (nginx-conf/noidr-status.conf): for allowed
# addresses only (127.0.0.1 is; 127.0.0.2, another loopback address, is not).
expect_body nginx-healthz "$N1" /noidr/healthz 200 ok
req "$N1" /noidr/metrics
if [ "$STATUS" = 200 ] && grep -q '^noidr_requests_total{kind="hit"} [1-9]' "$WORK/b" &&
    grep -q '^noidr_store_open 1$' "$WORK/b" && [[ $CTYPE == "text/plain; version=0.0.4"* ]]; then
    ok "nginx /noidr/metrics: noidr's Prometheus metrics"
else
    bad "nginx /noidr/metrics: $STATUS $CTYPE $(head -c 300 "$WORK/b")"
fi
expect "nginx-metrics-denied" "$N1" /noidr/metrics 403 - --interface 127.0.0.2
expect "nginx-healthz-denied" "$N1" /noidr/healthz 403 - --interface 127.0.0.2
expect noidr-http-auth "$H1" /auth/ark:/13030/p1 204 -
req "$H1" /auth/ark:/13030/p1
if grep -qi '^x-target: https://example.org/moved' "$WORK/h" && grep -qi '^x-status: 301' "$WORK/h"; then
    ok "noidr-http /auth/ X-Target and X-Status"
else
    bad "noidr-http /auth/ headers: $(tr '\r\n' '  ' <"$WORK/h")"
fi
expect noidr-http-auth-miss "$H1" /auth/ark:/13030/nope 403 -
expect_body noidr-http-lookup "$H1" "/lookup/ark%3A%2F13030%2Fa%20b" 200 https://example.org/space

# --- the binder and minter API (issue 18): Apache as CGI, nginx in front of noid serve,
# both over TLS with the shipped apache-conf/noid-api.conf and nginx-conf/noid-api.conf.
API=$WORK/api
APA=$WORK/apache-api
NGA=$WORK/nginx-api
mkdir -p "$API" "$APA" "$NGA"
take_port AA # Apache, noid-api.conf (CGI)
take_port NA # nginx, noid-api.conf -> noid serve
"$NOID" -f "$API/binders/sam" dbcreate >/dev/null || bad "api: dbcreate binder"
"$NOID" -f "$API/binders/other" dbcreate >/dev/null || bad "api: dbcreate binder"
"$NOID" -f "$API/minters/sam/ark/99999/fk4" dbcreate fk4.reedeedk long 99999 example.org e2e >/dev/null ||
    bad "api: dbcreate minter"
htpasswd -B -b -c "$API/pwdfile_sam" sam secret 2>/dev/null
htpasswd -B -b -c "$API/pwdfile_other" olga pw 2>/dev/null
htpasswd -B -b -c "$API/pwdfile_ro" viewer look 2>/dev/null
cat >"$API/api.toml" <<EOF
[front]
addresses = ["127.0.0.1"]
[populator.sam]
htpasswd = "$API/pwdfile_sam"
binder = "$API/binders/sam"
minters = "$API/minters/sam"
any_identifier = true
[populator.other]
htpasswd = "$API/pwdfile_other"
binder = "$API/binders/other"
[populator.ro]
htpasswd = "$API/pwdfile_ro"
binder = "$API/binders/sam"
write = false
EOF
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$API/key.pem" -out "$API/cert.pem" \
    -days 2 -subj /CN=127.0.0.1 >/dev/null 2>&1 || bad "api: openssl certificate"
cp "$NOID" "$API/noidu-api" # the CGI: noid under a name starting "noidu"
# The CGI runs as Apache's user and writes the stores and the write log.
[ "$(id -u)" = 0 ] && chown -R www-data:www-data "$API"
RUST_LOG=info "$NOID" serve --http 127.0.0.1:0 --config "$API/api.toml" >"$WORK/noid-serve.log" 2>&1 &
HTTP_PID="$HTTP_PID $!"
HA=$(bound_port "$WORK/noid-serve.log" "$!" "HTTP API on")
[ -n "$HA" ] || bad "noid serve did not say where it listens: $(tail -3 "$WORK/noid-serve.log")"
cat >"$APA/site.conf" <<EOF
Listen 127.0.0.1:$AA
<AuthnProviderAlias file noid_sam>
    AuthUserFile $API/pwdfile_sam
</AuthnProviderAlias>
<AuthnProviderAlias file noid_other>
    AuthUserFile $API/pwdfile_other
</AuthnProviderAlias>
<AuthnProviderAlias file noid_ro>
    AuthUserFile $API/pwdfile_ro
</AuthnProviderAlias>
<VirtualHost 127.0.0.1:$AA>
    SSLEngine on
    SSLCertificateFile $API/cert.pem
    SSLCertificateKeyFile $API/key.pem
    Define NOID_API_CGI $API/noidu-api
    Define NOID_API_CONFIG $API/api.toml
    Define NOID_API_PROVIDERS "noid_sam noid_other noid_ro"
    Include $CONF/apache-conf/noid-api.conf
</VirtualHost>
EOF
if NOID_WEB_MODULES="alias cgid env auth_basic authn_core authn_file authz_user ssl socache_shmcb" \
    "$REPO/scripts/web-apache.sh" start "$APA"; then
    ok "apache starts with noid-api.conf"
else
    bad "apache start with noid-api.conf"
fi
cat >"$NGA/site.conf" <<EOF
upstream noid_api {
    server 127.0.0.1:$HA;
    keepalive 16;
}
server {
    listen 127.0.0.1:$NA ssl;
    ssl_certificate $API/cert.pem;
    ssl_certificate_key $API/key.pem;
    include $CONF/nginx-conf/noid-api.conf;
}
EOF
if "$REPO/scripts/web-nginx.sh" start "$NGA"; then ok "nginx starts with noid-api.conf"; else bad "nginx start with noid-api.conf"; fi
for p in $AA $NA; do
    for _ in $(seq 1 600); do
        curl -sk -o /dev/null "https://127.0.0.1:$p/" && break
        sleep 0.1
    done
done
# api NAME PORT PATH?QUERY USER STATUS [BODY-SUBSTRING] [curl args...]
api() {
    local name=$1 port=$2 path=$3 user=$4 status=$5 sub=${6:-}
    shift 6 2>/dev/null || shift $#
    local auth=()
    [ -n "$user" ] && auth=(-u "$user")
    rm -f "$WORK/b"
    STATUS=$(curl -sk --path-as-is -m 20 -o "$WORK/b" -w '%{http_code}' "${auth[@]}" "$@" "https://127.0.0.1:$port$path") || STATUS=000
    BODY=$(cat "$WORK/b" 2>/dev/null)
    if [ "$STATUS" = "$status" ] && [[ "$BODY" == *"$sub"* ]]; then
        ok "$name $path -> $STATUS${sub:+ body has '${sub//$'\n'/\\n}'}"
    else
        bad "$name $path: want $status '${sub//$'\n'/\\n}', got $STATUS $(head -c 300 "$WORK/b" 2>/dev/null | tr '\n' '|')"
    fi
}
for r in "apache-cgi:$AA" "nginx-api:$NA"; do
    n=${r%%:*} port=${r##*:}
    api "$n no login" "$port" "/a/sam/b?i.fetch" "" 401
    api "$n wrong password" "$port" "/a/sam/b?i.fetch" sam:wrong 401
    api "$n another populator's login" "$port" "/a/sam/b?i.fetch" olga:pw 403
    # Answered as a populator whose logins all fail (sam's is another populator's).
    api "$n unknown populator" "$port" "/a/nobody/b?i.fetch" sam:secret 403 "error: 403 forbidden"
    api "$n .. in a minter path" "$port" "/a/sam/m/ark/99999/../fk4?mint%201" sam:secret 404
    api "$n bind" "$port" "/a/sam/b?$n.set%20moo%20cow" sam:secret 200 "egg-status: 0"
    api "$n fetch" "$port" "/a/sam/b?--verbose%20$n.fetch%20moo" sam:secret 200 \
        $'note: remote user: sam\nmoo: cow\n\negg-status: 0'
    api "$n ack" "$port" "/a/sam/b?--ack%20$n.add%20moo%20sheep" sam:secret 200 $'oxum: 5.1\n\negg-status: 0'
    api "$n mkbinder" "$port" "/a/sam/b?mkbinder%20x" sam:secret 401 "error: 401 unauthorized"
    api "$n @FILE" "$port" "/a/sam/b?i.set%20a%20@/etc/passwd" sam:secret 401 "error: 401 unauthorized"
    api "$n -d" "$port" "/a/sam/b?-d%20/tmp%20i.set%20a%20b" sam:secret 200 "error: -d or -p not allowed in query string"
    api "$n <binder>" "$port" "/a/sam/b?%3Cx%3Ei.set%20a%20b" sam:secret 200 "prefix not allowed from remote connections"
    api "$n dbcreate" "$port" "/a/sam/b?dbcreate" sam:secret 401
    api "$n mkminter" "$port" "/a/sam/m/ark/99999/fk4?mkminter%20x" sam:secret 401
    api "$n mint" "$port" "/a/sam/m/ark/99999/fk4?mint%202" sam:secret 200 "s: 99999/fk4"
    api "$n import" "$port" "/a/sam/b?import%20/tmp/x" sam:secret 401 "error: 401 unauthorized"
    api "$n -p" "$port" "/a/sam/b?-p%20/tmp%20i.fetch" sam:secret 200 "error: -d or -p not allowed in query string"
    api "$n --dir" "$port" "/a/sam/b?--dir%20/tmp%20i.fetch" sam:secret 200 "error: -d or -p not allowed in query string"
    api "$n .. as populator" "$port" "/a/../b?i.fetch" sam:secret 404
    api "$n other's minter" "$port" "/a/other/m/ark/99999/fk4?mint%201" sam:secret 403
    api "$n read-only write" "$port" "/a/ro/b?i.set%20a%20b" viewer:look 403 "read-only access"
    api "$n read-only read" "$port" "/a/ro/b?$n.get%20moo" viewer:look 200 $'moo: cow'
    api "$n unknown command" "$port" "/a/sam/b?xyzzy" sam:secret 200 $'error: unknown command: xyzzy\n\negg-status: 1'
    api "$n list" "$port" "/a/sam/b?list%20-%20$n" sam:secret 200 $'\nid: '"$n"$'\n# produced 1 ids'
    api "$n norm" "$port" "/a/sam/b?ark:12345/e-f%3Fg-h.norm" sam:secret 200 $'id: ark:/12345/ef?g-h\n\negg-status: 0'
    api "$n xml" "$port" "/a/sam/b?-m%20xml%20:allnot%20$n.get%20moo" sam:secret 200 \
        "<record id=\"$n\"><element name=\"moo\">cow</element><element name=\"moo\">sheep</element></record>"
    api "$n acting-for" "$port" "/a/sam/b?--verbose%20$n.set%20af%201" sam:secret 200 \
        "note: remote user: sam acting for &P/b4cd3" -H "Acting-For: http://n2t.net/ark:/99166/b4cd3"
    api "$n bulk" "$port" "/a/sam/b?-" sam:secret 200 \
        $'who: A\nwho: B\n\n# committed 3 commands, through line 3\negg-status: 0' \
        --data-binary $'bulk.set who A\nbulk.add who B\nbulk.fetch who\n'
    got=$("$NOID" -f "$API/binders/sam" get "$n" moo)
    if [ "$got" = cow ]; then ok "$n: noid get sees the API's binding"; else bad "$n: noid get $n moo: $got"; fi
done
if [ "$(grep -c . "$API/binders/sam/write.log")" = 10 ]; then
    ok "api: 10 writes in the write log"
else
    bad "api: write log: $(tr '\n' '|' <"$API/binders/sam/write.log")"
fi
# nginx adds the client to X-Forwarded-For and noid serve, trusting 127.0.0.1 as its
# front server, logs the last address: a client's own header cannot name another.
# (then PRIOR, `=`: af had no value, and OP, `-`: no operation; docs/API.md)
if grep -q $'^[0-9]*\t127.0.0.1\tsam\tsam\t:hx nginx-api.set af 1\t.*\thttp^3a//n2t.net/ark^3a/99166/b4cd3\t=\t-$' \
    "$API/binders/sam/write.log"; then
    ok "api: write log has the forwarded client and Acting-For"
else
    bad "api: write log lacks the nginx write with Acting-For: $(tr '\n' '|' <"$API/binders/sam/write.log")"
fi
# The populator console behind nginx-conf/noid-api.conf over TLS: nginx says
# X-Forwarded-Proto: https from a [front] address, so the session cookie is Secure;
# straight to noid serve over plain HTTP it is not.
cookie=$(curl -sk -m 20 -D - -o /dev/null "https://127.0.0.1:$NA/console/login" | tr -d '\r' | grep -i '^set-cookie:')
# The login form's id: when it was issued (ms) and a 128-bit nonce (docs/CONSOLE.md).
# Over TLS the cookie has the __Host- prefix, so Path=/ (docs/SECURITY.md).
if [[ "$cookie" =~ ^[Ss]et-[Cc]ookie:\ __Host-noid_console_login=[0-9]+\.[0-9a-f]{32}\;\ Path=/\;\ HttpOnly\;\ SameSite=Strict\;\ Secure$ ]]; then
    ok "console behind nginx (TLS): __Host-, Secure, HttpOnly, SameSite=Strict cookie"
else
    bad "console behind nginx: cookie: $cookie"
fi
cookie=$(curl -s -m 20 -D - -o /dev/null "http://127.0.0.1:$HA/console/login" | tr -d '\r' | grep -i '^set-cookie:')
if [[ "$cookie" == *"; HttpOnly; SameSite=Strict" ]]; then
    ok "console over plain HTTP: cookie not Secure"
else
    bad "console over plain HTTP: cookie: $cookie"
fi
"$REPO/scripts/web-apache.sh" stop "$APA" >/dev/null 2>&1
"$REPO/scripts/web-nginx.sh" stop "$NGA" >/dev/null 2>&1

if grep -q "AH10508" "$AP/logs/error.log" "$AMX/logs/error.log"; then bad "apache logged AH10508 (UnsafeAllow3F missing)"; fi
if grep -q "panic" "$AMX/logs/error.log"; then bad "mod_noid logged a panic: $(grep panic "$AMX/logs/error.log" | head -3)"; fi
if grep -q "exited on signal" "$NG/logs/error.log"; then bad "an nginx worker crashed (njs)"; fi

echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" = 0 ]
