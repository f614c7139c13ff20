# Sourced by the scripts: one shared target directory and one profile (release) for
# everything, so RocksDB's C++ (about 10 minutes on 2 cores) is compiled once per machine.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/noid-target}"
NOID_BIN="$CARGO_TARGET_DIR/release"
export NOID_BIN
