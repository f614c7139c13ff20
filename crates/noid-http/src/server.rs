//! The server's event loop: one per thread, on `mio` (epoll), each accepting on its own
//! handle of the listening socket, so that a connection's requests are read, answered
//! and written by the thread that accepted it, and never wake another.
//!
//! Per request, a kept-alive connection costs one `epoll_wait` (shared by every
//! connection ready at that moment), one read and one write: requests are read into the
//! connection's buffer, each complete head is parsed (`httparse`) and answered in order
//! ([`crate::respond`]) into its output buffer, and what the batch produced goes out in
//! one write. Readiness is edge-triggered: a read that does not fill the buffer, or a
//! write that does not send everything, means the socket has nothing more (or no more
//! room) now, and the next edge says when that changes; a socket is watched for
//! writability only while output waits.
//!
//! Limits: a connection's unsent output above [`OUTPUT_HIGH`] stops its reading (a
//! client that never reads gets no more answers made for it); a head that is not whole
//! within [`Config::max_header_bytes`] gets `431`. Every connection has a deadline,
//! [`Config::header_read_timeout`] from its accept, from the end of its last response,
//! or from the last progress in sending output; a sweep every eighth of that (10 ms to
//! 1 s) closes those past it. A connection that ends with an error response is closed
//! by shutting down its sending side and reading what the client still sends for up to
//! [`LINGER`], so that the answer is not destroyed by a reset.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use mio::{Events, Interest, Poll, Registry, Token, Waker};

use crate::deadline::Slot;
use crate::request::{self, Parsed};
use crate::respond::{self, Deadline};
use crate::response::{status, Clock, Response};
use noid_listen::Listener;

use crate::Shared;

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
/// Connection `i` is `Token(FIRST + i)`.
const FIRST: usize = 2;

/// A connection whose unsent output reaches this is no longer read from.
pub(crate) const OUTPUT_HIGH: usize = 64 * 1024;
/// A connection's first read buffer; it grows (to [`Config::max_header_bytes`]) only for
/// a longer head.
const READ_BUF: usize = 4096;
/// How long a connection closed after an error response is still read from (and what
/// it sends thrown away), at most.
pub(crate) const LINGER: Duration = Duration::from_secs(2);
/// How much is thrown away in that time, at most.
const LINGER_BYTES: usize = 1 << 20;
/// How long to wait before accepting again after `accept` failed (no descriptors left).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

/// A listening socket registered with one thread's loop.
enum Acceptor {
    Tcp(TcpListener),
    Unix(UnixListener),
}

/// An accepted connection's socket.
enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }

    fn shutdown_write(&self) {
        let _ = match self {
            Stream::Tcp(s) => s.shutdown(std::net::Shutdown::Write),
            Stream::Unix(s) => s.shutdown(std::net::Shutdown::Write),
        };
    }

    fn fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
        }
    }

    /// The socket as mio registers it, whichever kind it is.
    fn source(&mut self) -> &mut dyn mio::event::Source {
        match self {
            Stream::Tcp(s) => s,
            Stream::Unix(s) => s,
        }
    }
}

/// One connection.
struct Conn {
    io: Stream,
    /// Bytes read: `input[start..end]` is not answered yet (the rest of `input` is room).
    /// Empty until the first read, so an idle connection holds no buffer.
    input: Vec<u8>,
    start: usize,
    end: usize,
    /// Responses made: `output[sent..]` is not sent yet.
    output: Vec<u8>,
    sent: usize,
    /// When the connection is closed if nothing happens first.
    deadline: Instant,
    /// The socket has nothing more to read until its next readiness edge.
    drained: bool,
    /// The client has shut down its sending side (or said so with its last event).
    peer_done: bool,
    /// Close once the output is sent (a `close` response was made).
    close_after: bool,
    /// Not 0: the sending side is shut down, and input is read and thrown away (this
    /// many bytes so far, plus one).
    lingering: usize,
    /// Watched for writability (output waits).
    writable: bool,
    /// `answer` stopped at [`OUTPUT_HIGH`] with input left to answer.
    backlog: bool,
}

impl Conn {
    fn pending(&self) -> bool {
        self.sent < self.output.len()
    }
}

/// What `drive` decided about a connection.
enum Next {
    Keep,
    Close,
}

/// One thread's server.
struct Worker<'a> {
    shared: &'a Shared,
    poll: Poll,
    acceptor: Option<Acceptor>,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    open: usize,
    now: Instant,
    clock: Clock,
    /// Connections were waiting when the connection limit was reached.
    accept_blocked: bool,
    /// `accept` failed; try again then.
    accept_retry: Option<Instant>,
    next_sweep: Instant,
    sweep_every: Duration,
    /// This thread's slot in the lookup deadline's watch.
    slot: Option<Arc<Slot>>,
    /// Shutting down: no more accepts, every response closes its connection, and the
    /// loop ends when no connection is left or at this time.
    drain_until: Option<Instant>,
}

/// Serves on `listener` (one handle of it, this thread's) until shutdown and drain.
pub(crate) fn serve(listener: &Listener, shared: &Shared) -> io::Result<()> {
    let poll = Poll::new()?;
    let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
    let mut acceptor = match listener.try_clone()? {
        Listener::Tcp(l) => {
            l.set_nonblocking(true)?;
            Acceptor::Tcp(TcpListener::from_std(l))
        }
        Listener::Unix(l, _) => {
            l.set_nonblocking(true)?;
            Acceptor::Unix(UnixListener::from_std(l))
        }
    };
    match &mut acceptor {
        Acceptor::Tcp(l) => poll.registry().register(l, LISTENER, Interest::READABLE)?,
        Acceptor::Unix(l) => poll.registry().register(l, LISTENER, Interest::READABLE)?,
    }
    shared.shutdown.notify(waker);
    let now = Instant::now();
    let sweep_every = (shared.config.header_read_timeout / 8)
        .clamp(Duration::from_millis(10), Duration::from_secs(1));
    let mut worker = Worker {
        shared,
        poll,
        acceptor: Some(acceptor),
        conns: Vec::new(),
        free: Vec::new(),
        open: 0,
        now,
        clock: Clock::new(),
        accept_blocked: false,
        accept_retry: None,
        next_sweep: now + sweep_every,
        sweep_every,
        slot: shared.watch.as_ref().map(|w| w.slot()),
        drain_until: None,
    };
    let result = worker.run();
    // Whatever is left (a drain that ran out of time) is closed now.
    for _ in worker.conns.iter_mut().filter_map(Option::take) {
        shared.open.fetch_sub(1, Ordering::AcqRel);
    }
    result
}

impl Worker<'_> {
    fn run(&mut self) -> io::Result<()> {
        let mut events = Events::with_capacity(256);
        loop {
            if self.shared.shutdown.asked() && self.drain_until.is_none() {
                self.start_drain();
            }
            if let Some(until) = self.drain_until {
                if self.open == 0 {
                    return Ok(());
                }
                if self.now >= until {
                    log::warn!(
                        "shutdown: {} connections still open after {:?}",
                        self.open,
                        self.shared.config.drain_timeout
                    );
                    return Ok(());
                }
            }
            let timeout = self.timeout();
            match self.poll.poll(&mut events, timeout) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            self.now = Instant::now();
            for event in events.iter() {
                match event.token() {
                    LISTENER => self.accept(),
                    WAKER => {}
                    Token(t) => {
                        let i = t - FIRST;
                        if let Some(Some(c)) = self.conns.get_mut(i) {
                            if event.is_readable() || event.is_read_closed() || event.is_error() {
                                c.drained = false;
                            }
                            if event.is_read_closed() {
                                c.peer_done = true;
                            }
                            self.drive(i);
                        }
                    }
                }
            }
            if self.accept_retry.is_some_and(|t| self.now >= t) {
                self.accept_retry = None;
                self.accept();
            }
            if self.now >= self.next_sweep {
                self.sweep();
            }
        }
    }

    /// How long `poll` may wait: until the next sweep while there are connections (or
    /// connections wait for a slot), the next accept retry, the end of a drain.
    fn timeout(&self) -> Option<Duration> {
        let mut at = None::<Instant>;
        let mut earliest = |t: Instant| at = Some(at.map_or(t, |a| a.min(t)));
        if self.open > 0 || self.accept_blocked {
            earliest(self.next_sweep);
        }
        if let Some(t) = self.accept_retry {
            earliest(t);
        }
        if let Some(t) = self.drain_until {
            earliest(t);
        }
        at.map(|t| t.saturating_duration_since(self.now))
    }

    fn accept(&mut self) {
        let limit = self.shared.config.max_connections.max(1);
        loop {
            let Some(acceptor) = &self.acceptor else {
                return;
            };
            if self.shared.open.fetch_add(1, Ordering::AcqRel) >= limit {
                self.shared.open.fetch_sub(1, Ordering::AcqRel);
                self.accept_blocked = true;
                return;
            }
            let accepted = match acceptor {
                Acceptor::Tcp(l) => l.accept().and_then(|(s, _)| {
                    s.set_nodelay(true)?;
                    Ok(Stream::Tcp(s))
                }),
                Acceptor::Unix(l) => l.accept().map(|(s, _)| Stream::Unix(s)),
            };
            let io = match accepted {
                Ok(io) => io,
                Err(e) => {
                    self.shared.open.fetch_sub(1, Ordering::AcqRel);
                    match e.kind() {
                        io::ErrorKind::WouldBlock => self.accept_blocked = false,
                        io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted => continue,
                        _ => {
                            // EMFILE and friends: back off instead of spinning.
                            log::warn!("accept failed: {e}");
                            self.accept_retry = Some(self.now + ACCEPT_BACKOFF);
                        }
                    }
                    return;
                }
            };
            self.add(io);
        }
    }

    fn add(&mut self, mut io: Stream) {
        let i = self.free.pop().unwrap_or_else(|| {
            self.conns.push(None);
            self.conns.len() - 1
        });
        if let Err(e) =
            self.poll
                .registry()
                .register(io.source(), Token(FIRST + i), Interest::READABLE)
        {
            log::warn!("connection: {e}");
            self.free.push(i);
            self.shared.open.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        self.open += 1;
        self.conns[i] = Some(Conn {
            io,
            input: Vec::new(),
            start: 0,
            end: 0,
            output: Vec::new(),
            sent: 0,
            deadline: self.now + self.shared.config.header_read_timeout,
            // Data may have come before the accept: read once to see.
            drained: false,
            peer_done: false,
            close_after: false,
            lingering: 0,
            writable: false,
            backlog: false,
        });
        self.drive(i);
    }

    fn close(&mut self, i: usize) {
        if self.conns[i].take().is_some() {
            self.free.push(i);
            self.open -= 1;
            self.shared.open.fetch_sub(1, Ordering::AcqRel);
            if self.accept_blocked {
                self.accept();
            }
        }
    }

    /// Does what connection `i` can do now: answer what it has buffered, send, read.
    fn drive(&mut self, i: usize) {
        let Some(conn) = self.conns[i].as_mut() else {
            return;
        };
        let registry = self.poll.registry();
        let cx = Context {
            shared: self.shared,
            clock: &mut self.clock,
            now: self.now,
            draining: self.drain_until.is_some(),
            slot: self.slot.as_deref(),
        };
        if let Next::Close = drive(conn, cx, registry, Token(FIRST + i)) {
            self.close(i);
        }
    }

    /// Closes connections past their deadline, and retries a blocked accept.
    fn sweep(&mut self) {
        self.next_sweep = self.now + self.sweep_every;
        for i in 0..self.conns.len() {
            if self.conns[i]
                .as_ref()
                .is_some_and(|c| self.now >= c.deadline)
            {
                log::debug!("connection: timed out");
                self.close(i);
            }
        }
        if self.accept_blocked {
            self.accept();
        }
    }

    /// Stop accepting; close idle connections; the others close after their current
    /// response.
    fn start_drain(&mut self) {
        self.drain_until = Some(self.now + self.shared.config.drain_timeout);
        if let Some(mut a) = self.acceptor.take() {
            let _ = match &mut a {
                Acceptor::Tcp(l) => self.poll.registry().deregister(l),
                Acceptor::Unix(l) => self.poll.registry().deregister(l),
            };
        }
        self.accept_blocked = false;
        for i in 0..self.conns.len() {
            let idle = self.conns[i]
                .as_ref()
                .is_some_and(|c| c.start == c.end && !c.pending() && c.lingering == 0);
            if idle {
                self.close(i);
            }
        }
    }
}

/// What answering needs besides the connection.
struct Context<'a> {
    shared: &'a Shared,
    clock: &'a mut Clock,
    now: Instant,
    draining: bool,
    slot: Option<&'a Slot>,
}

/// Answer, send, read, until the connection waits for its socket or is done.
fn drive(conn: &mut Conn, mut cx: Context<'_>, registry: &Registry, token: Token) -> Next {
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
fn send(conn: &mut Conn) -> io::Result<bool> {
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

/// Answers the whole heads buffered, in order, into the output, until the output
/// reaches [`OUTPUT_HIGH`] or a response closes the connection.
fn answer(conn: &mut Conn, cx: &mut Context<'_>) {
    let cfg = &cx.shared.config;
    conn.backlog = false;
    while conn.start < conn.end && !conn.close_after {
        if conn.output.len() - conn.sent >= OUTPUT_HIGH {
            conn.backlog = true;
            return;
        }
        if cx.shared.watch.is_some() && conn.pending() {
            // Pipelined: earlier answers go out before a lookup that the watchdog may
            // have to answer on the socket (errors show at the next send).
            let _ = send(conn);
        }
        let buffered = &conn.input[conn.start..conn.end];
        match request::parse(buffered) {
            Parsed::Partial => {
                if buffered.len() >= head_limit(cfg) {
                    refuse(conn, cx, status::HEADERS_TOO_LARGE);
                }
                return;
            }
            Parsed::Refused(code) => {
                refuse(conn, cx, code);
                return;
            }
            Parsed::Head(head, len) => {
                let deadline = cx
                    .shared
                    .watch
                    .as_deref()
                    .zip(cx.slot)
                    .map(|(watch, slot)| Deadline {
                        watch,
                        slot,
                        fd: conn.io.fd(),
                        may_write: conn.sent == conn.output.len(),
                    });
                let mut response = respond::handle(&*cx.shared.backend, cfg, &head, deadline);
                if !head.keep_alive || cx.draining {
                    response.close = true;
                }
                let keep_alive_10 = head.http10 && !response.close;
                let is_head = head.method == "HEAD";
                response.write(
                    &mut conn.output,
                    is_head,
                    keep_alive_10,
                    cx.clock.date(cx.now),
                );
                conn.start += len;
                if response.close {
                    conn.close_after = true;
                    conn.start = conn.end;
                }
            }
        }
    }
}

/// The longest request head read: [`Config::max_header_bytes`], at least [`READ_BUF`].
fn head_limit(cfg: &crate::Config) -> usize {
    cfg.max_header_bytes.max(READ_BUF)
}

/// Answers `code` (400 or 431) and closes the connection.
fn refuse(conn: &mut Conn, cx: &mut Context<'_>, code: u16) {
    let body = if code == status::HEADERS_TOO_LARGE {
        "request head too large\n"
    } else {
        "bad request\n"
    };
    let mut r = Response::text(code, body);
    r.close = true;
    r.write(&mut conn.output, false, false, cx.clock.date(cx.now));
    conn.close_after = true;
    conn.start = conn.end;
}
