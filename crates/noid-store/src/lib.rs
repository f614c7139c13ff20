//! Storage for one noid minter: a RocksDB database in `Dbdir/NOID/`.
//!
//! The key space is Perl Noid's own (`:/oacounter`, `ID\tELEM`, `:/q/…`), stored
//! verbatim so that `dbinfo` output, imports and exports match the original.
//!
//! Three ways in, one per kind of process:
//! * [`Writer`]: short-lived `noid` commands that change the minter. They queue on an
//!   exclusive `flock` on `NOID/lock` (never RocksDB's own `LOCK`, which fails at once
//!   instead of waiting), open the database as its single primary, commit atomic
//!   batches, and bump the [`generation`] counter so readers notice. While a writer
//!   may change the store's files it also holds `NOID/busy`, the readers' gate;
//!   `noid serve` releases it after each commit ([`Writer::pause`]).
//! * [`Snapshot`]: short-lived read-only commands (`fetch`, `get`, `dbinfo`). They open
//!   a throw-away RocksDB secondary and never take the lock, so they never block writers.
//! * [`Follower`]: the long-lived resolver. A [`Secondary`] that catches up with the
//!   primary only when the generation counter moved, opened anew when the store was
//!   replaced, read through per-view caches ([`View`], a [`noid_core::Lookup`]).
//!
//! Every engine that can hold a minter implements [`Store`] (writing) and [`Scan`]
//! (reading it all): the embedded RocksDB store, and PostgreSQL ([`pg`], with the
//! `postgres` feature). [`open`] is the one place that picks the engine of a Dbdir.
//!
//! Also here: the minter's file [`Layout`] (and the Dbdir a program's name selects),
//! and [`sweep_stale`] for directories left by processes that were killed.

#![deny(missing_docs)]

mod backend;
mod cursor;
mod error;
mod follow;
pub mod generation;
mod layout;
pub mod open;
mod options;
pub mod pg;
mod secondary;
mod snapshot;
mod sweep;
mod writer;

pub use backend::{Scan, Store};
pub use error::{DbError, StoreError};
pub use follow::answer_region::AnswerRegion;
pub use follow::view::{ThreadCache, View};
pub use follow::{FollowStatus, Follower, ViewRef, CATCH_UP_EVERY};
pub use layout::Layout;
pub use secondary::{Freshness, Secondary};
pub use snapshot::Snapshot;
pub use sweep::sweep_stale;
pub use writer::{Op, SortedLoad, Writer, SETTLE};
