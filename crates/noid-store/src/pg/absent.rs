//! `engine.rs`'s functions in a build without the `postgres` feature: a minter held by
//! PostgreSQL is refused, saying which feature the build lacks, and nothing is created.

use std::path::Path;
use std::time::Duration;

use super::{without_postgres, Location};
use crate::{Scan, Store, StoreError};

/// Refused: no PostgreSQL in this build.
pub(crate) fn open_writer(
    dbdir: &Path,
    loc: &Location,
    _timeout: Duration,
) -> Result<Box<dyn Store>, StoreError> {
    Err(refusal(dbdir, loc))
}

/// Refused: no PostgreSQL in this build.
pub(crate) fn open_reader(dbdir: &Path, loc: &Location) -> Result<Box<dyn Scan>, StoreError> {
    Err(refusal(dbdir, loc))
}

/// Refused: no PostgreSQL in this build (and the directory left as it was).
pub(crate) fn create(
    dbdir: &Path,
    loc: &Location,
    _timeout: Duration,
) -> Result<Box<dyn Store>, StoreError> {
    Err(refusal(dbdir, loc))
}

/// Refused: no PostgreSQL in this build.
pub(crate) fn lease(
    dbdir: &Path,
    loc: &Location,
) -> Result<Option<Box<dyn crate::open::Held>>, StoreError> {
    Err(refusal(dbdir, loc))
}

fn refusal(dbdir: &Path, loc: &Location) -> StoreError {
    without_postgres(&format!("the minter in {}", dbdir.display()), loc)
}
