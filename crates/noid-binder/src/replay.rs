//! Replaying a binder's write log ([`replay`]): each record's command run again through
//! the egg language, as its agent at its time, in write batches of noid-minter's
//! engine; what `noid replay` does, with the output left to its caller.

use crate::write_log::Record;
use noid_egg::Session;
use noid_minter::batch::{self, Batch, Feed, Step};
use noid_store::{Store, StoreError};

/// Writes applied per commit while replaying.
const REPLAY_BATCH: usize = 100_000;

/// What went wrong during a replay, told as it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayProblem {
    /// Record `line` (counted from 1) was not applied; the replay goes on.
    Record {
        /// Its line in the log.
        line: usize,
        /// Why: a record that does not parse, or the command's error.
        error: String,
    },
    /// The log could not be read further; the replay stops.
    Read(String),
    /// A batch's commit failed; the replay stops and that batch was not written.
    Commit(String),
}

/// What a replay did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    /// Records applied.
    pub applied: usize,
    /// Records not applied ([`ReplayProblem::Record`]).
    pub failed: usize,
    /// The log was read to its end and every batch written.
    pub complete: bool,
}

/// Apply the write log's `lines` (empty ones skipped) to `store`, as their agents at
/// their times, committing every [`REPLAY_BATCH`] writes; each problem goes to
/// `report` as it happens. `Err`: the store's minter state could not be read.
pub fn replay<L>(
    store: &(dyn Store + 'static),
    lines: L,
    report: &mut dyn FnMut(ReplayProblem),
) -> Result<Replayed, String>
where
    L: Iterator<Item = std::io::Result<String>>,
{
    let mut batch = Batch::open(store).map_err(|e| e.to_string())?;
    let mut feed = Replay {
        lines: lines.enumerate(),
        egg: Session::new(false),
        report,
        done: Replayed {
            applied: 0,
            failed: 0,
            complete: true,
        },
    };
    batch::run(&mut batch, &mut feed);
    Ok(feed.done)
}

/// A write log's records as a write batch's feed.
struct Replay<'r, L> {
    lines: std::iter::Enumerate<L>,
    egg: Session<'static>,
    report: &'r mut dyn FnMut(ReplayProblem),
    done: Replayed,
}

impl<L: Iterator<Item = std::io::Result<String>>> Feed<dyn Store> for Replay<'_, L> {
    fn run_next(&mut self, batch: &mut Batch<'_, dyn Store>) -> Step {
        let (n, line) = loop {
            match self.lines.next() {
                None => return Step::End,
                Some((n, Ok(line))) if !line.is_empty() => break (n, line),
                Some((_, Ok(_))) => {}
                Some((_, Err(e))) => {
                    (self.report)(ReplayProblem::Read(e.to_string()));
                    self.done.complete = false;
                    return Step::Abort;
                }
            }
        };
        let outcome = Record::parse(&line)
            .map_err(|e| e.to_string())
            .and_then(|r| {
                let (txn, minter) = batch.parts().map_err(|e| e.to_string())?;
                let agent = r.replay_agent();
                let o = self
                    .egg
                    .run(txn, minter, &agent, &r.command, None, &mut std::io::empty());
                o.error.map_or(Ok(()), |e| Err(e.to_string()))
            });
        match outcome {
            Ok(()) => self.done.applied += 1,
            Err(error) => {
                self.done.failed += 1;
                (self.report)(ReplayProblem::Record { line: n + 1, error });
            }
        }
        Step::Ran
    }

    fn commit_due(&mut self, pending: usize) -> bool {
        pending >= REPLAY_BATCH
    }

    fn committed(&mut self, _: &dyn Store, outcome: Result<(), StoreError>, _: bool) -> bool {
        if let Err(e) = outcome {
            (self.report)(ReplayProblem::Commit(e.to_string()));
            self.done.complete = false;
        }
        self.done.complete
    }
}
