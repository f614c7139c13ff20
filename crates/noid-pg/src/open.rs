//! Opening a minter directory whichever engine holds its keys: the embedded RocksDB
//! store (noid-store), or PostgreSQL when `NOID/backend` names a database. The one
//! place that picks the engine; the CLI and the binder API open minters here and work
//! with noid-store's [`Store`] and [`Scan`] without knowing which engine they have.

use std::path::Path;
use std::time::Duration;

use noid_store::{Layout, Scan, Snapshot, Store, StoreError, Writer};

use crate::{Location, PgSnapshot, PgWriter};

/// The minter in `dbdir`, opened for writing (waiting up to `timeout` for the
/// writers' lock).
pub fn writer(dbdir: &Path, timeout: Duration) -> Result<Box<dyn Store>, StoreError> {
    Ok(match Location::read(&Layout::new(dbdir))? {
        Some(loc) => Box::new(PgWriter::open(&loc, timeout)?),
        None => Box::new(Writer::open(dbdir, timeout)?),
    })
}

/// The minter in `dbdir`, opened for reading: one consistent view that does not block
/// writers.
pub fn reader(dbdir: &Path) -> Result<Box<dyn Scan>, StoreError> {
    Ok(match Location::read(&Layout::new(dbdir))? {
        Some(loc) => Box::new(PgSnapshot::open(&loc)?),
        None => Box::new(Snapshot::open(dbdir)?),
    })
}

/// Create a minter in `dbdir`, embedded or (`backend`) on PostgreSQL, and open it for
/// writing.
pub fn create(
    dbdir: &Path,
    backend: Option<&Location>,
    timeout: Duration,
) -> Result<Box<dyn Store>, StoreError> {
    let Some(loc) = backend else {
        return Ok(Box::new(Writer::create(dbdir, timeout)?));
    };
    let layout = Layout::new(dbdir);
    if layout.has_minter() {
        return Err(StoreError::AlreadyExists(dbdir.to_path_buf()));
    }
    // The file first: it claims the directory (created only if absent), and is taken
    // back if the database refuses.
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
