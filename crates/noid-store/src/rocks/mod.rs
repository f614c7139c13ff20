//! The embedded engine: a minter's keys in a RocksDB database in `Dbdir/NOID/`, the
//! only module of the crate (with [`crate::pg`]'s) that names its client library.
//!
//! * [`Writer`] (`writer`): the single primary under the writers' lock, atomic synced
//!   batches, large batches ingested as sorted table files.
//! * [`Snapshot`] (`snapshot`): a throw-away secondary for one short-lived reader.
//! * [`Secondary`] (`secondary`): a reader that catches up with the primary, over the
//!   kept iterators of `cursor`; the follower (`crate::follow`) reads through one.
//! * `generation`: the memory-mapped change counter that tells readers, in one memory
//!   read, whether a writer committed.
//! * `options`: RocksDB's tuning for writers and readers.

pub(crate) mod cursor;
mod db_error;
pub(crate) mod generation;
pub(crate) mod options;
pub(crate) mod secondary;
pub(crate) mod snapshot;
pub(crate) mod writer;

pub use db_error::DbError;
pub use options::MetadataPins;
pub use secondary::{Freshness, Secondary};
pub use snapshot::Snapshot;
pub use writer::{SortedLoad, Writer, SETTLE};

use crate::{Op, Scan, Store, StoreError};

impl Scan for Writer {
    fn scan_from(
        &self,
        start: &[u8],
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        Writer::scan_from(self, start, f)
    }
}

impl Store for Writer {
    fn commit_all(&self, ops: &mut Vec<Op>) -> Result<(), StoreError> {
        Writer::commit_all(self, ops)
    }

    fn pause(&self, wait: std::time::Duration) -> Result<bool, StoreError> {
        Writer::pause(self, wait)
    }

    fn compact(
        &self,
        index: Option<crate::TableIndex>,
    ) -> Result<Option<crate::Compaction>, StoreError> {
        Writer::compact(self, index).map(Some)
    }
}

impl Scan for Snapshot {
    fn scan_from(
        &self,
        start: &[u8],
        f: &mut dyn FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), StoreError> {
        Snapshot::scan_from(self, start, f)
    }
}

/// What the engine's unit tests write: identifiers spread over the key space, as a
/// load's are (no key order), each with a target.
#[cfg(test)]
pub(crate) mod test_keys {
    use crate::Op;

    /// The target key of the `i`th identifier.
    pub(crate) fn scattered_key(i: u32) -> String {
        format!("ark:/99999/b{:08x}\t_t", i.wrapping_mul(2_654_435_761))
    }

    /// The `i`th identifier's target.
    pub(crate) fn target(i: u32) -> String {
        format!("https://example.org/{i}")
    }

    /// The writes binding the identifiers numbered `ids` to their targets.
    pub(crate) fn scattered_puts(ids: std::ops::Range<u32>) -> impl Iterator<Item = Op> {
        ids.map(|i| Op::Put(scattered_key(i).into_bytes(), target(i).into_bytes()))
    }
}
