//! One connection: its buffers, and what is done with its socket when it is ready.
//!
//! Per request, a kept-alive connection costs one `epoll_wait` (shared by every
//! connection ready at that moment), one read and one write: requests are read into the
//! connection's buffer, each complete head is parsed (`httparse`) and answered in order
//! ([`super::answer`]) into its output buffer, and what the batch produced goes out in
//! one write. Readiness is edge-triggered: a read that does not fill the buffer, or a
//! write that does not send everything, means the socket has nothing more (or no more
//! room) now, and the next edge says when that changes; a socket is watched for
//! writability only while output waits.
//!
//! Limits: a connection's unsent output above [`OUTPUT_HIGH`] stops its reading (a
//! client that never reads gets no more answers made for it); a head that is not whole
//! within [`Config::max_header_bytes`](crate::Config::max_header_bytes) gets `431`.
//! Every connection has a deadline,
//! [`Config::header_read_timeout`](crate::Config::header_read_timeout) from its accept,
//! from the end of its last response, or from the last progress in sending output; the
//! event loop's sweep closes those past it. A connection that ends with an error
//! response is closed by shutting down its sending side and reading what the client
//! still sends for up to [`LINGER`], so that the answer is not destroyed by a reset.

use std::io;
use std::time::{Duration, Instant};

use mio::{Interest, Registry, Token};

use super::answer::{answer, head_limit};
use super::shared::Shared;
use super::stream::Stream;
use crate::deadline::Slot;
use crate::response::Clock;

/// A connection whose unsent output reaches this is no longer read from.
pub(crate) const OUTPUT_HIGH: usize = 64 * 1024;
/// A connection's first read buffer; it grows (to
/// [`Config::max_header_bytes`](crate::Config::max_header_bytes)) only for a longer
/// head.
pub(super) const READ_BUF: usize = 4096;
/// How long a connection closed after an error response is still read from (and what
/// it sends thrown away), at most.
pub(crate) const LINGER: Duration = Duration::from_secs(2);
/// How much is thrown away in that time, at most.
const LINGER_BYTES: usize = 1 << 20;

/// One connection.
pub(super) struct Conn {
    pub(super) io: Stream,
    /// The client's address (TCP), counted in [`super::Clients`] while this is open.
    pub(super) client: Option<std::net::IpAddr>,
    /// Bytes read: `input[start..end]` is not answered yet (the rest of `input` is room).
    /// Empty until the first read, so an idle connection holds no buffer.
    pub(super) input: Vec<u8>,
    pub(super) start: usize,
    pub(super) end: usize,
    /// Responses made: `output[sent..]` is not sent yet.
    pub(super) output: Vec<u8>,
    pub(super) sent: usize,
    /// When the connection is closed if nothing happens first.
    pub(super) deadline: Instant,
    /// The socket has nothing more to read until its next readiness edge.
    pub(super) drained: bool,
    /// The client has shut down its sending side (or said so with its last event).
    pub(super) peer_done: bool,
    /// Close once the output is sent (a `close` response was made).
    pub(super) close_after: bool,
    /// Not 0: the sending side is shut down, and input is read and thrown away (this
    /// many bytes so far, plus one).
    pub(super) lingering: usize,
    /// Watched for writability (output waits).
    pub(super) writable: bool,
    /// `answer` stopped at [`OUTPUT_HIGH`] with input left to answer.
    pub(super) backlog: bool,
}

impl Conn {
    pub(super) fn pending(&self) -> bool {
        self.sent < self.output.len()
    }
}

/// What `drive` decided about a connection.
pub(super) enum Next {
    Keep,
    Close,
}

/// What answering needs besides the connection.
pub(super) struct Context<'a> {
    pub(super) shared: &'a Shared,
    pub(super) clock: &'a mut Clock,
    pub(super) now: Instant,
    pub(super) draining: bool,
    pub(super) slot: Option<&'a Slot>,
}

/// Answer, send, read, until the connection waits for its socket or is done.
pub(super) fn drive(
    conn: &mut Conn,
    mut cx: Context<'_>,
    registry: &Registry,
    token: Token,
) -> Next {
    let timeout = cx.shared.config.header_read_timeout;
    loop {
        if conn.lingering > 0 {
            return linger(conn);
        }
        answer(conn, &mut cx);
        if conn.pending() {
            match send(conn) {
                Ok(true) => conn.deadline = cx.now + timeout,
                Ok(false) => {}
                Err(e) => {
                    log::debug!("connection: {e}");
                    return Next::Close;
                }
            }
            if conn.pending() {
                if !conn.writable {
                    conn.writable = true;
                    if registry
                        .reregister(
                            conn.io.source(),
                            token,
                            Interest::READABLE | Interest::WRITABLE,
                        )
                        .is_err()
                    {
                        return Next::Close;
                    }
                }
                return Next::Keep;
            }
            // Everything sent: idle from now on.
            conn.deadline = cx.now + timeout;
            if conn.output.capacity() > OUTPUT_HIGH {
                conn.output = Vec::new();
            }
            if conn.writable {
                conn.writable = false;
                if registry
                    .reregister(conn.io.source(), token, Interest::READABLE)
                    .is_err()
                {
                    return Next::Close;
                }
            }
        }
        if conn.close_after {
            if conn.peer_done {
                return Next::Close;
            }
            // Let the client read the answer before the connection goes: no reset.
            conn.io.shutdown_write();
            conn.lingering = 1;
            conn.deadline = cx.now + LINGER.min(timeout);
            conn.drained = false;
            continue;
        }
        if conn.backlog {
            // Stopped by OUTPUT_HIGH, now sent: answer the rest.
            continue;
        }
        if conn.drained {
            if conn.peer_done {
                // Nothing more will come: a partial head is never answered.
                return Next::Close;
            }
            return Next::Keep;
        }
        match read(conn, head_limit(&cx.shared.config)) {
            Ok(0) => {
                conn.peer_done = true;
                conn.drained = true;
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => conn.drained = true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                log::debug!("connection: {e}");
                return Next::Close;
            }
        }
    }
}

/// One read into the connection's buffer (made or grown first when it is full).
/// A read that does not fill the room marks the socket drained, unless the client
/// has shut down its side (then reading goes on to the end of input).
fn read(conn: &mut Conn, max_head: usize) -> io::Result<usize> {
    if conn.start == conn.end {
        conn.start = 0;
        conn.end = 0;
    }
    if conn.end == conn.input.len() {
        if conn.start > 0 {
            conn.input.copy_within(conn.start..conn.end, 0);
            conn.end -= conn.start;
            conn.start = 0;
        } else {
            let grown = (conn.input.len() * 2).clamp(READ_BUF, max_head);
            if grown <= conn.input.len() {
                // Full of one unfinished head: `answer` refuses it.
                return Err(io::Error::other("request head too large"));
            }
            conn.input.resize(grown, 0);
        }
    }
    let room = conn.input.len() - conn.end;
    let n = conn.io.read(&mut conn.input[conn.end..])?;
    conn.end += n;
    if n < room && !conn.peer_done {
        conn.drained = true;
    }
    Ok(n)
}

/// Sends what output waits; `Ok(true)` if some was sent.
pub(super) fn send(conn: &mut Conn) -> io::Result<bool> {
    let mut progress = false;
    while conn.pending() {
        match conn.io.write(&conn.output[conn.sent..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                conn.sent += n;
                progress = true;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if !conn.pending() {
        conn.output.clear();
        conn.sent = 0;
    }
    Ok(progress)
}

/// After an error response: read and throw away until the client closes, too much
/// came, or the deadline (the sweep).
fn linger(conn: &mut Conn) -> Next {
    let mut scrap = [0u8; 4096];
    loop {
        match conn.io.read(&mut scrap) {
            Ok(0) => return Next::Close,
            Ok(n) => {
                conn.lingering += n;
                if conn.lingering > LINGER_BYTES {
                    return Next::Close;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Next::Keep,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Next::Close,
        }
    }
}
