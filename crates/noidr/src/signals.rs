//! Signals, handled on a thread of their own (`signal-hook`): SIGHUP reopens the store;
//! SIGTERM and SIGINT (sent by Apache at restart and stop) exit cleanly.

use std::sync::Arc;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use noid_store::Follower;

/// Start the signal thread. With `terminate`, SIGTERM/SIGINT end the process with
/// status 0 after removing the secondary directories (Apache sends them when it needs
/// the program no more); without it they are left to the HTTP server's own handling.
pub fn spawn(follower: Arc<Follower>, terminate: bool) -> std::io::Result<()> {
    let mut wanted = vec![SIGHUP];
    if terminate {
        wanted.extend([SIGTERM, SIGINT]);
    }
    let mut signals = Signals::new(&wanted)?;
    std::thread::Builder::new()
        .name("noidr-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if sig == SIGHUP {
                    log::info!("SIGHUP: reopening the store");
                    if let Err(e) = follower.reopen() {
                        log::error!("{e}");
                    }
                } else {
                    log::info!("signal {sig}: exiting");
                    follower.stop();
                    std::process::exit(0);
                }
            }
        })?;
    Ok(())
}
