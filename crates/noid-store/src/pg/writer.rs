//! The writing process: the minter's writers' lock, and commits that are one
//! synchronous transaction each, change log included (docs/SCALING.md, "Writing").

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use crate::{Op, StoreError};
use noid_core::{LookupError, Pairs};
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::error::SqlState;
use postgres::types::Type;
use postgres::{Client, Transaction};

use crate::pg::ahead::{self, Ahead};
use crate::pg::conn::{connect, failed, minter_id, Conn};
use crate::pg::location::Location;
use crate::pg::schema::{self, CHANNEL, LOCK_CLASS};

/// Rows per statement of a commit: a mint of 100,000 ids writes some 200,000 keys.
const CHUNK: usize = 5_000;

/// Identifiers' keys in a commit from which they are first tried as a plain `COPY`.
const FRESH_MIN: usize = 1_000;

/// A minter opened for writing, held exclusively by this process until dropped.
pub struct PgWriter {
    conn: Conn,
    /// Committed keys of the identifiers a bulk run reads next ([`Store::read_ahead`]).
    ///
    /// [`Store::read_ahead`]: noid_store::Store::read_ahead
    ahead: Mutex<Ahead>,
}

impl PgWriter {
    /// Open the existing minter at `loc`, waiting up to `timeout` for other writers.
    pub fn open(loc: &Location, timeout: Duration) -> Result<PgWriter, StoreError> {
        let mut client = connect(loc)?;
        let id = minter_id(&mut client, loc)?;
        PgWriter::lock(client, id, loc, timeout)
    }

    /// Create the minter at `loc` (and the tables, if they are missing), holding its
    /// writers' lock. Fails if a minter of that name exists.
    pub fn create(loc: &Location, timeout: Duration) -> Result<PgWriter, StoreError> {
        let mut client = connect(loc)?;
        let current =
            schema::create(&mut client).map_err(|e| failed(loc, "cannot create the tables", &e))?;
        if !current {
            return Err(StoreError::Backend(format!(
                "PostgreSQL at {}: {}",
                loc.display_url(),
                schema::OLD_LOG
            )));
        }
        let row = client
            .query_opt(
                "INSERT INTO noid_minters (name) VALUES ($1) ON CONFLICT (name) DO NOTHING \
                 RETURNING id",
                &[&loc.minter],
            )
            .map_err(|e| failed(loc, "cannot create the minter", &e))?;
        let Some(row) = row else {
            return Err(StoreError::Backend(format!(
                "PostgreSQL at {}: a minter named {} already exists",
                loc.display_url(),
                loc.minter
            )));
        };
        PgWriter::lock(client, row.get(0), loc, timeout)
    }

    /// Take the writers' lock of minter `id`: a session-level advisory lock, held until
    /// the connection closes, so that no other writer changes the minter between this
    /// process's commits. `lock_timeout` bounds the wait (and any row lock later).
    fn lock(
        mut client: Client,
        id: i64,
        loc: &Location,
        timeout: Duration,
    ) -> Result<PgWriter, StoreError> {
        // Zero means "no timeout" to PostgreSQL; noid's zero means "do not wait".
        let ms = timeout.as_millis().clamp(1, i32::MAX as u128);
        client
            .batch_execute(&format!(
                "SET synchronous_commit = on; SET lock_timeout = {ms}"
            ))
            .map_err(|e| failed(loc, "cannot set up the session", &e))?;
        let key = i32::try_from(id).map_err(|_| {
            StoreError::Backend(format!("minter id {id} does not fit an advisory lock"))
        })?;
        match client.execute("SELECT pg_advisory_lock($1, $2)", &[&LOCK_CLASS, &key]) {
            Ok(_) => {}
            Err(e) if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) => {
                return Err(StoreError::Backend(format!(
                    "lock timeout after {} seconds; another noid process holds minter {} at {}",
                    timeout.as_secs(),
                    loc.minter,
                    loc.display_url()
                )))
            }
            Err(e) => return Err(failed(loc, "cannot take the writers' lock", &e)),
        }
        Ok(PgWriter {
            conn: Conn::new(client, id, loc.clone())?,
            ahead: Mutex::default(),
        })
    }

    /// The minter's location.
    pub fn location(&self) -> &Location {
        &self.conn.location
    }

    fn ahead(&self) -> MutexGuard<'_, Ahead> {
        // A panic while holding it left a map half-updated: forget it all.
        self.ahead.lock().unwrap_or_else(|e| {
            let mut a = e.into_inner();
            a.clear();
            a
        })
    }

    /// Read the committed keys of the identifiers `ids` in one query, in place of what
    /// was read ahead before.
    fn fetch_ahead(&self, ids: &[String]) -> Result<(), postgres::Error> {
        let mut lo: Vec<Vec<u8>> = ids
            .iter()
            .take(ahead::MAX_IDS)
            .map(|id| noid_core::keys::elem(id, ""))
            .collect();
        lo.sort_unstable();
        lo.dedup();
        let hi: Vec<Vec<u8>> = lo.iter().map(|p| ahead::prefix_end(p)).collect();
        // One index range scan per identifier, whatever the planner would estimate for
        // a join (a plain join turned into a scan of the whole table, 54 s at 200,000
        // keys): `OFFSET 0` keeps the lateral subquery from being pulled up.
        let rows = self.conn.client().query(
            "SELECT k.key, k.value FROM unnest($2::bytea[], $3::bytea[]) AS p(lo, hi), \
             LATERAL (SELECT key, value FROM noid_keys \
                      WHERE minter = $1 AND key >= p.lo AND key < p.hi OFFSET 0) AS k",
            &[&self.conn.minter, &lo, &hi],
        )?;
        let rows = rows.into_iter().map(|r| (r.get(0), r.get(1))).collect();
        self.ahead().load(lo, rows);
        Ok(())
    }

    /// Apply `ops` as one transaction: lock the minter's row, write the keys, append
    /// them to the change log as one row numbered with the next sequence number,
    /// notify followers, commit synchronously. Nothing is applied if any step fails.
    fn commit_ops(&self, ops: &[Op]) -> Result<(), StoreError> {
        let err = |what| self.conn.on_err(what);
        let id = self.conn.minter;
        let mut client = self.conn.client();
        let mut t = client.transaction().map_err(err("cannot begin"))?;
        let head: i64 = t
            .query_one(
                "SELECT log_seq FROM noid_minters WHERE id = $1 FOR UPDATE",
                &[&id],
            )
            .map_err(err("cannot lock the minter's row"))?
            .get(0);
        let seq = head + 1;
        // Identifiers' keys (not the minter's own `:/…` keys) are new in a mint or a
        // first bind, so a large commit first tries them as a plain binary COPY, which
        // skips the upsert's conflict handling; if one exists after all, the savepoint
        // undoes the attempt and they are upserted with the rest.
        let (fresh, mut rest): (Vec<&Op>, Vec<&Op>) = ops
            .iter()
            .partition(|op| matches!(op, Op::Put(k, _) if !k.starts_with(b":/")));
        if fresh.len() < FRESH_MIN {
            rest.extend(fresh);
        } else {
            let mut sp = t.savepoint("fresh").map_err(err("cannot begin"))?;
            match copy_new_keys(&mut sp, id, &fresh) {
                Ok(()) => sp.commit().map_err(err("cannot write keys"))?,
                Err(e) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                    drop(sp);
                    rest.extend(fresh);
                }
                Err(e) => return Err(err("cannot write keys")(e)),
            }
        }
        write_keys(&mut t, id, &rest).map_err(err("cannot write keys"))?;
        // The whole commit is one log row (schema::encode_changes): a mint of 100,000
        // ids writes 200,000 keys but one row here, not 200,000 more.
        t.execute(
            "INSERT INTO noid_log (minter, seq, changes) VALUES ($1, $2, $3)",
            &[&id, &seq, &schema::encode_changes(ops)],
        )
        .map_err(err("cannot append to the change log"))?;
        t.execute(
            "UPDATE noid_minters SET log_seq = $2 WHERE id = $1",
            &[&id, &seq],
        )
        .map_err(err("cannot advance the change log"))?;
        let payload = format!("{} {seq}", self.conn.location.minter);
        t.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])
            .map_err(err("cannot notify followers"))?;
        // An ERROR from the server means it rolled back. No answer (the connection
        // lost), or one that ends the session (FATAL), leaves the outcome unknown: the
        // server may have committed, e.g. a backend that wrote its commit record and was
        // terminated while it waited for the synchronous standby answers nothing.
        t.commit().map_err(|e| match e.as_db_error() {
            Some(db) if db.severity() == "ERROR" => self.conn.failed("cannot commit", &e),
            _ => StoreError::CommitUnknown(
                self.conn
                    .failed("the connection was lost at COMMIT", &e)
                    .to_string(),
            ),
        })
    }
}

/// Add the puts `ops` to the minter's keys in `t` by one binary `COPY`, which fails
/// (unique violation) if one of the keys exists.
fn copy_new_keys(t: &mut Transaction<'_>, id: i64, ops: &[&Op]) -> Result<(), postgres::Error> {
    let sink = t.copy_in("COPY noid_keys (minter, key, value) FROM STDIN (FORMAT binary)")?;
    let mut w = BinaryCopyInWriter::new(sink, &[Type::INT8, Type::BYTEA, Type::BYTEA]);
    for op in ops {
        if let Op::Put(k, v) = op {
            w.write(&[&id, &k.as_slice(), &v.as_slice()])?;
        }
    }
    w.finish().map(|_| ())
}

/// Write `ops` to the minter's keys in `t`, [`CHUNK`] at a time: puts as upserts.
fn write_keys(t: &mut Transaction<'_>, id: i64, ops: &[&Op]) -> Result<(), postgres::Error> {
    for chunk in ops.chunks(CHUNK) {
        let (mut put_k, mut put_v, mut del_k) = (Vec::new(), Vec::new(), Vec::new());
        for op in chunk {
            match op {
                Op::Put(k, v) => {
                    put_k.push(k.as_slice());
                    put_v.push(v.as_slice());
                }
                Op::Delete(k) => del_k.push(k.as_slice()),
            }
        }
        if !put_k.is_empty() {
            t.execute(
                "INSERT INTO noid_keys (minter, key, value) \
                 SELECT $1, k, v FROM unnest($2::bytea[], $3::bytea[]) AS u(k, v) \
                 ON CONFLICT (minter, key) DO UPDATE SET value = EXCLUDED.value",
                &[&id, &put_k, &put_v],
            )?;
        }
        if !del_k.is_empty() {
            t.execute(
                "DELETE FROM noid_keys WHERE minter = $1 AND key = ANY($2::bytea[])",
                &[&id, &del_k],
            )?;
        }
    }
    Ok(())
}

impl noid_core::Lookup for PgWriter {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        if let Some(known) = self.ahead().get(key) {
            return Ok(known);
        }
        self.conn.get(key)
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        if let Some(known) = self.ahead().scan_prefix(prefix, limit) {
            return Ok(known);
        }
        self.conn.scan_prefix(prefix, limit)
    }
}

impl crate::Scan for PgWriter {
    fn scan_from(
        &self,
        start: &[u8],
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        self.conn.scan_from(start, f)
    }
}

impl crate::Store for PgWriter {
    fn commit_all(&self, ops: &mut Vec<Op>) -> Result<(), StoreError> {
        if ops.is_empty() {
            return Ok(());
        }
        Op::last_per_key(ops);
        let result = self.commit_ops(ops);
        match &result {
            Ok(()) => self.ahead().apply(ops),
            Err(_) => self.ahead().clear(),
        }
        result
    }

    /// PostgreSQL writes a batch's keys (a COPY, index and all) while the next is minted
    /// (noid-cli's pipelined mint): in batches of 20,000 rather than one of 100,000, a
    /// `mint 100000` overlaps four fifths of the two.
    fn mint_batch(&self) -> Option<u64> {
        Some(20_000)
    }

    fn wants_read_ahead(&self) -> bool {
        true
    }

    fn read_ahead(&self, ids: &[String]) {
        if let Err(e) = self.fetch_ahead(ids) {
            // Only a hint: the reads will go to the database one by one, and fail there
            // with their own message if it is gone.
            log::debug!("read-ahead of {} identifiers failed: {e}", ids.len());
            self.ahead().clear();
        }
    }
}
