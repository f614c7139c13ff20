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
//! * [`CountsShipper`] adds a web node's resolution counts to the minter's, exactly
//!   once; [`read_counts`] reads their sum.
//!
//! [`crate::open`] opens any minter directory, whichever engine holds it.
//!
//! Everything but [`Location`] (the `NOID/backend` file, which a build without
//! PostgreSQL still reads) and [`without_postgres`] (the refusal of such a minter in
//! that build) needs the crate's `postgres` feature: this module and the crate's
//! manifest are the only places that feature is read. With the `testing` feature,
//! [`testing::TestServer`] starts a throw-away server for tests.

#[cfg(feature = "postgres")]
mod ahead;
#[cfg(feature = "postgres")]
mod conn;
#[cfg(feature = "postgres")]
mod copy;
#[cfg(feature = "postgres")]
mod counts;
#[cfg(feature = "postgres")]
pub mod digest;
// What `crate::open` calls: the engine, or (without the feature) its refusal.
#[cfg(feature = "postgres")]
mod engine;
#[cfg(not(feature = "postgres"))]
#[path = "absent.rs"]
mod engine;
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
pub use counts::CountsShipper;
#[cfg(feature = "postgres")]
pub use digest::Digest;
pub use location::{Location, LocationError};
#[cfg(feature = "postgres")]
pub use replica::{Progress, Replica, APPLIED};
#[cfg(feature = "postgres")]
pub use snapshot::PgSnapshot;
#[cfg(feature = "postgres")]
pub use writer::PgWriter;

pub(crate) use engine::{create, lease, open_reader, open_writer};

use crate::StoreError;

/// The refusal of a minter held by PostgreSQL at `loc` in a build without the
/// `postgres` feature; `what` names the minter (`the minter in /srv/noid/fk4`).
pub fn without_postgres(what: &str, loc: &Location) -> StoreError {
    StoreError::Backend(format!(
        "{what} is held by PostgreSQL ({}), and this build has no PostgreSQL support \
         (built without the cargo feature \"postgres\")",
        loc.display_url()
    ))
}

/// One resolution count as the minter's database keeps it (`noid_counts`): crate
/// noid-counts' entry, in the words of the table (this crate does not depend on that
/// one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountRow {
    /// The UTC day, as days since 1970-01-01.
    pub day: u32,
    /// The identifier, as asked.
    pub id: Vec<u8>,
    /// `hit`, `redirect`, `miss`, `inflection` or `page`.
    pub kind: String,
    /// A redirect's status code; 0 for the other kinds.
    pub code: u16,
    /// `person` or `robot`.
    pub class: String,
    /// How many.
    pub count: u64,
}

/// Every resolution count of the minter at `loc`, as its web nodes shipped them
/// (docs/COUNTS.md); refused in a build without PostgreSQL.
pub fn read_counts(loc: &Location) -> Result<Vec<CountRow>, StoreError> {
    #[cfg(feature = "postgres")]
    return counts::read(loc);
    #[cfg(not(feature = "postgres"))]
    Err(without_postgres(&format!("the minter {}", loc.minter), loc))
}
