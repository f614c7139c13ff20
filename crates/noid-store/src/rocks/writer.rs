//! The single writer: an exclusive lock, a primary RocksDB instance, atomic batches.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::time::{Duration, Instant};

use rocksdb::{IngestExternalFileOptions, Options, SstFileWriter, WriteBatch, WriteOptions, DB};

use crate::error::{io, StoreError};
use crate::layout::Layout;
use crate::rocks::generation::{self, Bumper};
use crate::rocks::options::{table_index_options, tables_bytes, writer_options, TableLayout};
use crate::Op;
use crate::TableIndex;

mod load;
pub use load::SortedLoad;

/// Batches of at least this many changes skip the write-ahead log and the memtable:
/// they are written as one sorted table file and ingested (see [`Writer::commit`]).
const INGEST_MIN: usize = 10_000;

/// An open minter, held exclusively by this process until dropped.
///
/// Field order matters: the database must close before the lock is released.
pub struct Writer {
    db: DB,
    /// The options `db` was opened with; table files built for ingestion use them too.
    opts: Options,
    /// Whether anything was committed (then the memtable is flushed on drop).
    wrote: std::sync::atomic::AtomicBool,
    bumper: Bumper,
    layout: Layout,
    /// `NOID/busy`, held exclusively unless [`Writer::pause`]d.
    busy: File,
    /// Whether `busy` is released ([`Writer::pause`]); the next commit takes it again.
    paused: std::sync::atomic::AtomicBool,
    /// How long to wait for readers to let go of `busy`.
    timeout: Duration,
    _lock: File,
}

/// The writer's block cache: only a limit, allocated as used; a small one makes every
/// candidate probe of a large minter re-read filter blocks.
///
/// Every probe of a write (a mint's candidates, a bind's old value) consults the filter
/// and the index of one table per level and of each level-0 table, so a bulk load or a
/// large mint keeps every table's filter and index in use: about 1.3 bytes per key, 70
/// MB at 10 million identifiers of N2T's shape (5 keys each). The cache keeps them in
/// its high-priority half; at 64 MB that half held less than that, and a `noid -` load
/// into a 10M store spent half its time reading the same blocks again from the files
/// (kernel copies, LZ4, checksums; scripts/bench-scale.sh, docs/SCALING.md). 1 GiB holds
/// them up to some 70 million identifiers; a short command uses a few MB of it.
const WRITER_CACHE: usize = 1 << 30;

impl Writer {
    /// Open the existing minter in `dbdir`, waiting up to `timeout` for other writers.
    pub fn open(dbdir: &Path, timeout: Duration) -> Result<Writer, StoreError> {
        let layout = Layout::new(dbdir);
        if !layout.exists() {
            return Err(StoreError::NoDatabase(layout.db.clone()));
        }
        let start = Instant::now();
        let lock = take_lock(&layout.lock, timeout)?;
        let busy = take_lock(&layout.busy, timeout.saturating_sub(start.elapsed()))?;
        let index = TableIndex::of(&layout)?;
        let opts = writer_options(
            WRITER_CACHE,
            TableLayout::of(tables_bytes(&layout.db), index),
        );
        let db = DB::open(&opts, &layout.db)?;
        Writer::assemble(db, opts, layout, (lock, busy), timeout)
    }

    /// Create a new, empty minter database in `dbdir` (the `NOID` directory may exist,
    /// the database may not).
    pub fn create(dbdir: &Path, timeout: Duration) -> Result<Writer, StoreError> {
        let layout = Layout::new(dbdir);
        std::fs::create_dir_all(&layout.noid_dir).map_err(io(&layout.noid_dir))?;
        let start = Instant::now();
        let lock = take_lock(&layout.lock, timeout)?;
        if layout.exists() {
            return Err(StoreError::AlreadyExists(dbdir.to_path_buf()));
        }
        let busy = take_lock(&layout.busy, timeout.saturating_sub(start.elapsed()))?;
        let mut opts = writer_options(WRITER_CACHE, TableLayout::of(0, TableIndex::Whole));
        opts.create_if_missing(true);
        opts.set_error_if_exists(true);
        let db = DB::open(&opts, &layout.db)?;
        generation::create(&layout.generation)?;
        Writer::assemble(db, opts, layout, (lock, busy), timeout)
    }

    fn assemble(
        db: DB,
        opts: Options,
        layout: Layout,
        (lock, busy): (File, File),
        timeout: Duration,
    ) -> Result<Writer, StoreError> {
        let bumper = Bumper::open(&layout.generation)?;
        // A batch file left by a writer that was killed before RocksDB took it in.
        let _ = std::fs::remove_file(&layout.batch_sst);
        Ok(Writer {
            db,
            opts,
            wrote: std::sync::atomic::AtomicBool::new(false),
            bumper,
            layout,
            busy,
            paused: std::sync::atomic::AtomicBool::new(false),
            timeout,
            _lock: lock,
        })
    }

    /// Let long-lived readers (`noidr`) catch up while this writer stays open and keeps
    /// other writers out: once RocksDB's background flushes and compactions are over
    /// (a reader catching up while the store's files change can lose a write, see
    /// [`crate::Secondary::try_catch_up`]), release `NOID/busy`. The next commit takes
    /// it again. Returns whether it was released; it is not when background work goes
    /// on for longer than `wait` (readers then wait as for any writer; [`SETTLE`] is
    /// the wait before an acknowledgement, zero releases only if nothing is pending).
    ///
    /// `noid serve` pauses after each group commit, before acknowledging the writes,
    /// so that a write it acknowledged is seen by a reader's next request.
    pub fn pause(&self, wait: Duration) -> Result<bool, StoreError> {
        use std::sync::atomic::Ordering;
        if self.paused.load(Ordering::Acquire) {
            return Ok(true);
        }
        let start = Instant::now();
        let mut polls = 0u32;
        while self.background_work()? {
            if start.elapsed() >= wait {
                log::debug!("pause: still busy after {:?}", start.elapsed());
                return Ok(false);
            }
            polls += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        log::debug!("pause: settled after {:?} ({polls} polls)", start.elapsed());
        self.busy.unlock().map_err(io(&self.layout.busy))?;
        self.paused.store(true, Ordering::Release);
        Ok(true)
    }

    /// Take `NOID/busy` again after [`Writer::pause`], waiting for readers that are
    /// catching up (they hold it shared for as long as that takes).
    fn resume(&self) -> Result<(), StoreError> {
        use std::sync::atomic::Ordering;
        if !self.paused.load(Ordering::Acquire) {
            return Ok(());
        }
        wait_exclusive(&self.busy, &self.layout.busy, self.timeout)?;
        self.paused.store(false, Ordering::Release);
        Ok(())
    }

    /// Whether RocksDB is flushing or compacting, or has such work pending.
    fn background_work(&self) -> Result<bool, StoreError> {
        for p in [
            "rocksdb.num-running-flushes",
            "rocksdb.mem-table-flush-pending",
            "rocksdb.num-running-compactions",
            "rocksdb.compaction-pending",
        ] {
            if self.db.property_int_value(p)?.unwrap_or(0) > 0 {
                return Ok(true);
            }
        }
        Ok(false)
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
        f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        crate::rocks::secondary::scan_from(&self.db, start, f)
    }

    /// Apply `ops` as one atomic batch, synced to disk before returning, then tell
    /// readers. Nothing is applied if the batch fails. When a key occurs more than once,
    /// its last operation wins.
    ///
    /// A large batch (a `mint 100000`, a bulk load) is written as one sorted table file
    /// and ingested: RocksDB syncs the file and records it in its manifest in one atomic
    /// step, so the batch is as durable and all-or-nothing as a synced write, without
    /// the write-ahead log, the memtable inserts and the later flush (see
    /// ARCHITECTURE.md, "Performance").
    pub fn commit(&self, ops: impl IntoIterator<Item = Op>) -> Result<(), StoreError> {
        let mut ops: Vec<Op> = ops.into_iter().collect();
        self.commit_all(&mut ops)
    }

    /// [`Writer::commit`], leaving the (reordered) operations in `ops` for the caller to
    /// drop: a caller that commits on a second thread hands the million buffers of a
    /// large mint back to the thread that allocated them, where freeing is cheaper.
    pub fn commit_all(&self, ops: &mut Vec<Op>) -> Result<(), StoreError> {
        if ops.is_empty() {
            return Ok(());
        }
        let t0 = Instant::now();
        self.resume()?;
        let t1 = Instant::now();
        // In key order, memtable inserts also run faster.
        Op::last_per_key(ops);
        // Before the commit, so that a reader that sees its generation finds its line.
        let generation = self.bumper.current() + 1;
        crate::changes::append(&self.layout.changes, generation, ops)
            .map_err(crate::error::io(&self.layout.changes))?;
        let t2 = Instant::now();
        if ops.len() >= INGEST_MIN {
            self.ingest(ops)?;
            // Long-lived readers must reopen rather than catch up (see `generation`).
            self.bumper.renew_store_id();
        } else {
            self.write_batch(ops)?;
        }
        log::debug!(
            "commit of {} ops: resume {:?}, sort {:?}, {} {:?}",
            ops.len(),
            t1 - t0,
            t2 - t1,
            if ops.len() >= INGEST_MIN {
                "ingest"
            } else {
                "write batch"
            },
            t2.elapsed()
        );
        self.bumper.bump();
        Ok(())
    }

    /// A synced `WriteBatch` through the write-ahead log.
    fn write_batch(&self, ops: &[Op]) -> Result<(), StoreError> {
        // Sized up front: grown by doubling, a large batch spends more time in
        // reallocation copies than in the memtable.
        let bytes: usize = ops
            .iter()
            .map(|op| match op {
                Op::Put(k, v) => k.len() + v.len() + 11,
                Op::Delete(k) => k.len() + 6,
            })
            .sum();
        let mut batch = WriteBatch::with_capacity_bytes(12 + bytes);
        for op in ops {
            match op {
                Op::Put(k, v) => batch.put(k, v),
                Op::Delete(k) => batch.delete(k),
            }
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(true);
        self.db.write_opt(batch, &wo)?;
        self.wrote.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Sorted, distinct `ops` as one ingested table file.
    fn ingest(&self, ops: &[Op]) -> Result<(), StoreError> {
        let path = &self.layout.batch_sst;
        let _ = std::fs::remove_file(path);
        let mut sst = SstFileWriter::create(&self.opts);
        sst.open(path)?;
        for op in ops {
            match op {
                Op::Put(k, v) => sst.put(k, v)?,
                Op::Delete(k) => sst.delete(k)?,
            }
        }
        let t0 = Instant::now();
        // Finish syncs the file; ingestion links it into the database, syncs the
        // directory and commits it to the manifest.
        sst.finish()?;
        let t1 = Instant::now();
        let mut io = IngestExternalFileOptions::default();
        io.set_move_files(true);
        let result = self.db.ingest_external_file_opts(&io, vec![path]);
        log::debug!(
            "ingest: finish (sync) {:?}, ingest {:?}",
            t1 - t0,
            t1.elapsed()
        );
        let _ = std::fs::remove_file(path);
        Ok(result?)
    }

    /// Compact the whole key space into the last level (after bulk loads; `noid
    /// compact`), its tables' index and filters laid out as `index` says (kept as the
    /// store's setting, for every writer after) or, without it, as the store's setting
    /// says. RocksDB reports no error from a manual compaction, and an interrupted one
    /// (a full disk) leaves the tables as they were, so the levels after it tell: more
    /// than one is an error.
    pub fn compact(&self, index: Option<TableIndex>) -> Result<crate::Compaction, StoreError> {
        self.resume()?;
        let index = match index {
            Some(index) => {
                // The setting first: a crash after it leaves a store whose next
                // writer writes as asked, and whose tables are of either kind, as
                // while any compaction runs.
                index.keep(&self.layout)?;
                self.db.set_options(&table_index_options(index))?;
                index
            }
            None => TableIndex::of(&self.layout)?,
        };
        let before = self.levels()?;
        let t0 = Instant::now();
        let mut opts = rocksdb::CompactOptions::default();
        // The last level's tables are rewritten too, once (not again those this
        // compaction has just written): after a load, upper levels overlap nearly all of
        // them anyway, and on a compacted store it is how tables written by an earlier
        // version take this version's table options.
        opts.set_bottommost_level_compaction(rocksdb::BottommostLevelCompaction::ForceOptimized);
        self.db.compact_range_opt::<&[u8], &[u8]>(None, None, &opts);
        let took = t0.elapsed();
        let after = self.levels()?;
        if after.0.len() > 1 {
            return Err(StoreError::CompactionUnfinished {
                path: self.layout.db.clone(),
                levels: after.0.len(),
            });
        }
        Ok(crate::Compaction {
            before,
            after,
            took,
            index,
        })
    }

    /// The table files by level.
    fn levels(&self) -> Result<crate::Levels, StoreError> {
        let mut levels: Vec<crate::Level> = Vec::new();
        for f in self.db.live_files()? {
            let level = f.level.max(0) as u32;
            match levels.iter_mut().find(|l| l.level == level) {
                Some(l) => {
                    l.files += 1;
                    l.bytes += f.size as u64;
                }
                None => levels.push(crate::Level {
                    level,
                    files: 1,
                    bytes: f.size as u64,
                }),
            }
        }
        levels.sort_by_key(|l| l.level);
        Ok(crate::Levels(levels))
    }
}

impl Drop for Writer {
    /// Flush the memtable so the write-ahead log is empty when the next process opens
    /// the store: a reader's secondary instance would otherwise replay the whole log at
    /// every open.
    fn drop(&mut self) {
        if let Err(e) = self.resume() {
            // Flushing now could make a reader that is catching up lose a write.
            log::warn!(
                "{e}; the memtable of {} is not flushed",
                self.layout.db.display()
            );
            return;
        }
        if self.wrote.load(std::sync::atomic::Ordering::Relaxed) {
            if let Err(e) = self.db.flush() {
                log::warn!("flushing {} on close: {e}", self.layout.db.display());
            }
        }
    }
}

impl noid_core::Lookup for Writer {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, noid_core::LookupError> {
        Writer::get(self, key).map_err(|e| noid_core::LookupError::read(key, e))
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, noid_core::LookupError> {
        crate::rocks::secondary::scan_prefix(&self.db, prefix, limit)
            .map_err(|e| noid_core::LookupError::read(prefix, e))
    }
}

/// Longest wait in [`Writer::pause`] for RocksDB's background work to end.
pub const SETTLE: Duration = Duration::from_secs(2);

/// Open the lock file at `path` and wait for it exclusively, polling so that the wait
/// can time out with a message.
fn take_lock(path: &Path, timeout: Duration) -> Result<File, StoreError> {
    let f = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(io(path))?;
    wait_exclusive(&f, path, timeout)?;
    Ok(f)
}

/// Wait for an exclusive `flock` on `f` (the file at `path`).
fn wait_exclusive(f: &File, path: &Path, timeout: Duration) -> Result<(), StoreError> {
    let path = &path.to_path_buf();
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match f.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => {
                if start.elapsed() >= timeout {
                    return Err(StoreError::LockTimeout {
                        path: path.clone(),
                        seconds: timeout.as_secs(),
                    });
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(StoreError::Io {
                    path: path.clone(),
                    source: e,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rocks::options::metadata;
    use crate::rocks::test_keys::scattered_puts;

    /// A compaction asked for pieces rewrites the tables so (RocksDB's own count of
    /// index pieces) and keeps the setting, which the next writer follows without
    /// being asked; asked for whole, it turns back.
    #[test]
    fn a_compaction_lays_out_the_tables_as_asked_and_keeps_it() {
        let d = tempfile::tempdir().unwrap();
        let wait = Duration::from_secs(5);
        let put = |w: &Writer, from: u32| w.commit(scattered_puts(from..from + 20_000)).unwrap();
        let w = Writer::create(d.path(), wait).unwrap();
        put(&w, 0);
        assert_eq!(w.compact(None).unwrap().index, TableIndex::Whole);
        assert_eq!(metadata(&w.db).pieces, 0);
        assert_eq!(
            w.compact(Some(TableIndex::Pieces)).unwrap().index,
            TableIndex::Pieces
        );
        assert!(metadata(&w.db).pieces > 1);
        drop(w);

        let w = Writer::open(d.path(), wait).unwrap();
        put(&w, 20_000);
        w.db.flush().unwrap();
        let c = w.compact(None).unwrap();
        assert_eq!(c.index, TableIndex::Pieces);
        let pieces = metadata(&w.db).pieces;
        assert!(
            pieces > 2,
            "{pieces}: the new keys' table was written in pieces too"
        );
        assert_eq!(
            w.compact(Some(TableIndex::Whole)).unwrap().index,
            TableIndex::Whole
        );
        assert_eq!(metadata(&w.db).pieces, 0);
        assert_eq!(
            w.get(b"ark:/99999/b00000000\t_t").unwrap().as_deref(),
            Some(&b"https://example.org/0"[..])
        );
    }
}
