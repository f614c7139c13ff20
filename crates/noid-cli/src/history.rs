//! `noid -f Dbdir history ID` and `noid -f Dbdir rewrite …`: an identifier's logged
//! writes, and changing many identifiers at once with a preview and an undo
//! (noid-binder's `history` and `rewrite`; docs/HISTORY.md). Like `replay`, modes of
//! the process: they never come from bulk lines or the web.
//!
//! Both read the binder's write log, `Dbdir/write.log` unless `--log` names another
//! (the `log` of `noid serve`'s configuration); `rewrite` appends its records there.

use std::io::Write;
use std::path::PathBuf;

use crate::mode::parse_args;
use clap::{ArgGroup, Parser, ValueEnum};
use noid_binder::history::{self, Format};
use noid_binder::rewrite::{self, Operation, Rewrite, BATCH};
use noid_binder::Who;

use crate::invocation::Invocation;

/// noid history: every logged write to an identifier, oldest first: when, who, which
/// element, the old value and the new.
///
/// The identifier may be given in any spelling (ark:13030/x, 13030/x,
/// https://n2t.net/ark:/13030/x). The write log is read with its rotated copies
/// (write.log.1, write.log.2, …). It holds the writes of noid serve (API, console,
/// upload) and of noid rewrite; a noid bind run from the command line is not logged.
/// Records written before old values were logged show them as "(not recorded)".
#[derive(Parser, Debug)]
#[command(name = "noid history")]
struct HistoryArgs {
    /// The identifier.
    id: String,
    /// How to print the changes.
    #[arg(long, value_enum, default_value_t = HistoryFormat::Table)]
    format: HistoryFormat,
    /// The binder's write log [default: Dbdir/write.log].
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
enum HistoryFormat {
    /// One line per change.
    Table,
    /// A JSON array of objects.
    Json,
    /// CSV with a header row.
    Csv,
}

/// noid rewrite: change the targets (or any element) that start with one prefix to
/// start with another, for every identifier or those under a prefix; or undo such a
/// change.
///
/// --dry-run prints how many identifiers would change and a sample, old -> new, and
/// changes nothing. Otherwise the change runs in batches (one synced commit each),
/// recorded in the write log as one operation whose id is printed first, as
/// "op: OPID". "noid rewrite --undo OPID" puts back the old values of that operation,
/// except where a value was changed again since (those are listed, and the exit status
/// is 1); an undo is an operation too, and can be undone. For the targets (_t), each
/// line of a value is rewritten, after its redirect code if it has one; a result that
/// is not a valid target is refused.
#[derive(Parser, Debug)]
#[command(
    name = "noid rewrite",
    group(ArgGroup::new("what").required(true).args(["from", "undo"]))
)]
struct RewriteArgs {
    /// The prefix to replace (https://old.example.org/).
    #[arg(long, value_name = "PREFIX", requires = "to")]
    from: Option<String>,
    /// What replaces it (https://new.example.org/).
    #[arg(long, value_name = "PREFIX", requires = "from")]
    to: Option<String>,
    /// The element to change.
    #[arg(long, value_name = "NAME", default_value = rewrite::TARGET)]
    element: String,
    /// Only the identifiers starting with PREFIX, as stored (ark:/13030/f5);
    /// repeatable.
    #[arg(long, value_name = "PREFIX")]
    under: Vec<String>,
    /// Only the identifiers matching QUERY, in the search language (noid search,
    /// docs/SEARCH.md): `host:old.example.org`, `under:ark:/13030/f5 -status:ok`.
    #[arg(long, value_name = "QUERY", conflicts_with = "under")]
    query: Option<String>,
    /// Print how many would change and a sample; change nothing.
    #[arg(long, conflicts_with = "undo")]
    dry_run: bool,
    /// How many changes the preview shows.
    #[arg(long, value_name = "N", default_value_t = 20)]
    sample: usize,
    /// Put back what operation OPID changed.
    #[arg(long, value_name = "OPID", conflicts_with_all = ["from", "to", "under", "query"])]
    undo: Option<String>,
    /// Identifiers changed per commit.
    #[arg(long, value_name = "N", default_value_t = BATCH, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    batch: usize,
    /// The binder's write log [default: Dbdir/write.log].
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

/// The commands' definitions, named as subcommands of noid's, for noid(1) and the
/// shell completions.
#[cfg(test)]
pub fn commands() -> [clap::Command; 2] {
    [
        <HistoryArgs as clap::CommandFactory>::command().name("history"),
        <RewriteArgs as clap::CommandFactory>::command().name("rewrite"),
    ]
}

/// The write log: `--log`, or the binder's own.
fn log_of(session: &Invocation, log: Option<PathBuf>) -> PathBuf {
    log.unwrap_or_else(|| session.dbdir.join("write.log"))
}

/// `noid history ID`.
pub fn history(session: &Invocation, args: &[String]) -> u8 {
    let a: HistoryArgs = match parse_args("noid history", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let log = log_of(session, a.log);
    let changes = match history::history(&history::log_files(&log), &a.id) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let format = match a.format {
        HistoryFormat::Table => Format::Table,
        HistoryFormat::Json => Format::Json,
        HistoryFormat::Csv => Format::Csv,
    };
    if changes.is_empty() && matches!(format, Format::Table) {
        eprintln!("no logged writes to {} in {}", a.id, log.display());
    }
    print!("{}", history::render(&changes, format));
    0
}

/// A value on one line.
fn one_line(s: &str) -> String {
    s.replace('\n', "\\n")
}

/// `noid rewrite …`.
pub fn rewrite(session: &Invocation, args: &[String]) -> u8 {
    let a: RewriteArgs = match parse_args("noid rewrite", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let log = log_of(session, a.log.clone());
    match run(session, a, log) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn run(session: &Invocation, a: RewriteArgs, log: PathBuf) -> Result<u8, String> {
    let who = Who {
        populator: String::new(),
        login: session.contact.clone(),
        client: "noid".into(),
        acting_for: None,
    };
    let op = rewrite::op_id();
    let operation = Operation {
        who: &who,
        log: &log,
        batch: a.batch,
        op: &op,
    };
    if let Some(undone) = &a.undo {
        let undoing = rewrite::undoing(&history::log_files(&log), undone)?;
        let store = crate::store::open_writer(session).map_err(|e| e.to_string())?;
        println!("op: {op}");
        let _ = std::io::stdout().flush();
        let done = rewrite::undo(&*store, undoing, &operation)?;
        return Ok(report("restored", &done));
    }
    let (from, to) = (a.from.unwrap_or_default(), a.to.unwrap_or_default());
    let rw = Rewrite::new(&a.element, &from, &to)?;
    let selection = rewrite::select(&session.dbdir, a.under, a.query.as_deref())?;
    if a.dry_run {
        let store = crate::store::open_reader(session).map_err(|e| e.to_string())?;
        let p = rewrite::preview(&*store, &selection, &rw, a.sample)?;
        println!("would change: {} identifiers", p.count);
        for s in &p.sample {
            println!("{}\t{}\t->\t{}", s.id, one_line(&s.old), one_line(&s.new));
        }
        for (id, why) in &p.skipped {
            println!("would skip: {id}: {why}");
        }
        return Ok(0);
    }
    let store = crate::store::open_writer(session).map_err(|e| e.to_string())?;
    println!("op: {op}");
    let _ = std::io::stdout().flush();
    let done = rewrite::apply(&*store, &selection, &rw, &operation)?;
    Ok(report("changed", &done))
}

/// An operation's outcome printed: what it did (stdout), what it refused and why it
/// stopped (stderr); 1 when anything was refused or it stopped.
fn report(done_word: &str, done: &rewrite::Applied) -> u8 {
    println!("{done_word}: {} identifiers", done.changed);
    for (id, why) in &done.refused {
        eprintln!("refused: {id}: {why}");
    }
    if let Some(why) = &done.stopped {
        eprintln!("error: {why}");
    }
    u8::from(!done.refused.is_empty() || done.stopped.is_some())
}
