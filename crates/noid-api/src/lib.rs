//! The binder and minter HTTP API, N2T's layout over noid's stores: what
//! `noid serve --http ADDR --config FILE` runs.
//!
//! | request | does |
//! |---|---|
//! | `GET /a/POP/b?ID.set ELEM VALUE` | one binder command (egg syntax, see `noid-egg`) |
//! | `POST /a/POP/b?-` | the body's commands, one per line (bulk) |
//! | `GET /a/POP/m/SCHEME/NAAN/SHOULDER?mint N` | N new identifiers, `s: ID` each |
//! | `GET /a/POP/b?help`, `/a/POP` | help |
//! | `GET /a/POP/links?status=S&under=P&format=csv` | the link checker's report on the binder (noid-binder's `api::link_report`) |
//!
//! The query is %-decoded once, then split like a command line. Command results,
//! errors included, are `200` with an ANVL body ending `egg-status: 0|1` (minters:
//! `nog-status:`), as N2T answers. Before any command runs: `403` for a request a
//! page of another site made a browser send (noid-binder's `api::Sent`), `404` for a
//! path that is no populator's binder or minter route, `403` for a client outside the
//! populator's allow-list or credentials of another populator, `401` without valid
//! credentials (also for a populator that is not configured), `429` after too many
//! failed attempts of one login from one address, `413` for a body or value over the
//! limits.
//! Commands that remote callers may never run (binder administration, `@FILE`, `-d`)
//! are refused. docs/SECURITY.md states what the service promises.
//!
//! Writes queue on the store's lock like `noid` processes do, are committed as one
//! synced batch and logged (synced) before they are acknowledged (noid-binder's
//! `DirectoryWriter`). What a request does is decided by noid-binder's `api`, as for
//! the CGI; this crate is the HTTP adapter (`handler`, `body`), the console, the
//! upload, and with `[links]` the link checker's schedule, gauges and digests
//! ([`links`]).
//! TLS is the front server's job (Apache or nginx, `apache-conf/`, `nginx-conf/`);
//! bind the service to loopback or a unix socket.

#![deny(missing_docs)]

mod awaited;
mod body;
mod connections;
mod console;
mod failures;
mod handler;
pub mod links;
mod metrics;
mod reply;
mod service;
pub mod upload;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use noid_listen::Listener;
use tokio::net::{TcpListener, UnixListener};

pub use service::{Peer, Service};

/// Load the configuration at `path` and build the service.
pub fn service(path: &Path, temper: fn(i64) -> String) -> Result<Arc<Service>, String> {
    let (config, populators) = noid_binder::api::load(path)?;
    Ok(Arc::new(Service::new(config, populators, temper)))
}

/// The HTTP/1 connection settings of `[serve]`: a request head must arrive within
/// `header_timeout` (which also ends idle keep-alive connections).
fn http1_builder(serve: &noid_binder::api::ServeConfig) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(serve.header_timeout))
        .keep_alive(true);
    // A client may close its sending side and wait for the answer; a bulk POST whose
    // body was cut off that way is still told how far it got.
    builder.half_close(true);
    builder
}

/// Serve `service` on `listener` until `shutdown` completes, then let requests in
/// flight finish (5 s at most). Connections are capped in all and per client
/// ([`connections`]).
pub async fn serve(
    listener: Listener,
    service: Arc<Service>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let listener = AsyncListener::from_std(listener)?;
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let builder = http1_builder(service.limits());
    let caps = connections::Connections::new(service.limits(), service.front_networks());
    tokio::pin!(shutdown);
    loop {
        let place = tokio::select! {
            _ = &mut shutdown => {
                service.stop();
                break
            }
            p = caps.place() => p,
        };
        let accepted = tokio::select! {
            _ = &mut shutdown => {
                service.stop();
                break
            }
            a = accept(&listener) => a,
        };
        let (io, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                log::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Some(admitted) = caps.admit(place, peer.ip) else {
            refuse(io, caps.per_client());
            continue;
        };
        let svc = service.clone();
        let handler = service_fn(move |req| {
            let svc = svc.clone();
            let peer = peer.clone();
            async move { Ok::<_, Infallible>(svc.handle(req, peer).await) }
        });
        match io {
            Stream::Tcp(s) => {
                let w = graceful.watch(builder.serve_connection(TokioIo::new(s), handler));
                tokio::spawn(async move {
                    if let Err(e) = w.await {
                        log::debug!("connection: {e}");
                    }
                    drop(admitted);
                });
            }
            Stream::Unix(s) => {
                let w = graceful.watch(builder.serve_connection(TokioIo::new(s), handler));
                tokio::spawn(async move {
                    if let Err(e) = w.await {
                        log::debug!("connection: {e}");
                    }
                    drop(admitted);
                });
            }
        }
    }
    if let AsyncListener::Unix(_, p) = &listener {
        let _ = std::fs::remove_file(p);
    }
    drop(listener);
    if tokio::time::timeout(Duration::from_secs(5), graceful.shutdown())
        .await
        .is_err()
    {
        log::warn!("shutdown: connections still open after 5 s");
    }
    Ok(())
}

/// Close a connection over its client's cap at once, with a `503` if the socket takes
/// it without waiting (it is a new socket: its send buffer is empty).
fn refuse(io: Stream, cap: usize) {
    let Stream::Tcp(s) = io else {
        return;
    };
    log::debug!("connection refused: its client has {cap} open");
    let body = format!("error: 503 too many connections from your address (at most {cap})\n");
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=UTF-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = s.try_write(answer.as_bytes());
}

/// `[serve] metrics_listen`: answer `GET /metrics` there and nothing else (`404`),
/// until the runtime ends.
async fn serve_metrics(listener: TcpListener, service: Arc<Service>) {
    let builder = http1_builder(service.limits());
    loop {
        let Ok((s, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let svc = service.clone();
        let handler = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
            let svc = svc.clone();
            async move {
                Ok::<_, Infallible>(if req.uri().path() == "/metrics" {
                    svc.metrics(&req)
                } else {
                    reply::response(noid_binder::api::plain(
                        hyper::StatusCode::NOT_FOUND,
                        "error: not found\n",
                    ))
                })
            }
        });
        let conn = builder.serve_connection(TokioIo::new(s), handler);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                log::debug!("metrics connection: {e}");
            }
        });
    }
}

enum Stream {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

/// A bound [`Listener`] made a tokio one (inside the runtime).
enum AsyncListener {
    Tcp(TcpListener),
    Unix(UnixListener, std::path::PathBuf),
}

impl AsyncListener {
    fn from_std(l: Listener) -> io::Result<AsyncListener> {
        Ok(match l {
            Listener::Tcp(l) => {
                l.set_nonblocking(true)?;
                AsyncListener::Tcp(TcpListener::from_std(l)?)
            }
            Listener::Unix(l, p) => {
                l.set_nonblocking(true)?;
                AsyncListener::Unix(UnixListener::from_std(l)?, p)
            }
        })
    }
}

async fn accept(l: &AsyncListener) -> io::Result<(Stream, Peer)> {
    match l {
        AsyncListener::Tcp(l) => {
            let (s, addr) = l.accept().await?;
            s.set_nodelay(true)?;
            Ok((
                Stream::Tcp(s),
                Peer {
                    ip: Some(addr.ip()),
                    via_socket: false,
                },
            ))
        }
        AsyncListener::Unix(l, _) => Ok((
            Stream::Unix(l.accept().await?.0),
            Peer {
                ip: None,
                via_socket: true,
            },
        )),
    }
}

/// `noid serve --http ADDR --config FILE`: serve until SIGTERM or SIGINT.
pub fn run(addr: &str, config: &Path, temper: fn(i64) -> String) -> io::Result<()> {
    let service = service(config, temper).map_err(io::Error::other)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .thread_name("noid-api")
        .enable_io()
        .enable_time()
        .build()?;
    rt.block_on(async move {
        let listener = Listener::bind(addr)?;
        log::info!("noid serve: HTTP API on {}", listener.local_addr());
        if let Some(at) = &service.limits().metrics_listen {
            let metrics = TcpListener::bind(at).await?;
            log::info!("noid serve: metrics on {}", metrics.local_addr()?);
            tokio::spawn(serve_metrics(metrics, service.clone()));
        }
        links::start(&service).map_err(io::Error::other)?;
        serve(listener, service, terminate_signal()).await
    })
}

/// Completes on SIGTERM or SIGINT.
async fn terminate_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut t), Ok(mut i)) => {
            tokio::select! {
                _ = t.recv() => log::info!("noid serve: SIGTERM, shutting down"),
                _ = i.recv() => log::info!("noid serve: SIGINT, shutting down"),
            }
        }
        _ => {
            log::warn!("cannot install signal handlers; stop with SIGKILL");
            std::future::pending::<()>().await
        }
    }
}
