//! An index kept current by following the store: [`Followed`] holds the open
//! [`SearchIndex`] of a minter and, at each [`Followed::catch_up`] (a background thread
//! calls it every [`EVERY`]: [`Followed::spawn`]), re-indexes the identifiers that the
//! commits since its last one wrote, as the store's changed-identifiers feed names them
//! (`noid_store::changes`, `NOID/changes`).
//!
//! The position is the writers' change counter and store id (`NOID/generation`) the
//! index is current with, kept in its `noid-search` file; the feed is read from where
//! the last catch-up stopped. A catch-up rebuilds instead when the store was replaced
//! (another store id) or the feed cannot say what changed (a generation without a line:
//! an import, or a feed started anew while the index was behind).
//!
//! A minter on PostgreSQL is followed through its host's local copy (noid-store's
//! `pg::replica`), an embedded store whose writer appends the same feed: open the index
//! on the copy's directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use noid_store::changes::{self, Changes};
use noid_store::Layout;

use crate::index::{SearchError, SearchIndex};

/// How often the background thread catches up: a write is searchable within about
/// this, plus the update's own time.
pub const EVERY: Duration = Duration::from_millis(200);

/// What a catch-up did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatchUp {
    /// Nothing was committed since.
    Current,
    /// These identifiers were indexed again.
    Updated(usize),
    /// The index was built anew.
    Rebuilt,
    /// The store has no change counter (a minter on a database server): follow its
    /// local copy instead.
    NotFollowable,
}

/// A minter's index, kept current.
pub struct Followed {
    dbdir: PathBuf,
    index: RwLock<Arc<SearchIndex>>,
    /// Where the feed was last read to (0: from its start).
    offset: Mutex<u64>,
}

impl Followed {
    /// The index of the minter in `dbdir` ([`SearchIndex::open`]: rebuilt when it
    /// cannot be trusted), to follow.
    pub fn open(dbdir: &Path) -> Result<Followed, SearchError> {
        Ok(Followed {
            dbdir: dbdir.to_path_buf(),
            index: RwLock::new(Arc::new(SearchIndex::open(dbdir)?)),
            offset: Mutex::new(0),
        })
    }

    /// The index as of the last catch-up, to search.
    pub fn index(&self) -> Arc<SearchIndex> {
        Arc::clone(&self.index.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Bring the index up to the store's last commit.
    pub fn catch_up(&self) -> Result<CatchUp, SearchError> {
        let mut offset = self.offset.lock().unwrap_or_else(|e| e.into_inner());
        match step(&self.index(), &self.dbdir, *offset)? {
            Step::Current => Ok(CatchUp::Current),
            Step::NotFollowable => Ok(CatchUp::NotFollowable),
            Step::Updated { ids, offset: next } => {
                *offset = next;
                Ok(CatchUp::Updated(ids))
            }
            Step::Gap => {
                let rebuilt = SearchIndex::rebuild(&self.dbdir)?;
                *self.index.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(rebuilt);
                *offset = 0;
                Ok(CatchUp::Rebuilt)
            }
        }
    }

    /// Catch up every [`EVERY`] on a thread of its own until `stop` is set; a failed
    /// catch-up is logged and tried again.
    pub fn spawn(self: &Arc<Self>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
        let me = Arc::clone(self);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Acquire) {
                match me.catch_up() {
                    Ok(CatchUp::NotFollowable) => return,
                    Ok(_) => {}
                    Err(e) => log::warn!("search index: {e}"),
                }
                std::thread::park_timeout(EVERY);
            }
        })
    }
}

/// The index of the minter in `dbdir`, up to the store's last commit: the process's one
/// [`Followed`] of that directory (opened, checked and, if need be, rebuilt at its first
/// use), caught up at each call. What a long-lived server (`noid serve`'s search and
/// console, a rewrite's query) searches: opening and checking an index at every request
/// read all of it each time (a one-word search with facets at 1,000,000 identifiers
/// was 33 times as slow as a point fetch; see docs/SEARCH.md).
pub fn current(dbdir: &Path) -> Result<Arc<SearchIndex>, SearchError> {
    static OPEN: Mutex<Vec<(PathBuf, Arc<Followed>)>> = Mutex::new(Vec::new());
    let key = dbdir.canonicalize().unwrap_or_else(|_| dbdir.to_path_buf());
    let followed = {
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        match open.iter().find(|(d, _)| *d == key) {
            Some((_, f)) => Arc::clone(f),
            None => {
                let f = Arc::new(Followed::open(dbdir)?);
                open.push((key, Arc::clone(&f)));
                f
            }
        }
    };
    followed.catch_up()?;
    Ok(followed.index())
}

/// What one step of following did.
pub(crate) enum Step {
    /// Nothing was committed since.
    Current,
    /// The store has no change counter.
    NotFollowable,
    /// This many identifiers were indexed again; the feed's next line is at `offset`.
    Updated { ids: usize, offset: u64 },
    /// The feed cannot say what changed (or the store was replaced): rebuild.
    Gap,
}

/// Index again what the store's commits since `index`'s recorded generation wrote,
/// reading the feed from `offset` (0: its start), and record the generation reached.
pub(crate) fn step(index: &SearchIndex, dbdir: &Path, offset: u64) -> Result<Step, SearchError> {
    let Some((now, store_id)) = noid_store::generation(dbdir) else {
        return Ok(Step::NotFollowable);
    };
    let changes = match index.recorded_changes() {
        Some((at, id)) if id == store_id && at == now => return Ok(Step::Current),
        Some((at, id)) if id == store_id && at < now => {
            changes::since(&Layout::new(dbdir).changes, offset, at, now)?
        }
        _ => Changes::Gap,
    };
    let Changes::Since { ids, offset } = changes else {
        return Ok(Step::Gap);
    };
    let store = noid_store::open::reader(dbdir)?;
    index.update(&*store, &ids)?;
    index.record_changes(now, store_id)?;
    Ok(Step::Updated {
        ids: ids.len(),
        offset,
    })
}
