//! `noid replay`: a binder's write log applied again (noid-binder's [`replay`]), its
//! problems printed as they happen.

use std::io::BufRead;

use noid_binder::{replay, ReplayProblem};

use crate::invocation::Invocation;

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
    let mut report = |problem: ReplayProblem| match problem {
        ReplayProblem::Record { line, error } => eprintln!("error: {log} line {line}: {error}"),
        ReplayProblem::Read(e) => eprintln!("error: {log}: {e}"),
        ReplayProblem::Commit(e) => eprintln!("error: {e}; the last batch was not written"),
    };
    let lines = std::io::BufReader::new(file).lines();
    let done = match replay::replay(&*writer, lines, &mut report) {
        Ok(done) => done,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    if !done.complete {
        return 1;
    }
    println!("replayed {} writes from {log}", done.applied);
    u8::from(done.failed > 0)
}
