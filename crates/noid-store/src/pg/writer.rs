//! The writing process: the minter's writers' lock, and commits that are one
//! synchronous transaction each, change log included (docs/SCALING.md, "Writing").
//! A commit's key writes become row operations on `noid_rows` ([`packed::row_ops`]):
//! a mint's hold is a flag on its circulation record's row, not a row of its own.

use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use crate::backend::after_previous;
use crate::{Op, StoreError};
use noid_core::{LookupError, Pairs};
use postgres::error::SqlState;
use postgres::{Client, GenericClient};

use crate::pg::ahead::{self, Ahead};
use crate::pg::conn::{connect, failed, minter_id, refused, try_lock, Conn, Rows};
use crate::pg::copy;
use crate::pg::location::Location;
use crate::pg::packed::{self, RowOp, Unpacker};
use crate::pg::schema::{self, CHANNEL, LOCK_CLASS};
use crate::pg::statements::{write_rows, Arrays, Statements, CHUNK};

/// Identifiers' rows in a commit from which they are first tried as a plain `COPY`.
const FRESH_MIN: usize = 1_000;

/// Rows per identifier a read-ahead's span may hold before it gives way to a read per
/// identifier ([`PgWriter::fetch_ahead`]).
const SPAN_ROWS_PER_ID: usize = 4;

/// The second connection of a pipelined mint ([`PgWriter::open_helper`]).
struct Helper {
    client: Mutex<Client>,
    statements: Statements,
}

/// A connection taken for one commit, with its statements.
struct Session<'a> {
    client: MutexGuard<'a, Client>,
    statements: &'a Statements,
}

/// A minter opened for writing, held exclusively by this process until dropped.
pub struct PgWriter {
    conn: Conn,
    statements: Statements,
    /// The writers' lock's key: (`LOCK_CLASS`, this).
    lock_key: i32,
    /// `lock_timeout` of this process's sessions, in milliseconds.
    lock_ms: u128,
    /// A second connection, once a large mint has asked for one: `None` inside if it
    /// could not be had.
    helper: OnceLock<Option<Helper>>,
    /// Committed keys of the identifiers a bulk run reads next ([`Store::read_ahead`]).
    ///
    /// [`Store::read_ahead`]: noid_store::Store::read_ahead
    ahead: Mutex<Ahead>,
}

impl PgWriter {
    /// Open the existing minter at `loc`, waiting up to `timeout` for other writers.
    pub fn open(loc: &Location, timeout: Duration) -> Result<PgWriter, StoreError> {
        let mut client = connect(loc)?;
        let id = minter_id(&mut client, loc, Rows::Write)?;
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
        let statements = Statements::prepare(&mut client, loc)?;
        Ok(PgWriter {
            conn: Conn::new(client, id, loc.clone())?,
            statements,
            lock_key: key,
            lock_ms: ms,
            helper: OnceLock::new(),
            ahead: Mutex::default(),
        })
    }

    /// Open the second connection a pipelined mint commits on, sharing the writers'
    /// lock with it (docs/SCALING.md, "Two connections").
    ///
    /// Every writer asks for the lock exclusive. This connection takes it shared as
    /// well (granted at once: a session's own locks never conflict), gives up the
    /// exclusive hold, and the helper takes it shared. So from then on the lock is held
    /// as long as either connection lives: should this connection's session end alone
    /// after a commit while the helper's commit is still to come, no other writer can
    /// read the minter's state in between and mint what the helper commits. If another
    /// writer is already waiting, the helper's request queues behind it and times out:
    /// there is then no helper, and this connection's shared hold still keeps others out.
    fn open_helper(&self) -> Result<Helper, StoreError> {
        let loc = &self.conn.location;
        let err = |what: &'static str| move |e: postgres::Error| failed(loc, what, &e);
        let mut b = connect(loc)?;
        b.batch_execute("SET synchronous_commit = on; SET lock_timeout = 1000")
            .map_err(err("cannot set up the second session"))?;
        {
            let mut a = self.conn.client();
            a.execute(
                "SELECT pg_advisory_lock_shared($1, $2)",
                &[&LOCK_CLASS, &self.lock_key],
            )
            .map_err(err("cannot share the writers' lock"))?;
            a.execute(
                "SELECT pg_advisory_unlock($1, $2)",
                &[&LOCK_CLASS, &self.lock_key],
            )
            .map_err(err("cannot share the writers' lock"))?;
        }
        b.execute(
            "SELECT pg_advisory_lock_shared($1, $2)",
            &[&LOCK_CLASS, &self.lock_key],
        )
        .map_err(err("cannot share the writers' lock"))?;
        b.batch_execute(&format!("SET lock_timeout = {}", self.lock_ms))
            .map_err(err("cannot set up the second session"))?;
        let statements = Statements::prepare(&mut b, loc)?;
        Ok(Helper {
            client: Mutex::new(b),
            statements,
        })
    }

    /// A connection no other thread is using, if there is one: this process's own,
    /// else the helper's.
    fn free_session(&self) -> Option<Session<'_>> {
        if let Some(client) = self.conn.try_client() {
            return Some(Session {
                client,
                statements: &self.statements,
            });
        }
        let h = self.helper.get()?.as_ref()?;
        Some(Session {
            client: try_lock(&h.client)?,
            statements: &h.statements,
        })
    }

    /// A free connection, else this process's own once it is free.
    fn session(&self) -> Session<'_> {
        self.free_session().unwrap_or_else(|| Session {
            client: self.conn.client(),
            statements: &self.statements,
        })
    }

    /// [`Store::commit_all`] and [`Store::commit_after`]: `ops` committed on a free
    /// connection, after `previous()` when given.
    fn commit_on(
        &self,
        ops: &mut Vec<Op>,
        previous: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), StoreError> {
        if ops.is_empty() {
            return after_previous(previous);
        }
        Op::last_per_key(ops);
        let result = match self.free_session() {
            Some(s) => self.commit_ops(s, ops, previous),
            // Both connections busy (or no helper): waiting for one while holding
            // nothing, after the commit before, never waits for a commit that waits
            // for this one.
            None => {
                after_previous(previous).and_then(|()| self.commit_ops(self.session(), ops, None))
            }
        };
        match &result {
            Ok(()) => self.ahead().apply(ops),
            Err(_) => self.ahead().clear(),
        }
        result
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

    /// Read the committed keys of the identifiers `ids`, in place of what was read
    /// ahead before.
    ///
    /// First as one span, every row from the first identifier's keys to the last's, at
    /// most [`SPAN_ROWS_PER_ID`] per identifier: a load's identifiers are often new,
    /// or near each other in key order, and then the span is one index descent where
    /// a read per identifier cost one each (a `noid -` load of 300,000 new bindings:
    /// 1.5 s of the server's 4 s). When the span holds more than that (identifiers far
    /// apart in a large minter), one query reads each identifier's rows instead.
    fn fetch_ahead(&self, ids: &[String]) -> Result<(), postgres::Error> {
        let mut lo: Vec<Vec<u8>> = ids
            .iter()
            .take(ahead::MAX_IDS)
            .map(|id| noid_core::keys::elem(id, ""))
            .collect();
        lo.sort_unstable();
        lo.dedup();
        let hi: Vec<Vec<u8>> = lo.iter().map(|p| ahead::prefix_end(p)).collect();
        let (Some(first), Some(end)) = (lo.first(), hi.last()) else {
            self.ahead().load(lo, Vec::new());
            return Ok(());
        };
        let limit = i64::try_from(lo.len() * SPAN_ROWS_PER_ID + 16).unwrap_or(i64::MAX);
        let row = |r: postgres::Row| -> (Vec<u8>, Vec<u8>, bool) { (r.get(0), r.get(1), r.get(2)) };
        let mut c = self.conn.client();
        let span = c.query(
            &self.statements.ahead_span,
            &[&self.conn.minter, first, end, &limit],
        )?;
        let rows: Vec<(Vec<u8>, Vec<u8>, bool)> = if (span.len() as i64) < limit {
            // Every row in the span: those of the identifiers asked for, in key order.
            span.into_iter()
                .map(row)
                .filter(|(k, _, _)| {
                    ahead::id_prefix(k)
                        .is_some_and(|p| lo.binary_search_by(|l| l.as_slice().cmp(p)).is_ok())
                })
                .collect()
        } else {
            let each = c.query(&self.statements.ahead_each, &[&self.conn.minter, &lo, &hi])?;
            let mut rows: Vec<_> = each.into_iter().map(row).collect();
            rows.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            rows
        };
        drop(c);
        // All the rows of each identifier, in key order: their keys, holds unpacked.
        let rows = Unpacker::pairs(rows);
        self.ahead().load(lo, rows);
        Ok(())
    }

    /// Apply `ops` as one transaction: write the keys, append them to the change log as
    /// one row numbered with the next sequence number (locking the minter's row),
    /// notify followers, commit synchronously. Nothing is applied if any step fails.
    ///
    /// Round trips: a commit of up to [`CHUNK`] keys, most of them not new
    /// identifiers' (a bind, the API's requests, a small mint), is one statement
    /// ([`APPEND`]) in a transaction of its own: one round trip, where it took twelve
    /// before (`BEGIN`, five statements each prepared then run, `COMMIT`). A large
    /// commit adds `BEGIN`, the `COPY` under its savepoint (three) and `COMMIT`.
    ///
    /// With `previous`, the identifiers' new keys are sent first, and the rest only
    /// once `previous()` has said the commit before succeeded; if it failed, the
    /// transaction is rolled back.
    fn commit_ops(
        &self,
        session: Session<'_>,
        ops: &[Op],
        previous: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), StoreError> {
        let err = |what| self.conn.on_err(what);
        let id = self.conn.minter;
        let changes = schema::encode_changes(ops);
        let rows = packed::row_ops(ops);
        let Session {
            mut client,
            statements,
        } = session;
        // Identifiers' rows (not the minter's own `:/…` keys) are new in a mint or a
        // first bind, so a large commit first tries them as a plain binary COPY, which
        // skips the upsert's conflict handling; if one exists after all, the savepoint
        // undoes the attempt and they are upserted with the rest. (Sending them in key
        // order did not make the COPY faster: five interleaved `mint 100000` runs took
        // 1.22-2.41 s unsorted, 1.49-3.18 s sorted.)
        let (fresh, mut rest): (Vec<&RowOp>, Vec<&RowOp>) = rows
            .iter()
            .partition(|op| matches!(op, RowOp::Put { key, .. } if !key.starts_with(b":/")));
        if fresh.len() < FRESH_MIN && rows.len() <= CHUNK {
            // One statement is one transaction, committed synchronously as any.
            after_previous(previous)?;
            return self.append(
                &mut *client,
                statements,
                rows.iter().collect(),
                &changes,
                true,
            );
        }
        let mut t = client.transaction().map_err(err("cannot begin"))?;
        if fresh.len() < FRESH_MIN {
            rest.extend(fresh);
        } else {
            let mut sp = t.savepoint("fresh").map_err(err("cannot begin"))?;
            match copy::new_rows(&mut sp, &statements.copy, id, &fresh) {
                Ok(()) => sp.commit().map_err(err("cannot write keys"))?,
                Err(copy::CopyFailed::Db(e)) if e.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
                    drop(sp);
                    rest.extend(fresh);
                }
                Err(copy::CopyFailed::Db(e)) => return Err(err("cannot write keys")(e)),
                Err(copy::CopyFailed::Refused(why)) => {
                    return Err(refused(&self.conn.location, "cannot write keys", why))
                }
            }
        }
        // Dropping `t` rolls it back.
        after_previous(previous)?;
        // An unpacking reads the row a later delete removes: the order is kept.
        rest.sort_by_key(|op| !matches!(op, RowOp::Unpack { .. }));
        let last = rest.len().saturating_sub(1) / CHUNK * CHUNK;
        let tail = rest.split_off(last);
        write_rows(&mut t, statements, id, &rest).map_err(err("cannot write keys"))?;
        self.append(&mut t, statements, tail, &changes, false)?;
        t.commit()
            .map_err(|e| self.commit_failed(&e, "cannot commit"))
    }

    /// A failed COMMIT (or statement that is its own transaction), as a store error.
    ///
    /// An ERROR from the server means it rolled back. No answer (the connection
    /// lost), or one that ends the session (FATAL), leaves the outcome unknown: the
    /// server may have committed, e.g. a backend that wrote its commit record and was
    /// terminated while it waited for the synchronous standby answers nothing.
    fn commit_failed(&self, e: &postgres::Error, what: &str) -> StoreError {
        match e.as_db_error() {
            Some(db) if db.severity() == "ERROR" => self.conn.failed(what, e),
            _ => StoreError::CommitUnknown(
                self.conn
                    .failed("the connection was lost at COMMIT", e)
                    .to_string(),
            ),
        }
    }

    /// Run [`APPEND`] on `c` with the row operations `ops` and the commit's encoded `changes`:
    /// in the transaction `c`, or (`commits`) as a transaction of its own on the client,
    /// whose failure may then leave the outcome unknown ([`PgWriter::commit_failed`]).
    fn append(
        &self,
        c: &mut impl GenericClient,
        statements: &Statements,
        ops: Vec<&RowOp>,
        changes: &[u8],
        commits: bool,
    ) -> Result<(), StoreError> {
        let a = Arrays::of(&ops);
        let minter = &self.conn.location.minter;
        let row = c
            .query_opt(
                &statements.append,
                &[
                    &self.conn.minter,
                    &a.put_k,
                    &a.put_v,
                    &a.del_k,
                    &changes,
                    &CHANNEL,
                    minter,
                    &a.flag_k,
                    &a.flag_v,
                    &a.flag_h,
                    &a.unflag_k,
                    &a.unpack_k,
                ],
            )
            .map_err(|e| {
                let what = "cannot commit the keys and the change log";
                match commits {
                    true => self.commit_failed(&e, what),
                    false => self.conn.failed(what, &e),
                }
            })?;
        match row {
            Some(_) => Ok(()),
            None => Err(StoreError::Backend(format!(
                "PostgreSQL at {}: minter {minter} is gone from noid_minters",
                self.conn.location.display_url()
            ))),
        }
    }
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
        self.commit_on(ops, None)
    }

    fn commit_after(
        &self,
        ops: &mut Vec<Op>,
        previous: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), StoreError> {
        self.commit_on(ops, Some(previous))
    }

    /// Two: a second connection, so that two server processes build a large mint's
    /// index entries at once (one builds one transaction's); one if it cannot be had.
    fn open_pipeline(&self) -> usize {
        let helper = self.helper.get_or_init(|| match self.open_helper() {
            Ok(h) => Some(h),
            Err(e) => {
                log::debug!("no second connection, one commit at a time: {e}");
                None
            }
        });
        if helper.is_some() {
            2
        } else {
            1
        }
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

    /// PostgreSQL builds a commit's index entries in one server process, and a
    /// follower applies the commit's change-log row in one piece: batches stay at the
    /// 200,000 writes its benchmarks measured.
    fn bulk_batch_writes(&self) -> usize {
        200_000
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
