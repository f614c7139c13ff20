//! A process's counting: the [`Tally`] its request threads count into, the
//! [`Robots`] that class their User-Agents, and a thread that flushes the tally to
//! the process's own segment every interval ([`Counting::start`]).
//!
//! A process that ends cleanly calls [`Counting::flush`] last; one that crashes or
//! is killed loses what it counted since its last flush: at most one interval.

use std::io;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use crate::key::{today, Class, Kind};
use crate::robots::Robots;
use crate::store::{CountsDir, SegmentWriter};
use crate::tally::{Tally, Totals};

/// The default flush interval.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

/// Counting in this process, shared by its request threads.
pub struct Counting {
    tally: Tally,
    /// Compiled at the first request with a User-Agent (the line protocols have none).
    robots: OnceLock<Robots>,
    /// The segment.
    writer: Mutex<SegmentWriter>,
    /// Set to stop the flusher thread (and woken with the condvar).
    stop: (Mutex<bool>, Condvar),
}

impl Counting {
    /// Counting into a new segment of `dir`, flushed every `interval` by a thread of
    /// its own. Fails when the segment cannot be created (the directory is not
    /// writable): counting that was asked for is never dropped silently.
    pub fn start(dir: &CountsDir, interval: Duration) -> io::Result<Arc<Counting>> {
        let counting = Arc::new(Counting {
            tally: Tally::default(),
            robots: OnceLock::new(),
            writer: Mutex::new(dir.writer()?),
            stop: (Mutex::new(false), Condvar::new()),
        });
        let flusher = counting.clone();
        std::thread::Builder::new()
            .name("noid-counts".into())
            .spawn(move || flusher.flush_every(interval))?;
        Ok(counting)
    }

    /// Count one answer of `kind` for `id`, classing the asker by `user_agent`.
    #[inline]
    pub fn count(&self, id: &[u8], kind: Kind, user_agent: Option<&[u8]>) {
        let robots = self.robots.get_or_init(Robots::shipped);
        self.tally.count(id, kind, robots.classify(user_agent));
    }

    /// Count one answer of `kind` for `id` to an asker of a known class (a protocol
    /// that carries no User-Agent).
    #[inline]
    pub fn count_as(&self, id: &[u8], kind: Kind, class: Class) {
        self.tally.count(id, kind, class);
    }

    /// Writes what was counted since the last flush to the segment: a block per
    /// thread that counted, each in one write (a crash between two loses only those
    /// not written, which were counted since the last flush too).
    pub fn flush(&self) -> io::Result<()> {
        let mut segment = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let mut written = Ok(());
        self.tally.drain_blocks(|block| {
            if written.is_ok() {
                written = segment.append_block(block);
            }
        });
        written
    }

    /// Stops the flusher thread and flushes once more (a clean end).
    pub fn finish(&self) -> io::Result<()> {
        *self.stop.0.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.stop.1.notify_all();
        self.flush()
    }

    /// The counts since the process started, by kind group and class.
    pub fn totals(&self) -> Totals {
        self.tally.totals()
    }

    fn flush_every(&self, interval: Duration) {
        let mut stopped = self.stop.0.lock().unwrap_or_else(PoisonError::into_inner);
        while !*stopped {
            stopped = self
                .stop
                .1
                .wait_timeout(stopped, interval)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            if *stopped {
                break;
            }
            if let Err(e) = self.flush() {
                log::error!("cannot write the counts: {e}");
            }
            self.tally.set_day(today());
        }
    }
}
