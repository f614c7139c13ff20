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
//! | `GET /redirect/<id>` | the stored code (302 by default) + `Location` | `404` (a browser: the [`missing`] page) | nginx `proxy_pass`, Apache `ProxyPass` |
//! | `GET /<id>` | same as `/redirect/<id>` | `404` | direct use, Apache `ProxyPass /ark: …/ark:` |
//! | `GET /auth/<id>` | `204` + `X-Target` + `X-Status` | `403` | nginx `auth_request` (any status but 2xx/401/403 becomes 500 there) |
//! | `GET /lookup/<id>` | `200`, body = target, `X-Status` | `404` | njs `r.subrequest` |
//! | `GET /healthz`, `GET /health` | `200 ok` | `503` when [`Backend::health`] fails | probes |
//! | `GET /metrics` | `200`, [`Backend::metrics`] (Prometheus text format) | `404` when it has none | Prometheus |
//! | `GET /.well-known/ark` | `200`, the resolver's path as plain text (the ARK draft's discovery URL, [`wellknown`]) | — | ARK clients |
//! | `GET /-/ark` | `200`, the service description: the resolver's root, NAANs served, global resolver ([`wellknown`]) | — | ARK clients, the pages' header |
//! | `GET /` | `200`, the front page ([`front`]); `/?id=ID` → `303` to `/ID`, `&go=info` to `/ID?info` | — | people, in a browser |
//! | `GET /-/noid.css` | `200`, the pages' stylesheet ([`layout::STYLE_PATH`]) | — | the pages |
//!
//! Answers that are not a redirect (an inflection page, metadata, several targets (for
//! a browser, the [`choices`] page), a
//! partial identifier, a prefix registry record, a `*/ID` provider list ([`registry_page`]) …)
//! are served whole by `/redirect/` and `/<id>` (status, type and
//! body from the resolver; `text/plain` ANVL, or JSON for `Accept: application/json`);
//! `/lookup/` serves them too, with `X-Status: 200`; `/auth/` answers `401` + `X-Status`,
//! which the shipped nginx config maps (`error_page 401`) to a `proxy_pass` of
//! `/redirect/`. A stored code that is not a redirect (`410 …`) is that status with the
//! rest as a `text/plain` body (`X-Status` 410 from `/auth/` and `/lookup/`), except
//! for a withdrawn identifier's tombstone ([`Answer::Tombstone`]), which is a page
//! ([`tombstone`]) served with 410, and for an identifier whose broken target stands
//! in an archive where the rules file asks for a page ([`Answer::Archived`]), a page
//! ([`archived`]) served with 200 and a `Link` to the copy. An identifier's metadata pages and tombstone carry
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
//! NUL are misses. An ARK whose decoded spelling found nothing is resolved once more
//! as sent, `%XX` and all ([`route::as_sent`]): `/ark:/1/x%7Ey` reaches an ARK whose
//! name holds `%7E` (the ARK draft's §3.1). `/healthz`, `/health` and `/metrics` are never identifiers (ask for
//! an identifier spelled so as `/redirect/metrics`). The `Accept` header is passed to the resolver (content negotiation),
//! and `X-Forwarded-Proto` as the protocol.
//!
//! # Limits
//!
//! GET and HEAD only (`405` otherwise); a request with a body is refused with `413`
//! and the connection closed; a request-target longer than [`Config::max_uri_len`]
//! gets `414`; headers larger than [`Config::max_header_bytes`] or more than 100 header
//! fields get `431`; a request head that is not HTTP/1.x (or a request-target with
//! bytes HTTP does not allow) gets `400`, and the connection is closed after each of
//! these refusals;
//! a connection that does not deliver a complete request head within
//! [`Config::header_read_timeout`] (this also bounds idle keep-alive connections) is
//! closed; at most [`Config::max_connections`] connections are served at once (more
//! wait in the kernel's accept queue). Every accepted TCP socket has `TCP_NODELAY`
//! (a keep-alive peer would otherwise meet the 40 ms Nagle/delayed-ACK stall).
//! Keep-alive is HTTP/1.1's default (`Connection: close` ends it) and HTTP/1.0's on
//! `Connection: keep-alive`; pipelined requests are answered in order; a client that
//! shuts down its sending side after its request still gets its answer; a client that
//! does not read its answers is no longer read from once 64 KiB of them wait.
//!
//! # The server
//!
//! No async runtime: each of `threads` threads runs an event loop of its own (`mio`,
//! epoll) and accepts on its own handle of the listening socket, so a connection's
//! requests are read, answered and written by one thread. Heads are parsed by
//! `httparse` in the connection's buffer without copies, and all that
//! one read brought is answered with one write: per kept-alive request one read, one
//! write and (shared by the connections ready together) one `epoll_wait`. See the
//! `server` module.
//!
//! # Wiring it in `noidr`
//!
//! ```no_run
//! use std::sync::Arc;
//! use noid_core::{LookupError, MemLookup};
//! use noid_resolve::{Answer, Request, Resolver};
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
//! [`Backend::resolve`] is called on the server thread that read the request: a point
//! lookup costs microseconds, far less than a thread hop. A backend that may block for
//! long (a lock held for a store reopen) only delays the connections of that thread
//! ([`Config::lookup_deadline`] bounds it). A plain closure
//! `Fn(&Request) -> Result<Answer, LookupError>` is a `Backend` too.
//!
//! For tests and embedding there are [`serve`] / [`serve_with`], which serve a
//! [`noid_listen::Listener`] on the calling thread until a [`Shutdown`] is asked for (bind to port 0
//! and read [`noid_listen::Listener::local_addr`]).

#![deny(missing_docs)]

mod archived;
mod choices;
mod deadline;
mod decision;
mod front;
mod layout;
mod metadata_html;
mod missing;
mod modified;
mod negotiated;
mod page;
mod registry_page;
mod request;
mod respond;
mod response;
pub mod route;
mod server;
mod start;
mod tombstone;
mod wellknown;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where the front page's box sends what was typed (`/?id=…`); the fuzz target
/// `http_path` checks that it comes back as the very identifier.
pub use front::target as front_page_target;
pub use metadata_html::Facts;
pub use noid_core::LookupError;
pub use noid_resolve::wellknown::ArkService;
pub use noid_resolve::{Answer, Request};
pub use start::{run, run_with, serve, serve_with};

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

    /// A request was answered `503` by the lookup deadline instead of by
    /// [`Backend::resolve`] (its lookup stalled, or another one had), for the backend's
    /// metrics. A stalled lookup's own answer, dropped, still reaches `resolve`'s
    /// caller. The default does nothing.
    fn late(&self) {}

    /// A request for identifier `id` was answered as `kind` (a redirect and its code,
    /// a miss, an inflection, another page), for the resolution counts (crate
    /// `noid-counts`); `user_agent` tells a robot's request from a person's and is
    /// never kept. Errors, refusals and the service routes are not counted. The
    /// default counts nothing.
    fn count(&self, id: &str, kind: noid_counts::Kind, user_agent: Option<&[u8]>) {
        let _ = (id, kind, user_agent);
    }

    /// When identifier `id`'s bindings were last written, in seconds since the epoch,
    /// for the `Last-Modified` of its metadata pages and tombstone; `None` when not
    /// recorded. Asked only for those pages, never for a redirect. The default knows
    /// nothing.
    fn last_modified(&self, id: &str) -> Result<Option<i64>, LookupError> {
        let _ = id;
        Ok(None)
    }

    /// The FAIR Signposting links of the identifier that answers `req`
    /// ([`noid_resolve::Resolver::signposts`]: when the rules file says `signposting
    /// on`), asked only for a redirect or a metadata page. The default has none.
    fn signposts(
        &self,
        req: &Request<'_>,
    ) -> Result<Option<noid_resolve::signpost::Signposts>, LookupError> {
        let _ = req;
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
    /// The longest request head read; larger heads get `431`. Default 16 KiB (at
    /// least 4 KiB is read).
    pub max_header_bytes: usize,
    /// Connections served at once; others wait in the accept queue. Default 1024.
    pub max_connections: usize,
    /// Connections served at once from one client address (TCP; the unix socket is
    /// not counted); more are answered `503` and closed when accepted, so that one
    /// client cannot take [`Config::max_connections`] from the others. Default 256.
    pub max_connections_per_client: usize,
    /// How long [`serve_with`] and [`run_with`] wait for open connections to finish
    /// after shutdown was asked. Default 5 s.
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
            max_connections_per_client: 256,
            drain_timeout: Duration::from_secs(5),
            lookup_deadline: None,
        }
    }
}

/// Asks a running server to shut down: cloned into whoever decides (a signal thread,
/// a test), given to [`serve_with`] or [`run_with`].
#[derive(Clone, Default)]
pub struct Shutdown(Arc<ShutdownState>);

#[derive(Default)]
struct ShutdownState {
    asked: AtomicBool,
    /// Every server thread's waker.
    wakers: Mutex<Vec<Arc<mio::Waker>>>,
}

impl std::fmt::Debug for Shutdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shutdown")
            .field("asked", &self.asked())
            .finish()
    }
}

impl Shutdown {
    /// A shutdown nobody has asked for yet.
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    /// Shut down: stop accepting, let the requests in flight finish (keep-alive
    /// connections are closed after their current response) for at most
    /// [`Config::drain_timeout`], then return from [`serve_with`] or [`run_with`].
    pub fn shut_down(&self) {
        self.0.asked.store(true, Ordering::Release);
        let wakers = self.0.wakers.lock().unwrap_or_else(|e| e.into_inner());
        for w in wakers.iter() {
            let _ = w.wake();
        }
    }

    /// Whether shutdown was asked for.
    pub fn asked(&self) -> bool {
        self.0.asked.load(Ordering::Acquire)
    }

    /// Wake `waker` when shutdown is asked for (at once if it was already).
    fn notify(&self, waker: Arc<mio::Waker>) {
        self.0
            .wakers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(waker.clone());
        if self.asked() {
            let _ = waker.wake();
        }
    }

    /// A shutdown asked for by SIGTERM or SIGINT (a thread of its own waits for them).
    pub fn on_terminate_signals() -> io::Result<Shutdown> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let shutdown = Shutdown::new();
        let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])?;
        let s = shutdown.clone();
        std::thread::Builder::new()
            .name("noidr-shutdown".into())
            .spawn(move || {
                for sig in signals.forever() {
                    if s.asked() {
                        continue;
                    }
                    let name = if sig == SIGTERM { "SIGTERM" } else { "SIGINT" };
                    log::info!("noidr: {name}, shutting down");
                    s.shut_down();
                }
            })?;
        Ok(shutdown)
    }
}
