#!/usr/bin/env bash
# Instructions per request and per minted id, counted by callgrind (exact and repeatable,
# unlike wall time on a shared VM): what a code change costs.
#
#   scripts/bench-instructions.sh [N_IDS]        default 200000
#   KINDS="hit miss" scripts/bench-instructions.sh    only these request kinds
#
# Per request: noidr answers R and then 2R requests of one kind on a store of N_IDS
# bound ARKs; the difference divided by R is the steady-state cost (start-up, opening
# the store and warming caches cancel out). Kinds: hit, miss, 4-level chop-back (egg
# protocol) and `get ID _t` (noid protocol); with a prefix registry (--registry): a
# truncated identifier answering its record (`ark:/13030`, `ark:13030`, `ark:/13030/`),
# `*/pdb:ID` listing three providers, and `pdb:ID` redirected to its primary provider;
# over HTTP (`http`): `noidr --http` on a unix socket (one server thread) answering
# `GET /ark:/…` hits with their 302 on one kept-alive connection, the redirect path
# nginx and Apache's mod_proxy take (its R and 2R requests in batches of 100
# pipelined). Per id: `noid mint 20000` and `mint 40000`
# on fresh `f5.reedeedk` minters, the difference divided by 20,000.
# NOIDR_FLAGS adds flags to every noidr (e.g. "--counts", to measure counting), and
# HTTP_USER_AGENT sends that User-Agent with every HTTP request.
# Needs valgrind (installed from Debian when missing). Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
n_ids=${1:-200000}
r=20000
. scripts/env.sh
command -v valgrind >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
if [[ -z "${NOIDR:-}" ]]; then
    cargo build --release -q -p noidr --bin noidr --example bench_noidr
    cargo build --release -q -p noid-cli --bin noid
fi
noidr=${NOIDR:-$NOID_BIN/noidr}
noid=${NOID:-$NOID_BIN/noid}
bench=${BENCH_NOIDR:-$CARGO_TARGET_DIR/release/examples/bench_noidr}
# The lookup deadline stays on (its watchdog thread runs), but far beyond what a batch
# takes under callgrind, so that no batch is answered late.
deadline=()
"$noidr" --help | grep -q -- --lookup-deadline && deadline=(--lookup-deadline 600)
# shellcheck disable=SC2206 # (flags, split on spaces)
deadline+=(${NOIDR_FLAGS:-})
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bench" load "$dir/store" "$n_ids" 2>/dev/null

# Request files: the bench's ids (`ark:/13030/fk4` + 6 extended digits of i).
python3 - "$dir" "$n_ids" "$r" <<'PY'
import sys
sys.path.insert(0, "scripts")
from bench_requests import Picker, ident
d, n, r = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
picker = Picker()
def pick():
    return picker.pick(n)
kinds = {
    "hit": lambda: f"{ident(pick())}.resolve",
    "miss": lambda: f"{ident(n + pick())}.resolve",
    "chop": lambda: f"{ident(pick())}/a/b.c/d.resolve",
    "get": lambda: f"get {ident(pick())} _t",
    "truncated": lambda: ["ark:/13030", "ark:13030", "ark:/13030/"][pick() % 3] + ".resolve",
    "star": lambda: f"*/pdb:{pick():x}.resolve",
    "provider": lambda: f"pdb:{pick():x}.resolve",
    "http": lambda: f"/{ident(pick())}",
}
for k, f in kinds.items():
    lines = [f() for _ in range(2 * r)]
    open(f"{d}/{k}-1", "w").write("\n".join(lines[:r]) + "\n")
    open(f"{d}/{k}-2", "w").write("\n".join(lines) + "\n")
PY

cat >"$dir/registry" <<'REG'
prefix: ark:/13030
name: bench NAAN
who: noid

prefix: ark:/13030/fk4
name: bench shoulder

prefix: pdb:
name: Protein Data Bank
provider: rcsb https://www.rcsb.org/structure/$id
provider: pdbe https://www.ebi.ac.uk/pdbe/entry/pdb/{$id}
provider: pdbj https://pdbj.org/mine/summary/${id}
REG

# Total instructions of one run of a command under callgrind (all threads).
instructions() {
    local out=$dir/cg.out
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" 2>"$dir/vg.err" >/dev/null
    awk '/^summary:/ {print $2}' "$out"
}

echo "| what | instructions | command |"
echo "|---|---:|---|"
declare -A expect=([hit]='redir302 https://example.org/objects/' [miss]='NULL'
    [chop]='redir302 https://example.org/objects/' [get]='https://example.org/objects/'
    [truncated]='inflect "op=partial" "partial=ark:/13030" "name=bench%20NAAN"'
    [star]='inflect "op=providers" "id=pdb:' [provider]='redir302 https://www.rcsb.org/structure/')
# noidr --http under callgrind on a unix socket, sent the request paths of file $1 on one
# connection; its total instructions, once it has exited on SIGTERM. Every answer must
# be a 302, or the count measures the wrong path.
http_instructions() {
    local sock=$dir/http.sock out=$dir/cg-http.out
    rm -f "$sock"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$noidr" -f "$dir/store" "${deadline[@]}" \
        --http "unix:$sock" --http-threads 1 2>"$dir/vg-http.err" >/dev/null &
    local pid=$!
    for _ in $(seq 1 1200); do [[ -S $sock ]] && break; sleep 0.1; done
    python3 - "$sock" "$1" "${HTTP_USER_AGENT:-}" <<'PY' || { kill "$pid"; exit 1; }
import sys
sys.path.insert(0, "scripts")
from bench_requests import redirects
sock, paths = sys.argv[1], open(sys.argv[2]).read().split()
ua = b"User-Agent: %s\r\n" % sys.argv[3].encode() if sys.argv[3] else b""
redirects(sock, paths, ua)
PY
    kill -TERM "$pid"
    wait "$pid" || true
    awk '/^summary:/ {print $2}' "$out"
}

for kind in ${KINDS:-hit miss chop get truncated star provider http}; do
    if [[ $kind == http ]]; then
        a=$(http_instructions "$dir/http-1")
        b=$(http_instructions "$dir/http-2")
        echo "| http, per request | $(((b - a) / r)) | noidr --http (302) |"
        continue
    fi
    args=(-f "$dir/store" --protocol egg)
    [[ $kind == get ]] && args=(-f "$dir/store" --protocol noid)
    [[ $kind == truncated || $kind == star || $kind == provider ]] && args+=(--registry "$dir/registry")
    # Every answer must be the expected kind, or the count measures the wrong path.
    wrong=$("$noidr" "${args[@]}" "${deadline[@]}" <"$dir/$kind-1" | grep -cvF "${expect[$kind]}" || true)
    [[ $wrong == 0 ]] || { echo "$kind: $wrong answers are not '${expect[$kind]}…'" >&2; exit 1; }
    a=$(instructions "$noidr" "${args[@]}" "${deadline[@]}" <"$dir/$kind-1")
    b=$(instructions "$noidr" "${args[@]}" "${deadline[@]}" <"$dir/$kind-2")
    echo "| $kind, per request | $(((b - a) / r)) | noidr ${args[*]:2:2}${args[4]:+ --registry} |"
done
mint_cost() {
    local m=$dir/m$1
    rm -rf "$m" && mkdir -p "$m"
    "$noid" -f "$m" dbcreate f5.reedeedk >/dev/null
    instructions "$noid" -f "$m" mint "$1"
}
a=$(mint_cost $r)
b=$(mint_cost $((2 * r)))
echo "| mint f5.reedeedk, per id | $(((b - a) / r)) | noid mint |"
