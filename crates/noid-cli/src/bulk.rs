//! Running commands: one from the command line, or many from standard input (bulk
//! mode, `noid -`) or a web POST body.
//!
//! Consecutive write commands share one open store and one transaction, committed
//! (synced) and their output printed whenever no more input is already waiting, or
//! every [`BATCH_WRITES`] writes. A script that writes a command and waits for its
//! answer therefore gets it at once, while a piped file of a million `bind`s commits
//! in large batches. The lock is released whenever input runs dry.

use std::io::{BufRead, Read};

use noid_minter::{Minter, MinterError, Txn};
use noid_store::{Snapshot, StoreError, Writer};

use crate::commands::{self, Kind};
use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// Pending key writes after which a batch is committed even if more input waits.
const BATCH_WRITES: usize = 200_000;

/// Where commands come from.
pub trait Source {
    /// The next command's words; `Err` for a line that does not split into words.
    fn next_command(&mut self) -> Option<Result<Vec<String>, String>>;
    /// Whether another command is already available without waiting.
    fn more_buffered(&self) -> bool;
    /// Standard input for `bind … :`/`:-`, when it is not the command stream.
    fn stdin(&mut self) -> Option<&mut dyn Read>;
}

/// A single command from the command line.
pub struct OneCommand {
    /// The command, until taken.
    pub words: Option<Vec<String>>,
    /// The process's standard input.
    pub stdin: std::io::Stdin,
}

impl Source for OneCommand {
    fn next_command(&mut self) -> Option<Result<Vec<String>, String>> {
        self.words.take().map(Ok)
    }
    fn more_buffered(&self) -> bool {
        false
    }
    fn stdin(&mut self) -> Option<&mut dyn Read> {
        Some(&mut self.stdin)
    }
}

/// Commands, one per line, shell-word split.
pub struct Lines<R: BufRead> {
    /// The input.
    pub input: R,
    /// Whether `input` has buffered bytes (set by the caller's reader type).
    pub buffered: fn(&R) -> bool,
}

impl<R: BufRead> Source for Lines<R> {
    fn next_command(&mut self) -> Option<Result<Vec<String>, String>> {
        let mut line = Vec::new();
        match self.input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                let text = text.trim_end_matches(['\n', '\r']);
                Some(
                    shell_words::split(text)
                        .map_err(|e| format!("error: cannot split command line ({e}): {text}")),
                )
            }
        }
    }
    fn more_buffered(&self) -> bool {
        (self.buffered)(&self.input)
    }
    fn stdin(&mut self) -> Option<&mut dyn Read> {
        None
    }
}

/// Run the words of a command line or query string: a lone `-` reads one command per
/// line from standard input (bulk mode), anything else is one command. Exit status 1
/// when any command failed, or the status a minter's `atlast` setting asked for.
pub fn run_words(session: &Session, words: Vec<String>) -> u8 {
    let ok = if words.len() == 1 && words[0] == "-" {
        let stdin = std::io::stdin();
        let mut src = Lines {
            input: std::io::BufReader::with_capacity(1 << 16, stdin.lock()),
            buffered: |r| !r.buffer().is_empty(),
        };
        run(session, &mut src)
    } else {
        let mut src = OneCommand {
            words: Some(words),
            stdin: std::io::stdin(),
        };
        run(session, &mut src)
    };
    match (session.atlast_status.get(), ok) {
        (Some(status), _) => status,
        (None, true) => 0,
        (None, false) => 1,
    }
}

/// Run every command from `source`; returns whether all succeeded.
pub fn run(session: &Session, source: &mut dyn Source) -> bool {
    let mut ok = true;
    let mut carried: Option<Vec<String>> = None;
    loop {
        let words = match carried.take() {
            Some(w) => w,
            None => match source.next_command() {
                None => break,
                Some(Ok(w)) => w,
                Some(Err(msg)) => {
                    let mut out = Out::default();
                    out.fail(format!("{msg}\n"));
                    ok &= emit(session, &mut out);
                    continue;
                }
            },
        };
        let mut out = Out::default();
        match classify(session, &words, false, &mut out) {
            None => {}
            Some(Kind::Plain) => plain(&words, &mut out),
            Some(Kind::Create) => commands::dbcreate::run(session, &words[1..], &mut out),
            Some(Kind::Port) => commands::port::run(session, &words, &mut out),
            Some(Kind::Read) => match Snapshot::open(&session.dbdir) {
                Ok(snap) => {
                    if let Err(e) = read(&snap, &words, &mut out) {
                        out.fail(format!("{e}\n"));
                    }
                }
                Err(e) => store_error(session, e, &mut out),
            },
            Some(Kind::Write) => {
                let (batch_ok, next) = write_batch(session, source, words, out);
                ok &= batch_ok;
                carried = next;
                continue;
            }
        }
        ok &= emit(session, &mut out);
    }
    ok
}

/// Decide how to run `words`, printing Perl's complaint when they cannot run.
fn classify(session: &Session, words: &[String], db_open: bool, out: &mut Out) -> Option<Kind> {
    let Some(cmd) = words.first() else {
        usage(out, true, true, "intro");
        out.failed = true;
        return None;
    };
    let kind = commands::kind(cmd);
    let needs_db = !matches!(
        kind,
        Some(Kind::Plain) | Some(Kind::Create) | Some(Kind::Port)
    );
    if needs_db && !db_open && !noid_store::Layout::new(&session.dbdir).exists() {
        out.bprint_err(&format!(
            "error: no database ({}) -- use dbcreate?\n\n",
            session.dbname()
        ));
        usage(out, true, true, "intro");
        out.failed = true;
        return None;
    }
    let Some(kind) = kind else {
        out.out(format!(
            "error: no such command: {cmd} ({})\n",
            words[1..].join(" ")
        ));
        usage(out, true, true, "intro");
        out.failed = true;
        return None;
    };
    if session.web && kind == Kind::Create {
        out.out(format!(
            "error: command \"{cmd}\" not allowed in URL interface.\n"
        ));
        usage(out, true, true, "intro");
        out.failed = true;
        return None;
    }
    Some(kind)
}

fn plain(words: &[String], out: &mut Out) {
    match words[0].as_str() {
        "hello" => commands::simple::hello(out),
        "lui" => commands::lui::run(&words[1..], out),
        _ => commands::simple::help(out, &words[1..]),
    }
}

fn read(l: &dyn noid_resolve::Lookup, words: &[String], out: &mut Out) -> Result<(), MinterError> {
    let args = &words[1..];
    match words[0].as_str() {
        "fetch" => commands::read::fetch(l, true, args, out),
        "get" => commands::read::fetch(l, false, args, out),
        "dbinfo" => commands::read::dbinfo(l, args, out),
        _ => commands::read::validate(l, args, out),
    }
}

/// Open the store and run write commands (and any commands after them) until input
/// runs dry; returns success and a command that must run outside the batch.
fn write_batch(
    session: &Session,
    source: &mut dyn Source,
    first: Vec<String>,
    mut out: Out,
) -> (bool, Option<Vec<String>>) {
    let writer = match Writer::open(&session.dbdir, session.lock_timeout) {
        Ok(w) => w,
        Err(e) => {
            store_error(session, e, &mut out);
            return (emit(session, &mut out), None);
        }
    };
    let mut ok = true;
    let mut txn = Txn::new(&writer);
    let mut minter = match Minter::load(&txn) {
        Ok(m) => m,
        Err(e) => {
            out.fail(format!("{e}\n"));
            return (emit(session, &mut out), None);
        }
    };
    let mut words = first;
    let mut carried = None;
    loop {
        // `words` is empty when the line was already answered with a complaint.
        if !words.is_empty() {
            minter.flush(&mut txn);
            let sp = txn.savepoint();
            let result = match commands::kind(&words[0]) {
                Some(Kind::Write) => {
                    write(session, &mut txn, &mut minter, &words, source, &mut out)
                }
                Some(Kind::Read) => read(&txn, &words, &mut out),
                Some(Kind::Plain) => {
                    plain(&words, &mut out);
                    Ok(())
                }
                _ => Ok(()),
            };
            if let Err(e) = result {
                // Undo this command alone; earlier commands in the batch stand.
                txn.rollback_to(sp);
                // Most refusals (a bad id, an unbound element) touch nothing in memory;
                // reloading the minter for each of a million refused lines would dominate.
                if minter.is_dirty() {
                    match Minter::load(&txn) {
                        Ok(m) => minter = m,
                        Err(e) => out.fail(format!("{e}\n")),
                    }
                }
                if let MinterError::Store(_) = e {
                    out.fail(format!("{e}\n"));
                }
                out.failed = true;
            }
        }
        minter.flush(&mut txn);
        let more = source.more_buffered();
        if !more || txn.len() >= BATCH_WRITES {
            ok &= commit(session, &mut txn, &mut out);
            if !more {
                break;
            }
        }
        words = match source.next_command() {
            None => break,
            Some(Err(msg)) => {
                out.fail(format!("{msg}\n"));
                Vec::new()
            }
            Some(Ok(w)) => match classify(session, &w, true, &mut out) {
                None => Vec::new(),
                Some(Kind::Create) | Some(Kind::Port) => {
                    carried = Some(w);
                    break;
                }
                Some(_) => w,
            },
        };
    }
    minter.flush(&mut txn);
    ok &= commit(session, &mut txn, &mut out);
    (ok, carried)
}

fn write(
    session: &Session,
    txn: &mut Txn<'_, Writer>,
    minter: &mut Minter,
    words: &[String],
    source: &mut dyn Source,
    out: &mut Out,
) -> Result<(), MinterError> {
    let args = &words[1..];
    let mut batches = MintBatches { session };
    match words[0].as_str() {
        "mint" => commands::mint::run(session, txn, minter, false, args, out, &mut batches),
        "peppermint" => commands::mint::run(session, txn, minter, true, args, out, &mut batches),
        "bind" => commands::bind::run(session, txn, minter, args, source.stdin(), out),
        "hold" => commands::simple::hold(txn, minter, args, out),
        "queue" => commands::simple::queue(session, txn, minter, args, out),
        _ => commands::simple::note(txn, args, out),
    }
}

/// Commit the transaction's writes (synced), then print the output they produced.
/// On failure nothing of the batch is printed but the error. Returns false when the
/// commit or any command since the last print failed.
fn commit(session: &Session, txn: &mut Txn<'_, Writer>, out: &mut Out) -> bool {
    commit_writes(txn, out);
    emit(session, out)
}

/// Commit the transaction's writes as one synced batch; when that fails, replace the
/// output they produced by the error (see [`nothing_written`]) and return false.
fn commit_writes(txn: &mut Txn<'_, Writer>, out: &mut Out) -> bool {
    let ops = txn.take_writes().into_iter().map(noid_store::Op::from);
    match txn.base().commit(ops) {
        Ok(()) => true,
        Err(e) => {
            nothing_written(&e, out);
            false
        }
    }
}

/// A failed commit: none of the batch's output is shown, only why.
fn nothing_written(e: &StoreError, out: &mut Out) {
    out.stdout.clear();
    out.fail(format!("error: {e}; nothing was written\n"));
}

/// How `mint` makes its batches durable and prints them, within a bulk run: an earlier
/// command's failure stays recorded for the exit status and does not stop the mint.
struct MintBatches<'s> {
    session: &'s Session,
}

impl commands::mint::Batches for MintBatches<'_> {
    fn commit(&mut self, txn: &mut Txn<'_, Writer>, out: &mut Out) -> Result<(), MinterError> {
        if !commit_writes(txn, out) {
            return Err(MinterError::Store("commit failed".into()));
        }
        self.print(out)
    }

    fn failed_commit(&mut self, e: StoreError, out: &mut Out) -> MinterError {
        nothing_written(&e, out);
        MinterError::Store("commit failed".into())
    }

    fn print(&mut self, out: &mut Out) -> Result<(), MinterError> {
        let failed = out.failed;
        let printed = emit(self.session, out);
        out.failed = failed || !printed;
        if printed || failed {
            Ok(())
        } else {
            Err(MinterError::Store("cannot write output".into()))
        }
    }
}

/// Print `out`; returns false when a command failed.
fn emit(session: &Session, out: &mut Out) -> bool {
    let failed = out.failed;
    if let Err(e) = out.flush(session.web) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("noid: cannot write output: {e}");
        }
        return false;
    }
    out.failed = false;
    !failed
}

fn store_error(session: &Session, e: StoreError, out: &mut Out) {
    match e {
        StoreError::NoDatabase(_) => {
            out.bprint_err(&format!(
                "error: no database ({}) -- use dbcreate?\n\n",
                session.dbname()
            ));
            usage(out, true, true, "intro");
        }
        e => out.err(format!("error: {e}\n")),
    }
    out.failed = true;
}
