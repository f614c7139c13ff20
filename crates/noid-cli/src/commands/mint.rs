//! `mint N` and `peppermint N`: identifiers are committed in batches, each synced to
//! disk before its identifiers are printed, so an identifier seen by anyone is never
//! minted again, even if the process is killed.

use noid_minter::bind::BindArgs;
use noid_minter::{mint, Minter, MinterError, Txn};
use noid_store::{Op, Store, StoreError};
use rand::Rng;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

use super::{Failed, Writing};
use crate::complaint::Complaint;
use crate::output::Out;

/// Identifiers per synced batch: large enough that the sync is cheap per id, small
/// enough that output starts promptly.
const BATCH: u64 = 100_000;

/// A new random pepper: eight Noid extended digits.
pub fn new_pepper() -> String {
    let mut r = rand::thread_rng();
    (0..8)
        .map(|_| noid_template::xdigits::xdigit(r.gen_range(0..29)) as char)
        .collect()
}

/// How `mint` makes a batch durable and shows its lines; the caller owns the output
/// streams and knows how a failure is reported.
pub trait Batches {
    /// Commit the transaction's writes, synced, then print `out`.
    fn commit(&mut self, txn: &mut Txn<'_, dyn Store>, out: &mut Out) -> Result<(), Failed>;
    /// Report a commit that failed (nothing of it is printed).
    fn failed_commit(&mut self, e: StoreError, out: &mut Out);
    /// Print `out`, whose writes are already durable.
    fn print(&mut self, out: &mut Out) -> Result<(), Failed>;
}

/// `mint N [ELEM VALUE]` or `peppermint N [ELEM VALUE]`.
#[derive(Debug)]
pub struct Mint {
    /// How many identifiers.
    count: u64,
    /// `peppermint`: each identifier gets a new pepper.
    peppered: bool,
    /// An element and value to bind to each new identifier.
    bind: Option<(String, String)>,
}

impl Mint {
    /// Parse the arguments after `mint` or (`peppered`) `peppermint`.
    pub fn parse(peppered: bool, args: Vec<String>) -> Result<Mint, Complaint> {
        let mut args = args.into_iter();
        let count = match args.next() {
            Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                n.parse::<u64>().unwrap_or(u64::MAX)
            }
            other => {
                let got = other.map_or("nothing".to_string(), |n| format!("\"{n}\""));
                let verb = if peppered { "peppermint" } else { "mint" };
                return Err(Complaint::new(format!(
                    "Argument error: expected positive integer, got {got}"
                ))
                .with_usage(verb));
            }
        };
        let bind = match (args.next(), args.next()) {
            (None, _) => None,
            (Some(elem), Some(value)) => Some((elem, value)),
            (Some(_), None) => {
                return Err(Complaint::new(
                    "error: mint N Elem Value: a value is required with an element.",
                ))
            }
        };
        Ok(Mint {
            count,
            peppered,
            bind,
        })
    }

    /// Run it within the write batch `w`. Every batch of identifiers but the last is
    /// committed (and printed) here; the last is left in the transaction for the
    /// caller, which commits it with whatever follows (unless the store takes two
    /// writes at once, see `mint_batches`).
    pub fn run(&self, w: &mut Writing<'_, '_>, out: &mut Out) -> Result<(), Failed> {
        let ctx = w.session.context();
        let peppered = self.peppered;
        let bind = self.bind.as_ref();
        let mint_one =
            |txn: &mut Txn<'_, dyn Store>, m: &mut Minter| -> Result<String, MinterError> {
                let pepper = peppered.then(new_pepper);
                let id = mint::mint(txn, m, &ctx, pepper.as_deref())?;
                if let Some((e, v)) = bind {
                    let args = BindArgs {
                        how: "set",
                        id: &id,
                        elem: e,
                        value: Some(v.as_bytes()),
                        new_pepper: None,
                        check_pattern: super::bind::check_idmap_pattern,
                    };
                    noid_minter::bind::bind(txn, m, &ctx, &args)?;
                }
                Ok(match pepper {
                    Some(p) => format!("id: {id}!{p}\n"),
                    None => format!("id: {id}\n"),
                })
            };
        let (txn, m, batches) = (&mut *w.txn, &mut *w.minter, &mut *w.batches);
        // Start from a committed state so that a failed batch can simply be dropped and
        // replayed: no per-write undo records are needed while minting.
        m.flush(txn);
        batches.commit(txn, out)?;
        txn.set_undo(false);
        // Binding reads back what minting wrote; only plain minting may run ahead of the
        // store (see `mint_batches`).
        let result = mint_batches(txn, m, self.count, bind.is_none(), out, batches, &mint_one);
        if result.is_err() {
            // Should the minter not read back, the caller reads it back or marks it
            // stale (`Batch::attempt`); the mint's own error is the one to report.
            let _ = forget_uncommitted(txn, m);
        }
        txn.set_undo(true);
        for note in m.notes.drain(..) {
            out.out(format!("{note}\n"));
        }
        if let Some(status) = m.exit_status.take() {
            w.session.atlast_status.set(Some(status));
        }
        result?;
        out.out("\n");
        Ok(())
    }
}

type MintOne<'f> = dyn Fn(&mut Txn<'_, dyn Store>, &mut Minter) -> Result<String, MinterError> + 'f;

/// A batch's write running on a thread of its own, the lines to print once it
/// returned, and its outcome for the write after it to wait on.
struct InFlight<'scope> {
    handle: std::thread::ScopedJoinHandle<'scope, (Result<(), StoreError>, Vec<Op>)>,
    lines: Vec<u8>,
    outcome: Arc<Outcome>,
}

/// Whether a write in flight succeeded, once it is known.
#[derive(Default)]
struct Outcome {
    ok: Mutex<Option<bool>>,
    known: Condvar,
}

impl Outcome {
    fn set(&self, ok: bool) {
        let mut slot = self.ok.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(ok);
        self.known.notify_all();
    }

    /// Wait until it is known.
    fn wait(&self) -> bool {
        let mut slot = self.ok.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match *slot {
                Some(ok) => return ok,
                None => slot = self.known.wait(slot).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }
}

/// Marks its outcome failed unless it was set: a write thread that panics never
/// leaves the write after it waiting.
struct FailUnlessSet(Arc<Outcome>);

impl Drop for FailUnlessSet {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// Mint `n` identifiers in synced batches of [`BATCH`] (or the store's
/// [`Store::mint_batch`]), each batch's lines printed only
/// after its write has returned; the last batch stays in `txn` for the caller, unless
/// two writes can be in flight (then it is written like the others).
///
/// With `pipelined`, each batch is written on another thread while the next one is
/// minted: the write (sorting and building a table file) takes about as long as the
/// minting, so a large mint takes little more than the minting alone. An engine that
/// can have two writes in flight ([`Store::open_pipeline`]: PostgreSQL, on two
/// connections) starts each batch's write before the one before it has finished
/// ([`Store::commit_after`] applies it only after that one succeeded). Safe because
/// minting reads nothing back from the store while `:/fresh` holds (no probes, no
/// queue entries) and nothing is bound; should the flag drop mid-way (a wrap), the
/// writes in flight are awaited before the next identifier is minted.
fn mint_batches(
    txn: &mut Txn<'_, dyn Store>,
    m: &mut Minter,
    n: u64,
    pipelined: bool,
    out: &mut Out,
    batches: &mut dyn Batches,
    mint_one: &MintOne<'_>,
) -> Result<(), Failed> {
    let writer: &dyn Store = txn.base();
    let per_batch = writer.mint_batch().unwrap_or(BATCH);
    let depth = match pipelined && n > per_batch {
        true => writer.open_pipeline().max(1),
        false => 1,
    };
    std::thread::scope(|scope| {
        let mut in_flight: VecDeque<InFlight<'_>> = VecDeque::new();
        let mut left = n;
        while left > 0 {
            let batch = left.min(per_batch);
            let mut lines = Vec::with_capacity(batch as usize * 24);
            for done in 0..batch {
                if !m.fresh {
                    land_all(&mut in_flight, out, batches)?;
                }
                match mint_one(txn, m) {
                    Ok(line) => lines.extend_from_slice(line.as_bytes()),
                    Err(e) => {
                        land_all(&mut in_flight, out, batches)?;
                        return replay_then_fail(txn, m, done, e, out, batches, mint_one);
                    }
                }
            }
            left -= batch;
            m.flush(txn);
            let last = left == 0;
            if !pipelined || (last && depth == 1) {
                land_all(&mut in_flight, out, batches)?;
                out.out(lines);
                if last {
                    // The last batch stays in `txn` for the caller to commit.
                    break;
                }
                batches.commit(txn, out)?;
                continue;
            }
            // Taken before waiting, so that a connection that lands is given the next
            // batch at once.
            let mut ops: Vec<Op> = txn.take_writes().into_iter().map(Op::from).collect();
            while in_flight.len() >= depth {
                land(&mut in_flight, out, batches)?;
            }
            let previous = in_flight.back().map(|f| Arc::clone(&f.outcome));
            let outcome = Arc::new(Outcome::default());
            let mine = FailUnlessSet(Arc::clone(&outcome));
            let commit = move || {
                let result = match previous {
                    None => writer.commit_all(&mut ops),
                    Some(previous) => writer.commit_after(&mut ops, &|| previous.wait()),
                };
                mine.0.set(result.is_ok());
                (result, ops)
            };
            in_flight.push_back(InFlight {
                handle: scope.spawn(commit),
                lines,
                outcome,
            });
            if last {
                // With two writes in flight the last batch goes the same way, so that
                // its write overlaps the one before; nothing is left for the caller.
                land_all(&mut in_flight, out, batches)?;
            }
        }
        Ok(())
    })
}

/// Wait for every write in flight, in order ([`land`]).
fn land_all(
    in_flight: &mut VecDeque<InFlight<'_>>,
    out: &mut Out,
    batches: &mut dyn Batches,
) -> Result<(), Failed> {
    while !in_flight.is_empty() {
        land(in_flight, out, batches)?;
    }
    Ok(())
}

/// Wait for the oldest write in flight, if any, then print its lines (or report its
/// failure; a write after it is then not applied, see [`Store::commit_after`]).
fn land(
    in_flight: &mut VecDeque<InFlight<'_>>,
    out: &mut Out,
    batches: &mut dyn Batches,
) -> Result<(), Failed> {
    let Some(InFlight { handle, lines, .. }) = in_flight.pop_front() else {
        return Ok(());
    };
    let (result, written) = handle.join().expect("the commit thread does not panic");
    // Freed here, by the thread that allocated the buffers.
    drop(written);
    match result {
        Ok(()) => {
            out.out(lines);
            batches.print(out)
        }
        Err(e) => {
            batches.failed_commit(e, out);
            Err(Failed::Reported)
        }
    }
}

/// After a failed mint: drop what was minted and not committed, and read the minter
/// back. Without undo records the caller cannot undo it, and a batch minted while the
/// one before it was being written, left in the transaction when that write failed,
/// would otherwise be committed with whatever follows: its state would carry the
/// counters past the failed batch's identifiers, which were never recorded. What the
/// store holds is always the batches that succeeded, in order, so the next mint goes
/// on with the failed batch's identifiers. The minter's notes and exit status stay.
fn forget_uncommitted(txn: &mut Txn<'_, dyn Store>, m: &mut Minter) -> Result<(), Failed> {
    txn.clear();
    let (notes, status) = (std::mem::take(&mut m.notes), m.exit_status.take());
    *m = Minter::load(&*txn)?;
    m.notes = notes;
    m.exit_status = status;
    Ok(())
}

/// A mint failed after `done` good identifiers of its batch (which may have left partial
/// writes): drop the batch, replay the good ones (minting is deterministic) from the
/// committed state, commit them, then report the failure.
fn replay_then_fail(
    txn: &mut Txn<'_, dyn Store>,
    m: &mut Minter,
    done: u64,
    e: MinterError,
    out: &mut Out,
    batches: &mut dyn Batches,
    mint_one: &MintOne<'_>,
) -> Result<(), Failed> {
    txn.clear();
    let (notes, status) = (std::mem::take(&mut m.notes), m.exit_status);
    *m = Minter::load(&*txn)?;
    for _ in 0..done {
        let line = mint_one(txn, m)?;
        out.out(line);
    }
    // The replay may have grown the template again; keep each note once.
    let replayed = std::mem::replace(&mut m.notes, notes);
    for note in replayed {
        if !m.notes.contains(&note) {
            m.notes.push(note);
        }
    }
    m.exit_status = status;
    m.flush(txn);
    batches.commit(txn, out)?;
    out.fail(format!("{e}\n"));
    Err(Failed::Reported)
}
