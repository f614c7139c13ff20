//! The lookup deadline inside a web server's worker processes: noid-serving's one
//! watchdog ([`noid_serving::deadline`], as noidr and `noid-http` use it), and the word of
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

use noid_serving::deadline::{look_every, Answer, Slot, Watchdog};
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
    /// The clock the word's times are read from: [`monotonic_ms`], the same in every
    /// process (the tests give one they move themselves).
    now_ms: fn() -> u64,
}

impl Peers {
    /// The peers of a `limit` deadline sharing `word`, timed by `now_ms`.
    fn new(limit: Duration, word: Option<SharedWord>, now_ms: fn() -> u64) -> Peers {
        let look = u64::try_from(look_every(limit).as_millis()).unwrap_or(u64::MAX);
        Peers {
            word,
            fresh_ms: look.max(1).saturating_mul(2),
            written: AtomicU64::new(0),
            now_ms,
        }
    }
}

impl Answer for Peers {
    fn answer(&self, _note: u64) {}

    fn share(&self, stalled_here: bool) -> bool {
        let Some(SharedWord(word)) = self.word else {
            return false;
        };
        let now = (self.now_ms)();
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
        let peers = Peers::new(limit, shared, monotonic_ms);
        Ok(Deadline::watched_by(Watchdog::start(limit, peers)?))
    }

    /// A deadline that `watchdog` keeps (its own thread's, or one the tests make look).
    fn watched_by(watchdog: Arc<Watchdog<Peers>>) -> Deadline {
        Deadline {
            watch: Some(Watch {
                watchdog,
                slots: ThreadLocal::new(),
            }),
        }
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

    const LIMIT: Duration = Duration::from_millis(200);

    /// A deadline whose watchdog looks only when the test says, at the time it gives
    /// (no thread, no clock read): what it does is the same on a loaded machine.
    fn at_the_tests_looks(shared: Option<SharedWord>) -> (Deadline, Arc<Watchdog<Peers>>) {
        let watchdog = Watchdog::new(LIMIT, Peers::new(LIMIT, shared, test_clock));
        (Deadline::watched_by(watchdog.clone()), watchdog)
    }

    /// The shared word's clock in [`a_stall_is_shared_through_the_word`], in ms.
    static TEST_CLOCK: AtomicU64 = AtomicU64::new(1_000);

    fn test_clock() -> u64 {
        TEST_CLOCK.load(Ordering::Relaxed)
    }

    /// A lookup that waits until the test releases it, run on a thread of its own;
    /// returns once it has begun (it holds its slot: the watchdog sees it busy).
    fn stall(
        d: &Arc<Deadline>,
    ) -> (
        mpsc::Sender<()>,
        std::thread::JoinHandle<Option<&'static str>>,
    ) {
        let (release, wait) = mpsc::channel::<()>();
        let (begun, started) = mpsc::channel::<()>();
        let d = d.clone();
        let thread = std::thread::spawn(move || {
            d.run(|| {
                begun.send(()).unwrap();
                wait.recv().map(|()| "answer").unwrap()
            })
        });
        started.recv().unwrap();
        (release, thread)
    }

    #[test]
    fn no_deadline_runs_every_lookup() {
        let d = Deadline::new(None, None).unwrap();
        assert_eq!(d.run(|| "answer"), Some("answer"));
        assert!(!d.stalled());
    }

    /// One thread's lookup stalls; the others run until it has been seen busy for 9/10
    /// of the deadline (noid-serving's rule: the watchdog looks every tenth of it), are
    /// answered late from then on, and run again once it has returned, which still
    /// answers with its own result.
    #[test]
    fn a_stalled_lookup_makes_the_others_late_until_it_returns() {
        let (d, watchdog) = at_the_tests_looks(None);
        let d = Arc::new(d);
        assert_eq!(d.run(|| "answer"), Some("answer"));
        let (release, stalled) = stall(&d);
        let t0 = Instant::now();
        watchdog.look(t0);
        watchdog.look(t0 + LIMIT * 8 / 10);
        assert!(!d.stalled(), "late before 9/10 of the deadline");
        assert_eq!(d.run(|| "answer"), Some("answer"));
        watchdog.look(t0 + LIMIT * 9 / 10);
        assert!(d.stalled());
        assert_eq!(d.run(|| -> &str { panic!("must not run") }), None);
        watchdog.look(t0 + LIMIT * 5);
        assert!(d.stalled(), "still stalled: the lookup has not returned");
        release.send(()).unwrap();
        assert_eq!(stalled.join().unwrap(), Some("answer"));
        assert!(!d.stalled(), "resolving again as soon as it returned");
        assert_eq!(d.run(|| "answer"), Some("answer"));
    }

    /// Two processes' deadlines sharing a word: a stall in one makes the other answer
    /// late at its next look, without a stalled lookup of its own; both resolve after
    /// it. A time in the word older than two looks (its writer killed while stalled)
    /// is no stall.
    #[test]
    fn a_stall_is_shared_through_the_word() {
        let word: &'static mut u64 = Box::leak(Box::new(0));
        // SAFETY: a leaked, aligned word, used only through atomics.
        let shared = unsafe { SharedWord::new(word) };
        let (a, wa) = at_the_tests_looks(Some(shared));
        let (b, wb) = at_the_tests_looks(Some(shared));
        let a = Arc::new(a);
        let (release, stalled) = stall(&a);
        let t0 = Instant::now();
        wa.look(t0);
        wb.look(t0);
        assert!(!b.stalled());
        wa.look(t0 + LIMIT);
        assert!(a.stalled());
        assert!(!b.stalled(), "b learnt before its look");
        wb.look(t0 + LIMIT);
        assert!(b.stalled());
        assert_eq!(b.run(|| -> &str { panic!("must not run") }), None);
        // Two looks (2 × 20 ms) after a's last write, b still believes it ...
        TEST_CLOCK.fetch_add(40, Ordering::Relaxed);
        wb.look(t0 + LIMIT * 2);
        assert!(b.stalled());
        // ... and no longer a millisecond later, as if a had been killed.
        TEST_CLOCK.fetch_add(1, Ordering::Relaxed);
        wb.look(t0 + LIMIT * 2);
        assert!(!b.stalled(), "a stale time in the word");
        // a looks again, still stalled: b hears of it again.
        wa.look(t0 + LIMIT * 2);
        wb.look(t0 + LIMIT * 2);
        assert!(b.stalled());
        // a's lookup returns: a at once, b once a has looked (and cleared the word).
        release.send(()).unwrap();
        assert_eq!(stalled.join().unwrap(), Some("answer"));
        assert!(!a.stalled());
        wb.look(t0 + LIMIT * 3);
        assert!(b.stalled(), "a has not looked since");
        wa.look(t0 + LIMIT * 3);
        wb.look(t0 + LIMIT * 3);
        assert!(!b.stalled());
        assert_eq!(b.run(|| "answer"), Some("answer"));
        assert_eq!(a.run(|| "answer"), Some("answer"));
    }

    /// The watchdog's own thread claims a stalled lookup (no time is asserted: the test
    /// waits for the claim, however long it takes).
    #[test]
    fn the_watchdog_thread_claims_a_stalled_lookup() {
        let d = Arc::new(Deadline::new(Some(Duration::from_millis(20)), None).unwrap());
        let (release, stalled) = stall(&d);
        while !d.stalled() {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(d.run(|| -> &str { panic!("must not run") }), None);
        release.send(()).unwrap();
        assert_eq!(stalled.join().unwrap(), Some("answer"));
        assert!(!d.stalled());
    }
}
