//! Write access to a minter's key space, beside [`Lookup`]: what a write batch
//! (`noid_minter::batch`) and a large mint (`noid_minter::mint_engine`) need from the
//! store they commit to, so that the minter stays free of storage (noid-store
//! implements it for its `Store`, whichever engine holds the minter).

use crate::lookup::Lookup;

/// Key writes in key order: each key with its new value, or `None` to delete it.
pub type Writes = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// A commit made while the one before it was in flight, not applied because that one
/// failed ([`Commit::commit_after`]): commits are applied in the order they were made,
/// and none after one that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviousFailed;

impl std::fmt::Display for PreviousFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not committed: the commit before it failed")
    }
}

/// A store that makes a transaction's writes durable.
///
/// Only [`Commit::commit_writes`] is required. The other methods let a large mint keep
/// more than one commit in flight where the engine can (a database server, on two
/// connections); their defaults commit one batch at a time.
pub trait Commit: Lookup {
    /// Why a commit failed (nothing of it was written).
    type Error: std::fmt::Display + From<PreviousFailed>;

    /// Write `writes` as one atomic, synced batch.
    fn commit_writes(&self, writes: Writes) -> Result<(), Self::Error>;

    /// Identifiers per commit that a large mint should use, when this store prefers
    /// fewer than the minter's default: a database server does its share of a commit
    /// while the next batch is minted, so smaller batches overlap more of the two.
    fn mint_batch(&self) -> Option<u64> {
        None
    }

    /// How many of a large mint's commits this store can have in flight at once, after
    /// setting up what that takes; 1 unless overridden. The second and later are made
    /// with [`Commit::commit_after`].
    fn open_pipeline(&self) -> usize {
        1
    }

    /// [`Commit::commit_writes`] for a large mint's batch, made on a thread of its own
    /// while the next batch is minted. With `previous`, the commit before it may still
    /// be in flight: the store may send the bulk of `writes` at once but applies them
    /// only after `previous()` has returned true; when it returns false nothing is
    /// applied and the result is an error. The writes are left in `writes` (possibly
    /// reordered) for the caller to drop, on the thread that allocated them.
    fn commit_after(
        &self,
        writes: &mut Writes,
        previous: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), Self::Error> {
        if previous.is_some_and(|previous| !previous()) {
            return Err(PreviousFailed.into());
        }
        self.commit_writes(std::mem::take(writes))
    }
}
