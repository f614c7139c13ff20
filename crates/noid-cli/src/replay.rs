//! `noid replay`: re-applying a binder's write log through the egg language, as its
//! agents at their times, in write batches.

use std::io::BufRead;

use noid_egg::writelog::Record;
use noid_egg::Session;
use noid_minter::batch::{self, Batch, Feed, Step};
use noid_store::{Store, StoreError};

use crate::invocation::Invocation;

/// Writes applied per commit while replaying.
const REPLAY_BATCH: usize = 100_000;

/// `noid -f DIR replay LOG`: apply a write log's commands, as their agents at their
/// times, to the binder in DIR.
pub fn replay(session: &Invocation, args: &[String]) -> u8 {
    let [log] = args else {
        eprintln!("usage: noid -f Dbdir replay LOG");
        return 2;
    };
    let file = match std::fs::File::open(log) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {log}: {e}");
            return 1;
        }
    };
    let writer = match crate::store::open_writer(session) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let mut batch = match Batch::open(&*writer) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut feed = Replay {
        log,
        lines: std::io::BufReader::new(file).lines().enumerate(),
        egg: Session::new(false),
        applied: 0,
        failed: 0,
        ok: true,
    };
    batch::run(&mut batch, &mut feed);
    if !feed.ok {
        return 1;
    }
    println!("replayed {} writes from {log}", feed.applied);
    u8::from(feed.failed > 0)
}

/// A write log's records as a write batch's feed; errors go to stderr as they happen.
struct Replay<'a, L> {
    log: &'a str,
    lines: std::iter::Enumerate<L>,
    egg: Session<'static>,
    applied: usize,
    failed: usize,
    /// The log was read and every batch written.
    ok: bool,
}

impl<L: Iterator<Item = std::io::Result<String>>> Feed<dyn Store> for Replay<'_, L> {
    fn run_next(&mut self, batch: &mut Batch<'_, dyn Store>) -> Step {
        let log = self.log;
        let (n, line) = loop {
            match self.lines.next() {
                None => return Step::End,
                Some((n, Ok(line))) if !line.is_empty() => break (n, line),
                Some((_, Ok(_))) => {}
                Some((_, Err(e))) => {
                    eprintln!("error: {log}: {e}");
                    self.ok = false;
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
            Ok(()) => self.applied += 1,
            Err(e) => {
                self.failed += 1;
                eprintln!("error: {log} line {}: {e}", n + 1);
            }
        }
        Step::Ran
    }

    fn commit_due(&mut self, pending: usize) -> bool {
        pending >= REPLAY_BATCH
    }

    fn committed(&mut self, _: &dyn Store, outcome: Result<(), StoreError>, _: bool) -> bool {
        if let Err(e) = outcome {
            eprintln!("error: {e}; the last batch was not written");
            self.ok = false;
        }
        self.ok
    }
}
