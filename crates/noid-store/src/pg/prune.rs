//! Pruning the change log (`noid prune-log`, docs/SCALING.md, "Pruning the change
//! log"): its rows are needed only by followers that have not applied them yet, and a
//! follower whose position was pruned copies the minter anew, so old rows may go. By
//! default the rows a follower still needs stay: each follower records the change it
//! is at in `noid_followers` ([`crate::pg::Replica`]).

use std::time::Duration;

use crate::StoreError;

use crate::pg::conn::{connect, failed, minter_id, Rows};
use crate::pg::location::Location;
use crate::pg::schema;

/// Which changes to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Keep the last N commits (0: drop the whole log).
    Last(i64),
    /// Drop every commit numbered below this one.
    From(i64),
}

/// Whether followers' recorded positions hold pruning back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Followers {
    /// Keep every change a follower seen within `forget_after` has not applied yet.
    /// A follower not heard of for longer (a web node taken away) no longer counts.
    Respect {
        /// How long a follower's record counts after its last report.
        forget_after: Duration,
    },
    /// Drop what [`Keep`] says, whatever followers still need (they copy anew).
    Ignore,
}

/// What [`prune`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// Commits deleted from the log (a row each).
    pub commits: u64,
    /// The first commit still in the log after pruning (one past the head when the log
    /// is empty).
    pub first_kept: i64,
    /// The change-log head.
    pub head: i64,
    /// The follower (name, applied change) that kept rows [`Keep`] would have dropped.
    pub held_for: Option<(String, i64)>,
}

/// Delete the change-log rows (a commit each) of the minter at `loc` that `keep` lets
/// go and, unless `followers` says to ignore them, that no follower still needs, in one
/// transaction. Writers are not held up: they only add rows past the head.
pub fn prune(loc: &Location, keep: Keep, followers: Followers) -> Result<Pruned, StoreError> {
    let mut client = connect(loc)?;
    let minter = minter_id(&mut client, loc, Rows::Write)?;
    let err = |what: &'static str| move |e: postgres::Error| failed(loc, what, &e);
    // A database made before followers recorded their positions gets the table now.
    schema::create(&mut client).map_err(err("cannot create the tables"))?;
    let mut t = client.transaction().map_err(err("cannot begin"))?;
    let head: i64 = t
        .query_one("SELECT log_seq FROM noid_minters WHERE id = $1", &[&minter])
        .map_err(err("cannot read the change log's head"))?
        .get(0);
    let mut below = match keep {
        Keep::Last(n) => head.saturating_sub(n) + 1,
        Keep::From(seq) => seq.min(head + 1),
    };
    let mut held_for = None;
    if let Followers::Respect { forget_after } = followers {
        let slowest = t
            .query_opt(
                "SELECT name, applied FROM noid_followers WHERE minter = $1 \
                 AND seen > now() - make_interval(secs => $2) ORDER BY applied, name LIMIT 1",
                &[&minter, &forget_after.as_secs_f64()],
            )
            .map_err(err("cannot read the followers' positions"))?;
        if let Some(row) = slowest {
            let (name, applied): (String, i64) = (row.get(0), row.get(1));
            if applied + 1 < below {
                below = applied + 1;
                held_for = Some((name, applied));
            }
        }
    }
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
        held_for,
    })
}
