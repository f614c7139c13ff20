//! A table of requests and the answers expected of them, run against a resolver before
//! its rules are deployed (`noid rules test RULES CASES`).
//!
//! One case per line, tab-separated: the request (an identifier with any suffix or
//! inflection, as noidr is asked for it), the answer expected as the egg protocol's line
//! (`redir302 https://…`, `redir410 withdrawn`, `inflect …`, `NULL`; docs/RESOLUTION.md's
//! "Request kinds and answers" lists them), and optionally the request's `Accept`
//! header. Blank lines and lines starting with `#` are skipped.
//!
//! ```text
//! # request<TAB>expected answer<TAB>Accept
//! ark:/12345/x<TAB>redir302 https://example.org/x
//! ark:/12345/x<TAB>redir303 https://example.org/x.json<TAB>application/json
//! ark:/99999/nope<TAB>NULL
//! ```
//!
//! The outcomes are written out here, once, for everyone who shows them: as a diff of
//! the cases that differ and a count ([`report`]: `noid rules test`, the API's
//! `rules/test?format=text`) and as one JSON object ([`json`]: the API's `rules/test`);
//! the console lays out the same fields as HTML.

use std::fmt;

use noid_core::lookup::{Lookup, LookupError};
use noid_core::ExactPrefixes;

use crate::egg::{self, Miss};
use crate::{Request, Resolver};

/// One case: a request and the egg line expected of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Its line in the file (from 1).
    pub line: usize,
    /// The request.
    pub request: String,
    /// Its `Accept` header, if the case gives one.
    pub accept: Option<String>,
    /// The egg answer line expected.
    pub expected: String,
}

/// A line of the cases file that is not a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseError {
    /// Its line in the file (from 1).
    pub line: usize,
    /// Why.
    pub why: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for CaseError {}

/// Every case of a cases file's text; the first line that is not one is refused.
pub fn parse(text: &str) -> Result<Vec<Case>, CaseError> {
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim_end_matches('\r');
        if l.trim().is_empty() || l.trim_start().starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = l.split('\t').collect();
        let refuse = |why: String| Err(CaseError { line, why });
        let (request, expected, accept) = match fields[..] {
            [r, e] => (r, e, None),
            [r, e, a] => (r, e, Some(a.trim()).filter(|a| !a.is_empty())),
            [_] => {
                return refuse(
                    "want REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]: no tab in the line".into(),
                )
            }
            _ => {
                return refuse(format!(
                    "want at most three tab-separated fields, got {}",
                    fields.len()
                ))
            }
        };
        if request.trim().is_empty() {
            return refuse("the request is empty".into());
        }
        if expected.trim().is_empty() {
            return refuse("the expected answer is empty (write NULL for a miss)".into());
        }
        cases.push(Case {
            line,
            request: request.to_string(),
            accept: accept.map(str::to_string),
            expected: expected.trim().to_string(),
        });
    }
    Ok(cases)
}

/// What a case got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The case.
    pub case: Case,
    /// The egg line the resolver answered, without its newline.
    pub got: String,
}

impl Outcome {
    /// Whether the answer is the one expected.
    pub fn passed(&self) -> bool {
        self.got == self.case.expected
    }

    /// The case as its line in a report: `line N: REQUEST` and the Accept header it
    /// gives (` (Accept: TYPE)`).
    pub fn heading(&self) -> String {
        let accept = self
            .case
            .accept
            .as_deref()
            .map(|a| format!(" (Accept: {a})"))
            .unwrap_or_default();
        format!("line {}: {}{accept}", self.case.line, self.case.request)
    }
}

/// How many of `outcomes` answer as expected and how many differ, in words
/// (`4 of 6 cases answer as expected; 2 differ`).
pub fn summary(outcomes: &[Outcome]) -> String {
    let n = outcomes.len();
    let differ = outcomes.iter().filter(|o| !o.passed()).count();
    format!(
        "{} of {n} {} as expected; {differ} {}",
        n - differ,
        if n == 1 {
            "case answers"
        } else {
            "cases answer"
        },
        if differ == 1 { "differs" } else { "differ" }
    )
}

/// Each case that differs as a diff (its heading, `- expected`, `+ got`), then the
/// [`summary`]; one a line.
pub fn report(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    for o in outcomes.iter().filter(|o| !o.passed()) {
        s.push_str(&format!(
            "{}\n- {}\n+ {}\n",
            o.heading(),
            o.case.expected,
            o.got
        ));
    }
    s.push_str(&summary(outcomes));
    s.push('\n');
    s
}

/// The outcomes as one JSON object: `passed` (every case answers as expected),
/// `total`, `differ`, `summary` ([`summary`]) and `cases`, each with `line`,
/// `request`, `accept` (`null` when the case gives none), `expected`, `got` and
/// `passed`.
pub fn json(outcomes: &[Outcome]) -> serde_json::Value {
    use serde_json::json;
    let differ = outcomes.iter().filter(|o| !o.passed()).count();
    let cases: Vec<_> = outcomes
        .iter()
        .map(|o| {
            json!({
                "line": o.case.line,
                "request": o.case.request,
                "accept": o.case.accept,
                "expected": o.case.expected,
                "got": o.got,
                "passed": o.passed(),
            })
        })
        .collect();
    json!({
        "passed": differ == 0,
        "total": outcomes.len(),
        "differ": differ,
        "summary": summary(outcomes),
        "cases": cases,
    })
}

/// Every case resolved on `store` by `resolver`, as `noidr` answers its egg protocol
/// over `https` (misses as `NULL`).
pub fn run<L: Lookup + ?Sized>(
    resolver: &Resolver,
    store: &L,
    cases: &[Case],
) -> Result<Vec<Outcome>, LookupError> {
    // A store that cannot tell whether it holds a prefix is asked exactly, as a running
    // resolver's view asks it.
    let store = &ExactPrefixes(store);
    cases
        .iter()
        .map(|case| {
            let req = Request {
                id: &case.request,
                accept: case.accept.as_deref(),
                proto: Some("https"),
            };
            let answer = resolver.resolve(store, &req)?;
            let mut line = Vec::new();
            egg::render(&answer, Miss::Null, &mut line);
            while line.last() == Some(&b'\n') {
                line.pop();
            }
            Ok(Outcome {
                case: case.clone(),
                got: String::from_utf8_lossy(&line).into_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;
    use noid_core::MemLookup;

    #[test]
    fn a_cases_file_is_read_and_refused_where_it_is_not_one() {
        let text = "# a comment\n\nark:/1/x\tredir302 https://e.org/x\n\
                    ark:/1/y\tNULL\tapplication/json\n";
        let cases = parse(text).unwrap();
        assert_eq!(
            cases,
            vec![
                Case {
                    line: 3,
                    request: "ark:/1/x".into(),
                    accept: None,
                    expected: "redir302 https://e.org/x".into(),
                },
                Case {
                    line: 4,
                    request: "ark:/1/y".into(),
                    accept: Some("application/json".into()),
                    expected: "NULL".into(),
                },
            ]
        );
        assert_eq!(
            parse("ark:/1/x redir302 y\n").unwrap_err().to_string(),
            "line 1: want REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]: no tab in the line"
        );
        assert_eq!(
            parse("\nark:/1/x\t\n").unwrap_err().to_string(),
            "line 2: the expected answer is empty (write NULL for a miss)"
        );
        assert_eq!(
            parse("a\tb\tc\td\n").unwrap_err().to_string(),
            "line 1: want at most three tab-separated fields, got 4"
        );
    }

    #[test]
    fn cases_run_against_a_candidate_rules_file() {
        let store = MemLookup::new();
        store.bind("ark:/12345/x", "_t", "https://e.org/x");
        let rules =
            Rules::parse("ark:/12345/fk4 https://e.org/${blade}\nglobal-resolver off\n").unwrap();
        let resolver = Resolver::new(rules);
        let cases = parse(
            "ark:/12345/x\tredir302 https://e.org/x\n\
             ark:/12345/fk4abc\tredir302 https://e.org/abc\n\
             ark:/99999/nope\tNULL\n\
             ark:/12345/y\tredir302 https://e.org/y\n",
        )
        .unwrap();
        let got = run(&resolver, &store, &cases).unwrap();
        let passed: Vec<bool> = got.iter().map(Outcome::passed).collect();
        assert_eq!(passed, [true, true, true, false]);
        assert_eq!(got[3].got, "NULL");
    }
}
