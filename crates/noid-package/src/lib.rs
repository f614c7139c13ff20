//! The Debian package of `noid` and `noidr`. This crate has no code of its own: its
//! Cargo.toml tells `cargo deb` (run by scripts/package.sh) which files go where, and
//! debian/ holds the maintainer scripts.
