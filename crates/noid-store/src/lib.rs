//! Storage for one noid minter: a RocksDB database in `Dbdir/NOID/`.
//!
//! The key space is Perl Noid's own (`:/oacounter`, `ID\tELEM`, `:/q/…`), stored
//! verbatim so that `dbinfo` output, imports and exports match the original.
//!
//! Three ways in, one per kind of process:
//! * [`Writer`]: short-lived `noid` commands that change the minter. They queue on an
//!   exclusive `flock` on `NOID/lock` (never RocksDB's own `LOCK`, which fails at once
//!   instead of waiting), open the database as its single primary, commit atomic
//!   batches, and bump the [`generation`] counter so readers notice.
//! * [`Snapshot`]: short-lived read-only commands (`fetch`, `get`, `dbinfo`). They open
//!   a throw-away RocksDB secondary and never take the lock, so they never block writers.
//! * [`Reader`]: the long-lived resolver. A secondary that catches up with the primary
//!   only when the generation counter moved, and reopens when the store was replaced.

#![deny(missing_docs)]

mod cursor;
mod error;
pub mod generation;
mod layout;
mod options;
mod reader;
mod snapshot;
mod sweep;
mod writer;

pub use error::StoreError;
pub use layout::Layout;
pub use reader::Reader;
pub use snapshot::Snapshot;
pub use sweep::sweep_stale;
pub use writer::{Op, Writer};
