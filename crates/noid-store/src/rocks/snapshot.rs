//! Read-only access for short-lived commands (`fetch`, `get`, `dbinfo`, `validate`).
//!
//! RocksDB's own read-only mode has undefined behaviour while a primary is open, and a
//! shared `flock` would make writers wait for readers. A secondary opened in a
//! throw-away directory does neither, and opens quickly: it reads no table's index
//! or filter until a lookup needs it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::RwLock;
use std::time::Duration;

use crate::error::StoreError;
use crate::layout::Layout;
use crate::rocks::secondary::{gate, lock_shared_within, Secondary, SecondaryDir};

/// A read-only view of a minter that does not block writers.
pub struct Snapshot {
    secondary: RwLock<Secondary>,
    /// For a view that opens its tables as lookups need them: the minter, opened again
    /// when a table it names is gone.
    lookups: Option<PathBuf>,
    reopened: AtomicU32,
}

/// How many times a view for lookups opens the store again before the error stands: a
/// compaction removes tables once, so a second removal during one lookup is unlikely.
const REOPENS: u32 = 3;

impl Snapshot {
    /// Open the minter in `dbdir` for reading: every table opened at once, so that the
    /// view reads its tables to the end whatever a writer's compaction removes meanwhile
    /// (`noid export`, `check`, `dbinfo`).
    pub fn open(dbdir: &Path) -> Result<Snapshot, StoreError> {
        Snapshot::opened(dbdir, false)
    }

    /// Open the minter in `dbdir` for a few lookups (`noid get`, `fetch`): each table
    /// is opened when a lookup first needs it, so that opening costs the same whatever
    /// the store's size. When a writer's compaction has removed a table the view names
    /// and has not opened, a lookup ([`Snapshot::get`], and the `Lookup` methods, which
    /// return whole answers) opens the store again and asks again: the answer is then
    /// that of the newer view. [`Snapshot::scan_from`] does not, and reports the error.
    pub fn open_for_lookups(dbdir: &Path) -> Result<Snapshot, StoreError> {
        Snapshot::opened(dbdir, true)
    }

    fn opened(dbdir: &Path, lookups: bool) -> Result<Snapshot, StoreError> {
        Ok(Snapshot {
            secondary: RwLock::new(Snapshot::view(dbdir, lookups)?),
            lookups: lookups.then(|| dbdir.to_path_buf()),
            reopened: AtomicU32::new(0),
        })
    }

    /// A secondary in a throw-away directory, opening its tables as lookups need them
    /// (`lazy_tables`) or all at once.
    fn view(dbdir: &Path, lazy_tables: bool) -> Result<Secondary, StoreError> {
        Secondary::open_in(
            dbdir,
            SecondaryDir::temporary(),
            8 << 20,
            false,
            lazy_tables,
        )
    }

    /// How many times this view opened the store again (a table gone).
    pub fn reopened(&self) -> u32 {
        self.reopened.load(Ordering::Relaxed)
    }

    /// `read` on the view; for a view for lookups, again on a new view of the store
    /// while a table the view names is gone.
    fn with_view<T>(
        &self,
        read: impl Fn(&Secondary) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut tries = 0;
        loop {
            let result = read(&self.secondary.read().unwrap_or_else(|p| p.into_inner()));
            match (&result, &self.lookups) {
                (Err(StoreError::Db(e)), Some(dbdir))
                    if e.is_vanished_table() && tries < REOPENS =>
                {
                    tries += 1;
                    let view = Snapshot::view(dbdir, true)?;
                    *self.secondary.write().unwrap_or_else(|p| p.into_inner()) = view;
                    self.reopened.fetch_add(1, Ordering::Relaxed);
                }
                _ => return result,
            }
        }
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
        self.with_view(|s| s.get(key))
    }

    /// Call `f` on each (key, value) from the first key `>= start`, until it returns false.
    pub fn scan_from(
        &self,
        start: &[u8],
        f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        self.secondary
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .scan_from(start, f)
    }
}

impl noid_core::Lookup for Snapshot {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, noid_core::LookupError> {
        Snapshot::get(self, key).map_err(|e| noid_core::LookupError::read(key, e))
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, noid_core::LookupError> {
        self.with_view(|s| s.scan_prefix(prefix, limit))
            .map_err(|e| noid_core::LookupError::read(prefix, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rocks::test_keys::{scattered_key, scattered_puts, target};
    use crate::{Op, Writer};

    /// Four writers each leave a table, each spanning the same keys (so that a lookup
    /// consults each); a view for lookups opened then names them all but opens at most
    /// two. A writer's compaction removes them; a lookup in the oldest table then finds
    /// one gone, opens the store again (counted) and answers from the compacted table. A view that opened every table at once still reads
    /// them through its open files, without opening the store again.
    #[test]
    fn a_lookup_view_opens_the_store_again_when_a_table_is_gone() {
        let d = tempfile::tempdir().unwrap();
        let wait = Duration::from_secs(5);
        drop(Writer::create(d.path(), wait).unwrap());
        for i in 0..4 {
            let w = Writer::open(d.path(), wait).unwrap();
            let (k, v) = (format!("id{i}\t_t"), format!("https://example.org/{i}"));
            w.commit([
                Op::Put(format!("a{i}").into_bytes(), b"x".to_vec()),
                Op::Put(k.into_bytes(), v.into_bytes()),
                Op::Put(format!("z{i}").into_bytes(), b"x".to_vec()),
            ])
            .unwrap();
            drop(w);
        }
        let lookups = Snapshot::open_for_lookups(d.path()).unwrap();
        let whole = Snapshot::open(d.path()).unwrap();
        let w = Writer::open(d.path(), wait).unwrap();
        w.compact(None).unwrap();
        drop(w);
        assert_eq!(
            lookups.get(b"id0\t_t").unwrap().as_deref(),
            Some(&b"https://example.org/0"[..])
        );
        assert_eq!(
            lookups.reopened(),
            1,
            "a table was gone and the store opened again"
        );
        assert_eq!(
            whole.get(b"id0\t_t").unwrap().as_deref(),
            Some(&b"https://example.org/0"[..])
        );
        assert_eq!(whole.reopened(), 0);
    }

    /// A view for lookups reads no table's filter (where one whole filter block costs
    /// more to read than the data block it would spare), and finds keys and misses
    /// all the same; a view that opened every table reads them (RocksDB's counts of
    /// the bytes in each view's block cache, and of the tables' filter blocks).
    #[test]
    fn a_lookup_view_reads_no_filter() {
        let d = tempfile::tempdir().unwrap();
        let w = Writer::create(d.path(), Duration::from_secs(5)).unwrap();
        w.commit(scattered_puts(0..100_000)).unwrap();
        drop(w);
        let lookups = Snapshot::open_for_lookups(d.path()).unwrap();
        let whole = Snapshot::open(d.path()).unwrap();
        for view in [&lookups, &whole] {
            assert_eq!(
                view.get(scattered_key(7).as_bytes()).unwrap(),
                Some(target(7).into_bytes())
            );
            assert_eq!(view.get(b"ark:/99999/absent\t_t").unwrap(), None);
        }
        let counts = |s: &Snapshot| s.with_view(|v| Ok(v.cache_and_filter_bytes())).unwrap();
        let (cached, filters) = counts(&lookups);
        assert!(filters > 100_000, "{filters}: 10 bits for each key");
        assert!(cached < filters / 2, "{cached} cached, filters {filters}");
        let (cached, filters) = counts(&whole);
        assert!(cached >= filters, "{cached} cached, filters {filters}");
    }
}
