//! A deadline for every request of the line protocols, without a thread hand-off per
//! request.
//!
//! Apache serialises every `RewriteMap prg:` lookup under one mutex: one lookup stalled
//! on the store (a hung disk, a network file system gone away) would stall the whole web
//! server. So a batch of request lines (one line, under Apache) that the store has not
//! answered within the deadline is answered with the protocol's error line instead, and
//! so is every request after it until the stalled lookup returns; then noidr resolves
//! again.
//!
//! Two threads take turns at two roles:
//!
//! * The **server** holds the [`Io`] (behind a mutex) while it reads a batch of request
//!   lines, stamps the shared `turn` word with the batch's number and size (`BUSY`: one
//!   store), lets go of the `Io`, resolves the batch into its own buffer, and then takes
//!   the turn back (`BUSY` → `IDLE`, one compare-and-swap) and the `Io` to deliver the
//!   answers. Nothing else is written per request, and nothing is handed to another
//!   thread.
//! * The **watchdog** wakes ten times per deadline and reads `turn`. A batch it has seen
//!   `BUSY` for 9/10 of a deadline (it can have started up to a tenth before the first
//!   look) is *claimed* (`BUSY` → `CLAIMED`, compare-and-swap): the watchdog takes the
//!   `Io`, delivers one late answer per request of that batch, and becomes the server.
//!   While `turn` stays `CLAIMED` it answers every request as late without touching the
//!   store.
//! * The stalled thread, when its lookup returns, fails to take the turn back (it was
//!   claimed), drops its answers, sets `turn` to `IDLE` (the new server resolves again
//!   from its next batch on) and becomes the watchdog.
//!
//! **Invariant: each request line gets exactly one answer line, in order.** A batch's
//! answers are delivered by whoever wins the one compare-and-swap on its `BUSY` stamp
//! (the server taking the turn back, or the watchdog claiming it), and the next batch is
//! read only by the holder of the `Io` after that delivery.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::lines::{AnswerLines, Batch, Io};

/// Default `--lookup-deadline`, in seconds.
pub const DEFAULT_SECONDS: f64 = 2.0;

/// The watchdog looks this many times per deadline.
const LOOKS: u32 = 10;

/// The watchdog looks at most this often (a very short deadline is met less exactly).
const MIN_LOOK: Duration = Duration::from_millis(1);

// `turn`: the batch number (bits 16..), its size (bits 2..16, at most MAX_BATCH = 4096)
// and the phase (bits 0..2).
const IDLE: u64 = 0;
const BUSY: u64 = 1;
const CLAIMED: u64 = 2;
const PHASE: u64 = 3;

fn stamp(seq: u64, len: usize, phase: u64) -> u64 {
    (seq << 16) | ((len as u64) << 2) | phase
}

fn seq_of(turn: u64) -> u64 {
    turn >> 16
}

fn len_of(turn: u64) -> usize {
    ((turn >> 2) & 0x3fff) as usize
}

/// What both threads share.
struct Shared<R, W, A> {
    turn: AtomicU64,
    io: Mutex<Io<R, W>>,
    answerer: A,
    deadline: Option<Duration>,
    /// The loop's result, once the input ended or could not be read or written.
    end: Mutex<Option<io::Result<u64>>>,
    ended: Condvar,
}

/// What a thread does after its turn at a role.
enum Next {
    /// The server's batch was claimed: watch.
    Watch,
    /// The watchdog claimed a batch: serve, first delivering this many late answers.
    Serve(usize),
    /// The loop is over.
    End,
}

/// Serve request lines from `io` until the end of input (see the module's doc).
/// Returns the number of request lines. Without a deadline there is no watchdog and the
/// calling thread serves.
pub fn serve<R, W, A>(io: Io<R, W>, answerer: A, deadline: Option<Duration>) -> io::Result<u64>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
    A: AnswerLines + Send + 'static,
{
    let shared = Arc::new(Shared {
        turn: AtomicU64::new(IDLE),
        io: Mutex::new(io),
        answerer,
        deadline,
        end: Mutex::new(None),
        ended: Condvar::new(),
    });
    if deadline.is_none() {
        take_turns(&shared, Next::Serve(0));
    } else {
        // Both roles on threads of their own: a stalled lookup may outlive the loop (the
        // input ended meanwhile), and the caller must not wait for it.
        for first in [Next::Serve(0), Next::Watch] {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("noidr-lines".into())
                .spawn(move || take_turns(&shared, first))?;
        }
    }
    let mut end = lock(&shared.end);
    loop {
        if let Some(result) = end.take() {
            return result;
        }
        end = shared.ended.wait(end).unwrap_or_else(|e| e.into_inner());
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One thread's life: roles in turn until the loop ends.
fn take_turns<R: Read, W: Write, A: AnswerLines>(shared: &Shared<R, W, A>, first: Next) {
    let mut batch = Batch::default();
    let mut next = first;
    loop {
        next = match next {
            Next::Serve(late) => serve_turn(shared, &mut batch, late),
            Next::Watch => watch(shared),
            Next::End => return,
        };
    }
}

/// The loop ended with `result`: tell the caller and the watchdog.
fn finish<R, W, A>(shared: &Shared<R, W, A>, result: io::Result<u64>) -> Next {
    let mut end = lock(&shared.end);
    if end.is_none() {
        *end = Some(result);
    }
    shared.ended.notify_all();
    Next::End
}

/// The server's turn; `late` answers are owed first (a batch just claimed).
fn serve_turn<R: Read, W: Write, A: AnswerLines>(
    shared: &Shared<R, W, A>,
    batch: &mut Batch,
    late: usize,
) -> Next {
    let deadline = shared.deadline.unwrap_or(Duration::MAX);
    let mut io = lock(&shared.io);
    let mut seq = seq_of(shared.turn.load(Ordering::Acquire));
    let mut stalled = late > 0;
    if stalled {
        batch.answers.clear();
        for _ in 0..late {
            shared.answerer.late(deadline, &mut batch.answers);
        }
        if let Err(e) = io.deliver(&mut batch.answers) {
            return finish(shared, Err(e));
        }
    }
    loop {
        let n = match io.read_batch(batch) {
            Ok(0) => {
                let result = io.flush().map(|()| io.count);
                return finish(shared, result);
            }
            Ok(n) => n,
            Err(e) => return finish(shared, Err(e)),
        };
        batch.answers.clear();
        if stalled {
            if shared.turn.load(Ordering::Acquire) & PHASE == CLAIMED {
                batch.late(&shared.answerer, deadline);
                if let Err(e) = io.deliver(&mut batch.answers) {
                    return finish(shared, Err(e));
                }
                continue;
            }
            log::warn!("the store answers again; resolving");
            stalled = false;
        }
        seq += 1;
        let busy = stamp(seq, n, BUSY);
        shared.turn.store(busy, Ordering::Release);
        drop(io);
        batch.answer(&shared.answerer);
        let idle = stamp(seq, n, IDLE);
        if shared
            .turn
            .compare_exchange(busy, idle, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // Claimed: the watchdog answered this batch and serves now. Back from the
            // stall, this thread lets it resolve again and watches in its place.
            shared.turn.store(idle, Ordering::Release);
            return Next::Watch;
        }
        io = lock(&shared.io);
        if let Err(e) = io.deliver(&mut batch.answers) {
            return finish(shared, Err(e));
        }
    }
}

/// The watchdog's turn: until the loop ends or a batch is claimed.
fn watch<R, W, A>(shared: &Shared<R, W, A>) -> Next {
    let Some(deadline) = shared.deadline else {
        return Next::End;
    };
    let look = (deadline / LOOKS).max(MIN_LOOK);
    // The BUSY stamp seen at the last look, and when it was first seen.
    let mut seen: Option<(u64, Instant)> = None;
    let mut end = lock(&shared.end);
    loop {
        if end.is_some() {
            return Next::End;
        }
        end = shared
            .ended
            .wait_timeout(end, look)
            .unwrap_or_else(|e| e.into_inner())
            .0;
        if end.is_some() {
            return Next::End;
        }
        let turn = shared.turn.load(Ordering::Acquire);
        if turn & PHASE != BUSY {
            seen = None;
            continue;
        }
        let since = match seen {
            Some((t, since)) if t == turn => since,
            _ => {
                seen = Some((turn, Instant::now()));
                continue;
            }
        };
        if since.elapsed() + look < deadline {
            continue;
        }
        let claimed = turn & !PHASE | CLAIMED;
        if shared
            .turn
            .compare_exchange(turn, claimed, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            log::warn!(
                "request {} ({} lines) had no answer from the store within {deadline:?}; \
                 answering errors until the store answers",
                seq_of(turn),
                len_of(turn)
            );
            return Next::Serve(len_of(turn));
        }
        seen = None;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::sync::Condvar;

    use super::*;
    use crate::lines::tests::{Each, Sink};
    use crate::lines::Io;

    /// Input written by the test piece by piece; its end when the sender is dropped.
    struct Chan {
        rx: Receiver<Vec<u8>>,
        piece: Vec<u8>,
    }

    impl Read for Chan {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.piece.is_empty() {
                match self.rx.recv() {
                    Ok(p) => self.piece = p,
                    Err(_) => return Ok(0),
                }
            }
            let n = self.piece.len().min(buf.len());
            buf[..n].copy_from_slice(&self.piece[..n]);
            self.piece.drain(..n);
            Ok(n)
        }
    }

    /// A gate that a stalled answer waits at until the test opens it.
    struct Gate(Mutex<bool>, Condvar);

    impl Gate {
        const fn new() -> Gate {
            Gate(Mutex::new(false), Condvar::new())
        }
        fn wait(&self) {
            let _open = self.1.wait_while(lock(&self.0), |open| !*open).unwrap();
        }
        fn open(&self) {
            *lock(&self.0) = true;
            self.1.notify_all();
        }
    }

    /// A line loop on its own thread: its input, output, and result.
    struct Loop {
        tx: Option<Sender<Vec<u8>>>,
        sink: Sink,
        sent: usize,
        done: std::thread::JoinHandle<io::Result<u64>>,
    }

    impl Loop {
        fn start<F>(answer: F, deadline: Duration) -> Loop
        where
            F: Fn(&[u8], &mut Vec<u8>) + Sync + Send + 'static,
        {
            let (tx, rx) = channel();
            let sink = Sink::default();
            let io = Io::new(
                Chan {
                    rx,
                    piece: Vec::new(),
                },
                sink.clone(),
            );
            let done = std::thread::spawn(move || serve(io, Each(answer), Some(deadline)));
            Loop {
                tx: Some(tx),
                sink,
                sent: 0,
                done,
            }
        }

        /// Send request lines in one piece and wait for their answers; returns them.
        fn ask(&mut self, lines: &[&str]) -> Vec<String> {
            let piece: String = lines.iter().map(|l| format!("{l}\n")).collect();
            self.tx.as_ref().unwrap().send(piece.into_bytes()).unwrap();
            self.sent += lines.len();
            let all = self.sink.wait_lines(self.sent);
            assert_eq!(all.len(), self.sent, "one answer line per request: {all:?}");
            all[self.sent - lines.len()..].to_vec()
        }

        /// Probe until the loop resolves again; then it must stay in step.
        fn assert_recovers(&mut self) {
            let mut probes = 0;
            while self.ask(&["probe"]) == ["late"] {
                probes += 1;
                assert!(probes < 100_000, "never resolved again");
                std::thread::yield_now();
            }
            for i in 0..5 {
                let p = format!("p{i}");
                assert_eq!(self.ask(&[&p]), [format!("[{p}]")]);
            }
        }

        fn end(mut self) -> u64 {
            drop(self.tx.take());
            let n = self.done.join().unwrap().unwrap();
            assert_eq!(n, self.sent as u64);
            n
        }
    }

    fn echo(line: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(format!("[{}]\n", String::from_utf8_lossy(line)).as_bytes());
    }

    #[test]
    fn a_stalled_request_is_answered_late_until_it_returns() {
        static GATE: Gate = Gate::new();
        static SECOND: Gate = Gate::new();
        let mut l = Loop::start(
            |line, out| {
                if line == b"stall" {
                    GATE.wait();
                }
                if line == b"again" {
                    SECOND.wait();
                }
                echo(line, out)
            },
            Duration::from_millis(300),
        );
        assert_eq!(l.ask(&["a"]), ["[a]"]);
        // The watchdog answers the stalled request, then every request while it stays
        // stalled, one line each, pipelined or not.
        assert_eq!(l.ask(&["stall"]), ["late"]);
        assert_eq!(l.ask(&["b"]), ["late"]);
        assert_eq!(l.ask(&["c", "d", "e"]), ["late", "late", "late"]);
        GATE.open();
        l.assert_recovers();
        // The thread that was stalled is the watchdog now: a second stall is caught too.
        assert_eq!(l.ask(&["again"]), ["late"]);
        assert_eq!(l.ask(&["f"]), ["late"]);
        SECOND.open();
        l.assert_recovers();
        l.end();
    }

    #[test]
    fn a_stalled_batch_is_answered_late_whole() {
        static GATE: Gate = Gate::new();
        let mut l = Loop::start(
            |line, out| {
                if line == b"50" {
                    GATE.wait();
                }
                echo(line, out)
            },
            Duration::from_millis(300),
        );
        // 100 pipelined lines: one batch, shared by two threads; one of them stalls.
        let lines: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(l.ask(&lines), vec!["late"; 100]);
        GATE.open();
        l.assert_recovers();
        l.end();
    }

    /// Many short stalls among requests sent one to three at a time, as Apache and a
    /// pipelining client would: every request gets exactly one answer, in order, either
    /// its own or `late`, and the roles change hands again and again.
    #[test]
    fn every_request_gets_one_answer_in_order_through_stalls() {
        let mut l = Loop::start(
            |line, out| {
                let i: u64 = std::str::from_utf8(line).unwrap().parse().unwrap();
                if i.is_multiple_of(37) {
                    std::thread::sleep(Duration::from_millis(100));
                } else if i.is_multiple_of(11) {
                    std::thread::sleep(Duration::from_millis(3));
                }
                echo(line, out)
            },
            Duration::from_millis(20),
        );
        let mut late = 0;
        let mut i = 1u64;
        let mut group = 1;
        while i < 600 {
            group = group % 3 + 1;
            let lines: Vec<String> = (i..i + group).map(|k| k.to_string()).collect();
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            let answers = l.ask(&refs);
            for (answer, k) in answers.iter().zip(&lines) {
                if answer == "late" {
                    late += 1;
                } else {
                    assert_eq!(*answer, format!("[{k}]"));
                }
            }
            if answers.iter().any(|a| a == "late") {
                // A client paced like a web server's, so that stalls end amid requests.
                std::thread::sleep(Duration::from_millis(5));
            }
            i += group;
        }
        assert!(late > 0, "no request was answered late");
        l.end();
    }
}
