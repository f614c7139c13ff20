//! The single writer: an exclusive lock, a primary RocksDB instance, atomic batches.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::time::{Duration, Instant};

use rocksdb::{Direction, IteratorMode, WriteBatch, WriteOptions, DB};

use crate::error::{io, StoreError};
use crate::generation::{self, Bumper};
use crate::layout::Layout;
use crate::options::writer_options;

/// One change in a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Set `key` to `value`.
    Put(Vec<u8>, Vec<u8>),
    /// Remove `key`.
    Delete(Vec<u8>),
}

/// An open minter, held exclusively by this process until dropped.
///
/// Field order matters: the database must close before the lock is released.
pub struct Writer {
    db: DB,
    /// Whether anything was committed (then the memtable is flushed on drop).
    wrote: std::cell::Cell<bool>,
    bumper: Bumper,
    layout: Layout,
    _lock: File,
}

/// The writer's block cache: only a limit, allocated as used; a small one makes every
/// candidate probe of a large minter re-read filter blocks.
const WRITER_CACHE: usize = 64 << 20;

impl Writer {
    /// Open the existing minter in `dbdir`, waiting up to `timeout` for other writers.
    pub fn open(dbdir: &Path, timeout: Duration) -> Result<Writer, StoreError> {
        let layout = Layout::new(dbdir);
        if !layout.exists() {
            return Err(StoreError::NoDatabase(layout.db.clone()));
        }
        let lock = take_lock(&layout, timeout)?;
        let db = DB::open(&writer_options(WRITER_CACHE), &layout.db)?;
        Writer::assemble(db, layout, lock)
    }

    /// Create a new, empty minter database in `dbdir` (the `NOID` directory may exist,
    /// the database may not).
    pub fn create(dbdir: &Path, timeout: Duration) -> Result<Writer, StoreError> {
        let layout = Layout::new(dbdir);
        std::fs::create_dir_all(&layout.noid_dir).map_err(io(&layout.noid_dir))?;
        let lock = take_lock(&layout, timeout)?;
        if layout.exists() {
            return Err(StoreError::AlreadyExists(dbdir.to_path_buf()));
        }
        let mut opts = writer_options(WRITER_CACHE);
        opts.create_if_missing(true);
        opts.set_error_if_exists(true);
        let db = DB::open(&opts, &layout.db)?;
        generation::create(&layout.generation)?;
        Writer::assemble(db, layout, lock)
    }

    fn assemble(db: DB, layout: Layout, lock: File) -> Result<Writer, StoreError> {
        let bumper = Bumper::open(&layout.generation)?;
        Ok(Writer {
            db,
            wrote: std::cell::Cell::new(false),
            bumper,
            layout,
            _lock: lock,
        })
    }

    /// The minter's paths.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The value stored under `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.db.get(key)?)
    }

    /// Call `f` on each (key, value) from the first key `>= start` onwards, in bytewise
    /// order, until it returns false.
    pub fn scan_from(
        &self,
        start: &[u8],
        mut f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        for item in self
            .db
            .iterator(IteratorMode::From(start, Direction::Forward))
        {
            let (k, v) = item?;
            if !f(&k, &v) {
                break;
            }
        }
        Ok(())
    }

    /// Apply `ops` as one atomic batch, synced to disk before returning, then tell
    /// readers. Nothing is applied if the batch fails.
    pub fn commit(&self, ops: impl IntoIterator<Item = Op>) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        for op in ops {
            match op {
                Op::Put(k, v) => batch.put(k, v),
                Op::Delete(k) => batch.delete(k),
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(true);
        self.db.write_opt(batch, &wo)?;
        self.wrote.set(true);
        self.bumper.bump();
        Ok(())
    }

    /// Compact the whole key space (after bulk loads).
    pub fn compact(&self) {
        self.db.compact_range::<&[u8], &[u8]>(None, None);
    }
}

impl Drop for Writer {
    /// Flush the memtable so the write-ahead log is empty when the next process opens
    /// the store: a reader's secondary instance would otherwise replay the whole log at
    /// every open (80 ms after a 200,000-id bulk load instead of 2 ms).
    fn drop(&mut self) {
        if self.wrote.get() {
            if let Err(e) = self.db.flush() {
                log::warn!("flushing {} on close: {e}", self.layout.db.display());
            }
        }
    }
}

impl noid_resolve::Lookup for Writer {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, noid_resolve::LookupError> {
        Ok(Writer::get(self, key)?)
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, noid_resolve::LookupError> {
        Ok(crate::reader::scan_prefix(&self.db, prefix, limit)?)
    }
}

/// Wait for the writers' lock, polling so that the wait can time out with a message.
fn take_lock(layout: &Layout, timeout: Duration) -> Result<File, StoreError> {
    let path = &layout.lock;
    let f = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(io(path))?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match fs2::FileExt::try_lock_exclusive(&f) {
            Ok(()) => return Ok(f),
            Err(e) if e.raw_os_error() == fs2::lock_contended_error().raw_os_error() => {
                if start.elapsed() >= timeout {
                    return Err(StoreError::LockTimeout {
                        path: path.clone(),
                        seconds: timeout.as_secs(),
                    });
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(e) => {
                return Err(StoreError::Io {
                    path: path.clone(),
                    source: e,
                })
            }
        }
    }
}
