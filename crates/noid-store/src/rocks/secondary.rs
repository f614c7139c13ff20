//! A reader's view of a minter: a RocksDB secondary instance that follows the writers
//! cheaply, and knows when the store was replaced and must be opened anew.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use noid_core::{Lookup, LookupError, Pairs};
use rocksdb::{Direction, IteratorMode, ReadOptions, DB};

use crate::error::{io, StoreError};
use crate::layout::Layout;
use crate::rocks::cursor::CursorDb;
use crate::rocks::generation::{self, Watcher};
use crate::rocks::options::{
    choose_pins, metadata, reader_options, tables_bytes, Metadata, MetadataPins,
};
use crate::TableIndex;

/// How long a long-lived reader waits, at open, for writers at work to finish.
const OPEN_QUIET_WAIT: Duration = Duration::from_secs(1);

/// What [`Secondary::freshen`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// No writer committed since the last look: the view is current.
    Current,
    /// A writer committed and has finished: the view caught up with it.
    CaughtUp,
    /// A writer committed but still holds the lock: the view stays as it was, and the
    /// next call tries again.
    WriterAtWork,
    /// The store on disk must be opened anew ([`Secondary::replaced`]).
    Replaced,
}

/// A follower of one minter's database. Never takes the writers' lock exclusively, and
/// never waits for it after opening.
pub struct Secondary {
    db: CursorDb,
    watcher: Watcher,
    /// The generation this view has caught up with (`u64::MAX`: not known yet).
    seen: AtomicU64,
    layout: Layout,
    /// Long-lived: index and filter blocks stay pinned (see `options`), range reads
    /// are offered.
    long_lived: bool,
    /// Which index and filter blocks stay in memory ([`Secondary::pins`]).
    pins: MetadataPins,
    /// The readers' gate (`NOID/busy`, or `NOID/lock` where `busy` cannot be made),
    /// held shared during a catch-up.
    lock: Option<std::fs::File>,
    /// Made once: `get_pinned` would create and destroy a C++ `ReadOptions` per lookup.
    read: ReadOptions,
    /// Set for good by a catch-up that found the primary had flushed while this view's
    /// memtables held writes replayed from the write-ahead log: the view must be opened
    /// anew ([`Secondary::replaced`]).
    ///
    /// A RocksDB read looks in the memtables before the table files, taking what they
    /// hold as newer. In a secondary that is not always so: it replays the primary's
    /// log into its memtables at a catch-up (`noid serve` lets readers catch up after
    /// each commit), and if the primary then writes the same key again and flushes
    /// (a writer closing flushes its memtable) and deletes that log before this view
    /// catches up again, the newer value reaches it only in a table file, behind the
    /// older one still in its memtable. RocksDB drops such a memtable only when it
    /// replays a later log record, so reads would show the older value until the next
    /// write, though the catch-up moved the sequence number past the newer one.
    stale_memtables: AtomicBool,
    /// Kept for its `Drop`; declared after `db`, so removed after the database closed.
    _dir: SecondaryDir,
}

/// The writable directory RocksDB needs for a secondary's own files (its info log).
pub(crate) struct SecondaryDir {
    path: PathBuf,
    /// Removed with the [`Secondary`].
    remove: bool,
}

impl SecondaryDir {
    /// `path`, kept when the secondary closes.
    pub(crate) fn kept(path: &Path) -> SecondaryDir {
        SecondaryDir {
            path: path.to_path_buf(),
            remove: false,
        }
    }

    /// `path`, removed when the secondary closes.
    pub(crate) fn removed(path: PathBuf) -> SecondaryDir {
        SecondaryDir { path, remove: true }
    }

    /// A fresh directory under the system's temporary directory, removed at close.
    pub(crate) fn temporary() -> SecondaryDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("noid-secondary-{}-{nanos}", std::process::id());
        SecondaryDir::removed(std::env::temp_dir().join(name))
    }
}

impl Drop for SecondaryDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Opens the store laid out as `layout` as a long-lived secondary (its own files in
/// `dir`) with a block cache of `cache_bytes`, pinning what [`choose_pins`] chooses.
/// When the tables' size and the store's setting do not settle it, the store is first
/// opened with the pieces of index and filters left to the cache, and opened again,
/// all pinned, if they turn out to fit (or it has none). What does not stay within the
/// cache is logged, with the cache that would hold it all; a store whose tables fit in
/// half the cache is not asked.
fn open_pinned(
    layout: &Layout,
    dir: &Path,
    cache_bytes: usize,
) -> Result<(DB, MetadataPins), rocksdb::Error> {
    let db = &layout.db;
    let open =
        |pins| DB::open_as_secondary(&reader_options(cache_bytes, pins, false), db.as_path(), dir);
    // A setting that cannot be read is the writers' error; here it only means asking
    // the tables.
    let index = TableIndex::of(layout).unwrap_or(TableIndex::Pieces);
    let tables = tables_bytes(db);
    let mut probe = None;
    let pins = choose_pins(cache_bytes, tables, index, || {
        let opened = open(MetadataPins::AllButPieces);
        let m = opened.as_ref().map_or(Metadata::default(), metadata);
        probe = Some((opened, m));
        m
    });
    let half = cache_bytes as u64 / 2;
    let (cache_mib, need_mib) = (cache_bytes >> 20, |m: Metadata| {
        (m.bytes * 2).div_ceil(1 << 20)
    });
    let probed = match probe {
        Some((opened, m)) if pins == MetadataPins::AllButPieces => {
            log::info!(
                "{}: index and filters of {} MiB, in pieces, are left to the block cache of \
                 {cache_mib} MiB (a lookup may read some from the files); a cache of {} MiB \
                 would keep them all in memory",
                db.display(),
                m.bytes >> 20,
                need_mib(m),
            );
            return Ok((opened?, pins));
        }
        // Closed before the store is opened again.
        probe => probe.map(|(_, m)| m),
    };
    let opened = open(pins)?;
    if tables > half {
        // Counted by the first opening, or now from the tables' properties, read as
        // they opened.
        let m = probed.unwrap_or_else(|| metadata(&opened));
        if m.bytes > half {
            log::warn!(
                "{}: index and filters of {} MiB, whole, are held in memory beyond the \
                 block cache of {cache_mib} MiB: give a cache of {} MiB, or write the \
                 tables' index and filters in pieces (noid compact --index pieces) to keep \
                 memory within the cache",
                db.display(),
                m.bytes >> 20,
                need_mib(m),
            );
        }
    }
    Ok((opened, pins))
}

impl Secondary {
    /// Open the minter in `dbdir` as a long-lived follower, with a block cache of
    /// `cache_bytes`. Its own files go to `secondary_dir` (kept), or to a fresh
    /// directory under the system's temporary directory (removed at close).
    ///
    /// Opens between writers if it can, as a catch-up does ([`Secondary::freshen`]): if
    /// writers keep the lock for [`OPEN_QUIET_WAIT`], it opens anyway, and the first
    /// `freshen` catches up.
    pub fn open(
        dbdir: &Path,
        secondary_dir: Option<&Path>,
        cache_bytes: usize,
    ) -> Result<Secondary, StoreError> {
        let dir = secondary_dir.map_or_else(SecondaryDir::temporary, SecondaryDir::kept);
        Secondary::open_in(dbdir, dir, cache_bytes, true, false)
    }

    /// Open the minter in `dbdir`, its own files in `dir`: long-lived (pinning index
    /// and filter blocks as they are read, offering range reads) or short-lived (a
    /// [`crate::Snapshot`], which would pay for reading every table's at open to answer
    /// one request, and never waits for writers).
    pub(crate) fn open_in(
        dbdir: &Path,
        dir: SecondaryDir,
        cache_bytes: usize,
        long_lived: bool,
        lazy_tables: bool,
    ) -> Result<Secondary, StoreError> {
        let layout = Layout::new(dbdir);
        if !layout.exists() {
            return Err(StoreError::NoDatabase(layout.db.clone()));
        }
        std::fs::create_dir_all(&dir.path).map_err(io(&dir.path))?;
        let lock = gate(&layout);
        let quiet = match (&lock, long_lived) {
            (Some(f), true) => lock_shared_within(f, OPEN_QUIET_WAIT),
            _ => false,
        };
        // The generation is read before opening, never after: a writer may commit and
        // bump it as soon as the shared lock is released, and a view that recorded that
        // newer generation would never catch up with the write. Read before, a write in
        // between only makes the first `freshen` catch up.
        let opened = Watcher::open(&layout.generation).and_then(|watcher| {
            let before = watcher.current();
            let (db, pins) = if long_lived {
                open_pinned(&layout, &dir.path, cache_bytes)?
            } else {
                let options = reader_options(cache_bytes, MetadataPins::Few, lazy_tables);
                let db = DB::open_as_secondary(&options, &layout.db, &dir.path)?;
                (db, MetadataPins::Few)
            };
            Ok((watcher, db, before, pins))
        });
        if let (true, Some(f)) = (quiet, &lock) {
            let _ = f.unlock();
        }
        let (watcher, db, before, pins) = opened?;
        let seen = if quiet || !long_lived {
            before
        } else {
            u64::MAX
        };
        Ok(Secondary {
            db: CursorDb::new(db),
            seen: AtomicU64::new(seen),
            watcher,
            layout,
            long_lived,
            pins,
            lock,
            read: ReadOptions::default(),
            stale_memtables: AtomicBool::new(false),
            _dir: dir,
        })
    }

    /// Bring the view up to date with every writer that has finished: one memory read
    /// when nothing changed, one catch-up when a writer committed since the last call.
    ///
    /// A RocksDB secondary that catches up while a writer is flushing or closing can
    /// lose that write for good, so the catch-up runs only while no writer holds the
    /// lock ([`Secondary::try_catch_up`]). A write whose command has returned is
    /// therefore always seen by the next call.
    #[inline]
    pub fn freshen(&self) -> Result<Freshness, StoreError> {
        let generation = self.watcher.current();
        if generation == self.seen.load(Ordering::Acquire) {
            return Ok(Freshness::Current);
        }
        if self.replaced() {
            return Ok(Freshness::Replaced);
        }
        if !self.try_catch_up()? {
            return Ok(Freshness::WriterAtWork);
        }
        if self.replaced() {
            return Ok(Freshness::Replaced);
        }
        self.seen.store(generation, Ordering::Release);
        Ok(Freshness::CaughtUp)
    }

    /// [`Secondary::freshen`], waiting up to `wait` for a writer at work to finish
    /// rather than answering [`Freshness::WriterAtWork`] at once: for a reader that
    /// must see every write acknowledged before it asked (`noid serve`'s console and
    /// API reads), where a writer's commit lasts milliseconds. Still
    /// [`Freshness::WriterAtWork`] when a writer keeps the store busy for longer (a
    /// `noid` process holds it from open to close).
    pub fn freshen_within(&self, wait: Duration) -> Result<Freshness, StoreError> {
        match self.freshen()? {
            Freshness::WriterAtWork => {}
            other => return Ok(other),
        }
        let Some(lock) = &self.lock else {
            return Ok(Freshness::WriterAtWork);
        };
        if !lock_shared_within(lock, wait) {
            return Ok(Freshness::WriterAtWork);
        }
        // Read the generation while holding the gate: no writer can bump it meanwhile.
        let generation = self.watcher.current();
        let caught = self.db.catch_up();
        let _ = lock.unlock();
        self.caught_up(caught?);
        if self.replaced() {
            return Ok(Freshness::Replaced);
        }
        self.seen.store(generation, Ordering::Release);
        Ok(Freshness::CaughtUp)
    }

    /// Catch up with the writers, unless one is at work right now (then `Ok(false)`),
    /// whether or not the generation moved (for a writer that did not bump it).
    ///
    /// Why the writers' gate is consulted: a RocksDB secondary that catches up while the
    /// primary is flushing or closing can lose track of that write for good (every later
    /// catch-up still shows the previous value). So a catch-up runs only while no writer
    /// holds `NOID/busy` (a `noid` process holds it from open to close, `noid serve`
    /// while it commits and its flushes run), holding it *shared* for the time it takes;
    /// a writer that arrives meanwhile waits that long. A reader never waits for it.
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
        let result = self.db.catch_up();
        if let Some(f) = quiet {
            let _ = f.unlock();
        }
        self.caught_up(result?);
        Ok(true)
    }

    /// After a catch-up: drop the cursors it made stale, and remember whether its
    /// memtables may now hide newer values (see `stale_memtables`).
    fn caught_up(&self, hides_writes: bool) {
        self.db.drop_stale();
        if hides_writes {
            log::debug!("the primary flushed writes this view had replayed; reopening");
            self.stale_memtables.store(true, Ordering::Release);
        }
    }

    /// RocksDB's counts for tests: the bytes in this view's block cache, and the bytes
    /// of its tables' filter blocks.
    #[cfg(test)]
    pub(crate) fn cache_and_filter_bytes(&self) -> (u64, u64) {
        let db = self.db.db();
        let cached = db.property_int_value("rocksdb.block-cache-usage");
        let props = db.property_value("rocksdb.aggregated-table-properties");
        (
            cached.unwrap().unwrap(),
            crate::rocks::options::table_property(&props.unwrap().unwrap(), "filter block size"),
        )
    }

    /// Which index and filter blocks this view keeps in memory (chosen at open).
    pub fn pins(&self) -> MetadataPins {
        self.pins
    }

    /// The writers' generation counter now (see `generation`).
    pub fn generation(&self) -> u64 {
        self.watcher.current()
    }

    /// The generation this view last caught up with (`u64::MAX`: not known yet).
    pub fn seen_generation(&self) -> u64 {
        self.seen.load(Ordering::Acquire)
    }

    /// The sequence number of the newest write this view is sure to show, recorded when
    /// a catch-up has finished (RocksDB's own number moves while one is under way): a
    /// catch-up that leaves it unchanged brought nothing new (a writer's compaction
    /// moves files, not values).
    pub fn latest_sequence(&self) -> u64 {
        self.db.settled_sequence()
    }

    /// The identity of the store this secondary opened (a minter created anew, restored
    /// or changed by an ingest has another).
    pub fn store_id(&self) -> u64 {
        self.watcher.store_id()
    }

    /// Whether the minter on disk must be opened anew: removed and created anew, or
    /// restored (RocksDB's own catch-up silently shows nothing then), or a writer
    /// ingested a table file (catching up would misread it; see `generation`), or a
    /// catch-up found that this view's memtables may hide newer values (see
    /// `stale_memtables`).
    pub fn replaced(&self) -> bool {
        self.stale_memtables.load(Ordering::Acquire)
            || generation::store_id_on_disk(&self.layout.generation)
                != Some(self.watcher.store_id())
    }

    /// The minter's Dbdir.
    pub fn dbdir(&self) -> &Path {
        self.layout.noid_dir.parent().unwrap_or(Path::new("."))
    }

    /// The value under `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .db
            .db()
            .get_pinned_opt(key, &self.read)?
            .map(|v| v.to_vec()))
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
        Ok(self.db.range(first, last, limit)?)
    }

    /// Up to `limit` (key, value) pairs whose key starts with `prefix`, in key order.
    pub fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, StoreError> {
        scan_prefix(self.db.db(), prefix, limit)
    }

    /// Call `f` on each (key, value) from the first key `>= start`, until it returns false.
    pub fn scan_from(
        &self,
        start: &[u8],
        f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        scan_from(self.db.db(), start, f)
    }
}

impl Lookup for Secondary {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        Secondary::get(self, key).map_err(|e| LookupError::read(key, e))
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        Secondary::scan_prefix(self, prefix, limit).map_err(|e| LookupError::read(prefix, e))
    }

    fn range(&self, first: &[u8], last: &[u8], limit: usize) -> Result<Option<Pairs>, LookupError> {
        Secondary::range(self, first, last, limit).map_err(|e| LookupError::read(first, e))
    }
}

/// The file whose `flock` tells readers whether a writer may be changing the store's
/// files: `NOID/busy`, which writers make; on a store no writer of this version has
/// opened yet, `NOID/lock`, which every writer holds for longer (from open to close).
/// A reader never makes files in `NOID/` (it may run as another user).
pub(crate) fn gate(layout: &Layout) -> Option<std::fs::File> {
    std::fs::File::open(&layout.busy)
        .or_else(|_| std::fs::File::open(&layout.lock))
        .ok()
}

/// Take `lock` shared, trying for up to `wait`; whether it was taken.
pub(crate) fn lock_shared_within(lock: &std::fs::File, wait: Duration) -> bool {
    const PAUSE: Duration = Duration::from_millis(5);
    let tries = wait.as_millis() / PAUSE.as_millis();
    for _ in 0..tries.max(1) {
        match lock.try_lock_shared() {
            Ok(()) => return true,
            Err(std::fs::TryLockError::WouldBlock) => std::thread::sleep(PAUSE),
            Err(std::fs::TryLockError::Error(_)) => return false,
        }
    }
    false
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rocks::options::{writer_options, TableLayout};
    use crate::rocks::test_keys::{scattered_key, target};
    use crate::Writer;

    /// A store of 100,000 keys written in pieces (index and filter in 4 KB pieces: some
    /// 150 KB of them, in about 3 MB of tables), and set so.
    fn partitioned_store() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        drop(Writer::create(d.path(), Duration::from_secs(5)).unwrap());
        let db = DB::open(
            &writer_options(8 << 20, TableLayout::of(0, TableIndex::Pieces)),
            Layout::new(d.path()).db,
        )
        .unwrap();
        for i in 0..100_000u32 {
            db.put(scattered_key(i), target(i)).unwrap();
        }
        db.flush().unwrap();
        TableIndex::Pieces.keep(&Layout::new(d.path())).unwrap();
        d
    }

    /// RocksDB's count of the bytes pinned in `view`'s block cache.
    fn pinned_bytes(view: &Secondary) -> u64 {
        view.db
            .db()
            .property_int_value("rocksdb.block-cache-pinned-usage")
            .unwrap()
            .unwrap()
    }

    /// With a cache twice the store's index and filters or more, a resolver's view
    /// pins them all, whether the tables' size says so (a large cache) or their
    /// measured size does (a cache smaller than the tables); with less, it leaves
    /// their pieces to the cache, and what stays pinned (RocksDB's count) is a
    /// fraction of them. Every view answers the same.
    #[test]
    fn a_resolver_pins_index_and_filters_only_when_they_fit_in_its_cache() {
        let d = partitioned_store();
        let db = Layout::new(d.path()).db;
        let (tables, metadata) = {
            let o = reader_options(8 << 20, MetadataPins::Few, false);
            let probe = DB::open_for_read_only(&o, &db, false).unwrap();
            (tables_bytes(&db), metadata(&probe).bytes)
        };
        assert!(
            metadata > 50_000 && tables > 8 * metadata,
            "{tables} {metadata}"
        );
        let fits = (2 * metadata) as usize; // and not the tables
        let small = (metadata / 2) as usize;
        for (cache, pins) in [
            (64 << 20, MetadataPins::All),
            (fits, MetadataPins::All),
            (small, MetadataPins::AllButPieces),
        ] {
            let view = Secondary::open(d.path(), None, cache).unwrap();
            assert_eq!(view.pins(), pins, "cache {cache}");
            for i in 0..1000u32 {
                assert_eq!(
                    view.get(scattered_key(i).as_bytes()).unwrap(),
                    Some(target(i).into_bytes())
                );
            }
            let pinned = pinned_bytes(&view);
            match pins {
                MetadataPins::All => assert!(pinned >= metadata, "{pinned} of {metadata}"),
                _ => assert!(pinned < metadata / 4, "{pinned} of {metadata}"),
            }
        }
        // A store set to be written whole is opened pinned at once, whatever its
        // tables hold, without asking them.
        TableIndex::Whole.keep(&Layout::new(d.path())).unwrap();
        let view = Secondary::open(d.path(), None, small).unwrap();
        assert_eq!(view.pins(), MetadataPins::All);
        assert!(pinned_bytes(&view) >= metadata);
    }
}
