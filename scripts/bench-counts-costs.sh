#!/usr/bin/env bash
# What counting (`noidr --counts`, docs/COUNTS.md) costs a request, in instructions
# counted by callgrind inside the loop that reads, answers and writes requests, and
# only there (`--toggle-collect`), so that start-up, the store-following thread and
# the counts' flusher are left out and the same requests give the same count run
# after run:
#
#   * prg: noidr's line loop (`lines::answer_all` and its reads and writes), egg lines
#     as Apache sends them;
#   * http: noid-http's server thread (`Worker::run`), requests as nginx proxies them,
#     with a browser's User-Agent (HTTP_USER_AGENT= sends none);
#
# each for two request mixes: "repeat" (40,000 requests among 1,000 identifiers: nearly
# all answered from the memo, counting's cheapest request and the hardest to stay
# within 3 % of) and "new" (40,000 requests among 200,000: mostly asked once).
# Without and with --counts, the same binary and the same requests; prints a table of
# instructions per request and their ratio.
#
#   scripts/bench-counts-costs.sh
#
# PATHS="prg" and MIXES="repeat" choose; KEEP=1 keeps the work directory (callgrind's
# files, cg.prg, cg.http and with --counts cg.prg.counts, cg.http.counts, for
# callgrind_annotate).
# Needs valgrind (installed from Debian when missing) and release binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
command -v valgrind >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
if [[ -z "${NOIDR:-}" ]]; then
    cargo build --release -q -p noidr --bin noidr --example bench_noidr
fi
noidr=${NOIDR:-$NOID_BIN/noidr}
bench=${BENCH_NOIDR:-$CARGO_TARGET_DIR/release/examples/bench_noidr}
dir=$(mktemp -d)
trap '[[ -n "${KEEP:-}" ]] || rm -rf "$dir"' EXIT
"$bench" load "$dir/store" 200000 2>/dev/null
python3 - "$dir" <<'PY'
import sys
sys.path.insert(0, "scripts")
from bench_requests import Picker, ident
d = sys.argv[1]
picker = Picker()
for mix, n in (("repeat", 1000), ("new", 200000)):
    ids = [ident(picker.pick(n)) for _ in range(40000)]
    open(f"{d}/prg-{mix}", "w").write("".join(f"{i}.resolve !!!pr=http!!!!!!ac=!!!\n" for i in ids))
    open(f"{d}/http-{mix}", "w").write("\n".join(f"/{i}" for i in ids) + "\n")
PY
collected() { awk '/^summary:/ {print $2}' "$1"; }
prg() { # MIX FLAGS...: instructions inside the answerer, per request
    local mix=$1
    shift
    local out=$dir/cg.prg${1:+.counts}
    valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
        --toggle-collect='noidr::lines::answer_all' --toggle-collect='noidr::lines::Io*' \
        "$noidr" -f "$dir/store" --protocol egg --lookup-deadline 600 "$@" \
        <"$dir/prg-$mix" >"$dir/answers" 2>"$dir/vg.err"
    [[ $(grep -c '^redir302 ' "$dir/answers") == 40000 ]] || { echo "prg $mix: not 40,000 redirects" >&2; exit 1; }
    echo $(($(collected "$out") / 40000))
}
http() { # MIX FLAGS...: instructions inside noid-http's handler, per request
    local mix=$1 sock=$dir/http.sock
    shift
    local out=$dir/cg.http${1:+.counts}
    rm -f "$sock"
    valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
        --toggle-collect='noid_http::server::Worker::run' \
        "$noidr" -f "$dir/store" --lookup-deadline 600 --http "unix:$sock" --http-threads 1 "$@" \
        2>"$dir/vg-http.err" >/dev/null &
    local pid=$!
    for _ in $(seq 1 1200); do [[ -S $sock ]] && break; sleep 0.1; done
    python3 - "$sock" "$dir/http-$mix" <<'PY' || { kill "$pid"; exit 1; }
import os, sys
sys.path.insert(0, "scripts")
from bench_requests import redirects
sock, paths = sys.argv[1], open(sys.argv[2]).read().split()
ua = os.environ.get("HTTP_USER_AGENT", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
ua = b"User-Agent: %s\r\n" % ua.encode() if ua else b""
redirects(sock, paths, b"X-Forwarded-Proto: http\r\n" + ua)
PY
    kill -TERM "$pid"
    wait "$pid" || true
    echo $(($(collected "$out") / 40000))
}
echo "| request | mix | without --counts | with --counts | ratio |"
echo "|---|---|---:|---:|---:|"
for path in ${PATHS:-prg http}; do
    for mix in ${MIXES:-repeat new}; do
        a=$($path $mix)
        b=$($path $mix --counts)
        echo "| $path | $mix | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }') |"
    done
done
