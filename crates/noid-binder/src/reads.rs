//! Reads through a read-only view of the store instead of the writer thread: the
//! console's current values, its listings, and the API's read-only egg lines. A view
//! neither takes the store's lock nor waits behind the writes queued for the directory
//! (a bulk run may hold its thread for minutes). `noid serve` reads through a follower
//! per directory, as the resolver does (noid-store's `Follower`: caught up only when a
//! writer committed), brought up to date with every write acknowledged before the read
//! (`Site::reading`), or, when a writer keeps the store busy, through a snapshot opened
//! between writers ([`snapshot_between_writers`]), as the CGI reads; a minter held by
//! PostgreSQL through a read-only transaction ([`snapshot`]).

use std::io::Cursor;
use std::path::Path;

use noid_core::Lookup;
use noid_egg::{Agent, BinderError, Command, Reply, Session};
use noid_minter::gate::Admission;
use noid_minter::{Minter, Txn};

use crate::writer::{now, Who, WorkResult};

/// `f` on a snapshot of the store in `dir` (noid-store's `open::reader`: a RocksDB
/// secondary, or a PostgreSQL read-only transaction), opened for this read alone.
pub fn snapshot<T>(dir: &Path, f: impl FnOnce(&dyn Lookup) -> T) -> Result<T, String> {
    let store = noid_store::open::reader(dir).map_err(|e| e.to_string())?;
    Ok(f(&*store))
}

/// [`snapshot`], opened between writers (waiting up to `wait` for one at work), so
/// that it shows every write acknowledged before it (noid-store's
/// `open::reader_between_writers`): `noid serve`'s reads when its follower cannot catch
/// up at once, and the CGI's.
pub fn snapshot_between_writers<T>(
    dir: &Path,
    wait: std::time::Duration,
    f: impl FnOnce(&dyn Lookup) -> T,
) -> Result<T, String> {
    let store = noid_store::open::reader_between_writers(dir, wait).map_err(|e| e.to_string())?;
    Ok(f(&*store))
}

/// The egg session a read runs in: as the writer thread's for `who`.
fn session(who: &Who, read_only: bool) -> Session<'static> {
    let mut s = Session::new(true);
    s.read_only = read_only;
    s.binder = who.populator.clone();
    s
}

/// The minter state of `store`, with the directory's `admission` (which spellings of
/// an identifier a read also looks under, as the writer thread reads).
fn minter(store: &dyn Lookup, admission: &Admission) -> Result<Minter, String> {
    let mut minter = Minter::load(store).map_err(|e| e.to_string())?;
    minter.gate = minter.gate.clone().admitting(admission);
    Ok(minter)
}

/// Run the read-only `commands` on `store` as `who`: their replies, in order. A command
/// that would write is refused (its reply an error), so nothing read here can change
/// the store.
pub fn read(
    store: &dyn Lookup,
    admission: &Admission,
    who: &Who,
    commands: &[Command],
) -> Result<Vec<Reply>, String> {
    let mut minter = minter(store, admission)?;
    let mut txn = Txn::new(store);
    let mut session = session(who, true);
    let agent = Agent {
        who: who.login.clone(),
        now: now(),
    };
    Ok(commands
        .iter()
        .map(|cmd| session.command(&mut txn, &mut minter, &agent, cmd).reply)
        .collect())
}

/// Whether the egg line (with its request `body`) only reads: such a line may be
/// answered by [`read_line`].
pub fn only_reads(who: &Who, line: &str, body: &[u8]) -> bool {
    let parsed = session(who, true).parse(line, &mut Cursor::new(body));
    parsed.command.is_ok_and(|c| !c.writes())
}

/// An egg line that only reads (an API `GET ?ID.fetch`, see [`only_reads`]) run on
/// `store`: its answer, as the writer thread would give it; `None` when the minter's
/// state cannot be read (the writer thread then answers, and reports it).
pub fn read_line(
    store: &dyn Lookup,
    admission: &Admission,
    who: &Who,
    read_only: bool,
    line: &str,
    body: &[u8],
) -> Option<WorkResult> {
    let mut minter = minter(store, admission).ok()?;
    let mut txn = Txn::new(store);
    let agent = Agent {
        who: who.login.clone(),
        now: now(),
    };
    let o = session(who, read_only).run(
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
