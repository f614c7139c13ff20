//! Opening a minter directory whichever engine holds its keys: the embedded RocksDB
//! store, or PostgreSQL when `NOID/backend` names a database. The one place that picks
//! the engine; the CLI and the binder API open minters here and work with [`Store`] and
//! [`Scan`] without knowing which engine they have. Built without the `postgres`
//! feature, a minter held by a database is refused ([`StoreError::Backend`]).

use std::path::Path;
use std::time::Duration;

use crate::pg::Location;
#[cfg(feature = "postgres")]
use crate::pg::{PgSnapshot, PgWriter};
use crate::{Layout, Scan, Snapshot, Store, StoreError, Writer};

/// The minter in `dbdir`, opened for writing (waiting up to `timeout` for the
/// writers' lock).
pub fn writer(dbdir: &Path, timeout: Duration) -> Result<Box<dyn Store>, StoreError> {
    Ok(match Location::read(&Layout::new(dbdir))? {
        Some(loc) => Box::new(pg_writer(dbdir, &loc, timeout)?),
        None => Box::new(Writer::open(dbdir, timeout)?),
    })
}

/// The minter in `dbdir`, opened for reading: one consistent view that does not block
/// writers.
pub fn reader(dbdir: &Path) -> Result<Box<dyn Scan>, StoreError> {
    Ok(match Location::read(&Layout::new(dbdir))? {
        Some(loc) => Box::new(pg_snapshot(dbdir, &loc)?),
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
    create_pg(dbdir, &layout, loc, timeout)
}

/// A new minter held by PostgreSQL at `loc`. The backend file first: it claims the
/// directory (created only if absent), and is taken back if the database refuses.
#[cfg(feature = "postgres")]
fn create_pg(
    _dbdir: &Path,
    layout: &Layout,
    loc: &Location,
    timeout: Duration,
) -> Result<Box<dyn Store>, StoreError> {
    loc.write(layout)?;
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

#[cfg(not(feature = "postgres"))]
fn create_pg(
    dbdir: &Path,
    _layout: &Layout,
    loc: &Location,
    _timeout: Duration,
) -> Result<Box<dyn Store>, StoreError> {
    Err(without_postgres(dbdir, loc))
}

#[cfg(feature = "postgres")]
fn pg_writer(_dbdir: &Path, loc: &Location, timeout: Duration) -> Result<PgWriter, StoreError> {
    PgWriter::open(loc, timeout)
}

#[cfg(feature = "postgres")]
fn pg_snapshot(_dbdir: &Path, loc: &Location) -> Result<PgSnapshot, StoreError> {
    PgSnapshot::open(loc)
}

#[cfg(not(feature = "postgres"))]
fn pg_writer(dbdir: &Path, loc: &Location, _timeout: Duration) -> Result<Writer, StoreError> {
    Err(without_postgres(dbdir, loc))
}

#[cfg(not(feature = "postgres"))]
fn pg_snapshot(dbdir: &Path, loc: &Location) -> Result<Snapshot, StoreError> {
    Err(without_postgres(dbdir, loc))
}

/// The refusal of a minter held by a database in a build without PostgreSQL.
#[cfg(not(feature = "postgres"))]
fn without_postgres(dbdir: &Path, loc: &Location) -> StoreError {
    StoreError::Backend(format!(
        "the minter in {} is held by PostgreSQL ({}), and this build has no PostgreSQL support (noid-store's feature \"postgres\")",
        dbdir.display(),
        loc.display_url()
    ))
}

#[cfg(all(test, not(feature = "postgres")))]
mod tests {
    use super::*;

    /// A build without PostgreSQL refuses a minter whose `NOID/backend` names a
    /// database, in every way in, and leaves its files as they were.
    #[test]
    fn database_minter_refused_without_postgres() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir_all(&layout.noid_dir).unwrap();
        let file = "backend: postgres://noid:pw@db.example.org/noid\nminter: fk4\n";
        std::fs::write(&layout.backend, file).unwrap();
        let want = format!(
            "the minter in {} is held by PostgreSQL (postgres://noid:***@db.example.org/noid), \
             and this build has no PostgreSQL support (noid-store's feature \"postgres\")",
            dir.path().display()
        );
        let timeout = Duration::from_millis(10);
        assert_eq!(writer(dir.path(), timeout).err().unwrap().to_string(), want);
        assert_eq!(reader(dir.path()).err().unwrap().to_string(), want);
        let fresh = dir.path().join("new");
        let loc = Location::new("postgres://noid:pw@db.example.org/noid", "fk4").unwrap();
        let refused = create(&fresh, Some(&loc), timeout)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            refused,
            want.replace(
                &dir.path().display().to_string(),
                &fresh.display().to_string()
            )
        );
        assert!(!fresh.exists(), "nothing is created");
        assert_eq!(std::fs::read_to_string(&layout.backend).unwrap(), file);
    }
}
