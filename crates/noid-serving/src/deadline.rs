//! One watchdog for lookup deadlines, for every server that answers from the store: the
//! line protocols (`noidr`), HTTP (`noid-http`), and any server a lookup runs inside.
//!
//! A lookup stalled on the store (a hung disk, a network file system gone away) cannot
//! be abandoned: it runs on the thread that read the request, because a hand-off to
//! another thread per request would cost more than the lookup. So the **watchdog**, a
//! thread of its own, answers in its place, and the server answers every request
//! without a lookup while that lookup stays stalled.
//!
//! Each server thread has a [`Slot`]. Before a lookup it stamps the slot (one store, to
//! a cache line no other server thread writes) with the lookup's number and the phase
//! `BUSY`, after writing a *note* the watchdog needs to answer in its place (a socket,
//! a number of request lines); after the lookup it takes the slot back (`BUSY` →
//! `IDLE`, one compare-and-swap). Nothing else is written per request, and nothing is
//! handed to another thread.
//!
//! The watchdog looks ten times per deadline. A slot it has seen `BUSY` with the same
//! stamp for 9/10 of a deadline (the lookup can have started up to a tenth before the
//! first look) is **claimed** (`BUSY` → `CLAIMED`, compare-and-swap): the watchdog has
//! the server's [`Answer`] answer in the lookup's place (from the note), then marks the
//! slot `ANSWERED`. The stalled thread, when its lookup returns, fails to take its slot
//! back, waits for `ANSWERED` (so that whatever the note names stays alive while the
//! watchdog uses it), and drops its own answer.
//!
//! **Invariant: a lookup is answered exactly once**, by whoever wins the one
//! compare-and-swap on its `BUSY` stamp: the server thread taking its slot back, or the
//! watchdog claiming it. A stamp is never reused (the number grows), so a look at a
//! slot that has moved on to its next lookup never claims it.
//!
//! While any claimed lookup has not returned, [`Watchdog::begin`] refuses lookups
//! ([`Watchdog::stalled`], one load of a counter per request): the server answers at
//! once that the store is not answering.
//!
//! A server whose processes share one store (the web server modules: Apache's children,
//! nginx's workers) tells the others of a stall through [`Answer::share`], which the
//! watchdog calls at every look: while it says another process has a stalled lookup,
//! this process refuses lookups too (the counter holds one more).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::Thread;
use std::time::{Duration, Instant};

// A slot's `turn`: the lookup's number (bits 2..) and its phase (bits 0..2).
const IDLE: u64 = 0;
const BUSY: u64 = 1;
const CLAIMED: u64 = 2;
const ANSWERED: u64 = 3;
const PHASE: u64 = 3;
const SEQ_SHIFT: u32 = 2;

/// The watchdog looks this many times per deadline, and at most every millisecond (a
/// very short deadline is met less exactly).
const LOOKS: u32 = 10;
const MIN_LOOK: Duration = Duration::from_millis(1);

/// What a server does in place of a lookup the watchdog claimed.
pub trait Answer: Send + Sync + 'static {
    /// Answer the claimed lookup whose server thread wrote `note` before it (see
    /// [`Watchdog::begin`]). Runs on the watchdog thread while the lookup is still
    /// stalled; whatever `note` names stays valid until this returns.
    fn answer(&self, note: u64);

    /// At every look, with whether a lookup of this process is claimed and has not
    /// returned: whether another process sharing the store has such a lookup (then this
    /// process refuses lookups too, until a look says otherwise). Runs on the watchdog
    /// thread. The default shares nothing.
    fn share(&self, stalled_here: bool) -> bool {
        let _ = stalled_here;
        false
    }
}

/// How often the watchdog looks for a `deadline`: ten times per deadline, at most every
/// millisecond (a very short deadline is met less exactly).
pub fn look_every(deadline: Duration) -> Duration {
    (deadline / LOOKS).max(MIN_LOOK)
}

/// One server thread's lookup in progress (the thread keeps it; see
/// [`Watchdog::slot`]). Used by one server thread at a time.
#[derive(Default)]
pub struct Slot {
    /// Lookup number and phase.
    turn: AtomicU64,
    /// What the watchdog needs to answer in the lookup's place (written before `turn`).
    note: AtomicU64,
}

/// A lookup begun under the deadline: hand it back to [`Watchdog::end`].
#[must_use = "a begun lookup must be ended"]
pub struct Turn(u64);

/// What came of a lookup under a deadline ([`Watchdog::run`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Watched<T> {
    /// The lookup's own result.
    Answered(T),
    /// Another lookup is stalled: answer without looking up.
    Stalled,
    /// This lookup was claimed: the watchdog has answered in its place.
    Claimed,
}

/// Lookup deadlines for a server's threads (see the module's doc).
pub struct Watchdog<A> {
    deadline: Duration,
    answer: A,
    slots: Mutex<Vec<Arc<Slot>>>,
    /// Per slot (by position): the `BUSY` stamp seen at the last look, and when it was
    /// first seen. Only the looking thread uses it.
    seen: Mutex<Vec<Option<(u64, Instant)>>>,
    /// Claimed lookups that have not returned yet, plus one while [`Answer::share`]
    /// says another process has one.
    stalled: AtomicUsize,
    /// Whether the last [`Answer::share`] said another process has a stalled lookup
    /// (written by the looking thread only).
    elsewhere: AtomicBool,
    stop: AtomicBool,
    /// The watchdog thread, woken by [`Watchdog::stop`].
    thread: Mutex<Option<Thread>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<A: Answer> Watchdog<A> {
    /// A watchdog for `deadline` that answers claimed lookups with `answer`, and its
    /// thread (which ends after [`Watchdog::stop`]).
    pub fn start(deadline: Duration, answer: A) -> std::io::Result<Arc<Watchdog<A>>> {
        let watchdog = Watchdog::new(deadline, answer);
        let w = watchdog.clone();
        let handle = std::thread::Builder::new()
            .name("noid-watchdog".into())
            .spawn(move || w.watch())?;
        *lock(&watchdog.thread) = Some(handle.thread().clone());
        if watchdog.stop.load(Ordering::Acquire) {
            handle.thread().unpark();
        }
        Ok(watchdog)
    }

    /// A watchdog without a thread: nothing is claimed except by [`Watchdog::look`]
    /// (for a caller that keeps its own clock, as tests do).
    pub fn new(deadline: Duration, answer: A) -> Arc<Watchdog<A>> {
        Arc::new(Watchdog {
            deadline,
            answer,
            slots: Mutex::new(Vec::new()),
            seen: Mutex::new(Vec::new()),
            stalled: AtomicUsize::new(0),
            elsewhere: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            thread: Mutex::new(None),
        })
    }

    /// The deadline.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// What answers claimed lookups.
    pub fn answerer(&self) -> &A {
        &self.answer
    }

    /// A slot for one server thread's lookups, watched from now on.
    pub fn slot(&self) -> Arc<Slot> {
        let slot = Arc::new(Slot::default());
        lock(&self.slots).push(slot.clone());
        slot
    }

    /// Whether a claimed lookup has not returned yet (here, or in another process that
    /// [`Answer::share`] hears of).
    #[inline]
    pub fn stalled(&self) -> bool {
        self.stalled.load(Ordering::Acquire) > 0
    }

    /// End the watchdog thread.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = lock(&self.thread).as_ref() {
            thread.unpark();
        }
    }

    /// Begin a lookup on `slot` (the calling thread's), leaving `note` for the
    /// watchdog's [`Answer`]; `None` (no lookup) while another lookup is stalled.
    #[inline]
    pub fn begin(&self, slot: &Slot, note: u64) -> Option<Turn> {
        if self.stalled() {
            return None;
        }
        let last = slot.turn.load(Ordering::Relaxed);
        let busy = ((last >> SEQ_SHIFT) + 1) << SEQ_SHIFT | BUSY;
        slot.note.store(note, Ordering::Relaxed);
        slot.turn.store(busy, Ordering::Release);
        Some(Turn(busy))
    }

    /// End the lookup `turn` on `slot`: `true` if its answer stands, `false` if the
    /// watchdog claimed it and has answered in its place (then the caller drops its
    /// own answer).
    #[inline]
    pub fn end(&self, slot: &Slot, turn: Turn) -> bool {
        let busy = turn.0;
        let idle = busy & !PHASE | IDLE;
        if slot
            .turn
            .compare_exchange(busy, idle, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return true;
        }
        // Claimed: the watchdog is answering (or has answered) in this lookup's place.
        while slot.turn.load(Ordering::Acquire) & PHASE != ANSWERED {
            std::thread::yield_now();
        }
        slot.turn.store(idle, Ordering::Release);
        if self.stalled.fetch_sub(1, Ordering::AcqRel) == 1 {
            log::warn!("the store answers again; resolving");
        }
        false
    }

    /// Run `lookup` on `slot` under the deadline ([`Watchdog::begin`], then
    /// [`Watchdog::end`]).
    #[inline]
    pub fn run<T>(&self, slot: &Slot, note: u64, lookup: impl FnOnce() -> T) -> Watched<T> {
        let Some(turn) = self.begin(slot, note) else {
            return Watched::Stalled;
        };
        let result = lookup();
        if self.end(slot, turn) {
            Watched::Answered(result)
        } else {
            Watched::Claimed
        }
    }

    /// The watchdog thread: a look every tenth of the deadline until stopped.
    fn watch(&self) {
        let every = look_every(self.deadline);
        while !self.stop.load(Ordering::Acquire) {
            std::thread::park_timeout(every);
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            self.look(Instant::now());
        }
    }

    /// One look at every slot at time `now`: claims and answers each lookup seen busy
    /// with the same stamp since 9/10 of a deadline before `now`.
    pub fn look(&self, now: Instant) {
        self.claim(now);
        self.share();
    }

    /// Claim and answer the lookups stalled at `now` (see [`Watchdog::look`]).
    fn claim(&self, now: Instant) {
        let every = look_every(self.deadline);
        let slots = lock(&self.slots);
        let mut seen = lock(&self.seen);
        seen.resize(slots.len(), None);
        for (slot, seen) in slots.iter().zip(seen.iter_mut()) {
            let turn = slot.turn.load(Ordering::Acquire);
            if turn & PHASE != BUSY {
                *seen = None;
                continue;
            }
            let since = match *seen {
                Some((t, since)) if t == turn => since,
                _ => {
                    *seen = Some((turn, now));
                    continue;
                }
            };
            if now.saturating_duration_since(since) + every < self.deadline {
                continue;
            }
            *seen = None;
            let claimed = turn & !PHASE | CLAIMED;
            if slot
                .turn
                .compare_exchange(turn, claimed, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                continue;
            }
            self.stalled.fetch_add(1, Ordering::AcqRel);
            log::warn!(
                "a lookup had no answer from the store within {:?}; answering in its place \
                 until the store answers",
                self.deadline
            );
            // The note was written before the BUSY stamp this thread claimed, and the
            // server thread does not move on before ANSWERED.
            self.answer.answer(slot.note.load(Ordering::Relaxed));
            slot.turn.store(turn & !PHASE | ANSWERED, Ordering::Release);
        }
    }

    /// Tell the other processes whether a lookup of this one is stalled, and refuse
    /// lookups while one of theirs is ([`Answer::share`]).
    fn share(&self) {
        let elsewhere = self.elsewhere.load(Ordering::Relaxed);
        let here = self.stalled.load(Ordering::Acquire) > usize::from(elsewhere);
        let now = self.answer.share(here);
        if now == elsewhere {
            return;
        }
        self.elsewhere.store(now, Ordering::Relaxed);
        if now {
            self.stalled.fetch_add(1, Ordering::AcqRel);
            log::warn!(
                "a lookup in another process had no answer from the store within {:?}; \
                 answering without the store until it does",
                self.deadline
            );
        } else if self.stalled.fetch_sub(1, Ordering::AcqRel) == 1 {
            log::warn!("the store answers again; resolving");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{channel, Sender};

    use super::*;

    /// Sends each note it answers.
    struct Notes(Mutex<Sender<u64>>);

    impl Answer for Notes {
        fn answer(&self, note: u64) {
            lock(&self.0).send(note).unwrap();
        }
    }

    const D: Duration = Duration::from_secs(10);

    fn watchdog() -> (Arc<Watchdog<Notes>>, std::sync::mpsc::Receiver<u64>) {
        let (tx, rx) = channel();
        (Watchdog::new(D, Notes(Mutex::new(tx))), rx)
    }

    #[test]
    fn a_lookup_seen_busy_for_nine_tenths_of_the_deadline_is_claimed_once() {
        let (w, notes) = watchdog();
        let slot = w.slot();
        let t0 = Instant::now();
        let turn = w.begin(&slot, 42).unwrap();
        w.look(t0);
        w.look(t0 + D * 8 / 10);
        assert!(
            notes.try_recv().is_err(),
            "claimed before 9/10 of the deadline"
        );
        assert!(!w.stalled());
        w.look(t0 + D * 9 / 10);
        assert_eq!(notes.try_recv(), Ok(42));
        assert!(w.stalled());
        // While it stays stalled, no lookup begins, on any slot; a later look claims
        // nothing more.
        assert!(w.begin(&w.slot(), 7).is_none());
        assert_eq!(w.run(&slot, 7, || 1), Watched::Stalled);
        w.look(t0 + D * 5);
        assert!(notes.try_recv().is_err());
        // The stalled lookup returns: its answer is dropped, and lookups run again.
        assert!(!w.end(&slot, turn));
        assert!(!w.stalled());
        assert_eq!(w.run(&slot, 8, || 2), Watched::Answered(2));
    }

    #[test]
    fn a_lookup_that_returns_in_time_keeps_its_answer() {
        let (w, notes) = watchdog();
        let slot = w.slot();
        let t0 = Instant::now();
        let turn = w.begin(&slot, 1).unwrap();
        w.look(t0);
        assert!(w.end(&slot, turn));
        // The next lookup on the slot is a new stamp: the time seen busy starts again.
        let turn = w.begin(&slot, 2).unwrap();
        w.look(t0 + D);
        assert!(
            notes.try_recv().is_err(),
            "a new lookup was claimed at first sight"
        );
        assert!(w.end(&slot, turn));
        w.look(t0 + D * 3);
        assert!(notes.try_recv().is_err(), "an idle slot was claimed");
        assert!(!w.stalled());
    }

    #[test]
    fn slots_are_watched_each_on_its_own() {
        let (w, notes) = watchdog();
        let (a, b) = (w.slot(), w.slot());
        let t0 = Instant::now();
        let ta = w.begin(&a, 10).unwrap();
        w.look(t0);
        let tb = w.begin(&b, 20).unwrap();
        w.look(t0 + D);
        assert_eq!(notes.try_recv(), Ok(10));
        assert!(notes.try_recv().is_err());
        assert!(w.end(&b, tb), "b was seen busy only once");
        assert!(!w.end(&a, ta));
    }

    /// The watchdog's own thread claims a lookup that never returns until told to (no
    /// time is asserted: the test waits for the claim, however long it takes).
    #[test]
    fn the_watchdog_thread_claims_a_stalled_lookup() {
        let (tx, notes) = channel();
        let w = Watchdog::start(Duration::from_millis(20), Notes(Mutex::new(tx))).unwrap();
        let slot = w.slot();
        let (release, wait) = channel::<()>();
        let w2 = w.clone();
        let server = std::thread::spawn(move || {
            w2.run(&slot, 5, || {
                wait.recv().unwrap();
                3
            })
        });
        assert_eq!(notes.recv(), Ok(5));
        assert!(w.stalled());
        release.send(()).unwrap();
        assert_eq!(server.join().unwrap(), Watched::Claimed);
        assert!(!w.stalled());
        w.stop();
    }

    /// Two processes' stalls, as a shared word would tell them: entry i is process i's.
    struct Peer(usize, Arc<Mutex<[bool; 2]>>);

    impl Answer for Peer {
        fn answer(&self, _note: u64) {}

        fn share(&self, stalled_here: bool) -> bool {
            let mut peers = lock(&self.1);
            peers[self.0] = stalled_here;
            peers[1 - self.0]
        }
    }

    #[test]
    fn a_stall_in_another_process_refuses_lookups_until_it_is_over() {
        let peers = Arc::new(Mutex::new([false; 2]));
        let a = Watchdog::new(D, Peer(0, peers.clone()));
        let b = Watchdog::new(D, Peer(1, peers));
        let (sa, sb) = (a.slot(), b.slot());
        let t0 = Instant::now();
        let turn = a.begin(&sa, 1).unwrap();
        a.look(t0);
        b.look(t0);
        assert!(!b.stalled());
        // a claims its lookup and says so; b hears it at its next look.
        a.look(t0 + D);
        assert!(a.stalled());
        assert!(!b.stalled(), "b learnt before its look");
        b.look(t0 + D);
        assert!(b.stalled());
        assert_eq!(b.run(&sb, 2, || 1), Watched::Stalled);
        // b's own lookups never began: nothing of b's is claimed, its stall is a's.
        b.look(t0 + D * 3);
        assert!(b.stalled());
        // a's lookup returns; a resolves at once, b after both have looked again.
        assert!(!a.end(&sa, turn));
        assert!(!a.stalled());
        b.look(t0 + D * 4);
        assert!(b.stalled(), "a has not looked since");
        a.look(t0 + D * 4);
        b.look(t0 + D * 4);
        assert!(!b.stalled());
        assert_eq!(b.run(&sb, 3, || 4), Watched::Answered(4));
    }
}
