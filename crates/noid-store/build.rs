//! No build step of its own. This script exists only so that the `[build-dependencies]`
//! in Cargo.toml take part in feature resolution: they make the host-side features that
//! RocksDB's bindgen build sees the same whether one crate (`cargo test -p noid-cli`) or
//! the whole workspace is built, so RocksDB's C++ (10 minutes on 2 cores) is compiled
//! once and reused instead of once per feature set.
fn main() {}
