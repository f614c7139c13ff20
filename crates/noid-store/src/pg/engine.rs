//! How [`crate::open`] opens and creates a minter held by PostgreSQL. Built with the
//! `postgres` feature; a build without it has `absent.rs` in its place, with the same
//! functions refusing such a minter ([`super::without_postgres`]).

use std::path::Path;
use std::time::Duration;

use super::{Location, PgSnapshot, PgWriter};
use crate::{Layout, Scan, Store, StoreError};

/// The minter at `loc`, opened for writing.
pub(crate) fn open_writer(
    _dbdir: &Path,
    loc: &Location,
    timeout: Duration,
) -> Result<Box<dyn Store>, StoreError> {
    Ok(Box::new(PgWriter::open(loc, timeout)?))
}

/// The minter at `loc`, opened for reading.
pub(crate) fn open_reader(_dbdir: &Path, loc: &Location) -> Result<Box<dyn Scan>, StoreError> {
    Ok(Box::new(PgSnapshot::open(loc)?))
}

/// A new minter held by PostgreSQL at `loc`. The backend file first: it claims the
/// directory (created only if absent), and is taken back if the database refuses.
pub(crate) fn create(
    dbdir: &Path,
    loc: &Location,
    timeout: Duration,
) -> Result<Box<dyn Store>, StoreError> {
    let layout = Layout::new(dbdir);
    loc.write(&layout)?;
    match PgWriter::create(loc, timeout) {
        Ok(w) => Ok(Box::new(w)),
        Err(e) => {
            let _ = std::fs::remove_file(&layout.backend);
            // Only when empty: a NOID directory that held anything else stays.
            let _ = std::fs::remove_dir(&layout.noid_dir);
            Err(e)
        }
    }
}

/// The second half's class of the link checker's lease (`'noiL'`): one per minter,
/// its first half the minter's id, apart from the writers' lock ([`super::schema::LOCK_CLASS`]).
const LEASE_CLASS: i32 = 0x6e6f_694c;

/// The link checker's lease on the minter at `loc`: a session advisory lock taken
/// without waiting on a connection of its own, held while the connection lives.
pub(crate) fn lease(
    _dbdir: &Path,
    loc: &Location,
) -> Result<Option<Box<dyn crate::open::Held>>, StoreError> {
    let mut client = super::conn::connect(loc)?;
    let id = super::conn::minter_id(&mut client, loc, super::conn::Rows::Ignore)?;
    let key = i32::try_from(id).map_err(|_| {
        StoreError::Backend(format!("minter id {id} does not fit an advisory lock"))
    })?;
    let taken: bool = client
        .query_one("SELECT pg_try_advisory_lock($1, $2)", &[&LEASE_CLASS, &key])
        .map_err(|e| super::conn::failed(loc, "cannot take the link checker's lease", &e))?
        .get(0);
    Ok(taken.then(|| Box::new(SessionLease(Some(client))) as Box<dyn crate::open::Held>))
}

/// A lease held by a database session.
struct SessionLease(Option<postgres::Client>);

impl crate::open::Held for SessionLease {
    fn held(&mut self) -> bool {
        self.0
            .as_mut()
            .is_some_and(|c| c.simple_query("SELECT 1").is_ok())
    }
}

/// The session ends on a thread of its own: closing a `postgres::Client` blocks on
/// its own runtime, which panics on an async runtime's thread (`noid serve` drops its
/// schedules' leases there when it stops).
impl Drop for SessionLease {
    fn drop(&mut self) {
        if let Some(client) = self.0.take() {
            let _ = std::thread::Builder::new()
                .name("noid-lease-end".into())
                .spawn(move || drop(client));
        }
    }
}
