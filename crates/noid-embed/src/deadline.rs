//! The lookup deadline inside a web server's worker processes.
//!
//! A request thread of Apache or nginx runs the lookup itself: handing every lookup to
//! another thread and waiting for it would cost more than the lookup (two context
//! switches on a 2-core machine). So a lookup stalled on the store (a hung disk, a
//! network file system gone away) keeps its own thread until the store answers; what
//! the deadline guarantees is that it does not take the server with it: once a lookup
//! has been under way for the deadline, every later lookup of the map is answered at
//! once with the protocol's error line (a miss to the shipped rules) without touching
//! the store, until the stalled lookups have returned.
//!
//! The web server's other processes learn of it through a word of memory shared by all
//! of them (made by the server's parent before it forks its workers): the watchdog that
//! finds a stalled lookup writes the time into it at every look, and every process's
//! watchdog treats a time less than two looks old as a stall (the writer clears it when
//! its stalled lookup has returned). So in nginx, whose worker runs one event loop
//! (which a stalled lookup holds), the other workers answer at once instead of each
//! stalling on a lookup of its own; and a process killed while stalled stops writing, so
//! the others resume two looks later.
//!
//! Cost per lookup: no clock read. A watchdog thread advances a tick ten times per
//! deadline; a lookup stamps its thread's slot with the tick when it starts and clears
//! it when it returns (two stores to memory of its own thread), and reads the process's
//! "stalled" flag (written only when it changes). The watchdog raises the flag when it
//! finds a slot stamped ten ticks ago or more, or a fresh time in the shared word, and
//! lowers it when neither is so.
//!
//! Everything is behind [`Deadline::run`], so that a shared watchdog in noid-store can
//! replace this one in one place.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use thread_local::ThreadLocal;

/// The watchdog looks this many times per deadline.
const LOOKS: u32 = 10;

/// The watchdog looks at most this often.
const MIN_LOOK: Duration = Duration::from_millis(1);

/// A word of memory shared by the web server's processes (`MAP_SHARED`), which the
/// caller keeps mapped for as long as the maps that use it.
#[derive(Clone, Copy)]
pub struct SharedWord(&'static AtomicU64);

impl SharedWord {
    /// The word at `ptr`.
    ///
    /// # Safety
    /// `ptr` is 8-aligned, readable and writable, shared only through atomics, and
    /// stays mapped while any `Deadline` made with it exists.
    pub unsafe fn new(ptr: *mut u64) -> SharedWord {
        // SAFETY: as this function's.
        SharedWord(unsafe { AtomicU64::from_ptr(ptr) })
    }
}

/// A map's deadline: none, or a watchdog and the request threads' slots.
pub struct Deadline {
    watch: Option<Arc<Watch>>,
}

struct Watch {
    /// When (milliseconds of the system's monotonic clock) some process last saw a
    /// stalled lookup.
    shared: Option<SharedWord>,
    /// Advanced by the watchdog every tenth of the deadline.
    tick: AtomicU64,
    /// Some lookup has been under way for the deadline or longer.
    stalled: AtomicBool,
    /// Per request thread: 0 while idle, else 1 + the tick its lookup started at.
    slots: ThreadLocal<AtomicU64>,
}

impl Deadline {
    /// A deadline of `limit` (none for `None`), with its watchdog thread started; the
    /// thread ends after the `Deadline` is dropped. With `shared`, stalls are told to
    /// and learnt from the other processes that share it.
    pub fn new(limit: Option<Duration>, shared: Option<SharedWord>) -> std::io::Result<Deadline> {
        let Some(limit) = limit else {
            return Ok(Deadline { watch: None });
        };
        let watch = Arc::new(Watch {
            shared,
            tick: AtomicU64::new(0),
            stalled: AtomicBool::new(false),
            slots: ThreadLocal::new(),
        });
        let look = (limit / LOOKS).max(MIN_LOOK);
        let weak = Arc::downgrade(&watch);
        std::thread::Builder::new()
            .name("noid-deadline".into())
            .spawn(move || watchdog(&weak, look))?;
        Ok(Deadline { watch: Some(watch) })
    }

    /// `Some(lookup())`, or `None` without running it while an earlier lookup has been
    /// stalled for the deadline or longer (the caller answers late).
    #[inline]
    pub fn run<T>(&self, lookup: impl FnOnce() -> T) -> Option<T> {
        let Some(watch) = &self.watch else {
            return Some(lookup());
        };
        if watch.stalled.load(Ordering::Relaxed) {
            return None;
        }
        let slot = watch.slots.get_or(|| AtomicU64::new(0));
        slot.store(watch.tick.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let answer = lookup();
        slot.store(0, Ordering::Relaxed);
        Some(answer)
    }

    /// Whether lookups are answered late now (for tests and logs).
    pub fn stalled(&self) -> bool {
        self.watch
            .as_ref()
            .is_some_and(|w| w.stalled.load(Ordering::Relaxed))
    }
}

/// Look every `look` until the `Deadline` is gone.
fn watchdog(watch: &Weak<Watch>, look: Duration) {
    let look_ms = u64::try_from(look.as_millis()).unwrap_or(u64::MAX).max(1);
    // The time this process last wrote into the shared word (0: not since its stall).
    let mut written = 0;
    loop {
        std::thread::sleep(look);
        let Some(watch) = watch.upgrade() else {
            return;
        };
        let tick = watch.tick.fetch_add(1, Ordering::Relaxed) + 1;
        // A slot stamped `s` started at tick s - 1, at most one look after that tick:
        // LOOKS - 1 ticks later it has run for 9/10 of the deadline at least.
        let mine = watch.slots.iter().any(|slot| {
            let s = slot.load(Ordering::Relaxed);
            s != 0 && tick + 1 >= s + u64::from(LOOKS)
        });
        let others = match watch.shared {
            None => false,
            Some(SharedWord(word)) => {
                let now = monotonic_ms();
                if mine {
                    word.store(now, Ordering::Relaxed);
                    written = now;
                } else if written != 0 {
                    // Our stall is over: the others resume at their next look, unless
                    // another process has written since.
                    let _ = word.compare_exchange(written, 0, Ordering::Relaxed, Ordering::Relaxed);
                    written = 0;
                }
                let seen = word.load(Ordering::Relaxed);
                !mine && seen != 0 && now.saturating_sub(seen) <= 2 * look_ms
            }
        };
        let stalled = mine || others;
        if watch.stalled.load(Ordering::Relaxed) != stalled {
            watch.stalled.store(stalled, Ordering::Relaxed);
            let secs = (look * LOOKS).as_secs_f64();
            match (mine, others) {
                (true, _) => log::error!(
                    "a lookup has waited for the store for the deadline ({secs:.2} s); \
                     answering errors until it returns"
                ),
                (false, true) => log::error!(
                    "a lookup in another process has waited for the store for the deadline \
                     ({secs:.2} s); answering errors until it returns"
                ),
                (false, false) => log::warn!("the stalled lookup returned; resolving again"),
            }
        }
    }
}

/// Milliseconds of the system's monotonic clock (the same in every process).
fn monotonic_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64) * 1000 + (ts.tv_nsec as u64) / 1_000_000
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Instant;

    use super::*;

    #[test]
    fn no_deadline_runs_every_lookup() {
        let d = Deadline::new(None, None).unwrap();
        assert_eq!(d.run(|| "answer"), Some("answer"));
        assert!(!d.stalled());
    }

    /// One thread's lookup stalls; other threads' lookups are answered late at once
    /// after the deadline, and resolve again once it has returned.
    #[test]
    fn a_stalled_lookup_makes_the_others_late_until_it_returns() {
        let d = Arc::new(Deadline::new(Some(Duration::from_millis(200)), None).unwrap());
        assert_eq!(d.run(|| "answer"), Some("answer"));
        let (release, wait) = mpsc::channel::<()>();
        let stalled = {
            let d = d.clone();
            std::thread::spawn(move || d.run(|| wait.recv().map(|()| "answer").unwrap()))
        };
        let start = Instant::now();
        while !d.stalled() {
            assert!(start.elapsed() < Duration::from_secs(5), "never flagged");
            // Before the deadline, other lookups still run.
            if start.elapsed() < Duration::from_millis(150) {
                assert_eq!(d.run(|| "answer"), Some("answer"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(start.elapsed() >= Duration::from_millis(150));
        assert_eq!(d.run(|| -> &str { panic!("must not run") }), None);
        release.send(()).unwrap();
        assert_eq!(stalled.join().unwrap(), Some("answer"));
        let start = Instant::now();
        while d.stalled() {
            assert!(start.elapsed() < Duration::from_secs(5), "never cleared");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(d.run(|| "answer"), Some("answer"));
    }

    /// Two processes' deadlines sharing a word: a stall in one makes the other answer
    /// late, without a stalled lookup of its own, and both resolve again after it.
    #[test]
    fn a_stall_is_shared_through_the_word() {
        let word: &'static mut u64 = Box::leak(Box::new(0));
        // SAFETY: a leaked, aligned word, used only through atomics.
        let shared = unsafe { SharedWord::new(word) };
        let limit = Some(Duration::from_millis(200));
        let a = Arc::new(Deadline::new(limit, Some(shared)).unwrap());
        let b = Deadline::new(limit, Some(shared)).unwrap();
        let (release, wait) = mpsc::channel::<()>();
        let stalled = {
            let a = a.clone();
            std::thread::spawn(move || a.run(|| wait.recv().map(|()| "answer").unwrap()))
        };
        let start = Instant::now();
        while !b.stalled() {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "b never learnt of the stall"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(b.run(|| -> &str { panic!("must not run") }), None);
        release.send(()).unwrap();
        assert_eq!(stalled.join().unwrap(), Some("answer"));
        let start = Instant::now();
        while b.stalled() || a.stalled() {
            assert!(start.elapsed() < Duration::from_secs(5), "never cleared");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(b.run(|| "answer"), Some("answer"));
    }
}
