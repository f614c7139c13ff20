//! PostgreSQL as a minter's system of record (docs/SCALING.md).
//!
//! A minter directory whose `NOID/backend` file names a database ([`Location`]) keeps
//! its key space in PostgreSQL instead of the embedded RocksDB store: the same keys,
//! as `bytea` so that they sort as in RocksDB, in the table `noid_rows` (a minted
//! identifier's hold packed into its circulation record's row, [`packed`]), and every
//! committed change also in the change log `noid_log` that followers apply in order
//! ([`schema`]). Two ways in, as noid-store has for RocksDB:
//! * [`PgWriter`]: a writing `noid` process. It holds the minter's writers' lock (a
//!   session advisory lock) from open to close, reads committed keys, and commits each
//!   batch as one synchronous transaction that also appends to the change log
//!   (noid-store's [`crate::Store`]).
//! * [`PgSnapshot`]: a reading process, one `REPEATABLE READ` snapshot that never
//!   blocks writers (noid-store's [`crate::Scan`]).
//!
//! * [`Replica`]: a local copy in an embedded RocksDB store, bootstrapped from a
//!   snapshot and kept up to date from the change log, for web nodes' resolvers.
//!
//! [`crate::open`] opens any minter directory, whichever engine holds it.
//!
//! Everything but [`Location`] (the `NOID/backend` file, which a build without
//! PostgreSQL still reads, to refuse such a minter clearly) needs the crate's
//! `postgres` feature. With the `testing` feature, [`testing::TestServer`] starts a
//! throw-away server for tests.

#[cfg(feature = "postgres")]
mod ahead;
#[cfg(feature = "postgres")]
mod conn;
#[cfg(feature = "postgres")]
mod copy;
#[cfg(feature = "postgres")]
pub mod digest;
mod location;
#[cfg(feature = "postgres")]
mod packed;
#[cfg(feature = "postgres")]
mod position;
#[cfg(feature = "postgres")]
pub mod prune;
#[cfg(feature = "postgres")]
mod replica;
#[cfg(feature = "postgres")]
pub mod schema;
#[cfg(feature = "postgres")]
mod snapshot;
#[cfg(feature = "postgres")]
mod statements;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "postgres")]
mod writer;

#[cfg(feature = "postgres")]
pub use digest::Digest;
pub use location::{Location, LocationError};
#[cfg(feature = "postgres")]
pub use replica::{Progress, Replica, APPLIED};
#[cfg(feature = "postgres")]
pub use snapshot::PgSnapshot;
#[cfg(feature = "postgres")]
pub use writer::PgWriter;
