//! The store as the daemon sees it: a RocksDB secondary that follows the writers.
//!
//! **Architecture invariant: a request never waits for a catch-up it does not need.**
//! Before each request the writers' generation counter is read from a shared mapping
//! (nanoseconds); only when it moved does that request pay for
//! `try_catch_up_with_primary` (about a millisecond), so a `noid bind` that has returned
//! is visible to the very next request. A background thread also catches up every
//! 100 ms (for writers that did not bump the counter) and notices a store that was
//! replaced; it then reopens it. The current store sits behind an `ArcSwap`: a
//! request takes no lock, and a reopen (SIGHUP, replaced store) swaps a pointer.
//!
//! If the store cannot be opened (wrong Dbdir, not created yet) the daemon keeps
//! running: every request gets an error line and the background thread retries.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arc_swap::{ArcSwapOption, Guard};
use noid_resolve::{Lookup, LookupError};
use noid_store::generation::Watcher;
use noid_store::{sweep_stale, Layout, Reader, StoreError};
use thread_local::ThreadLocal;

/// Background catch-up period.
pub const CATCH_UP_EVERY: Duration = Duration::from_millis(100);

/// How often a store that failed to open is tried again.
const RETRY_OPEN_EVERY: Duration = Duration::from_secs(1);

/// Most cached `:idmap` rule lists (one per element asked for).
const IDMAP_CACHE_MAX: usize = 1024;

/// Most cached answers to "is any key under this prefix?" (one per ARK NAAN asked for).
const PREFIX_CACHE_MAX: usize = 4096;

/// Answers computed from the secondary's view of the store, kept until a catch-up
/// brings a write (the view's sequence number moves); emptied when it reaches its bound.
///
/// Each thread keeps its own map: a lookup then touches no memory another thread
/// writes (a shared lock's counter, bounced between the two cores at every request,
/// cost more than the look-up itself).
struct ViewCache<K: Send, V: Send> {
    maps: ThreadLocal<RefCell<EpochMap<K, V>>>,
    max: usize,
}

/// One thread's answers, valid for one view (the sequence number of its newest write).
struct EpochMap<K, V> {
    epoch: u64,
    map: HashMap<K, V, foldhash::fast::RandomState>,
}

impl<K: Hash + Eq + Send, V: Clone + Send> ViewCache<K, V> {
    fn new(max: usize) -> Self {
        ViewCache {
            maps: ThreadLocal::new(),
            max,
        }
    }

    /// The cached answer for `key`, or `compute`'s. An answer computed while a catch-up
    /// brought a write (`epoch()` moved) may describe the older view and is not kept.
    ///
    /// The epoch is the secondary's own sequence number, read at every call, not a
    /// counter bumped after a catch-up: a request on another thread could otherwise run
    /// between the catch-up and the bump, reading new values next to cached old ones.
    fn get_or_compute<Q, E>(
        &self,
        epoch: impl Fn() -> u64,
        key: &Q,
        compute: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let started = epoch();
        let cell = self.maps.get_or(|| {
            RefCell::new(EpochMap {
                epoch: started,
                map: HashMap::default(),
            })
        });
        {
            let mut mine = cell.borrow_mut();
            if mine.epoch != started {
                mine.epoch = started;
                mine.map.clear();
            }
            if let Some(v) = mine.map.get(key) {
                return Ok(v.clone());
            }
        }
        let v = compute()?;
        let mut mine = cell.borrow_mut();
        if epoch() == started && mine.epoch == started {
            if mine.map.len() >= self.max {
                mine.map.clear();
            }
            mine.map.insert(key.to_owned(), v.clone());
        }
        Ok(v)
    }
}

/// One opened store: the secondary, a watcher on its generation counter, and the
/// generation it has caught up with.
///
/// Every miss consults the `:idmap` rules of `_t`, a prefix scan (an iterator: several
/// times the cost of a point lookup). The rules change rarely, and the secondary's view
/// changes only when it catches up, so rule lists are cached until the next catch-up.
pub struct Store {
    reader: Option<Reader>,
    watcher: Watcher,
    seen: AtomicU64,
    dir: PathBuf,
    /// `:idmap` rule lists by (prefix, limit).
    idmap: ViewCache<(Vec<u8>, usize), Vec<(Vec<u8>, Vec<u8>)>>,
    /// [`Lookup::may_have_prefix`] answers.
    prefixes: ViewCache<Vec<u8>, bool>,
}

impl Store {
    fn reader(&self) -> &Reader {
        self.reader.as_ref().expect("reader is present until drop")
    }

    /// The sequence number of the newest write in this view: the caches' epoch.
    fn view(&self) -> u64 {
        self.reader().latest_sequence()
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // Close RocksDB before removing its secondary directory.
        self.reader.take();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Lookup for Store {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        Lookup::get(self.reader(), key)
    }

    /// One prefix seek per prefix and catch-up epoch, then a hash look-up.
    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        self.prefixes.get_or_compute(
            || self.view(),
            prefix,
            || Ok(!Lookup::scan_prefix(self.reader(), prefix, 1)?.is_empty()),
        )
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, LookupError> {
        if !noid_resolve::keys::is_idmap_key(prefix) {
            return Lookup::scan_prefix(self.reader(), prefix, limit);
        }
        self.idmap.get_or_compute(
            || self.view(),
            &(prefix.to_vec(), limit),
            || Lookup::scan_prefix(self.reader(), prefix, limit),
        )
    }

    fn range(
        &self,
        first: &[u8],
        last: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<(Vec<u8>, Vec<u8>)>>, LookupError> {
        Lookup::range(self.reader(), first, last, limit)
    }
}

/// A request's hold on the current store: cheaper to take than an `Arc` clone, and
/// like one it keeps that store open while the request uses it.
pub struct StoreRef(Guard<Option<Arc<Store>>>);

impl std::ops::Deref for StoreRef {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.0
            .as_deref()
            .expect("a StoreRef is made from a loaded store")
    }
}

/// The followed store, shared by the request thread(s), the background thread and the
/// signal thread.
pub struct Follower {
    dbdir: PathBuf,
    /// Parent of the per-open secondary directories.
    base: PathBuf,
    /// We created `base` (and remove it at exit).
    owns_base: bool,
    cache_bytes: usize,
    /// Read at every request: an `ArcSwap` load leaves no trace in shared memory (a
    /// lock or reference count would be written by both request threads).
    current: ArcSwapOption<Store>,
    /// Why the store is not open (when `current` is `None`).
    last_error: Mutex<String>,
    /// Serialises reopens (background thread, SIGHUP, request path).
    reopening: Mutex<()>,
    opens: AtomicU64,
    stopping: AtomicBool,
}

impl Follower {
    /// Open the store in `dbdir` (or remember why it could not be opened).
    pub fn new(dbdir: &Path, secondary_dir: Option<&Path>, cache_bytes: usize) -> Arc<Follower> {
        let (base, owns_base) = match secondary_dir {
            Some(d) => (d.to_path_buf(), false),
            None => {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.subsec_nanos());
                let tmp = std::env::temp_dir();
                (
                    tmp.join(format!("noidr-{}-{nanos}", std::process::id())),
                    true,
                )
            }
        };
        // A noidr killed with SIGKILL (Apache's last resort) could not clean up.
        match secondary_dir {
            Some(d) => sweep_stale(d, "secondary-"),
            None => sweep_stale(&std::env::temp_dir(), "noidr-"),
        };
        let f = Arc::new(Follower {
            dbdir: dbdir.to_path_buf(),
            base,
            owns_base,
            cache_bytes,
            current: ArcSwapOption::empty(),
            last_error: Mutex::new(String::new()),
            reopening: Mutex::new(()),
            opens: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
        });
        match f.reopen() {
            Ok(()) => log::info!("serving minter {}", dbdir.display()),
            Err(e) => log::error!("{e}; answering errors until the store can be opened"),
        }
        f
    }

    fn open_store(&self) -> Result<Store, StoreError> {
        let n = self.opens.fetch_add(1, Ordering::Relaxed);
        let dir = self
            .base
            .join(format!("secondary-{}-{n}", std::process::id()));
        let layout = Layout::new(&self.dbdir);
        // Open between writers, as for a catch-up (see `Reader::try_catch_up`); if writers
        // keep the lock for a whole second, open anyway and catch up at the next request.
        let lock = std::fs::File::open(&layout.lock).ok();
        let mut quiet = false;
        if let Some(f) = &lock {
            for _ in 0..200 {
                match f.try_lock_shared() {
                    Ok(()) => {
                        quiet = true;
                        break;
                    }
                    Err(std::fs::TryLockError::WouldBlock) => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(std::fs::TryLockError::Error(_)) => break,
                }
            }
        }
        // The generation is read before opening: a write in between is caught up later.
        let opened = Watcher::open(&layout.generation).and_then(|watcher| {
            let reader = Reader::open(&self.dbdir, Some(&dir), self.cache_bytes)?;
            Ok((watcher, reader))
        });
        if let (true, Some(f)) = (quiet, &lock) {
            let _ = f.unlock();
        }
        let (watcher, reader) = opened?;
        let seen = AtomicU64::new(if quiet { watcher.current() } else { u64::MAX });
        Ok(Store {
            reader: Some(reader),
            watcher,
            seen,
            dir,
            idmap: ViewCache::new(IDMAP_CACHE_MAX),
            prefixes: ViewCache::new(PREFIX_CACHE_MAX),
        })
    }

    /// Open the store anew and make it current (SIGHUP, replaced store, retry).
    pub fn reopen(&self) -> Result<(), LookupError> {
        let _one_at_a_time = self.reopening.lock().unwrap_or_else(|e| e.into_inner());
        if self.stopping.load(Ordering::Acquire) {
            // Exiting: `cleanup` has removed (or is removing) the secondary directories.
            return Err(LookupError::Unavailable("noidr is exiting".into()));
        }
        match self.open_store() {
            Ok(store) => {
                self.current.store(Some(Arc::new(store)));
                Ok(())
            }
            Err(e) => {
                let msg = format!("cannot open minter {}: {e}", self.dbdir.display());
                *self.last_error.lock().unwrap_or_else(|e| e.into_inner()) = msg.clone();
                Err(LookupError::Unavailable(msg))
            }
        }
    }

    /// The current store, brought up to date with every writer that has finished.
    pub fn fresh(&self) -> Result<StoreRef, LookupError> {
        let store = self.loaded()?;
        let generation = store.watcher.current();
        if generation == store.seen.load(Ordering::Acquire) {
            return Ok(store);
        }
        if store.reader().replaced() {
            log::info!("minter {} was replaced; reopening", self.dbdir.display());
            drop(store);
            self.reopen()?;
            return self.loaded();
        }
        // A writer still at work has not returned yet: its changes need not show, and
        // catching up now could lose track of them (see `Reader::try_catch_up`). The
        // next request tries again. Caches need no clearing: each compares the view's
        // sequence number ([`ViewCache`]).
        if store.reader().try_catch_up()? {
            store.seen.store(generation, Ordering::Release);
        }
        Ok(store)
    }

    /// The current store as it is (no catch-up), for a request.
    fn loaded(&self) -> Result<StoreRef, LookupError> {
        let guard = self.current.load();
        if guard.is_some() {
            return Ok(StoreRef(guard));
        }
        Err(self.why_not_open())
    }

    /// The current store as it is (no catch-up), to keep.
    pub fn current(&self) -> Result<Arc<Store>, LookupError> {
        self.current.load_full().ok_or_else(|| self.why_not_open())
    }

    fn why_not_open(&self) -> LookupError {
        LookupError::Unavailable(
            self.last_error
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        )
    }

    /// Start the background thread: periodic catch-up, replaced-store detection,
    /// retries of a store that could not be opened.
    pub fn spawn_background(self: &Arc<Self>) -> std::io::Result<()> {
        let me = self.clone();
        std::thread::Builder::new()
            .name("noidr-catch-up".into())
            .spawn(move || me.background())
            .map(|_| ())
    }

    fn background(&self) {
        let mut last_retry = Instant::now();
        let mut failing = false;
        loop {
            std::thread::sleep(CATCH_UP_EVERY);
            if self.stopping.load(Ordering::Acquire) {
                break;
            }
            match self.current() {
                Err(_) => {
                    if last_retry.elapsed() >= RETRY_OPEN_EVERY {
                        last_retry = Instant::now();
                        if self.reopen().is_ok() {
                            log::warn!("minter {} is open now", self.dbdir.display());
                        }
                    }
                }
                Ok(store) => {
                    if store.reader().replaced() {
                        log::info!("minter {} was replaced; reopening", self.dbdir.display());
                        drop(store);
                        if let Err(e) = self.reopen() {
                            log::error!("{e}");
                        }
                        continue;
                    }
                    match store.reader().try_catch_up() {
                        Ok(_) if failing => {
                            failing = false;
                            log::warn!("catching up with minter works again");
                        }
                        Ok(_) => {}
                        Err(e) if !failing => {
                            failing = true;
                            log::error!("catching up with minter {}: {e}", self.dbdir.display());
                        }
                        Err(_) => {}
                    }
                }
            }
        }
    }

    /// Remove the secondary directories (at exit; RocksDB files may still be open).
    pub fn cleanup(&self) {
        self.stopping.store(true, Ordering::Release);
        // A reopen under way finishes first; later ones see `stopping` and do nothing,
        // so no secondary directory is created after this removes them.
        let _no_reopens = self.reopening.lock().unwrap_or_else(|e| e.into_inner());
        self.current.store(None);
        if self.owns_base {
            let _ = std::fs::remove_dir_all(&self.base);
        } else if let Ok(entries) = std::fs::read_dir(&self.base) {
            let mine = format!("secondary-{}-", std::process::id());
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(&mine) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
}
