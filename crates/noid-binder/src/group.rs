//! The requests a directory's thread takes together ([`crate::writer`]), run as one
//! write batch of noid-minter's engine (`noid_minter::batch`): this module is only
//! where their commands come from (a request's command line, a bulk body's lines, a
//! mint) and where the answers go (each request's [`WorkResult`], a bulk request's stream).
//!
//! Typed commands ([`Work::Commands`], [`Work::Sheet`]) are the console's forms and
//! sheet uploads, where people type and paste targets: they run with targets checked
//! (`Targets::Checked`: an absolute URL or a stored code), where egg lines keep the
//! binder's own rule.
//!
//! A bulk request commits every [`BULK_BATCH`] pending key writes; after each commit
//! its output so far goes to the client, followed by `# committed N commands, through
//! line L`. Such a commit does not wait for RocksDB's background work: if some is
//! pending, readers are not let in yet and the batch's output is held until a later
//! commit lets them in (the last one waits, up to [`SETTLE`]). Every commit appends the
//! write log records of what it wrote (synced) before anything is answered.

use std::io::Cursor;
use std::time::Duration;

use crate::write_log::Record;
use noid_egg::{nog, Agent, BinderError, Lines, Session};
use noid_minter::batch::{Batch, Feed, Step};
use noid_minter::gate::Targets;
use noid_minter::Context;
use noid_store::{Store, StoreError, SETTLE};

use crate::observe::Stage;
use crate::writer::{
    committed_line, failure, not_committed, Failed, Job, Progress, Reached, Tally, Work,
    WorkResult, Worker,
};

/// Pending key writes after which a bulk request commits a batch (25,000 egg `set`s
/// of new identifiers, each writing the value, two admin elements and `:/m`).
pub const BULK_BATCH: usize = 100_000;

/// A group of requests as a write batch's feed.
pub struct Group<'a> {
    worker: &'a mut Worker,
    jobs: std::vec::IntoIter<Job>,
    /// The request running (a bulk one runs over many steps).
    current: Option<Running>,
    /// Requests run, waiting for a commit to be answered.
    done: Vec<Running>,
    /// `done[..committed]` were committed by an earlier commit (or answered for good).
    committed: usize,
    /// The write log records of the writes since the last commit.
    records: Vec<Record>,
}

/// One request being run.
pub struct Running {
    job: Job,
    answer: WorkResult,
    session: Session<'static>,
    agent: Agent,
    /// A bulk request's body and progress.
    bulk: Option<Bulk>,
    /// Identifiers a mint request minted (counted once committed).
    minted: u64,
}

/// Where a bulk request's commands come from.
enum Source {
    /// Egg lines (a bulk POST's body, an uploaded file of egg lines).
    Lines(Lines<Box<dyn std::io::BufRead + Send>>),
    /// Typed commands (a sheet's cells), command `n` counted as line `n`.
    Commands(std::iter::Enumerate<std::vec::IntoIter<noid_egg::Command>>),
}

/// A bulk request's commands and how far it got.
struct Bulk {
    source: Source,
    progress: Option<Box<dyn Progress>>,
    tally: Option<std::sync::Arc<Tally>>,
    p: Reached,
}

impl Bulk {
    /// The run stops before its body's end: its tally says why.
    fn stop(&self, why: &str) {
        if let Some(t) = &self.tally {
            t.stop(why);
        }
    }
}

impl<'a> Group<'a> {
    /// The feed of `jobs`, for `worker`'s directory.
    pub fn new(worker: &'a mut Worker, jobs: Vec<Job>) -> Group<'a> {
        Group {
            worker,
            jobs: jobs.into_iter(),
            current: None,
            done: Vec::new(),
            committed: 0,
            records: Vec::new(),
        }
    }

    /// After a commit: append the log records, then let readers in (waiting up to
    /// `settle`); whether they were let in.
    fn settle(
        &mut self,
        store: &dyn Store,
        outcome: Result<(), StoreError>,
        settle: Duration,
    ) -> Result<bool, Failed> {
        if let Err(e) = outcome {
            // Nothing was written (or, cut off at COMMIT, nothing is known): its
            // records are not logged.
            self.records.clear();
            return Err(Failed::Commit(e.to_string(), e.after_failed_commit()));
        }
        let mut populators = self.records.iter().map(|r| r.populator.as_str());
        self.worker.observer().bound(&mut populators);
        let logged = self.worker.log_records(&mut self.records);
        let readers_in = self.worker.pause(store, settle);
        logged.map(|()| readers_in)
    }

    /// A bulk request's batch commit returned.
    fn bulk_committed(&mut self, result: Result<bool, Failed>) {
        let Some(run) = self.current.as_mut() else {
            return;
        };
        let Some(bulk) = run.bulk.as_mut() else {
            return;
        };
        let p = &mut bulk.p;
        let answer = &mut run.answer;
        match result {
            Ok(readers_in) => {
                p.committed = p.run;
                p.committed_line = p.line;
                if let Some(t) = &bulk.tally {
                    t.settled(p.run, None);
                }
                answer
                    .body
                    .extend(committed_line(p.run, p.line).into_bytes());
                p.held = answer.body.len();
                if let Some(progress) = bulk.progress.as_mut().filter(|_| readers_in) {
                    // Never waits for the client: a client that reads nothing until it
                    // has sent its whole body must not stop the run. Output it has not
                    // taken yet stays in the answer, and a client that went away still
                    // has its commands run.
                    if let Err(kept) = progress.committed(std::mem::take(&mut answer.body)) {
                        answer.body = kept;
                    }
                    p.held = answer.body.len();
                }
            }
            Err(e) => {
                if let Some(t) = &bulk.tally {
                    t.settled(p.run, Some(&e));
                }
                answer.body.truncate(p.held);
                answer.body.extend(not_committed(&e, p).bytes());
                answer.failed = true;
                // The run ends here, answered for good; the requests before it that
                // this commit was to write were not written either.
                let mut run = self.current.take().expect("running");
                run.bulk = None;
                self.worker.failed(&run.job.who, e.stage());
                if let Failed::Commit(_, after) = e {
                    for earlier in &mut self.done[self.committed..] {
                        earlier.answer = failure(&format!("{e}; {after}"));
                        earlier.minted = 0;
                        self.worker.failed(&earlier.job.who, Stage::Commit);
                    }
                }
                self.done.push(run);
            }
        }
        self.committed = self.done.len();
    }

    /// The group's last commit returned: answer every request.
    fn answer_all(&mut self, result: Result<bool, Failed>) {
        for (i, run) in std::mem::take(&mut self.done).into_iter().enumerate() {
            let mut answer = run.answer;
            let result = if i < self.committed {
                Ok(true)
            } else {
                result.clone()
            };
            let metrics = self.worker.observer();
            match &result {
                Ok(_) | Err(Failed::Log(_)) => metrics.minted(&run.job.who.populator, run.minted),
                Err(Failed::Commit(..)) => {}
            }
            if let Err(e) = &result {
                metrics.failed(&run.job.who.populator, e.stage());
            }
            if let Some(Bulk {
                tally: Some(t), p, ..
            }) = &run.bulk
            {
                t.settled(p.run, result.as_ref().err());
            }
            let progress = run.bulk.map(|b| b.p);
            match (result, progress) {
                (Ok(_), Some(p)) => answer
                    .body
                    .extend(committed_line(p.run, p.line).into_bytes()),
                (Ok(_), None) => {}
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
                    answer.body.extend(not_committed(&e, &p).bytes());
                    answer.failed = true;
                }
                (Err(e @ Failed::Commit(_, after)), None) => {
                    answer = failure(&format!("{e}; {after}"))
                }
            }
            (run.job.reply)(answer);
        }
    }
}

impl Feed<dyn Store> for Group<'_> {
    fn run_next(&mut self, batch: &mut Batch<'_, dyn Store>) -> Step {
        if self.current.is_none() {
            match self.jobs.next() {
                Some(job) => self.current = Some(Running::start(job)),
                None => return Step::End,
            }
        }
        let run = self.current.as_mut().expect("a request is running");
        let finished = match batch.parts() {
            Ok((txn, minter)) => run.step(txn, minter, self.worker, &mut self.records),
            Err(e) => {
                run.answer = failure(&e.to_string());
                true
            }
        };
        if let Some(run) = self.current.take_if(|_| finished) {
            self.done.push(run);
        }
        Step::Ran
    }

    fn commit_due(&mut self, pending: usize) -> bool {
        pending >= BULK_BATCH && self.current.as_ref().is_some_and(|r| r.bulk.is_some())
    }

    fn committed(
        &mut self,
        store: &dyn Store,
        outcome: Result<(), StoreError>,
        last: bool,
    ) -> bool {
        if last {
            let result = self.settle(store, outcome, SETTLE);
            self.answer_all(result);
        } else {
            // Readers are let in only if RocksDB has nothing pending (an ingested
            // batch may start a compaction): this batch's output, its
            // acknowledgement, is held back until a later commit lets them in, at the
            // latest the last one, which waits for that.
            let result = self.settle(store, outcome, Duration::ZERO);
            self.bulk_committed(result);
        }
        true
    }
}

type Txn<'t, 'w> = &'t mut noid_minter::Txn<'w, dyn Store>;

/// The link checker's records written: refused whole if one key is not a `:/links/`
/// key, so that this way in can never touch an identifier's elements or the minter.
fn link_writes(txn: Txn<'_, '_>, writes: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> WorkResult {
    if let Some((k, _)) = writes
        .iter()
        .find(|(k, _)| !k.starts_with(noid_core::links::PREFIX))
    {
        return failure(&format!(
            "not a link record: {}",
            String::from_utf8_lossy(k)
        ));
    }
    for (k, v) in writes {
        match v {
            Some(v) => txn.put(k, v),
            None => txn.delete(k),
        }
    }
    WorkResult::default()
}

/// `run` with the minter's gate checking targets (`Targets::Checked`), as typed
/// commands are run; the binder's own rule is back afterwards.
fn checking_targets<T>(
    minter: &mut noid_minter::Minter,
    run: impl FnOnce(&mut noid_minter::Minter) -> T,
) -> T {
    let egg = std::mem::replace(&mut minter.gate.targets, Targets::Checked);
    let out = run(minter);
    minter.gate.targets = egg;
    out
}

impl Running {
    fn start(mut job: Job) -> Running {
        let now = crate::writer::now();
        let mut session = Session::new(true);
        session.read_only = job.read_only;
        session.binder = job.who.populator.clone();
        let agent = Agent {
            who: job.who.login.clone(),
            now,
        };
        let bulk = match &mut job.work {
            Work::Bulk {
                body,
                progress,
                tally,
            } => Some(Bulk {
                source: Source::Lines(Lines::new(std::mem::replace(
                    body,
                    Box::new(std::io::empty()),
                ))),
                progress: progress.take(),
                tally: tally.take(),
                p: Reached::default(),
            }),
            Work::Sheet { commands, tally } => Some(Bulk {
                source: Source::Commands(std::mem::take(commands).into_iter().enumerate()),
                progress: None,
                tally: tally.take(),
                p: Reached::default(),
            }),
            _ => None,
        };
        Running {
            job,
            answer: WorkResult::default(),
            session,
            agent,
            bulk,
            minted: 0,
        }
    }

    /// The write log record of a write made by the line `received`, which replaced
    /// `prior`.
    fn record(
        &self,
        write: String,
        received: &str,
        prior: Option<noid_egg::exec::Prior>,
    ) -> Record {
        let who = &self.job.who;
        Record {
            epoch: self.agent.now,
            client: who.client.clone(),
            populator: who.populator.clone(),
            agent: who.login.clone(),
            command: write,
            received: received.to_string(),
            acting_for: who.acting_for.clone(),
            prior,
            op: None,
        }
    }

    /// Run the request's next command; whether the request is finished.
    fn step(
        &mut self,
        txn: Txn<'_, '_>,
        minter: &mut noid_minter::Minter,
        worker: &Worker,
        records: &mut Vec<Record>,
    ) -> bool {
        if self.bulk.is_some() {
            return self.bulk_line(txn, minter, worker, records);
        }
        if let Work::Commands(commands) = &mut self.job.work {
            let commands = std::mem::take(commands);
            self.answer = checking_targets(minter, |m| self.commands(txn, m, &commands, records));
            return true;
        }
        if let Work::Links(writes) = &mut self.job.work {
            self.answer = link_writes(txn, std::mem::take(writes));
            return true;
        }
        match &self.job.work {
            Work::Egg { line, body } => {
                let mut input = Cursor::new(body.as_slice());
                let o = self
                    .session
                    .run(txn, minter, &self.agent, line, None, &mut input);
                if let Some(w) = o.write {
                    records.push(self.record(w, line, o.prior));
                }
                self.answer = WorkResult {
                    body: o.output,
                    failed: o.error.is_some(),
                    refusal: o.error.filter(BinderError::has_own_status),
                    ..WorkResult::default()
                };
            }
            Work::Commands(_) => {}
            Work::Links(_) => {}
            Work::Mint { n, format } => {
                (self.answer, self.minted) = self.mint(txn, minter, worker, *n, *format);
            }
            Work::Bulk { .. } | Work::Sheet { .. } | Work::Operation(_) => {}
        }
        true
    }

    /// Typed commands as one change: the first that fails undoes those before it.
    fn commands(
        &mut self,
        txn: Txn<'_, '_>,
        minter: &mut noid_minter::Minter,
        commands: &[noid_egg::Command],
        records: &mut Vec<Record>,
    ) -> WorkResult {
        let start = txn.savepoint();
        let mut answer = WorkResult::default();
        let mut writes = Vec::new();
        for cmd in commands {
            let done = self.session.command(txn, minter, &self.agent, cmd);
            let failed = done.reply.failed();
            let done_write = done.write.map(|w| (w, done.prior));
            if let noid_egg::Reply::Error(e) = &done.reply {
                if e.has_own_status() {
                    answer.refusal = Some(e.clone());
                }
                answer.body = format!("error: {e}\n").into_bytes();
            }
            writes.extend(done_write);
            answer.replies.push(done.reply);
            if failed {
                txn.rollback_to(start);
                answer.failed = true;
                return answer;
            }
        }
        for (w, prior) in writes {
            let rec = self.record(w.clone(), &w, prior);
            records.push(rec);
        }
        answer
    }

    fn mint(
        &self,
        txn: Txn<'_, '_>,
        minter: &mut noid_minter::Minter,
        worker: &Worker,
        n: u64,
        format: noid_egg::Format,
    ) -> (WorkResult, u64) {
        if self.job.read_only {
            let refused = WorkResult {
                body: b"error: 403 forbidden: read-only access\n\n".to_vec(),
                failed: true,
                refusal: Some(BinderError::ReadOnly),
                ..WorkResult::default()
            };
            return (refused, 0);
        }
        let ctx = Context::new(self.job.who.login.clone(), self.agent.now, worker.temper());
        let (ids, error) = match nog::mint_n(txn, minter, &ctx, n) {
            Ok(ids) => (ids, None),
            Err((ids, e)) => (ids, Some(e)),
        };
        let mut notes = std::mem::take(&mut minter.notes);
        let error = error.map(|e| e.to_string());
        notes.extend(error.iter().map(|e| format!("error: {e}")));
        let count = ids.len() as u64;
        let answer = WorkResult {
            body: nog::render_minted(&ids, &notes, format),
            failed: error.is_some(),
            status: minter.exit_status.take(),
            minted: ids,
            error,
            ..WorkResult::default()
        };
        (answer, count)
    }

    /// Run a bulk request's next line; whether the request is finished (its body
    /// ended, was cut off, or the server is stopping).
    fn bulk_line(
        &mut self,
        txn: Txn<'_, '_>,
        minter: &mut noid_minter::Minter,
        worker: &Worker,
        records: &mut Vec<Record>,
    ) -> bool {
        let bulk = self.bulk.as_mut().expect("a bulk request");
        let stopped = |why: String, p: &Reached| {
            format!(
                "error: {why}; the commands after line {} were not run\n\n",
                p.line
            )
        };
        if worker.stopping() {
            bulk.stop("the server is stopping");
            let text = stopped("the server is stopping".into(), &bulk.p);
            self.answer.body.extend(text.bytes());
            self.answer.failed = true;
            return true;
        }
        let lines = match &mut bulk.source {
            Source::Lines(lines) => lines,
            Source::Commands(commands) => {
                let Some((i, cmd)) = commands.next() else {
                    return true;
                };
                let (session, agent) = (&mut self.session, &self.agent);
                let done = checking_targets(minter, |m| session.command(txn, m, agent, &cmd));
                let error = match &done.reply {
                    noid_egg::Reply::Error(e) => Some(e.to_string()),
                    _ => None,
                };
                bulk.p.run += 1;
                bulk.p.line = i + 1;
                if let Some(t) = &bulk.tally {
                    t.ran(i + 1, error.clone());
                }
                self.answer.failed |= error.is_some();
                if let Some(w) = done.write {
                    let rec = self.record(w.clone(), &w, done.prior);
                    records.push(rec);
                }
                return false;
            }
        };
        let (n, line) = match lines.next_command() {
            Ok(Some(c)) => c,
            Ok(None) => return true,
            Err(e) => {
                let why = crate::cut::cut_of(&e).map_or_else(
                    || format!("reading the request body: {e}"),
                    |c| c.to_string(),
                );
                bulk.stop(&why);
                self.answer.body.extend(stopped(why, &bulk.p).bytes());
                self.answer.failed = true;
                return true;
            }
        };
        let o = self
            .session
            .run(txn, minter, &self.agent, &line, Some(n), lines.input());
        bulk.p.run += 1;
        bulk.p.line = n;
        if let Some(t) = &bulk.tally {
            t.ran(n, o.error.as_ref().map(ToString::to_string));
        }
        self.answer.body.extend(o.output);
        self.answer.failed |= o.error.is_some();
        if let Some(w) = o.write {
            records.push(self.record(w, &line, o.prior));
        }
        false
    }
}
