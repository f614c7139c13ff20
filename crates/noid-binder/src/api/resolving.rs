//! `GET /a/POP/explain` and `POST /a/POP/rules/test`: why an identifier resolves the
//! way it does, and whether a candidate rules file answers a table of requests as
//! expected, on the populator's binder with the populator's resolver (its `rules` and
//! `registry` files, the built-in rules without them), for `noid serve` and the CGI
//! alike. The steps, the cases and their written forms are noid-resolve's
//! (`Resolver::explain`, `Explanation::json` and `text`, `noid_resolve::cases`), the
//! same as `noid explain` and `noid rules test` print.
//!
//! | request | answers |
//! |---|---|
//! | `GET explain?id=ID[&accept=TYPE][&proto=http\|https][&format=json\|text]` | `{"request", "steps": [{"kind","says"}], "answer", "outcome", "bound", "web_servers": [{"server","does"}]}` (or `noid explain`'s lines) |
//! | `POST rules/test` fields `rules=TEXT&cases=TEXT[&registry=TEXT][&format=json\|text]` | `{"passed", "total", "differ", "summary", "cases": [{"line","request","accept","expected","got","passed"}]}` (or `noid rules test`'s diff) |
//!
//! The rules test's fields are form-encoded (`application/x-www-form-urlencoded`, as
//! `curl --data-urlencode rules@FILE` sends a file), in the body or the query: it reads
//! the binder and writes nothing. A well-formed test answers `200` whether or not every
//! case passes (`"passed": false` and the cases that differ say so, as a command's
//! `egg-status: 1` does); a request that cannot be run (a field missing or unknown, a
//! rules, registry or cases text that is not one) answers `400` saying what to give.

use std::path::PathBuf;
use std::sync::Arc;

use http::StatusCode;
use noid_core::Lookup;
use noid_resolve::cases::{self, Case};
use noid_resolve::{Registry, Request, Resolver, Rules};

use super::fields::Fields;
use super::reply::{bad, plain, typed, ApiReply};

/// An `explain` or `rules/test` request, routed.
#[derive(Debug, Clone)]
pub struct ResolvingRequest {
    /// The binder resolved on.
    pub dir: PathBuf,
    /// The populator's resolver.
    pub resolver: Arc<Resolver>,
    /// `rules/test` (else `explain`).
    pub test: bool,
    /// The request body.
    pub body: Vec<u8>,
}

/// The fields `explain` takes (in its query).
const EXPLAIN_FIELDS: [&str; 4] = ["id", "accept", "proto", "format"];
/// The fields `rules/test` takes (in its body or query).
const TEST_FIELDS: [&str; 4] = ["rules", "cases", "registry", "format"];

/// A request to explain, checked: the same checks for the API and the console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// The identifier as asked for, with any suffix or inflection.
    pub id: String,
    /// Its `Accept` header.
    pub accept: Option<String>,
    /// `http` or `https`.
    pub proto: String,
}

impl Asked {
    /// The request of identifier `id` with `accept` (empty: none) over `proto`
    /// (empty: `https`); `Err` says what to give.
    pub fn checked(id: &str, accept: &str, proto: &str) -> Result<Asked, String> {
        if id.trim().is_empty() {
            return Err("give the identifier as it would be asked for".into());
        }
        let proto = match proto {
            "" => "https",
            p @ ("http" | "https") => p,
            p => return Err(format!("proto {p:?}: give http or https")),
        };
        let accept = match accept.trim() {
            "" => None,
            a if a.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) => Some(a.to_string()),
            a => {
                return Err(format!(
                    "accept {a:?}: give an Accept header's value (visible ASCII, e.g. \
                     application/json or text/html)"
                ))
            }
        };
        Ok(Asked {
            id: id.to_string(),
            accept,
            proto: proto.to_string(),
        })
    }

    /// As the resolver takes it.
    pub fn request(&self) -> Request<'_> {
        Request {
            id: &self.id,
            accept: self.accept.as_deref(),
            proto: Some(&self.proto),
        }
    }
}

/// A candidate rules file and a table of cases, checked: the same checks for the API
/// and the console.
#[derive(Debug)]
pub struct Candidate {
    /// The candidate rules, with the registry given or the populator's.
    pub resolver: Resolver,
    /// The cases.
    pub cases: Vec<Case>,
}

impl Candidate {
    /// The candidate of rules file text `rules`, cases table text `cases` and prefix
    /// registry text `registry` (empty: the `configured` resolver's registry); `Err`
    /// says which text is not what it should be, and why.
    pub fn checked(
        rules: &str,
        cases: &str,
        registry: &str,
        configured: &Resolver,
    ) -> Result<Candidate, String> {
        if rules.trim().is_empty() {
            return Err("give the candidate rules file".into());
        }
        if cases.trim().is_empty() {
            return Err("give the cases table".into());
        }
        let rules =
            Rules::parse(rules).map_err(|e| format!("the rules are not a rules file: {e}"))?;
        let registry = match registry.trim() {
            "" => configured.registry().clone(),
            r => Arc::new(
                Registry::parse(r)
                    .map_err(|e| format!("the registry is not a prefix registry: {e}"))?,
            ),
        };
        let cases = cases::parse(cases).map_err(|e| {
            format!(
                "the cases are not a cases table: {e} (one case a line: \
                 REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT])"
            )
        })?;
        if cases.is_empty() {
            return Err(
                "the cases table has no cases: one a line, REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]"
                    .into(),
            );
        }
        Ok(Candidate {
            resolver: Resolver::with_registry(rules, registry),
            cases,
        })
    }
}

/// What a request asks, read and checked before the binder is opened.
#[derive(Debug)]
pub enum Ask {
    /// Explain one request with the populator's resolver.
    Explain {
        /// The request.
        asked: Asked,
        /// `noid explain`'s lines rather than JSON.
        text: bool,
        /// The resolver.
        resolver: Arc<Resolver>,
    },
    /// Run a table of cases with a candidate rules file.
    Test {
        /// The candidate.
        candidate: Candidate,
        /// `noid rules test`'s diff rather than JSON.
        text: bool,
    },
}

impl Ask {
    /// The ask of `req` with query `raw_query` (not yet decoded); `400` saying what is
    /// wrong and what to give.
    pub fn of(req: &ResolvingRequest, raw_query: &str) -> Result<Ask, ApiReply> {
        if req.test {
            let mut form = raw_query.as_bytes().to_vec();
            form.push(b'&');
            form.extend_from_slice(&req.body);
            let fields = Fields::parse(&form);
            unknown(&fields, &TEST_FIELDS)?;
            let text = text_format(&fields)?;
            let get = |name| fields.get(name);
            let candidate =
                Candidate::checked(get("rules"), get("cases"), get("registry"), &req.resolver)
                    .map_err(|e| {
                        bad(&format!(
                            "{e}: give rules=TEXT&cases=TEXT[&registry=TEXT] \
                         (curl --data-urlencode rules@FILE --data-urlencode cases@FILE)"
                        ))
                    })?;
            Ok(Ask::Test { candidate, text })
        } else {
            let fields = Fields::parse(raw_query.as_bytes());
            unknown(&fields, &EXPLAIN_FIELDS)?;
            let get = |name| fields.get(name);
            let asked = Asked::checked(get("id"), get("accept"), get("proto")).map_err(|e| {
                bad(&format!(
                    "{e}: explain?id=ID[&accept=TYPE][&proto=http|https][&format=json|text]"
                ))
            })?;
            Ok(Ask::Explain {
                asked,
                text: text_format(&fields)?,
                resolver: req.resolver.clone(),
            })
        }
    }

    /// The answer, resolving on `store` (the binder).
    pub fn answer(&self, store: &dyn Lookup) -> ApiReply {
        let failed = |e: noid_core::lookup::LookupError| {
            plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("error: the binder cannot be read: {e}\n"),
            )
        };
        match self {
            Ask::Explain {
                asked,
                text,
                resolver,
            } => match resolver.explain(store, &asked.request()) {
                Ok(e) if *text => plain(StatusCode::OK, &e.text(&asked.id)),
                Ok(e) => typed("application/json", e.json(&asked.id).to_string() + "\n"),
                Err(e) => failed(e),
            },
            Ask::Test { candidate, text } => {
                match cases::run(&candidate.resolver, store, &candidate.cases) {
                    Ok(outcomes) if *text => plain(StatusCode::OK, &cases::report(&outcomes)),
                    Ok(outcomes) => typed(
                        "application/json",
                        cases::json(&outcomes).to_string() + "\n",
                    ),
                    Err(e) => failed(e),
                }
            }
        }
    }
}

/// `format`: `json` (the default) or `text`; `Ok(true)` for text.
fn text_format(fields: &Fields) -> Result<bool, ApiReply> {
    match fields.get("format") {
        "" | "json" => Ok(false),
        "text" => Ok(true),
        f => Err(bad(&format!("format {f:?}: give json or text"))),
    }
}

/// A field name the request does not take, refused with the ones it does.
fn unknown(fields: &Fields, known: &[&str]) -> Result<(), ApiReply> {
    match fields.unknown(known) {
        // A multipart body's first field reads as one long name starting with its
        // boundary.
        Some(n) if n.starts_with("--") => Err(bad(&format!(
            "the fields are form-encoded (application/x-www-form-urlencoded), not \
             multipart/form-data: give {} (curl --data-urlencode rules@FILE \
             --data-urlencode cases@FILE)",
            known.join(", ")
        ))),
        Some(n) => Err(bad(&format!(
            "unknown field {n:?}: give {}",
            known.join(", ")
        ))),
        None => Ok(()),
    }
}
