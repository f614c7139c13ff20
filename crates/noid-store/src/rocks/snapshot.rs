//! Read-only access for short-lived commands (`fetch`, `get`, `dbinfo`, `validate`).
//!
//! RocksDB's own read-only mode has undefined behaviour while a primary is open, and a
//! shared `flock` would make writers wait for readers. A secondary opened in a
//! throw-away directory does neither, and opens quickly: it reads no table's index
//! or filter until a lookup needs it.

use std::path::Path;
use std::time::Duration;

use crate::error::StoreError;
use crate::layout::Layout;
use crate::rocks::secondary::{gate, lock_shared_within, Secondary, SecondaryDir};

/// A read-only view of a minter that does not block writers.
pub struct Snapshot {
    secondary: Secondary,
}

impl Snapshot {
    /// Open the minter in `dbdir` for reading.
    pub fn open(dbdir: &Path) -> Result<Snapshot, StoreError> {
        Ok(Snapshot {
            secondary: Secondary::open_in(dbdir, SecondaryDir::temporary(), 8 << 20, false)?,
        })
    }

    /// Open the minter in `dbdir` for reading between writers: with the writers' gate
    /// (`NOID/busy`) held shared while it opens, waiting up to `wait` for a writer at
    /// work, so that no commit or flush is under way as it reads the store's files.
    /// [`Snapshot::open`] does not wait, and can then miss a write another process
    /// acknowledged and is still flushing; a reader that answers for writes it must see
    /// (`noid serve`'s and the CGI's reads) opens this way.
    pub fn open_between_writers(dbdir: &Path, wait: Duration) -> Result<Snapshot, StoreError> {
        let layout = Layout::new(dbdir);
        let gate = gate(&layout);
        if let Some(f) = &gate {
            if !lock_shared_within(f, wait) {
                return Err(StoreError::LockTimeout {
                    path: layout.busy.clone(),
                    seconds: wait.as_secs(),
                });
            }
        }
        let opened = Snapshot::open(dbdir);
        if let Some(f) = &gate {
            let _ = f.unlock();
        }
        opened
    }

    /// The value under `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.secondary.get(key)
    }

    /// Call `f` on each (key, value) from the first key `>= start`, until it returns false.
    pub fn scan_from(
        &self,
        start: &[u8],
        f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        self.secondary.scan_from(start, f)
    }
}

impl noid_core::Lookup for Snapshot {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, noid_core::LookupError> {
        self.secondary
            .get(key)
            .map_err(|e| noid_core::LookupError::read(key, e))
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, noid_core::LookupError> {
        self.secondary
            .scan_prefix(prefix, limit)
            .map_err(|e| noid_core::LookupError::read(prefix, e))
    }
}
