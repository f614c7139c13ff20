//! A minter directory's resolution counts, read and reported: the one place every way
//! in reads them (`noid stats`, the API's `GET /a/POP/stats`, the console's usage
//! pages), so that each shows the same numbers for the same question.
//!
//! The counts are what the resolvers of this directory wrote under `DIR/counts/`
//! (crate `noid-counts`, `noidr --counts` and the web server modules' `counts=SECS`).

use std::io;
use std::path::Path;

use noid_counts::{counts_dir_of, Compacted, CountsDir, Entry, Query, Report};

/// Where a directory's counts were read from, for the messages that say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountsSource {
    /// `DIR/counts/`, with whether it exists yet (it does once a resolver has counted).
    Local {
        /// The counts directory.
        path: std::path::PathBuf,
        /// Whether any resolver has counted there yet.
        exists: bool,
    },
}

/// Every count of `dbdir`, and where they were read from.
pub fn entries(dbdir: &Path) -> io::Result<(Vec<Entry>, CountsSource)> {
    let dir = CountsDir::new(counts_dir_of(dbdir));
    let entries = dir.read()?;
    let source = CountsSource::Local {
        exists: dir.path().is_dir(),
        path: dir.path().to_path_buf(),
    };
    Ok((entries, source))
}

/// The report `query` asks for, of every count of `dbdir`.
pub fn report(dbdir: &Path, query: &Query) -> io::Result<(Report, CountsSource)> {
    let (entries, source) = entries(dbdir)?;
    Ok((query.report(&entries), source))
}

/// Folds the counts files of the processes that have ended into one
/// ([`CountsDir::compact`]): safe while others count.
pub fn compact(dbdir: &Path) -> io::Result<Compacted> {
    CountsDir::new(counts_dir_of(dbdir)).compact()
}
