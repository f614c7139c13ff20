//! `--follow`: keep the local copy of a minter held by PostgreSQL up to date
//! (noid-store's `pg` `Replica`), while the rest of noidr answers from that copy as from any
//! embedded minter (noid-store's follower sees each applied batch). Where the copy
//! stands (`Position`) is shown in `/metrics` and the SIGUSR1 line. Built with the
//! `postgres` feature; without it `no_postgres.rs` takes this module's place.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use noid_store::pg::{Progress, Replica};
use noid_store::StoreError;

use crate::args::Follow;
use crate::position::Position;

/// Never set: the follow thread ends with the process.
static RUNNING_FOREVER: AtomicBool = AtomicBool::new(false);

/// Bring the copy in `dir` up to date once (making it at the first start), then keep
/// it so on a thread of its own. A copy that cannot be brought up to date now is
/// served as it is, and retried; no copy at all is an error.
pub fn start(follow: &Follow, dir: &Path) -> anyhow::Result<Arc<Position>> {
    let position = Arc::new(Position::new());
    let first = Replica::new(&follow.location, dir).and_then(|mut r| r.sync().map(|p| (r, p)));
    let replica = match first {
        Ok((r, p)) => {
            log::info!("{}: {}", dir.display(), describe(&p));
            record(&position, &p, r.head_seen());
            Some(r)
        }
        Err(e) if noid_store::Layout::new(dir).exists() => {
            log::warn!("{}: answering from the copy as it is: {e}", dir.display());
            None
        }
        Err(e) => anyhow::bail!("cannot make the copy in {}: {e}", dir.display()),
    };
    let (follow, dir, seen) = (follow.clone(), dir.to_path_buf(), position.clone());
    std::thread::Builder::new()
        .name("follow".into())
        .spawn(move || {
            let mut replica = replica;
            loop {
                let r = match replica.take() {
                    Some(r) => Ok(r),
                    None => Replica::new(&follow.location, &dir),
                };
                let outcome = r.and_then(|mut r| {
                    r.set_verify_interval(follow.verify.is_some(), follow.verify);
                    r.follow(follow.poll, &RUNNING_FOREVER, |result, head| {
                        report(&dir, &seen, result, head)
                    })
                });
                if let Err(e) = outcome {
                    log::warn!("{}: following stopped, starting again: {e}", dir.display());
                }
                std::thread::sleep(follow.poll);
            }
        })?;
    Ok(position)
}

/// Log a sync's outcome (a copy made anew at warning level: an operator wants to know
/// why) and keep the position.
fn report(dir: &Path, seen: &Position, result: &Result<Progress, StoreError>, head: Option<i64>) {
    match result {
        Ok(p) => {
            record(seen, p, head);
            match p {
                Progress::Current { .. } => {}
                Progress::Remade { .. } => log::warn!("{}: {}", dir.display(), describe(p)),
                _ => log::debug!("{}: {}", dir.display(), describe(p)),
            }
        }
        Err(e) => log::warn!("{}: {e}", dir.display()),
    }
}

/// Take in one sync's or verification's outcome, with the head it read.
fn record(position: &Position, progress: &Progress, head: Option<i64>) {
    let applied = match *progress {
        Progress::Bootstrapped { seq } | Progress::Current { seq } | Progress::Verified { seq } => {
            seq
        }
        Progress::Applied { to, .. } => to,
        Progress::Remade { seq } => {
            position.count_remade();
            seq
        }
    };
    if matches!(progress, Progress::Verified { .. }) {
        position.count_verified();
    }
    position.stand_at(applied, head);
}

fn describe(p: &Progress) -> String {
    match p {
        Progress::Bootstrapped { seq } => format!("copied as of change {seq}"),
        Progress::Remade { seq } => format!("copied anew as of change {seq}"),
        Progress::Applied { from, to } => format!("applied changes {from} to {to}"),
        Progress::Current { seq } => format!("current at change {seq}"),
        Progress::Verified { seq } => format!("checksum equal to the minter's at change {seq}"),
    }
}
