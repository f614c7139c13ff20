#!/usr/bin/env bash
# Failover drills of a PostgreSQL minter under load (docs/SCALING.md, "High availability,
# drilled"): three PostgreSQL servers under Patroni (synchronous_mode strict) with etcd as
# its store, writers and followers on the multi-host URL with
# target_session_attrs=read-write, and faults injected while they work. Every
# acknowledged id and binding is recorded with its time, and the invariants are checked:
#
#   * no id printed twice, across all writers and all drills;
#   * every acknowledged binding readable from the primary after the drills, and from
#     both followers (their exports equal the minter's);
#   * the minter's counter (:/oacounter) never goes back from one drill to the next;
#   * both followers at the minter's head within FOLLOW_BOUND seconds of the last drill;
#   * `noid check` clean.
#
# Faults, in turn: kill9 (SIGKILL to the primary's postmaster; with
# primary_start_timeout 0 a standby takes over), stop (the primary's Patroni stopped,
# then started again), partition (the primary's only link cut for PART_SECS, longer
# than Patroni's TTL, then restored), writer (SIGKILL to a writer's own noid process,
# chosen by its executable, at whatever moment it is in).
#
# Each drill must show that its fault took effect, or the run fails (fault-had-no-effect):
#   * kill9, stop, partition: the leader moved to another node, the timeline went up
#     (read from the primary's current WAL file before the fault and once the cluster
#     is healthy again), and some writer reported a failed write after the fault;
#     with --primary-start-timeout above 0, Patroni may recover a killed primary in
#     place, so kill9 then needs the timeline to go up, not the leader to move;
#   * cut: the timeline went up (the old primary was lost, someone was promoted) and
#     some writer reported a failed write;
#   * writer: the killed process was a noid process of that writer (its loop logged
#     `exit 137`, SIGKILL's status), and that writer printed ids again after it.
# The report lists what each drill caused.
# `--faults cut` isolates both standbys for 12 seconds, then kills the primary's
# Patroni and postgres and reconnects the standbys: under synchronous replication
# nothing was acknowledged meanwhile; under `--async` (the broken configuration)
# acknowledged writes are lost and the checker must fail.
#
# Network: every process runs in network namespaces this script creates, one per
# server, one for etcd and one for the clients, joined by veth pairs to a bridge in a
# namespace of its own (addresses 10.213.7.0/24 exist only inside them; nothing is
# added to the machine's own namespace). A partition is a veth link set down.
#
#   scripts/ha-drill.sh [--drills N] [--faults kill9,stop,partition,writer|cut] [--async]
#                       [--writers K] [--api-clients C] [--bulk-mint M] [--bin DIR] [--keep]
#                       [--primary-start-timeout SECS] [--trace] [--stock-patroni]
#
# Load: each of the K writer "hosts" (a directory with its copy of NOID/backend) runs a
# loop of `noid mint 4` then `noid -` binding those ids, and also a `noid serve` on the
# same minter (its binder and minter directories hold the same backend file) with C
# API clients (1 by default; 0: none) that mint 2 ids at a time over HTTP and bind
# each with a single command. A bulk minter on the first host runs `noid mint M` (25,000
# by default; 0: none) then waits a second, in a loop: a mint of more than one batch,
# committed on two connections. Every acknowledged id (`id: …` printed by noid, `s: …`
# answered by the API) goes to acked-ids as `TIME SOURCE ID` (SOURCE wK, aK.J, bulk or
# probe), and must have its circulation record in the primary at the end;
# every acknowledged binding (noid - exit 0, or `egg-status: 0`) to acked-binds as
# `TIME ID URL`. The checker reads both, whatever wrote them.
#
# --primary-start-timeout is Patroni's (0 by default: a standby takes over at once
# when the primary's postgres crashes; Patroni's own default, 300, recovers it in
# place first). --trace logs Patroni
# at INFO and samples every node twice a second into the run's `trace` file (recovery
# or not, synchronous_standby_names, synchronous_commit, fsync, timeline and WAL
# position, its standbys, the minter's change number); keep it with --keep.
# Patroni runs through scripts/ha-patroni.py, which closes a race of Patroni 3.0.2
# that loses acknowledged writes after a partition; --stock-patroni runs it as Debian
# ships it (docs/SCALING.md, "The drills").
#
# Needs root (namespaces; PostgreSQL and Patroni run as the postgres user), Debian's
# patroni, etcd-server and postgresql (scripts/setup.sh). Exit status 0 when every
# invariant held, 1 when one broke (the report says which), 2 on a setup failure.
# Prints a Markdown table of the run.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
DRILLS=20
FAULTS=kill9,stop,partition,writer
ASYNC=0
WRITERS=3
API_CLIENTS=1
BULK=25000
BIN=""
KEEP=0
START_TIMEOUT=0
TRACE=0
STOCK=0
while [ $# -gt 0 ]; do
    case $1 in
    --drills) DRILLS=$2; shift 2 ;;
    --faults) FAULTS=$2; shift 2 ;;
    --async) ASYNC=1; shift ;;
    --writers) WRITERS=$2; shift 2 ;;
    --api-clients) API_CLIENTS=$2; shift 2 ;;
    --bulk-mint) BULK=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --primary-start-timeout) START_TIMEOUT=$2; shift 2 ;;
    --trace) TRACE=1; shift ;;
    --stock-patroni) STOCK=1; shift ;;
    *) sed -n '2,71p' "$0"; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "ha-drill: needs root (network namespaces)" >&2; exit 2; }
# The namespaces' addresses are fixed: one run at a time on a machine.
exec 9>/run/lock/noid-ha-drill.lock # closed (9>&-) for the daemons started below
flock 9
if [ -z "$BIN" ]; then
    cd "$REPO"
    . scripts/env.sh
    cargo build --release -q -p noid-cli --bin noid -p noidr --bin noidr
    BIN=$NOID_BIN
fi
NOID=$BIN/noid
NOIDR=$BIN/noidr
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
TTL=10
PART_SECS=$((TTL + 6))
FOLLOW_BOUND=60
WAIT_BOUND=120

log() { echo "ha-drill: $(date -u +%H:%M:%S) $*" >&2; }
now() { date +%s.%N; }

W=$(mktemp -d /tmp/noid-ha.XXXXXX)
chmod 755 "$W"
P=nha$$
SW=$P-sw
NET=10.213.7
NODES=(n1 n2 n3)
ip_of() { case $1 in e) echo "$NET.2" ;; c) echo "$NET.100" ;; n*) echo "$NET.1${1#n}" ;; esac; }
in_ns() { local ns=$1; shift; ip netns exec "$P-$ns" "$@"; }
as_pg() { runuser -u postgres -- "$@"; }
# As the postgres user by exec, not by a child (as runuser does), so that $! of a
# background `ip netns exec NS $PG_EXEC daemon` (not through a shell function, which
# would fork a subshell) is the daemon's own pid, for signals.
PG_EXEC=(setpriv --reuid=postgres --regid=postgres --init-groups)

descendants() { local c; for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
PIDS=()
WPIDS=()
APIDS=()
FPIDS=()
cleanup() {
    set +e
    touch "$W/stop"
    for pid in "${WPIDS[@]}" "${APIDS[@]}" "${FPIDS[@]}"; do kill "$pid" $(descendants "$pid") 2>/dev/null; done
    # Patroni stops its own postgres on SIGTERM; what is left after that is killed.
    local n pid t
    for n in "${NODES[@]}"; do
        [ -f "$W/$n.patroni.pid" ] && kill "$(cat "$W/$n.patroni.pid")" 2>/dev/null
    done
    for t in $(seq 1 60); do
        pid=""
        for n in "${NODES[@]}"; do
            [ -f "$W/$n.patroni.pid" ] && kill -0 "$(cat "$W/$n.patroni.pid")" 2>/dev/null && pid=1
        done
        [ -z "$pid" ] && break
        sleep 0.5
    done
    for n in "${NODES[@]}"; do
        [ -f "$W/$n.patroni.pid" ] && kill -9 "$(cat "$W/$n.patroni.pid")" 2>/dev/null
    done
    sleep 1
    for n in "${NODES[@]}"; do
        [ -f "$W/$n/data/postmaster.pid" ] && kill -QUIT "$(head -1 "$W/$n/data/postmaster.pid")" 2>/dev/null
    done
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    sleep 1
    for pid in "${PIDS[@]}" "${WPIDS[@]}" "${APIDS[@]}" "${FPIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
    for ns in sw e c "${NODES[@]}"; do ip netns del "$P-$ns" 2>/dev/null; done
    if [ "$KEEP" = 1 ]; then log "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT

# --- the network: a bridge in $SW, a veth pair per member ------------------------------
ip netns add "$SW"
ip -n "$SW" link add br0 type bridge
ip -n "$SW" link set br0 up
ip -n "$SW" link set lo up
for m in e c "${NODES[@]}"; do
    ip netns add "$P-$m"
    ip -n "$P-$m" link set lo up
    ip -n "$P-$m" link add eth0 type veth peer name "$m" netns "$SW"
    ip -n "$P-$m" addr add "$(ip_of "$m")/24" dev eth0
    ip -n "$P-$m" link set eth0 up
    ip -n "$SW" link set "$m" master br0
    ip -n "$SW" link set "$m" up
done
cut_link() { ip -n "$SW" link set "$1" down; }
heal_link() { ip -n "$SW" link set "$1" up; }

# --- etcd, then three Patroni nodes -------------------------------------------------------
mkdir "$W/etcd" && chown postgres: "$W/etcd"
E=http://$(ip_of e):2379
ip netns exec "$P-e" "${PG_EXEC[@]}" etcd --name e --data-dir "$W/etcd/data" \
    --listen-client-urls "$E" --advertise-client-urls "$E" \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster e=http://127.0.0.1:2380 >"$W/etcd.log" 2>&1 9>&- &
PIDS+=($!)

if [ "$ASYNC" = 1 ]; then
    SYNC="synchronous_mode: false
    maximum_lag_on_failover: 10737418240"
else
    SYNC="synchronous_mode: true
    synchronous_mode_strict: true
    maximum_lag_on_failover: 1048576"
fi
patroni_config() { # NODE
    local n=$1 a
    a=$(ip_of "$n")
    cat <<EOF
scope: noidha
name: $n
log:
  level: $([ "$TRACE" = 1 ] && echo INFO || echo WARNING)
restapi:
  listen: $a:8008
  connect_address: $a:8008
etcd3:
  hosts: $(ip_of e):2379
bootstrap:
  dcs:
    ttl: $TTL
    loop_wait: 1
    retry_timeout: 4
    primary_start_timeout: $START_TIMEOUT
    $SYNC
    postgresql:
      use_pg_rewind: true
      remove_data_directory_on_rewind_failure: true
      remove_data_directory_on_diverged_timelines: true
      parameters:
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
  initdb:
    - encoding: UTF8
    - locale: C
postgresql:
  listen: $a:5432
  connect_address: $a:5432
  data_dir: $W/$n/data
  bin_dir: $PGBIN
  pgpass: $W/$n/pgpass
  authentication:
    superuser: {username: postgres, password: drill}
    replication: {username: replicator, password: drill}
    rewind: {username: postgres, password: drill}
  parameters:
    unix_socket_directories: $W/$n
  pg_hba:
    - local all all trust
    - host all all $NET.0/24 trust
    - host replication all $NET.0/24 trust
EOF
}
# Patroni through scripts/ha-patroni.py, which closes the race of two demotes that loses
# acknowledged writes (docs/SCALING.md, "The drills"); --stock-patroni runs Debian's as is.
install -m 755 "$REPO/scripts/ha-patroni.py" "$W/ha-patroni.py"
PATRONI=("$W/ha-patroni.py")
[ "$STOCK" = 1 ] && PATRONI=(patroni)
start_patroni() { # NODE
    local n=$1
    ip netns exec "$P-$n" "${PG_EXEC[@]}" "${PATRONI[@]}" "$W/$n.yml" >>"$W/$n.log" 2>&1 9>&- &
    echo $! >"$W/$n.patroni.pid"
}
for n in "${NODES[@]}"; do
    mkdir -p "$W/$n" && chown postgres: "$W/$n" && chmod 700 "$W/$n"
    patroni_config "$n" >"$W/$n.yml"
    start_patroni "$n"
done

rest() { in_ns c curl -s -m 2 "http://$(ip_of "$1"):8008/$2" 2>/dev/null; }
primary() { # the node whose Patroni says it is the leader and running read-write
    local n
    for n in "${NODES[@]}"; do
        [ "$(in_ns c curl -s -m 2 -o /dev/null -w '%{http_code}' "http://$(ip_of "$n"):8008/primary")" = 200 ] && { echo "$n"; return 0; }
    done
    return 1
}
psql_on() { # NODE SQL
    PGCONNECT_TIMEOUT=2 in_ns c psql -qAtX "postgres://postgres@$(ip_of "$1"):5432/postgres" -c "$2"
}
# A leader, its two standbys streaming from it (one of them synchronous unless --async),
# and every member on the leader's timeline. Patroni's own view (a member "running")
# is not enough: a standby counts as running while Patroni still rewinds or clones
# it, and a fault injected then is a second fault on a cluster that has not recovered
# from the first (under strict synchronous mode, no standby may take over then).
healthy() {
    local j p
    j=$(rest n1 cluster || rest n2 cluster || rest n3 cluster) || return 1
    python3 -c '
import json, sys
c = json.loads(sys.argv[1]); m = c.get("members", [])
lead = [x for x in m if x.get("role") == "leader" and x.get("state") == "running"]
stby = [x for x in m if x.get("role") in ("replica", "sync_standby") and x.get("state") in ("streaming", "running")]
sync = [x for x in m if x.get("role") == "sync_standby"]
same = len({x.get("timeline") for x in m}) == 1
sys.exit(0 if len(lead) == 1 and len(stby) == 2 and same and (sys.argv[2] == "1" or sync) else 1)' "$j" "$ASYNC" || return 1
    p=$(primary) || return 1
    [ "$(psql_on "$p" "SELECT count(*) FILTER (WHERE state = 'streaming') || ' ' ||
        count(*) FILTER (WHERE sync_state = 'sync') FROM pg_stat_replication
        WHERE application_name IN ('n1', 'n2', 'n3')" 2>/dev/null)" = "2 $((1 - ASYNC))" ]
}
wait_for() { # SECONDS WHAT CMD...
    local bound=$1 what=$2 t
    shift 2
    t=$(now)
    until "$@"; do
        if awk -v a="$t" -v b="$(now)" -v n="$bound" 'BEGIN { exit !(b - a > n) }'; then
            log "no $what within $bound s"
            return 1
        fi
        sleep 0.5
    done
}
wait_for "$WAIT_BOUND" "healthy cluster" healthy || exit 2
log "cluster up: primary $(primary)"

# --- the minter, the writers' directories, the followers -------------------------------------
URL="postgres://postgres@$(ip_of n1):5432,$(ip_of n2):5432,$(ip_of n3):5432/postgres?target_session_attrs=read-write&connect_timeout=3"
# The API names a minter by SCHEME/NAAN/SHOULDER: ark/13030/f5 for this template.
SHOULDER=ark/13030/f5
in_ns c "$NOID" -f "$W/w1" dbcreate --backend "$URL" --minter ha f5.reedeedk long 13030 example.org ha >/dev/null
for k in $(seq 2 "$WRITERS") probe; do
    mkdir -p "$W/w$k/NOID" && cp "$W/w1/NOID/backend" "$W/w$k/NOID/backend"
done
psql_primary() { psql_on "$(primary)" "$1"; }
counter() { psql_primary "SELECT convert_from(k.value, 'UTF8') FROM noid_rows k JOIN noid_minters m ON m.id = k.minter WHERE m.name = 'ha' AND k.key = ':/oacounter'::bytea"; }
head_seq() { psql_primary "SELECT log_seq FROM noid_minters WHERE name = 'ha'"; }

for f in 1 2; do
    ip netns exec "$P-c" "$NOIDR" --follow "$URL" --minter ha --cache "$W/f$f" --http "$(ip_of c):818$f" \
        >"$W/f$f.out" 2>"$W/f$f.log" 9>&- &
    FPIDS+=($!)
done
metric() { # FOLLOWER NAME
    in_ns c curl -s -m 2 "http://$(ip_of c):818$1/metrics" 2>/dev/null | awk -v n="$2" '$1 == n { print $2 }'
}

# --- with --trace, each node's state twice a second (evidence for a failed drill) ------------
NODE_STATE="SELECT pg_is_in_recovery(), current_setting('synchronous_standby_names'),
  current_setting('synchronous_commit'), current_setting('fsync'),
  CASE WHEN pg_is_in_recovery()
    THEN (SELECT received_tli || ' ' || flushed_lsn FROM pg_stat_wal_receiver) || ' replay ' || pg_last_wal_replay_lsn()
    ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)::int || ' ' || pg_current_wal_lsn() END,
  (SELECT string_agg(application_name || ':' || sync_state || ':' || flush_lsn, ',') FROM pg_stat_replication),
  (SELECT log_seq FROM noid_minters WHERE name = 'ha')"
tracer() {
    local n j
    while [ ! -e "$W/stop" ]; do
        for n in "${NODES[@]}"; do
            echo "$(now) $n $(PGCONNECT_TIMEOUT=1 in_ns c psql -qAtX -F' | ' \
                "postgres://postgres@$(ip_of "$n"):5432/postgres" -c "$NODE_STATE" 2>&1 | tr '\n' ' ')"
        done
        j=$(rest n1 cluster || rest n2 cluster || rest n3 cluster)
        echo "$(now) cluster $(python3 -c '
import json, sys
for m in json.loads(sys.argv[1]).get("members", []):
    print("%s:%s:%s:tl%s:lag%s" % (m["name"], m["role"], m["state"], m.get("timeline"), m.get("lag")), end=" ")
' "$j" 2>/dev/null)"
        sleep 0.5
    done >>"$W/trace"
}
if [ "$TRACE" = 1 ]; then
    tracer &
    PIDS+=($!)
fi

# --- load: each writer mints 4 ids, then binds them in one `noid -` bulk run -----------------
writer() { # K
    local k=$1 n=0 out ids id rc
    while [ ! -e "$W/stop" ]; do
        n=$((n + 1))
        out=$(in_ns c "$NOID" -f "$W/w$k" mint 4 2>"$W/w$k.last") ||
            { rc=$?; echo "$(now) mint: exit $rc: $(tr "\n" " " <"$W/w$k.last")" >>"$W/w$k.err"; }
        ids=$(printf '%s\n' "$out" | sed -n 's/^id: //p')
        for id in $ids; do echo "$(now) w$k $id" >>"$W/acked-ids"; done
        [ -n "$ids" ] || { sleep 0.2; continue; }
        if for id in $ids; do echo "bind set $id _t https://example.org/w$k/$n/$id"; done |
            in_ns c "$NOID" -f "$W/w$k" - >/dev/null 2>"$W/w$k.last"; then
            for id in $ids; do echo "$(now) $id https://example.org/w$k/$n/$id" >>"$W/acked-binds"; done
        else
            rc=$?
            echo "$(now) bind: exit $rc: $(tr "\n" " " <"$W/w$k.last")" >>"$W/w$k.err"
        fi
    done
}
: >"$W/acked-ids"
: >"$W/acked-binds"
for k in $(seq 1 "$WRITERS"); do
    writer "$k" &
    WPIDS+=($!)
done

# --- load: large mints, on two connections ---------------------------------------------------
bulk_minter() {
    local rc
    while [ ! -e "$W/stop" ]; do
        in_ns c "$NOID" -f "$W/w1" mint "$BULK" 2>"$W/bulk.last" | sed -n "s/^id: /$(now) bulk /p" >>"$W/acked-ids" ||
            { rc=$?; echo "$(now) bulk mint: exit $rc: $(tr "\n" " " <"$W/bulk.last")" >>"$W/bulk.err"; }
        sleep 1
    done
}
if [ "$BULK" -gt 0 ]; then
    bulk_minter &
    WPIDS+=($!)
fi

# --- load through the API: `noid serve` on each writer host, on the same minter ----------
api_port() { echo $((8090 + $1)); }
api_serve() { # K: its binder and minter directories name the minter the writers use
    local k=$1 d=$W/a$1
    mkdir -p "$d/binder/NOID" "$d/minters/$SHOULDER/NOID"
    cp "$W/w1/NOID/backend" "$d/binder/NOID/backend"
    cp "$W/w1/NOID/backend" "$d/minters/$SHOULDER/NOID/backend"
    printf '[populator.drill]\nopen = true\nbinder = "%s"\nminters = "%s"\n' \
        "$d/binder" "$d/minters" >"$d/api.toml"
    ip netns exec "$P-c" "$NOID" serve --http "$(ip_of c):$(api_port "$k")" --config "$d/api.toml" \
        >>"$d/serve.log" 2>&1 &
    PIDS+=($!)
}
api_client() { # K J: mint 2 through the API, then bind each with a single command
    local k=$1 j=$2 n=0 out ids id url api
    api=http://$(ip_of c):$(api_port "$k")/a/drill
    while [ ! -e "$W/stop" ]; do
        n=$((n + 1))
        out=$(in_ns c curl -s -m 20 "$api/m/$SHOULDER?mint%202" 2>/dev/null) || true
        ids=$(printf '%s\n' "$out" | sed -n 's/^s: //p')
        for id in $ids; do echo "$(now) a$k.$j $id" >>"$W/acked-ids"; done
        [ -n "$ids" ] || { sleep 0.2; continue; }
        for id in $ids; do
            url=https://example.org/a$k.$j/$n/$id
            out=$(in_ns c curl -s -m 20 "$api/b?$id.set%20_t%20$url" 2>/dev/null) || true
            [ "$(printf '%s\n' "$out" | tail -1)" = "egg-status: 0" ] &&
                echo "$(now) $id $url" >>"$W/acked-binds"
        done
    done
}
if [ "$API_CLIENTS" -gt 0 ]; then
    for k in $(seq 1 "$WRITERS"); do api_serve "$k"; done
    for k in $(seq 1 "$WRITERS"); do
        wait_for 30 "noid serve $k" in_ns c curl -s -m 2 -o /dev/null "http://$(ip_of c):$(api_port "$k")/" || exit 2
        for j in $(seq 1 "$API_CLIENTS"); do
            api_client "$k" "$j" &
            APIDS+=($!)
        done
    done
fi

# A write (mint 1 from the probe directory) that succeeds: its id is acknowledged too.
probe_write() {
    local out id
    out=$(in_ns c "$NOID" -f "$W/wprobe" mint 1 2>/dev/null) || return 1
    id=$(printf '%s\n' "$out" | sed -n 's/^id: //p')
    [ -n "$id" ] || return 1
    echo "$(now) probe $id" >>"$W/acked-ids"
}

# --- what a fault caused ----------------------------------------------------------------------
# The primary's timeline: its current WAL file's first 8 hex digits (a promotion
# switches to the new timeline at once; pg_control_checkpoint() only at the next
# checkpoint).
timeline_of() { # NODE
    psql_on "$1" "SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int"
}
# Writes the writers' loops saw fail (their .err records) since time T.
failed_writes_since() { # T
    cat "$W"/w*.err "$W"/bulk.err 2>/dev/null | awk -v t="$1" '$1 + 0 >= t + 0 { n++ } END { print n + 0 }'
}
NOID_EXE=$(readlink -f "$NOID")
# The noid process a writer's loop (its pid) runs now, by executable and name: never
# the loop's `date`, `sed` or `sleep`, whose death would write a malformed record (a
# false red). Sets VICTIM.
VICTIM=""
noid_process_of() { # LOOP_PID
    local p
    for p in $(descendants "$1"); do
        if [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$NOID_EXE" ] &&
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" = noid ]; then
            VICTIM=$p
            return 0
        fi
    done
    return 1
}
# The time SOURCE's loop logged a noid it ran as killed by SIGKILL (exit 137) at or
# after T; nothing when it has not.
killed_at() { # SOURCE T
    awk -v t="$2" '$1 + 0 >= t + 0 && / exit 137: / { print $1; exit }' "$W/$1.err" 2>/dev/null
}
killed_since() { [ -n "$(killed_at "$1" "$2")" ]; }
# Whether SOURCE printed an id that a noid started after time T printed.
printed_since() { # SOURCE T
    awk -v s="$1" -v t="$2" '$2 == s && $1 + 0 > t + 0 { f = 1; exit } END { exit !f }' "$W/acked-ids"
}
# The writer fault: SIGKILL to the noid process of one writer's loop (or the bulk
# minter's), until a kill lands (a process that ended by itself a moment before the
# signal is no kill: its loop then logs no exit 137). Prints SOURCE PID, or nothing.
kill_a_writer() {
    local i src try tk
    i=$((RANDOM % ${#WPIDS[@]}))
    src=$([ "$i" -lt "$WRITERS" ] && echo "w$((i + 1))" || echo bulk)
    for try in 1 2 3 4 5; do
        wait_for 30 "a noid process of $src" noid_process_of "${WPIDS[$i]}" || return 0
        tk=$(now)
        kill -9 "$VICTIM" 2>/dev/null || continue
        if wait_for 10 "$src to log its noid killed" killed_since "$src" "$tk"; then
            echo "$src $VICTIM $tk"
            return 0
        fi
    done
}
# What drill KIND did, from the leader and timeline before and after it, the failed
# writes since it began and (writer) the killed process: sets CAUSED (what it caused)
# and MISSING (what it should have caused and did not; empty when it took effect).
judge() { # KIND OLD TL_BEFORE LEAD TL_AFTER FAILED VICTIM
    local kind=$1 old=$2 tl0=$3 lead=$4 tl1=$5 failed=$6 victim=$7
    CAUSED="leader $old -> $lead, timeline $tl0 -> $tl1, $failed failed writes"
    MISSING=""
    case $kind in
    kill9 | stop | partition | cut)
        if [ "$kind" != cut ] && { [ "$kind" != kill9 ] || [ "$START_TIMEOUT" = 0 ]; }; then
            [ "$lead" != "$old" ] || MISSING="$MISSING leader-stayed"
        fi
        [ -n "$tl0" ] && [ -n "$tl1" ] && [ "$tl1" -gt "$tl0" ] || MISSING="$MISSING timeline-not-up"
        [ "$failed" -gt 0 ] || MISSING="$MISSING no-write-failed" ;;
    writer)
        if [ -z "$victim" ]; then
            MISSING=" no-noid-killed"
            CAUSED="no noid process killed"
        else
            set -- $victim
            CAUSED="$1's noid (pid $2) killed, exit 137"
            if wait_for "$WAIT_BOUND" "$1 to print again" printed_since "$1" "$(killed_at "$1" "$3")"; then
                CAUSED="$CAUSED, then $1 printed ids again"
            else
                MISSING=" $1-printed-nothing-after"
            fi
        fi ;;
    esac
}

# --- the drills -----------------------------------------------------------------------------
IFS=, read -r -a KINDS <<<"$FAULTS"
: >"$W/drills"
: >"$W/effects"
BROKEN=""
last_counter=$(counter)
sleep 3
for d in $(seq 1 "$DRILLS"); do
    kind=${KINDS[$(((d - 1) % ${#KINDS[@]}))]}
    old=$(primary) || { log "no primary before drill $d"; exit 2; }
    tl_before=$(timeline_of "$old") || { log "no timeline of $old before drill $d"; exit 2; }
    lag_before=$(metric 1 noidr_follow_lag_seconds)
    victim=""
    t0=$(now)
    case $kind in
    kill9)
        pm=$(head -1 "$W/$old/data/postmaster.pid" 2>/dev/null) || true
        kill -9 "$pm" || { log "no postmaster ($pm) to kill on $old"; exit 2; } ;;
    stop)
        # Patroni shuts its postgres down (and gives up the leader key) before it exits.
        pp=$(cat "$W/$old.patroni.pid" 2>/dev/null) || true
        kill -TERM "$pp" || { log "no Patroni ($pp) to stop on $old"; exit 2; }
        if ! wait_for 60 "Patroni to stop" bash -c "! kill -0 $pp 2>/dev/null"; then
            BROKEN="$BROKEN patroni-did-not-stop-drill-$d"
            kill -9 "$pp" 2>/dev/null || true
        fi ;;
    partition) cut_link "$old" ;;
    writer) victim=$(kill_a_writer) ;;
    cut)
        # Long enough for writers to get through: a connection tries the cut hosts
        # first, connect_timeout (3 s) each.
        for n in "${NODES[@]}"; do [ "$n" = "$old" ] || cut_link "$n"; done
        sleep 12
        kill -9 "$(cat "$W/$old.patroni.pid")" "$(head -1 "$W/$old/data/postmaster.pid")" 2>/dev/null || true
        for n in "${NODES[@]}"; do [ "$n" = "$old" ] || heal_link "$n"; done
        # The old primary is repaired after the leader key has expired. Under strict
        # synchronous mode no standby may take over without it (none was in sync
        # when it died), so writes wait for it; asynchronous, a standby takes over.
        (sleep $((TTL + 5)) && start_patroni "$old") &
        PIDS+=($!) ;;
    *) log "unknown fault $kind"; exit 2 ;;
    esac
    wait_for "$WAIT_BOUND" "write after the fault" probe_write || { BROKEN="$BROKEN no-write-after-drill-$d"; }
    down=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
    new=$(primary || echo none)
    case $kind in
    stop) start_patroni "$old" ;;
    partition) sleep $((PART_SECS > ${down%.*} ? PART_SECS - ${down%.*} : 0)); heal_link "$old" ;;
    esac
    wait_for "$WAIT_BOUND" "healthy cluster after drill $d" healthy || BROKEN="$BROKEN unhealthy-after-drill-$d"
    lead=$(primary || echo none)
    tl_after=$(timeline_of "$lead" 2>/dev/null || true)
    judge "$kind" "$old" "$tl_before" "$lead" "$tl_after" "$(failed_writes_since "$t0")" "$victim"
    [ -z "$MISSING" ] || BROKEN="$BROKEN fault-had-no-effect-drill-$d(${MISSING# })"
    c=$(counter)
    if [ -n "$last_counter" ] && [ -n "$c" ] && [ "$c" -lt "$last_counter" ]; then
        BROKEN="$BROKEN counter-went-back-drill-$d($last_counter>$c)"
    fi
    last_counter=$c
    echo "$d $kind $old $new $down $lag_before $t0" >>"$W/drills"
    echo "$d $kind $([ -z "$MISSING" ] && echo yes || echo "no:${MISSING# }" | tr ' ' ,) $CAUSED" >>"$W/effects"
    log "drill $d: $kind on $old, writes back after $down s, primary now $new; caused: $CAUSED${MISSING:+; MISSING:$MISSING}"
done

# --- stop the load, let the followers converge, check --------------------------------------------
touch "$W/stop"
for pid in "${WPIDS[@]}" "${APIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
HEAD=$(head_seq)
t=$(now)
converged() { [ "$(metric 1 noidr_follow_applied_seq)" = "$HEAD" ] && [ "$(metric 2 noidr_follow_applied_seq)" = "$HEAD" ]; }
if wait_for "$FOLLOW_BOUND" "followers at change $HEAD" converged; then
    CONVERGE=$(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
else
    CONVERGE="over $FOLLOW_BOUND"
    BROKEN="$BROKEN followers-did-not-converge"
fi
MAXLAG=$(awk '$6 != "" { if ($6 > m) m = $6 } END { printf "%.2f", m }' "$W/drills")
for pid in "${FPIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${FPIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
# A copy holds one key more, its applied change: left out, with the count of keys.
in_ns c "$NOID" -f "$W/w1" export | grep -v '^:/pg/applied\|^# end' >"$W/pg.export"
for f in 1 2; do
    "$NOID" -f "$W/f$f" export | grep -v '^:/pg/applied\|^# end' >"$W/f$f.export" || true
    cmp -s "$W/pg.export" "$W/f$f.export" || BROKEN="$BROKEN follower-$f-differs"
done
IDS=$(wc -l <"$W/acked-ids")
API_IDS=$(awk '$2 ~ /^a/' "$W/acked-ids" | wc -l)
API_BINDS=$(grep -c '^[^ ]* [^ ]* https://example.org/a' "$W/acked-binds" || true)
DUPS=$(awk '{ print $3 }' "$W/acked-ids" | sort | uniq -d | wc -l)
[ "$DUPS" = 0 ] || BROKEN="$BROKEN duplicate-ids($DUPS)"
BINDS=$(wc -l <"$W/acked-binds")
# Export lines are KEY<TAB>VALUE, the key's own tab written as a backslash and a t.
LOST=$(awk 'NR == FNR { have[$0] = 1; next } { if (!(($2 "\\t_t\t" $3) in have)) n++ } END { print n + 0 }' \
    "$W/pg.export" "$W/acked-binds")
[ "$LOST" = 0 ] || BROKEN="$BROKEN lost-binds($LOST)"
# Every printed id has its circulation record (`ID\t:/c` in the export).
UNRECORDED=$(awk -F'\t' 'NR == FNR { have[$1] = 1; next } { split($0, f, " "); if (!((f[3] "\\t:/c") in have)) n++ } END { print n + 0 }' \
    "$W/pg.export" "$W/acked-ids")
[ "$UNRECORDED" = 0 ] || BROKEN="$BROKEN unrecorded-ids($UNRECORDED)"
BULK_IDS=$(awk '$2 == "bulk"' "$W/acked-ids" | wc -l)
CHECK=$(in_ns c "$NOID" -f "$W/w1" check 2>&1) || BROKEN="$BROKEN noid-check"

# --- report ---------------------------------------------------------------------------------------
stats() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f / %.1f", v[int((NR + 1) / 2)], v[NR]; else printf "-" }'; }
MODE=$([ "$ASYNC" = 1 ] && echo "asynchronous (broken on purpose)" || echo "synchronous_mode strict")
echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); Patroni $(patroni --version | cut -d' ' -f2), etcd $(etcd --version | head -1 | awk '{ print $3 }'), PostgreSQL $("$PGBIN/postgres" --version | awk '{ print $3 }'), $MODE, TTL $TTL s, primary_start_timeout $START_TIMEOUT s, $([ "$STOCK" = 1 ] && echo "Debian's Patroni as is" || echo "Patroni through scripts/ha-patroni.py"); \`scripts/ha-drill.sh --drills $DRILLS --faults $FAULTS$([ "$ASYNC" = 1 ] && echo " --async")$([ "$STOCK" = 1 ] && echo " --stock-patroni")\`."
echo
echo "| fault | drills | write unavailability, s (median / max) | follower lag before the fault, s (max) | took effect |"
echo "|---|---:|---:|---:|---:|"
took() { awk -v k="$1" '(k == "" || $2 == k) && $3 == "yes" { n++ } END { print n + 0 }' "$W/effects"; }
for kind in "${KINDS[@]}"; do
    n=$(awk -v k="$kind" '$2 == k' "$W/drills" | wc -l)
    [ "$n" -gt 0 ] || continue
    echo "| $kind | $n | $(awk -v k="$kind" '$2 == k { print $5 }' "$W/drills" | stats) | $(awk -v k="$kind" '$2 == k && $6 != "" { if ($6 > m) m = $6 } END { printf "%.2f", m }' "$W/drills") | $(took "$kind") of $n |"
done
echo "| all | $DRILLS | $(awk '{ print $5 }' "$W/drills" | stats) | $MAXLAG | $(took "") of $DRILLS |"
echo
echo "What each fault caused (it took effect: kill9, stop and partition moved the leader$([ "$START_TIMEOUT" = 0 ] || echo " (kill9: or recovered it in place)"), raised the timeline and failed writes; cut raised the timeline and failed writes; writer killed a noid process of a writer, which then printed ids again):"
echo
echo "| drill | fault | took effect | what it caused |"
echo "|---:|---|---|---|"
awk '{ c = ""; for (i = 4; i <= NF; i++) c = c (i > 4 ? " " : "") $i; printf "| %s | %s | %s | %s |\n", $1, $2, $3, c }' "$W/effects"
echo
echo "| invariant | result |"
echo "|---|---|"
echo "| ids printed (writers and probe) | $IDS |"
echo "| of these by the bulk minter (\`noid mint $BULK\`, two connections) | $BULK_IDS |"
echo "| ids printed twice | $DUPS |"
echo "| ids printed without a circulation record in the primary | $UNRECORDED |"
echo "| bindings acknowledged | $BINDS |"
echo "| of these through \`noid serve\` ($WRITERS services, $API_CLIENTS clients each): ids printed, bindings acknowledged | $API_IDS, $API_BINDS |"
echo "| acknowledged bindings missing from the primary | $LOST |"
echo "| followers' exports equal the minter's | $(echo "$BROKEN" | grep -q differs && echo no || echo yes) |"
echo "| followers at the head (change $HEAD) after the load stopped | $CONVERGE s (bound $FOLLOW_BOUND s) |"
echo "| counter never went back | $(echo "$BROKEN" | grep -q counter && echo no || echo yes) |"
echo "| noid check | $(echo "$BROKEN" | grep -q noid-check && echo "failed: $CHECK" || echo clean) |"
if [ -n "$BROKEN" ]; then
    echo
    echo "INVARIANTS BROKEN:$BROKEN"
    exit 1
fi
