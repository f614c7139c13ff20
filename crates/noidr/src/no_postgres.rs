//! `--follow` in a noidr built without the cargo feature `postgres`: refused, with the
//! refusal noid-store gives a minter held by PostgreSQL in such a build.

use std::path::Path;
use std::sync::Arc;

use crate::args::Follow;
use crate::position::Position;

/// Refused: this noidr cannot read PostgreSQL.
pub fn start(follow: &Follow, _dir: &Path) -> anyhow::Result<Arc<Position>> {
    let what = format!("--follow: the minter {}", follow.location.minter);
    Err(noid_store::pg::without_postgres(&what, &follow.location).into())
}
