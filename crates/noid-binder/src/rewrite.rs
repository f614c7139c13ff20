//! Change many identifiers at once, with a preview and an undo: every target (`_t`
//! line) or value of one element that starts with one prefix is given another
//! ([`Rewrite`]), over a [`Selection`] of identifiers; [`preview`] says how many would
//! change and shows a sample, [`apply`] changes them as one operation with an id, and
//! [`undo`] puts back what an operation changed.
//!
//! An operation runs through noid-minter's one batch engine (`batch::run`): each
//! identifier's value is read again in the batch's transaction, changed by an egg
//! `set` (so it passes the gate, and its old value is captured in that transaction),
//! and every `batch` identifiers are one synced commit. Its write log records, each
//! carrying the operation's id, are appended (synced) *before* the commit that makes
//! them true: a process killed at any point leaves each identifier old or new (a
//! commit is atomic), and every identifier it changed has its record, so the undo finds
//! it. A record whose commit never happened names a value the identifier does not
//! hold; the undo sees its old value still there and leaves it. (A `noid replay` of
//! such a log would apply that last batch: the log holds what the operation meant to
//! do.)
//!
//! The undo reads the operation's records (rotated logs too) and, per identifier,
//! puts the old value back if the identifier still holds the value the operation
//! wrote; one changed again since is refused, and listed. An undo is an operation of
//! its own, with its own id: undoing it changes the identifiers back again.

use std::io::Write;
use std::path::{Path, PathBuf};

use noid_core::Lookup;
use noid_egg::{elements, Agent, Command, Op, Session};
use noid_minter::batch::{self, Batch, Feed, Step};
use noid_minter::gate::{runs_code, target_problem, Targets};
use noid_store::{Store, StoreError};

use crate::write_log::Record;
use crate::writer::Who;

/// Identifiers changed per commit unless told otherwise.
pub const BATCH: usize = 1000;

/// Which identifiers an operation looks at. A query's matches (the search index's)
/// come in as [`Selection::Ids`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Every identifier with bindings.
    Every,
    /// The identifiers (with bindings) that start with one of these prefixes, as
    /// stored.
    Under(Vec<String>),
    /// These identifiers, as stored (those with no value of the element are left).
    Ids(Vec<String>),
}

/// The identifiers a rewrite of binder `dir` selects: those matching `query` in the
/// search language (its search index, noid-search: the same matches as `noid search`),
/// else those starting with one of `under`, else every one. A query and prefixes are
/// not given together: a query says its prefixes as `under:PREFIX`.
pub fn select(
    dir: &std::path::Path,
    under: Vec<String>,
    query: Option<&str>,
) -> Result<Selection, String> {
    let Some(text) = query.filter(|q| !q.trim().is_empty()) else {
        return Ok(match under.is_empty() {
            true => Selection::Every,
            false => Selection::Under(under),
        });
    };
    if !under.is_empty() {
        return Err(
            "give either a query or prefixes, not both (a query says its prefixes as under:PREFIX)"
                .into(),
        );
    }
    matching(dir, text).map(Selection::Ids)
}

/// The identifiers matching `text` in binder `dir`'s search index.
#[cfg(feature = "search")]
fn matching(dir: &std::path::Path, text: &str) -> Result<Vec<String>, String> {
    let query: noid_search::Query = text
        .parse()
        .map_err(|e| format!("the query cannot be read: {e}"))?;
    noid_search::current(dir)
        .and_then(|i| i.matching_ids(&query))
        .map_err(|e| format!("the search failed: {e}"))
}

/// Without the search index, a query cannot select.
#[cfg(not(feature = "search"))]
fn matching(_dir: &std::path::Path, _text: &str) -> Result<Vec<String>, String> {
    Err(
        "this noid was built without the search index (cargo feature search): select with prefixes"
            .into(),
    )
}

impl Selection {
    /// The identifiers selected in `store`, in key order (for [`Selection::Ids`], as
    /// given, without repeats).
    pub fn candidates<L: Lookup + ?Sized>(&self, store: &L) -> Result<Vec<String>, String> {
        let listed = |prefixes: &[String]| {
            elements::list(store, prefixes, None, None, elements::Counted::default())
                .map(|l| l.ids)
                .map_err(|e| e.to_string())
        };
        match self {
            Selection::Every => listed(&[]),
            Selection::Under(prefixes) => listed(prefixes),
            Selection::Ids(ids) => {
                let mut seen = std::collections::HashSet::new();
                Ok(ids.iter().filter(|i| seen.insert(*i)).cloned().collect())
            }
        }
    }
}

/// What an operation changes: values of `element` starting with `from` start with
/// `to` instead; for the targets (`_t`), each line of the value, after its redirect
/// code if it has one (`301 https://…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    element: String,
    from: String,
    to: String,
}

/// The element targets are stored in.
pub const TARGET: &str = "_t";

impl Rewrite {
    /// A rewrite of `element`'s values from prefix `from` to `to`, or why not: an
    /// empty `from`, `to` equal to `from`, a `to` that runs code in a browser.
    pub fn new(element: &str, from: &str, to: &str) -> Result<Rewrite, String> {
        if element.is_empty() {
            return Err("--element needs an element name (the targets are _t)".into());
        }
        if from.is_empty() {
            return Err("--from needs the prefix to replace (https://old.example.org/)".into());
        }
        if to == from {
            return Err(format!(
                "--to is the same as --from ({from}): nothing would change"
            ));
        }
        if element == TARGET && runs_code(to) {
            return Err(format!(
                "--to {to}: a target must not run code in a browser (javascript:, vbscript:, data:)"
            ));
        }
        Ok(Rewrite {
            element: element.into(),
            from: from.into(),
            to: to.into(),
        })
    }

    /// The element it changes.
    pub fn element(&self) -> &str {
        &self.element
    }

    /// `value` rewritten, or `None` when it has nothing to change.
    pub fn changed(&self, value: &[u8]) -> Option<Vec<u8>> {
        let text = std::str::from_utf8(value).ok()?;
        let new = if self.element == TARGET {
            let lines: Vec<String> = text.split('\n').map(|l| self.target_line(l)).collect();
            lines.join("\n")
        } else {
            match text.strip_prefix(&self.from) {
                Some(rest) => format!("{}{rest}", self.to),
                None => return None,
            }
        };
        (new != text).then(|| new.into_bytes())
    }

    /// One target line rewritten (as it was when its URL does not start with `from`).
    fn target_line(&self, line: &str) -> String {
        let b = line.as_bytes();
        let coded = b.len() > 4
            && matches!(b[0], b'3' | b'4')
            && b[1..3].iter().all(u8::is_ascii_digit)
            && b[3] == b' ';
        let (code, url) = if coded {
            let url = line[4..].trim_start_matches(' ');
            line.split_at(line.len() - url.len())
        } else {
            ("", line)
        };
        match url.strip_prefix(&self.from) {
            Some(rest) => format!("{code}{}{rest}", self.to),
            None => line.to_string(),
        }
    }

    /// Why `new` (a rewritten value) cannot be stored, if it cannot: a target line the
    /// gate refuses (noid-minter's `target_problem`).
    fn problem(&self, new: &[u8]) -> Option<String> {
        if self.element != TARGET {
            return None;
        }
        let text = String::from_utf8_lossy(new);
        text.split('\n').find_map(|line| {
            target_problem(line).map(|why| format!("{line} would not be a target: {why}"))
        })
    }
}

/// One identifier's value before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The identifier, as stored.
    pub id: String,
    /// Its value now.
    pub old: String,
    /// Its value after the rewrite.
    pub new: String,
}

/// What an operation would do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Preview {
    /// How many identifiers would change.
    pub count: usize,
    /// The first of them (up to the sample size asked for), old → new.
    pub sample: Vec<Planned>,
    /// Identifiers left as they are, and why (the element has several values; the
    /// new value could not be stored).
    pub skipped: Vec<(String, String)>,
}

/// What `rewrite` would change among `selection` in `store`, with a sample of up to
/// `sample` identifiers. Nothing is written.
pub fn preview<L: Lookup + ?Sized>(
    store: &L,
    selection: &Selection,
    rewrite: &Rewrite,
    sample: usize,
) -> Result<Preview, String> {
    let mut p = Preview::default();
    for id in selection.candidates(store)? {
        let values = elements::values(store, &id, &rewrite.element).map_err(|e| e.to_string())?;
        match plan(
            rewrite,
            &values.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
        ) {
            Decision::Unchanged => {}
            Decision::Refuse(why) => p.skipped.push((id, why)),
            Decision::Write { old, new } => {
                p.count += 1;
                if p.sample.len() < sample {
                    p.sample.push(Planned {
                        id,
                        old: String::from_utf8_lossy(&old).into_owned(),
                        new: String::from_utf8_lossy(&new).into_owned(),
                    });
                }
            }
        }
    }
    Ok(p)
}

/// What to do with one identifier.
enum Decision {
    /// Leave it: nothing to change, or (an undo) it holds the old value already.
    Unchanged,
    /// Leave it, and say why.
    Refuse(String),
    /// Change its value `old` to `new`.
    Write { old: Vec<u8>, new: Vec<u8> },
}

/// What `rewrite` does with an element holding `values`.
fn plan(rewrite: &Rewrite, values: &[Vec<u8>]) -> Decision {
    match values {
        [] => Decision::Unchanged,
        [old] => match rewrite.changed(old) {
            None => Decision::Unchanged,
            Some(new) => match rewrite.problem(&new) {
                Some(why) => Decision::Refuse(why),
                None => Decision::Write {
                    old: old.clone(),
                    new,
                },
            },
        },
        several => Decision::Refuse(format!(
            "{} has {} values; rewrite changes an element with one",
            rewrite.element,
            several.len()
        )),
    }
}

/// Where an operation's records go, and who it is done as.
pub struct Operation<'a> {
    /// Who does it (its records' populator, agent, client and acting-for).
    pub who: &'a Who,
    /// The write log its records are appended to.
    pub log: &'a Path,
    /// Identifiers changed per commit.
    pub batch: usize,
    /// Its id ([`op_id`]).
    pub op: &'a str,
}

/// What an operation did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    /// Identifiers changed and committed.
    pub changed: usize,
    /// Identifiers refused, and why (changed again since, for an undo; a value that
    /// cannot be stored).
    pub refused: Vec<(String, String)>,
    /// Why it stopped before its end (a commit or the write log failed), if it did;
    /// what was committed before stays, and can be undone.
    pub stopped: Option<String>,
}

/// A new operation id: the time (UTC, `YYYYMMDDThhmmssZ`) and 6 random hex digits.
pub fn op_id() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let stamp: String = now.chars().filter(|c| !matches!(c, '-' | ':')).collect();
    format!("{stamp}-{:06x}", rand::random::<u32>() & 0xff_ffff)
}

/// Apply `rewrite` to `selection` in `store` as operation `op.op`.
pub fn apply(
    store: &(dyn Store + 'static),
    selection: &Selection,
    rewrite: &Rewrite,
    op: &Operation<'_>,
) -> Result<Applied, String> {
    let ids = selection.candidates(store)?;
    let items = ids
        .into_iter()
        .map(|id| (id, rewrite.element.clone()))
        .collect();
    run(store, op, items, Targets::Checked, |_, _, values| {
        plan(rewrite, values)
    })
}

/// One write of an operation, from its record: (identifier, element, the value the
/// operation wrote, the value it replaced).
type Logged = (String, String, Vec<u8>, Vec<u8>);

/// An operation to undo, as its records in the write log give it ([`undoing`]).
#[derive(Debug, Clone)]
pub struct Undoing {
    /// Its id.
    op: String,
    /// Its writes, in the order it made them.
    writes: Vec<Logged>,
}

impl Undoing {
    /// How many identifiers it changed (as logged: a batch cut off before its commit
    /// is counted too).
    pub fn len(&self) -> usize {
        self.writes.len()
    }

    /// Whether it changed nothing (never: an operation without records is unknown).
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }
}

/// Operation `undone` as its records in `logs` (oldest first; [`history::log_files`])
/// give it, or why it cannot be undone: no record names it (an unknown id), or one of
/// its records is no rewrite's `set` with one old value.
///
/// [`history::log_files`]: crate::history::log_files
pub fn undoing(logs: &[PathBuf], undone: &str) -> Result<Undoing, String> {
    let mut writes = Vec::new();
    let mut problem = None;
    crate::history::records(logs, |r| {
        if r.op.as_deref() != Some(undone) {
            return;
        }
        let mut session = Session::new(true);
        session.max_value = None;
        let parsed = session.parse(&r.command, &mut std::io::empty());
        match (parsed.command, r.prior) {
            (
                Ok(Command::Bind {
                    op: Op::Set,
                    id,
                    elem,
                    value,
                }),
                Some(prior),
            ) if prior.len() == 1 => writes.push((id, elem, value, prior[0].1.clone())),
            _ => {
                problem = Some(format!(
                    "a record of {undone} is not a rewrite's: {}",
                    r.command
                ))
            }
        }
    })
    .map_err(|e| e.to_string())?;
    if let Some(p) = problem {
        return Err(p);
    }
    if writes.is_empty() {
        let names: Vec<String> = logs.iter().map(|l| l.display().to_string()).collect();
        return Err(format!(
            "no operation {undone} in the write log ({})",
            names.join(", ")
        ));
    }
    Ok(Undoing {
        op: undone.to_string(),
        writes,
    })
}

/// Put back what operation `undone` changed, as operation `op.op`: per identifier,
/// only where it still holds the value `undone` wrote.
pub fn undo(
    store: &(dyn Store + 'static),
    undone: Undoing,
    op: &Operation<'_>,
) -> Result<Applied, String> {
    let Undoing { op: undone, writes } = undone;
    let mut expected = std::collections::HashMap::new();
    let mut items = Vec::new();
    for (id, elem, new, old) in writes {
        items.push((id.clone(), elem.clone()));
        expected.insert((id, elem), (new, old));
    }
    run(store, op, items, Targets::Any, |id, elem, values| {
        let (new, old) = &expected[&(id.to_string(), elem.to_string())];
        match values {
            [now] if now == new => Decision::Write {
                old: new.clone(),
                new: old.clone(),
            },
            [now] if now == old => Decision::Unchanged,
            _ => Decision::Refuse(format!(
                "changed since {undone}: {elem} is now {}",
                shown(values)
            )),
        }
    })
}

/// An element's values as text, for a refusal.
fn shown(values: &[Vec<u8>]) -> String {
    match values {
        [] => "unbound".into(),
        _ => values
            .iter()
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// Run an operation over `items` (identifier, element), deciding each with `decide`
/// from its values read in the batch.
fn run(
    store: &(dyn Store + 'static),
    op: &Operation<'_>,
    items: Vec<(String, String)>,
    targets: Targets,
    decide: impl FnMut(&str, &str, &[Vec<u8>]) -> Decision,
) -> Result<Applied, String> {
    let mut batch = Batch::open(store).map_err(|e| e.to_string())?;
    {
        let (_, minter) = batch.parts().map_err(|e| e.to_string())?;
        minter.gate.targets = targets;
    }
    let mut session = Session::new(false);
    session.binder = op.who.populator.clone();
    session.max_value = None;
    let mut feed = Changes {
        items: items.into_iter(),
        decide,
        session,
        agent: Agent {
            who: op.who.login.clone(),
            now: crate::writer::now(),
        },
        op,
        records: Vec::new(),
        pending: 0,
        done: Applied::default(),
        abort: false,
    };
    batch::run(&mut batch, &mut feed);
    Ok(feed.done)
}

/// An operation's identifiers as a write batch's feed.
struct Changes<'o, D> {
    items: std::vec::IntoIter<(String, String)>,
    decide: D,
    session: Session<'static>,
    agent: Agent,
    op: &'o Operation<'o>,
    /// The records of the writes since the last commit, logged before it.
    records: Vec<Record>,
    /// Identifiers changed since the last commit.
    pending: usize,
    done: Applied,
    /// The write log failed: the batch is dropped, not committed.
    abort: bool,
}

impl<D: FnMut(&str, &str, &[Vec<u8>]) -> Decision> Changes<'_, D> {
    /// Log the pending records (synced), before their commit; whether they were.
    fn log_ahead(&mut self) -> bool {
        if self.records.is_empty() {
            return true;
        }
        let mut text = String::new();
        for r in self.records.drain(..) {
            r.write_line(&mut text);
        }
        let written = crate::writer::open_log(self.op.log).and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.sync_data()
        });
        match written {
            Ok(()) => true,
            Err(e) => {
                self.done.stopped = Some(format!(
                    "the write log {} failed ({e}); the last {} changes were not made",
                    self.op.log.display(),
                    self.pending
                ));
                self.abort = true;
                false
            }
        }
    }
}

impl<D: FnMut(&str, &str, &[Vec<u8>]) -> Decision> Feed<dyn Store> for Changes<'_, D> {
    fn run_next(&mut self, batch: &mut Batch<'_, dyn Store>) -> Step {
        if self.abort {
            return Step::Abort;
        }
        let Some((id, elem)) = self.items.next() else {
            return if self.log_ahead() {
                Step::End
            } else {
                Step::Abort
            };
        };
        let (txn, minter) = match batch.parts() {
            Ok(p) => p,
            Err(e) => {
                self.done.stopped = Some(e.to_string());
                return Step::Abort;
            }
        };
        let values = match elements::values(txn, &id, &elem) {
            Ok(v) => v.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
            Err(e) => {
                self.done.refused.push((id, e.to_string()));
                return Step::Ran;
            }
        };
        let (old, new) = match (self.decide)(&id, &elem, &values) {
            Decision::Unchanged => return Step::Ran,
            Decision::Refuse(why) => {
                self.done.refused.push((id, why));
                return Step::Ran;
            }
            Decision::Write { old, new } => (old, new),
        };
        let cmd = Command::Bind {
            op: Op::Set,
            id: id.clone(),
            elem,
            value: new,
        };
        let done = self.session.command(txn, minter, &self.agent, &cmd);
        if let noid_egg::Reply::Error(e) = &done.reply {
            self.done.refused.push((id, e.to_string()));
            return Step::Ran;
        }
        let Some(write) = done.write else {
            return Step::Ran;
        };
        debug_assert_eq!(done.prior.as_ref().map(|p| p.len()), Some(1));
        debug_assert_eq!(done.prior.as_ref().map(|p| &p[0].1), Some(&old));
        let who = self.op.who;
        self.records.push(Record {
            epoch: self.agent.now,
            client: who.client.clone(),
            populator: who.populator.clone(),
            agent: who.login.clone(),
            received: write.clone(),
            command: write,
            acting_for: who.acting_for.clone(),
            prior: done.prior,
            op: Some(self.op.op.to_string()),
        });
        self.pending += 1;
        Step::Ran
    }

    fn commit_due(&mut self, _: usize) -> bool {
        // The records go to the log first; if they cannot, the next step aborts and
        // the batch is dropped (the commit below is of nothing).
        self.pending >= self.op.batch.max(1) && self.log_ahead()
    }

    fn committed(&mut self, _: &dyn Store, outcome: Result<(), StoreError>, _: bool) -> bool {
        match outcome {
            Ok(()) => {
                self.done.changed += self.pending;
                self.pending = 0;
                true
            }
            Err(e) => {
                self.done.stopped = Some(format!(
                    "a commit failed ({e}); the last {} changes were not made",
                    self.pending
                ));
                false
            }
        }
    }
}
