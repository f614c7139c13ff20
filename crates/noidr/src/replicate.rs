//! `--follow`: keep the local copy of a minter held by PostgreSQL up to date
//! (noid-store's `pg` `Replica`), while the rest of noidr answers from that copy as from any
//! embedded minter (noid-store's follower sees each applied batch). Where the copy
//! stands (`Position`) is shown in `/metrics` and the SIGUSR1 line.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use noid_store::pg::{Progress, Replica};
use noid_store::StoreError;

use crate::args::Follow;

/// Never set: the follow thread ends with the process.
static RUNNING_FOREVER: AtomicBool = AtomicBool::new(false);

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

impl Position {
    fn new() -> Position {
        Position {
            applied: AtomicI64::new(-1),
            head: AtomicI64::new(-1),
            current_at: AtomicU64::new(u64::MAX),
            remade: AtomicU64::new(0),
            verified: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    /// Take in one sync's or verification's outcome, with the head it read.
    fn record(&self, progress: &Progress, head: Option<i64>) {
        let applied = match *progress {
            Progress::Bootstrapped { seq }
            | Progress::Current { seq }
            | Progress::Verified { seq } => seq,
            Progress::Applied { to, .. } => to,
            Progress::Remade { seq } => {
                self.remade.fetch_add(1, Ordering::Relaxed);
                seq
            }
        };
        if matches!(progress, Progress::Verified { .. }) {
            self.verified.fetch_add(1, Ordering::Relaxed);
        }
        let head = head.unwrap_or(applied).max(applied);
        self.applied.store(applied, Ordering::Relaxed);
        self.head.store(head, Ordering::Relaxed);
        if applied == head {
            let now = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
            self.current_at.store(now, Ordering::Relaxed);
        }
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

/// Bring the copy in `dir` up to date once (making it at the first start), then keep
/// it so on a thread of its own. A copy that cannot be brought up to date now is
/// served as it is, and retried; no copy at all is an error.
pub fn start(follow: &Follow, dir: &Path) -> anyhow::Result<Arc<Position>> {
    let position = Arc::new(Position::new());
    let first = Replica::new(&follow.location, dir).and_then(|mut r| r.sync().map(|p| (r, p)));
    let replica = match first {
        Ok((r, p)) => {
            log::info!("{}: {}", dir.display(), describe(&p));
            position.record(&p, r.head_seen());
            Some(r)
        }
        Err(e) if noid_store::Layout::new(dir).exists() => {
            log::warn!("{}: answering from the copy as it is: {e}", dir.display());
            None
        }
        Err(e) => anyhow::bail!("cannot make the copy in {}: {e}", dir.display()),
    };
    let (follow, dir, seen) = (follow.clone(), dir.to_path_buf(), position.clone());
    std::thread::Builder::new()
        .name("follow".into())
        .spawn(move || {
            let mut replica = replica;
            loop {
                let r = match replica.take() {
                    Some(r) => Ok(r),
                    None => Replica::new(&follow.location, &dir),
                };
                let outcome = r.and_then(|mut r| {
                    r.set_verify_interval(follow.verify.is_some(), follow.verify);
                    r.follow(follow.poll, &RUNNING_FOREVER, |result, head| {
                        report(&dir, &seen, result, head)
                    })
                });
                if let Err(e) = outcome {
                    log::warn!("{}: following stopped, starting again: {e}", dir.display());
                }
                std::thread::sleep(follow.poll);
            }
        })?;
    Ok(position)
}

/// Log a sync's outcome (a copy made anew at warning level: an operator wants to know
/// why) and keep the position.
fn report(dir: &Path, seen: &Position, result: &Result<Progress, StoreError>, head: Option<i64>) {
    match result {
        Ok(p) => {
            seen.record(p, head);
            match p {
                Progress::Current { .. } => {}
                Progress::Remade { .. } => log::warn!("{}: {}", dir.display(), describe(p)),
                _ => log::debug!("{}: {}", dir.display(), describe(p)),
            }
        }
        Err(e) => log::warn!("{}: {e}", dir.display()),
    }
}

fn describe(p: &Progress) -> String {
    match p {
        Progress::Bootstrapped { seq } => format!("copied as of change {seq}"),
        Progress::Remade { seq } => format!("copied anew as of change {seq}"),
        Progress::Applied { from, to } => format!("applied changes {from} to {to}"),
        Progress::Current { seq } => format!("current at change {seq}"),
        Progress::Verified { seq } => format!("checksum equal to the minter's at change {seq}"),
    }
}
