//! The tables that hold minters (docs/SCALING.md, "Schema").
//!
//! Keys and values are `bytea`: PostgreSQL orders `bytea` bytewise (then by length),
//! as RocksDB's default comparator does, so range reads return keys in the order the
//! embedded store would, with no collation involved.

use postgres::Client;

/// The first half of every advisory lock noid takes (`'noid'` in ASCII), so that its
/// locks do not collide with another application's one-key locks.
pub const LOCK_CLASS: i32 = 0x6e6f_6964;

/// The channel each writing transaction notifies, with `MINTER SEQ` as payload.
pub const CHANNEL: &str = "noid_log";

/// The schema, idempotent.
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS noid_minters (
    id      bigserial PRIMARY KEY,
    name    text NOT NULL UNIQUE,
    log_seq bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS noid_keys (
    minter bigint NOT NULL REFERENCES noid_minters(id),
    key    bytea  NOT NULL,
    value  bytea  NOT NULL,
    PRIMARY KEY (minter, key)
);
CREATE TABLE IF NOT EXISTS noid_log (
    minter bigint  NOT NULL REFERENCES noid_minters(id),
    seq    bigint  NOT NULL,
    ord    integer NOT NULL,
    key    bytea   NOT NULL,
    value  bytea,
    PRIMARY KEY (minter, seq, ord)
);
";

/// Create the tables if they are missing. Concurrent creators queue on a
/// transaction-level advisory lock: `CREATE TABLE IF NOT EXISTS` run by two sessions at
/// once can fail on the catalog's unique index.
pub fn create(client: &mut Client) -> Result<(), postgres::Error> {
    let mut t = client.transaction()?;
    t.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS])?;
    t.batch_execute(TABLES)?;
    t.commit()
}
