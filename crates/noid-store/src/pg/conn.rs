//! One connection to the minter's database, and the reads of its key space that
//! writers and snapshots share: the [`noid_core::Lookup`] over `noid_keys`.

use std::sync::{Mutex, MutexGuard};

use crate::StoreError;
use noid_core::{LookupError, Pairs};
use postgres::{Client, NoTls, Statement};

use crate::pg::location::Location;
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
    scan_bounded: Statement,
    scan_open: Statement,
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

/// Connect to `loc`'s database, with PostgreSQL's JIT compilation off for the session.
///
/// noid's statements read and write a few index entries per key, and JIT never makes
/// them faster; but the planner's estimate for a bulk run's statements (thousands of
/// array elements) passes `jit_above_cost`, and compiling them took a seventh to a
/// third of the server's CPU in a `noid -` load of bindings (docs/SCALING.md, "Benchmarks", (d)).
/// A statement rather than a startup option, which connection poolers may refuse.
pub(crate) fn connect(loc: &Location) -> Result<Client, StoreError> {
    let mut client =
        Client::connect(&loc.url, NoTls).map_err(|e| failed(loc, "cannot connect", &e))?;
    client
        .batch_execute("SET jit = off")
        .map_err(|e| failed(loc, "cannot set up the session", &e))?;
    Ok(client)
}

/// The id of `loc`'s minter, or an error saying that there is none.
pub(crate) fn minter_id(client: &mut Client, loc: &Location) -> Result<i64, StoreError> {
    let row = client
        .query_opt(
            &format!(
                "SELECT id, {} FROM noid_minters WHERE name = $1",
                schema::LOG_IS_CURRENT
            ),
            &[&loc.minter],
        )
        .map_err(|e| failed(loc, "cannot find the minter (was it created?)", &e))?;
    match row {
        Some(r) if !r.get::<_, bool>(1) => Err(StoreError::Backend(format!(
            "PostgreSQL at {}: {}",
            loc.display_url(),
            schema::OLD_LOG
        ))),
        Some(r) => Ok(r.get(0)),
        None => Err(StoreError::Backend(format!(
            "PostgreSQL at {}: no minter named {} -- use dbcreate --backend?",
            loc.display_url(),
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
            "SELECT value FROM noid_keys WHERE minter = $1 AND key = $2",
        )?;
        let scan_bounded = prepare(
            &mut client,
            "SELECT key, value FROM noid_keys WHERE minter = $1 AND key >= $2 AND key < $3 \
             ORDER BY key LIMIT $4",
        )?;
        let scan_open = prepare(
            &mut client,
            "SELECT key, value FROM noid_keys WHERE minter = $1 AND key >= $2 \
             ORDER BY key LIMIT $3",
        )?;
        Ok(Conn {
            client: Mutex::new(client),
            minter,
            location,
            get,
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
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut c = self.client();
        let rows = match to {
            Some(to) => c.query(&self.scan_bounded, &[&self.minter, &from, &to, &limit])?,
            None => c.query(&self.scan_open, &[&self.minter, &from, &limit])?,
        };
        Ok(rows
            .into_iter()
            .map(|r| (r.get::<_, Vec<u8>>(0), r.get::<_, Vec<u8>>(1)))
            .collect())
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
        let row = self
            .client()
            .query_opt(&self.get, &[&self.minter, &key])
            .map_err(|e| LookupError::read(key, self.failed("read", &e)))?;
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
