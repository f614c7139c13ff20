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
//! lone request is answered at once on the calling thread (see ARCHITECTURE.md,
//! "Performance").

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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
struct LineSlot {
    line: Vec<u8>,
    /// The line was longer than [`MAX_LINE`] (`line` is then empty).
    overflow: bool,
}

/// Serve `input` until end of input, calling `answer(line, out)` for each request line
/// (terminator stripped); `answer` must append exactly one line to `out`. It may be
/// called from two threads at once.
pub fn serve<R: Read, W: Write>(
    input: R,
    mut output: W,
    answer: impl Fn(&[u8], &mut Vec<u8>) + Sync,
) -> io::Result<u64> {
    let mut input = BufReader::with_capacity(READ_BUFFER, input);
    let mut batch: Vec<LineSlot> = Vec::new();
    let mut out = Vec::with_capacity(MAX_PENDING + 1024);
    let mut shares = Vec::new();
    let mut count = 0u64;
    loop {
        let mut n = 0;
        // The first line may wait for input; later ones only if already complete in the
        // buffer, so that a client waiting for answers is never kept waiting.
        while n < MAX_BATCH && (n == 0 || memchr::memchr(b'\n', input.buffer()).is_some()) {
            if n == batch.len() {
                batch.push(LineSlot::default());
            }
            let req = &mut batch[n];
            if req.line.capacity() > LINE_KEPT {
                req.line = Vec::new();
            }
            req.line.clear();
            let (read, overflow) = read_line(&mut input, &mut req.line, MAX_LINE)?;
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
        if n == 0 {
            break;
        }
        count += n as u64;
        answer_batch(&batch[..n], &mut out, &mut shares, &answer);
        if input.buffer().is_empty() || out.len() >= MAX_PENDING {
            output.write_all(&out)?;
            output.flush()?;
            out.clear();
        }
    }
    output.write_all(&out)?;
    output.flush()?;
    Ok(count)
}

/// Append one answer line per request, in order. A large batch is shared with a
/// second thread, [`SHARE`] requests at a time, each share answered into its own buffer
/// of `shares` (kept between batches for their allocations).
fn answer_batch(
    batch: &[LineSlot],
    out: &mut Vec<u8>,
    shares: &mut Vec<Vec<u8>>,
    answer: &(impl Fn(&[u8], &mut Vec<u8>) + Sync),
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
fn answer_all(requests: &[LineSlot], out: &mut Vec<u8>, answer: &impl Fn(&[u8], &mut Vec<u8>)) {
    for request in requests {
        let before = out.len();
        if request.overflow {
            out.extend_from_slice(
                format!("error: request line longer than {MAX_LINE} bytes\n").as_bytes(),
            );
        } else {
            answer(&request.line, out);
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
mod tests {
    use super::*;

    fn run(input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        serve(input, &mut out, |line, out| {
            out.extend_from_slice(format!("[{}]\n", String::from_utf8_lossy(line)).as_bytes())
        })
        .unwrap();
        out
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
    struct Pieces(std::collections::VecDeque<Vec<u8>>);

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
        let mut out = Vec::new();
        let n = serve(Pieces(pieces.into()), &mut out, |line, out| {
            out.extend_from_slice(format!("[{}]\n", line.len()).as_bytes())
        })
        .unwrap();
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
        let mut out = Vec::new();
        let n = serve(input.as_bytes(), &mut out, |line, out| {
            let i: u32 = std::str::from_utf8(line).unwrap().parse().unwrap();
            if i.is_multiple_of(397) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            out.extend_from_slice(format!("<{i}>\n").as_bytes());
        })
        .unwrap();
        assert_eq!(n, 10_000);
        let expected: String = (0..10_000).map(|i| format!("<{i}>\n")).collect();
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn raw_bytes_survive() {
        assert_eq!(run(b"\xff\x00z\n"), "[\u{FFFD}\u{0}z]\n".as_bytes());
    }
}
