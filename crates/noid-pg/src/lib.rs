//! PostgreSQL as a minter's system of record (docs/SCALING.md).
//!
//! A minter directory whose `NOID/backend` file names a database ([`Location`]) keeps
//! its key space in PostgreSQL instead of the embedded RocksDB store: the same keys,
//! as `bytea` so that they sort as in RocksDB, in the table `noid_keys`, and every
//! committed change also in the change log `noid_log` that followers apply in order
//! ([`schema`]). Two ways in, as noid-store has for RocksDB:
//! * [`PgWriter`]: a writing `noid` process. It holds the minter's writers' lock (a
//!   session advisory lock) from open to close, reads committed keys, and commits each
//!   batch as one synchronous transaction that also appends to the change log
//!   (noid-store's [`noid_store::Store`]).
//! * [`PgSnapshot`]: a reading process, one `REPEATABLE READ` snapshot that never
//!   blocks writers (noid-store's [`noid_store::Scan`]).
//!
//! * [`Replica`]: a local copy in an embedded RocksDB store, bootstrapped from a
//!   snapshot and kept up to date from the change log, for web nodes' resolvers.
//!
//! [`open`] opens any minter directory, whichever engine holds it.
//!
//! With the `testing` feature, [`testing::TestServer`] starts a throw-away server for
//! tests.

#![deny(missing_docs)]

mod ahead;
mod conn;
pub mod digest;
mod location;
pub mod open;
mod position;
pub mod prune;
mod replica;
pub mod schema;
mod snapshot;
#[cfg(feature = "testing")]
pub mod testing;
mod writer;

pub use digest::Digest;
pub use location::Location;
pub use replica::{Progress, Replica, APPLIED};
pub use snapshot::PgSnapshot;
pub use writer::PgWriter;
