//! [`Config::lookup_deadline`]: a request the backend has not answered within the
//! deadline gets a `503` (and its connection is closed), and so does every request
//! while that lookup stays stalled; then the server resolves again.
//!
//! A lookup runs on the event-loop thread that reads the request (a thread hop would
//! cost more than the lookup), so a stalled one cannot be abandoned: the
//! **watchdog**, a thread of its own, answers in its place, as the line protocols'
//! watchdog does (noidr's `deadline` module). Each server thread has a [`Slot`]:
//! before a lookup it stamps the slot with the request's number (one store, to a cache
//! line no other thread writes) and the connection's socket; after it, it takes the
//! slot back (`BUSY` → `IDLE`, one compare-and-swap). The watchdog looks ten times per
//! deadline; a slot it has seen `BUSY` with the same stamp for 9/10 of a deadline is
//! claimed (`BUSY` → `CLAIMED`, compare-and-swap): the watchdog writes a whole `503`
//! response with `Connection: close` on the socket and shuts it down, then marks the
//! slot `ANSWERED`. Exactly one of the two compare-and-swaps succeeds, so a request is
//! answered once: by the watchdog, or by the worker (which, finding its slot claimed,
//! waits for `ANSWERED` and closes the connection). While earlier responses of the
//! connection are still unsent, the watchdog only shuts the socket down: a `503` written
//! ahead of them would answer the wrong request.
//!
//! While any claimed lookup has not returned, requests are answered `503` at once
//! without a lookup (one load of a counter per request), and `/health` says so.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const IDLE: u64 = 0;
const BUSY: u64 = 1;
const CLAIMED: u64 = 2;
const ANSWERED: u64 = 3;
const PHASE: u64 = 3;
/// Stamp bit: the request is a HEAD (the 503 then has no body).
const HEAD: u64 = 4;
/// Stamp bit: the watchdog must not write on the socket, only shut it down.
const QUIET: u64 = 8;
/// The request number starts above the stamp bits.
const SEQ_SHIFT: u32 = 4;

/// The watchdog looks this many times per deadline, and at most every millisecond.
const LOOKS: u32 = 10;
const MIN_LOOK: Duration = Duration::from_millis(1);

/// One server thread's lookup in progress ([`Watch::slot`]; the thread keeps it).
#[derive(Default)]
pub(crate) struct Slot {
    /// Request number (bits 4..), QUIET (bit 3), HEAD (bit 2), phase (bits 0..2).
    turn: AtomicU64,
    /// The socket of the request in progress.
    fd: AtomicI32,
    /// The thread's requests so far (a stamp is never reused); written by that thread
    /// only.
    seq: AtomicU64,
}

/// A server's deadline: the worker threads' slots and the watchdog's state.
pub(crate) struct Watch {
    deadline: Duration,
    slots: Mutex<Vec<Arc<Slot>>>,
    /// Claimed lookups that have not returned yet.
    stalled: AtomicUsize,
    stop: AtomicBool,
}

/// What came of a lookup under a deadline.
pub(crate) enum Outcome<T> {
    /// The lookup's own result.
    Answered(T),
    /// Another lookup is stalled: answer 503 without looking up.
    Stalled,
    /// This lookup was claimed: the watchdog has answered it (or, `QUIET`, only shut
    /// the socket down); the connection is to be closed.
    Claimed,
}

impl Watch {
    /// A watch with `deadline`, and its watchdog thread (stopped by [`Watch::stop`]).
    pub(crate) fn start(deadline: Duration) -> std::io::Result<Arc<Watch>> {
        let watch = Arc::new(Watch {
            deadline,
            slots: Mutex::new(Vec::new()),
            stalled: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let w = watch.clone();
        std::thread::Builder::new()
            .name("noidr-watchdog".into())
            .spawn(move || w.watch())?;
        Ok(watch)
    }

    /// A slot for one server thread's lookups, watched from now on.
    pub(crate) fn slot(&self) -> Arc<Slot> {
        let slot = Arc::new(Slot::default());
        self.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(slot.clone());
        slot
    }

    /// End the watchdog thread (at its next look).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Whether a claimed lookup is still stalled.
    pub(crate) fn stalled(&self) -> bool {
        self.stalled.load(Ordering::Acquire) > 0
    }

    /// The 503's text.
    pub(crate) fn message(&self) -> String {
        format!(
            "no answer from the store within {} s\n",
            self.deadline.as_secs_f64()
        )
    }

    /// Run `lookup` for a request on socket `fd` (a HEAD request if `head`; the
    /// watchdog writes its 503 there only if `may_write`), stamped in `slot` (the
    /// calling thread's own).
    pub(crate) fn run<T>(
        &self,
        slot: &Slot,
        fd: RawFd,
        head: bool,
        may_write: bool,
        lookup: impl FnOnce() -> T,
    ) -> Outcome<T> {
        if self.stalled() {
            return Outcome::Stalled;
        }
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        slot.seq.store(seq, Ordering::Relaxed);
        let busy = (seq << SEQ_SHIFT)
            | if head { HEAD } else { 0 }
            | if may_write { 0 } else { QUIET }
            | BUSY;
        slot.fd.store(fd, Ordering::Relaxed);
        slot.turn.store(busy, Ordering::Release);
        let result = lookup();
        if slot
            .turn
            .compare_exchange(busy, IDLE, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return Outcome::Answered(result);
        }
        // Claimed: the watchdog is answering (or has answered) this request.
        while slot.turn.load(Ordering::Acquire) & PHASE != ANSWERED {
            std::thread::yield_now();
        }
        slot.turn.store(IDLE, Ordering::Release);
        if self.stalled.fetch_sub(1, Ordering::AcqRel) == 1 {
            log::warn!("the store answers again; resolving");
        }
        Outcome::Claimed
    }

    /// The watchdog thread.
    fn watch(&self) {
        let look = (self.deadline / LOOKS).max(MIN_LOOK);
        // Per slot (by position): the BUSY stamp seen, and when it was first seen.
        let mut seen: Vec<Option<(u64, Instant)>> = Vec::new();
        while !self.stop.load(Ordering::Acquire) {
            std::thread::sleep(look);
            let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            seen.resize(slots.len(), None);
            for (slot, seen) in slots.iter().zip(&mut seen) {
                let turn = slot.turn.load(Ordering::Acquire);
                if turn & PHASE != BUSY {
                    *seen = None;
                    continue;
                }
                let since = match *seen {
                    Some((t, since)) if t == turn => since,
                    _ => {
                        *seen = Some((turn, Instant::now()));
                        continue;
                    }
                };
                if since.elapsed() + look < self.deadline {
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
                    "a request had no answer from the store within {:?}; answering 503 \
                     until the store answers",
                    self.deadline
                );
                answer_503(
                    slot.fd.load(Ordering::Relaxed),
                    turn & HEAD != 0,
                    turn & QUIET == 0,
                    &self.message(),
                );
                slot.turn.store(turn & !PHASE | ANSWERED, Ordering::Release);
            }
        }
    }
}

/// Write a whole `503` response on `fd` (if `write`) and shut the socket down, so that
/// the connection's own (late) response can never follow it.
fn answer_503(fd: RawFd, head: bool, write: bool, body: &str) {
    let mut response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         content-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
        body.len()
    );
    if !head {
        response.push_str(body);
    }
    let mut rest = if write { response.as_bytes() } else { &[] };
    while !rest.is_empty() {
        // SAFETY: `fd` is the socket of the connection whose request is claimed: its
        // server thread is still inside the lookup (it waits for ANSWERED before
        // returning to its event loop, which owns and closes the socket), so the
        // descriptor is not closed or reused. `rest` is a valid buffer.
        let n = unsafe {
            libc::send(
                fd,
                rest.as_ptr().cast(),
                rest.len(),
                libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
            )
        };
        if n <= 0 {
            // A full socket buffer (a client that does not read) or a gone client: the
            // shutdown below still ends the connection.
            break;
        }
        rest = &rest[n as usize..];
    }
    // SAFETY: as above, `fd` is a live socket descriptor.
    unsafe {
        libc::shutdown(fd, libc::SHUT_RDWR);
    }
}
