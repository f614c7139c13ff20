//! Storage for one noid minter, whichever engine holds its keys.
//!
//! The key space is Perl Noid's own (`:/oacounter`, `ID\tELEM`, `:/q/…`), stored
//! verbatim so that `dbinfo` output, imports and exports match the original, and the
//! same bytes in either engine.
//!
//! **The facade** (what callers program against): the [`Store`] (writing) and [`Scan`]
//! (reading it all) traits and the [`Op`]s of a commit (`backend`); [`open`], the one
//! place that picks the engine of a Dbdir; the minter's file [`Layout`] (and the Dbdir a
//! program's name selects); [`StoreError`]; [`sweep_stale`] for directories left by
//! processes that were killed; [`changes`], the changed-identifiers feed the embedded
//! writer appends before each commit, and [`generation`], its change counter, which
//! derived data (the search index) follows.
//!
//! **The engines**, the only modules that name their client libraries:
//! * `rocks`, the embedded RocksDB store in `Dbdir/NOID/`: [`Writer`] for short-lived
//!   `noid` commands that change the minter (an exclusive `flock` on `NOID/lock`, never
//!   RocksDB's own `LOCK`, which fails at once instead of waiting; atomic batches; the
//!   change counter bumped so readers notice; `NOID/busy` held while the store's files
//!   may change, released after each commit by `noid serve`, [`Writer::pause`]);
//!   [`Snapshot`] for short-lived readers (a throw-away secondary, never the lock);
//!   [`Secondary`], a reader that catches up.
//! * [`pg`], PostgreSQL as the system of record, behind the `postgres` feature (only
//!   its [`pg::Location`], the `NOID/backend` file, is always built, so that a build
//!   without it refuses such a minter clearly, [`pg::without_postgres`]).
//!
//! **The follower** (`follow`): the long-lived resolver's [`Follower`], a
//! [`Secondary`] that catches up only when the change counter moved, opened anew when
//! the store was replaced, read through per-view caches ([`View`], a
//! [`noid_core::Lookup`]).

#![deny(missing_docs)]

// The facade.
mod backend;
pub mod changes;
mod compaction;
mod error;
mod layout;
pub mod open;
mod sweep;
mod table_index;

// The engines.
pub mod pg;
mod rocks;

// The follower and its caches.
mod follow;

pub use backend::{Op, Scan, Store};
pub use compaction::{Compaction, Level, Levels};
pub use error::StoreError;
pub use layout::Layout;
pub use sweep::sweep_stale;
pub use table_index::TableIndex;

/// The embedded store's change counter (`NOID/generation`, bumped by every writer after
/// each commit) and its store id, as on disk now; `None` for a minter on a database
/// server or none. Data derived from the store (the search index) records it to tell
/// whether anything was committed since.
pub fn generation(dbdir: &std::path::Path) -> Option<(u64, u64)> {
    let path = Layout::new(dbdir).generation;
    Some((
        rocks::generation::generation_on_disk(&path)?,
        rocks::generation::store_id_on_disk(&path)?,
    ))
}

pub use rocks::{
    DbError, Freshness, MetadataPins, Secondary, Snapshot, SortedLoad, Writer, SETTLE,
};

pub use follow::answer_region::AnswerRegion;
pub use follow::view::{ThreadCache, View};
pub use follow::{FollowStatus, Follower, ViewRef, CATCH_UP_EVERY};
