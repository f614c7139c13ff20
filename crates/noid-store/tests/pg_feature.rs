//! The PostgreSQL tests of this crate (`pg_replica`, `pg_writer`, `pg_rows`, `pg_plans`)
//! need its `testing` feature. `cargo test --workspace` switches it on (other members'
//! tests ask for it); `cargo test -p noid-store` alone does not, and cargo then leaves
//! those targets out without a word. This test, built only then, fails and says how to
//! run them, so that they are never skipped in silence.

#[cfg(not(feature = "testing"))]
#[test]
fn the_postgresql_tests_need_the_testing_feature() {
    panic!(
        "pg_replica, pg_writer, pg_rows and pg_plans were not built: they need noid-store's \
         `testing` feature. Run them with `cargo test --release -p noid-store --features \
         testing` (or `cargo test --release --workspace`); the RocksDB-only build's own tests \
         (a database-held minter refused by `open`) with `cargo test --release -p noid-store --lib`."
    );
}
