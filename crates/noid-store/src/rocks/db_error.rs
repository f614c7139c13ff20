//! [`DbError`]: RocksDB's error behind a type of this crate, in a file of its own so
//! that the facade's `error` module names it without importing the engine's module.

use std::fmt;

use crate::StoreError;

/// An error of the embedded database, opaque so that no public type of this crate
/// names the engine (its message is RocksDB's).
#[derive(Debug)]
pub struct DbError(rocksdb::Error);

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for DbError {}

impl DbError {
    /// A table file the view names is gone: a writer's compaction removed it before
    /// this reader opened it (a reader that opens tables as lookups need them).
    pub(crate) fn is_vanished_table(&self) -> bool {
        self.0.kind() == rocksdb::ErrorKind::IOError
            && self.0.as_ref().contains(".sst")
            && self.0.as_ref().contains("No such file")
    }
}

impl From<rocksdb::Error> for StoreError {
    fn from(e: rocksdb::Error) -> Self {
        StoreError::Db(DbError(e))
    }
}
