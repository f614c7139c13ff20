//! A process's counting: the [`Tally`] its request threads count into, the
//! [`Robots`] that class their User-Agents, and a thread that flushes the tally to
//! the process's own segment every interval ([`Counting::start`]).
//!
//! A process that ends cleanly calls [`Counting::flush`] last; one that crashes or
//! is killed loses what it counted since its last flush: at most one interval.

use std::io;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use noid_core::Kept;

use crate::key::{today, Class, Kind};
use crate::robots::Robots;
use crate::store::{CountsDir, SegmentWriter};
use crate::tally::{Tally, Totals};

/// The default flush interval.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

/// Who asked, as far as the request says.
#[derive(Debug, Clone, Copy)]
pub enum Asker<'a> {
    /// A request of a line protocol (`RewriteMap prg:`, a module's map): no header
    /// reaches it, so it is counted as a person's.
    Unseen,
    /// An HTTP request with this `User-Agent` (`None`: without one, which the robots
    /// list counts as a robot's).
    UserAgent(Option<&'a [u8]>),
}

/// Counting in this process, shared by its request threads.
pub struct Counting {
    tally: Tally,
    /// Compiled when an HTTP server starts ([`Counting::prepare_robots`]) or at the
    /// first request with a User-Agent; the line protocols never need it.
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

    /// Compiles the robots list now (some 24 million instructions) and matches a
    /// browser's User-Agent once, for a server whose requests carry User-Agents
    /// (HTTP), so that no request pays for it; the line protocols never need it.
    pub fn prepare_robots(&self) {
        let robots = self.robots.get_or_init(Robots::shipped);
        robots.classify(Some(
            b"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        ));
    }

    /// Count one answer of `kind` for `id`, classing the asker by `user_agent`.
    #[inline]
    pub fn count(&self, id: &[u8], kind: Kind, user_agent: Option<&[u8]>) {
        self.tally
            .count(id, kind, self.class_of(Asker::UserAgent(user_agent)));
    }

    /// The class `asker` is counted in: a line protocol's as a person, an HTTP
    /// request's by its User-Agent and the robots list.
    #[inline]
    pub fn class_of(&self, asker: Asker<'_>) -> Class {
        match asker {
            Asker::Unseen => Class::Person,
            Asker::UserAgent(user_agent) => self
                .robots
                .get_or_init(Robots::shipped)
                .classify(user_agent),
        }
    }

    /// Count one more use of `kept`, an answer the memo found or kept, by an asker of
    /// `class`: one atomic increment in the answer itself, where counting by the
    /// identifier costs a hash and a table look-up (docs/COUNTS.md, "What counting
    /// costs"). The first time an answer is counted, `counted_as` says what its uses
    /// count as (`None`: they are not counted, as a line that is no lookup), and the
    /// tally watches it from then on.
    #[inline]
    pub fn count_kept<'a>(
        &self,
        kept: &Arc<Kept>,
        class: Class,
        counted_as: impl FnOnce() -> Option<(&'a [u8], Kind)>,
    ) {
        if kept.watch() {
            match counted_as() {
                Some((id, kind)) => self.tally.watch(kept.clone(), id, kind),
                None => return,
            }
        }
        kept.add_use(class as usize);
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
