#!/usr/bin/env bash
# Checks of the installed Debian package (scripts/package.sh, then dpkg -i), ending with
# its removal:
#   1. the files where an operator looks for them, the system user "noid", /srv/noid;
#   2. the demo, run with the installed binaries, as a clean transcript in a file;
#   3. a minter made by the user noid under /srv/noid, read by the installed noidr;
#   4. `dpkg -r noid` removes the package's files and leaves the minter as it was.
#
#   tests/package/run.sh      (root; the package "noid" must be installed)
#
# Prints one line per check and a last line "N passed, M failed"; exits non-zero on any
# failure.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok   - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
finish() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
    exit
}
# check NAME COMMAND...: ok when the command succeeds
check() {
    local name=$1
    shift
    if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name ($*)"; fi
}

[ "$(id -u)" = 0 ] || { echo "package: needs root (dpkg -r)" >&2; bad "not root"; finish; }
if [ "$(dpkg-query -W -f '${Status}' noid 2>/dev/null)" != "install ok installed" ]; then
    bad "the package noid is installed"
    finish
fi
WORK=$(mktemp -d /tmp/noid-package.XXXXXX)
MINTER=$(mktemp -d -u /srv/noid/package-test.XXXXXX)
trap 'rm -rf "$WORK" "$MINTER"' EXIT

# --- 1. where things are ---------------------------------------------------------------
for f in /usr/bin/noid /usr/bin/noidr \
    /usr/share/noid/apache-conf/noid-server.conf /usr/share/noid/apache-conf/noid-resolve.conf \
    /usr/share/noid/apache-conf/noid-get.conf /usr/share/noid/apache-conf/noid-proxy.conf \
    /usr/share/noid/nginx-conf/noid-proxy.conf /usr/share/noid/nginx-conf/noid-auth.conf \
    /usr/share/noid/nginx-conf/noid-njs.conf /usr/share/noid/nginx-conf/noid.js \
    /usr/share/noid/nginx-conf/noidr-upstream.conf /usr/share/noid/nginx-conf/noidr-status.conf \
    /usr/share/noid/nginx-conf/nginx.conf.example \
    /lib/systemd/system/noidr-http.service /lib/systemd/system/noidr-http@.service \
    /usr/share/doc/noid/README.md /usr/share/doc/noid/WEB-SERVERS.md; do
    if [ "$(dpkg -S "$f" 2>/dev/null)" = "noid: $f" ]; then ok "noid ships $f"; else bad "noid does not ship $f"; fi
done
for c in apache-conf/noid-resolve.conf nginx-conf/noid.js; do
    check "/usr/share/noid/$c is the tree's $c" cmp "$REPO/$c" "/usr/share/noid/$c"
done
uid=$(id -u noid 2>/dev/null)
if [ -n "$uid" ] && [ "$uid" -lt 1000 ] && [ "$(id -gn noid)" = noid ]; then
    ok "system user noid (uid $uid, group noid)"
else
    bad "no system user noid with group noid (uid '$uid')"
fi
check "/srv/noid belongs to noid" test "$(stat -c %U:%G /srv/noid)" = noid:noid
# systemd-analyze verify: the syntax, every key known, ExecStart executable ("%i"
# expands in an instance's name, hence the link). It reads the unit files alone and
# needs no running systemd (a container has none), only the package that ships it.
ln -s /lib/systemd/system/noidr-http@.service "$WORK/noidr-http@ark.service"
for u in /lib/systemd/system/noidr-http.service "$WORK/noidr-http@ark.service"; do
    if ! command -v systemd-analyze >/dev/null; then
        bad "systemd-analyze verify ${u##*/}: no systemd-analyze (scripts/setup.sh installs Debian's systemd)"
    elif out=$(systemd-analyze verify "$u" 2>&1) && [ -z "$out" ]; then
        ok "systemd-analyze verify ${u##*/}"
    else
        bad "systemd-analyze verify ${u##*/}: $out"
    fi
done

# man pages and bash completion, found the way an operator's shell finds them
if [ ! -f /usr/share/bash-completion/bash_completion ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bash-completion >/dev/null 2>&1 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bash-completion >/dev/null; }
fi
for page in noid.1 noidr.8; do
    name=${page%.*}
    check "man -w $name finds the package's page" test "$(man -w "$name" 2>/dev/null)" = "/usr/share/man/man${page##*.}/$page.gz"
done
got=$(MANPAGER=cat MANWIDTH=200 man noidr 2>/dev/null | sed -n '/^NAME/{n;p}')
check "man noidr: NAME" test "$got" = "       noidr - the noid identifier resolver, for Apache's RewriteMap prg: and for HTTP"
check "man noidr: SIGNALS" grep -q '^SIGNALS' <(MANPAGER=cat man noidr 2>/dev/null)
got=$(MANPAGER=cat MANWIDTH=200 man noid 2>/dev/null | sed -n '/^NAME/{n;p}')
check "man noid: NAME" test "$got" = "       noid - mint, bind and resolve persistent identifiers"
# the commands as noid help lists them (the noid manual's, then import, export, check, lui, standing)
# (each once: import has a second line, for PostgreSQL)
got=$(MANPAGER=cat MANWIDTH=200 man noid 2>/dev/null | sed -n 's/^ \{9,\}noid \([a-z]*\) .*/\1/p' | awk '!seen[$0]++' | tr '\n' ' ')
check "man noid: COMMANDS" test "$got" = "bind dbcreate fetch get hold mint queue validate import export check lui standing "
# complete LINE: what bash completion offers at the end of LINE (bash-completion's
# loader finds the package's file by the command's name), one word per line
complete_line() {
    # shellcheck disable=SC2016 # expanded by the inner bash
    bash -c '. /usr/share/bash-completion/bash_completion
        read -ra words <<<"$1"
        [[ $1 == *" " ]] && words+=("")
        _completion_loader "${words[0]}"
        fn=$(complete -p "${words[0]}" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
        COMP_WORDS=("${words[@]}") COMP_CWORD=$((${#words[@]} - 1)) COMP_LINE=$1 COMP_POINT=${#1}
        "$fn" "${words[0]}" "${words[COMP_CWORD]}" "${words[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$1"
}
got=$(complete_line "noid b")
check "bash completion of 'noid b'" test "$got" = "bind"
got=$(complete_line "noid " | tr '\n' ' ')
want="-f -v -q -h --version --quiet --lock-timeout --help bind dbinfo dbcreate fetch get hello help hold mint note peppermint queue validate import export check lui standing prune-log links explain rules index search history rewrite stats compact "
check "bash completion of 'noid '" test "$got" = "$want"
got=$(complete_line "noidr --prot")
check "bash completion of 'noidr --prot'" test "$got" = "--protocol"
got=$(complete_line "noidr --pro" | tr '\n' ' ')
check "bash completion of 'noidr --pro'" test "$got" = "--protocol --probe-interval --probe-timeout --probe-ca "
got=$(complete_line "noidr --protocol " | tr '\n' ' ')
check "bash completion of 'noidr --protocol '" test "$got" = "noid egg "

# --- 2. the demo -----------------------------------------------------------------------
"$REPO/scripts/demo.sh" --installed >"$WORK/demo.log" 2>&1
status=$?
check "scripts/demo.sh --installed exits 0" test "$status" = 0
if [ "$(tr -d '\000' <"$WORK/demo.log" | wc -c)" = "$(wc -c <"$WORK/demo.log")" ]; then
    ok "the demo's transcript in a file has no NUL bytes"
else
    bad "the demo's transcript has NUL bytes"
fi
# The answers, in order, as the noid manual's first identifier (13030/f54x54g11) and the
# N2T suffix passthrough give them.
want=$'id: 13030/f54x54g11\nid: 13030/f5154dn7k\nid: 13030/f5wd3q12m\nhttps://example.org/objects/1\nNULL\nredir302 https://example.org/objects/1/chapter/2'
got=$(grep -E '^(id: [^ ]|https:|NULL|redir)' "$WORK/demo.log")
if [ "$got" = "$want" ]; then ok "the demo's answers"; else bad "the demo's answers: $(echo "$got" | tr '\n' '|')"; fi
for cmd in '$ /usr/bin/noid -f' "\$ printf 'get 13030/f54x54g11 myGoto\\nget ark:/13030/nope myGoto\\n' | /usr/bin/noidr -f"; do
    if grep -qF -- "$cmd" "$WORK/demo.log"; then ok "the transcript shows: $cmd"; else bad "the transcript lacks: $cmd"; fi
done
rm -rf "$(sed -n 's/^== demo minter left in //p' "$WORK/demo.log")"

# --- 3. a minter of the user noid --------------------------------------------------------
as_noid() { runuser -u noid -- "$@"; }
check "noid dbcreate as the user noid in /srv/noid" as_noid /usr/bin/noid -f "$MINTER" dbcreate .zd
# .zd: sequential digits with no prefix (Perl Noid's manual): the first two are 0 and 1.
got=$(as_noid /usr/bin/noid -f "$MINTER" mint 2 2>&1)
if [ "$got" = $'id: 0\nid: 1' ]; then
    ok "noid mint 2 on .zd: ids 0 and 1"
else
    bad "noid mint 2 on .zd: want 'id: 0|id: 1', got '$(echo "$got" | tr '\n' '|')'"
fi
check "noid bind" as_noid /usr/bin/noid -f "$MINTER" bind set 1 _t https://example.org/one
got=$(printf 'get 1 _t\n' | as_noid /usr/bin/noidr -f "$MINTER")
check "noidr as the user noid reads it" test "$got" = https://example.org/one

# --- 4. removal ------------------------------------------------------------------------
sums() { find "$MINTER" -type f -print0 | sort -z | xargs -0 sha256sum; }
before=$(sums)
# the modules' packages (noid-apache-module, noid-nginx-module) depend on noid: first
for m in noid-apache-module:/usr/lib/apache2/modules/mod_noid.so \
    noid-nginx-module:/usr/lib/nginx/modules/ngx_http_noid_module.so; do
    if dpkg -s "${m%%:*}" >/dev/null 2>&1; then
        check "dpkg -r ${m%%:*}" dpkg -r "${m%%:*}"
        check "removed: ${m#*:}" test ! -e "${m#*:}"
    fi
done
check "dpkg -r noid" dpkg -r noid
for f in /usr/bin/noid /usr/bin/noidr /usr/share/noid /lib/systemd/system/noidr-http.service \
    /lib/systemd/system/noidr-http@.service /usr/share/doc/noid /usr/share/man/man8/noidr.8.gz \
    /usr/share/man/man1/noid.1.gz /usr/share/bash-completion/completions/noidr \
    /usr/share/bash-completion/completions/noid; do
    check "removed: $f" test ! -e "$f"
done
check "the minter's files are unchanged" test "$(sums)" = "$before"
check "the user noid stays" id noid
check "/srv/noid stays" test -d /srv/noid
finish
