//! The store as a long-lived resolver sees it: a view that follows the writers, is
//! opened anew when the store is replaced, and is shared by every request thread.
//!
//! **Architecture invariant: a request never waits for a catch-up it does not need.**
//! [`Follower::fresh`] reads the writers' generation counter from a shared mapping
//! (one memory read); only when it moved does that request pay for a catch-up, so a
//! `noid bind` that has returned is visible to the very next request. A background
//! thread also catches up every [`CATCH_UP_EVERY`] (for writers that did not bump the
//! counter) and notices a store that was replaced; it then opens it anew.
//!
//! The current view sits behind an `ArcSwap`: a request takes no lock and bumps no
//! shared count, and a reopen (SIGHUP, replaced store) swaps a pointer while requests
//! still holding the old view finish with it.
//!
//! If the store cannot be opened (wrong Dbdir, not created yet) the follower keeps
//! going: every request gets [`StoreError::Unavailable`] and the background thread
//! tries again.
//!
//! Modules: [`view`] (a view and its caches, the [`noid_core::Lookup`] resolution
//! reads), `view_cache` (the generic cache), `background` (the catch-up thread),
//! `dirs` (the secondaries' directories), `stats` (catch-ups, reopens, the last write
//! seen: [`Follower::status`], and [`Follower::health`] for `/healthz`).

pub mod answer_region;
mod background;
mod dirs;
mod shared_cache;
mod stats;
pub mod view;
mod view_cache;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arc_swap::{ArcSwapOption, Guard};

use crate::error::StoreError;
use crate::rocks::secondary::{Freshness, Secondary, SecondaryDir};
use dirs::SecondaryDirs;
pub use stats::FollowStatus;
use stats::Stats;
use view::{ThreadCache, View};

/// Background catch-up period.
pub const CATCH_UP_EVERY: Duration = Duration::from_millis(100);

/// How often a store that failed to open is tried again.
const RETRY_OPEN_EVERY: Duration = Duration::from_secs(1);

/// A request's hold on the current view: cheaper to take than an `Arc` clone, and like
/// one it keeps that view open while the request uses it.
pub struct ViewRef(Guard<Option<Arc<View>>>);

impl std::ops::Deref for ViewRef {
    type Target = View;

    fn deref(&self) -> &View {
        self.0
            .as_deref()
            .expect("a ViewRef is made from a loaded view")
    }
}

/// The followed store, shared by the request threads, the background thread and
/// whoever handles signals.
pub struct Follower {
    dbdir: PathBuf,
    dirs: SecondaryDirs,
    cache_bytes: usize,
    /// Per-thread cache sizes of every view opened.
    thread_cache: ThreadCache,
    /// Read at every request: an `ArcSwap` load leaves no trace in shared memory (a
    /// lock or reference count would be written by every request thread).
    current: ArcSwapOption<View>,
    /// Why the store is not open (while `current` is `None`).
    last_error: Mutex<Option<Arc<StoreError>>>,
    /// Serialises reopens (background thread, SIGHUP, request path).
    reopening: Mutex<()>,
    stopping: AtomicBool,
    /// Catch-ups, reopens and the last write seen (never written by a request that
    /// finds the view current).
    stats: Stats,
}

impl Follower {
    /// Follow the minter in `dbdir` (or remember why it could not be opened), with a
    /// block cache of `cache_bytes`. Secondaries keep their files under
    /// `secondary_dir`, or under a directory of the system's temporary directory.
    pub fn new(dbdir: &Path, secondary_dir: Option<&Path>, cache_bytes: usize) -> Arc<Follower> {
        Follower::with_thread_cache(dbdir, secondary_dir, cache_bytes, ThreadCache::default())
    }

    /// [`Follower::new`], with views keeping at most `thread_cache` entries per thread
    /// (a web server's many request threads each keep their own).
    pub fn with_thread_cache(
        dbdir: &Path,
        secondary_dir: Option<&Path>,
        cache_bytes: usize,
        thread_cache: ThreadCache,
    ) -> Arc<Follower> {
        let f = Follower::unopened(dbdir, secondary_dir, cache_bytes, thread_cache);
        // logged: the store's absence is not an error here
        let _ = f.open_once();
        f
    }

    /// [`Follower::with_thread_cache`] without opening the store yet: the first
    /// [`Follower::open_once`] does (the web server modules' first lookup, under its
    /// deadline, so that a store stalling while a server starts its workers does not
    /// keep them from starting).
    pub fn unopened(
        dbdir: &Path,
        secondary_dir: Option<&Path>,
        cache_bytes: usize,
        thread_cache: ThreadCache,
    ) -> Arc<Follower> {
        Arc::new(Follower {
            dbdir: dbdir.to_path_buf(),
            dirs: SecondaryDirs::new(secondary_dir),
            cache_bytes,
            thread_cache,
            current: ArcSwapOption::empty(),
            last_error: Mutex::new(None),
            reopening: Mutex::new(()),
            stopping: AtomicBool::new(false),
            stats: Stats::new(),
        })
    }

    /// Open the store unless a view is current, after any open under way (which this
    /// waits for, instead of opening a second time); the outcome is logged.
    pub fn open_once(&self) -> Result<(), StoreError> {
        let _one_at_a_time = self.reopening.lock().unwrap_or_else(|e| e.into_inner());
        if self.current.load().is_some() {
            return Ok(());
        }
        let opened = self.open_locked();
        match &opened {
            Ok(()) => log::info!("serving minter {}", self.dbdir.display()),
            Err(e) => log::error!("{e}; answering errors until the store can be opened"),
        }
        opened
    }

    /// Open the store anew and make it current (SIGHUP, replaced store, retry).
    pub fn reopen(&self) -> Result<(), StoreError> {
        let _one_at_a_time = self.reopening.lock().unwrap_or_else(|e| e.into_inner());
        self.open_locked()
    }

    /// Open the store and make it current; the caller holds `reopening`.
    fn open_locked(&self) -> Result<(), StoreError> {
        if self.stopping.load(Ordering::Acquire) {
            // `stop` has removed (or is removing) the secondary directories.
            return Err(StoreError::Stopping);
        }
        let dir = SecondaryDir::removed(self.dirs.next());
        match Secondary::open_in(&self.dbdir, dir, self.cache_bytes, true, false) {
            Ok(secondary) => {
                self.stats.opened(secondary.generation());
                self.current.store(Some(Arc::new(View::with_cache(
                    secondary,
                    self.thread_cache,
                ))));
                Ok(())
            }
            Err(e) => {
                let cause = Arc::new(e);
                *self.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(cause.clone());
                Err(self.unavailable(cause))
            }
        }
    }

    /// The current view, brought up to date with every writer that has finished.
    #[inline]
    pub fn fresh(&self) -> Result<ViewRef, StoreError> {
        let view = self.loaded()?;
        match view.secondary().freshen()? {
            // A writer still at work has not returned yet: its changes need not show,
            // and the next request tries again. Caches need no clearing: each compares
            // the view's sequence number.
            Freshness::Current | Freshness::WriterAtWork => Ok(view),
            Freshness::CaughtUp => {
                self.stats.caught_up(view.secondary().seen_generation());
                Ok(view)
            }
            Freshness::Replaced => {
                log::info!("minter {} was replaced; reopening", self.dbdir.display());
                drop(view);
                self.reopen()?;
                self.loaded()
            }
        }
    }

    /// The current view as it is (no catch-up), for a request.
    fn loaded(&self) -> Result<ViewRef, StoreError> {
        let guard = self.current.load();
        if guard.is_some() {
            return Ok(ViewRef(guard));
        }
        Err(self.why_not_open())
    }

    /// The current view as it is (no catch-up), to keep.
    pub fn current(&self) -> Result<Arc<View>, StoreError> {
        self.current.load_full().ok_or_else(|| self.why_not_open())
    }

    fn why_not_open(&self) -> StoreError {
        let last = self.last_error.lock().unwrap_or_else(|e| e.into_inner());
        match &*last {
            Some(cause) => self.unavailable(cause.clone()),
            None => StoreError::Stopping,
        }
    }

    fn unavailable(&self, cause: Arc<StoreError>) -> StoreError {
        StoreError::Unavailable {
            dbdir: self.dbdir.clone(),
            cause,
        }
    }

    /// Whether the store is open and followed: a view is open, and the minter on disk
    /// is still the one it shows (not removed, or replaced and not opened anew yet).
    pub fn health(&self) -> Result<(), StoreError> {
        let view = self.current()?;
        if view.secondary().replaced() {
            return Err(StoreError::NotFollowed(self.dbdir.clone()));
        }
        Ok(())
    }

    /// What the follower has done since it started (catch-ups, reopens, the last write
    /// seen), and the writers' generation now, for metrics.
    pub fn status(&self) -> FollowStatus {
        let view = self.current.load();
        self.stats
            .status(view.as_ref().map(|v| v.secondary().generation()))
    }

    /// Stop following: no view is opened any more, and the secondaries' directories are
    /// removed (at exit; views still in use keep their files open until they end).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        // A reopen under way finishes first; later ones see `stopping` and do nothing,
        // so no secondary directory is created after this removes them.
        let _no_reopens = self.reopening.lock().unwrap_or_else(|e| e.into_inner());
        self.current.store(None);
        self.dirs.remove_all();
    }
}

#[cfg(test)]
mod tests {
    use noid_core::Lookup;

    use super::*;
    use crate::{Op, Writer};

    const T: Duration = Duration::from_secs(5);

    fn commit(dbdir: &Path, key: &str, value: &str) {
        let w = Writer::open(dbdir, T).unwrap();
        w.commit([Op::Put(key.into(), value.into())]).unwrap();
    }

    fn value(f: &Follower, key: &str) -> Option<Vec<u8>> {
        f.fresh().unwrap().get(key.as_bytes()).unwrap()
    }

    #[test]
    fn a_finished_write_is_seen_by_the_next_request() {
        let d = tempfile::tempdir().unwrap();
        let sec = tempfile::tempdir().unwrap();
        drop(Writer::create(d.path(), T).unwrap());
        let f = Follower::new(d.path(), Some(sec.path()), 1 << 20);
        assert_eq!(value(&f, "k"), None);
        for i in 0..20 {
            commit(d.path(), "k", &i.to_string());
            assert_eq!(value(&f, "k"), Some(i.to_string().into_bytes()));
        }
        f.stop();
        assert_eq!(std::fs::read_dir(sec.path()).unwrap().count(), 0);
        assert!(matches!(f.fresh(), Err(StoreError::Stopping)));
        assert!(matches!(f.reopen(), Err(StoreError::Stopping)));
    }

    #[test]
    fn a_write_still_under_way_is_not_waited_for() {
        let d = tempfile::tempdir().unwrap();
        drop(Writer::create(d.path(), T).unwrap());
        commit(d.path(), "k", "1");
        let f = Follower::new(d.path(), None, 1 << 20);
        let w = Writer::open(d.path(), T).unwrap();
        w.commit([Op::Put(b"k".to_vec(), b"2".to_vec())]).unwrap();
        assert_eq!(value(&f, "k").as_deref(), Some(&b"1"[..]));
        drop(w);
        assert_eq!(value(&f, "k").as_deref(), Some(&b"2"[..]));
        f.stop();
    }

    /// After a writer ingested a large batch, the next request opens the store anew
    /// (see `generation`), while a request that still holds the old view finishes
    /// with it. (A store removed and created anew bumps no counter the view maps: the
    /// background thread notices it.)
    #[test]
    fn a_store_with_an_ingested_batch_is_opened_anew() {
        let d = tempfile::tempdir().unwrap();
        drop(Writer::create(d.path(), T).unwrap());
        commit(d.path(), "k", "old");
        let f = Follower::new(d.path(), None, 1 << 20);
        let old = f.current().unwrap();
        assert_eq!(value(&f, "k").as_deref(), Some(&b"old"[..]));
        let w = Writer::open(d.path(), T).unwrap();
        let many = (0..10_000).map(|i| Op::Put(format!("b{i:05}").into(), b"v".to_vec()));
        w.commit(many.chain([Op::Put(b"k".to_vec(), b"new".to_vec())]))
            .unwrap();
        drop(w);
        assert_eq!(value(&f, "k").as_deref(), Some(&b"new"[..]));
        assert!(!Arc::ptr_eq(&old, &f.current().unwrap()), "a new view");
        assert_eq!(old.get(b"k").unwrap().as_deref(), Some(&b"old"[..]));
        f.stop();
    }

    #[test]
    fn status_counts_each_new_generation_once_and_health_sees_a_missing_store() {
        let d = tempfile::tempdir().unwrap();
        drop(Writer::create(d.path(), T).unwrap());
        commit(d.path(), "k", "1");
        let f = Follower::new(d.path(), None, 1 << 20);
        let g0 = f.current().unwrap().secondary().generation();
        let s = f.status();
        assert_eq!(
            (
                s.open,
                s.catch_ups,
                s.reopens,
                s.generation,
                s.last_write_age
            ),
            (true, 0, 0, Some(g0), None)
        );
        commit(d.path(), "k", "2");
        assert_eq!(value(&f, "k").as_deref(), Some(&b"2"[..]));
        assert_eq!(value(&f, "k").as_deref(), Some(&b"2"[..]));
        let s = f.status();
        assert_eq!((s.catch_ups, s.generation), (1, Some(g0 + 1)));
        assert!(s.last_write_age.is_some());
        f.reopen().unwrap();
        assert_eq!(f.status().reopens, 1);
        assert_eq!(f.status().catch_ups, 1, "an open is no catch-up");

        f.health().unwrap();
        let (noid, away) = (d.path().join("NOID"), d.path().join("NOID.away"));
        std::fs::rename(&noid, &away).unwrap();
        assert!(matches!(f.health(), Err(StoreError::NotFollowed(p)) if p == d.path()));
        std::fs::rename(&away, &noid).unwrap();
        f.health().unwrap();

        // A writer holding NOID/busy keeps the view behind: the writers' counter moves
        // on, the view's stays, until the writer has closed.
        let g = f.status().generation.unwrap();
        assert_eq!(f.status().writers_generation, Some(g));
        let w = Writer::open(d.path(), T).unwrap();
        w.commit([Op::Put("k".into(), "3".into())]).unwrap();
        assert_eq!(value(&f, "k").as_deref(), Some(&b"2"[..]));
        let s = f.status();
        assert_eq!((s.generation, s.writers_generation), (Some(g), Some(g + 1)));
        drop(w);
        assert_eq!(value(&f, "k").as_deref(), Some(&b"3"[..]));
        let s = f.status();
        assert_eq!(s.generation, s.writers_generation);

        f.stop();
        assert!(!f.status().open);
        assert_eq!(f.status().writers_generation, None);
        assert!(f.health().is_err());
    }

    #[test]
    fn a_missing_store_is_an_error_until_it_is_created() {
        let d = tempfile::tempdir().unwrap();
        let f = Follower::new(d.path(), None, 1 << 20);
        let e = f.fresh().err().expect("no store yet");
        assert!(
            matches!(&e, StoreError::Unavailable { cause, .. }
                if matches!(**cause, StoreError::NoDatabase(_))),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "cannot open minter {}: no database ({}) -- use dbcreate?",
                d.path().display(),
                d.path().join("NOID/noid.rocksdb").display()
            )
        );
        drop(Writer::create(d.path(), T).unwrap());
        commit(d.path(), "k", "v");
        f.reopen().unwrap();
        assert_eq!(value(&f, "k").as_deref(), Some(&b"v"[..]));
        f.stop();
    }
}
