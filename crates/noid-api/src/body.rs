//! Streamed bodies: a bulk POST's request body read by a directory's thread as it
//! arrives ([`BodyReader`], fed by [`pump`]), and response bodies that come in chunks
//! from a channel ([`Chunks`]): each committed batch's output of a bulk run, sent to
//! the client as soon as it is durable, or what a blocking thread writes as the client
//! takes it ([`produced`]: a search's export of every match, never held in memory
//! whole).
//!
//! A bulk request therefore never sits in memory whole, and a client whose body is cut
//! off, or a server that is stopping, still gets the answers of the commands that ran
//! and a line saying how far they got.
//!
//! Every other body (a single command's, a console form's) is read whole before
//! anything is done with it, within its size limit and a deadline ([`read_whole`]).
//! A bulk body has no total deadline (it may be large), but it must keep up while its
//! run holds the binder ([`Pace`]): a client that trickles its body cannot keep other
//! writers, the API's or `noid bind`'s, waiting for the binder's lock.

use std::io::{self, BufRead, Read};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming};
use noid_binder::{cut_of, Cut, Pace, Progress, MAX_LINE};
use tokio::sync::{mpsc, oneshot};

/// Request body chunks in flight between the connection and the directory's thread.
const CHUNKS: usize = 16;
/// Octets a declared `Content-Length` earns a body beyond its deadline: one second
/// per 64 KiB (a 16 MiB upload gets 256 s more), so that a large body on a slow link
/// is not cut off while a trickle is.
pub const RATE_ALLOWANCE: u64 = 64 << 10;
/// How often a wait for the body looks whether the server is stopping.
const TICK: Duration = Duration::from_millis(100);

/// Copy `body`'s data frames into `tx` until its end (or an error, sent as the last
/// item), or until the reader is gone (a run that stopped reading: the body is then
/// dropped, and the connection closes after the answer instead of waiting for the
/// rest). Runs as its own task, so the directory's thread reads at its own pace.
/// `started` is told when the first read of the body returned
/// ([`BodyReader::started`]).
pub async fn pump(
    mut body: Incoming,
    tx: mpsc::Sender<Result<Bytes, String>>,
    started: oneshot::Sender<()>,
) {
    let mut started = Some(started);
    loop {
        let frame = tokio::select! {
            frame = body.frame() => frame,
            () = tx.closed() => return,
        };
        if let Some(s) = started.take() {
            let _ = s.send(());
        }
        match frame {
            None => return,
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    if !data.is_empty() && tx.send(Ok(data)).await.is_err() {
                        return;
                    }
                }
            }
            Some(Err(e)) => {
                let _ = tx.send(Err(e.to_string())).await;
                return;
            }
        }
    }
}

/// A channel for [`pump`] and the reader at its other end: the body must begin within
/// `begin` ([`BodyReader::started`]) and keep `pace` afterwards.
pub fn channel(
    handle: tokio::runtime::Handle,
    stopping: Arc<AtomicBool>,
    begin: Duration,
    pace: Pace,
) -> (mpsc::Sender<Result<Bytes, String>>, BodyReader) {
    let (tx, rx) = mpsc::channel(CHUNKS);
    let reader = BodyReader {
        rx,
        handle,
        stopping,
        chunk: Bytes::new(),
        done: false,
        failed: None,
        line: 0,
        begin,
        pace,
        waited: Duration::ZERO,
        came: 0,
    };
    (tx, reader)
}

/// The request body as a blocking reader, for a directory's thread (never a runtime
/// thread: it blocks on the channel).
pub struct BodyReader {
    rx: mpsc::Receiver<Result<Bytes, String>>,
    handle: tokio::runtime::Handle,
    stopping: Arc<AtomicBool>,
    chunk: Bytes,
    done: bool,
    /// Why the body ended early: every later read fails the same way.
    failed: Option<Cut>,
    /// Octets consumed since the last newline.
    line: usize,
    /// How long the body has to begin.
    begin: Duration,
    /// How fast it must come afterwards.
    pace: Pace,
    /// How long the run has waited for the body since it last looked at its pace.
    waited: Duration,
    /// The octets that came since then.
    came: u64,
}

impl BodyReader {
    /// Wait until [`pump`] has read from the body (`started`), for at most the body
    /// deadline and only while the server is not stopping; a body that has not begun by
    /// then reads as stalled (the directory's thread does not wait for it again). This
    /// wait holds no binder: the run is queued for it only afterwards.
    ///
    /// A bulk POST's response head must not go out before that: a client that sent
    /// `Expect: 100-continue` (curl does for bodies over 1 MiB) sends its body only
    /// after `100 Continue`, which hyper sends when the body is first read, and never
    /// once the final response head is written; the client then waits for its own
    /// timeout (curl: one second or more) before sending the body anyway.
    pub async fn started(&mut self, started: oneshot::Receiver<()>) {
        let mut started = std::pin::pin!(started);
        let mut waited = Duration::ZERO;
        while !self.stopping.load(Ordering::Relaxed) {
            if tokio::time::timeout(TICK, &mut started).await.is_ok() {
                return;
            }
            waited += TICK;
            if waited >= self.begin {
                self.failed = Some(Cut::Stalled(self.begin.as_secs()));
                return;
            }
        }
    }

    fn next_chunk(&mut self) -> io::Result<()> {
        if let Some(c) = &self.failed {
            return Err(cut(c.clone()));
        }
        let result = self.wait_chunk();
        if let Err(e) = &result {
            self.failed = cut_of(e);
        }
        result
    }

    /// The next chunk, waited for while it keeps [`Pace`] (the directory's thread holds
    /// the binder meanwhile).
    fn wait_chunk(&mut self) -> io::Result<()> {
        loop {
            if self.stopping.load(Ordering::Relaxed) {
                return Err(cut(Cut::Stopping));
            }
            let rx = &mut self.rx;
            // The timer is made inside the runtime (made outside, it finds none).
            let got = self
                .handle
                .block_on(async { tokio::time::timeout(TICK, rx.recv()).await });
            match got {
                Ok(Some(Ok(data))) => {
                    self.came += data.len() as u64;
                    self.chunk = data;
                    return Ok(());
                }
                Ok(Some(Err(e))) => return Err(cut(Cut::Client(e))),
                Ok(None) => {
                    self.done = true;
                    return Ok(());
                }
                Err(_) => {
                    self.waited += TICK;
                    if self.waited >= self.pace.wait {
                        if self.came < self.pace.octets() {
                            return Err(cut(Cut::Slow(self.pace)));
                        }
                        self.waited = Duration::ZERO;
                        self.came = 0;
                    }
                }
            }
        }
    }
}

fn cut(c: Cut) -> io::Error {
    c.into_io()
}

impl Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for BodyReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.line > MAX_LINE {
            self.failed = Some(Cut::LineTooLong);
            return Err(cut(Cut::LineTooLong));
        }
        while self.chunk.is_empty() && !self.done {
            self.next_chunk()?;
        }
        Ok(&self.chunk)
    }

    fn consume(&mut self, amt: usize) {
        let used = &self.chunk[..amt.min(self.chunk.len())];
        self.line = match used.iter().rposition(|&b| b == b'\n') {
            Some(i) => used.len() - i - 1,
            None => self.line + used.len(),
        };
        self.chunk.advance(amt);
    }
}

/// A response body whose chunks come from a channel: a bulk run's committed output
/// (the directory's thread sends each batch's, the handler the rest), or what a
/// producer writes ([`produced`]). An error ends the body with that error, which makes
/// hyper cut the response off instead of ending it as if it were whole.
pub struct Chunks {
    rx: mpsc::Receiver<io::Result<Bytes>>,
}

impl Chunks {
    /// A body and the sender that feeds it (closing the sender ends the body).
    pub fn channel() -> (mpsc::Sender<io::Result<Bytes>>, Chunks) {
        let (tx, rx) = mpsc::channel(CHUNKS);
        (tx, Chunks { rx })
    }
}

impl Body for Chunks {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.rx
            .poll_recv(cx)
            .map(|chunk| chunk.map(|b| b.map(Frame::data)))
    }
}

/// A response body written by a producer (noid-binder's [`noid_binder::api::Producer`])
/// on a blocking thread of the current runtime: `head` first, then what the producer
/// writes, in chunks of [`PRODUCED_CHUNK`] at most [`CHUNKS`] ahead of the client: a
/// slow client slows the producer, and one that goes away stops it (its next write
/// fails). An error of the producer ends the body with that error.
pub fn produced(head: Vec<u8>, producer: noid_binder::api::Producer) -> Chunks {
    let (tx, body) = Chunks::channel();
    tokio::task::spawn_blocking(move || {
        let mut out = io::BufWriter::with_capacity(PRODUCED_CHUNK, ChunkSender(tx.clone()));
        let written = io::Write::write_all(&mut out, &head)
            .and_then(|()| producer.produce(&mut out))
            .and_then(|()| io::Write::flush(&mut out));
        if let Err(e) = written {
            if e.kind() != io::ErrorKind::BrokenPipe {
                log::warn!("a produced response was cut off: {e}");
            }
            let _ = tx.blocking_send(Err(e));
        }
    });
    body
}

/// The size of a produced body's chunks.
pub const PRODUCED_CHUNK: usize = 64 << 10;

/// Writes each buffer it is given as one chunk of a [`produced`] body, waiting while
/// the client is [`CHUNKS`] behind; `BrokenPipe` once the body is gone.
struct ChunkSender(mpsc::Sender<io::Result<Bytes>>);

impl io::Write for ChunkSender {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .blocking_send(Ok(Bytes::copy_from_slice(buf)))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Why [`read_whole`] has no body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WholeError {
    /// Longer than the limit.
    TooLarge,
    /// Not all there by the deadline (which it says): answered `408`, and the
    /// connection is closed.
    Late(Duration),
    /// The connection failed or closed first.
    Failed(String),
}

/// The deadline of a body of `declared` octets (its `Content-Length`, if it gave one):
/// `base` (`[serve] body_timeout`), one second more per [`RATE_ALLOWANCE`] octets.
pub fn deadline(base: Duration, declared: Option<u64>) -> Duration {
    base + Duration::from_secs(declared.unwrap_or(0) / RATE_ALLOWANCE)
}

/// A request's `Content-Length`, if it has a valid one.
pub fn declared_length(headers: &hyper::HeaderMap) -> Option<u64> {
    headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|h| h.to_str().ok())
        .and_then(|l| l.parse().ok())
}

/// Read `body` whole: at most `limit` octets, all of it within `within`. A client that
/// sends a body slowly holds a connection for `within` at most, and nothing else.
pub async fn read_whole<B>(body: B, limit: usize, within: Duration) -> Result<Bytes, WholeError>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let read = http_body_util::Limited::new(body, limit).collect();
    match tokio::time::timeout(within, read).await {
        Err(_) => Err(WholeError::Late(within)),
        Ok(Ok(b)) => Ok(b.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(WholeError::TooLarge),
        Ok(Err(e)) => Err(WholeError::Failed(e.to_string())),
    }
}

/// The `408` answer of a body not there by its deadline, for the API (the console
/// answers with a page): the connection is closed after it.
pub fn too_late(within: Duration) -> crate::reply::Resp {
    let mut r = crate::reply::response(noid_binder::api::plain(
        hyper::StatusCode::REQUEST_TIMEOUT,
        &format!(
            "error: 408 the request body did not arrive within {} s; send it at once after \
             the request's head\n",
            within.as_secs()
        ),
    ));
    close_after(&mut r);
    r
}

/// Mark `r` as the connection's last answer (`Connection: close`): what is left of a
/// body that came too slowly is not waited for.
pub fn close_after<B>(r: &mut hyper::Response<B>) {
    r.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
}

/// A bulk run's committed output sent to its [`Chunks`] response body (noid-binder's
/// [`Progress`]): never waits for the client; output a full channel cannot take now
/// stays in the run's answer, and a client that went away still has its commands run.
pub struct SentProgress(pub mpsc::Sender<io::Result<Bytes>>);

impl Progress for SentProgress {
    fn committed(&mut self, output: Vec<u8>) -> Result<(), Vec<u8>> {
        match self.0.try_send(Ok(Bytes::from(output))) {
            Err(mpsc::error::TrySendError::Full(Ok(kept))) => Err(kept.to_vec()),
            Err(mpsc::error::TrySendError::Full(Err(_))) => Ok(()),
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the producer writes arrives in chunks of at most [`PRODUCED_CHUNK`], after
    /// the head; its error ends the body with that error (hyper then cuts the response
    /// off), never with a clean end, after a part of what it wrote.
    #[tokio::test]
    async fn a_produced_body_comes_in_chunks_and_ends_with_the_producers_error() {
        let producer = noid_binder::api::streamed("text/csv", |out| {
            for _ in 0..300 {
                out.write_all(&[b'x'; 1000])?;
            }
            Err(io::Error::other("the index went away"))
        })
        .producer
        .unwrap();
        let mut body = produced(b"id\n".to_vec(), producer);
        let (mut data, mut chunks) = (Vec::new(), 0);
        let error = loop {
            match body.frame().await {
                Some(Ok(frame)) => {
                    let chunk = frame.into_data().unwrap();
                    assert!(chunk.len() <= PRODUCED_CHUNK, "{}", chunk.len());
                    chunks += 1;
                    data.extend_from_slice(&chunk);
                }
                Some(Err(e)) => break e,
                None => panic!("the body ended cleanly after {} bytes", data.len()),
            }
        };
        assert_eq!(error.to_string(), "the index went away");
        // A part of what was written (what the buffer held at the error is dropped).
        assert!(data.starts_with(b"id\nxxx"));
        assert!(data[3..].iter().all(|&b| b == b'x'));
        assert!(
            data.len() > 3 * PRODUCED_CHUNK && data.len() < 3 + 300_000,
            "{}",
            data.len()
        );
        assert!(chunks > 3, "{chunks}");
    }
}
