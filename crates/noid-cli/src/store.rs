//! The minter's storage, chosen in this one place from its Dbdir: the embedded RocksDB
//! store (noid-store), or a PostgreSQL database when `NOID/backend` names one (noid-pg,
//! docs/SCALING.md). Every command works with the [`Store`] or [`Scan`] it gets here
//! and does not know which engine it has.

use noid_pg::{Location, PgSnapshot, PgWriter};
use noid_store::{Layout, Scan, Snapshot, Store, StoreError, Writer};

use crate::session::Session;

/// The session's minter, opened for writing (waiting for the writers' lock).
pub fn open_writer(session: &Session) -> Result<Box<dyn Store>, StoreError> {
    Ok(match location(session)? {
        Some(loc) => Box::new(PgWriter::open(&loc, session.lock_timeout)?),
        None => Box::new(Writer::open(&session.dbdir, session.lock_timeout)?),
    })
}

/// The session's minter, opened for reading: one consistent view that does not block
/// writers.
pub fn open_reader(session: &Session) -> Result<Box<dyn Scan>, StoreError> {
    Ok(match location(session)? {
        Some(loc) => Box::new(PgSnapshot::open(&loc)?),
        None => Box::new(Snapshot::open(&session.dbdir)?),
    })
}

/// Create the session's minter, embedded or (`backend`) on PostgreSQL, and open it for
/// writing.
pub fn create(session: &Session, backend: Option<&Location>) -> Result<Box<dyn Store>, StoreError> {
    match backend {
        None => Ok(Box::new(Writer::create(
            &session.dbdir,
            session.lock_timeout,
        )?)),
        Some(loc) => {
            let layout = Layout::new(&session.dbdir);
            if layout.has_minter() {
                return Err(StoreError::AlreadyExists(session.dbdir.clone()));
            }
            // The file first: it claims the directory (created only if absent), and
            // is taken back if the database refuses.
            loc.write(&layout)?;
            PgWriter::create(loc, session.lock_timeout)
                .map(|w| Box::new(w) as Box<dyn Store>)
                .inspect_err(|_| {
                    let _ = std::fs::remove_file(&layout.backend);
                })
        }
    }
}

/// Where the session's minter lives, when that is PostgreSQL.
fn location(session: &Session) -> Result<Option<Location>, StoreError> {
    Location::read(&Layout::new(&session.dbdir))
}
