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
