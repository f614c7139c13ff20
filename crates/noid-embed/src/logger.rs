//! Log lines to the web server's error log, through a function the server's module
//! gives ([`set`]); log lines of RocksDB's followers and of the watchdog arrive on
//! their own threads, so the function must be callable from any thread.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The server's log function: level (1 error … 5 trace), message, length.
pub type LogFn = unsafe extern "C" fn(level: i32, msg: *const u8, len: usize);

/// The current function, as an address (0: none). A module reloaded at a graceful
/// restart gives its function again.
static TARGET: AtomicUsize = AtomicUsize::new(0);

struct ServerLog;

static LOGGER: ServerLog = ServerLog;

/// Send log lines up to `max` (1 error … 5 trace; 0 none) to `target`.
pub fn set(target: Option<LogFn>, max: i32) {
    TARGET.store(target.map_or(0, |f| f as usize), Ordering::Release);
    // Only the first call installs the logger; later ones change the function and level.
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(match max {
        i32::MIN..=0 => LevelFilter::Off,
        1 => LevelFilter::Error,
        2 => LevelFilter::Warn,
        3 => LevelFilter::Info,
        4 => LevelFilter::Debug,
        _ => LevelFilter::Trace,
    });
}

impl Log for ServerLog {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let target = TARGET.load(Ordering::Acquire);
        if target == 0 {
            return;
        }
        // SAFETY: `target` was stored from a `LogFn` by `set` (never another value but 0).
        let f: LogFn = unsafe { std::mem::transmute::<usize, LogFn>(target) };
        let mut line = Vec::with_capacity(128);
        let _ = write!(line, "noid: {}", record.args());
        let level = match record.level() {
            Level::Error => 1,
            Level::Warn => 2,
            Level::Info => 3,
            Level::Debug => 4,
            Level::Trace => 5,
        };
        // SAFETY: the server's function reads `len` bytes at `line`, which are alive
        // for the call.
        unsafe { f(level, line.as_ptr(), line.len()) };
    }

    fn flush(&self) {}
}
