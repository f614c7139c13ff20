#!/usr/bin/env bash
# Benchmarks of the PostgreSQL backend and its followers (issue 23, docs/SCALING.md), each
# goal a ratio to a reference measured in the same run, A and B interleaved round by
# round, the median of the pair ratios reported:
#
#   (a) `noid mint M` on a PostgreSQL minter vs the same on an embedded minter (ids/s);
#       both print the same identifiers (checked);
#   (b) a follower's resolver (`noidr --follow URL --minter NAME --cache DIR`) vs the
#       embedded resolver (`noidr -f DIR`) on the same N bindings: hits, answers/s, the
#       method of scripts/bench-noidr.sh (one request at a time, and pipelined), plus
#       callgrind's instructions per hit on both (exact, unlike wall time);
#   (c) a new follower's bootstrap of the N bindings (noid-store's `pg` `Replica::sync`, as
#       noidr --follow runs it) vs `noid -` loading the same N bindings into a new
#       embedded minter;
#   (d) `noid -` loading the N bindings into a new PostgreSQL minter vs into a new
#       embedded minter (the same input; a migration's bulk load).
#
# Also measured once, for the capacity plan: the bulk load of the N bindings into
# PostgreSQL, disk per binding (pg_total_relation_size of noid_rows and noid_log, the
# follower's copy, the embedded minter), the follower's apply rate after N/10 more
# bindings, and the cost of one checksum comparison of the copy with the minter (a
# follower's --verify) at N bindings and a little more.
#
#   scripts/bench-pg.sh [--ids N] [--runs R] [--mint M] [--requests Q] [--no-instructions] [--write]
#   scripts/bench-pg.sh --verify-only [--ids N] [--runs R]
#   scripts/bench-pg.sh --mint-only [--runs R] [--sizes "1 1000 100000"]
#
# --verify-only loads the N bindings, makes a follower's copy and times R checksum
# comparisons of it with the minter (a follower's --verify; the median and every run
# printed), nothing else: the figure docs/SCALING.md gives at 1M and 10M bindings.
#
# --mint-only times (a) alone at each of the --sizes (a `noid mint S` per process,
# repeated to some 100 ids per round for small S), and with it the CPU the server
# spent on the PostgreSQL side (its backend's, read from the postmaster's children's
# times): a commit is one transaction, run by one backend, so that CPU time bounds a
# large mint's time from below, whatever the client does. Nothing else runs.
#
# Defaults: N 1000000, R 3, M 100000, Q 100000 (hits per resolver run). --write replaces
# the results section of docs/SCALING.md. A real PostgreSQL server (Debian's, installed
# when missing) is started on 127.0.0.1 in a temporary directory (initdb as the
# `postgres` user when run as root) with the package's default settings
# (synchronous_commit on), and removed at the end. Builds the release binaries.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
IDS=1000000
RUNS=3
MINT=100000
REQS=100000
INSTR=1
WRITE=0
VERIFY_ONLY=0
MINT_ONLY=0
SIZES="1 1000 100000"
while [ $# -gt 0 ]; do
    case $1 in
    --ids) IDS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --mint) MINT=$2; shift 2 ;;
    --requests) REQS=$2; shift 2 ;;
    --no-instructions) INSTR=0; shift ;;
    --write) WRITE=1; shift ;;
    --verify-only) VERIFY_ONLY=1; shift ;;
    --mint-only) MINT_ONLY=1; shift ;;
    --sizes) SIZES=$2; shift 2 ;;
    *) sed -n '2,39p' "$0"; exit 2 ;;
    esac
done
. scripts/env.sh
cargo build --release -q -p noidr --bin noidr --example bench_noidr --example bench_pg
cargo build --release -q -p noid-cli --bin noid
NOID=$NOID_BIN/noid
NOIDR=$NOID_BIN/noidr
BENCH=$CARGO_TARGET_DIR/release/examples/bench_noidr
BENCH_PG=$CARGO_TARGET_DIR/release/examples/bench_pg
log() { echo "bench-pg: $*" >&2; }
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
BOOT_SECS=""
EMB_SECS=""

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
if [ "$INSTR" = 1 ] && ! command -v valgrind >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PGVERSION=$("$PGBIN/postgres" --version | sed 's/.*) //')

W=$(mktemp -d /tmp/noid-bench-pg.XXXXXX)
chmod 755 "$W"
mkdir "$W/pg"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres: "$W/pg"
cleanup() {
    [ -f "$W/pg/data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$W/pg/data" -m fast -w stop >/dev/null 2>&1
    rm -rf "$W"
}
trap cleanup EXIT

# --- the server ------------------------------------------------------------------------
as_pg "$PGBIN/initdb" -D "$W/pg/data" -U noid -A trust -E UTF8 --locale=C >/dev/null
PORT=$((20000 + RANDOM % 10000))
while (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do PORT=$((PORT + 1)); done
as_pg "$PGBIN/pg_ctl" -D "$W/pg/data" -l "$W/pg/server.log" -w -t 120 \
    -o "-p $PORT -k $W/pg -c listen_addresses=127.0.0.1" start >/dev/null
URL="postgres://noid@127.0.0.1:$PORT/postgres"
sql() { psql -qAtX "$URL" -c "$1"; }
log "PostgreSQL $PGVERSION on 127.0.0.1:$PORT"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# RUNS.txt lines: WHAT ROUND VALUE (a rate: higher is better) LOAD
record() { echo "$1 $2 $3 $(cut -d' ' -f1 /proc/loadavg)" >>"$W/runs.txt"; log "$1 round $2: $3"; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
# The median of the first n values of x, for the tables' awk programs.
MEDIAN_AWK='function med(x, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }; return x[int((n + 1) / 2)] }'


# --- (a)'s round: `noid mint S`, REPS times, on a new PostgreSQL minter, then on a new
# embedded one; both rates recorded, the ids compared; prints the server's CPU per id
# in µs (its live processes, and the backends that have exited: the postmaster's
# children's times).
TPL=(f5.reedeedk long 13030 example.org bench)
PM=$(head -1 "$W/pg/data/postmaster.pid")
TICK=$(getconf CLK_TCK)
server_cpu() {
    local t=0 p f
    for p in $(pgrep -u postgres -x postgres); do
        f=($(cut -d' ' -f14-17 "/proc/$p/stat" 2>/dev/null)) || continue
        t=$((t + ${f[0]:-0} + ${f[1]:-0}))
        [ "$p" = "$PM" ] && t=$((t + ${f[2]:-0} + ${f[3]:-0}))
    done
    echo "$t"
}
mint_round() { # S ROUND REPS
    local s=$1 r=$2 reps=$3 n=$(($1 * $3)) c t
    "$NOID" -f "$W/mp$s-$r" dbcreate --backend "$URL" --minter "mint$s-$r" "${TPL[@]}" >/dev/null
    rm -rf "$W/me" && mkdir "$W/me"
    "$NOID" -f "$W/me" dbcreate "${TPL[@]}" >/dev/null
    c=$(server_cpu)
    t=$(now)
    for _ in $(seq 1 "$reps"); do "$NOID" -f "$W/mp$s-$r" mint "$s"; done >"$W/ids-pg"
    record mint-pg "$r" "$(rate "$n" "$(since "$t")")"
    awk -v a="$c" -v b="$(server_cpu)" -v hz="$TICK" -v n="$n" 'BEGIN { printf "%.1f\n", (b - a) / hz / n * 1e6 }'
    t=$(now)
    for _ in $(seq 1 "$reps"); do "$NOID" -f "$W/me" mint "$s"; done >"$W/ids-emb"
    record mint-embedded "$r" "$(rate "$n" "$(since "$t")")"
    cmp -s "$W/ids-pg" "$W/ids-emb" || { log "mint on PostgreSQL printed other ids than embedded"; exit 1; }
    [ "$(grep -c "^id: " "$W/ids-pg")" = "$n" ] || { log "mint printed $(grep -c "^id: " "$W/ids-pg") ids, not $n"; exit 1; }
}

# --- --mint-only: (a) at several sizes, with the server's CPU ---------------------------
if [ "$MINT_ONLY" = 1 ]; then
    ROWS=""
    for s in $SIZES; do
        reps=$(((100 + s - 1) / s))
        : >"$W/runs.txt"
        CPU=""
        for r in $(seq 1 "$RUNS"); do
            CPU="$CPU $(mint_round "$s" "$r" "$reps")"
        done
        ROWS="$ROWS$(awk -v s="$s" -v reps="$reps" -v cpu="$CPU" "$MEDIAN_AWK"'
            $1 == "mint-pg" { na++; ra[$2] = $3; va[na] = $3 }
            $1 == "mint-embedded" { nb++; rb[$2] = $3; vb[nb] = $3 }
            END {
                n = 0; for (r in ra) if (r in rb) { n++; q[n] = ra[r] / rb[r]; list = list sprintf("%s%.2f", n > 1 ? ", " : "", q[n]) }
                nc = split(cpu, c, " ")
                cm = med(c, nc); cs = cm >= 1000 ? sprintf("%.1f ms", cm / 1000) : sprintf("%.1f µs", cm)
                printf "| `noid mint %s` (%d per round) | %d ids/s | %d ids/s | **%.2f** (%s) | %s |\n", s, reps, med(va, na), med(vb, nb), med(q, n), list, cs
            }' "$W/runs.txt")
"
    done
    echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, PostgreSQL $PGVERSION (default settings, synchronous_commit on) on 127.0.0.1; load average $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end. \`scripts/bench-pg.sh --mint-only --runs $RUNS --sizes \"$SIZES\"\` (f5.reedeedk, long term)."
    echo
    echo "| mint | PostgreSQL | embedded (same rounds) | ratio: median of $RUNS pair ratios (each) | server CPU per id |"
    echo "|---|---:|---:|---:|---:|"
    printf '%s' "$ROWS"
    exit 0
fi

# --- data: the N bindings of scripts/bench-noidr.sh's store, as bulk lines --------------
"$BENCH" binds "$IDS" >"$W/binds.txt"
"$NOID" -f "$W/P" dbcreate --backend "$URL" --minter bind >/dev/null
t=$(now)
"$NOID" -f "$W/P" - <"$W/binds.txt" >/dev/null
LOAD_PG=$(since "$t")
log "loaded $IDS bindings into PostgreSQL with noid - in $LOAD_PG s"
sql "VACUUM ANALYZE"
PG_KEYS=$(sql "SELECT pg_total_relation_size('noid_rows')")
PG_LOG=$(sql "SELECT pg_total_relation_size('noid_log')")
# Keys, not rows: a minted identifier's hold is a flag on its circulation record's row.
N_KEYS=$(sql "SELECT count(*) + count(*) FILTER (WHERE held) FROM noid_rows")
N_LOG=$(sql "SELECT count(*) FROM noid_log")

# --- --verify-only: the checksum comparison's cost at N bindings --------------------------
if [ "$VERIFY_ONLY" = 1 ]; then
    read -r _ secs keys < <("$BENCH_PG" bootstrap "$URL" bind "$W/copy")
    log "bootstrap of $IDS bindings ($keys keys in the copy) in $secs s"
    V=""
    for r in $(seq 1 "$RUNS"); do
        read -r _ secs _ < <("$BENCH_PG" verify "$URL" bind "$W/copy")
        log "checksum comparison $r: $secs s"
        V="$V $secs"
    done
    MED=$(echo "$V" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    echo "checksum comparison of $IDS bindings ($N_KEYS keys in PostgreSQL): median $MED s of$V s; loaded in $LOAD_PG s; load average $(cut -d' ' -f1-3 /proc/loadavg) (at the start $LOAD_START); PostgreSQL $PGVERSION; \`scripts/bench-pg.sh --verify-only --ids $IDS --runs $RUNS\`"
    exit 0
fi

# --- (c) bootstrap vs the embedded bulk load, interleaved ------------------------------
for r in $(seq 1 "$RUNS"); do
    rm -rf "$W/copy"
    read -r _ secs keys < <("$BENCH_PG" bootstrap "$URL" bind "$W/copy")
    [ "$keys" = "$((N_KEYS + 1))" ] || { log "the copy has $keys keys, not $N_KEYS + 1"; exit 1; }
    BOOT_SECS="$BOOT_SECS $secs"
    record bootstrap "$r" "$(rate "$IDS" "$secs")"
    rm -rf "$W/E" && mkdir "$W/E"
    "$NOID" -f "$W/E" dbcreate >/dev/null
    t=$(now)
    "$NOID" -f "$W/E" - <"$W/binds.txt" >/dev/null
    secs=$(since "$t")
    EMB_SECS="$EMB_SECS $secs"
    record embedded-load "$r" "$(rate "$IDS" "$secs")"
    # (d) the same input into a new PostgreSQL minter, removed afterwards so that the
    # later figures see the tables as they were. A checkpoint first, so that the load
    # does not pay for writing out what the benchmark itself did before it (the
    # bootstrap, the previous round's delete and vacuum): one 1M load took 18.4 s
    # after a delete and vacuum, 12.3 s after the same and a checkpoint.
    sql "CHECKPOINT"
    "$NOID" -f "$W/L$r" dbcreate --backend "$URL" --minter "load$r" >/dev/null
    t=$(now)
    "$NOID" -f "$W/L$r" - <"$W/binds.txt" >/dev/null
    record pg-load "$r" "$(rate "$IDS" "$(since "$t")")"
    sql "DELETE FROM noid_rows WHERE minter = (SELECT id FROM noid_minters WHERE name = 'load$r')"
    sql "VACUUM noid_rows"
done
COPY_BYTES=$(du -sb "$W/copy/NOID" | cut -f1)
EMB_BYTES=$(du -sb "$W/E/NOID" | cut -f1)

# --- (b) the follower's resolver vs the embedded resolver, interleaved -----------------
FOLLOW=(--follow "$URL" --minter bind --cache "$W/copy")
for r in $(seq 1 "$RUNS"); do
    read -r _ one _ _ piped _ < <("$BENCH" hits "$NOIDR" "$IDS" "$REQS" "${FOLLOW[@]}")
    record follower-one "$r" "$one"
    record follower-piped "$r" "$piped"
    read -r _ one _ _ piped _ < <("$BENCH" hits "$NOIDR" "$IDS" "$REQS" -f "$W/E")
    record embedded-one "$r" "$one"
    record embedded-piped "$r" "$piped"
done
if [ "$INSTR" = 1 ]; then
    # Instructions per hit: R and 2R requests, the difference over R (start-up cancels).
    R=5000
    shuf -n $((2 * R)) --random-source=<(yes) "$W/binds.txt" | awk '{ print $3 ".resolve" }' >"$W/hits-2"
    head -n $R "$W/hits-2" >"$W/hits-1"
    instructions() {
        valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$@" 2>"$W/vg.err" >"$W/answers"
        [ "$(grep -cv '^redir302 https://example.org/objects/' "$W/answers")" = 0 ] || { log "wrong answers: $*"; exit 1; }
        awk '/^summary:/ { print $2 }' "$W/cg.out"
    }
    per_hit() {
        local a b
        a=$(instructions "$NOIDR" "$@" --protocol egg <"$W/hits-1")
        b=$(instructions "$NOIDR" "$@" --protocol egg <"$W/hits-2")
        echo $(((b - a) / R))
    }
    INSTR_FOLLOW=$(per_hit "${FOLLOW[@]}" --poll 3600)
    INSTR_EMB=$(per_hit -f "$W/E")
    log "instructions per hit: follower $INSTR_FOLLOW, embedded $INSTR_EMB"
fi

# --- the follower's apply rate: N/10 more bindings, then the catch-up -------------------
MORE=$((IDS / 10))
"$BENCH" binds $((IDS + MORE)) | tail -n "$MORE" >"$W/more.txt"
t=$(now)
"$NOID" -f "$W/P" - <"$W/more.txt" >/dev/null
MORE_PG=$(since "$t")
read -r _ APPLY_SECS APPLY_SEQS < <("$BENCH_PG" catchup "$URL" bind "$W/copy")
log "PostgreSQL took $MORE more bindings in $MORE_PG s; the follower applied them ($APPLY_SEQS commits) in $APPLY_SECS s"
# ... and small commits, one binding each, as the API's binds are.
SMALL=2000
read -r _ SMALL_PG _ < <("$BENCH_PG" commits "$URL" bind "$SMALL")
read -r _ SMALL_SECS SMALL_SEQS < <("$BENCH_PG" catchup "$URL" bind "$W/copy")
[ "$SMALL_SEQS" = "$SMALL" ] || { log "the follower applied $SMALL_SEQS commits, not $SMALL"; exit 1; }
log "PostgreSQL took $SMALL one-binding commits in $SMALL_PG s; the follower applied them in $SMALL_SECS s"
# ... and one checksum comparison of the current copy with the minter.
read -r _ VERIFY_SECS _ < <("$BENCH_PG" verify "$URL" bind "$W/copy")
VERIFY_KEYS=$(sql "SELECT count(*) + count(*) FILTER (WHERE k.held) FROM noid_rows k JOIN noid_minters m ON m.id = k.minter WHERE m.name = 'bind'")
log "a checksum comparison of $VERIFY_KEYS keys took $VERIFY_SECS s"

# --- (a) mint on PostgreSQL vs embedded, interleaved ------------------------------------
for r in $(seq 1 "$RUNS"); do
    mint_round "$MINT" "$r" 1 >/dev/null
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report -----------------------------------------------------------------------------
# One row per goal: the medians of both sides, and the median of the pair ratios.
row() { # FIGURE UNIT A B GOAL COMMAND
    awk -v fig="$1" -v unit="$2" -v a="$3" -v b="$4" -v goal="$5" -v cmd="$6" "$MEDIAN_AWK"'
        $1 == a { na++; ra[$2] = $3; va[na] = $3 }
        $1 == b { nb++; rb[$2] = $3; vb[nb] = $3 }
        ($1 == a || $1 == b) && (hi == "" || $4 > hi) { hi = $4 }
        END {
            n = 0; for (r in ra) if (r in rb) { n++; ratio[n] = ra[r] / rb[r] }
            q = med(ratio, n)
            verdict = goal == "" ? "" : (q >= goal ? " (goal ≥ " goal ": met)" : " (goal ≥ " goal ": not met)")
            printf "| %s | %d %s | %d %s | %.2f%s | %s |\n", fig, med(va, na), unit, med(vb, nb), unit, q, verdict, cmd
        }' "$W/runs.txt"
}
GiB() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.0f B (%.1f GiB per 50M, %.0f GiB per 1B)", b / n, b / n * 5e7 / 2^30, b / n * 1e9 / 2^30 }'; }
TABLE=$(
    echo "| figure | measured | reference (same run) | ratio: median of $RUNS pair ratios | command |"
    echo "|---|---:|---:|---:|---|"
    row "(a) mint $MINT, PostgreSQL vs embedded" "ids/s" mint-pg mint-embedded 0.5 "\`noid mint $MINT\` (f5.reedeedk, long)"
    row "(b) follower's resolver vs embedded, hits pipelined" "answers/s" follower-piped embedded-piped 0.9 "\`noidr --follow URL --minter bind --cache DIR\` vs \`noidr -f DIR\`"
    row "(b) the same, one request at a time" "answers/s" follower-one embedded-one 0.9 "bench-noidr.sh's method"
    row "(c) bootstrap of $IDS bindings vs \`noid -\` loading them" "bindings/s" bootstrap embedded-load "" "\`Replica::sync\` on a new copy (as noidr --follow)"
    row "(d) \`noid -\` loading $IDS bindings, PostgreSQL vs embedded" "bindings/s" pg-load embedded-load 0.3 "\`noid - <binds\` (bind set ID _t URL)"
)
BOOT_MED=$(echo "$BOOT_SECS" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
EMB_MED=$(echo "$EMB_SECS" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
FACTS=$(
    echo "| capacity figure ($IDS bindings) | measured |"
    echo "|---|---:|"
    echo "| bootstrap of a new follower (median of $RUNS) | $BOOT_MED s; \`noid -\` into an embedded minter: $EMB_MED s |"
    echo "| \`noid -\` loading them into PostgreSQL (once) | $LOAD_PG s ($(rate "$IDS" "$LOAD_PG") bindings/s) |"
    echo "| keys per binding (bind set writes \`ID _t\` and the last-write record \`ID :/m\`) | $(awk -v k="$N_KEYS" -v n="$IDS" 'BEGIN { printf "%.2f", k / n }') in noid_rows, $(awk -v k="$N_LOG" -v n="$IDS" 'BEGIN { printf "%.2f", k / n }') rows in noid_log |"
    echo "| PostgreSQL noid_rows, per binding | $(GiB "$PG_KEYS" "$IDS") |"
    echo "| PostgreSQL noid_log (unpruned), per binding | $(GiB "$PG_LOG" "$IDS") |"
    echo "| the follower's copy (RocksDB), per binding | $(GiB "$COPY_BYTES" "$IDS") |"
    echo "| the embedded minter after \`noid -\`, per binding | $(GiB "$EMB_BYTES" "$IDS") |"
    echo "| the follower applying $MORE more bindings ($APPLY_SEQS commits of \`noid -\`) | $APPLY_SECS s ($(rate "$MORE" "$APPLY_SECS") bindings/s); PostgreSQL took them in $MORE_PG s |"
    echo "| the follower applying $SMALL commits of one binding each | $SMALL_SECS s ($(rate "$SMALL" "$SMALL_SECS") commits/s); PostgreSQL took them in $SMALL_PG s ($(rate "$SMALL" "$SMALL_PG") commits/s, one connection) |"
    echo "| a checksum comparison of the follower's copy with the minter ($VERIFY_KEYS keys in PostgreSQL; \`--verify\`, \`Replica::verify\`) | $VERIFY_SECS s |"
    [ "$INSTR" = 1 ] && echo "| instructions per hit (callgrind): follower's noidr vs \`noidr -f\` on the embedded minter | $INSTR_FOLLOW vs $INSTR_EMB |"
    true
)
HEAD="Run of $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, PostgreSQL $PGVERSION (default settings, synchronous_commit on) on 127.0.0.1; load average $LOAD_START at the start, $LOAD_END at the end. \`scripts/bench-pg.sh --ids $IDS --runs $RUNS --mint $MINT --requests $REQS\`."
echo "$HEAD"
echo
echo "$TABLE"
echo
echo "$FACTS"
if [ "$WRITE" = 1 ]; then
    f=$REPO/docs/SCALING.md
    {
        echo "<!-- bench-pg:begin (written by scripts/bench-pg.sh --write) -->"
        echo "$HEAD"
        echo
        echo "$TABLE"
        echo
        echo "$FACTS"
        echo "<!-- bench-pg:end -->"
    } >"$W/section.md"
    if grep -q '<!-- bench-pg:begin' "$f"; then
        awk -v sec="$W/section.md" '
            /<!-- bench-pg:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
            /<!-- bench-pg:end/ { skip = 0; next }
            !skip { print }' "$f" >"$W/new.md"
        cp "$W/new.md" "$f"
    else
        cat "$W/section.md" >>"$f"
    fi
    log "wrote $f"
fi
