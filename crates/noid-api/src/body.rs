//! Streamed bodies: a bulk POST's request body read by a directory's thread as it
//! arrives ([`BodyReader`], fed by [`pump`]), and the response body that carries each
//! committed batch's output to the client as soon as it is durable ([`Streamed`]).
//!
//! A bulk request therefore never sits in memory whole, and a client whose body is cut
//! off, or a server that is stopping, still gets the answers of the commands that ran
//! and a line saying how far they got.

use std::io::{self, BufRead, Read};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming};
use noid_binder::{cut_of, Cut, Progress, MAX_LINE, STALL};
use tokio::sync::{mpsc, oneshot};

/// Request body chunks in flight between the connection and the directory's thread.
const CHUNKS: usize = 16;
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

/// A channel for [`pump`] and the reader at its other end.
pub fn channel(
    handle: tokio::runtime::Handle,
    stopping: Arc<AtomicBool>,
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
}

impl BodyReader {
    /// Wait until [`pump`] has read from the body (`started`), for at most [`STALL`] and
    /// only while the server is not stopping; a body that has not begun by then reads
    /// as stalled (the directory's thread does not wait for it again).
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
            if waited >= STALL {
                self.failed = Some(Cut::Stalled);
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

    fn wait_chunk(&mut self) -> io::Result<()> {
        let mut waited = Duration::ZERO;
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
                    self.chunk = data;
                    return Ok(());
                }
                Ok(Some(Err(e))) => return Err(cut(Cut::Client(e))),
                Ok(None) => {
                    self.done = true;
                    return Ok(());
                }
                Err(_) => {
                    waited += TICK;
                    if waited >= STALL {
                        return Err(cut(Cut::Stalled));
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

/// A response body whose chunks come from a channel: the directory's thread sends each
/// committed batch's output, the handler the rest.
pub struct Streamed {
    rx: mpsc::Receiver<Bytes>,
}

impl Streamed {
    /// A body and the sender that feeds it (closing the sender ends the body).
    pub fn channel() -> (mpsc::Sender<Bytes>, Streamed) {
        let (tx, rx) = mpsc::channel(CHUNKS);
        (tx, Streamed { rx })
    }
}

impl Body for Streamed {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.rx
            .poll_recv(cx)
            .map(|chunk| chunk.map(|b| Ok(Frame::data(b))))
    }
}

/// A bulk run's committed output sent to its [`Streamed`] response body (noid-binder's
/// [`Progress`]): never waits for the client; output a full channel cannot take now
/// stays in the run's answer, and a client that went away still has its commands run.
pub struct SentProgress(pub mpsc::Sender<Bytes>);

impl Progress for SentProgress {
    fn committed(&mut self, output: Vec<u8>) -> Result<(), Vec<u8>> {
        match self.0.try_send(Bytes::from(output)) {
            Err(mpsc::error::TrySendError::Full(kept)) => Err(kept.to_vec()),
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => Ok(()),
        }
    }
}
