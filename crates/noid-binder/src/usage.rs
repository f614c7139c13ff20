//! A minter directory's resolution counts, read and reported: the one place every way
//! in reads them (`noid stats`, the API's `GET /a/POP/stats`, the console's usage
//! pages), so that each shows the same numbers for the same question.
//!
//! The counts are what the resolvers of this directory wrote under `DIR/counts/`
//! (crate `noid-counts`, `noidr --counts` and the web server modules' `counts=SECS`),
//! or, for a minter held by PostgreSQL (`DIR/NOID/backend`), what its web nodes
//! (`noidr --follow … --counts`) shipped to its database, added up there: every
//! node's counts once. A node's own directory (`noid -f CACHEDIR stats`) has no
//! backend file and reads its local counts.

use std::io;
use std::path::{Path, PathBuf};

use noid_counts::{counts_dir_of, Class, Compacted, CountsDir, Entry, Kind, Query, Report};
use noid_store::pg::{read_counts, CountRow, Location};
use noid_store::Layout;

/// Where a directory's counts were read from, for the messages that say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountsSource {
    /// `DIR/counts/`, with whether it exists yet (it does once a resolver has counted).
    Local {
        /// The counts directory.
        path: PathBuf,
        /// Whether any resolver has counted there yet.
        exists: bool,
    },
    /// The database that holds the minter: the sum of what its web nodes shipped.
    Postgres {
        /// The database's URL, without its password.
        url: String,
        /// The minter's name there.
        minter: String,
    },
}

/// Every count of `dbdir`, and where they were read from: its database's for a
/// minter held by PostgreSQL, else its counts directory's.
pub fn entries(dbdir: &Path) -> io::Result<(Vec<Entry>, CountsSource)> {
    if let Some(loc) = Location::read(&Layout::new(dbdir)).map_err(io::Error::other)? {
        let rows = read_counts(&loc).map_err(io::Error::other)?;
        let source = CountsSource::Postgres {
            url: loc.display_url(),
            minter: loc.minter.clone(),
        };
        return Ok((rows.into_iter().filter_map(entry_of_row).collect(), source));
    }
    let dir = CountsDir::new(counts_dir_of(dbdir));
    let entries = dir.read()?;
    let source = CountsSource::Local {
        exists: dir.path().is_dir(),
        path: dir.path().to_path_buf(),
    };
    Ok((entries, source))
}

/// A count as the database keeps it, as an entry; `None` for a kind or class this
/// version does not know (a later noid's), which is left out as the counts files'
/// readers leave out such a block.
fn entry_of_row(row: CountRow) -> Option<Entry> {
    Some(Entry {
        day: row.day,
        kind: Kind::from_group(&row.kind, row.code)?,
        class: Class::from_name(&row.class)?,
        count: row.count,
        id: row.id,
    })
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
