//! The one write path for batches of commands: a transaction over an open store with
//! the minter's state loaded in it ([`Batch`]), commands run in it one after another,
//! and commits that make everything since the last one durable as one synced batch.
//! After a failed commit nothing of the batch was written, so the transaction is
//! emptied and the minter read back from the store: the next command starts from what
//! is durable.
//!
//! The CLI's bulk mode (`noid -`), `noid replay`, and the API's requests (`noid
//! serve`, single and bulk, and its CGI) all commit through [`run`]; each supplies
//! only where its commands come from and where their answers go (a [`Feed`]). No
//! answer is given before the commit that makes it true has returned.

use noid_core::Commit;

use crate::{Minter, MinterError, Txn};

/// An open write batch: the transaction and the minter's state in it.
pub struct Batch<'w, S: Commit + ?Sized> {
    txn: Txn<'w, S>,
    minter: Minter,
    /// The minter could not be read back after a failed commit or an undone command;
    /// it is read again before the next command runs.
    stale: bool,
}

impl<'w, S: Commit + ?Sized> Batch<'w, S> {
    /// A batch over `store`, with the minter's state read from it.
    pub fn open(store: &'w S) -> Result<Self, MinterError> {
        let txn = Txn::new(store);
        let minter = Minter::load(&txn)?;
        Ok(Batch {
            txn,
            minter,
            stale: false,
        })
    }

    /// The transaction and the minter, for a command that undoes its own writes on
    /// failure (egg's `execute`, `nog`); see [`Batch::attempt`] for one that does not.
    pub fn parts(&mut self) -> Result<(&mut Txn<'w, S>, &mut Minter), MinterError> {
        self.fresh()?;
        Ok((&mut self.txn, &mut self.minter))
    }

    /// The store the batch commits to.
    pub fn store(&self) -> &'w S {
        self.txn.base()
    }

    /// Pending key writes (the minter's changed admin values are written at the next
    /// [`Batch::attempt`] or commit: flushing after every command of a bulk run of
    /// binds, which change none, would only cost).
    pub fn pending(&self) -> usize {
        self.txn.len()
    }

    /// Run one command whose failure must leave the batch as it found it: on `Err` its
    /// writes are rolled back and, when it changed the minter's state in memory, the
    /// state is read back (most refusals change nothing in memory, and reading it back
    /// for each of a million refused lines would dominate).
    pub fn attempt<T, E: From<MinterError>>(
        &mut self,
        run: impl FnOnce(&mut Txn<'w, S>, &mut Minter) -> Result<T, E>,
    ) -> Result<T, E> {
        self.fresh()?;
        self.minter.flush(&mut self.txn);
        let sp = self.txn.savepoint();
        let result = run(&mut self.txn, &mut self.minter);
        if result.is_err() {
            self.txn.rollback_to(sp);
            if self.minter.is_dirty() {
                self.reload();
            }
        }
        result
    }

    /// Commit everything since the last commit as one synced batch. On failure nothing
    /// of it was written: the transaction is emptied and the minter read back.
    pub fn commit(&mut self) -> Result<(), S::Error> {
        self.minter.flush(&mut self.txn);
        let committed = commit(&mut self.txn);
        if committed.is_err() {
            self.txn.clear();
            self.reload();
        }
        committed
    }

    fn reload(&mut self) {
        match self.minter.reloaded(&self.txn) {
            Ok(m) => {
                self.minter = m;
                self.stale = false;
            }
            Err(_) => self.stale = true,
        }
    }

    fn fresh(&mut self) -> Result<(), MinterError> {
        if self.stale {
            self.minter = self.minter.reloaded(&self.txn)?;
            self.stale = false;
        }
        Ok(())
    }
}

/// Commit `txn`'s pending writes to its store as one synced batch (the minter's state
/// flushed into it first by the caller). [`Batch::commit`] and a command that commits
/// in steps of its own (a large `mint`) both commit here.
pub fn commit<S: Commit + ?Sized>(txn: &mut Txn<'_, S>) -> Result<(), S::Error> {
    let writes = txn.take_writes();
    txn.base().commit_writes(writes)
}

/// What the next command of a feed did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// It ran (or was refused); its answer waits for the next commit.
    Ran,
    /// No more commands for this batch: it is committed and ends.
    End,
    /// The batch ends without its last commit (the input could not be read).
    Abort,
}

/// The caller's side of a batch: where commands come from and where answers go.
pub trait Feed<S: Commit + ?Sized> {
    /// Run the next command in `batch` (through [`Batch::attempt`] or
    /// [`Batch::parts`]), keeping its answer until a commit.
    fn run_next(&mut self, batch: &mut Batch<'_, S>) -> Step;

    /// Whether to commit now, with `pending` key writes waiting.
    fn commit_due(&mut self, pending: usize) -> bool;

    /// A commit returned: on `Ok` the answers since the last commit may go out, on
    /// `Err` none of those commands was written. `last` for the batch's final commit.
    /// Returns whether the batch goes on (ignored after the last).
    fn committed(&mut self, store: &S, outcome: Result<(), S::Error>, last: bool) -> bool;
}

/// Run `feed`'s commands in `batch` until it ends, committing whenever it says so and
/// at the end.
pub fn run<S: Commit + ?Sized>(batch: &mut Batch<'_, S>, feed: &mut dyn Feed<S>) {
    loop {
        match feed.run_next(batch) {
            Step::Ran => {}
            Step::End => break,
            Step::Abort => return,
        }
        if feed.commit_due(batch.pending()) {
            let outcome = batch.commit();
            if !feed.committed(batch.store(), outcome, false) {
                return;
            }
        }
    }
    let outcome = batch.commit();
    feed.committed(batch.store(), outcome, true);
}
