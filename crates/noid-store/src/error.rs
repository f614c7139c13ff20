//! The store's error type: every failure names the minter path it concerns.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::rocks::DbError;

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
    /// The embedded database (RocksDB) reported an error.
    Db(DbError),
    /// A followed minter is not open: the last attempt to open it failed for `cause`
    /// (it is tried again in the background).
    Unavailable {
        /// The minter's Dbdir.
        dbdir: PathBuf,
        /// Why the last open failed.
        cause: Arc<StoreError>,
    },
    /// Another engine holding the minter (a database server) failed; the text says
    /// which and why.
    Backend(String),
    /// The connection to the database server was lost after COMMIT was sent and
    /// before its answer came: the server may have made the commit durable or not.
    /// Nothing of it is printed (an identifier it minted is then never handed out,
    /// rather than maybe twice), and it is not retried as if it had failed.
    CommitUnknown(String),
    /// The follower is stopping (the process exits) and opens nothing any more.
    Stopping,
    /// The followed minter's files changed under the open view (its `NOID/` removed,
    /// or the minter replaced) and it has not been opened anew yet.
    NotFollowed(PathBuf),
    /// A full compaction ended with the store's tables still in several levels: RocksDB
    /// gave it up (a full disk, most likely) and left them as they were.
    CompactionUnfinished {
        /// The database directory (its `LOG` says why).
        path: PathBuf,
        /// The levels still holding tables.
        levels: usize,
    },
}

impl From<noid_core::PreviousFailed> for StoreError {
    /// A commit of a large mint not applied because the one before it failed.
    fn from(e: noid_core::PreviousFailed) -> Self {
        StoreError::Backend(e.to_string())
    }
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
            StoreError::Db(e) => write!(f, "database error: {e}"),
            StoreError::Unavailable { dbdir, cause } => {
                write!(f, "cannot open minter {}: {cause}", dbdir.display())
            }
            StoreError::Backend(why) => f.write_str(why),
            StoreError::CommitUnknown(why) => f.write_str(why),
            StoreError::Stopping => f.write_str("the resolver is exiting"),
            StoreError::NotFollowed(dbdir) => write!(
                f,
                "minter {} was removed or replaced and is not followed (yet)",
                dbdir.display()
            ),
            StoreError::CompactionUnfinished { path, levels } => write!(
                f,
                "the compaction of {} did not finish: its tables are still in {levels} levels, as they were (is the disk full? its LOG says why)",
                path.display()
            ),
        }
    }
}

impl StoreError {
    /// What a failed commit left written, for the message that replaces the output
    /// of its commands.
    pub fn after_failed_commit(&self) -> &'static str {
        match self {
            StoreError::CommitUnknown(_) => {
                "whether it was written is unknown; nothing of it was printed"
            }
            _ => "nothing was written",
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Db(e) => Some(e),
            StoreError::Unavailable { cause, .. } => Some(&**cause),
            _ => None,
        }
    }
}

impl From<StoreError> for noid_core::LookupError {
    /// A store that is not open (or no longer) is `Unavailable`; any other failure
    /// outside the read of one key is a `Store` error. Reads of a key map their errors
    /// with [`noid_core::LookupError::read`].
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable { .. } | StoreError::Stopping => {
                noid_core::LookupError::unavailable(e.to_string())
            }
            _ => noid_core::LookupError::store(e),
        }
    }
}

/// Attach a path to an I/O error.
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}
