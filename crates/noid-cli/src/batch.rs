//! Write batches: consecutive write commands share one open store and one
//! transaction, committed (synced) and their output printed whenever no more input is
//! already waiting, or every `Store::bulk_batch_writes` writes. A script that writes a command
//! and waits for its answer therefore gets it at once, while a piped file of a million
//! `bind`s commits in large batches. The lock is released whenever input runs dry.

use noid_minter::batch::{self, Batch, Feed, Step};
use noid_minter::Txn;
use noid_store::{Store, StoreError};

use crate::commands::{self, Action, Failed, Plain, Read, Write, Writing};
use crate::complaint::store_error;
use crate::invocation::Invocation;
use crate::output::Out;
use crate::request::Request;
use crate::source::{Input, Source};

/// The verbs that run within a write batch.
enum InBatch {
    Plain(Plain),
    Read(Read),
    Write(Write),
}

/// Open the store and run `first` and the commands after it until input runs dry;
/// returns success and a command that must run outside the batch.
pub fn write_batch(
    session: &Invocation,
    source: &mut dyn Source,
    first: Write,
    mut out: Out,
) -> (bool, Option<Action>) {
    let writer = match crate::store::open_writer(session) {
        Ok(w) => w,
        Err(e) => {
            store_error(session, e, &mut out);
            return (emit(session, &mut out), None);
        }
    };
    let mut batch = match Batch::open(&*writer) {
        Ok(b) => b,
        Err(e) => {
            out.fail(format!("{e}\n"));
            return (emit(session, &mut out), None);
        }
    };
    let mut feed = Commands {
        session,
        ahead: ReadAhead::new(&*writer),
        store: &*writer,
        source,
        next: Some(InBatch::Write(first)),
        out,
        ok: true,
        drained: false,
        carried: None,
    };
    batch::run(&mut batch, &mut feed);
    (feed.ok, feed.carried)
}

/// The commands of a bulk run (or the one of a command line) as a write batch's feed:
/// each command's output is printed after the commit that makes it true.
struct Commands<'a> {
    session: &'a Invocation,
    /// The store's read-ahead of the identifiers the buffered lines bind.
    ahead: ReadAhead,
    store: &'a dyn Store,
    source: &'a mut dyn Source,
    /// The command to run next, when already read.
    next: Option<InBatch>,
    /// The output since the last commit.
    out: Out,
    /// No command failed so far.
    ok: bool,
    /// No more input was waiting at the last commit: the batch ends there, releasing
    /// the lock.
    drained: bool,
    /// A command that must run outside the batch, which ended the batch.
    carried: Option<Action>,
}

impl Commands<'_> {
    /// The next command that runs within the batch; None for a line already answered.
    fn read(&mut self) -> Result<Option<InBatch>, Step> {
        let words = match self.source.next_command() {
            None => return Err(Step::End),
            Some(Err(msg)) => {
                self.out.fail(format!("{msg}\n"));
                return Ok(None);
            }
            Some(Ok(words)) => words,
        };
        let request = Request::parse(words, self.session.web);
        Ok(match request.admit(self.session, true, &mut self.out) {
            None => None,
            Some(Action::Plain(p)) => Some(InBatch::Plain(p)),
            Some(Action::Read(r)) => Some(InBatch::Read(r)),
            Some(Action::Write(w)) => Some(InBatch::Write(w)),
            // These open the store in their own way, after the batch is committed and
            // its lock released.
            Some(v @ (Action::Create(_) | Action::Port(_))) => {
                self.carried = Some(v);
                return Err(Step::End);
            }
        })
    }
}

impl Feed<dyn Store> for Commands<'_> {
    fn run_next(&mut self, batch: &mut Batch<'_, dyn Store>) -> Step {
        let next = match self.next.take() {
            Some(v) => Ok(Some(v)),
            None => self.read(),
        };
        let verb = match next {
            Ok(Some(v)) => v,
            Ok(None) => return Step::Ran,
            Err(end) => return end,
        };
        if matches!(verb, InBatch::Write(_)) {
            self.ahead.step(&*self.source, self.store);
        }
        let (session, out) = (self.session, &mut self.out);
        let source = &mut *self.source;
        // A failed command is undone alone; earlier commands in the batch stand.
        let result = batch.attempt(|txn, minter| match verb {
            InBatch::Write(w) => {
                let (stdin, commands) = match source.input() {
                    Input::Stdin(s) => (Some(s), None),
                    Input::Commands(c) => (None, Some(c)),
                };
                let mut writing = Writing {
                    session,
                    txn,
                    minter,
                    stdin,
                    commands,
                    batches: &mut MintBatches { session },
                };
                w.run(&mut writing, out)
            }
            InBatch::Read(r) => r.run(&*txn, out).map_err(Failed::from),
            InBatch::Plain(p) => {
                p.run(out);
                Ok(())
            }
        });
        if let Err(failed) = result {
            if let Failed::Minter(e) = failed {
                self.out.fail(format!("{e}\n"));
            }
            self.out.failed = true;
        }
        Step::Ran
    }

    /// When no more input is waiting (a script that writes a command and waits for
    /// its answer gets it at once), or every `Store::bulk_batch_writes` pending writes.
    fn commit_due(&mut self, pending: usize) -> bool {
        self.drained = !self.source.more_buffered();
        self.drained || pending >= self.store.bulk_batch_writes()
    }

    /// Print the output of the commands committed; on failure only why nothing was
    /// written.
    fn committed(&mut self, _: &dyn Store, outcome: Result<(), StoreError>, _: bool) -> bool {
        if let Err(e) = outcome {
            nothing_written(&e, &mut self.out);
        }
        self.ok &= emit(self.session, &mut self.out);
        !self.drained
    }
}

/// Read-ahead for a store across a network ([`Store::read_ahead`]): each time the
/// lines last looked at have been run, the identifiers that the buffered lines bind
/// are handed to the store, which reads their keys in one round trip.
struct ReadAhead {
    /// Whether the store reads ahead at all.
    on: bool,
    /// Write commands to run before looking at the buffered lines again.
    left: usize,
}

impl ReadAhead {
    fn new(store: &dyn Store) -> ReadAhead {
        ReadAhead {
            on: store.wants_read_ahead(),
            left: 0,
        }
    }

    /// Before a write command runs.
    fn step(&mut self, source: &dyn Source, store: &dyn Store) {
        if !self.on {
            return;
        }
        if self.left > 0 {
            self.left -= 1;
            return;
        }
        let up = source.upcoming();
        self.left = up.lines;
        if !up.ids.is_empty() {
            store.read_ahead(&up.ids);
        }
    }
}

/// Commit the transaction's writes as one synced batch; when that fails, replace the
/// output they produced by the error (see [`nothing_written`]) and return false.
fn commit_writes(txn: &mut Txn<'_, dyn Store>, out: &mut Out) -> bool {
    match batch::commit(txn) {
        Ok(()) => true,
        Err(e) => {
            nothing_written(&e, out);
            false
        }
    }
}

/// A failed commit: none of the batch's output is shown, only why.
fn nothing_written(e: &StoreError, out: &mut Out) {
    out.stdout.clear();
    out.fail(format!("error: {e}; {}\n", e.after_failed_commit()));
}

/// How `mint` makes its batches durable and prints them, within a bulk run: an earlier
/// command's failure stays recorded for the exit status and does not stop the mint.
struct MintBatches<'s> {
    session: &'s Invocation,
}

impl commands::mint::Batches for MintBatches<'_> {
    fn commit(&mut self, txn: &mut Txn<'_, dyn Store>, out: &mut Out) -> Result<(), Failed> {
        if !commit_writes(txn, out) {
            return Err(Failed::Reported);
        }
        self.print(out)
    }

    fn failed_commit(&mut self, e: StoreError, out: &mut Out) {
        nothing_written(&e, out);
    }

    fn print(&mut self, out: &mut Out) -> Result<(), Failed> {
        let failed = out.failed;
        let printed = emit(self.session, out);
        out.failed = failed || !printed;
        if printed || failed {
            Ok(())
        } else {
            // `emit` has said why, where it could.
            Err(Failed::Reported)
        }
    }
}

/// Print `out`; returns false when a command failed.
pub fn emit(session: &Invocation, out: &mut Out) -> bool {
    let failed = out.failed;
    if let Err(e) = out.flush(session.web) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("noid: cannot write output: {e}");
        }
        return false;
    }
    out.failed = false;
    !failed
}
