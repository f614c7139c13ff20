//! The tables that hold minters (docs/SCALING.md, "Schema").
//!
//! Keys and values are `bytea`: PostgreSQL orders `bytea` bytewise (then by length),
//! as RocksDB's default comparator does, so range reads return keys in the order the
//! embedded store would, with no collation involved.

use crate::Op;
use postgres::Client;

/// The first half of every advisory lock noid takes (`'noid'` in ASCII), so that its
/// locks do not collide with another application's one-key locks.
pub const LOCK_CLASS: i32 = 0x6e6f_6964;

/// The channel each writing transaction notifies, with `MINTER SEQ` as payload.
pub const CHANNEL: &str = "noid_log";

/// The schema, idempotent (a database made before `noid_followers` existed gets it
/// at the next `dbcreate` or `prune-log`). `noid_rows.minter` has no foreign key: its check, one
/// per row written, took a third of a `mint 100000` (1.43 s against 0.96-1.06 s
/// without); only noid's writers, which hold the minter's row, write keys.
///
/// `noid_rows` holds the key space with a minted identifier's hold packed into its
/// circulation record's row: `held` stands for the key `ID\t:/h` with the value `1`
/// (`pg/packed.rs`; docs/SCALING.md, "Schema").
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS noid_minters (
    id      bigserial PRIMARY KEY,
    name    text NOT NULL UNIQUE,
    log_seq bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS noid_rows (
    minter bigint  NOT NULL,
    key    bytea   NOT NULL,
    value  bytea   NOT NULL,
    held   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (minter, key)
);
CREATE TABLE IF NOT EXISTS noid_log (
    minter  bigint NOT NULL REFERENCES noid_minters(id),
    seq     bigint NOT NULL,
    changes bytea  NOT NULL,
    PRIMARY KEY (minter, seq)
);
CREATE TABLE IF NOT EXISTS noid_followers (
    minter  bigint NOT NULL REFERENCES noid_minters(id),
    name    text   NOT NULL,
    applied bigint NOT NULL,
    seen    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (minter, name)
);
";

/// The resolution counts that web nodes ship (`pg/counts.rs`; docs/COUNTS.md,
/// "Several web nodes"): `noid_counts` adds up every node's counts per minter, UTC
/// day, identifier (as asked, bytes), kind (`hit`, `redirect` with its `code`, `miss`,
/// `inflection`, `page`; `code` is 0 but for a redirect) and class (`person`,
/// `robot`); `noid_counts_shipped` says, per segment file of a node's counts
/// directory (a name unique to the process that wrote it), the byte offset of its
/// next unshipped block. A shipment adds to the one and moves the other in one
/// transaction. Part of [`create`], and made by the first shipment on a database
/// made before they existed ([`create_counts`]).
pub(crate) const COUNTS_TABLES: &str = "
CREATE TABLE IF NOT EXISTS noid_counts (
    minter bigint  NOT NULL REFERENCES noid_minters(id),
    day    date    NOT NULL,
    id     bytea   NOT NULL,
    kind   text    NOT NULL,
    code   integer NOT NULL,
    class  text    NOT NULL,
    count  bigint  NOT NULL,
    PRIMARY KEY (minter, day, id, kind, code, class)
);
CREATE TABLE IF NOT EXISTS noid_counts_shipped (
    minter  bigint NOT NULL REFERENCES noid_minters(id),
    segment text   NOT NULL,
    node    text   NOT NULL,
    shipped bigint NOT NULL,
    at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (minter, segment)
);
";

/// Create the counts tables if they are missing ([`COUNTS_TABLES`]), queued as
/// [`create`] is.
pub(crate) fn create_counts(client: &mut Client) -> Result<(), postgres::Error> {
    let mut t = client.transaction()?;
    t.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS])?;
    // Without "relation … already exists, skipping" in the node's log at each connection.
    t.batch_execute("SET LOCAL client_min_messages = warning")?;
    t.batch_execute(COUNTS_TABLES)?;
    t.commit()
}

/// True when `noid_log` is the current one, a row per commit (schema version 2). The
/// first version, never released, had a row per key (`ord`, `key`, `value`); noid
/// refuses to work on such a database rather than misread it ([`OLD_LOG`]).
pub(crate) const LOG_IS_CURRENT: &str = "EXISTS (SELECT 1 FROM pg_attribute \
     WHERE attrelid = 'noid_log'::regclass AND attname = 'changes' AND NOT attisdropped)";

/// The error for a database whose change log has the old, row-per-key layout.
pub(crate) const OLD_LOG: &str = "its table noid_log has the old layout (a row per key, \
     from a development version of noid); noid now keeps a row per commit: copy the \
     minters out with noid export and into a new database with noid import";

/// True when the minters' keys are in `noid_rows` (schema version 3). Version 2 kept
/// them in `noid_keys`, a row per key, which [`create`] renames in place (the rows
/// mean the same with no hold packed): so that an earlier noid, which would write holds
/// as rows and miss the packed ones, fails on the missing table instead.
pub(crate) const ROWS_ARE_CURRENT: &str = "to_regclass('noid_rows') IS NOT NULL";

/// The error for a database that has not been moved to `noid_rows` yet, for a process
/// that only reads.
pub(crate) const OLD_ROWS: &str = "its keys are in the table noid_keys of an earlier \
     noid; the first noid command of this version that writes to a minter there (noid -f \
     DIR mint 0 is one) moves them, in place, to the table noid_rows";

/// Move a version-2 database's `noid_keys` to `noid_rows` (two catalogue changes, instant
/// whatever the table's size), if it has one and no `noid_rows`. Waits at most ten
/// seconds for processes of an earlier noid that are using the table.
fn move_keys_to_rows(t: &mut postgres::Transaction<'_>) -> Result<(), postgres::Error> {
    let old: bool = t
        .query_one(
            "SELECT to_regclass('noid_keys') IS NOT NULL AND to_regclass('noid_rows') IS NULL",
            &[],
        )?
        .get(0);
    if old {
        t.batch_execute(
            "SET LOCAL lock_timeout = '10s'; \
             ALTER TABLE noid_keys RENAME TO noid_rows; \
             ALTER TABLE noid_rows ADD COLUMN held boolean NOT NULL DEFAULT false",
        )?;
    }
    Ok(())
}

/// The version byte that starts every `noid_log.changes` value.
pub const CHANGES_FORMAT: u8 = 1;

/// Encode one commit's writes and deletes, in order, as a `noid_log.changes` value:
///
/// ```text
/// changes = version:u8 (CHANGES_FORMAT = 1) op*
/// op      = b'P' keylen:u32 key vallen:u32 value      -- put
///         | b'D' keylen:u32 key                       -- delete
/// ```
///
/// Lengths are big-endian. A follower applies the ops in order; a commit holds each
/// key at most once, so the order matters only for readers who want it exact.
pub fn encode_changes(ops: &[Op]) -> Vec<u8> {
    let size: usize = ops
        .iter()
        .map(|op| match op {
            Op::Put(k, v) => 9 + k.len() + v.len(),
            Op::Delete(k) => 5 + k.len(),
        })
        .sum();
    let mut out = Vec::with_capacity(1 + size);
    out.push(CHANGES_FORMAT);
    let field = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as u32).to_be_bytes());
        out.extend_from_slice(b);
    };
    for op in ops {
        match op {
            Op::Put(k, v) => {
                out.push(b'P');
                field(&mut out, k);
                field(&mut out, v);
            }
            Op::Delete(k) => {
                out.push(b'D');
                field(&mut out, k);
            }
        }
    }
    out
}

/// Decode a `noid_log.changes` value ([`encode_changes`]), or say why it cannot be.
pub fn decode_changes(bytes: &[u8]) -> Result<Vec<Op>, String> {
    let (&version, mut rest) = bytes.split_first().ok_or("an empty value")?;
    if version != CHANGES_FORMAT {
        return Err(format!(
            "format version {version}, this noid reads {CHANGES_FORMAT}"
        ));
    }
    let field = |rest: &mut &[u8]| -> Result<Vec<u8>, String> {
        let (len, tail) = rest.split_first_chunk::<4>().ok_or("a length cut short")?;
        let len = u32::from_be_bytes(*len) as usize;
        if tail.len() < len {
            return Err("a key or value cut short".into());
        }
        let (b, tail) = tail.split_at(len);
        *rest = tail;
        Ok(b.to_vec())
    };
    let mut ops = Vec::new();
    while let Some((&kind, tail)) = rest.split_first() {
        rest = tail;
        ops.push(match kind {
            b'P' => {
                let k = field(&mut rest)?;
                Op::Put(k, field(&mut rest)?)
            }
            b'D' => Op::Delete(field(&mut rest)?),
            other => return Err(format!("an unknown operation byte {other:#04x}")),
        });
    }
    Ok(ops)
}

/// Create the tables if they are missing, and move a version-2 database's keys to
/// `noid_rows`; false (and nothing created) when the database holds a change log of the
/// old layout ([`OLD_LOG`]). Concurrent creators queue on a
/// transaction-level advisory lock: `CREATE TABLE IF NOT EXISTS` run by two sessions at
/// once can fail on the catalog's unique index.
pub fn create(client: &mut Client) -> Result<bool, postgres::Error> {
    let mut t = client.transaction()?;
    t.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS])?;
    move_keys_to_rows(&mut t)?;
    t.batch_execute(TABLES)?;
    t.batch_execute(COUNTS_TABLES)?;
    // lz4 compresses a large commit's log row in a tenth of the time pglz takes (a
    // `mint 100000`'s 10 MB: 18-58 ms against 171-198 ms); a server built without it
    // keeps its default.
    t.batch_execute("SAVEPOINT lz4")?;
    if t.batch_execute("ALTER TABLE noid_log ALTER COLUMN changes SET COMPRESSION lz4")
        .is_err()
    {
        t.batch_execute("ROLLBACK TO SAVEPOINT lz4")?;
    }
    let current: bool = t
        .query_one(&format!("SELECT {LOG_IS_CURRENT}"), &[])?
        .get(0);
    if !current {
        return Ok(false);
    }
    t.commit()?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_length_prefixed_and_round_trip() {
        let ops = vec![
            Op::Put(b"ab".to_vec(), b"".to_vec()),
            Op::Delete(b"c".to_vec()),
        ];
        let bytes = encode_changes(&ops);
        assert_eq!(bytes, b"\x01P\0\0\0\x02ab\0\0\0\0D\0\0\0\x01c");
        assert_eq!(decode_changes(&bytes).unwrap(), ops);
        assert_eq!(decode_changes(b"\x01").unwrap(), vec![]);
        assert!(decode_changes(b"damaged").is_err());
        assert!(decode_changes(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_changes(b"").is_err());
    }
}
