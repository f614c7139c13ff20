//! What a routed, authorised API request does, the same for the hyper handler and the
//! CGI: a [`Plan`] (answer at once, answer without a store, or run work on a binder or
//! minter directory), the populator's minter directories, and the `--verbose` note.

use std::path::PathBuf;

use http::StatusCode;
use noid_egg::{nog, BinderError, Format};

use super::config::Checked;
use super::reply::{plain, ApiReply};
use super::route::Route;
use crate::safe_name::is_safe_name;
use crate::writer::{Work, WorkResult};

/// Largest request body of a single command (its indirect tokens' values): a value
/// at the limit ([`noid_egg::MAX_REMOTE_VALUE`]) and room for an element name and the
/// tokens' trailers. A bulk POST's body is streamed: its values are limited one by
/// one, as they are read.
pub const MAX_BODY: usize = noid_egg::MAX_REMOTE_VALUE + (64 << 10);

/// `413` for a single command's body longer than [`MAX_BODY`].
pub fn body_too_large() -> ApiReply {
    plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!(
            "error: 413 request body larger than {MAX_BODY} octets: a value may have at most {} \
             octets over the API\n",
            noid_egg::MAX_REMOTE_VALUE
        ),
    )
}

/// A request body, whole or as it arrives.
pub enum Input {
    /// Read whole.
    Whole(Vec<u8>),
    /// Read as it arrives (a bulk POST's).
    Stream(Box<dyn std::io::BufRead + Send>),
}

/// `note: remote user: LOGIN [acting for URL]` when the query asks for `--verbose`.
pub fn verbose_note(query: &str, login: &str, acting_for: Option<&str>) -> Option<String> {
    let verbose = query
        .split_whitespace()
        .take_while(|t| t.starts_with('-') || t.starts_with(':'))
        .any(|t| t == "--verbose");
    if !verbose {
        return None;
    }
    let acting = acting_for
        .map(|a| {
            let short = ["http://n2t.net/ark:/99166/", "https://n2t.net/ark:/99166/"]
                .iter()
                .find_map(|p| a.strip_prefix(p).map(|r| format!("&P/{r}")));
            format!(" acting for {}", short.unwrap_or_else(|| a.to_string()))
        })
        .unwrap_or_default();
    Some(format!("note: remote user: {login}{acting}\n"))
}

/// What a routed, authorised request does.
pub enum Plan {
    /// Answer at once.
    Respond(ApiReply),
    /// A command answered without a store (minter help, a refused minter command).
    Answer(WorkResult, &'static str),
    /// Answer from the link checker's records of binder `dir`, read on a read-only
    /// view ([`super::link_report`]; the query is read there, undecoded, as a form's).
    Links {
        /// The binder.
        dir: PathBuf,
    },
    /// A search of binder `dir` (`super::search::answer`, on a blocking thread: it
    /// opens the index, which may rebuild it).
    Search {
        /// The binder.
        dir: PathBuf,
    },
    /// An identifier's history, or a rewrite ([`super::changes::answer`], on a
    /// blocking thread: it reads the write log, or takes the binder's lock).
    Changes(super::changes::ChangesRequest),
    /// An explanation or a rules test, resolved on a read-only view of the binder
    /// ([`super::resolving::Ask`]).
    Resolving(super::resolving::ResolvingRequest),
    /// The resolution counts of these directories ([`super::stats::answer`], on a
    /// blocking thread: it reads the counts files; no store is opened).
    Stats {
        /// The binder and minter directories ([`super::stats::directories`]).
        dirs: Vec<PathBuf>,
    },
    /// Run `work` on the directory `dir`.
    Run {
        /// The binder or minter directory.
        dir: PathBuf,
        /// The binder's write log.
        log: Option<PathBuf>,
        /// The work.
        work: Work,
        /// `egg` or `nog` (the status line's name).
        tool: &'static str,
    },
}

/// Whether a binder query asks for bulk mode (`?-`, commands in the body).
pub fn is_bulk(query: &str) -> bool {
    query.trim() == "-"
}

/// The plan for `route` of populator `pop` with this query and body.
pub fn plan(route: &Route, pop: &Checked, query: String, body: Input) -> Plan {
    match route {
        Route::Help { populator } => Plan::Respond(plain(StatusCode::OK, &help(populator, pop))),
        Route::Binder { .. } => {
            let Some(dir) = &pop.populator.binder else {
                return Plan::Respond(plain(StatusCode::NOT_FOUND, "error: no binder\n"));
            };
            Plan::Run {
                dir: dir.clone(),
                log: pop.log_path(),
                work: binder_work(query, body),
                tool: "egg",
            }
        }
        Route::Changes { rewrite, .. } => match (&pop.populator.binder, pop.log_path()) {
            (Some(dir), Some(log)) => Plan::Changes(super::changes::ChangesRequest {
                dir: dir.clone(),
                log,
                rewrite: *rewrite,
                body: whole(body),
            }),
            _ => Plan::Respond(plain(StatusCode::NOT_FOUND, "error: no binder\n")),
        },
        Route::Search { .. } => match &pop.populator.binder {
            Some(dir) if cfg!(feature = "search") => Plan::Search { dir: dir.clone() },
            Some(_) => Plan::Respond(plain(
                StatusCode::NOT_FOUND,
                "error: this noid was built without the search index (cargo feature search)\n",
            )),
            None => Plan::Respond(plain(StatusCode::NOT_FOUND, "error: no binder\n")),
        },
        Route::Resolving { test, .. } => match &pop.populator.binder {
            Some(dir) => Plan::Resolving(super::resolving::ResolvingRequest {
                dir: dir.clone(),
                resolver: pop.resolver.clone(),
                test: *test,
                body: whole(body),
            }),
            None => Plan::Respond(plain(StatusCode::NOT_FOUND, "error: no binder\n")),
        },
        Route::Stats { .. } => Plan::Stats {
            dirs: super::stats::directories(pop),
        },
        Route::Links { .. } => match &pop.populator.binder {
            Some(dir) => Plan::Links { dir: dir.clone() },
            None => Plan::Respond(plain(StatusCode::NOT_FOUND, "error: no binder\n")),
        },
        Route::Minter { path, .. } => {
            if pop.populator.minters.is_none() {
                return Plan::Respond(plain(StatusCode::NOT_FOUND, "error: no minters\n"));
            }
            let Some(dir) = minter_dir(pop, path) else {
                return Plan::Respond(plain(StatusCode::NOT_FOUND, "error: no such minter\n"));
            };
            match nog::parse(&query, Format::Anvl) {
                Ok((_, nog::NogCommand::Help)) => Plan::Answer(
                    WorkResult {
                        body: nog::NOG_HELP.as_bytes().to_vec(),
                        ..WorkResult::default()
                    },
                    "nog",
                ),
                Ok((format, nog::NogCommand::Mint(n))) => Plan::Run {
                    dir,
                    log: None,
                    work: Work::Mint { n, format },
                    tool: "nog",
                },
                Err(e) => Plan::Answer(
                    WorkResult {
                        body: format!("error: {e}\n\n").into_bytes(),
                        failed: true,
                        refusal: matches!(e, BinderError::Unauthorized).then_some(e),
                        ..WorkResult::default()
                    },
                    "nog",
                ),
            }
        }
    }
}

/// A binder request's work: bulk (`?-`, the body's commands) or one command.
fn binder_work(query: String, body: Input) -> Work {
    match (is_bulk(&query), body) {
        (true, Input::Stream(body)) => Work::Bulk {
            body,
            progress: None,
            tally: None,
        },
        (true, Input::Whole(body)) => Work::Bulk {
            body: Box::new(std::io::Cursor::new(body)),
            progress: None,
            tally: None,
        },
        (false, body) => Work::Egg {
            line: query,
            body: whole(body),
        },
    }
}

/// The body, read whole.
fn whole(body: Input) -> Vec<u8> {
    match body {
        Input::Whole(b) => b,
        Input::Stream(mut r) => {
            let mut b = Vec::new();
            let _ = std::io::Read::read_to_end(&mut r, &mut b);
            b
        }
    }
}

/// The directory of populator `pop`'s minter `SCHEME/NAAN/SHOULDER`, if it has that
/// minter (each step a safe name, so no path leaves its minters' directory).
pub fn minter_dir(pop: &Checked, path: &[String; 3]) -> Option<PathBuf> {
    let root = pop.populator.minters.as_ref()?;
    if !path.iter().all(|s| is_safe_name(s)) {
        return None;
    }
    let dir = root.join(&path[0]).join(&path[1]).join(&path[2]);
    noid_store::Layout::new(&dir).has_minter().then_some(dir)
}

fn help(name: &str, pop: &Checked) -> String {
    let mut s = format!("# noid API for populator {name}\n");
    if pop.populator.binder.is_some() {
        s.push_str(&format!(
            "# binder:  /a/{name}/b?ID.set ELEM VALUE   (GET: one command; ?- with a POST body: one per line)\n#          /a/{name}/b?help\n# resolver: /a/{name}/explain?id=ID   /a/{name}/rules/test (POST rules=…&cases=…)\n"
        ));
    }
    if pop.populator.minters.is_some() {
        s.push_str(&format!(
            "# minters: /a/{name}/m/SCHEME/NAAN/SHOULDER?mint N\n"
        ));
    }
    s.push_str(&format!(
        "# counts:  /a/{name}/stats?id=ID|PREFIX&days=N&top=N&format=json|csv\n"
    ));
    if !pop.populator.write {
        s.push_str("# access: read only\n");
    }
    s
}
