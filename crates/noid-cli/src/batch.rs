//! Write batches: consecutive write commands share one open store and one
//! transaction, committed (synced) and their output printed whenever no more input is
//! already waiting, or every [`BATCH_WRITES`] writes. A script that writes a command
//! and waits for its answer therefore gets it at once, while a piped file of a million
//! `bind`s commits in large batches. The lock is released whenever input runs dry.

use noid_minter::{Minter, Txn};
use noid_store::{Store, StoreError};

use crate::bulk::Source;
use crate::commands::{self, Failed, Plain, Read, Verb, Write, Writing};
use crate::complaint::store_error;
use crate::output::Out;
use crate::request::Request;
use crate::session::Session;

/// Pending key writes after which a batch is committed even if more input waits.
const BATCH_WRITES: usize = 200_000;

/// The verbs that run within a write batch.
enum InBatch {
    Plain(Plain),
    Read(Read),
    Write(Write),
}

/// Open the store and run `first` and the commands after it until input runs dry;
/// returns success and a command that must run outside the batch.
pub fn write_batch(
    session: &Session,
    source: &mut dyn Source,
    first: Write,
    mut out: Out,
) -> (bool, Option<Verb>) {
    let writer = match crate::store::open_writer(session) {
        Ok(w) => w,
        Err(e) => {
            store_error(session, e, &mut out);
            return (emit(session, &mut out), None);
        }
    };
    let mut ok = true;
    let mut txn = Txn::new(&*writer);
    let mut minter = match Minter::load(&txn) {
        Ok(m) => m,
        Err(e) => {
            out.fail(format!("{e}\n"));
            return (emit(session, &mut out), None);
        }
    };
    // None when the line was already answered with a complaint.
    let mut next = Some(InBatch::Write(first));
    let (mut carried, mut ahead) = (None, ReadAhead::new(&*writer));
    loop {
        if let Some(verb) = next.take() {
            minter.flush(&mut txn);
            let sp = txn.savepoint();
            let result = match verb {
                InBatch::Write(w) => {
                    ahead.step(source, &*writer);
                    let mut batches = MintBatches { session };
                    let (stdin, commands) = match source.input() {
                        crate::bulk::Input::Stdin(s) => (Some(s), None),
                        crate::bulk::Input::Commands(c) => (None, Some(c)),
                    };
                    let mut writing = Writing {
                        session,
                        txn: &mut txn,
                        minter: &mut minter,
                        stdin,
                        commands,
                        batches: &mut batches,
                    };
                    w.run(&mut writing, &mut out)
                }
                InBatch::Read(r) => r.run(&txn, &mut out).map_err(Failed::from),
                InBatch::Plain(p) => {
                    p.run(&mut out);
                    Ok(())
                }
            };
            if let Err(failed) = result {
                // Undo this command alone; earlier commands in the batch stand.
                txn.rollback_to(sp);
                // Most refusals (a bad id, an unbound element) touch nothing in memory;
                // reloading the minter for each of a million refused lines would dominate.
                if minter.is_dirty() {
                    match Minter::load(&txn) {
                        Ok(m) => minter = m,
                        Err(e) => out.fail(format!("{e}\n")),
                    }
                }
                if let Failed::Minter(e) = failed {
                    out.fail(format!("{e}\n"));
                }
                out.failed = true;
            }
        }
        minter.flush(&mut txn);
        let more = source.more_buffered();
        if !more || txn.len() >= BATCH_WRITES {
            ok &= commit(session, &mut txn, &mut out);
            if !more {
                break;
            }
        }
        next = match source.next_command() {
            None => break,
            Some(Err(msg)) => {
                out.fail(format!("{msg}\n"));
                None
            }
            Some(Ok(words)) => {
                let request = Request::parse(words, session.web);
                match request.admit(session, true, &mut out) {
                    None => None,
                    Some(Verb::Plain(p)) => Some(InBatch::Plain(p)),
                    Some(Verb::Read(r)) => Some(InBatch::Read(r)),
                    Some(Verb::Write(w)) => Some(InBatch::Write(w)),
                    // These open the store in their own way, after the batch is
                    // committed and its lock released.
                    Some(v @ (Verb::Create(_) | Verb::Port(_))) => {
                        carried = Some(v);
                        break;
                    }
                }
            }
        };
    }
    minter.flush(&mut txn);
    ok &= commit(session, &mut txn, &mut out);
    (ok, carried)
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

/// Commit the transaction's writes (synced), then print the output they produced.
/// On failure nothing of the batch is printed but the error. Returns false when the
/// commit or any command since the last print failed.
fn commit(session: &Session, txn: &mut Txn<'_, dyn Store>, out: &mut Out) -> bool {
    commit_writes(txn, out);
    emit(session, out)
}

/// Commit the transaction's writes as one synced batch; when that fails, replace the
/// output they produced by the error (see [`nothing_written`]) and return false.
fn commit_writes(txn: &mut Txn<'_, dyn Store>, out: &mut Out) -> bool {
    let ops = txn.take_writes().into_iter().map(noid_store::Op::from);
    match txn.base().commit(ops) {
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
    out.fail(format!("error: {e}; nothing was written\n"));
}

/// How `mint` makes its batches durable and prints them, within a bulk run: an earlier
/// command's failure stays recorded for the exit status and does not stop the mint.
struct MintBatches<'s> {
    session: &'s Session,
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
pub fn emit(session: &Session, out: &mut Out) -> bool {
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
