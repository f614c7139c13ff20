//! The HTTP/1.1 face of the noid resolver: what `noidr --http ADDR` serves.
//!
//! nginx (which has no `RewriteMap prg:`) and Apache `mod_proxy` (the way past the prg
//! mutex) reach the resolver over HTTP. Resolution itself is not done here: every
//! request is handed to a [`Backend`], which in `noidr` runs the shared
//! [`noid_resolve::Resolver`] on the store, exactly as the line protocols do.
//!
//! # Routes
//!
//! | request | hit | miss | used by |
//! |---|---|---|---|
//! | `GET /redirect/<id>` | the stored code (302 by default) + `Location` | `404` | nginx `proxy_pass`, Apache `ProxyPass` |
//! | `GET /<id>` | same as `/redirect/<id>` | `404` | direct use, Apache `ProxyPass /ark: …/ark:` |
//! | `GET /auth/<id>` | `204` + `X-Target` + `X-Status` | `403` | nginx `auth_request` (any status but 2xx/401/403 becomes 500 there) |
//! | `GET /lookup/<id>` | `200`, body = target, `X-Status` | `404` | njs `r.subrequest` |
//! | `GET /healthz`, `GET /health` | `200 ok` | `503` when [`Backend::health`] fails | probes |
//! | `GET /metrics` | `200`, [`Backend::metrics`] (Prometheus text format) | `404` when it has none | Prometheus |
//! | `GET /.well-known/ark` | `200`, the resolver's root, NAANs served, global resolver ([`wellknown`]) | — | ARK clients |
//!
//! Answers that are not a redirect (an inflection page, metadata, several targets, a
//! partial identifier, a prefix registry record, a `*/ID` provider list ([`record`]) …)
//! are served whole by `/redirect/` and `/<id>` (status, type and
//! body from the resolver; `text/plain` ANVL, or JSON for `Accept: application/json`);
//! `/lookup/` serves them too, with `X-Status: 200`; `/auth/` answers `401` + `X-Status`,
//! which the shipped nginx config maps (`error_page 401`) to a `proxy_pass` of
//! `/redirect/`. A stored code that is not a redirect (`410 …`) is that status with the
//! rest as a `text/plain` body (`X-Status` 410 from `/auth/` and `/lookup/`), except
//! for a withdrawn identifier's tombstone ([`Answer::Tombstone`]), which is a page
//! ([`tombstone`]) served with 410. An identifier's metadata pages and tombstone carry
//! `Last-Modified` when [`Backend::last_modified`] knows the time of its last write, and
//! a page that has not changed since `If-Modified-Since` is answered `304`.
//!
//! # Identifiers
//!
//! The path after the route prefix is %-decoded **once**; if the request-target has a
//! `?`, that `?` and the query **as received** (not decoded) are appended. So
//! `/redirect/ark:/1/a%20b` asks for `ark:/1/a b`, `/redirect/ark:/1/x?` for `ark:/1/x?`
//! (an inflection: nginx must forward `$request_uri`, since `$args` is empty for a bare
//! `?`), `/redirect/ark:/1/x?a=%26` for `ark:/1/x?a=%26` (the query reaches the target
//! unchanged), and `/lookup/ark%3A%2F1%2Fx%3F` for `ark:/1/x?` (njs passes the whole
//! identifier `encodeURIComponent`-ed). Bytes that decode to invalid UTF-8, CR, LF or
//! NUL are misses. `/healthz`, `/health` and `/metrics` are never identifiers (ask for
//! an identifier spelled so as `/redirect/metrics`). The `Accept` header is passed to the resolver (content negotiation),
//! and `X-Forwarded-Proto` as the protocol.
//!
//! # Limits
//!
//! GET and HEAD only (`405` otherwise); a request with a body is refused with `413`
//! and the connection closed; a request-target longer than [`Config::max_uri_len`]
//! gets `414`; headers larger than [`Config::max_header_bytes`] or more than 100 header
//! fields get `431` (from hyper);
//! a connection that does not deliver a complete request head within
//! [`Config::header_read_timeout`] (this also bounds idle keep-alive connections) is
//! closed; at most [`Config::max_connections`] connections are served at once (more
//! wait in the kernel's accept queue). Every accepted TCP socket has `TCP_NODELAY`
//! (a keep-alive peer would otherwise meet the 40 ms Nagle/delayed-ACK stall).
//!
//! # Wiring it in `noidr`
//!
//! ```no_run
//! use std::sync::Arc;
//! use noid_resolve::{Answer, LookupError, MemLookup, Request, Resolver};
//!
//! // A store that never changes; `noidr` resolves on its follower's current store
//! // instead, caught up with the writers before each request (no lock taken).
//! struct Backend {
//!     resolver: Resolver,
//!     store: MemLookup,
//! }
//! impl noid_http::Backend for Backend {
//!     fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError> {
//!         self.resolver.resolve(&self.store, req)
//!     }
//! }
//!
//! let backend = Backend { resolver: Resolver::default(), store: MemLookup::new() };
//! // Blocks until SIGTERM or SIGINT, then drains open connections (5 s at most).
//! noid_http::run("127.0.0.1:8090", Arc::new(backend), 2).unwrap();
//! ```
//!
//! [`Backend::resolve`] is called on a runtime worker thread, not through
//! `spawn_blocking`: a point lookup costs microseconds, far less than a thread hop.
//! A backend that may block for long (a lock held for a store reopen) only delays the
//! requests of that worker. A plain closure `Fn(&Request) -> Result<Answer, LookupError>`
//! is a `Backend` too.
//!
//! For tests and embedding there is the async [`serve`] / [`serve_with`] on a
//! [`Listener`] (bind to port 0 and read [`Listener::local_addr`]).

#![deny(missing_docs)]

mod deadline;
mod html;
mod modified;
pub mod page;
pub mod record;
mod respond;
pub mod route;
pub mod tombstone;
pub mod wellknown;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::Semaphore;

pub use noid_resolve::wellknown::ArkService;
pub use noid_resolve::{Answer, LookupError, Request};

/// What the server asks for each identifier. `noidr` implements it on its store
/// reader; tests implement it on a map.
pub trait Backend: Send + Sync + 'static {
    /// Resolves one request. An `Err` becomes a `500` (and is logged).
    fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError>;

    /// Whether the resolver can answer at all (`GET /healthz`, `GET /health`): `Err`
    /// gives `503` with the message. The default is always healthy.
    fn health(&self) -> Result<(), LookupError> {
        Ok(())
    }

    /// The metrics in the Prometheus text exposition format (`GET /metrics`); `None`
    /// (the default) gives `404`.
    fn metrics(&self) -> Option<String> {
        None
    }

    /// When identifier `id`'s bindings were last written, in seconds since the epoch,
    /// for the `Last-Modified` of its metadata pages and tombstone; `None` when not
    /// recorded. Asked only for those pages, never for a redirect. The default knows
    /// nothing.
    fn last_modified(&self, id: &str) -> Result<Option<i64>, LookupError> {
        let _ = id;
        Ok(None)
    }

    /// What `GET /.well-known/ark` publishes: the NAANs served and the global resolver.
    /// The default serves no NAAN and forwards nothing.
    fn ark_service(&self) -> Result<ArkService, LookupError> {
        Ok(ArkService::default())
    }
}

impl<F> Backend for F
where
    F: Fn(&Request<'_>) -> Result<Answer, LookupError> + Send + Sync + 'static,
{
    fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError> {
        self(req)
    }
}

/// Server limits. [`Config::default`] suits a resolver behind nginx or Apache.
#[derive(Debug, Clone)]
pub struct Config {
    /// Time allowed to receive a complete request head, counted from the accept and,
    /// on a keep-alive connection, from the end of the previous response; so it is
    /// also the idle keep-alive timeout. Default 75 s (longer than the `keepalive_timeout
    /// 60s` of the shipped nginx upstream, so nginx closes idle connections first).
    pub header_read_timeout: Duration,
    /// Longest request-target accepted; longer gets `414`. Default 8190 (Apache's
    /// `LimitRequestLine`).
    pub max_uri_len: usize,
    /// Buffer size for a request head; larger heads get `431`. Default 16 KiB
    /// (hyper's minimum is 8 KiB).
    pub max_header_bytes: usize,
    /// Connections served at once; others wait in the accept queue. Default 1024.
    pub max_connections: usize,
    /// How long [`serve_with`] waits for open connections to finish after shutdown
    /// was asked. Default 5 s.
    pub drain_timeout: Duration,
    /// How long the backend has to answer a request: one it has not answered by then
    /// is answered `503` (with `Connection: close`) by a watchdog thread, and so is
    /// every request while that lookup stays stalled (see the `deadline` module).
    /// Default `None` (no limit); `noidr` sets its `--lookup-deadline`.
    pub lookup_deadline: Option<Duration>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            header_read_timeout: Duration::from_secs(75),
            max_uri_len: 8190,
            max_header_bytes: 16 * 1024,
            max_connections: 1024,
            drain_timeout: Duration::from_secs(5),
            lookup_deadline: None,
        }
    }
}

/// Where to listen, as parsed from the `--http ADDR` argument by [`parse_addr`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Addr {
    /// A TCP address.
    Tcp(SocketAddr),
    /// A unix socket path.
    Unix(PathBuf),
}

/// Parses `--http ADDR`:
/// * `unix:/path/sock` or anything containing `/` → a unix socket;
/// * `PORT` or `:PORT` → `127.0.0.1:PORT` (loopback unless told otherwise);
/// * `HOST:PORT`, `[v6]:PORT` → that address;
/// * empty → `127.0.0.1:8090`.
pub fn parse_addr(addr: &str) -> io::Result<Addr> {
    let bad =
        |m: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("--http {addr:?}: {m}"));
    let a = addr.trim();
    if let Some(p) = a.strip_prefix("unix:") {
        if p.is_empty() {
            return Err(bad("empty unix socket path"));
        }
        return Ok(Addr::Unix(PathBuf::from(p)));
    }
    if a.contains('/') {
        return Ok(Addr::Unix(PathBuf::from(a)));
    }
    if a.is_empty() {
        return Ok(Addr::Tcp(SocketAddr::from(([127, 0, 0, 1], 8090))));
    }
    let port_only = a.strip_prefix(':').unwrap_or(a);
    if !port_only.is_empty() && port_only.bytes().all(|b| b.is_ascii_digit()) {
        let port: u16 = port_only.parse().map_err(|_| bad("bad port"))?;
        return Ok(Addr::Tcp(SocketAddr::from(([127, 0, 0, 1], port))));
    }
    a.parse::<SocketAddr>()
        .map(Addr::Tcp)
        .map_err(|_| bad("expected HOST:PORT, PORT, or a unix socket path (unix:/path)"))
}

/// A bound listening socket.
#[derive(Debug)]
pub enum Listener {
    /// TCP.
    Tcp(TcpListener),
    /// A unix socket, and its path (removed again when [`serve_with`] returns).
    Unix(UnixListener, PathBuf),
}

impl Listener {
    /// Binds `addr` (see [`parse_addr`]). Must be called inside a tokio runtime.
    ///
    /// For a unix socket, a stale socket file (nobody accepting on it) is removed
    /// first; a live one is an `AddrInUse` error. The socket file gets the process
    /// umask (set `UMask=` in systemd so that the web server's group can connect).
    pub async fn bind(addr: &str) -> io::Result<Listener> {
        match parse_addr(addr)? {
            Addr::Tcp(sa) => Ok(Listener::Tcp(TcpListener::bind(sa).await?)),
            Addr::Unix(path) => {
                if let Ok(meta) = std::fs::symlink_metadata(&path) {
                    use std::os::unix::fs::FileTypeExt;
                    if !meta.file_type().is_socket() {
                        return Err(io::Error::new(
                            io::ErrorKind::AlreadyExists,
                            format!("{} exists and is not a socket", path.display()),
                        ));
                    }
                    if std::os::unix::net::UnixStream::connect(&path).is_ok() {
                        return Err(io::Error::new(
                            io::ErrorKind::AddrInUse,
                            format!("{} is in use by another server", path.display()),
                        ));
                    }
                    std::fs::remove_file(&path)?;
                }
                let l = UnixListener::bind(&path)?;
                Ok(Listener::Unix(l, path))
            }
        }
    }

    /// Another handle on the same listening socket, for another thread's runtime.
    fn std_clone(&self) -> io::Result<StdListener> {
        Ok(match self {
            Listener::Tcp(l) => StdListener::Tcp(l.as_fd().try_clone_to_owned()?.into()),
            Listener::Unix(l, p) => {
                StdListener::Unix(l.as_fd().try_clone_to_owned()?.into(), p.clone())
            }
        })
    }

    /// Remove a unix socket's file (once nobody accepts on it any more).
    fn remove_socket_file(&self) {
        if let Listener::Unix(_, p) = self {
            let _ = std::fs::remove_file(p);
        }
    }

    /// The bound address, `127.0.0.1:PORT` or `unix:/path`.
    pub fn local_addr(&self) -> String {
        match self {
            Listener::Tcp(l) => l.local_addr().map(|a| a.to_string()).unwrap_or_default(),
            Listener::Unix(_, p) => format!("unix:{}", p.display()),
        }
    }
}

/// A [`Listener`] between threads: made a tokio one in the runtime that will accept.
enum StdListener {
    Tcp(std::net::TcpListener),
    Unix(std::os::unix::net::UnixListener, PathBuf),
}

impl StdListener {
    /// Register with the current runtime.
    fn into_tokio(self) -> io::Result<Listener> {
        Ok(match self {
            StdListener::Tcp(l) => {
                l.set_nonblocking(true)?;
                Listener::Tcp(TcpListener::from_std(l)?)
            }
            StdListener::Unix(l, p) => {
                l.set_nonblocking(true)?;
                Listener::Unix(UnixListener::from_std(l)?, p)
            }
        })
    }
}

/// Serves with [`Config::default`] until `shutdown` completes. See [`serve_with`].
pub async fn serve(
    listener: Listener,
    backend: Arc<dyn Backend>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    serve_with(listener, backend, Config::default(), shutdown).await
}

/// Accepts connections on `listener` and answers them until `shutdown` completes;
/// then stops accepting, lets the requests in flight finish (keep-alive connections
/// are closed after their current response) for at most [`Config::drain_timeout`],
/// removes a unix socket file, and returns.
pub async fn serve_with(
    listener: Listener,
    backend: Arc<dyn Backend>,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let watch = config
        .lookup_deadline
        .map(deadline::Watch::start)
        .transpose()?;
    let result = serve_on(
        &listener,
        backend,
        Arc::new(config),
        slots,
        watch.clone(),
        shutdown,
    )
    .await;
    if let Some((watch, _)) = watch {
        watch.stop();
    }
    listener.remove_socket_file();
    result
}

/// A server's lookup deadline: its watch (shared by the threads of [`run_with`]) and
/// the watch's number.
type Watched = Option<(Arc<deadline::Watch>, usize)>;

/// The accept loop of [`serve_with`], taking connection slots from `slots` and
/// answering within the deadline of `watch` (both shared by the threads of
/// [`run_with`]); leaves a unix socket file in place.
async fn serve_on(
    listener: &Listener,
    backend: Arc<dyn Backend>,
    config: Arc<Config>,
    slots: Arc<Semaphore>,
    watch: Watched,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout)
        .keep_alive(true)
        // A client may shut down its sending side once its request is out (`curl`
        // after a body, scripts using `shutdown(SHUT_WR)`); it still gets its answer.
        .half_close(true)
        .max_buf_size(config.max_header_bytes.max(8192))
        .writev(false); // head and small body go out in one write
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            _ = &mut shutdown => break,
            p = slots.clone().acquire_owned() => p.expect("semaphore never closed"),
        };
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            a = accept(listener) => a,
        };
        let io = match accepted {
            Ok(io) => io,
            Err(e) => {
                // EMFILE and friends: back off instead of spinning.
                log::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let c = (&builder, &graceful, &backend, &config, &watch);
        match io {
            Stream::Tcp(s) => spawn_connection(c, s, permit),
            Stream::Unix(s) => spawn_connection(c, s, permit),
        }
    }
    if tokio::time::timeout(config.drain_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        log::warn!(
            "shutdown: connections still open after {:?}",
            config.drain_timeout
        );
    }
    Ok(())
}

/// What every connection is served with: the connection builder, the graceful
/// shutdown, the backend, the limits, and the deadline's watch and its number.
type Served<'a> = (
    &'a http1::Builder,
    &'a hyper_util::server::graceful::GracefulShutdown,
    &'a Arc<dyn Backend>,
    &'a Arc<Config>,
    &'a Watched,
);

/// Serve one accepted connection on its own task, which holds the connection's slot
/// (`permit`) until the connection closes.
fn spawn_connection<S>(
    (builder, graceful, backend, config, watch): Served<'_>,
    stream: S,
    permit: tokio::sync::OwnedSemaphorePermit,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + std::os::fd::AsRawFd + Unpin + Send + 'static,
{
    let (backend, config, watch) = (backend.clone(), config.clone(), watch.clone());
    let fd = stream.as_raw_fd();
    let service = service_fn(move |req| {
        let deadline = watch.as_ref().map(|(w, n)| (&**w, *n, fd));
        let resp = respond::handle(&*backend, &config, &req, deadline);
        async move { Ok::<_, Infallible>(resp) }
    });
    let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            log::debug!("connection: {e}");
        }
        drop(permit);
    });
}

enum Stream {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

async fn accept(l: &Listener) -> io::Result<Stream> {
    match l {
        Listener::Tcp(l) => {
            let (s, _) = l.accept().await?;
            s.set_nodelay(true)?;
            Ok(Stream::Tcp(s))
        }
        Listener::Unix(l, _) => Ok(Stream::Unix(l.accept().await?.0)),
    }
}

/// Blocking entry point for `noidr --http ADDR`: binds `addr` (see [`parse_addr`]),
/// logs the bound address at `info`, and serves on `threads` threads (0 = one per
/// core) until SIGTERM or SIGINT.
///
/// Each thread runs a single-threaded tokio runtime and accepts on its own handle of
/// the listening socket; a connection stays on the thread that accepted it, so a
/// request is read, answered and written by one thread, and never wakes another (a
/// work-stealing runtime would hand tasks and I/O events between its workers).
pub fn run(addr: &str, backend: Arc<dyn Backend>, threads: usize) -> io::Result<()> {
    run_with(
        addr,
        backend,
        threads,
        Config::default(),
        terminate_signal(),
    )
}

/// Like [`run`], with explicit limits and an explicit shutdown future (created
/// lazily inside the runtime, so it may use tokio).
pub fn run_with<F, Fut>(
    addr: &str,
    backend: Arc<dyn Backend>,
    threads: usize,
    config: Config,
    shutdown: F,
) -> io::Result<()>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    let threads = if threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    } else {
        threads
    };
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
    };
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let until_stopped = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|&s| s).await;
    };
    let (listener, helpers, result, watchdog) = runtime()?.block_on(async move {
        let listener = Listener::bind(addr).await?;
        log::info!(
            "noidr: HTTP on {} ({threads} threads)",
            listener.local_addr()
        );
        // One watch for all threads: once a lookup is claimed, every thread answers 503
        // at once instead of stalling on the store too.
        let watch = config
            .lookup_deadline
            .map(deadline::Watch::start)
            .transpose()?;
        let watchdog = watch.as_ref().map(|(w, _)| w.clone());
        let config = Arc::new(config);
        let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
        let mut helpers = Vec::new();
        for _ in 1..threads {
            let mine = listener.std_clone()?;
            let (backend, config, slots) = (backend.clone(), config.clone(), slots.clone());
            let watch = watch.clone();
            let stopped = until_stopped(stopped.clone());
            let helper = std::thread::Builder::new()
                .name("noidr-http".into())
                .spawn(move || -> io::Result<()> {
                    runtime()?.block_on(async move {
                        let listener = mine.into_tokio()?;
                        serve_on(&listener, backend, config, slots, watch, stopped).await
                    })
                })?;
            helpers.push(helper);
        }
        let signal = async {
            shutdown().await;
            let _ = stop.send(true);
        };
        let serving = serve_on(
            &listener,
            backend,
            config,
            slots,
            watch,
            until_stopped(stopped),
        );
        let (result, ()) = tokio::join!(serving, signal);
        Ok::<_, io::Error>((listener, helpers, result, watchdog))
    })?;
    for helper in helpers {
        match helper.join() {
            Ok(r) => r?,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    if let Some(watch) = watchdog {
        watch.stop();
    }
    listener.remove_socket_file();
    drop(listener);
    result
}

/// A shutdown future for [`run_with`] that completes on SIGTERM or SIGINT.
pub fn terminate_signal() -> impl FnOnce() -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
    || {
        Box::pin(async {
            use tokio::signal::unix::{signal, SignalKind};
            match (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
            ) {
                (Ok(mut t), Ok(mut i)) => {
                    tokio::select! {
                        _ = t.recv() => log::info!("noidr: SIGTERM, shutting down"),
                        _ = i.recv() => log::info!("noidr: SIGINT, shutting down"),
                    }
                }
                _ => {
                    log::warn!("cannot install signal handlers; stop with SIGKILL");
                    std::future::pending::<()>().await
                }
            }
        })
    }
}
