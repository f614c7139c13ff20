//! Where the `--follow` copy of a minter held by PostgreSQL stands (`replicate` keeps
//! it up to date), shown in `/metrics` and the SIGUSR1 line. Plain counters, built
//! whether or not this noidr has PostgreSQL.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Where the copy stands, written by the follow thread after each sync and read by
/// metrics scrapes.
pub struct Position {
    /// The last change applied to the copy (-1: not known yet).
    applied: AtomicI64,
    /// The minter's change-log head as last read (-1: not known yet).
    head: AtomicI64,
    /// When the copy was last known to hold every change of the head, in nanoseconds
    /// since `epoch` (`u64::MAX`: never).
    current_at: AtomicU64,
    /// Copies made from a snapshot after the first (a gap, a pruned log, a minter
    /// behind the copy, a checksum mismatch).
    remade: AtomicU64,
    /// Checksum comparisons that found the copy equal to the minter.
    verified: AtomicU64,
    epoch: Instant,
}

/// What `/metrics` shows of a [`Position`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// The last change applied to the copy.
    pub applied: Option<i64>,
    /// The minter's change-log head as last read.
    pub head: Option<i64>,
    /// Seconds since the copy was last known to be current.
    pub lag: Option<Duration>,
    /// Copies made anew.
    pub remade: u64,
    /// Comparisons that found the copy equal.
    pub verified: u64,
}

// Without the `postgres` feature there is no copy to follow: nothing moves a position.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
impl Position {
    /// Nothing known yet.
    pub fn new() -> Position {
        Position {
            applied: AtomicI64::new(-1),
            head: AtomicI64::new(-1),
            current_at: AtomicU64::new(u64::MAX),
            remade: AtomicU64::new(0),
            verified: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    /// Take in where one sync or verification left the copy: the last change applied,
    /// and the minter's change-log head it read (None: not read).
    pub fn stand_at(&self, applied: i64, head: Option<i64>) {
        let head = head.unwrap_or(applied).max(applied);
        self.applied.store(applied, Ordering::Relaxed);
        self.head.store(head, Ordering::Relaxed);
        if applied == head {
            let now = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
            self.current_at.store(now, Ordering::Relaxed);
        }
    }

    /// Count a copy made anew from a snapshot.
    pub fn count_remade(&self) {
        self.remade.fetch_add(1, Ordering::Relaxed);
    }

    /// Count a checksum comparison that found the copy equal.
    pub fn count_verified(&self) {
        self.verified.fetch_add(1, Ordering::Relaxed);
    }

    /// The values, now.
    pub fn seen(&self) -> Seen {
        let known = |v: i64| (v >= 0).then_some(v);
        let at = self.current_at.load(Ordering::Relaxed);
        Seen {
            applied: known(self.applied.load(Ordering::Relaxed)),
            head: known(self.head.load(Ordering::Relaxed)),
            lag: (at != u64::MAX).then(|| {
                self.epoch
                    .elapsed()
                    .saturating_sub(Duration::from_nanos(at))
            }),
            remade: self.remade.load(Ordering::Relaxed),
            verified: self.verified.load(Ordering::Relaxed),
        }
    }
}
