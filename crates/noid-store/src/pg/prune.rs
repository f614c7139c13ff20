//! Pruning the change log (`noid prune-log`, docs/SCALING.md, "Pruning the change
//! log"): its rows are needed only by followers that have not applied them yet, and a
//! follower whose position was pruned copies the minter anew, so old rows may go.

use crate::StoreError;

use crate::pg::conn::{connect, failed, minter_id};
use crate::pg::location::Location;

/// Which changes to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Keep the last N commits (0: drop the whole log).
    Last(i64),
    /// Drop every commit numbered below this one.
    From(i64),
}

/// What [`prune`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// Commits deleted from the log (a row each).
    pub commits: u64,
    /// The first commit still in the log after pruning (one past the head when the log
    /// is empty).
    pub first_kept: i64,
    /// The change-log head.
    pub head: i64,
}

/// Delete the change-log rows (a commit each) of the minter at `loc` that `keep` lets go, in one
/// transaction. Writers are not held up: they only add rows past the head.
pub fn prune(loc: &Location, keep: Keep) -> Result<Pruned, StoreError> {
    let mut client = connect(loc)?;
    let minter = minter_id(&mut client, loc)?;
    let err = |what: &'static str| move |e: postgres::Error| failed(loc, what, &e);
    let mut t = client.transaction().map_err(err("cannot begin"))?;
    let head: i64 = t
        .query_one("SELECT log_seq FROM noid_minters WHERE id = $1", &[&minter])
        .map_err(err("cannot read the change log's head"))?
        .get(0);
    let below = match keep {
        Keep::Last(n) => head.saturating_sub(n) + 1,
        Keep::From(seq) => seq.min(head + 1),
    };
    let commits = t
        .execute(
            "DELETE FROM noid_log WHERE minter = $1 AND seq < $2",
            &[&minter, &below],
        )
        .map_err(err("cannot prune the change log"))?;
    let first_kept: Option<i64> = t
        .query_one(
            "SELECT min(seq) FROM noid_log WHERE minter = $1",
            &[&minter],
        )
        .map_err(err("cannot read the change log"))?
        .get(0);
    t.commit().map_err(err("cannot commit"))?;
    Ok(Pruned {
        commits,
        first_kept: first_kept.unwrap_or(head + 1),
        head,
    })
}
