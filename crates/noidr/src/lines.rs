//! The stdin/stdout line loop: exactly one answer line per request line, in order.
//!
//! **Architecture invariant: every request line gets exactly one answer line.** Apache
//! reads one line per lookup with no framing; a missing or extra line desynchronises
//! every later answer. So input is read as raw bytes (invalid UTF-8 cannot stop the
//! loop), a line longer than [`MAX_LINE`] is consumed to its end and answered with one
//! error line, and the protocol functions themselves always append exactly one line.
//!
//! Output is flushed after each answer unless more input is already buffered: then the
//! answers of pipelined requests are written together (Apache sends one request at a
//! time, so it always gets an immediate flush; a pipelining client gets batching).
//! Complete request lines that are already buffered are answered as one batch, a
//! large batch by two threads that take it [`SHARE`] requests at a time (its answers
//! still go out in order): a pipelining client is then served by both cores, while a
//! lone request is answered at once on the thread that read it (see ARCHITECTURE.md,
//! "Performance"). Each batch is answered within the lookup deadline: the roles of
//! the threads that read, answer and watch are in [`crate::deadline`].

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Longest request line answered; Apache's own limit (`LimitRequestLine`) is 8190.
pub const MAX_LINE: usize = 64 * 1024;

/// Answers batched before a forced flush, in bytes.
const MAX_PENDING: usize = 64 * 1024;

/// Input buffer size.
const READ_BUFFER: usize = 64 * 1024;

/// Most buffered request lines answered as one batch (a batch also ends where the read
/// buffer does). Each batch starts a second thread and ends waiting for it, so the
/// fewer batches, the less time the cores wait.
const MAX_BATCH: usize = 4096;

/// Batches at least this long are shared by two threads (below, starting a thread
/// costs more than it saves).
const PARALLEL_MIN: usize = 64;

/// Requests a thread takes at a time from a shared batch: small shares let one thread
/// do the rest while the other is preempted, where fixed halves would make the first
/// to finish wait for the other.
const SHARE: usize = 16;

/// Capacity a request slot keeps between batches; a longer line's buffer is given back.
const LINE_KEPT: usize = 1024;

/// One request line of a batch (terminator stripped). Slots are kept from one batch to
/// the next, so that reading a line costs no allocation.
#[derive(Default)]
pub struct LineSlot {
    line: Vec<u8>,
    /// The line was longer than [`MAX_LINE`] (`line` is then empty).
    overflow: bool,
}

/// What answers request lines.
pub trait AnswerLines: Sync {
    /// Append exactly one answer line (with its `\n`) for `line` (terminator stripped).
    /// May be called from two threads at once.
    fn answer(&self, line: &[u8], out: &mut Vec<u8>);

    /// Append the one answer line of a request that the store did not answer within
    /// `deadline` (see [`crate::deadline`]); must not touch the store.
    fn late(&self, deadline: Duration, out: &mut Vec<u8>);
}

/// Serve `input` until end of input, answering each request line with `answerer`, each
/// batch within `deadline` (`None`: no deadline). See [`crate::deadline`].
pub fn serve<R, W, A>(
    input: R,
    output: W,
    answerer: A,
    deadline: Option<Duration>,
) -> io::Result<u64>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
    A: AnswerLines + Send + 'static,
{
    crate::deadline::serve(Io::new(input, output), answerer, deadline)
}

/// The loop's input and output: whoever holds it reads request lines and writes
/// answers (one thread at a time; [`crate::deadline`] passes it between two).
pub struct Io<R, W> {
    input: BufReader<R>,
    output: W,
    /// Answers not yet written.
    out: Vec<u8>,
    /// Request lines read so far.
    pub count: u64,
}

impl<R: Read, W: Write> Io<R, W> {
    /// Input and output of a line loop.
    pub fn new(input: R, output: W) -> Io<R, W> {
        Io {
            input: BufReader::with_capacity(READ_BUFFER, input),
            output,
            out: Vec::with_capacity(MAX_PENDING + 1024),
            count: 0,
        }
    }

    /// Read the next batch of request lines into `batch`; 0 at the end of input.
    /// The first line may wait for input; later ones only if already complete in the
    /// buffer, so that a client waiting for answers is never kept waiting.
    pub fn read_batch(&mut self, batch: &mut Batch) -> io::Result<usize> {
        let slots = &mut batch.slots;
        let input = &mut self.input;
        let mut n = 0;
        while n < MAX_BATCH && (n == 0 || memchr::memchr(b'\n', input.buffer()).is_some()) {
            if n == slots.len() {
                slots.push(LineSlot::default());
            }
            let req = &mut slots[n];
            if req.line.capacity() > LINE_KEPT {
                req.line = Vec::new();
            }
            req.line.clear();
            let (read, overflow) = read_line(input, &mut req.line, MAX_LINE)?;
            if read == 0 {
                break;
            }
            if req.line.last() == Some(&b'\n') {
                req.line.pop();
            }
            if req.line.last() == Some(&b'\r') {
                req.line.pop();
            }
            req.overflow = overflow;
            n += 1;
        }
        batch.len = n;
        self.count += n as u64;
        Ok(n)
    }

    /// Take a batch's answers (leaving `answers` empty) after those of earlier
    /// batches, and write them all unless more input is already buffered (then the
    /// answers of pipelined requests go out together, up to [`MAX_PENDING`]).
    pub fn deliver(&mut self, answers: &mut Vec<u8>) -> io::Result<()> {
        if self.out.is_empty() {
            std::mem::swap(&mut self.out, answers);
        } else {
            self.out.extend_from_slice(answers);
        }
        answers.clear();
        if self.input.buffer().is_empty() || self.out.len() >= MAX_PENDING {
            self.flush()?;
        }
        Ok(())
    }

    /// Write every answer not yet written.
    pub fn flush(&mut self) -> io::Result<()> {
        self.output.write_all(&self.out)?;
        self.output.flush()?;
        self.out.clear();
        Ok(())
    }
}

/// A thread's batch of request lines and their answers, kept between batches for
/// their allocations.
#[derive(Default)]
pub struct Batch {
    slots: Vec<LineSlot>,
    /// Request lines in the current batch.
    pub len: usize,
    /// The current batch's answers.
    pub answers: Vec<u8>,
    shares: Vec<Vec<u8>>,
}

impl Batch {
    /// Answer the current batch into `answers`: one line per request, in order.
    pub fn answer(&mut self, answerer: &impl AnswerLines) {
        answer_batch(
            &self.slots[..self.len],
            &mut self.answers,
            &mut self.shares,
            answerer,
        );
    }

    /// Answer every request of the current batch as late.
    pub fn late(&mut self, answerer: &impl AnswerLines, deadline: Duration) {
        for _ in 0..self.len {
            answerer.late(deadline, &mut self.answers);
        }
    }
}

/// Append one answer line per request, in order. A large batch is shared with a
/// second thread, [`SHARE`] requests at a time, each share answered into its own buffer
/// of `shares` (kept between batches for their allocations).
fn answer_batch(
    batch: &[LineSlot],
    out: &mut Vec<u8>,
    shares: &mut Vec<Vec<u8>>,
    answer: &impl AnswerLines,
) {
    if batch.len() < PARALLEL_MIN {
        answer_all(batch, out, answer);
        return;
    }
    let parts: Vec<&[LineSlot]> = batch.chunks(SHARE).collect();
    if shares.len() < parts.len() {
        shares.resize_with(parts.len(), Vec::new);
    }
    let slots: Vec<Mutex<&mut Vec<u8>>> = shares.iter_mut().map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(part) = parts.get(i) else { break };
        let mut buf = slots[i].lock().unwrap_or_else(|e| e.into_inner());
        buf.clear();
        answer_all(part, &mut buf, answer);
    };
    std::thread::scope(|scope| {
        // Without a second thread (the system refused one) this thread takes every share.
        let helper = std::thread::Builder::new().spawn_scoped(scope, work);
        work();
        match helper {
            Ok(helper) => {
                if let Err(panic) = helper.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            Err(e) => log::warn!("answering a batch on one thread: {e}"),
        }
    });
    drop(slots);
    for share in &shares[..parts.len()] {
        out.extend_from_slice(share);
    }
}

/// Append one answer line per request to `out`, in order.
fn answer_all(requests: &[LineSlot], out: &mut Vec<u8>, answer: &impl AnswerLines) {
    for request in requests {
        let before = out.len();
        if request.overflow {
            out.extend_from_slice(
                format!("error: request line longer than {MAX_LINE} bytes\n").as_bytes(),
            );
        } else {
            answer.answer(&request.line, out);
        }
        debug_assert_eq!(
            memchr::memchr_iter(b'\n', &out[before..]).count(),
            1,
            "an answer is exactly one line"
        );
    }
}

/// Read one line (with its `\n`, if any) into `buf`, keeping at most `max` bytes; the
/// rest of a longer line is consumed and dropped. Returns (bytes read, overflowed).
fn read_line<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<(usize, bool)> {
    let mut read = 0;
    let mut overflow = false;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok((read, overflow));
        }
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let n = chunk.len();
        if !overflow {
            if buf.len() + n <= max + 2 {
                buf.extend_from_slice(chunk);
            } else {
                overflow = true;
                buf.clear();
            }
        }
        input.consume(n);
        read += n;
        if done {
            return Ok((read, overflow));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::{Arc, Condvar};

    use super::*;

    /// A closure as an [`AnswerLines`]; a late request is answered `late`.
    pub struct Each<F>(pub F);

    impl<F: Fn(&[u8], &mut Vec<u8>) + Sync> AnswerLines for Each<F> {
        fn answer(&self, line: &[u8], out: &mut Vec<u8>) {
            (self.0)(line, out)
        }
        fn late(&self, _: Duration, out: &mut Vec<u8>) {
            out.extend_from_slice(b"late\n");
        }
    }

    /// Output kept in memory, which a test can wait on.
    #[derive(Clone, Default)]
    pub struct Sink(pub Arc<(Mutex<Vec<u8>>, Condvar)>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 .0.lock().unwrap().extend_from_slice(buf);
            self.0 .1.notify_all();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Sink {
        /// Everything written so far.
        pub fn bytes(&self) -> Vec<u8> {
            self.0 .0.lock().unwrap().clone()
        }

        /// Wait until `lines` answer lines were written (a minute at most: a failure,
        /// not a measure); returns them all.
        pub fn wait_lines(&self, lines: usize) -> Vec<String> {
            let (out, written) = &*self.0;
            let (out, timeout) = written
                .wait_timeout_while(
                    out.lock().unwrap(),
                    std::time::Duration::from_secs(60),
                    |o| memchr::memchr_iter(b'\n', o).count() < lines,
                )
                .unwrap();
            assert!(
                !timeout.timed_out(),
                "only {:?}",
                String::from_utf8_lossy(&out)
            );
            String::from_utf8_lossy(&out)
                .lines()
                .map(str::to_owned)
                .collect()
        }
    }

    /// Serve `input` with `answer`, without and with a (long) deadline: both loops must
    /// give the same output. Returns the request count and the output.
    fn serve_both<R, F>(input: impl Fn() -> R, answer: F) -> (u64, Vec<u8>)
    where
        R: Read + Send + 'static,
        F: Fn(&[u8], &mut Vec<u8>) + Sync + Send + Clone + 'static,
    {
        let mut results = Vec::new();
        for deadline in [None, Some(Duration::from_secs(600))] {
            let sink = Sink::default();
            let n = serve(input(), sink.clone(), Each(answer.clone()), deadline).unwrap();
            results.push((n, sink.bytes()));
        }
        assert!(results[0] == results[1], "with and without a deadline");
        results.pop().unwrap()
    }

    fn run(input: &[u8]) -> Vec<u8> {
        let input = input.to_vec();
        serve_both(
            || io::Cursor::new(input.clone()),
            |line: &[u8], out: &mut Vec<u8>| {
                out.extend_from_slice(format!("[{}]\n", String::from_utf8_lossy(line)).as_bytes())
            },
        )
        .1
    }

    #[test]
    fn one_answer_per_line() {
        assert_eq!(run(b"a\nb\r\n\n\r\nc"), b"[a]\n[b]\n[]\n[]\n[c]\n");
        assert_eq!(run(b""), b"");
        assert_eq!(run(b"x\r\r\n"), b"[x\r]\n");
    }

    #[test]
    fn long_lines_are_consumed_and_answered_once() {
        let mut input = vec![b'a'; MAX_LINE * 3];
        input.extend_from_slice(b"\nnext\n");
        let out = run(&input);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("error: request line longer than {MAX_LINE} bytes\n[next]\n")
        );
        // Exactly at the limit is fine.
        let mut input = vec![b'b'; MAX_LINE];
        input.extend_from_slice(b"\r\n");
        let out = run(&input);
        assert_eq!(out.len(), MAX_LINE + 3);
    }

    /// Input that arrives one piece per read, as from a client writing line by line:
    /// every line is then a batch of its own, read into the same kept slot.
    pub struct Pieces(pub std::collections::VecDeque<Vec<u8>>);

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some(piece) = self.0.front_mut() else {
                return Ok(0);
            };
            let n = piece.len().min(buf.len());
            buf[..n].copy_from_slice(&piece[..n]);
            piece.drain(..n);
            if piece.is_empty() {
                self.0.pop_front();
            }
            Ok(n)
        }
    }

    #[test]
    fn a_kept_slot_holds_only_its_own_line() {
        let long = [vec![b'a'; MAX_LINE * 2], b"\n".to_vec()].concat();
        let full = [vec![b'b'; MAX_LINE], b"\n".to_vec()].concat();
        let pieces = [
            long,
            b"short\n".to_vec(),
            full,
            b"x\r\n".to_vec(),
            b"y".to_vec(),
        ];
        let (n, out) = serve_both(
            || Pieces(pieces.clone().into()),
            |line: &[u8], out: &mut Vec<u8>| {
                out.extend_from_slice(format!("[{}]\n", line.len()).as_bytes())
            },
        );
        assert_eq!(n, 5);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "error: request line longer than {MAX_LINE} bytes\n[5]\n[{MAX_LINE}]\n[1]\n[1]\n"
            )
        );
    }

    #[test]
    fn shared_batches_keep_order_when_one_thread_is_slow() {
        // 10,000 lines arrive at once: batches of up to MAX_BATCH are shared by two
        // threads; every 397th request is slow, so shares finish out of order.
        let input: String = (0..10_000).map(|i| format!("{i}\n")).collect();
        let (n, out) = serve_both(
            || io::Cursor::new(input.clone().into_bytes()),
            |line: &[u8], out: &mut Vec<u8>| {
                let i: u32 = std::str::from_utf8(line).unwrap().parse().unwrap();
                if i.is_multiple_of(397) {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                out.extend_from_slice(format!("<{i}>\n").as_bytes());
            },
        );
        assert_eq!(n, 10_000);
        let expected: String = (0..10_000).map(|i| format!("<{i}>\n")).collect();
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn raw_bytes_survive() {
        assert_eq!(run(b"\xff\x00z\n"), "[\u{FFFD}\u{0}z]\n".as_bytes());
    }
}
