//! The lookup deadline inside a web server's worker processes: noid-core's one
//! watchdog ([`noid_core::deadline`], as noidr and `noid-http` use it), and the word of
//! memory that tells the server's other processes of a stall.
//!
//! A request thread of Apache or nginx runs the lookup itself (handing every lookup to
//! another thread would cost more than the lookup), and only that thread can answer its
//! request. So a lookup stalled on the store (a hung disk, a network file system gone
//! away) keeps its thread until the store answers, and answers with its own result then;
//! what the deadline guarantees is that it does not take the server with it: once the
//! watchdog has claimed it (after the deadline), every later lookup of the map is
//! answered at once with the protocol's error line (a miss to the shipped rules) without
//! touching the store, until the stalled lookup has returned.
//!
//! The web server's other processes learn of it through a word of memory shared by all
//! of them (made by the server's parent before it forks its workers), written and read
//! by [`Answer::share`] at every look of each process's watchdog: the process with a
//! stalled lookup writes the time into it, and every other process treats a time less
//! than two looks old as a stall (the writer clears it when its stalled lookup has
//! returned). So in nginx, whose worker runs one event loop (which a stalled lookup
//! holds), the other workers answer at once instead of each stalling on a lookup of its
//! own; and a process killed while stalled stops writing, so the others resume two looks
//! later.
//!
//! Cost per lookup: no clock read; the watchdog's stamp and compare-and-swap on the
//! calling thread's slot (found through a thread-local).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use noid_core::deadline::{look_every, Answer, Slot, Watchdog};
use thread_local::ThreadLocal;

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
    watch: Option<Watch>,
}

struct Watch {
    watchdog: Arc<Watchdog<Peers>>,
    /// Per request thread, its slot (registered with the watchdog at its first lookup).
    slots: ThreadLocal<Arc<Slot>>,
}

/// The module's [`Answer`]: nothing to answer in a claimed lookup's place (only the
/// request's thread can answer it), and the shared word.
struct Peers {
    word: Option<SharedWord>,
    /// Two looks, in milliseconds: how fresh a time in the word must be to be a stall.
    fresh_ms: u64,
    /// The time this process last wrote into the word (0: not since its stall).
    written: AtomicU64,
}

impl Answer for Peers {
    fn answer(&self, _note: u64) {}

    fn share(&self, stalled_here: bool) -> bool {
        let Some(SharedWord(word)) = self.word else {
            return false;
        };
        let now = monotonic_ms();
        let written = self.written.load(Ordering::Relaxed);
        if stalled_here {
            word.store(now, Ordering::Relaxed);
            self.written.store(now, Ordering::Relaxed);
            return false;
        }
        if written != 0 {
            // Our stall is over: the others resume at their next look, unless another
            // process has written since.
            let _ = word.compare_exchange(written, 0, Ordering::Relaxed, Ordering::Relaxed);
            self.written.store(0, Ordering::Relaxed);
        }
        let seen = word.load(Ordering::Relaxed);
        seen != 0 && now.saturating_sub(seen) <= self.fresh_ms
    }
}

impl Deadline {
    /// A deadline of `limit` (none for `None`), with its watchdog thread started; the
    /// thread ends when the `Deadline` is dropped. With `shared`, stalls are told to
    /// and learnt from the other processes that share it.
    pub fn new(limit: Option<Duration>, shared: Option<SharedWord>) -> std::io::Result<Deadline> {
        let Some(limit) = limit else {
            return Ok(Deadline { watch: None });
        };
        let look = u64::try_from(look_every(limit).as_millis()).unwrap_or(u64::MAX);
        let peers = Peers {
            word: shared,
            fresh_ms: look.max(1).saturating_mul(2),
            written: AtomicU64::new(0),
        };
        Ok(Deadline {
            watch: Some(Watch {
                watchdog: Watchdog::start(limit, peers)?,
                slots: ThreadLocal::new(),
            }),
        })
    }

    /// `Some(lookup())`, or `None` without running it while a lookup (here or in
    /// another process) has been stalled for the deadline or longer (the caller answers
    /// late). A lookup the watchdog claimed still answers with its own result when it
    /// returns: nothing else has answered its request.
    #[inline]
    pub fn run<T>(&self, lookup: impl FnOnce() -> T) -> Option<T> {
        let Some(Watch { watchdog, slots }) = &self.watch else {
            return Some(lookup());
        };
        let slot = slots.get_or(|| watchdog.slot());
        let turn = watchdog.begin(slot, 0)?;
        let answer = lookup();
        watchdog.end(slot, turn);
        Some(answer)
    }

    /// Whether lookups are answered late now (for tests and logs).
    pub fn stalled(&self) -> bool {
        self.watch.as_ref().is_some_and(|w| w.watchdog.stalled())
    }
}

impl Drop for Deadline {
    /// The watchdog thread ends.
    fn drop(&mut self) {
        if let Some(w) = &self.watch {
            w.watchdog.stop();
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
