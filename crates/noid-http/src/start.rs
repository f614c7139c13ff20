//! Starting the server: [`serve`] and [`serve_with`] on a listener the caller holds,
//! [`run`] and [`run_with`] on an address, each on its threads (every one running the
//! event loop of [`crate::server`]) until shutdown.

use std::io;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use noid_listen::Listener;

use crate::deadline;
use crate::server::{self, Shared};
use crate::{Backend, Config, Shutdown};

/// Serves with [`Config::default`] until `shutdown`. See [`serve_with`].
pub fn serve(listener: Listener, backend: Arc<dyn Backend>, shutdown: Shutdown) -> io::Result<()> {
    serve_with(listener, backend, Config::default(), shutdown)
}

/// Accepts connections on `listener` and answers them on the calling thread until
/// `shutdown` is asked for; then stops accepting, lets the requests in flight finish
/// (keep-alive connections are closed after their current response) for at most
/// [`Config::drain_timeout`], removes a unix socket file, and returns.
pub fn serve_with(
    listener: Listener,
    backend: Arc<dyn Backend>,
    config: Config,
    shutdown: Shutdown,
) -> io::Result<()> {
    serve_threads(listener, backend, 1, config, shutdown)
}

/// [`serve_with`] on `threads` threads (the calling one among them).
fn serve_threads(
    listener: Listener,
    backend: Arc<dyn Backend>,
    threads: usize,
    config: Config,
    shutdown: Shutdown,
) -> io::Result<()> {
    let watch = config
        .lookup_deadline
        .map(|d| deadline::Watch::start(d, deadline::Answer503::new(d)))
        .transpose()?;
    let shared = Arc::new(Shared {
        backend,
        clients: server::Clients::new(config.max_connections_per_client),
        config,
        watch,
        open: AtomicUsize::new(0),
        shutdown,
    });
    let mut helpers = Vec::new();
    let mut result = Ok(());
    for _ in 1..threads.max(1) {
        let mine = match listener.try_clone() {
            Ok(l) => l,
            Err(e) => {
                result = Err(e);
                break;
            }
        };
        let shared = shared.clone();
        let helper = std::thread::Builder::new()
            .name("noidr-http".into())
            .spawn(move || server::serve(&mine, &shared));
        match helper {
            Ok(h) => helpers.push(h),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_ok() {
        result = server::serve(&listener, &shared);
    }
    if result.is_err() {
        // Do not leave the other threads serving.
        shared.shutdown.shut_down();
    }
    for helper in helpers {
        match helper.join() {
            Ok(r) => {
                if result.is_ok() {
                    result = r;
                }
            }
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    if let Some(watch) = &shared.watch {
        watch.stop();
    }
    listener.remove_socket_file();
    drop(listener);
    result
}

/// Blocking entry point for `noidr --http ADDR`: binds `addr` (see [`noid_listen::parse_addr`]),
/// logs the bound address at `info`, and serves on `threads` threads (0 = one per
/// core) until SIGTERM or SIGINT.
///
/// Each thread runs an event loop of its own and accepts on its own handle of the
/// listening socket; a connection stays on the thread that accepted it, so a request
/// is read, answered and written by one thread, and never wakes another.
pub fn run(addr: &str, backend: Arc<dyn Backend>, threads: usize) -> io::Result<()> {
    run_with(
        addr,
        backend,
        threads,
        Config::default(),
        Shutdown::on_terminate_signals()?,
    )
}

/// Like [`run`], with explicit limits and an explicit [`Shutdown`].
pub fn run_with(
    addr: &str,
    backend: Arc<dyn Backend>,
    threads: usize,
    config: Config,
    shutdown: Shutdown,
) -> io::Result<()> {
    let threads = if threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    } else {
        threads
    };
    let listener = Listener::bind(addr)?;
    log::info!(
        "noidr: HTTP on {} ({threads} threads)",
        listener.local_addr()
    );
    serve_threads(listener, backend, threads, config, shutdown)
}
