//! The statements a writer runs on `noid_rows`, prepared once per connection, and the
//! arrays a batch of row operations ([`RowOp`]) binds to them.
//!
//! Each row operation's SQL is written once ([`upsert`], [`upsert_flag`], [`delete`],
//! [`unflag`], [`unpack`]) and used twice: alone, for the chunks of a large commit,
//! and as a part of [`append`], the statement that ends every commit.

use postgres::{Client, Statement, Transaction};

use crate::pg::conn::failed;
use crate::pg::location::Location;
use crate::pg::packed::{self, RowOp};
use crate::StoreError;

/// Row operations per statement of a commit: a mint of 100,000 ids writes some 100,000
/// rows.
pub(crate) const CHUNK: usize = 5_000;

/// The statements of a commit, prepared once per connection: a statement given as text
/// costs a round trip of its own to prepare at every use.
pub(crate) struct Statements {
    /// Puts of rows that may exist, keeping a row's flag: `$1` minter, `$2` keys, `$3`
    /// values.
    pub(crate) upsert: Statement,
    /// Puts of rows that may exist, setting their flags: as `upsert`, `$4` flags.
    pub(crate) upsert_flag: Statement,
    /// Deletes: `$1` minter, `$2` keys.
    pub(crate) delete: Statement,
    /// Flags cleared ([`RowOp::Unflag`]): `$1` minter, `$2` keys.
    pub(crate) unflag: Statement,
    /// Flags made rows of their own ([`RowOp::Unpack`]): `$1` minter, `$2` keys.
    pub(crate) unpack: Statement,
    /// The binary `COPY` of identifiers' new rows.
    pub(crate) copy: Statement,
    /// The commit's last rows and its change-log row in one statement ([`append`]).
    pub(crate) append: Statement,
    /// A read-ahead's rows in one span ([`AHEAD_SPAN`]).
    pub(crate) ahead_span: Statement,
    /// A read-ahead's rows identifier by identifier ([`AHEAD_EACH`]).
    pub(crate) ahead_each: Statement,
}

impl Statements {
    pub(crate) fn prepare(client: &mut Client, loc: &Location) -> Result<Statements, StoreError> {
        let mut prepare = |sql: &str| {
            client
                .prepare(sql)
                .map_err(|e| failed(loc, "cannot prepare a statement", &e))
        };
        Ok(Statements {
            upsert: prepare(&upsert("$2", "$3"))?,
            upsert_flag: prepare(&upsert_flag("$2", "$3", "$4"))?,
            delete: prepare(&delete("$2"))?,
            unflag: prepare(&unflag("$2"))?,
            unpack: prepare(&unpack("$2"))?,
            copy: prepare("COPY noid_rows (minter, key, value, held) FROM STDIN (FORMAT binary)")?,
            append: prepare(&append())?,
            ahead_span: prepare(AHEAD_SPAN)?,
            ahead_each: prepare(AHEAD_EACH)?,
        })
    }
}

/// Puts that keep an existing row's flag: `$1` minter, `keys` and `values` the
/// parameters of the keys and the values.
fn upsert(keys: &str, values: &str) -> String {
    format!(
        "INSERT INTO noid_rows (minter, key, value) \
         SELECT $1, k, v FROM unnest({keys}::bytea[], {values}::bytea[]) AS u(k, v) \
         ON CONFLICT (minter, key) DO UPDATE SET value = EXCLUDED.value"
    )
}

/// Puts that set the rows' flags: as [`upsert`], `flags` the flags' parameter.
fn upsert_flag(keys: &str, values: &str, flags: &str) -> String {
    format!(
        "INSERT INTO noid_rows (minter, key, value, held) \
         SELECT $1, k, v, h \
         FROM unnest({keys}::bytea[], {values}::bytea[], {flags}::bool[]) AS u(k, v, h) \
         ON CONFLICT (minter, key) DO UPDATE SET value = EXCLUDED.value, held = EXCLUDED.held"
    )
}

/// The columns `columns` of minter `$1`'s rows `keys` that pass `filter` (`""` or
/// `" AND …"`), found by one index probe per key whatever the planner's statistics
/// say.
///
/// Why not `WHERE minter = $1 AND key = ANY(keys)`: a key is the index's second
/// column, so for that form the planner also weighs reading all of the minter's rows
/// and filtering them, and picks it whenever its statistics were taken before the
/// minter had rows (a minter added to a shared database, or a new one before
/// autovacuum's next ANALYZE): they say the minter holds one row. Every commit would
/// then read the whole minter, once for each of [`append`]'s three such parts, even
/// with no keys to touch (docs/SCALING.md, "Plans that do not depend on the
/// statistics"). The lateral subquery here names one key at a time, and `OFFSET 0`
/// keeps it from being pulled up into a join the planner could reorder, as in
/// [`AHEAD_EACH`].
fn probe(columns: &str, keys: &str, filter: &str) -> String {
    format!(
        "SELECT {columns} FROM unnest({keys}::bytea[]) AS u(k), \
         LATERAL (SELECT ctid, key FROM noid_rows \
                  WHERE minter = $1 AND key = u.k{filter} OFFSET 0) AS r"
    )
}

/// Deletes of the rows `keys`: `$1` minter. The rows are found by [`probe`] and
/// deleted by their tuple ids (a TID scan, which reads only them).
fn delete(keys: &str) -> String {
    format!(
        "DELETE FROM noid_rows WHERE ctid = ANY(ARRAY({rows}))",
        rows = probe("r.ctid", keys, "")
    )
}

/// Clear the flags of the circulation records' rows `keys`: `$1` minter (found as
/// [`delete`] finds its rows).
fn unflag(keys: &str) -> String {
    format!(
        "UPDATE noid_rows SET held = false WHERE ctid = ANY(ARRAY({rows}))",
        rows = probe("r.ctid", keys, " AND held")
    )
}

/// Write the holds the flags of the circulation records' rows `keys` stand for as rows
/// of their own: `$1` minter.
fn unpack(keys: &str) -> String {
    format!(
        "INSERT INTO noid_rows (minter, key, value) \
         SELECT $1, {hold}, {held} FROM ({rows}) AS f \
         ON CONFLICT (minter, key) DO UPDATE SET value = EXCLUDED.value",
        hold = packed::hold_of_sql("f.key"),
        held = packed::HELD_SQL,
        rows = probe("r.key", keys, " AND held"),
    )
}

/// The end of every commit, one statement: the commit's last row operations (up to
/// [`CHUNK`]; often all of them), advance the minter's head (which locks its row
/// until the commit: that lock orders writers, so sequence numbers follow commit
/// order), add the commit's change-log row under the new number, and notify followers
/// with `MINTER SEQ`. A commit touches each row once ([`packed::row_ops`]), so the
/// operations, which run on one snapshot, never meet; the one that reads a row another
/// deletes ([`unpack`]) reads it as it was. `$1` minter id, `$2` and `$3` keys and
/// values to put, `$4` keys to delete, `$5` the encoded changes, `$6` the channel, `$7`
/// the minter's name, `$8`, `$9` and `$10` keys, values and flags to put with their
/// flags, `$11` rows to unflag, `$12` rows to unpack.
fn append() -> String {
    format!(
        "WITH put AS ({put}), putf AS ({putf}), unflag AS ({unflag}), \
         unpack AS ({unpack}), del AS ({del}), \
         head AS (UPDATE noid_minters SET log_seq = log_seq + 1 WHERE id = $1 \
                  RETURNING log_seq), \
         logged AS (INSERT INTO noid_log (minter, seq, changes) \
                    SELECT $1, log_seq, $5 FROM head RETURNING seq) \
         SELECT seq, pg_notify($6::text, $7::text || ' ' || seq::text) FROM logged",
        put = upsert("$2", "$3"),
        putf = upsert_flag("$8", "$9", "$10"),
        unflag = unflag("$11"),
        unpack = unpack("$12"),
        del = delete("$4"),
    )
}

/// Every row from the first identifier read ahead to the last, at most `$4`: `$1`
/// minter, `$2` the first's `ID<TAB>`, `$3` the end of the last's.
const AHEAD_SPAN: &str = "SELECT key, value, held FROM noid_rows \
     WHERE minter = $1 AND key >= $2 AND key < $3 ORDER BY key LIMIT $4";

/// The rows of each identifier read ahead: `$1` minter, `$2` their `ID<TAB>`s, `$3`
/// the ends of their keys. One index range scan per identifier, whatever the planner
/// would estimate for a join (a plain join turned into a scan of the whole table, 54 s
/// at 200,000 keys): `OFFSET 0` keeps the lateral subquery from being pulled up.
const AHEAD_EACH: &str = "SELECT k.key, k.value, k.held \
     FROM unnest($2::bytea[], $3::bytea[]) AS p(lo, hi), \
     LATERAL (SELECT key, value, held FROM noid_rows \
              WHERE minter = $1 AND key >= p.lo AND key < p.hi ORDER BY key OFFSET 0) AS k";

/// A batch of row operations as the arrays their statements take.
#[derive(Default)]
pub(crate) struct Arrays<'a> {
    /// Puts that keep the row's flag.
    pub(crate) put_k: Vec<&'a [u8]>,
    pub(crate) put_v: Vec<&'a [u8]>,
    /// Puts that set it.
    pub(crate) flag_k: Vec<&'a [u8]>,
    pub(crate) flag_v: Vec<&'a [u8]>,
    pub(crate) flag_h: Vec<bool>,
    pub(crate) del_k: Vec<&'a [u8]>,
    pub(crate) unflag_k: Vec<&'a [u8]>,
    pub(crate) unpack_k: Vec<&'a [u8]>,
}

impl<'a> Arrays<'a> {
    pub(crate) fn of(ops: &[&'a RowOp<'a>]) -> Arrays<'a> {
        let mut a = Arrays::default();
        for op in ops {
            match op {
                RowOp::Put {
                    key,
                    value,
                    held: None,
                } => {
                    a.put_k.push(*key);
                    a.put_v.push(*value);
                }
                RowOp::Put {
                    key,
                    value,
                    held: Some(h),
                } => {
                    a.flag_k.push(*key);
                    a.flag_v.push(*value);
                    a.flag_h.push(*h);
                }
                RowOp::Delete { key } => a.del_k.push(*key),
                RowOp::Unflag { key } => a.unflag_k.push(key),
                RowOp::Unpack { key } => a.unpack_k.push(*key),
            }
        }
        a
    }
}

/// Apply `ops` to the minter's rows in `t`, [`CHUNK`] at a time. Each chunk unpacks
/// first, so that a delete in it or a later one never loses a flagged hold.
pub(crate) fn write_rows(
    t: &mut Transaction<'_>,
    statements: &Statements,
    id: i64,
    ops: &[&RowOp],
) -> Result<(), postgres::Error> {
    for chunk in ops.chunks(CHUNK) {
        let a = Arrays::of(chunk);
        if !a.unpack_k.is_empty() {
            t.execute(&statements.unpack, &[&id, &a.unpack_k])?;
        }
        if !a.unflag_k.is_empty() {
            t.execute(&statements.unflag, &[&id, &a.unflag_k])?;
        }
        if !a.put_k.is_empty() {
            t.execute(&statements.upsert, &[&id, &a.put_k, &a.put_v])?;
        }
        if !a.flag_k.is_empty() {
            t.execute(
                &statements.upsert_flag,
                &[&id, &a.flag_k, &a.flag_v, &a.flag_h],
            )?;
        }
        if !a.del_k.is_empty() {
            t.execute(&statements.delete, &[&id, &a.del_k])?;
        }
    }
    Ok(())
}
