//! One thread per binder or minter directory, the only one in this service that
//! writes it: it takes the same lock as `noid` (noid-store's `pg` `open::writer`), runs the
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
//! A bulk request (`?-`) reads its body as it arrives and commits every
//! [`BULK_BATCH`] pending key writes; after each commit the output so far goes to the
//! client, followed by `# committed N commands, through line L`, and the answer ends
//! with that line for everything committed. Such a batch commit does not wait for
//! RocksDB's background work: if some is pending, readers are not let in yet and the
//! batch's output, its acknowledgement, is held until a later commit lets them in (the
//! last one waits, up to [`SETTLE`]). A body cut off, a server stopping or a failed
//! commit ends the run with an `error:` line saying so, then that line.

use std::fs::{File, OpenOptions};
use std::io::{Cursor, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use noid_egg::writelog::Record;
use noid_egg::{nog, Agent, BinderError, Format, Lines, Session};
use noid_minter::{Context, Minter, Txn};
use noid_store::{Op, Store as Engine, SETTLE};
use tokio::sync::oneshot;

/// Idle time after which the store is closed and its lock released.
pub const IDLE: Duration = Duration::from_millis(50);
/// Longest time the lock is held while requests keep coming.
pub const MAX_HOLD: Duration = Duration::from_millis(500);
/// Pause after giving the lock up, long enough for a waiting `noid` (which polls
/// every 20 ms at most) to take it.
pub const YIELD: Duration = Duration::from_millis(25);
/// Pending key writes after which a bulk request commits a batch (25,000 egg `set`s
/// of new identifiers, each writing the value, two admin elements and `:/m`).
pub const BULK_BATCH: usize = 100_000;
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
        progress: Option<tokio::sync::mpsc::Sender<bytes::Bytes>>,
    },
    /// Mint.
    Mint {
        /// How many.
        n: u64,
        /// How to print them.
        format: Format,
    },
}

/// What a directory's thread answers.
#[derive(Debug, Default)]
pub struct Answer {
    /// The response body (before the status line the handler adds).
    pub body: Vec<u8>,
    /// Whether a command failed.
    pub failed: bool,
    /// A refusal that has its own HTTP status (single commands only).
    pub refusal: Option<BinderError>,
    /// A bulk run's progress, for its last line.
    pub bulk: Option<Progress>,
    /// The status the answer's last line gives instead of 0 or 1: a minter's `stopN`
    /// that stopped or `wrapN` that wrapped (`nog`'s exit status).
    pub status: Option<u8>,
}

impl Answer {
    /// The number of the answer's status line (`egg-status:`, `nog-status:`).
    pub fn status(&self) -> u8 {
        self.status.unwrap_or(u8::from(self.failed))
    }
}

/// How far a bulk run got.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
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
fn not_committed(e: &Failed, p: &Progress) -> String {
    format!(
        "error: {e}; the commands after line {} were not committed\n\n{}",
        p.committed_line,
        committed_line(p.committed, p.committed_line)
    )
}

struct Job {
    work: Work,
    who: Who,
    read_only: bool,
    reply: oneshot::Sender<Answer>,
}

/// The handle of a directory's thread.
#[derive(Clone)]
pub struct Store {
    tx: Sender<Job>,
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
}

impl Store {
    /// Start the thread for `dir`; binder writes are logged to `log`.
    pub fn start(dir: PathBuf, log: Option<PathBuf>, settings: Settings) -> Store {
        let (tx, rx) = mpsc::channel();
        let name = format!("noid-store {}", dir.display());
        std::thread::Builder::new()
            .name(name)
            .spawn(move || Worker::new(dir, log, settings).run(rx))
            .expect("spawn store thread");
        Store { tx }
    }

    /// Queue `work` and wait for its answer.
    pub async fn submit(&self, work: Work, who: Who, read_only: bool) -> Answer {
        let (reply, rx) = oneshot::channel();
        let job = Job {
            work,
            who,
            read_only,
            reply,
        };
        if self.tx.send(job).is_err() {
            return failure("the store's thread has stopped");
        }
        rx.await
            .unwrap_or_else(|_| failure("the store's thread dropped the request"))
    }
}

/// Run `work` on `dir` in this thread: open the store (waiting for its lock), run,
/// commit, log, close. The CGI's way, one request per process.
pub fn run_once(
    dir: PathBuf,
    log: Option<PathBuf>,
    settings: Settings,
    work: Work,
    who: Who,
    read_only: bool,
) -> Answer {
    let (reply, mut rx) = oneshot::channel();
    let job = Job {
        work,
        who,
        read_only,
        reply,
    };
    let mut worker = Worker::new(dir, log, settings);
    match noid_store::open::writer(&worker.dir, worker.settings.lock_timeout) {
        Ok(writer) => worker.group(&*writer, vec![job]),
        Err(e) => return failure(&e.to_string()),
    }
    rx.try_recv()
        .unwrap_or_else(|_| failure("the request was not answered"))
}

fn failure(msg: &str) -> Answer {
    Answer {
        body: format!("error: {msg}\n\n").into_bytes(),
        failed: true,
        ..Answer::default()
    }
}

struct Worker {
    dir: PathBuf,
    log_path: Option<PathBuf>,
    /// The open write log and its inode: a log rotated away (renamed) is noticed by
    /// its path naming another inode, and the new file is opened.
    log: Option<(File, u64)>,
    settings: Settings,
}

/// The open store and since when its lock is held.
struct Held {
    writer: Box<dyn Engine>,
    since: Instant,
}

impl Worker {
    fn new(dir: PathBuf, log_path: Option<PathBuf>, settings: Settings) -> Worker {
        Worker {
            dir,
            log_path,
            log: None,
            settings,
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
                        let _ = first.reply.send(failure(&format!("{e}")));
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

    /// Run `jobs` in one transaction, commit, log, answer.
    fn group(&mut self, writer: &(dyn Engine + 'static), jobs: Vec<Job>) {
        let mut txn = Txn::new(writer);
        let mut minter = match Minter::load(&txn) {
            Ok(m) => m,
            Err(e) => {
                for j in jobs {
                    let _ = j.reply.send(failure(&e.to_string()));
                }
                return;
            }
        };
        let mut records = Vec::new();
        let mut answers = Vec::with_capacity(jobs.len());
        for mut job in jobs {
            let answer = self.work(writer, &mut txn, &mut minter, &mut job, &mut records);
            answers.push((job.reply, answer));
        }
        let committed = self
            .commit(writer, &mut txn, &mut minter, &mut records, SETTLE)
            .map(|_| ());
        for (reply, mut answer) in answers {
            match (&committed, answer.bulk) {
                (Ok(()), Some(p)) => answer
                    .body
                    .extend(committed_line(p.run, p.line).into_bytes()),
                (Ok(()), None) => {}
                (Err(e @ Failed::Log(_)), p) => {
                    answer.body.extend(format!("error: {e}\n\n").into_bytes());
                    if let Some(p) = p {
                        answer
                            .body
                            .extend(committed_line(p.run, p.line).into_bytes());
                    }
                    answer.failed = true;
                }
                (Err(e), Some(p)) => {
                    // Earlier batches' output has gone to the client or is held.
                    answer.body.truncate(p.held);
                    answer.body.extend(not_committed(e, &p).bytes());
                    answer.failed = true;
                }
                (Err(e), None) => answer = failure(&format!("{e}; nothing was written")),
            }
            let _ = reply.send(answer);
        }
    }

    fn work(
        &mut self,
        writer: &dyn Engine,
        txn: &mut Txn<'_, dyn Engine>,
        minter: &mut Minter,
        job: &mut Job,
        records: &mut Vec<Record>,
    ) -> Answer {
        let now = now();
        let agent = Agent {
            who: job.who.login.clone(),
            now,
        };
        let mut session = Session::new(true);
        session.read_only = job.read_only;
        session.binder = job.who.populator.clone();
        let record = |write: String, line: &str| Record {
            epoch: now,
            client: job.who.client.clone(),
            populator: job.who.populator.clone(),
            agent: job.who.login.clone(),
            command: write,
            received: line.to_string(),
            acting_for: job.who.acting_for.clone(),
        };
        match &mut job.work {
            Work::Egg { line, body } => {
                let mut input = Cursor::new(body.as_slice());
                let o = session.run(txn, minter, &agent, line, None, &mut input);
                if let Some(w) = o.write {
                    records.push(record(w, line));
                }
                Answer {
                    body: o.output,
                    failed: o.error.is_some(),
                    refusal: o
                        .error
                        .filter(|e| matches!(e, BinderError::Unauthorized | BinderError::ReadOnly)),
                    ..Answer::default()
                }
            }
            Work::Bulk { body, progress } => {
                let mut lines = Lines::new(body);
                let mut answer = Answer::default();
                let mut p = Progress::default();
                let mut timing = BulkTiming::default();
                // One clock read per step: the time since the previous mark.
                let mut mark = Instant::now();
                let mut lap = |into: &mut Duration| {
                    let now = Instant::now();
                    *into += now - mark;
                    mark = now;
                };
                loop {
                    if self
                        .settings
                        .stopping
                        .load(std::sync::atomic::Ordering::Relaxed)
                    {
                        answer.body.extend(
                            format!(
                                "error: the server is stopping; the commands after line {} were not run\n\n",
                                p.line
                            )
                            .bytes(),
                        );
                        answer.failed = true;
                        break;
                    }
                    let next = lines.next_command();
                    lap(&mut timing.read);
                    let (n, line) = match next {
                        Ok(Some(c)) => c,
                        Ok(None) => break,
                        Err(e) => {
                            let why = crate::body::cut_of(&e).map_or_else(
                                || format!("reading the request body: {e}"),
                                |c| c.to_string(),
                            );
                            answer.body.extend(
                                format!(
                                    "error: {why}; the commands after line {} were not run\n\n",
                                    p.line
                                )
                                .bytes(),
                            );
                            answer.failed = true;
                            break;
                        }
                    };
                    let o = session.run(txn, minter, &agent, &line, Some(n), lines.input());
                    lap(&mut timing.run);
                    answer.body.extend(o.output);
                    answer.failed |= o.error.is_some();
                    if let Some(w) = o.write {
                        records.push(record(w, &line));
                    }
                    p.run += 1;
                    p.line = n;
                    if txn.len() >= BULK_BATCH {
                        // Readers are let in only if RocksDB has nothing pending
                        // (an ingested batch may start a compaction): this batch's
                        // output, its acknowledgement, is held back until a later
                        // commit lets them in, at the latest the last one, which
                        // waits for that.
                        let committed = self.commit(writer, txn, minter, records, Duration::ZERO);
                        lap(&mut timing.commit);
                        timing.commits += 1;
                        let readers_in = match committed {
                            Ok(r) => r,
                            Err(e) => {
                                answer.body.truncate(p.held);
                                answer.body.extend(not_committed(&e, &p).bytes());
                                answer.failed = true;
                                txn.clear();
                                if let Ok(m) = Minter::load(&*txn) {
                                    *minter = m;
                                }
                                return answer;
                            }
                        };
                        p.committed = p.run;
                        p.committed_line = p.line;
                        answer
                            .body
                            .extend(committed_line(p.run, p.line).into_bytes());
                        p.held = answer.body.len();
                        if let Some(tx) = progress.as_ref().filter(|_| readers_in) {
                            // Never waits for the client: a client that reads nothing
                            // until it has sent its whole body must not stop the run.
                            // Output it has not taken yet stays in the answer, and a
                            // client that went away still has its commands run.
                            let chunk = bytes::Bytes::from(std::mem::take(&mut answer.body));
                            if let Err(tokio::sync::mpsc::error::TrySendError::Full(c)) =
                                tx.try_send(chunk)
                            {
                                answer.body = c.to_vec();
                            }
                            p.held = answer.body.len();
                        }
                    }
                }
                log::debug!(
                    "{}: bulk of {} commands: body read {:?}, run {:?}, {} intermediate commits {:?}",
                    self.dir.display(),
                    p.run,
                    timing.read,
                    timing.run,
                    timing.commits,
                    timing.commit
                );
                answer.bulk = Some(p);
                answer
            }
            Work::Mint { n, format } => {
                let ctx = Context::new(job.who.login.clone(), now, self.settings.temper);
                if job.read_only {
                    return Answer {
                        body: b"error: 403 forbidden: read-only access\n\n".to_vec(),
                        failed: true,
                        refusal: Some(BinderError::ReadOnly),
                        ..Answer::default()
                    };
                }
                let (ids, error) = match nog::mint_n(txn, minter, &ctx, *n) {
                    Ok(ids) => (ids, None),
                    Err((ids, e)) => (ids, Some(e)),
                };
                let mut notes = std::mem::take(&mut minter.notes);
                notes.extend(error.iter().map(|e| format!("error: {e}")));
                Answer {
                    body: nog::render_minted(&ids, &notes, *format),
                    failed: error.is_some(),
                    status: minter.exit_status.take(),
                    ..Answer::default()
                }
            }
        }
    }

    /// Commit the transaction as one synced batch, append and sync its records, then
    /// let readers catch up ([`Engine::pause`], waiting up to `settle` for RocksDB's
    /// background work) so that what the caller acknowledges next is what `noidr`
    /// answers next. Returns whether readers were let in: only then may the writes be
    /// acknowledged.
    fn commit(
        &mut self,
        writer: &dyn Engine,
        txn: &mut Txn<'_, dyn Engine>,
        minter: &mut Minter,
        records: &mut Vec<Record>,
        settle: Duration,
    ) -> Result<bool, Failed> {
        let t0 = Instant::now();
        minter.flush(txn);
        let ops: Vec<Op> = txn.take_writes().into_iter().map(Op::from).collect();
        let n = ops.len();
        let t1 = Instant::now();
        writer
            .commit(ops)
            .map_err(|e| Failed::Commit(e.to_string()))?;
        let t2 = Instant::now();
        let logged = if records.is_empty() {
            Ok(())
        } else {
            self.append(records).map_err(|e| {
                log::error!("write log of {}: {e}", self.dir.display());
                Failed::Log(e.to_string())
            })
        };
        let t3 = Instant::now();
        let paused = writer.pause(settle);
        log::debug!(
            "{}: commit of {n} key writes: take {:?}, store commit {:?}, write log {:?}, pause {:?}",
            self.dir.display(),
            t1 - t0,
            t2 - t1,
            t3 - t2,
            t3.elapsed()
        );
        let released = match paused {
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
        logged.map(|()| released)
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
        let t0 = Instant::now();
        let mut text = String::new();
        let count = records.len();
        for r in records.drain(..) {
            r.write_line(&mut text);
        }
        let t1 = Instant::now();
        let written = log.write_all(text.as_bytes());
        let t2 = Instant::now();
        let written = written.and_then(|()| log.sync_data());
        log::debug!(
            "write log: {count} records, {} bytes: format {:?}, write {:?}, sync {:?}",
            text.len(),
            t1 - t0,
            t2 - t1,
            t2.elapsed()
        );
        if written.is_err() {
            // Reopen next time (the file may have been rotated away or the disk freed).
            self.log = None;
        }
        written
    }
}

/// Where a bulk run's time went (logged at debug level, `RUST_LOG=noid_api=debug`).
#[derive(Default)]
struct BulkTiming {
    /// Waiting for the body and splitting it into commands (and the bookkeeping
    /// between them).
    read: Duration,
    /// Parsing and running the commands.
    run: Duration,
    /// The batch commits before the last: store, write log, readers let in.
    commit: Duration,
    /// How many.
    commits: usize,
}

/// Why a commit failed.
#[derive(Debug)]
enum Failed {
    /// Nothing of the batch was written.
    Commit(String),
    /// The batch was written, its write log records were not.
    Log(String),
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Commit(e) => f.write_str(e),
            Failed::Log(e) => write!(f, "the writes were applied but their write log failed: {e}"),
        }
    }
}

fn open_log(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
