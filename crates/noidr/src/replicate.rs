//! `--follow`: keep the local copy of a minter held by PostgreSQL up to date
//! (noid-pg's `Replica`), while the rest of noidr answers from that copy as from any
//! embedded minter (noid-store's follower sees each applied batch).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use noid_pg::{Progress, Replica};

use crate::args::Follow;

/// Never set: the follow thread ends with the process.
static RUNNING_FOREVER: AtomicBool = AtomicBool::new(false);

/// Bring the copy in `dir` up to date once (making it at the first start), then keep
/// it so on a thread of its own. A copy that cannot be brought up to date now is
/// served as it is, and retried; no copy at all is an error.
pub fn start(follow: &Follow, dir: &Path) -> anyhow::Result<()> {
    let first = Replica::new(&follow.location, dir).and_then(|mut r| r.sync().map(|p| (r, p)));
    let replica = match first {
        Ok((r, p)) => {
            log::info!("{}: {}", dir.display(), describe(&p));
            Some(r)
        }
        Err(e) if noid_store::Layout::new(dir).exists() => {
            log::warn!("{}: answering from the copy as it is: {e}", dir.display());
            None
        }
        Err(e) => anyhow::bail!("cannot make the copy in {}: {e}", dir.display()),
    };
    let (follow, dir) = (follow.clone(), dir.to_path_buf());
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
                    r.follow(follow.poll, &RUNNING_FOREVER, |result| match result {
                        Ok(Progress::Current { .. }) => {}
                        Ok(p) => log::debug!("{}: {}", dir.display(), describe(p)),
                        Err(e) => log::warn!("{}: {e}", dir.display()),
                    })
                });
                if let Err(e) = outcome {
                    log::warn!("{}: following stopped, starting again: {e}", dir.display());
                }
                std::thread::sleep(follow.poll);
            }
        })?;
    Ok(())
}

fn describe(p: &Progress) -> String {
    match p {
        Progress::Bootstrapped { seq } => format!("copied as of change {seq}"),
        Progress::Remade { seq } => format!("copied anew as of change {seq}"),
        Progress::Applied { from, to } => format!("applied changes {from} to {to}"),
        Progress::Current { seq } => format!("current at change {seq}"),
    }
}
