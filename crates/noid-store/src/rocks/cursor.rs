//! Range reads for the long-lived reader, through one RocksDB iterator per thread that
//! is kept from one request to the next (see ARCHITECTURE.md, "Performance").
//!
//! A resolver chopping `ID/a/b.c/d` back to `ID` wants the `_t` keys of the whole id and
//! of its four ancestors, and the `_t_am` flag of the one it finds: all between `ID` and
//! `ID/a/b.c/d\t_t` in key order. One seek there and a few steps cost less than the
//! point lookups of those keys, but making an iterator costs about as much as the seek,
//! so each thread keeps its own.
//!
//! An iterator reads the store as it was when it was made. A cursor therefore remembers
//! the sequence number of the newest write it shows and is made anew at the first range
//! read after the reader caught up with a newer write. A kept iterator also keeps the
//! table files of its time open (on disk, after a compaction removed them): the reader's
//! catch-up drops cursors made before the files changed ([`CursorDb::drop_stale`]).
//!
//! A seek, unlike a point lookup, has no bloom filter to skip the tables that cannot
//! hold the key: each level-0 table and each immutable memtable costs a seek of its own.
//! Beyond [`MAX_UNSORTED`] such runs (a compaction falling behind the writers) a range
//! is declined and the caller looks its keys up one by one.
//!
//! The iterators borrow the database. [`CursorDb`] owns both, never gives the database
//! away or replaces it, and drops the iterators first: that is what makes the one
//! `unsafe` lifetime extension here sound.

use std::sync::Mutex;

use std::sync::atomic::{AtomicU64, Ordering};

use rocksdb::{DBRawIterator, ReadOptions, DB};
use thread_local::ThreadLocal;

/// Most level-0 tables plus immutable memtables for which a range read is offered
/// (the writers' compaction trigger, `options.rs`).
const MAX_UNSORTED: u64 = 8;

/// A database together with the iterators kept on it, one per thread.
///
/// The database is only lent out by shared reference and never replaced, and [`Drop`]
/// removes every iterator before the database closes, so no iterator outlives it.
pub(crate) struct CursorDb {
    cursors: ThreadLocal<Mutex<Option<Cursor>>>,
    /// The sequence number of the newest write that reads are sure to see: recorded
    /// when a catch-up has *finished*. RocksDB moves a secondary's own sequence number
    /// while a catch-up is still applying the primary's changes, before the new table
    /// files and memtables are installed, so a read that ran in that window saw the
    /// old data under the new number; an iterator or a cached answer tagged with that
    /// number would have shown the old value until the next write.
    settled: AtomicU64,
    /// Serialises catch-ups, so that `settled` is read when none is under way.
    catching_up: Mutex<()>,
    db: DB,
}

struct Cursor {
    /// The newest write the iterator shows.
    sequence: u64,
    /// RocksDB's super-version number when it was made: it moves when the set of table
    /// files or memtables changes.
    files: u64,
    /// `None` while the store has too many unsorted runs for seeks to pay.
    it: Option<DBRawIterator<'static>>,
}

// SAFETY: a cursor is used by one thread at a time, under its mutex: the thread whose
// `ThreadLocal` slot holds it (a new thread may take over the slot of one that exited,
// and with it the cursor), or `drop_stale` and `drop`, which only drop it. RocksDB
// allows an iterator to be used and destroyed by another thread than the one that made
// it, as long as not concurrently.
unsafe impl Send for Cursor {}

impl CursorDb {
    /// `db`, with no cursors yet.
    pub(crate) fn new(db: DB) -> CursorDb {
        CursorDb {
            cursors: ThreadLocal::new(),
            settled: AtomicU64::new(db.latest_sequence_number()),
            catching_up: Mutex::new(()),
            db,
        }
    }

    /// Catch up with the primary, then record the sequence number the reads now see.
    /// Whether the view's memtables may now hide newer values: it held writes replayed
    /// from the write-ahead log, and the primary has flushed since (see
    /// `Secondary::stale_memtables`); it must then be opened anew.
    pub(crate) fn catch_up(&self) -> Result<bool, rocksdb::Error> {
        let _one = self.catching_up.lock().unwrap_or_else(|e| e.into_inner());
        let replayed = self.memtable_entries()?;
        let tables = self.table_bytes()?;
        self.db.try_catch_up_with_primary()?;
        self.settled
            .store(self.db.latest_sequence_number(), Ordering::Release);
        Ok(replayed > 0 && self.table_bytes()? != tables)
    }

    /// Writes this view replayed from the primary's write-ahead log into its memtables.
    fn memtable_entries(&self) -> Result<u64, rocksdb::Error> {
        let int = |p: &str| self.db.property_int_value(p).map(|v| v.unwrap_or(0));
        Ok(int("rocksdb.num-entries-active-mem-table")?
            + int("rocksdb.num-entries-imm-mem-tables")?)
    }

    /// The size of the view's table files: it changes when the primary flushed (or
    /// compacted) since the last catch-up.
    fn table_bytes(&self) -> Result<u64, rocksdb::Error> {
        Ok(self
            .db
            .property_int_value("rocksdb.total-sst-files-size")?
            .unwrap_or(0))
    }

    /// The sequence number of the newest write every read is sure to see (see
    /// `settled`): what iterators and cached answers are tagged with.
    pub(crate) fn settled_sequence(&self) -> u64 {
        self.settled.load(Ordering::Acquire)
    }

    /// The database, for everything but range reads.
    pub(crate) fn db(&self) -> &DB {
        &self.db
    }

    /// Every (key, value) with `first <= key <= last`, in key order, if there are at
    /// most `limit` and the store's shape makes a seek pay; otherwise `None`.
    pub(crate) fn range(
        &self,
        first: &[u8],
        last: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<(Vec<u8>, Vec<u8>)>>, rocksdb::Error> {
        let cell = self.cursors.get_or(|| Mutex::new(None));
        let mut slot = cell.lock().unwrap_or_else(|e| e.into_inner());
        let sequence = self.settled_sequence();
        if slot.as_ref().is_none_or(|c| c.sequence != sequence) {
            // Drop the old iterator before making the new one: it pins the old files.
            *slot = None;
            *slot = Some(Cursor::new(&self.db, sequence));
        }
        let Some(it) = slot.as_mut().and_then(|c| c.it.as_mut()) else {
            return Ok(None);
        };
        let mut found = Vec::new();
        it.seek(first);
        while let Some((k, v)) = it.item() {
            if k > last {
                break;
            }
            if found.len() == limit {
                return Ok(None);
            }
            found.push((k.to_vec(), v.to_vec()));
            it.next();
        }
        if let Err(e) = it.status() {
            // Start afresh next time rather than trust an iterator that failed.
            *slot = None;
            return Err(e);
        }
        Ok(Some(found))
    }

    /// Drop the cursors made before the table files changed, unless in use right now,
    /// so that files a compaction removed can be closed.
    pub(crate) fn drop_stale(&self) {
        let files = super_version(&self.db);
        for cell in self.cursors.iter() {
            if let Ok(mut slot) = cell.try_lock() {
                if slot.as_ref().is_some_and(|c| c.files != files) {
                    *slot = None;
                }
            }
        }
    }
}

impl Drop for CursorDb {
    /// Every iterator goes before the database it reads (fields drop after this).
    fn drop(&mut self) {
        self.cursors.clear();
    }
}

impl Cursor {
    fn new(db: &DB, sequence: u64) -> Cursor {
        let int = |name: &str| db.property_int_value(name).ok().flatten().unwrap_or(0);
        let unsorted = int("rocksdb.num-files-at-level0") + int("rocksdb.num-immutable-mem-table");
        let it = (unsorted <= MAX_UNSORTED).then(|| {
            let it = db.raw_iterator_opt(ReadOptions::default());
            // SAFETY: only `CursorDb::range` makes cursors, from its own database, and
            // keeps them in its own `cursors`: the iterator can outlive neither that
            // `CursorDb` (which drops every cursor before its database) nor the database
            // (never replaced or moved out of it; moving the `CursorDb` itself moves a
            // handle, not the C++ database the iterator points to).
            unsafe { std::mem::transmute::<DBRawIterator<'_>, DBRawIterator<'static>>(it) }
        });
        Cursor {
            sequence,
            files: super_version(db),
            it,
        }
    }
}

fn super_version(db: &DB) -> u64 {
    db.property_int_value("rocksdb.current-super-version-number")
        .ok()
        .flatten()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocksdb::Options;

    /// Past `MAX_UNSORTED` level-0 tables a range is declined; once they are merged
    /// (and the reader caught up) it is read again.
    #[test]
    fn ranges_are_declined_over_many_unmerged_tables() {
        let d = tempfile::tempdir().unwrap();
        let (primary, secondary) = (d.path().join("p"), d.path().join("s"));
        let mut o = Options::default();
        o.create_if_missing(true);
        o.set_disable_auto_compactions(true);
        let w = DB::open(&o, &primary).unwrap();
        for i in 0..=MAX_UNSORTED {
            w.put(format!("k{i}"), "v").unwrap();
            w.flush().unwrap();
        }
        let mut o = Options::default();
        o.set_max_open_files(-1);
        let r = CursorDb::new(DB::open_as_secondary(&o, &primary, &secondary).unwrap());
        assert_eq!(r.range(b"k0", b"k1", 10).unwrap(), None);
        w.compact_range::<&[u8], &[u8]>(None, None);
        w.put("k0", "new").unwrap();
        r.catch_up().unwrap();
        let want = vec![
            (b"k0".to_vec(), b"new".to_vec()),
            (b"k1".to_vec(), b"v".to_vec()),
        ];
        assert_eq!(r.range(b"k0", b"k1", 10).unwrap(), Some(want));
    }

    /// Cursors made on several threads (which then exit), read again after the store
    /// changed, dropped as stale after a compaction, and dropped with the database:
    /// every path of the iterators' lifetimes, for a run under valgrind's memcheck
    /// (`scripts/memcheck.sh`).
    #[test]
    fn cursors_live_and_die_with_their_database() {
        let d = tempfile::tempdir().unwrap();
        let (primary, secondary) = (d.path().join("p"), d.path().join("s"));
        let mut o = Options::default();
        o.create_if_missing(true);
        let w = DB::open(&o, &primary).unwrap();
        for i in 0..100 {
            w.put(format!("k{i:03}"), format!("v{i}")).unwrap();
        }
        w.flush().unwrap();
        let mut o = Options::default();
        o.set_max_open_files(-1);
        let r = CursorDb::new(DB::open_as_secondary(&o, &primary, &secondary).unwrap());
        let read = |r: &CursorDb, first: &str, last: &str| {
            r.range(first.as_bytes(), last.as_bytes(), 100)
                .unwrap()
                .unwrap()
                .into_iter()
                .map(|(k, v)| {
                    format!(
                        "{}={}",
                        String::from_utf8(k).unwrap(),
                        String::from_utf8(v).unwrap()
                    )
                })
                .collect::<Vec<_>>()
        };
        std::thread::scope(|s| {
            for t in 0..4 {
                let r = &r;
                s.spawn(move || {
                    for _ in 0..3 {
                        assert_eq!(
                            read(r, &format!("k0{t}0"), &format!("k0{t}1")),
                            [
                                format!("k0{t}0=v{}", t * 10),
                                format!("k0{t}1=v{}", t * 10 + 1)
                            ]
                        );
                    }
                });
            }
        });
        w.put("k000", "new").unwrap();
        w.flush().unwrap();
        w.compact_range::<&[u8], &[u8]>(None, None);
        r.catch_up().unwrap();
        r.drop_stale();
        assert_eq!(read(&r, "k000", "k001"), ["k000=new", "k001=v1"]);
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(read(&r, "k099", "k1"), ["k099=v99"]));
        });
        drop(r);
    }
}
