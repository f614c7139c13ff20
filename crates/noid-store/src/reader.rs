//! The resolver's long-lived view of a minter: a RocksDB secondary that follows the
//! writers cheaply and survives the store being replaced.

use std::path::{Path, PathBuf};

use rocksdb::{Direction, IteratorMode, ReadOptions, DB};

use crate::cursor::Cursors;
use crate::error::{io, StoreError};
use crate::generation::{self, Watcher};
use crate::layout::Layout;
use crate::options::reader_options;

/// A follower of one minter's database. Never takes the writers' lock.
pub struct Reader {
    /// Declared before `db`: fields drop in order, and the cursors' iterators must go
    /// before the database they read.
    cursors: Cursors,
    db: DB,
    watcher: Watcher,
    layout: Layout,
    secondary_dir: PathBuf,
    owns_secondary_dir: bool,
    /// The generation this view has caught up with.
    seen: u64,
    cache_bytes: usize,
    /// Long-lived: index and filter blocks stay pinned (see `options`).
    long_lived: bool,
    /// The writers' lock file (`NOID/lock`), held shared during a catch-up.
    lock: Option<std::fs::File>,
    /// Made once: `get_pinned` would create and destroy a C++ `ReadOptions` per lookup.
    read: ReadOptions,
}

impl Reader {
    /// Open the minter in `dbdir` as a secondary. RocksDB needs a writable directory of
    /// its own for a secondary's info log: `secondary_dir`, or a fresh one under the
    /// system temporary directory (removed on drop).
    pub fn open(
        dbdir: &Path,
        secondary_dir: Option<&Path>,
        cache_bytes: usize,
    ) -> Result<Reader, StoreError> {
        Reader::open_for(dbdir, secondary_dir, cache_bytes, true)
    }

    /// [`Reader::open`] for a long-lived reader (pinning index and filter blocks as
    /// they are read) or a short-lived one (a [`crate::Snapshot`], which would pay for
    /// reading every table's at open to answer one request).
    pub(crate) fn open_for(
        dbdir: &Path,
        secondary_dir: Option<&Path>,
        cache_bytes: usize,
        long_lived: bool,
    ) -> Result<Reader, StoreError> {
        let layout = Layout::new(dbdir);
        if !layout.exists() {
            return Err(StoreError::NoDatabase(layout.db.clone()));
        }
        let (secondary_dir, owns_secondary_dir) = match secondary_dir {
            Some(d) => (d.to_path_buf(), false),
            None => (temp_secondary_dir(), true),
        };
        std::fs::create_dir_all(&secondary_dir).map_err(io(&secondary_dir))?;
        let watcher = Watcher::open(&layout.generation)?;
        let db = DB::open_as_secondary(
            &reader_options(cache_bytes, long_lived),
            &layout.db,
            &secondary_dir,
        )?;
        let lock = std::fs::File::open(&layout.lock).ok();
        Ok(Reader {
            cursors: Cursors::default(),
            db,
            seen: watcher.current(),
            watcher,
            layout,
            secondary_dir,
            owns_secondary_dir,
            cache_bytes,
            long_lived,
            lock,
            read: ReadOptions::default(),
        })
    }

    /// Catch up with the writers if, and only if, one committed since the last call and
    /// none is at work now. Costs nanoseconds when nothing changed. Returns whether it
    /// caught up. A store that must be opened anew ([`Reader::replaced`]) is reopened.
    ///
    /// A RocksDB secondary that catches up while a writer is flushing or closing can
    /// lose that write for good, so this tries the writers' lock *shared* (never
    /// waiting): while a writer holds it, nothing is done and the next call tries again.
    /// A write whose command has returned is therefore always seen by the next call.
    pub fn refresh_if_changed(&mut self) -> Result<bool, StoreError> {
        let now = self.watcher.current();
        if now == self.seen {
            return Ok(false);
        }
        if self.replaced() {
            self.reopen()?;
            return Ok(true);
        }
        if !self.try_catch_up()? {
            return Ok(false);
        }
        self.seen = now;
        Ok(true)
    }

    /// Catch up with the writers, unless one is at work right now (then `Ok(false)`).
    ///
    /// Why the writers' lock is consulted: a RocksDB secondary that catches up while the
    /// primary is flushing or closing can lose track of that write for good (seen with
    /// writers that flush on close: every later catch-up still showed the previous
    /// value). So a catch-up runs only while no writer holds `NOID/lock`, holding it
    /// *shared* for the millisecond it takes; a writer that arrives meanwhile waits that
    /// long. A reader never waits for the lock itself.
    pub fn try_catch_up(&self) -> Result<bool, StoreError> {
        let quiet = match &self.lock {
            Some(f) => match f.try_lock_shared() {
                Ok(()) => Some(f),
                Err(std::fs::TryLockError::WouldBlock) => return Ok(false),
                Err(std::fs::TryLockError::Error(e)) => {
                    log::debug!("cannot lock the writers' lock: {e}");
                    None
                }
            },
            None => None,
        };
        let result = self.db.try_catch_up_with_primary();
        if let Some(f) = quiet {
            let _ = f.unlock();
        }
        result?;
        self.cursors.drop_stale(&self.db);
        Ok(true)
    }

    /// The sequence number of the newest write this view has: a catch-up that leaves it
    /// unchanged brought nothing new (a writer's compaction moves files, not values).
    pub fn latest_sequence(&self) -> u64 {
        self.db.latest_sequence_number()
    }

    /// Whether the minter on disk must be opened anew: removed and created anew, or
    /// restored (RocksDB's own catch-up silently shows nothing then), or a writer
    /// ingested a table file (catching up would misread it; see `generation`).
    pub fn replaced(&self) -> bool {
        generation::store_id_on_disk(&self.layout.generation) != Some(self.watcher.store_id())
    }

    /// Close and open again (SIGHUP, or after [`Reader::replaced`]).
    pub fn reopen(&mut self) -> Result<(), StoreError> {
        let dbdir = self
            .layout
            .noid_dir
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let layout = Layout::new(&dbdir);
        if !layout.exists() {
            return Err(StoreError::NoDatabase(layout.db.clone()));
        }
        let watcher = Watcher::open(&layout.generation)?;
        let db = DB::open_as_secondary(
            &reader_options(self.cache_bytes, self.long_lived),
            &layout.db,
            &self.secondary_dir,
        )?;
        self.cursors.clear();
        self.db = db;
        self.seen = watcher.current();
        self.watcher = watcher;
        // A re-created minter has a new lock file; the old handle would lock nothing.
        self.lock = std::fs::File::open(&layout.lock).ok();
        Ok(())
    }

    /// The value under `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.db.get_pinned_opt(key, &self.read)?.map(|v| v.to_vec()))
    }

    /// Whether `key` holds a value, without copying it.
    pub fn contains(&self, key: &[u8]) -> Result<bool, StoreError> {
        Ok(self.db.get_pinned_opt(key, &self.read)?.is_some())
    }

    /// Every (key, value) with `first <= key <= last`, in key order, when there are at
    /// most `limit` and one seek costs less than looking them up one by one: only a
    /// long-lived reader, on a store whose recent writes have been merged (see
    /// `cursor`), answers; otherwise `None`.
    pub fn range(
        &self,
        first: &[u8],
        last: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<(Vec<u8>, Vec<u8>)>>, StoreError> {
        if !self.long_lived {
            return Ok(None);
        }
        // SAFETY: always this reader's database; `cursors` is declared before `db` (so
        // dropped first) and cleared before `reopen` replaces it.
        Ok(unsafe { self.cursors.range(&self.db, first, last, limit) }?)
    }

    /// Call `f` on each (key, value) from the first key `>= start`, until it returns false.
    pub fn scan_from(
        &self,
        start: &[u8],
        f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        scan_from(&self.db, start, f)
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if self.owns_secondary_dir {
            let _ = std::fs::remove_dir_all(&self.secondary_dir);
        }
    }
}

impl noid_resolve::Lookup for Reader {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, noid_resolve::LookupError> {
        Reader::get(self, key).map_err(|e| noid_resolve::LookupError::read(key, e))
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, noid_resolve::LookupError> {
        scan_prefix(&self.db, prefix, limit).map_err(|e| noid_resolve::LookupError::read(prefix, e))
    }

    fn range(
        &self,
        first: &[u8],
        last: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<(Vec<u8>, Vec<u8>)>>, noid_resolve::LookupError> {
        Reader::range(self, first, last, limit)
            .map_err(|e| noid_resolve::LookupError::read(first, e))
    }
}

pub(crate) fn scan_from(
    db: &DB,
    start: &[u8],
    mut f: impl FnMut(&[u8], &[u8]) -> bool,
) -> Result<(), StoreError> {
    for item in db.iterator(IteratorMode::From(start, Direction::Forward)) {
        let (k, v) = item?;
        if !f(&k, &v) {
            break;
        }
    }
    Ok(())
}

pub(crate) fn scan_prefix(
    db: &DB,
    prefix: &[u8],
    limit: usize,
) -> Result<Vec<(Vec<u8>, Vec<u8>)>, StoreError> {
    let mut out = Vec::new();
    if limit == 0 {
        return Ok(out);
    }
    scan_from(db, prefix, |k, v| {
        if !k.starts_with(prefix) {
            return false;
        }
        out.push((k.to_vec(), v.to_vec()));
        out.len() < limit
    })?;
    Ok(out)
}

pub(crate) fn temp_secondary_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("noid-secondary-{}-{nanos}", std::process::id()))
}
