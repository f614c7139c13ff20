//! One thread per binder or minter directory, the only one in this service that
//! writes it: it takes the same lock as `noid` (noid-store's [`Writer`]), runs the
//! requests queued for the directory in one transaction, commits them as one synced
//! batch, appends their write log records (synced), and only then answers them.
//!
//! The lock is held while requests keep coming (opening a store per request would
//! cost more than the write), given up after [`IDLE`] without requests, and given up
//! for [`YIELD`] after [`MAX_HOLD`] so that `noid` processes waiting for it get their
//! turn and readers (`noidr`) can catch up.

use std::fs::{File, OpenOptions};
use std::io::{Cursor, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use noid_binder::writelog::Record;
use noid_binder::{nog, Agent, BinderError, Format, Lines, Session};
use noid_minter::{Context, Minter, Txn};
use noid_store::{Op, Writer};
use tokio::sync::oneshot;

/// Idle time after which the store is closed and its lock released.
pub const IDLE: Duration = Duration::from_millis(50);
/// Longest time the lock is held while requests keep coming.
pub const MAX_HOLD: Duration = Duration::from_millis(500);
/// Pause after giving the lock up, long enough for a waiting `noid` (which polls
/// every 20 ms at most) to take it.
pub const YIELD: Duration = Duration::from_millis(25);
/// Pending key writes after which a bulk request commits a batch.
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
        /// The request body.
        body: Vec<u8>,
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
    match Writer::open(&worker.dir, worker.settings.lock_timeout) {
        Ok(writer) => worker.group(&writer, vec![job]),
        Err(e) => return failure(&e.to_string()),
    }
    rx.try_recv()
        .unwrap_or_else(|_| failure("the request was not answered"))
}

fn failure(msg: &str) -> Answer {
    Answer {
        body: format!("error: {msg}\n\n").into_bytes(),
        failed: true,
        refusal: None,
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
    writer: Writer,
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
                match Writer::open(&self.dir, self.settings.lock_timeout) {
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
            let writer = &held.as_ref().expect("opened above").writer;
            self.group(writer, jobs);
        }
    }

    /// Run `jobs` in one transaction, commit, log, answer.
    fn group(&mut self, writer: &Writer, jobs: Vec<Job>) {
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
        for job in jobs {
            let answer = self.work(&mut txn, &mut minter, &job, &mut records);
            answers.push((job.reply, answer));
        }
        let committed = self.commit(&mut txn, &mut minter, &mut records);
        for (reply, mut answer) in answers {
            if let Err(e) = &committed {
                answer = failure(&format!("{e}; nothing was written"));
            }
            let _ = reply.send(answer);
        }
    }

    fn work(
        &mut self,
        txn: &mut Txn<'_, Writer>,
        minter: &mut Minter,
        job: &Job,
        records: &mut Vec<Record>,
    ) -> Answer {
        let now = now();
        let agent = Agent {
            who: job.who.login.clone(),
            now,
        };
        let mut session = Session::new(true);
        session.read_only = job.read_only;
        let record = |write: String, line: &str| Record {
            epoch: now,
            client: job.who.client.clone(),
            populator: job.who.populator.clone(),
            agent: job.who.login.clone(),
            command: write,
            received: line.to_string(),
        };
        match &job.work {
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
                }
            }
            Work::Bulk { body } => {
                let mut lines = Lines::new(Cursor::new(body.as_slice()));
                let mut answer = Answer::default();
                let mut last = 0;
                loop {
                    let (n, line) = match lines.next_command() {
                        Ok(Some(c)) => c,
                        Ok(None) => break,
                        Err(e) => {
                            answer
                                .body
                                .extend(format!("error: reading input: {e}\n\n").bytes());
                            answer.failed = true;
                            break;
                        }
                    };
                    let o = session.run(txn, minter, &agent, &line, Some(n), lines.input());
                    answer.body.extend(o.output);
                    answer.failed |= o.error.is_some();
                    if let Some(w) = o.write {
                        records.push(record(w, &line));
                    }
                    if txn.len() >= BULK_BATCH {
                        if let Err(e) = self.commit(txn, minter, records) {
                            answer.body.extend(
                                format!(
                                    "error: {e}; commands before line {n} up to line {last} were committed, none after\n\n"
                                )
                                .bytes(),
                            );
                            answer.failed = true;
                            txn.clear();
                            return answer;
                        }
                        last = n;
                    }
                }
                answer
            }
            Work::Mint { n, format } => {
                let ctx = Context::new(job.who.login.clone(), now, self.settings.temper);
                if job.read_only {
                    return Answer {
                        body: b"error: 403 forbidden: read-only access\n\n".to_vec(),
                        failed: true,
                        refusal: Some(BinderError::ReadOnly),
                    };
                }
                let sp = txn.savepoint();
                match nog::mint_n(txn, minter, &ctx, *n) {
                    Ok(ids) => Answer {
                        body: nog::render_minted(&ids, &std::mem::take(&mut minter.notes), *format),
                        failed: false,
                        refusal: None,
                    },
                    Err(e) => {
                        txn.rollback_to(sp);
                        if let Ok(m) = Minter::load(&*txn) {
                            *minter = m;
                        }
                        Answer {
                            body: format!("error: {e}\n\n").into_bytes(),
                            failed: true,
                            refusal: None,
                        }
                    }
                }
            }
        }
    }

    /// Commit the transaction as one synced batch, then append and sync its records.
    fn commit(
        &mut self,
        txn: &mut Txn<'_, Writer>,
        minter: &mut Minter,
        records: &mut Vec<Record>,
    ) -> Result<(), String> {
        minter.flush(txn);
        let ops = txn.take_writes().into_iter().map(Op::from);
        txn.base().commit(ops).map_err(|e| e.to_string())?;
        if records.is_empty() {
            return Ok(());
        }
        self.append(records).map_err(|e| {
            log::error!("write log of {}: {e}", self.dir.display());
            format!("the write was applied but its write log failed: {e}")
        })
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
            text.push_str(&r.line());
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

fn open_log(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
