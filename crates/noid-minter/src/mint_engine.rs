//! The mint engine: minting many identifiers at once, for every way in (`noid mint`,
//! `noid -`'s mint lines, the API's and the console's `mint N`).
//!
//! [`mint`](crate::mint::mint) issues one identifier; this module decides when the
//! identifiers are committed and what happens when a mint fails part-way:
//!
//! * [`mint_in_batches`] commits as it goes, in synced batches, each batch's
//!   identifiers shown only after its commit returned (an identifier anyone has seen is
//!   never minted again, even if the process is killed). A batch is written on a second
//!   thread while the next is minted, and where the store can have two commits in
//!   flight ([`Commit::open_pipeline`]: PostgreSQL, on two connections) the next
//!   batch's commit starts before the one before it has finished.
//! * [`mint_in_one`] leaves every identifier in the caller's transaction, which commits
//!   them with whatever else it holds (the API's writer, which answers a request only
//!   after its group's commit).
//!
//! Both follow one rule after a failed mint (an exhausted `stopN` minter, a refused
//! bind): forget what was minted and not committed, read the minter back, mint the good
//! identifiers before the failure again (minting is deterministic, so they come out the
//! same), keep them, then report the failure. Nothing half-written stays, and the next
//! mint goes on from exactly the identifier after the last one kept.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

use noid_core::{Commit, Lookup, Writes};

use crate::bind::{bind, BindArgs};
use crate::txn::Savepoint;
use crate::{Context, Minter, MinterError, Txn};

/// Identifiers per synced batch, unless the store asks for fewer
/// ([`Commit::mint_batch`]): large enough that the sync is cheap per identifier, small
/// enough that output starts promptly.
pub const BATCH: u64 = 100_000;

/// What to mint.
#[derive(Clone, Copy)]
pub struct Order<'a> {
    /// How many identifiers.
    pub count: u64,
    /// `peppermint`: each identifier gets a new pepper from this source (the caller's
    /// random numbers: the minter does no I/O).
    pub pepper: Option<fn() -> String>,
    /// An element bound to each new identifier (`mint N ELEM VALUE`).
    pub bind: Option<BindEach<'a>>,
}

impl Order<'_> {
    /// `count` plain identifiers.
    pub fn plain(count: u64) -> Order<'static> {
        Order {
            count,
            pepper: None,
            bind: None,
        }
    }
}

/// An element and value set on each identifier as it is minted, as `bind set` would.
#[derive(Clone, Copy)]
pub struct BindEach<'a> {
    /// The element.
    pub elem: &'a str,
    /// Its value.
    pub value: &'a str,
    /// How an `:idmap` pattern is checked ([`BindArgs::check_pattern`]).
    pub check_pattern: fn(&str) -> Result<(), String>,
}

/// One identifier minted, and its pepper when peppered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Minted {
    /// The identifier.
    pub id: String,
    /// Its pepper (`ID!PEPPER` quotes it).
    pub pepper: Option<String>,
}

/// Why [`mint_in_batches`] stopped early.
#[derive(Debug)]
pub enum Stopped {
    /// A commit failed, or what was minted could not be shown; the [`Landing`] has said
    /// why. The batches before it stand.
    Reported,
    /// A mint failed (refused, or the store could not be read); every identifier before
    /// it is committed and shown.
    Failed(MinterError),
}

impl From<MinterError> for Stopped {
    fn from(e: MinterError) -> Stopped {
        Stopped::Failed(e)
    }
}

/// Where [`mint_in_batches`] commits and shows its batches: the caller owns the output
/// and knows how a failed commit is reported.
pub trait Landing<S: Commit + ?Sized> {
    /// Identifiers minted, shown by the next [`Landing::commit`] or
    /// [`Landing::print`] (and never, when that commit fails).
    fn minted(&mut self, minted: Vec<Minted>);
    /// Commit the transaction's writes as one synced batch, then show what was minted.
    /// `Err(Stopped::Reported)` when the commit failed (nothing of it shown; the
    /// landing reads nothing back, the engine does) or the output could not be shown.
    fn commit(&mut self, txn: &mut Txn<'_, S>) -> Result<(), Stopped>;
    /// Show what was minted, its writes already durable.
    fn print(&mut self) -> Result<(), Stopped>;
    /// A commit made on the second thread failed: report it (nothing of it is shown).
    fn failed_commit(&mut self, e: S::Error);
}

/// Mint `order.count` identifiers, committing them in synced batches, each shown by
/// `landing` only after its commit returned. The last batch stays in `txn` for the
/// caller to commit with whatever follows, unless two commits can be in flight (then it
/// is committed like the others).
///
/// What `txn` held before is committed first, so that a failed batch can simply be
/// dropped and replayed without undo records. On `Err` the transaction holds nothing of
/// the mint and the minter is the store's (read back); its notes (a template that grew)
/// and exit status (`stopN`, `wrapN`) are kept for the caller to report either way.
pub fn mint_in_batches<S>(
    txn: &mut Txn<'_, S>,
    m: &mut Minter,
    ctx: &Context,
    order: &Order<'_>,
    landing: &mut dyn Landing<S>,
) -> Result<(), Stopped>
where
    S: Commit + Sync + ?Sized,
    S::Error: Send,
{
    m.flush(txn);
    landing.commit(txn)?;
    txn.set_undo(false);
    let result = batches(txn, m, ctx, order, landing);
    if result.is_err() {
        // Should the minter not read back, the caller reads it back or marks it stale
        // (`Batch::attempt`); the mint's own error is the one to report.
        let _ = forget_uncommitted(txn, m);
    }
    txn.set_undo(true);
    result
}

/// Mint `order.count` identifiers into `txn` without committing. When a mint fails, the
/// identifiers before it stand (replayed from the state before the first, see the
/// module's rule) and come back with the error; the minter's exit status is left in
/// `m.exit_status`.
pub fn mint_in_one<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    order: &Order<'_>,
) -> Result<Vec<Minted>, (Vec<Minted>, MinterError)> {
    m.flush(txn);
    let start = txn.savepoint();
    let mut minted = Vec::with_capacity(order.count.min(BATCH) as usize);
    for _ in 0..order.count {
        match mint_one(txn, m, ctx, order) {
            Ok(one) => minted.push(one),
            Err(e) => {
                return Err(match replay(txn, m, ctx, order, Back::To(start), &minted) {
                    Ok(again) => (again, e),
                    Err(bad) => {
                        // Give up the whole mint rather than keep identifiers that differ
                        // from what was minted the first time.
                        txn.rollback_to(start);
                        if let Ok(back) = m.reloaded(&*txn) {
                            *m = back;
                        }
                        (Vec::new(), bad)
                    }
                });
            }
        }
    }
    m.flush(txn);
    Ok(minted)
}

/// Mint one identifier of `order`, peppered and bound as it says.
fn mint_one<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    order: &Order<'_>,
) -> Result<Minted, MinterError> {
    let pepper = order.pepper.map(|new| new());
    let id = crate::mint::mint(txn, m, ctx, pepper.as_deref())?;
    if let Some(each) = &order.bind {
        // A peppered identifier is changed only by its peppered form.
        let quoted = match &pepper {
            Some(p) => Cow::Owned(format!("{id}!{p}")),
            None => Cow::Borrowed(id.as_str()),
        };
        let args = BindArgs {
            how: "set",
            id: &quoted,
            elem: each.elem,
            value: Some(each.value.as_bytes()),
            new_pepper: None,
            check_pattern: each.check_pattern,
        };
        bind(txn, m, ctx, &args)?;
    }
    Ok(Minted { id, pepper })
}

/// Where a failed mint's writes are forgotten back to.
enum Back {
    /// Everything in the transaction (nothing before the mint is uncommitted).
    All,
    /// What came after this savepoint.
    To(Savepoint),
}

/// The rule after a failed mint: forget the writes back to `back` (the failed attempt
/// may have changed the minter half-way), read the minter back, and mint the `good`
/// identifiers again, which must come out the same; they are returned (with new
/// peppers, which are the stored ones) for the caller to keep. The minter's notes and
/// exit status from before stay, each note once.
fn replay<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    order: &Order<'_>,
    back: Back,
    good: &[Minted],
) -> Result<Vec<Minted>, MinterError> {
    let (notes, status) = (std::mem::take(&mut m.notes), m.exit_status);
    match back {
        Back::All => txn.clear(),
        Back::To(sp) => txn.rollback_to(sp),
    }
    *m = m.reloaded(&*txn)?;
    let mut again = Vec::with_capacity(good.len());
    for (at, want) in good.iter().enumerate() {
        let one = mint_one(txn, m, ctx, order)?;
        if one.id != want.id {
            return Err(MinterError::ReplayDiffered {
                minted: one.id,
                expected: want.id.clone(),
                at: at as u64,
            });
        }
        again.push(one);
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
    Ok(again)
}

/// After a failed mint or commit: drop what was minted and not committed, and read the
/// minter back. Without undo records nothing else can undo it, and a batch minted while
/// the one before it was being written, left in the transaction when that write failed,
/// would otherwise be committed with whatever follows: its state would carry the
/// counters past the failed batch's identifiers, which were never recorded. What the
/// store holds is always the batches that succeeded, in order, so the next mint goes on
/// with the failed batch's identifiers. The minter's notes and exit status stay.
fn forget_uncommitted<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
) -> Result<(), MinterError> {
    txn.clear();
    let (notes, status) = (std::mem::take(&mut m.notes), m.exit_status.take());
    *m = m.reloaded(&*txn)?;
    m.notes = notes;
    m.exit_status = status;
    Ok(())
}

/// A batch's commit running on the second thread, what it minted (shown once it
/// returned), and its outcome for the commit after it to wait on.
struct InFlight<'scope, E> {
    handle: std::thread::ScopedJoinHandle<'scope, (Result<(), E>, Writes)>,
    minted: Vec<Minted>,
    outcome: Arc<Outcome>,
}

/// Whether a commit in flight succeeded, once it is known.
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

/// Marks its outcome failed unless it was set: a commit thread that panics never
/// leaves the commit after it waiting.
struct FailUnlessSet(Arc<Outcome>);

impl Drop for FailUnlessSet {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// The batches of [`mint_in_batches`].
///
/// Plain minting is pipelined: each batch is committed on another thread while the next
/// one is minted (sorting and writing a batch takes about as long as minting it, so a
/// large mint takes little more than the minting alone), and a store that can have two
/// commits in flight starts each batch's commit before the one before it has finished
/// ([`Commit::commit_after`] applies it only after that one succeeded). Safe because
/// minting reads nothing back from the store while `:/fresh` holds (no probes, no queue
/// entries); should the flag drop mid-way (a wrap), the commits in flight are awaited
/// before the next identifier is minted. Binding reads back what minting wrote, so a
/// mint that binds commits one batch at a time.
fn batches<S>(
    txn: &mut Txn<'_, S>,
    m: &mut Minter,
    ctx: &Context,
    order: &Order<'_>,
    landing: &mut dyn Landing<S>,
) -> Result<(), Stopped>
where
    S: Commit + Sync + ?Sized,
    S::Error: Send,
{
    let pipelined = order.bind.is_none();
    let writer: &S = txn.base();
    let per_batch = writer.mint_batch().unwrap_or(BATCH);
    let depth = match pipelined && order.count > per_batch {
        true => writer.open_pipeline().max(1),
        false => 1,
    };
    std::thread::scope(|scope| {
        let mut in_flight: VecDeque<InFlight<'_, S::Error>> = VecDeque::new();
        let mut left = order.count;
        while left > 0 {
            let batch = left.min(per_batch);
            let mut minted = Vec::with_capacity(batch as usize);
            for _ in 0..batch {
                if !m.fresh {
                    land_all(&mut in_flight, landing)?;
                }
                match mint_one(txn, m, ctx, order) {
                    Ok(one) => minted.push(one),
                    Err(e) => {
                        land_all(&mut in_flight, landing)?;
                        let again = replay(txn, m, ctx, order, Back::All, &minted)?;
                        landing.minted(again);
                        landing.commit(txn)?;
                        return Err(Stopped::Failed(e));
                    }
                }
            }
            left -= batch;
            m.flush(txn);
            let last = left == 0;
            if !pipelined || (last && depth == 1) {
                land_all(&mut in_flight, landing)?;
                landing.minted(minted);
                if last {
                    // The last batch stays in `txn` for the caller to commit.
                    break;
                }
                landing.commit(txn)?;
                continue;
            }
            // Taken before waiting, so that a connection that lands is given the next
            // batch at once.
            let mut writes = txn.take_writes();
            while in_flight.len() >= depth {
                land(&mut in_flight, landing)?;
            }
            let previous = in_flight.back().map(|f| Arc::clone(&f.outcome));
            let outcome = Arc::new(Outcome::default());
            let mine = FailUnlessSet(Arc::clone(&outcome));
            let commit = move || {
                let result = match previous {
                    None => writer.commit_after(&mut writes, None),
                    Some(previous) => writer.commit_after(&mut writes, Some(&|| previous.wait())),
                };
                mine.0.set(result.is_ok());
                (result, writes)
            };
            in_flight.push_back(InFlight {
                handle: scope.spawn(commit),
                minted,
                outcome,
            });
            if last {
                // With two commits in flight the last batch goes the same way, so that
                // its commit overlaps the one before; nothing is left for the caller.
                land_all(&mut in_flight, landing)?;
            }
        }
        Ok(())
    })
}

/// Wait for every commit in flight, in order ([`land`]).
fn land_all<S: Commit + ?Sized>(
    in_flight: &mut VecDeque<InFlight<'_, S::Error>>,
    landing: &mut dyn Landing<S>,
) -> Result<(), Stopped> {
    while !in_flight.is_empty() {
        land(in_flight, landing)?;
    }
    Ok(())
}

/// Wait for the oldest commit in flight, if any, then show what it minted (or report
/// its failure; a commit after it is then not applied, see [`Commit::commit_after`]).
fn land<S: Commit + ?Sized>(
    in_flight: &mut VecDeque<InFlight<'_, S::Error>>,
    landing: &mut dyn Landing<S>,
) -> Result<(), Stopped> {
    let Some(InFlight { handle, minted, .. }) = in_flight.pop_front() else {
        return Ok(());
    };
    let (result, written) = handle.join().expect("the commit thread does not panic");
    // Freed here, by the thread that allocated the buffers.
    drop(written);
    match result {
        Ok(()) => {
            landing.minted(minted);
            landing.print()
        }
        Err(e) => {
            landing.failed_commit(e);
            Err(Stopped::Reported)
        }
    }
}
