//! The store's error type: every failure names the minter path it concerns.

use std::fmt;
use std::path::PathBuf;

/// Why a store operation failed.
#[derive(Debug)]
pub enum StoreError {
    /// There is no minter database in this directory (`dbcreate` was never run).
    NoDatabase(PathBuf),
    /// `dbcreate` found a minter already there.
    AlreadyExists(PathBuf),
    /// Another `noid` process held the writers' lock for longer than the timeout.
    LockTimeout {
        /// The lock file waited on.
        path: PathBuf,
        /// How long we waited, in seconds.
        seconds: u64,
    },
    /// A file-system operation failed.
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// RocksDB reported an error.
    Db(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NoDatabase(p) => {
                write!(f, "no database ({}) -- use dbcreate?", p.display())
            }
            StoreError::AlreadyExists(p) => {
                write!(f, "a NOID database already exists in \"{}\".", p.display())
            }
            StoreError::LockTimeout { path, seconds } => write!(
                f,
                "lock timeout after {seconds} seconds; another noid process holds \"{}\"",
                path.display()
            ),
            StoreError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            StoreError::Db(msg) => write!(f, "database error: {msg}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rocksdb::Error> for StoreError {
    fn from(e: rocksdb::Error) -> Self {
        StoreError::Db(e.into_string())
    }
}

impl From<StoreError> for noid_resolve::LookupError {
    fn from(e: StoreError) -> Self {
        noid_resolve::LookupError::Store(e.to_string())
    }
}

/// Attach a path to an I/O error.
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}
