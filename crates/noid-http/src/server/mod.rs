//! The server's event loop: one per thread, on `mio` (epoll), each accepting on its own
//! handle of the listening socket, so that a connection's requests are read, answered
//! and written by the thread that accepted it, and never wake another. This module
//! holds the loop (accepting, the connection limits, the sweep of connections past
//! their deadline every eighth of the header timeout, 10 ms to 1 s, the drain at
//! shutdown); [`conn`] what is done with one connection's
//! socket, [`answer`] how its buffered requests become responses, [`stream`] the two
//! kinds of socket.

mod answer;
mod clients;
mod conn;
mod shared;
mod stream;

pub(crate) use clients::Clients;
pub(crate) use shared::Shared;

use std::io;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mio::net::{TcpListener, UnixListener};
use mio::{Events, Interest, Poll, Token, Waker};

use crate::deadline::Slot;
use crate::response::Clock;
use noid_listen::Listener;

use conn::{drive, Conn, Context, Next};
use stream::{Acceptor, Stream};

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
/// Connection `i` is `Token(FIRST + i)`.
const FIRST: usize = 2;

/// How long to wait before accepting again after `accept` failed (no descriptors left).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

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
    for conn in worker.conns.iter_mut().filter_map(Option::take) {
        shared.open.fetch_sub(1, Ordering::AcqRel);
        if let Some(ip) = conn.client {
            shared.clients.release(ip);
        }
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
                Acceptor::Tcp(l) => l.accept().and_then(|(s, addr)| {
                    s.set_nodelay(true)?;
                    Ok((Stream::Tcp(s), Some(addr.ip())))
                }),
                Acceptor::Unix(l) => l.accept().map(|(s, _)| (Stream::Unix(s), None)),
            };
            let (io, client) = match accepted {
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
            if client.is_some_and(|ip| !self.shared.clients.admit(ip)) {
                self.refuse(io);
                continue;
            }
            self.add(io, client);
        }
    }

    /// A connection over its client's cap: `503` if the new socket takes it at once,
    /// then closed.
    fn refuse(&mut self, mut io: Stream) {
        log::debug!("connection refused: too many from its client");
        let _ = io.write(self.shared.clients.refusal().as_bytes());
        drop(io);
        self.shared.open.fetch_sub(1, Ordering::AcqRel);
    }

    fn add(&mut self, mut io: Stream, client: Option<std::net::IpAddr>) {
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
            if let Some(ip) = client {
                self.shared.clients.release(ip);
            }
            return;
        }
        self.open += 1;
        self.conns[i] = Some(Conn {
            io,
            client,
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
        if let Some(conn) = self.conns[i].take() {
            if let Some(ip) = conn.client {
                self.shared.clients.release(ip);
            }
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
