#!/usr/bin/env bash
# Coverage-guided fuzzing (cargo-fuzz, libFuzzer, nightly toolchain) of every parser and
# protocol: scripts/fuzz.sh [TARGET|all] [SECONDS per target, default 20].
#
# Each target first replays its kept inputs (fuzz/corpus/TARGET, and fuzz/regressions/
# TARGET: every crash ever found), then fuzzes for SECONDS with a working copy of the
# corpus, so a run never rewrites the checked-in one (FUZZ_KEEP=1 merges what it found
# back into fuzz/corpus/TARGET). It fails on a crash, a broken invariant (an assert in
# the target), an input slower than 1 s, or more than 2 GB of memory; the input that did
# it is left in fuzz/artifacts/TARGET/, to be kept in fuzz/regressions/. An input is
# slow only if it is slow every time: libFuzzer's timer (-timeout=1, wall-clock time,
# under the sanitizer build) also fires when a loaded machine stalls the process, so
# an input that took over 1 s is run again alone, three times; if any run is in time,
# the machine was busy, which is said, and the input is dropped.
# A long run: scripts/fuzz.sh all 3600.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-all}"
seconds="${2:-20}"
# Nightly builds of the fuzzed crates (no RocksDB) in a target directory of their own.
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$HOME/.cache/noid-fuzz-target}"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
cd fuzz
if [ "$target" = all ]; then
    targets=$(cargo +nightly fuzz list)
else
    targets="$target"
fi
cargo +nightly fuzz build -O >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# timeout_input LOG: the input libFuzzer wrote for a timeout reported in LOG (none: empty).
timeout_input() {
    grep -q "ERROR: libFuzzer: timeout" "$1" || return 0
    sed -n 's/^.*Test unit written to \(.*timeout-[0-9a-f]*\)$/\1/p' "$1" | head -1
}
# slow_every_time TARGET INPUT: whether INPUT, run alone, takes over 1 s three times in
# a row (a run that fails otherwise counts as slow: it is a finding either way).
slow_every_time() {
    local try
    for try in 1 2 3; do
        if cargo +nightly fuzz run -O "$1" "$2" -- -runs=1 -timeout=1 -rss_limit_mb=2048 \
            >"$work/rerun.log" 2>&1; then
            echo "fuzz $1: $(basename "$2") took over 1 s once, then ran in time alone (try $try): the machine was busy; dropped"
            rm -f "$2"
            return 1
        fi
    done
    return 0
}
# confirmed_failure TARGET LOG: whether the failed run that wrote LOG found something (a
# timeout only when its input is slow every time).
confirmed_failure() {
    local input
    input=$(timeout_input "$2")
    [ -z "$input" ] || slow_every_time "$1" "$input"
}
for t in $targets; do
    mkdir -p "corpus/$t" "regressions/$t" "artifacts/$t" "$work/$t"
    echo "== fuzz $t: kept inputs, then ${seconds} s"
    kept=$(find "corpus/$t" "regressions/$t" -type f | wc -l)
    if [ "$kept" -gt 0 ]; then
        replays=0
        until cargo +nightly fuzz run -O "$t" "corpus/$t" "regressions/$t" -- \
            -runs=0 -timeout=1 -rss_limit_mb=2048 2>"$work/$t.replay.log"; do
            replays=$((replays + 1))
            if [ "$replays" -ge 3 ] || confirmed_failure "$t" "$work/$t.replay.log"; then
                tail -40 "$work/$t.replay.log"; grep -m1 -A2 "panicked at" "$work/$t.replay.log" || true
                echo "fuzz $t: a kept input fails"; exit 1
            fi
            # a kept input only met a busy machine: replay them all again
        done
    fi
    cp -r "corpus/$t/." "$work/$t/"
    if ! cargo +nightly fuzz run -O "$t" "$work/$t" -- \
        -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
        2>"$work/$t.log"; then
        if confirmed_failure "$t" "$work/$t.log"; then
            tail -60 "$work/$t.log"; grep -m1 -A2 "panicked at" "$work/$t.log" || true
            echo "fuzz $t: FAILED (input in fuzz/artifacts/$t/)"; exit 1
        fi
        echo "fuzz $t: fuzzing ended early at that input (not a finding)"
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$work/$t.log" \
        | sed "s/^/    $t /"
    if [ "${FUZZ_KEEP:-0}" = 1 ]; then
        cargo +nightly fuzz cmin -O "$t" "$work/$t" >/dev/null 2>&1 || true
        cp -r "$work/$t/." "corpus/$t/"
    fi
done
