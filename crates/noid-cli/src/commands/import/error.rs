//! Why an import failed, each with what it concerned; the messages are written here.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;

use noid_migrate::dump::DumpError;
use noid_migrate::validate::NotAMinter;
use noid_store::StoreError;

/// Why an import failed. Nothing of the new minter is left behind.
#[derive(Debug)]
pub enum ImportError {
    /// PATH cannot be read.
    Path {
        /// PATH as given.
        path: String,
        /// Why.
        error: io::Error,
    },
    /// PATH is a directory without `noid.bdb` (nor `NOID/noid.bdb`).
    NoBdb {
        /// PATH as given.
        path: String,
    },
    /// PATH is neither a BerkeleyDB database nor a text dump.
    NotRecognised {
        /// PATH as given.
        path: String,
    },
    /// No `db_dump` to read a BerkeleyDB database with.
    NoDbDump,
    /// `db_dump` cannot be started.
    DbDumpSpawn {
        /// The program.
        exe: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// `db_dump` cannot be waited for.
    DbDumpWait(io::Error),
    /// `db_dump` failed.
    DbDumpFailed {
        /// How it exited.
        status: ExitStatus,
        /// What it said, on one line.
        stderr: String,
    },
    /// The Dbdir cannot be made.
    CreateDbdir {
        /// The Dbdir.
        dir: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The new store failed.
    Store(StoreError),
    /// The records cannot be read.
    Records {
        /// PATH as given.
        path: String,
        /// What is wrong with them.
        error: DumpError,
    },
    /// The records are not a Noid minter.
    NotAMinter {
        /// PATH as given.
        path: String,
        /// Why not.
        error: NotAMinter,
    },
    /// The dump repeats keys.
    RepeatedKeys {
        /// PATH as given.
        path: String,
        /// Records read.
        records: u64,
        /// Distinct keys among them.
        distinct: u64,
    },
    /// The new minter's README or log cannot be written.
    WriteFile {
        /// The file.
        file: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The new minter cannot be moved into `Dbdir/NOID`.
    Publish {
        /// Where it was to go.
        to: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// Another process created a minter in the Dbdir meanwhile.
    Appeared {
        /// The Dbdir.
        dbdir: PathBuf,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NOTHING: &str = "nothing was imported";
        match self {
            ImportError::Path { path, error } => write!(f, "error: {path}: {error}"),
            ImportError::NoBdb { path } => write!(
                f,
                "error: {path}: no noid.bdb in this directory (nor in {path}/NOID)"
            ),
            ImportError::NotRecognised { path } => write!(
                f,
                "error: {path}: not a Noid minter: neither a BerkeleyDB database nor db_dump -p or noid export text"
            ),
            ImportError::NoDbDump => f.write_str(
                "error: db_dump not found; install Debian's db-util or pass a db_dump -p text file",
            ),
            ImportError::DbDumpSpawn { exe, error } => {
                write!(f, "error: cannot run {}: {error}", exe.display())
            }
            ImportError::DbDumpWait(error) => write!(f, "error: db_dump: {error}"),
            ImportError::DbDumpFailed { status, stderr } => {
                write!(f, "error: db_dump failed ({status}): {stderr}")
            }
            ImportError::CreateDbdir { dir, error } => {
                write!(f, "error: cannot create {}: {error}", dir.display())
            }
            ImportError::Store(e) => write!(f, "error: {e}"),
            ImportError::Records { path, error } => write!(f, "error: {path}: {error}; {NOTHING}"),
            ImportError::NotAMinter { path, error } => {
                write!(f, "error: {path}: {error}; {NOTHING}")
            }
            ImportError::RepeatedKeys {
                path,
                records,
                distinct,
            } => write!(
                f,
                "error: {path}: {records} records but only {distinct} distinct keys: the dump repeats keys; {NOTHING}"
            ),
            ImportError::WriteFile { file, error } => {
                write!(f, "error: cannot write {}: {error}", file.display())
            }
            ImportError::Publish { to, error } => write!(
                f,
                "error: cannot move the new minter into {}: {error}",
                to.display()
            ),
            ImportError::Appeared { dbdir } => write!(
                f,
                "error: a NOID database appeared in \"{}\" during the import",
                dbdir.display()
            ),
        }
    }
}

impl std::error::Error for ImportError {}

impl From<StoreError> for ImportError {
    fn from(e: StoreError) -> ImportError {
        ImportError::Store(e)
    }
}
