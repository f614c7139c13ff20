//! Opening a minter directory whichever engine holds its keys: the embedded RocksDB
//! store, or PostgreSQL when `NOID/backend` names a database. The one place that picks
//! the engine; the CLI and the binder API open minters here and work with [`Store`] and
//! [`Scan`] without knowing which engine they have. Built without the `postgres`
//! feature, a minter held by a database is refused ([`pg::without_postgres`]); the
//! feature is read in the `pg` module only, not here.

use std::path::Path;
use std::time::Duration;

use crate::pg::{self, Location};
use crate::{Layout, Scan, Snapshot, Store, StoreError, Writer};

/// The minter in `dbdir`, opened for writing (waiting up to `timeout` for the
/// writers' lock).
pub fn writer(dbdir: &Path, timeout: Duration) -> Result<Box<dyn Store>, StoreError> {
    match Location::read(&Layout::new(dbdir))? {
        Some(loc) => pg::open_writer(dbdir, &loc, timeout),
        None => Ok(Box::new(Writer::open(dbdir, timeout)?)),
    }
}

/// The minter in `dbdir`, opened for reading: one consistent view that does not block
/// writers.
pub fn reader(dbdir: &Path) -> Result<Box<dyn Scan>, StoreError> {
    match Location::read(&Layout::new(dbdir))? {
        Some(loc) => pg::open_reader(dbdir, &loc),
        None => Ok(Box::new(Snapshot::open(dbdir)?)),
    }
}

/// [`reader`] for a few lookups (`noid get`, `fetch`): an embedded store's tables are
/// opened as the lookups need them ([`Snapshot::open_for_lookups`]), not all at once.
pub fn lookup_reader(dbdir: &Path) -> Result<Box<dyn Scan>, StoreError> {
    match Location::read(&Layout::new(dbdir))? {
        Some(loc) => pg::open_reader(dbdir, &loc),
        None => Ok(Box::new(Snapshot::open_for_lookups(dbdir)?)),
    }
}

/// [`reader`], opened between writers (waiting up to `wait` for one at work): sure to
/// show every write acknowledged before it, even one still being flushed (RocksDB's
/// [`Snapshot::open_between_writers`]; a PostgreSQL transaction always is).
pub fn reader_between_writers(dbdir: &Path, wait: Duration) -> Result<Box<dyn Scan>, StoreError> {
    match Location::read(&Layout::new(dbdir))? {
        Some(loc) => pg::open_reader(dbdir, &loc),
        None => Ok(Box::new(Snapshot::open_between_writers(dbdir, wait)?)),
    }
}

/// The link checker's lease on the store in `dbdir`: held by one process at a time,
/// whatever the number of hosts (a lock on `NOID/links.lease` for RocksDB, which one
/// host holds; a session advisory lock for PostgreSQL, shared by every host that
/// names the database). `None` while another holds it. Let go when dropped (or, on
/// PostgreSQL, when the connection drops: [`Lease::held`] tells).
pub fn lease(dbdir: &Path) -> Result<Option<Lease>, StoreError> {
    let layout = Layout::new(dbdir);
    match Location::read(&layout)? {
        Some(loc) => Ok(pg::lease(dbdir, &loc)?.map(|held| Lease { held })),
        None => {
            let path = layout.noid_dir.join("links.lease");
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|e| StoreError::Backend(format!("{}: {e}", path.display())))?;
            match file.try_lock() {
                Ok(()) => Ok(Some(Lease {
                    held: Box::new(FileLease { _locked: file }),
                })),
                Err(std::fs::TryLockError::WouldBlock) => Ok(None),
                Err(std::fs::TryLockError::Error(e)) => {
                    Err(StoreError::Backend(format!("{}: {e}", path.display())))
                }
            }
        }
    }
}

/// A lease [`lease`] took, held until dropped.
pub struct Lease {
    held: Box<dyn Held>,
}

impl Lease {
    /// Whether it is still held (a PostgreSQL connection that dropped let it go).
    pub fn held(&mut self) -> bool {
        self.held.held()
    }
}

/// What holds a lease: a locked file, or a database session.
pub(crate) trait Held: Send {
    /// Whether it still holds it.
    fn held(&mut self) -> bool;
}

/// A lease held as a lock on a file (released when the file closes).
struct FileLease {
    _locked: std::fs::File,
}

impl Held for FileLease {
    fn held(&mut self) -> bool {
        true
    }
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
    if Layout::new(dbdir).has_minter() {
        return Err(StoreError::AlreadyExists(dbdir.to_path_buf()));
    }
    pg::create(dbdir, loc, timeout)
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
             and this build has no PostgreSQL support \
             (built without the cargo feature \"postgres\")",
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
