//! The invocation's minter, opened through noid-store's `pg` `open`, the one place that picks the
//! engine from the Dbdir (the embedded RocksDB store, or PostgreSQL when `NOID/backend`
//! names a database; docs/SCALING.md). Every command works with the [`Store`] or
//! [`Scan`] it gets here and does not know which engine it has.

use noid_store::pg::Location;
use noid_store::{Scan, Store, StoreError};

use crate::invocation::Invocation;

/// The session's minter, opened for writing (waiting for the writers' lock).
pub fn open_writer(session: &Invocation) -> Result<Box<dyn Store>, StoreError> {
    noid_store::open::writer(&session.dbdir, session.lock_timeout)
}

/// The session's minter, opened for reading: one consistent view that does not block
/// writers.
pub fn open_reader(session: &Invocation) -> Result<Box<dyn Scan>, StoreError> {
    noid_store::open::reader(&session.dbdir)
}

/// The session's minter, opened for a few lookups (`get` and `fetch` look up one
/// identifier's keys): an embedded store's tables are opened as the lookups need them
/// (noid-store's `open::lookup_reader`).
pub fn open_lookup_reader(session: &Invocation) -> Result<Box<dyn Scan>, StoreError> {
    noid_store::open::lookup_reader(&session.dbdir)
}

/// Create the session's minter, embedded or (`backend`) on PostgreSQL, and open it for
/// writing.
pub fn create(
    session: &Invocation,
    backend: Option<&Location>,
) -> Result<Box<dyn Store>, StoreError> {
    noid_store::open::create(&session.dbdir, backend, session.lock_timeout)
}
