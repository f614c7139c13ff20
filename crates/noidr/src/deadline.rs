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
//! The claim protocol is `noid_serving::deadline`'s (one watchdog for every server); what
//! is the line protocols' is here. Two threads take turns at two roles, besides the
//! watchdog's own thread:
//!
//! * The **server** holds the [`Io`] (behind a mutex) while it reads a batch of request
//!   lines, begins a lookup on the one slot (its note: the batch's size), lets go of the
//!   `Io`, resolves the batch into its own buffer, ends the lookup, and takes the `Io`
//!   back to deliver the answers. Nothing is handed to another thread per request.
//! * The **spare** waits for the [`Baton`]. When the watchdog claims a batch, it hands
//!   the baton (the number of late answers owed) to the spare, which takes the `Io`,
//!   delivers one late answer per request of that batch, and becomes the server. While
//!   the claimed lookup has not returned, it answers every request as late without
//!   touching the store.
//! * The stalled thread, when its lookup returns, finds it claimed, drops its answers
//!   and becomes the spare; the server resolves again from its next batch on.
//!
//! **Invariant: each request line gets exactly one answer line, in order.** A batch's
//! answers are delivered by the server if its lookup stands, or by the spare if the
//! watchdog claimed it (exactly one of the two: the claim protocol's compare-and-swap),
//! and the next batch is read only by the holder of the `Io` after that delivery.

use std::io::{self, Read, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use noid_serving::deadline::{Slot, Watchdog};

use crate::lines::{AnswerLines, Batch, Io};

/// Default `--lookup-deadline`, in seconds.
pub const DEFAULT_SECONDS: f64 = 2.0;

/// The line loop's watchdog.
pub type Watch = Watchdog<Baton>;

/// The server's role, handed to the spare thread by the watchdog when it claims a
/// batch.
#[derive(Default)]
pub struct Baton {
    state: Mutex<Handover>,
    handed: Condvar,
}

#[derive(Default)]
struct Handover {
    /// Handed over: late answers owed for the claimed batch.
    owed: Option<usize>,
    /// The loop is over: the spare ends.
    over: bool,
}

impl noid_serving::deadline::Answer for Baton {
    /// The claimed lookup's note is its batch's size.
    fn answer(&self, note: u64) {
        lock(&self.state).owed = Some(note as usize);
        self.handed.notify_all();
    }
}

impl Baton {
    /// Wait for the baton: `Some(owed)` to serve, `None` when the loop is over.
    fn take(&self) -> Option<usize> {
        let mut state = lock(&self.state);
        loop {
            if let Some(owed) = state.owed.take() {
                return Some(owed);
            }
            if state.over {
                return None;
            }
            state = self.handed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn end(&self) {
        lock(&self.state).over = true;
        self.handed.notify_all();
    }
}

/// What both threads share.
struct Shared<R, W, A> {
    io: Mutex<Io<R, W>>,
    answerer: A,
    /// The deadline's watchdog and the loop's one slot in it.
    watched: Option<(Arc<Watch>, Arc<Slot>)>,
    /// The loop's result, once the input ended or could not be read or written.
    end: Mutex<Option<io::Result<u64>>>,
    ended: Condvar,
}

/// What a thread does after its turn at a role.
enum Next {
    /// Serve, first delivering this many late answers (a batch just claimed).
    Serve(usize),
    /// Wait for the baton.
    Spare,
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
    match deadline {
        Some(deadline) => serve_watched(io, answerer, Watch::start(deadline, Baton::default())?),
        None => {
            let shared = Shared::new(io, answerer, None);
            take_turns(&shared, Next::Serve(0));
            shared.result()
        }
    }
}

/// [`serve`] under `watch` (whose thread, if it has one, is stopped at the end).
pub(crate) fn serve_watched<R, W, A>(
    io: Io<R, W>,
    answerer: A,
    watch: Arc<Watch>,
) -> io::Result<u64>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
    A: AnswerLines + Send + 'static,
{
    let slot = watch.slot();
    let shared = Arc::new(Shared::new(io, answerer, Some((watch, slot))));
    // Both roles on threads of their own: a stalled lookup may outlive the loop (the
    // input ended meanwhile), and the caller must not wait for it.
    for first in [Next::Serve(0), Next::Spare] {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("noidr-lines".into())
            .spawn(move || take_turns(&shared, first))?;
    }
    shared.result()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<R, W, A> Shared<R, W, A> {
    fn new(io: Io<R, W>, answerer: A, watched: Option<(Arc<Watch>, Arc<Slot>)>) -> Self {
        Shared {
            io: Mutex::new(io),
            answerer,
            watched,
            end: Mutex::new(None),
            ended: Condvar::new(),
        }
    }

    /// Wait for the loop's result.
    fn result(&self) -> io::Result<u64> {
        let mut end = lock(&self.end);
        loop {
            if let Some(result) = end.take() {
                return result;
            }
            end = self.ended.wait(end).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The loop ended with `result`: tell the caller, the spare and the watchdog.
    fn finish(&self, result: io::Result<u64>) -> Next {
        let mut end = lock(&self.end);
        if end.is_none() {
            *end = Some(result);
        }
        self.ended.notify_all();
        if let Some((watch, _)) = &self.watched {
            watch.answerer().end();
            watch.stop();
        }
        Next::End
    }

    /// The deadline late answers name.
    fn deadline(&self) -> Duration {
        self.watched
            .as_ref()
            .map_or(Duration::MAX, |(w, _)| w.deadline())
    }
}

/// One thread's life: roles in turn until the loop ends.
fn take_turns<R: Read, W: Write, A: AnswerLines>(shared: &Shared<R, W, A>, first: Next) {
    let mut batch = Batch::default();
    let mut next = first;
    loop {
        next = match next {
            Next::Serve(owed) => serve_turn(shared, &mut batch, owed),
            Next::Spare => match &shared.watched {
                Some((watch, _)) => watch.answerer().take().map_or(Next::End, Next::Serve),
                None => Next::End,
            },
            Next::End => return,
        };
    }
}

/// The server's turn; `owed` late answers first (a batch just claimed).
fn serve_turn<R: Read, W: Write, A: AnswerLines>(
    shared: &Shared<R, W, A>,
    batch: &mut Batch,
    owed: usize,
) -> Next {
    let mut io = lock(&shared.io);
    if owed > 0 {
        batch.answers.clear();
        for _ in 0..owed {
            shared.answerer.late(shared.deadline(), &mut batch.answers);
        }
        if let Err(e) = io.deliver(&mut batch.answers) {
            return shared.finish(Err(e));
        }
    }
    loop {
        let n = match io.read_batch(batch) {
            Ok(0) => {
                let result = io.flush().map(|()| io.count);
                return shared.finish(result);
            }
            Ok(n) => n,
            Err(e) => return shared.finish(Err(e)),
        };
        batch.answers.clear();
        match &shared.watched {
            None => batch.answer(&shared.answerer),
            Some((watch, slot)) => match watch.begin(slot, n as u64) {
                // A claimed lookup has not returned: late, without touching the store.
                None => batch.late(&shared.answerer, watch.deadline()),
                Some(turn) => {
                    drop(io);
                    batch.answer(&shared.answerer);
                    if !watch.end(slot, turn) {
                        // Claimed: the spare has answered this batch and serves now.
                        return Next::Spare;
                    }
                    io = lock(&shared.io);
                }
            },
        }
        if let Err(e) = io.deliver(&mut batch.answers) {
            return shared.finish(Err(e));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::time::Instant;

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

    /// A lookup that stalls until the test releases it, and says when it has begun.
    #[derive(Clone)]
    struct Stall {
        begun: Arc<Mutex<Sender<()>>>,
        release: Arc<Mutex<Receiver<()>>>,
    }

    impl Stall {
        /// The stall, the receiver told when it begins, the sender that releases it.
        fn new() -> (Stall, Receiver<()>, Sender<()>) {
            let (begun, begins) = channel();
            let (releases, release) = channel();
            let stall = Stall {
                begun: Arc::new(Mutex::new(begun)),
                release: Arc::new(Mutex::new(release)),
            };
            (stall, begins, releases)
        }

        fn wait(&self) {
            lock(&self.begun).send(()).unwrap();
            lock(&self.release).recv().unwrap();
        }
    }

    /// A line loop on its own thread: its input, output, watchdog and result.
    struct Loop {
        tx: Option<Sender<Vec<u8>>>,
        sink: Sink,
        sent: usize,
        watch: Arc<Watch>,
        done: std::thread::JoinHandle<io::Result<u64>>,
    }

    /// The deadline of the tests whose watchdog has no thread (only its length matters,
    /// not the clock: the test makes the looks).
    const D: Duration = Duration::from_millis(300);

    impl Loop {
        /// A loop under `watch` answering with `answer`.
        fn start<F>(answer: F, watch: Arc<Watch>) -> Loop
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
            let w = watch.clone();
            let done = std::thread::spawn(move || serve_watched(io, Each(answer), w));
            Loop {
                tx: Some(tx),
                sink,
                sent: 0,
                watch,
                done,
            }
        }

        /// A loop whose watchdog looks only when the test says ([`Loop::claim`]): no
        /// answer is late unless the test has the watchdog claim it.
        fn manual<F>(answer: F) -> Loop
        where
            F: Fn(&[u8], &mut Vec<u8>) + Sync + Send + 'static,
        {
            Loop::start(answer, Watch::new(D, Baton::default()))
        }

        /// Send request lines in one piece.
        fn send(&mut self, lines: &[&str]) {
            let piece: String = lines.iter().map(|l| format!("{l}\n")).collect();
            self.tx.as_ref().unwrap().send(piece.into_bytes()).unwrap();
            self.sent += lines.len();
        }

        /// Wait for the answers of the last `n` request lines sent; returns them.
        fn answers(&mut self, n: usize) -> Vec<String> {
            let all = self.sink.wait_lines(self.sent);
            assert_eq!(all.len(), self.sent, "one answer line per request: {all:?}");
            all[self.sent - n..].to_vec()
        }

        /// Send request lines in one piece and wait for their answers; returns them.
        fn ask(&mut self, lines: &[&str]) -> Vec<String> {
            self.send(lines);
            self.answers(lines.len())
        }

        /// Send request lines whose lookup stalls (`begins` says when it has begun),
        /// have the watchdog look twice a deadline apart, and return the answers.
        fn ask_claimed(&mut self, lines: &[&str], begins: &Receiver<()>) -> Vec<String> {
            self.send(lines);
            begins.recv().unwrap();
            let t0 = Instant::now();
            self.watch.look(t0);
            self.watch.look(t0 + D);
            self.answers(lines.len())
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
        let (stall, begins, release) = Stall::new();
        let (again, begins_again, release_again) = Stall::new();
        let mut l = Loop::manual(move |line, out| {
            if line == b"stall" {
                stall.wait();
            }
            if line == b"again" {
                again.wait();
            }
            echo(line, out)
        });
        assert_eq!(l.ask(&["a"]), ["[a]"]);
        // The watchdog answers the stalled request, then every request while it stays
        // stalled, one line each, pipelined or not.
        assert_eq!(l.ask_claimed(&["stall"], &begins), ["late"]);
        assert_eq!(l.ask(&["b"]), ["late"]);
        assert_eq!(l.ask(&["c", "d", "e"]), ["late", "late", "late"]);
        release.send(()).unwrap();
        l.assert_recovers();
        // The thread that was stalled is the spare now: a second stall is caught too.
        assert_eq!(l.ask_claimed(&["again"], &begins_again), ["late"]);
        assert_eq!(l.ask(&["f"]), ["late"]);
        release_again.send(()).unwrap();
        l.assert_recovers();
        l.end();
    }

    #[test]
    fn a_stalled_batch_is_answered_late_whole() {
        let (stall, begins, release) = Stall::new();
        let mut l = Loop::manual(move |line, out| {
            if line == b"50" {
                stall.wait();
            }
            echo(line, out)
        });
        // 100 pipelined lines: one batch, shared by two threads; one of them stalls.
        let lines: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(l.ask_claimed(&lines, &begins), vec!["late"; 100]);
        release.send(()).unwrap();
        l.assert_recovers();
        l.end();
    }

    /// Many stalls among requests sent one to three at a time, as Apache and a
    /// pipelining client would, under the watchdog's own thread and a short deadline:
    /// every request gets exactly one answer, in order, either its own or `late`, and
    /// the roles change hands again and again. Every 37th request stalls until the
    /// watchdog has claimed it (so each of those is late, however slow the machine);
    /// every 11th takes a few milliseconds, which may or may not be claimed.
    #[test]
    fn every_request_gets_one_answer_in_order_through_stalls() {
        let watch = Watch::start(Duration::from_millis(20), Baton::default()).unwrap();
        let w = watch.clone();
        let mut l = Loop::start(
            move |line, out| {
                let i: u64 = std::str::from_utf8(line).unwrap().parse().unwrap();
                if i.is_multiple_of(37) {
                    let start = Instant::now();
                    while !w.stalled() {
                        assert!(start.elapsed() < Duration::from_secs(60), "never claimed");
                        std::thread::sleep(Duration::from_millis(1));
                    }
                } else if i.is_multiple_of(11) {
                    std::thread::sleep(Duration::from_millis(3));
                }
                echo(line, out)
            },
            watch,
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
                let k: u64 = k.parse().unwrap();
                if answer == "late" {
                    late += 1;
                } else {
                    assert_eq!(*answer, format!("[{k}]"));
                    assert!(
                        !k.is_multiple_of(37),
                        "{k} stalled but was not answered late"
                    );
                }
            }
            if answers.iter().any(|a| a == "late") {
                // A client paced like a web server's, so that stalls end amid requests.
                std::thread::sleep(Duration::from_millis(5));
            }
            i += group;
        }
        assert!(late >= 600 / 37, "only {late} requests were answered late");
        l.end();
    }
}
