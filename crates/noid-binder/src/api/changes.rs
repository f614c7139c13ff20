//! `GET /a/POP/history?id=ID` and `POST /a/POP/rewrite`: an identifier's history
//! ([`crate::history`]) and a rewrite's preview, apply and undo ([`crate::rewrite`]),
//! answered as JSON, for `noid serve` and the CGI alike; the console calls the same
//! [`preview_in`], [`apply_in`] and [`undo_in`].
//!
//! | request | answers |
//! |---|---|
//! | `GET /a/POP/history?id=ID[&format=json\|csv]` | `{"id", "changes": [...]}` (or CSV) |
//! | `POST /a/POP/rewrite` body `action=preview&from=P&to=Q[&element=E][&under=U\|&query=Q][&sample=N]` | `{"count", "sample": [{"id","old","new"}], "skipped": [{"id","why"}]}` |
//! | the same with `action=apply` | `{"op", "changed", "refused": [...], "stopped"}` |
//! | `action=undo&op=OPID` | the same, for the undo's own op |
//!
//! The rewrite's fields are read from the POST body (`application/x-www-form-urlencoded`)
//! only, so a link (a GET) can never change anything. Apply and undo need a populator
//! that may write (`403` otherwise); they run on the binder's own writer thread, alone
//! between its groups of requests ([`crate::Work::Operation`]), so that readers see
//! their writes as soon as they are answered.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use http::StatusCode;

use super::fields::Fields;
use super::reply::{bad, plain, typed, ApiReply};
use crate::history::{self, Format};
use crate::rewrite::{self, Applied, Operation, Preview, Rewrite, Selection, BATCH};
use crate::writer::{Who, Work, WorkResult};

/// A `history` or `rewrite` request, routed.
#[derive(Debug, Clone)]
pub struct ChangesRequest {
    /// The binder.
    pub dir: PathBuf,
    /// Its write log.
    pub log: PathBuf,
    /// `rewrite` (else `history`).
    pub rewrite: bool,
    /// The request body.
    pub body: Vec<u8>,
}

/// The answer to `req` with query `raw_query` (not yet decoded), made by `who`; `writes`
/// whether the populator may write; an apply or undo runs through `run`.
pub fn answer(
    req: ChangesRequest,
    raw_query: &str,
    who: &Who,
    writes: bool,
    run: Runner<'_>,
) -> ApiReply {
    if !req.rewrite {
        return history_answer(&req.log, raw_query);
    }
    let fields = Fields::parse(&req.body);
    let get = |name: &str| fields.get(name);
    let under = fields.all("under");
    let action = get("action");
    if matches!(action, "apply" | "undo") && !writes {
        return plain(
            StatusCode::FORBIDDEN,
            "error: 403 forbidden: read-only access\n",
        );
    }
    let result = match action {
        "undo" => undo_in(run, &req.log, who, get("op")).map(|(op, a)| applied_json(&op, &a)),
        "preview" | "apply" => {
            let element = match get("element") {
                "" => rewrite::TARGET,
                e => e,
            };
            let sample = match get("sample") {
                "" => 20,
                n => match n.parse::<usize>() {
                    Ok(n) if n <= 1000 => n,
                    _ => return bad(&format!("sample {n:?}: give a number from 0 to 1000")),
                },
            };
            Rewrite::new(element, get("from"), get("to")).and_then(|rw| {
                let query = Some(get("query")).filter(|q| !q.is_empty());
                let selection = rewrite::select(&req.dir, under, query)?;
                if action == "preview" {
                    preview_in(&req.dir, &selection, &rw, sample).map(|p| preview_json(&p))
                } else {
                    apply_in(run, &req.log, who, &selection, &rw)
                        .map(|(op, a)| applied_json(&op, &a))
                }
            })
        }
        other => {
            return bad(&format!(
                "action {other:?}: give preview, apply or undo (in the POST body)"
            ))
        }
    };
    match result {
        Ok(json) => typed("application/json", json.to_string() + "\n"),
        Err(e) => bad(&e),
    }
}

/// `GET /a/POP/history?id=ID[&format=json|csv]`.
fn history_answer(log: &Path, raw_query: &str) -> ApiReply {
    let fields = Fields::parse(raw_query.as_bytes());
    let get = |name: &str| fields.get(name);
    let id = get("id");
    if id.is_empty() {
        return bad("give the identifier: history?id=ID");
    }
    let csv = match get("format") {
        "" | "json" => false,
        "csv" => true,
        f => return bad(&format!("format {f:?}: give csv or json")),
    };
    match history::history(&history::log_files(log), id) {
        Ok(changes) if csv => typed(
            "text/csv; charset=UTF-8",
            history::render(&changes, Format::Csv),
        ),
        Ok(changes) => {
            let all: Vec<serde_json::Value> = changes.iter().map(history::change_json).collect();
            typed(
                "application/json",
                serde_json::json!({"id": id, "changes": all}).to_string() + "\n",
            )
        }
        Err(e) => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("error: reading the write log: {e}\n"),
        ),
    }
}

/// What `rw` would change among `selection` in the binder at `dir` (read on a snapshot).
pub fn preview_in(
    dir: &Path,
    selection: &Selection,
    rw: &Rewrite,
    sample: usize,
) -> Result<Preview, String> {
    let store = noid_store::open::reader(dir).map_err(|e| e.to_string())?;
    rewrite::preview(&*store, selection, rw, sample)
}

/// How an operation reaches its binder: queued for the directory's thread (`noid
/// serve`: [`crate::DirectoryWriter::run`]; the CGI: [`crate::run_once`]), which runs
/// it alone on its open store and lets readers in after it.
pub type Runner<'a> = &'a dyn Fn(Work) -> WorkResult;

/// What an operation did: its id and outcome, or why it did not run.
type Outcome = Result<(String, Applied), String>;

/// `op` run through `run` as a [`Work::Operation`].
fn through(
    run: Runner<'_>,
    op: impl FnOnce(&(dyn noid_store::Store + 'static)) -> Outcome + Send + 'static,
) -> Outcome {
    let slot = Arc::new(Mutex::new(None));
    let filled = slot.clone();
    let answer = run(Work::Operation(Box::new(move |store| {
        *filled.lock().expect("outcome") = Some(op(store));
        WorkResult::default()
    })));
    let outcome = slot.lock().expect("outcome").take();
    match outcome {
        Some(o) => o,
        None => Err(String::from_utf8_lossy(&answer.body)
            .trim()
            .trim_start_matches("error: ")
            .to_string()),
    }
}

/// Apply `rw` to `selection` as a new operation of `who`, logged to `log`, run
/// through `run`: its id and what it did.
pub fn apply_in(
    run: Runner<'_>,
    log: &Path,
    who: &Who,
    selection: &Selection,
    rw: &Rewrite,
) -> Outcome {
    let (log, who, selection, rw) = (
        log.to_path_buf(),
        who.clone(),
        selection.clone(),
        rw.clone(),
    );
    through(run, move |store| {
        let op = rewrite::op_id();
        let operation = Operation {
            who: &who,
            log: &log,
            batch: BATCH,
            op: &op,
        };
        rewrite::apply(store, &selection, &rw, &operation).map(|done| (op, done))
    })
}

/// Undo operation `undone` (its records in `log` and its rotated copies) as a new
/// operation of `who`, run through `run`: its id and what it did.
pub fn undo_in(run: Runner<'_>, log: &Path, who: &Who, undone: &str) -> Outcome {
    if undone.is_empty() {
        return Err("give the operation to undo: op=OPID".into());
    }
    let undoing = rewrite::undoing(&history::log_files(log), undone)?;
    let (log, who) = (log.to_path_buf(), who.clone());
    through(run, move |store| {
        let op = rewrite::op_id();
        let operation = Operation {
            who: &who,
            log: &log,
            batch: BATCH,
            op: &op,
        };
        rewrite::undo(store, undoing, &operation).map(|done| (op, done))
    })
}

fn preview_json(p: &Preview) -> serde_json::Value {
    serde_json::json!({
        "count": p.count,
        "sample": p.sample.iter().map(|s| serde_json::json!({"id": s.id, "old": s.old, "new": s.new})).collect::<Vec<_>>(),
        "skipped": refused_json(&p.skipped),
    })
}

fn applied_json(op: &str, a: &Applied) -> serde_json::Value {
    serde_json::json!({
        "op": op,
        "changed": a.changed,
        "refused": refused_json(&a.refused),
        "stopped": a.stopped,
    })
}

fn refused_json(list: &[(String, String)]) -> Vec<serde_json::Value> {
    list.iter()
        .map(|(id, why)| serde_json::json!({"id": id, "why": why}))
        .collect()
}
