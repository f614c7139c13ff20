//! Write access to a minter's key space, beside [`Lookup`]: what a write batch
//! (`noid_minter::batch`) needs from the store it commits to, so that the batch engine
//! stays free of storage (noid-store implements it for its `Store`, whichever engine
//! holds the minter).

use crate::lookup::Lookup;

/// Key writes in key order: each key with its new value, or `None` to delete it.
pub type Writes = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// A store that makes a transaction's writes durable.
pub trait Commit: Lookup {
    /// Why a commit failed (nothing of it was written).
    type Error: std::fmt::Display;

    /// Write `writes` as one atomic, synced batch.
    fn commit_writes(&self, writes: Writes) -> Result<(), Self::Error>;
}
