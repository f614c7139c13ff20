//! What the follower has done, for `noidr`'s metrics and health check: catch-ups with
//! writers' commits, reopens of the store, and the last write seen.
//!
//! Counted where it happens, which is never on a request's way unless the store
//! changed (a catch-up or a reopen costs far more than the bookkeeping here).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The follower's counters.
pub(super) struct Stats {
    /// Catch-ups that brought a writer's new commits (the generation had moved).
    catch_ups: AtomicU64,
    /// Views opened after the first (SIGHUP, a replaced store, a store that came back).
    reopens: AtomicU64,
    /// Views opened so far.
    opens: AtomicU64,
    /// The newest generation the follower has caught up with or opened at.
    generation: AtomicU64,
    /// When a catch-up last brought new commits (none yet: `None`).
    last_write: Mutex<Option<Instant>>,
}

/// What the follower has done since it started; see [`super::Follower::status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowStatus {
    /// Whether a view of the store is open.
    pub open: bool,
    /// Catch-ups that brought a writer's new commits.
    pub catch_ups: u64,
    /// Times the store was opened anew after the first open.
    pub reopens: u64,
    /// The writers' generation counter as the current view last saw it (`None` before
    /// the store was first opened).
    pub generation: Option<u64>,
    /// The writers' generation counter now (`NOID/generation`; `None` while no view is
    /// open): ahead of `generation` while the view has not caught up with the writers'
    /// last commits (a writer holding `NOID/busy` keeps it so, see
    /// `Secondary::try_catch_up`).
    pub writers_generation: Option<u64>,
    /// How long ago a catch-up last brought new commits (`None`: none since start).
    pub last_write_age: Option<Duration>,
}

impl Stats {
    pub(super) fn new() -> Stats {
        Stats {
            catch_ups: AtomicU64::new(0),
            reopens: AtomicU64::new(0),
            opens: AtomicU64::new(0),
            generation: AtomicU64::new(u64::MAX),
            last_write: Mutex::new(None),
        }
    }

    /// A view was opened, its generation being `generation`.
    pub(super) fn opened(&self, generation: u64) {
        if self.opens.fetch_add(1, Ordering::Relaxed) > 0 {
            self.reopens.fetch_add(1, Ordering::Relaxed);
        }
        self.generation.store(generation, Ordering::Relaxed);
    }

    /// The view caught up with the writers at `generation`: counted, and timed, when
    /// that generation is new (the background thread and a request may both catch up
    /// with the same commits).
    pub(super) fn caught_up(&self, generation: u64) {
        if self.generation.swap(generation, Ordering::Relaxed) != generation {
            self.catch_ups.fetch_add(1, Ordering::Relaxed);
            *self.last_write.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        }
    }

    /// The counts now; `writers` is the writers' generation counter read through the
    /// open view (`None`: no view is open).
    pub(super) fn status(&self, writers: Option<u64>) -> FollowStatus {
        let generation = self.generation.load(Ordering::Relaxed);
        let last_write = *self.last_write.lock().unwrap_or_else(|e| e.into_inner());
        FollowStatus {
            open: writers.is_some(),
            catch_ups: self.catch_ups.load(Ordering::Relaxed),
            reopens: self.reopens.load(Ordering::Relaxed),
            generation: (generation != u64::MAX).then_some(generation),
            last_write_age: last_write.map(|t| t.elapsed()),
            writers_generation: writers,
        }
    }
}
