//! Carrying minters in and out of noid, and checking them.
//!
//! * [`dump`]: reading and writing the two text forms of a whole minter, record by
//!   record and without holding it in memory: BerkeleyDB's `db_dump -p` "printable"
//!   text (what `db_dump` prints for a Perl Noid `noid.bdb` and what `db_load` reads
//!   back), and noid's own lossless line format (`# noid export v1`, see
//!   `docs/EXPORT-FORMAT.md`). [`dump::Reader`] recognises either by its first line.
//! * [`validate`]: whether a stream of records is a Noid minter at all, with a clear
//!   message when it is not.
//! * [`check`]: the `noid check` analysis (counts, the next identifiers to be minted,
//!   counters that disagree with the stored state) and the repair plan, over the
//!   [`noid_core::Lookup`] trait.
//!
//! The crate does no I/O of its own: callers hand it readers, writers and a lookup.
//! The `noid` CLI (`import`, `export`, `check`) supplies files, processes and RocksDB.

#![deny(missing_docs)]

pub mod check;
pub mod dump;
mod escape;
pub mod validate;

pub use dump::{DumpError, DumpFormat, DumpRecord, Reader, Writer};
