//! Reads through a snapshot, never through the writer thread: the console's current
//! values, its listings, and the API's read-only egg lines. A read opens the directory read-only (noid-store's
//! `open::reader`: a RocksDB secondary, as `noid fetch` and the resolver read), so it
//! neither takes the store's lock nor waits behind the writes queued for the
//! directory (a bulk run may hold its thread for minutes); it sees every write
//! committed before it opened.

use std::io::Cursor;
use std::path::Path;

use noid_egg::{Agent, BinderError, Command, Reply, Session};
use noid_minter::gate::Admission;
use noid_minter::{Minter, Txn};

use crate::writer::{now, Who, WorkResult};

/// Run the read-only `commands` on the store in `dir` as `who`, with the directory's
/// `admission` (which spellings of an identifier it also looks under, as the writer
/// thread reads): their replies, in order. A command that would write is refused (its
/// reply an error), so nothing read here can change the store.
pub fn read(
    dir: &Path,
    admission: &Admission,
    who: &Who,
    commands: &[Command],
) -> Result<Vec<Reply>, String> {
    let store = noid_store::open::reader(dir).map_err(|e| e.to_string())?;
    let mut minter = Minter::load(&*store).map_err(|e| e.to_string())?;
    minter.gate = minter.gate.clone().admitting(admission);
    let mut txn = Txn::new(&*store);
    let mut session = Session::new(true);
    session.read_only = true;
    session.binder = who.populator.clone();
    let agent = Agent {
        who: who.login.clone(),
        now: now(),
    };
    Ok(commands
        .iter()
        .map(|cmd| session.command(&mut txn, &mut minter, &agent, cmd).reply)
        .collect())
}

/// An egg line that only reads (an API `GET ?ID.fetch`), run through a snapshot: its
/// answer, as the writer thread would give it. `None` when the line would write or
/// does not parse, or the snapshot cannot be opened: the writer thread answers those,
/// as it answers every write (and reports a store it cannot open).
pub fn read_line(
    dir: &Path,
    admission: &Admission,
    who: &Who,
    read_only: bool,
    line: &str,
    body: &[u8],
) -> Option<WorkResult> {
    let session = || {
        let mut s = Session::new(true);
        s.read_only = read_only;
        s.binder = who.populator.clone();
        s
    };
    let parsed = session().parse(line, &mut Cursor::new(body));
    if !parsed.command.is_ok_and(|c| !c.writes()) {
        return None;
    }
    let store = noid_store::open::reader(dir).ok()?;
    let mut minter = Minter::load(&*store).ok()?;
    minter.gate = minter.gate.clone().admitting(admission);
    let mut txn = Txn::new(&*store);
    let agent = Agent {
        who: who.login.clone(),
        now: now(),
    };
    let o = session().run(
        &mut txn,
        &mut minter,
        &agent,
        line,
        None,
        &mut Cursor::new(body),
    );
    Some(WorkResult {
        body: o.output,
        failed: o.error.is_some(),
        refusal: o.error.filter(BinderError::has_own_status),
        ..WorkResult::default()
    })
}
