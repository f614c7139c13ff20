//! One connection to the minter's database, and the reads of its key space that
//! writers and snapshots share: the [`noid_core::Lookup`] over `noid_rows`, whose
//! packed holds it reads as the keys they stand for ([`packed`]).

use std::sync::{Mutex, MutexGuard};

use crate::StoreError;
use noid_core::{LookupError, Pairs};
use postgres::{Client, NoTls, Statement};

use crate::pg::location::Location;
use crate::pg::packed::{self, Page};
use crate::pg::schema;

/// Keys per page of [`Conn::scan_from`].
const PAGE: i64 = 10_000;

/// An open connection on one minter's rows. The client sits behind a mutex because
/// `Lookup` reads through `&self` and a large mint commits from a second thread.
pub(crate) struct Conn {
    client: Mutex<Client>,
    /// The minter's `noid_minters.id`.
    pub(crate) minter: i64,
    pub(crate) location: Location,
    get: Statement,
    get_hold: Statement,
    scan_bounded: Statement,
    scan_open: Statement,
}

/// The rows of a page of a range, `$1` minter, `$2` from, then (bounded) `$3` to: the
/// row straddling `from` if it is flagged (`$N`, NULL when there is none: it sorts
/// before `from`), and up to `$M` rows in the range in key order.
fn scan_sql(bounded: bool) -> String {
    let (upper, straddling, limit) = match bounded {
        true => ("AND key < $3 ", "$5", "$4"),
        false => ("", "$4", "$3"),
    };
    format!(
        "SELECT key, value, held FROM noid_rows WHERE minter = $1 AND key = {straddling} AND held \
         UNION ALL \
         (SELECT key, value, held FROM noid_rows WHERE minter = $1 AND key >= $2 {upper}\
          ORDER BY key LIMIT {limit})"
    )
}

/// A PostgreSQL failure while doing `what` at `loc`, as a store error.
pub(crate) fn failed(loc: &Location, what: &str, e: &postgres::Error) -> StoreError {
    match e.as_db_error() {
        Some(db) => refused(loc, what, db.message()),
        None => refused(loc, what, e),
    }
}

/// A failure while doing `what` at `loc`, for the reason `why`, as a store error.
pub(crate) fn refused(loc: &Location, what: &str, why: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!(
        "PostgreSQL at {} (minter {}): {what}: {why}",
        loc.display_url(),
        loc.minter
    ))
}

/// `m` locked if it is free; a poisoned lock is taken as [`Conn::client`] takes it.
pub(crate) fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// Connect to `loc`'s database, with PostgreSQL's JIT compilation and sequential scans
/// off for the session.
///
/// noid's statements read and write a few index entries per key, and JIT never makes
/// them faster; but the planner's estimate for a bulk run's statements (thousands of
/// array elements) passes `jit_above_cost`, and compiling them took a seventh to a
/// third of the server's CPU in a `noid -` load of bindings (docs/SCALING.md, "Benchmarks", (d)).
///
/// Every statement of noid's names its minter, and reads `noid_rows` by its primary
/// key. A sequential scan is never the better plan for a key, but the planner picks
/// it where its statistics call the table tiny: after the rows were deleted and the
/// table vacuumed (an aborted migration run again), a `noid -` load's prepared reads
/// are planned while the table is still empty and keep that plan, reading the whole
/// growing table for every key (docs/SCALING.md, "Plans that do not depend on the
/// statistics"). With the scans off the planner takes the index whatever the
/// statistics say; a table that has no usable index is still scanned.
///
/// Statements rather than startup options, which connection poolers may refuse.
pub(crate) fn connect(loc: &Location) -> Result<Client, StoreError> {
    let mut client =
        Client::connect(&loc.url, NoTls).map_err(|e| failed(loc, "cannot connect", &e))?;
    client
        .batch_execute("SET jit = off; SET enable_seqscan = off")
        .map_err(|e| failed(loc, "cannot set up the session", &e))?;
    Ok(client)
}

/// What a process does with a minter's rows, for [`minter_id`]: a database whose keys
/// are still in an earlier noid's table ([`schema::OLD_ROWS`]) is moved to the current
/// one by a writer, refused to a reader, and of no concern to a follower that only
/// reads the change log (it reads the rows through a snapshot when it bootstraps,
/// which refuses them then).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rows {
    Write,
    Read,
    Ignore,
}

/// The id of `loc`'s minter, or an error saying that there is none; a database of an
/// earlier layout as `rows` says.
pub(crate) fn minter_id(
    client: &mut Client,
    loc: &Location,
    rows: Rows,
) -> Result<i64, StoreError> {
    let backend =
        |why: &str| StoreError::Backend(format!("PostgreSQL at {}: {why}", loc.display_url()));
    let query = format!(
        "SELECT id, {}, {} FROM noid_minters WHERE name = $1",
        schema::LOG_IS_CURRENT,
        schema::ROWS_ARE_CURRENT
    );
    let find = |client: &mut Client| {
        client
            .query_opt(&query, &[&loc.minter])
            .map_err(|e| failed(loc, "cannot find the minter (was it created?)", &e))
    };
    let mut row = find(client)?;
    if rows == Rows::Write && row.as_ref().is_some_and(|r| !r.get::<_, bool>(2)) {
        let current = schema::create(client)
            .map_err(|e| failed(loc, "cannot move the keys to noid_rows", &e))?;
        if !current {
            return Err(backend(schema::OLD_LOG));
        }
        row = find(client)?;
    }
    match row {
        Some(r) if !r.get::<_, bool>(1) => Err(backend(schema::OLD_LOG)),
        Some(r) if rows != Rows::Ignore && !r.get::<_, bool>(2) => Err(backend(schema::OLD_ROWS)),
        Some(r) => Ok(r.get(0)),
        None => Err(backend(&format!(
            "no minter named {} -- use dbcreate --backend?",
            loc.minter
        ))),
    }
}

impl Conn {
    /// Wrap `client`, connected to the database of `location`, on minter `minter`.
    pub(crate) fn new(
        mut client: Client,
        minter: i64,
        location: Location,
    ) -> Result<Conn, StoreError> {
        let prepare = |c: &mut Client, sql: &str| {
            c.prepare(sql)
                .map_err(|e| failed(&location, "cannot prepare a query", &e))
        };
        let get = prepare(
            &mut client,
            "SELECT value FROM noid_rows WHERE minter = $1 AND key = $2",
        )?;
        // A hold (`$2`): the flag of its circulation record's row (`$3`) wins over a
        // row of its own.
        let get_hold = prepare(
            &mut client,
            "SELECT CASE WHEN c.held THEN '\\x31'::bytea ELSE h.value END \
             FROM (SELECT) AS one \
             LEFT JOIN noid_rows h ON h.minter = $1 AND h.key = $2 \
             LEFT JOIN noid_rows c ON c.minter = $1 AND c.key = $3",
        )?;
        let scan_bounded = prepare(&mut client, &scan_sql(true))?;
        let scan_open = prepare(&mut client, &scan_sql(false))?;
        Ok(Conn {
            client: Mutex::new(client),
            minter,
            location,
            get,
            get_hold,
            scan_bounded,
            scan_open,
        })
    }

    /// The client, for statements of the caller's own.
    pub(crate) fn client(&self) -> MutexGuard<'_, Client> {
        // A panic while holding it left at worst a statement half-read; the server
        // rolls back whatever transaction that was part of.
        self.client.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The client if no other thread is using it.
    pub(crate) fn try_client(&self) -> Option<MutexGuard<'_, Client>> {
        try_lock(&self.client)
    }

    /// A failure while doing `what`, as a store error.
    pub(crate) fn failed(&self, what: &str, e: &postgres::Error) -> StoreError {
        failed(&self.location, what, e)
    }

    /// [`Conn::failed`] as a function, for `map_err`.
    pub(crate) fn on_err(
        &self,
        what: &'static str,
    ) -> impl FnOnce(postgres::Error) -> StoreError + '_ {
        move |e| self.failed(what, &e)
    }

    /// Up to `limit` pairs with `from <= key < to` (no upper bound when `to` is None),
    /// in key order.
    fn range(
        &self,
        from: &[u8],
        to: Option<&[u8]>,
        limit: usize,
    ) -> Result<Pairs, postgres::Error> {
        let rows_limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let straddling = packed::straddling(from);
        let mut c = self.client();
        let rows = match to {
            Some(to) => c.query(
                &self.scan_bounded,
                &[&self.minter, &from, &to, &rows_limit, &straddling],
            )?,
            None => c.query(
                &self.scan_open,
                &[&self.minter, &from, &rows_limit, &straddling],
            )?,
        };
        drop(c);
        let mut straddling_held = false;
        let mut page_rows = Vec::with_capacity(rows.len());
        for r in rows {
            let key: Vec<u8> = r.get(0);
            if key.as_slice() < from {
                straddling_held = true;
                continue;
            }
            page_rows.push((key, r.get::<_, Vec<u8>>(1), r.get::<_, bool>(2)));
        }
        let page = Page {
            from,
            to,
            limit,
            rows: page_rows,
            straddling_held,
        };
        Ok(page.keys())
    }

    /// Call `f` on each pair from the first key `>= start`, in key order, a page at a
    /// time, until it returns false.
    pub(crate) fn scan_from(
        &self,
        start: &[u8],
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        let mut from = start.to_vec();
        loop {
            let page = self
                .range(&from, None, PAGE as usize)
                .map_err(|e| self.failed("cannot read the keys", &e))?;
            let Some((last, _)) = page.last() else {
                return Ok(());
            };
            // The next page starts just after the last key: the key followed by a 0 byte.
            let mut next = last.clone();
            next.push(0);
            // A page shorter than asked for is the last ([`Page::keys`]).
            let full = page.len() as i64 == PAGE;
            for (k, v) in &page {
                if !f(k, v) {
                    return Ok(());
                }
            }
            if !full {
                return Ok(());
            }
            from = next;
        }
    }
}

/// The least byte string greater than every string that starts with `prefix`, or None
/// when there is none (empty, or all `0xff`).
fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let keep = prefix.iter().rposition(|&b| b != 0xff)?;
    let mut s = prefix[..=keep].to_vec();
    s[keep] += 1;
    Some(s)
}

impl noid_core::Lookup for Conn {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        let on_err = |e| LookupError::read(key, self.failed("read", &e));
        if let Some(circ) = packed::circ_of(key) {
            let row = self
                .client()
                .query_one(&self.get_hold, &[&self.minter, &key, &circ])
                .map_err(on_err)?;
            return Ok(row.get(0));
        }
        let row = self
            .client()
            .query_opt(&self.get, &[&self.minter, &key])
            .map_err(on_err)?;
        Ok(row.map(|r| r.get(0)))
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        self.range(prefix, successor(prefix).as_deref(), limit)
            .map_err(|e| LookupError::read(prefix, self.failed("read", &e)))
    }
}

#[cfg(test)]
mod tests {
    use super::successor;

    #[test]
    fn successors_bound_prefixes() {
        assert_eq!(successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(successor(b"a\xff\xff"), Some(b"b".to_vec()));
        assert_eq!(successor(b"\xff"), None);
        assert_eq!(successor(b""), None);
    }
}
