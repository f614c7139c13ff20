//! Range reads for the long-lived reader, through one RocksDB iterator per thread that
//! is kept from one request to the next.
//!
//! Why: a resolver chopping `ID/a/b.c/d` back to `ID` wants the `_t` keys of the whole
//! id and of its four ancestors, and the `_t_am` flag of the one it finds: all between
//! `ID` and `ID/a/b.c/d\t_t` in key order. One seek there and a few steps cost about as
//! much as one point lookup, where the lookups cost six. But making a RocksDB iterator
//! costs about as much as the seek itself, so the iterator is made once and kept.
//!
//! An iterator reads the store as it was when it was made. A cursor therefore remembers
//! the sequence number of the newest write it shows and is made anew at the first range
//! read after the reader caught up with a newer write. A kept iterator also keeps the
//! table files of its time open (on disk, after a compaction removed them): the reader's
//! catch-up drops cursors made before the files changed ([`Cursors::drop_stale`]).
//!
//! A seek, unlike a point lookup, has no bloom filter to skip the tables that cannot
//! hold the key: each level-0 table and each immutable memtable costs a seek of its
//! own. Measured on 1,000,000 bound ids (instructions per 4-level chop-back, range read
//! against point lookups): 28.8k against 38.4k with all tables merged, 42.0k against
//! 44.1k with 7 one-binding level-0 tables, 45.1k against 53.8k with 4 tables of 5,000
//! bindings. Ranges still pay there; beyond [`MAX_UNSORTED`] such runs (a compaction
//! falling behind the writers; RocksDB starts one at 8 level-0 tables) they are
//! declined and the caller looks keys up one by one.

use std::sync::Mutex;

use rocksdb::{DBRawIterator, ReadOptions, DB};
use thread_local::ThreadLocal;

/// Most level-0 tables plus immutable memtables for which a range read is offered
/// (the writers' compaction trigger, `options.rs`).
const MAX_UNSORTED: u64 = 8;

/// One iterator per thread.
#[derive(Default)]
pub(crate) struct Cursors {
    cells: ThreadLocal<Mutex<Option<Cursor>>>,
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
// and with it the cursor), or `drop_stale` and `clear`, which only drop it. A RocksDB
// iterator may be used and destroyed by other threads than the one that made it, as
// long as not concurrently.
unsafe impl Send for Cursor {}

impl Cursors {
    /// Every (key, value) with `first <= key <= last`, in key order, if there are at
    /// most `limit` and the store's shape makes a seek pay; otherwise `None`.
    ///
    /// # Safety
    /// `db` is the same database at every call, and the cursors are cleared
    /// ([`Cursors::clear`]) or dropped before that database is closed or replaced: the
    /// iterators kept here borrow it.
    pub(crate) unsafe fn range(
        &self,
        db: &DB,
        first: &[u8],
        last: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<(Vec<u8>, Vec<u8>)>>, rocksdb::Error> {
        let cell = self.cells.get_or(|| Mutex::new(None));
        let mut slot = cell.lock().unwrap_or_else(|e| e.into_inner());
        let sequence = db.latest_sequence_number();
        if slot.as_ref().is_none_or(|c| c.sequence != sequence) {
            // Drop the old iterator before making the new one: it pins the old files.
            *slot = None;
            *slot = Some(Cursor::new(db, sequence));
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
    pub(crate) fn drop_stale(&self, db: &DB) {
        let files = super_version(db);
        for cell in self.cells.iter() {
            if let Ok(mut slot) = cell.try_lock() {
                if slot.as_ref().is_some_and(|c| c.files != files) {
                    *slot = None;
                }
            }
        }
    }

    /// Drop every cursor (before the database they read is closed).
    pub(crate) fn clear(&mut self) {
        self.cells.clear();
    }
}

impl Cursor {
    fn new(db: &DB, sequence: u64) -> Cursor {
        let int = |name: &str| db.property_int_value(name).ok().flatten().unwrap_or(0);
        let unsorted = int("rocksdb.num-files-at-level0") + int("rocksdb.num-immutable-mem-table");
        let it = (unsorted <= MAX_UNSORTED).then(|| {
            let it = db.raw_iterator_opt(ReadOptions::default());
            // SAFETY: `Cursors::range`'s contract: the database outlives the cursor.
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
        let r = DB::open_as_secondary(&o, &primary, &secondary).unwrap();
        let mut c = Cursors::default();
        // SAFETY: one database, and `c` is cleared before it is dropped.
        assert_eq!(unsafe { c.range(&r, b"k0", b"k1", 10) }.unwrap(), None);
        w.compact_range::<&[u8], &[u8]>(None, None);
        w.put("k0", "new").unwrap();
        r.try_catch_up_with_primary().unwrap();
        let want = vec![
            (b"k0".to_vec(), b"new".to_vec()),
            (b"k1".to_vec(), b"v".to_vec()),
        ];
        assert_eq!(
            unsafe { c.range(&r, b"k0", b"k1", 10) }.unwrap(),
            Some(want)
        );
        c.clear();
    }
}
