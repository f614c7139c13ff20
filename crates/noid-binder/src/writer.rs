//! One thread per binder or minter directory, the only one in this service that
//! writes it: it takes the same lock as `noid` (noid-store's `open::writer`), runs the
//! requests queued for the directory in one transaction, commits them as one synced
//! batch, appends their write log records (synced), lets readers catch up
//! (`Store::pause`: `noidr`'s next request sees the writes), and only then answers
//! them.
//!
//! The store stays open while requests keep coming (opening a store per request would
//! cost more than the write), is closed after [`IDLE`] without requests, and for
//! [`YIELD`] after [`MAX_HOLD`] so that `noid` processes waiting for its lock get their
//! turn.
//!
//! The requests taken together run as one write batch of noid-minter's engine
//! (`noid_minter::batch`), fed by `group`, which also says how a bulk request
//! (`?-`) commits and reports as it goes.
//!
//! No async runtime: a request is queued with a callback that gets its answer
//! ([`DirectoryWriter::submit`]), or waited for ([`DirectoryWriter::run`]); a bulk
//! request's committed output goes to a [`Progress`] as it is made durable. The HTTP
//! service wraps both for its tasks; the CGI runs one request in its own thread
//! ([`run_once`]).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::write_log::Record;
use noid_egg::{BinderError, Format};
use noid_minter::batch::{self, Batch};
use noid_store::Store;

use crate::admission::AdmissionSource;
use crate::group::Group;
use crate::observe::{Kind, Observer, Stage};

/// Idle time after which the store is closed and its lock released.
pub const IDLE: Duration = Duration::from_millis(50);
/// Longest time the lock is held while requests keep coming.
pub const MAX_HOLD: Duration = Duration::from_millis(500);
/// Pause after giving the lock up, long enough for a waiting `noid` (which polls
/// every 20 ms at most) to take it.
pub const YIELD: Duration = Duration::from_millis(25);
/// Requests answered by one commit at most.
const GROUP: usize = 256;

/// Who sent a request.
#[derive(Debug, Clone)]
pub struct Who {
    /// The populator.
    pub populator: String,
    /// The login (the populator's name when it is open).
    pub login: String,
    /// The client's address.
    pub client: String,
    /// N2T's `Acting-For` header: the party the populator acts for.
    pub acting_for: Option<String>,
}

/// What a request asks of a directory.
pub enum Work {
    /// One binder command; indirect tokens read `body`.
    Egg {
        /// The command line.
        line: String,
        /// The request body.
        body: Vec<u8>,
    },
    /// Bulk binder commands, one per line of `body`.
    Bulk {
        /// The request body, read as it arrives.
        body: Box<dyn std::io::BufRead + Send>,
        /// Where each committed batch's output goes at once (a streamed response);
        /// without one it stays in the answer.
        progress: Option<Box<dyn Progress>>,
        /// Where the run counts its commands as it goes, for a caller that shows
        /// progress and each command's outcome (the console's upload).
        tally: Option<std::sync::Arc<Tally>>,
    },
    /// Typed binder commands run as a bulk request (a sheet upload's cells): each
    /// command alone, committed in batches, counted in `tally` with command `n` as
    /// line `n`.
    Sheet {
        /// The commands, in order.
        commands: Vec<noid_egg::Command>,
        /// Where the run counts its commands as it goes.
        tally: Option<std::sync::Arc<Tally>>,
    },
    /// Typed binder commands, run as one change: if one fails, none is kept. The way
    /// in of callers that hold values rather than lines (the console); each command's
    /// reply comes back typed in [`WorkResult::replies`].
    Commands(Vec<noid_egg::Command>),
    /// The link checker's records ([`noid_core::links`] keys only) put or deleted as one
    /// change; not logged: they are no identifier's elements, and checks rewrite them.
    Links(noid_core::Writes),
    /// A whole operation that commits in batches of its own (a rewrite or its undo,
    /// [`crate::rewrite`]), run on the open store by the directory's thread between
    /// groups, alone; readers are let in after it, as after a group. Refused for a
    /// read-only request.
    Operation(Operation),
    /// Mint.
    Mint {
        /// How many.
        n: u64,
        /// How to print them.
        format: Format,
    },
}

impl Work {
    /// What kind of work it is (the metrics' `work` label).
    pub fn kind(&self) -> Kind {
        match self {
            Work::Egg { .. } | Work::Commands(_) => Kind::Egg,
            Work::Bulk { .. } | Work::Sheet { .. } | Work::Operation(_) => Kind::Bulk,
            Work::Mint { .. } => Kind::Mint,
            Work::Links(_) => Kind::Links,
        }
    }
}

/// A [`Work::Operation`]'s work: given the open store, its answer.
pub type Operation = Box<dyn FnOnce(&(dyn Store + 'static)) -> WorkResult + Send>;

/// What a directory's thread answers.
#[derive(Debug, Default)]
pub struct WorkResult {
    /// The response body (before the status line the handler adds).
    pub body: Vec<u8>,
    /// Whether a command failed.
    pub failed: bool,
    /// A refusal that has its own HTTP status (single commands only).
    pub refusal: Option<BinderError>,
    /// The status the answer's last line gives instead of 0 or 1: a minter's `stopN`
    /// that stopped or `wrapN` that wrapped (`nog`'s exit status).
    pub status: Option<u8>,
    /// The identifiers a mint minted, in order.
    pub minted: Vec<String>,
    /// Why a mint stopped, when it did (also in `body`, as the answer's `error:` line).
    pub error: Option<String>,
    /// The typed replies of [`Work::Commands`], one per command run (up to the one
    /// that failed).
    pub replies: Vec<noid_egg::Reply>,
}

/// A bulk run's count of its commands as it goes, read by another thread while it
/// runs (the console's progress page) and after it (the upload's per-row outcomes).
#[derive(Debug, Default)]
pub struct Tally {
    /// Commands run so far.
    pub run: AtomicUsize,
    /// Commands committed so far (the first `committed` of `outcomes`).
    pub committed: AtomicUsize,
    /// Each command run: its input line, and its error if it failed.
    pub outcomes: Mutex<Vec<(usize, Option<String>)>>,
    /// Why the run stopped early or was not all committed or logged, if it was.
    pub stopped: Mutex<Option<String>>,
    /// The commands (by index, `start..end` of `outcomes`) whose writes were committed
    /// but not logged (the write log failed), so `noid replay` would miss them.
    pub unlogged: Mutex<Vec<std::ops::Range<usize>>>,
}

impl Tally {
    /// A command of input line `line` ran.
    pub(crate) fn ran(&self, line: usize, error: Option<String>) {
        self.outcomes.lock().expect("tally").push((line, error));
        self.run.fetch_add(1, Ordering::Relaxed);
    }

    /// A commit of the first `run` commands returned, with its failure if it failed
    /// (a write log failure follows a commit that wrote).
    pub(crate) fn settled(&self, run: usize, failed: Option<&Failed>) {
        if let Some(Failed::Log(_)) = failed {
            let from = self.committed.load(Ordering::Relaxed);
            if from < run {
                self.unlogged.lock().expect("tally").push(from..run);
            }
        }
        if !matches!(failed, Some(Failed::Commit(..))) {
            self.committed.store(run, Ordering::Relaxed);
        }
        if let Some(e) = failed {
            self.stop(&e.to_string());
        }
    }

    /// The run stopped, or its writes were not all committed or logged: why.
    pub(crate) fn stop(&self, why: &str) {
        self.stopped
            .lock()
            .expect("tally")
            .get_or_insert_with(|| why.to_string());
    }
}

impl WorkResult {
    /// The number of the answer's status line (`egg-status:`, `nog-status:`).
    pub fn status(&self) -> u8 {
        self.status.unwrap_or(u8::from(self.failed))
    }
}

/// Where a bulk request's output goes as its batches are committed (a streamed
/// response), in place of a channel of one runtime: the HTTP service's sends to its
/// response body without waiting.
pub trait Progress: Send {
    /// The output of the batches committed since the last call (readers let in: it
    /// is durable and visible). `Err` gives it back when it cannot be taken now (the
    /// client is slow): it stays in the answer, ahead of what comes next. Never
    /// blocks: a client that reads nothing until it has sent its whole body must not
    /// stop the run.
    fn committed(&mut self, output: Vec<u8>) -> Result<(), Vec<u8>>;
}

/// How far a bulk run got.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    /// Commands run (failed ones included: they changed nothing).
    pub run: usize,
    /// The input line of the last command run.
    pub line: usize,
    /// Commands committed by the batches before the current one.
    pub committed: usize,
    /// The input line of the last command committed.
    pub committed_line: usize,
    /// The length of the answer's output that belongs to committed batches and has not
    /// gone to the client yet (held until readers are let in, or the client is slow).
    pub held: usize,
}

/// `# committed N commands, through line L`.
pub fn committed_line(commands: usize, line: usize) -> String {
    format!("# committed {commands} commands, through line {line}\n")
}

/// A failed bulk commit's last lines: what failed, and how far the run got before.
pub(crate) fn not_committed(e: &Failed, p: &Reached) -> String {
    format!(
        "error: {e}; the commands after line {} were not committed\n\n{}",
        p.committed_line,
        committed_line(p.committed, p.committed_line)
    )
}

/// A request queued for a directory's thread.
pub(crate) struct Job {
    pub(crate) work: Work,
    pub(crate) who: Who,
    pub(crate) read_only: bool,
    /// Where its answer goes: the service's waiting task, or the CGI's own thread.
    pub(crate) reply: Box<dyn FnOnce(WorkResult) + Send>,
}

/// The handle of a directory's thread.
#[derive(Clone)]
pub struct DirectoryWriter {
    tx: Sender<Job>,
    /// Where the time each request's work took is counted.
    observer: std::sync::Arc<dyn Observer>,
}

/// How a directory's thread opens stores and stamps circulation records.
#[derive(Clone)]
pub struct Settings {
    /// How long to wait for the store lock.
    pub lock_timeout: Duration,
    /// Epoch seconds → local `YYYYMMDDhhmmss` (the `noid` CLI's).
    pub temper: fn(i64) -> String,
    /// Set when the server is stopping: bulk runs stop at their next command.
    pub stopping: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// What is told of the work done (`noid serve`'s `GET /metrics`).
    pub observer: std::sync::Arc<dyn Observer>,
}

impl DirectoryWriter {
    /// Start the thread for `dir`; binder writes are logged to `log`; what it admits
    /// comes from `admission`.
    pub fn start(
        dir: PathBuf,
        log: Option<PathBuf>,
        settings: Settings,
        admission: AdmissionSource,
    ) -> DirectoryWriter {
        let (tx, rx) = mpsc::channel();
        let name = format!("noid-store {}", dir.display());
        let observer = settings.observer.clone();
        std::thread::Builder::new()
            .name(name)
            .spawn(move || Worker::new(dir, log, settings, admission).run(rx))
            .expect("spawn store thread");
        DirectoryWriter { tx, observer }
    }

    /// Queue `work`; `reply` gets its answer, on the directory's thread (keep it
    /// quick: hand the answer over, as a channel's send does). The way of callers
    /// that must not block, such as an async task.
    pub fn submit(
        &self,
        work: Work,
        who: Who,
        read_only: bool,
        reply: impl FnOnce(WorkResult) + Send + 'static,
    ) {
        let (kind, queued) = (work.kind(), Instant::now());
        let observer = self.observer.clone();
        let job = Job {
            work,
            who,
            read_only,
            reply: Box::new(move |a| {
                observer.took(kind, queued.elapsed());
                reply(a)
            }),
        };
        if let Err(mpsc::SendError(job)) = self.tx.send(job) {
            (job.reply)(failure("the store's thread has stopped"));
        }
    }

    /// Queue `work` and wait (blocking this thread) for its answer.
    pub fn run(&self, work: Work, who: Who, read_only: bool) -> WorkResult {
        let (tx, rx) = mpsc::channel();
        self.submit(work, who, read_only, move |a| {
            let _ = tx.send(a);
        });
        rx.recv()
            .unwrap_or_else(|_| failure("the store's thread dropped the request"))
    }
}

/// Run `work` on `dir` in this thread: open the store (waiting for its lock), run,
/// commit, log, close. The CGI's way, one request per process, with no async runtime.
pub fn run_once(
    dir: PathBuf,
    log: Option<PathBuf>,
    admission: AdmissionSource,
    settings: Settings,
    work: Work,
    who: Who,
    read_only: bool,
) -> WorkResult {
    let (tx, rx) = mpsc::channel();
    let job = Job {
        work,
        who,
        read_only,
        reply: Box::new(move |a| {
            let _ = tx.send(a);
        }),
    };
    let mut worker = Worker::new(dir, log, settings, admission);
    match noid_store::open::writer(&worker.dir, worker.settings.lock_timeout) {
        Ok(writer) => worker.group(&*writer, vec![job]),
        Err(e) => {
            worker.failed(&job.who, Stage::Open);
            return failure(&e.to_string());
        }
    }
    rx.try_recv()
        .unwrap_or_else(|_| failure("the request was not answered"))
}

/// An answer that is only an error.
pub fn failure(msg: &str) -> WorkResult {
    WorkResult {
        body: format!("error: {msg}\n\n").into_bytes(),
        failed: true,
        ..WorkResult::default()
    }
}

/// A directory's thread: its store, its write log, its settings.
pub(crate) struct Worker {
    dir: PathBuf,
    log_path: Option<PathBuf>,
    /// The open write log and its inode: a log rotated away (renamed) is noticed by
    /// its path naming another inode, and the new file is opened.
    log: Option<(File, u64)>,
    settings: Settings,
    /// What the directory admits beyond its own gate.
    admission: AdmissionSource,
}

/// The open store and since when its lock is held.
struct Held {
    writer: Box<dyn Store>,
    since: Instant,
}

impl Worker {
    fn new(
        dir: PathBuf,
        log_path: Option<PathBuf>,
        settings: Settings,
        admission: AdmissionSource,
    ) -> Worker {
        Worker {
            dir,
            log_path,
            log: None,
            settings,
            admission,
        }
    }

    fn run(mut self, rx: Receiver<Job>) {
        let mut held: Option<Held> = None;
        loop {
            let first = if held.is_some() {
                match rx.recv_timeout(IDLE) {
                    Ok(j) => j,
                    Err(RecvTimeoutError::Timeout) => {
                        held = None;
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            } else {
                match rx.recv() {
                    Ok(j) => j,
                    Err(_) => return,
                }
            };
            if held.as_ref().is_some_and(|h| h.since.elapsed() >= MAX_HOLD) {
                held = None;
                std::thread::sleep(YIELD);
            }
            if held.is_none() {
                match noid_store::open::writer(&self.dir, self.settings.lock_timeout) {
                    Ok(writer) => {
                        held = Some(Held {
                            writer,
                            since: Instant::now(),
                        })
                    }
                    Err(e) => {
                        log::error!("{}: {e}", self.dir.display());
                        self.failed(&first.who, Stage::Open);
                        (first.reply)(failure(&format!("{e}")));
                        continue;
                    }
                }
            }
            let mut jobs = vec![first];
            while jobs.len() < GROUP {
                match rx.try_recv() {
                    Ok(j) => jobs.push(j),
                    Err(_) => break,
                }
            }
            let writer = &*held.as_ref().expect("opened above").writer;
            self.group(writer, jobs);
        }
    }

    /// Run `jobs` as one write batch: run, commit, log, let readers in, answer. An
    /// operation among them runs first, alone ([`Work::Operation`]).
    fn group(&mut self, writer: &(dyn Store + 'static), mut jobs: Vec<Job>) {
        while let Some(i) = jobs
            .iter()
            .position(|j| matches!(j.work, Work::Operation(_)))
        {
            let job = jobs.remove(i);
            let Work::Operation(run) = job.work else {
                unreachable!("found above")
            };
            let answer = if job.read_only {
                WorkResult {
                    refusal: Some(BinderError::ReadOnly),
                    ..failure("403 forbidden: read-only access")
                }
            } else {
                let answer = run(writer);
                self.pause(writer, noid_store::SETTLE);
                answer
            };
            (job.reply)(answer);
        }
        if jobs.is_empty() {
            return;
        }
        let opened = Batch::open(writer).and_then(|mut b| {
            let (_, minter) = b.parts()?;
            minter.gate = minter.gate.clone().admitting(&self.admission.admission());
            Ok(b)
        });
        let mut batch = match opened {
            Ok(b) => b,
            Err(e) => {
                for j in jobs {
                    self.failed(&j.who, Stage::Open);
                    (j.reply)(failure(&e.to_string()));
                }
                return;
            }
        };
        batch::run(&mut batch, &mut Group::new(self, jobs));
    }

    /// Append `records` to the write log (synced); a failure means the writes were
    /// applied but not logged.
    pub(crate) fn log_records(&mut self, records: &mut Vec<Record>) -> Result<(), Failed> {
        if records.is_empty() {
            return Ok(());
        }
        self.append(records).map_err(|e| {
            log::error!("write log of {}: {e}", self.dir.display());
            Failed::Log(e.to_string())
        })
    }

    /// Let readers catch up ([`Store::pause`], waiting up to `settle` for RocksDB's
    /// background work) so that what is acknowledged next is what `noidr` answers
    /// next; whether they were let in: only then may the writes be acknowledged.
    pub(crate) fn pause(&self, writer: &dyn Store, settle: Duration) -> bool {
        let released = match writer.pause(settle) {
            Ok(released) => released,
            Err(e) => {
                log::warn!("{}: {e}", self.dir.display());
                false
            }
        };
        if !released && !settle.is_zero() {
            log::warn!(
                "{}: RocksDB still busy after a commit; readers catch up later",
                self.dir.display()
            );
        }
        released
    }

    /// Count a request of `who` whose writes failed at `stage`.
    pub(crate) fn failed(&self, who: &Who, stage: Stage) {
        self.settings.observer.failed(&who.populator, stage);
    }

    /// What is told of the work done.
    pub(crate) fn observer(&self) -> &dyn Observer {
        &*self.settings.observer
    }

    /// Whether the server is stopping (bulk runs stop at their next command).
    pub(crate) fn stopping(&self) -> bool {
        self.settings
            .stopping
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Epoch seconds → local time, for circulation records.
    pub(crate) fn temper(&self) -> fn(i64) -> String {
        self.settings.temper
    }

    fn append(&mut self, records: &mut Vec<Record>) -> std::io::Result<()> {
        let Some(path) = &self.log_path else {
            records.clear();
            return Ok(());
        };
        let current = std::fs::metadata(path).ok().map(|m| m.ino());
        if self.log.as_ref().map(|(_, ino)| *ino) != current || current.is_none() {
            let f = open_log(path)?;
            let ino = f.metadata()?.ino();
            self.log = Some((f, ino));
        }
        let (log, _) = self.log.as_mut().expect("opened above");
        let mut text = String::new();
        for r in records.drain(..) {
            r.write_line(&mut text);
        }
        let written = log
            .write_all(text.as_bytes())
            .and_then(|()| log.sync_data());
        if written.is_err() {
            // Reopen next time (the file may have been rotated away or the disk freed).
            self.log = None;
        }
        written
    }
}

/// Why a commit failed.
#[derive(Debug, Clone)]
pub(crate) enum Failed {
    /// The batch's commit failed: its error, and what it left written
    /// (`StoreError::after_failed_commit`: nothing, or unknown when a commit was cut off
    /// at COMMIT).
    Commit(String, &'static str),
    /// The batch was written, its write log records were not.
    Log(String),
}

impl Failed {
    /// Where it failed, for the metrics.
    pub(crate) fn stage(&self) -> Stage {
        match self {
            Failed::Commit(..) => Stage::Commit,
            Failed::Log(_) => Stage::Log,
        }
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Commit(e, _) => f.write_str(e),
            Failed::Log(e) => write!(f, "the writes were applied but their write log failed: {e}"),
        }
    }
}

/// The write log, opened to append; a new one readable by its owner alone (it names
/// logins and client addresses, and holds every value written).
pub(crate) fn open_log(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// Seconds since the epoch.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
