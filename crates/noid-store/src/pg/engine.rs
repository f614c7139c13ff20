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
