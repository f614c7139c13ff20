//! Signals, handled on a thread of their own (`signal-hook`): SIGHUP reopens the store
//! and re-reads the rules and registry files; SIGUSR1 writes the metrics as one line to stderr (never stdout, which carries only
//! answers); SIGTERM and SIGINT (sent by Apache at restart and stop) exit cleanly.

use std::io::Write;
use std::sync::Arc;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1};
use signal_hook::iterator::Signals;

use noid_counts::Counting;
use noid_store::Follower;

use crate::current::Current;
use crate::metrics::Metrics;

/// Start the signal thread. With `terminate`, SIGTERM/SIGINT end the process with
/// status 0 after removing the secondary directories (Apache sends them when it needs
/// the program no more), once the counts (`counting`) are written; without it they are
/// left to the HTTP server's own handling.
pub fn spawn(
    follower: Arc<Follower>,
    metrics: Arc<Metrics>,
    current: Arc<Current>,
    terminate: bool,
    counting: Option<Arc<Counting>>,
) -> std::io::Result<()> {
    let mut wanted = vec![SIGHUP, SIGUSR1];
    if terminate {
        wanted.extend([SIGTERM, SIGINT]);
    }
    let mut signals = Signals::new(&wanted)?;
    std::thread::Builder::new()
        .name("noidr-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if sig == SIGUSR1 {
                    // One write of one line, whatever the log level: it was asked for.
                    let line = format!("noidr: {}\n", metrics.line(&follower.status()));
                    let _ = std::io::stderr().lock().write_all(line.as_bytes());
                } else if sig == SIGHUP {
                    log::info!("SIGHUP: reopening the store");
                    if let Err(e) = follower.reopen() {
                        log::error!("{e}");
                    }
                    if let Err(e) = current.reload() {
                        log::error!("SIGHUP: {e:#}; the rules and registry in force are kept");
                    }
                } else {
                    log::info!("signal {sig}: exiting");
                    crate::finish_counting(counting.as_deref());
                    follower.stop();
                    std::process::exit(0);
                }
            }
        })?;
    Ok(())
}
