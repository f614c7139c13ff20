//! `GET /a/POP/stats`: how often the populator's identifiers were resolved, per UTC
//! day, as the resolvers counted them (`noidr --counts`, the web server modules'
//! `counts=SECS`; docs/COUNTS.md), for `noid serve` and the CGI alike. The report is
//! noid-counts' [`Report`], read through [`crate::usage`] as `noid stats` reads it, so
//! the JSON and CSV are those of `noid stats --format json|csv` for the same question.
//!
//! | request | answers |
//! |---|---|
//! | `stats[?id=ID\|PREFIX][&days=N][&top=N]` | `{"subject", "from", "to", "days": [{"day", "person", "robot"}], "total", "most_resolved", "most_asked_missing"}` |
//! | `stats?…&format=csv` | `day,identifier,kind,class,count`, one row per day, identifier, kind and class |
//!
//! **Which counts.** A resolver counts into the directory it is given (`noidr -f DIR`):
//! the populator's binder, or one of its minters (a minter directory is a binder too).
//! So the report adds up the counts of the binder and of every minter under
//! `minters` ([`directories`]); each resolved request was counted in one directory
//! only, so nothing counts twice. Counts that two directories read from one place
//! (the same [`CountsSource`]) are added once.
//!
//! Reading the counts opens no store: it reads the counts files (never the writer
//! thread, never a lock a writer waits for). Before any resolver has counted, the
//! answer is the empty report, with the header `Noid-Note` saying so
//! ([`Note::NothingCounted`]).

use std::io;
use std::path::PathBuf;

use http::StatusCode;
use noid_counts::today;
pub use noid_counts::{DayTallies, Query, Ranked, Report, Tallies};

use super::config::Checked;
use super::fields::Fields;
use super::reply::{bad, plain, typed, ApiReply, Note};
use crate::usage::{self, CountsSource};

/// Days reported when `days` is not given (as `noid stats`).
pub const DEFAULT_DAYS: u32 = 30;
/// The most days a report covers (as `noid stats --days`: a hundred years).
pub const MAX_DAYS: u32 = 36_600;
/// Length of the most-resolved and most-asked-missing lists when `top` is not given.
pub const DEFAULT_TOP: usize = 20;
/// The longest lists a request may ask for.
pub const MAX_TOP: usize = 10_000;

/// The fields `stats` takes.
const FIELDS: [&str; 4] = ["id", "days", "top", "format"];

/// A request for the counts, checked: the same checks for the API and the console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// An identifier or a prefix (a shoulder); `None`: every identifier.
    pub subject: Option<String>,
    /// The last `days` days, today (UTC) included.
    pub days: u32,
    /// How long the lists are.
    pub top: usize,
}

impl Asked {
    /// The request of `id` (empty: all), `days` and `top` (empty: the defaults), as
    /// given in a query or a form; `Err` says what to give.
    pub fn checked(id: &str, days: &str, top: &str) -> Result<Asked, String> {
        let days = match days.trim() {
            "" => DEFAULT_DAYS,
            d => d
                .parse()
                .ok()
                .filter(|n| (1..=MAX_DAYS).contains(n))
                .ok_or_else(|| format!("days {d:?}: give a number from 1 to {MAX_DAYS}"))?,
        };
        let top = match top.trim() {
            "" => DEFAULT_TOP,
            t => t
                .parse()
                .ok()
                .filter(|n| *n <= MAX_TOP)
                .ok_or_else(|| format!("top {t:?}: give a number from 0 to {MAX_TOP}"))?,
        };
        let id = id.trim();
        Ok(Asked {
            subject: (!id.is_empty()).then(|| id.to_string()),
            days,
            top,
        })
    }

    /// The query of the last [`Asked::days`] days up to today (UTC).
    pub fn query(&self) -> Query {
        Query {
            subject: self.subject.clone(),
            to: today(),
            days: self.days,
            top: self.top,
        }
    }
}

/// The directories whose counts populator `pop`'s report adds up: its binder, then
/// each of its minters (`SCHEME/NAAN/SHOULDER` under `minters`), each once.
pub fn directories(pop: &Checked) -> Vec<PathBuf> {
    let p = &pop.populator;
    let mut dirs: Vec<PathBuf> = p.binder.iter().cloned().collect();
    if let Some(root) = &p.minters {
        for path in crate::minter_paths(root) {
            let dir = root.join(path.join("/"));
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// A report and whether any resolver has counted yet.
#[derive(Debug, Clone)]
pub struct Counted {
    /// The report.
    pub report: Report,
    /// Whether any of the directories has counts (`false`: the report is empty because
    /// nothing has counted, not because nothing matched).
    pub counted: bool,
}

/// The report `query` asks for, of the counts of every directory in `dirs` added up
/// (those read from one place once).
pub fn read(dirs: &[PathBuf], query: &Query) -> io::Result<Counted> {
    let mut sources: Vec<CountsSource> = Vec::new();
    let mut entries = Vec::new();
    for dir in dirs {
        let (read, source) = usage::entries(dir)?;
        if sources.contains(&source) {
            continue;
        }
        sources.push(source);
        entries.extend(read);
    }
    let counted = sources
        .iter()
        .any(|s| !matches!(s, CountsSource::Local { exists: false, .. }));
    Ok(Counted {
        report: query.report(&entries),
        counted,
    })
}

/// The answer to `stats` with query string `raw_query` (not decoded), of the counts of
/// `dirs` ([`directories`]).
pub fn answer(dirs: &[PathBuf], raw_query: &str) -> ApiReply {
    let fields = Fields::parse(raw_query.as_bytes());
    if let Some(n) = fields.unknown(&FIELDS) {
        return bad(&format!("unknown field {n:?}: give {}", FIELDS.join(", ")));
    }
    let asked = match Asked::checked(fields.get("id"), fields.get("days"), fields.get("top")) {
        Ok(a) => a,
        Err(e) => {
            return bad(&format!(
                "{e}: stats[?id=ID|PREFIX][&days=N][&top=N][&format=json|csv]"
            ))
        }
    };
    let csv = match fields.get("format") {
        "" | "json" => false,
        "csv" => true,
        f => return bad(&format!("format {f:?}: give json or csv")),
    };
    let counted = match read(dirs, &asked.query()) {
        Ok(c) => c,
        Err(e) => {
            return plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("error: the counts cannot be read: {e}\n"),
            )
        }
    };
    let reply = if csv {
        typed("text/csv; charset=UTF-8", counted.report.csv())
    } else {
        typed("application/json", counted.report.json())
    };
    ApiReply {
        note: (!counted.counted).then_some(Note::NothingCounted),
        ..reply
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asked_is_checked_as_noid_stats_checks_its_options() {
        assert_eq!(
            Asked::checked("", "", ""),
            Ok(Asked {
                subject: None,
                days: 30,
                top: 20
            })
        );
        assert_eq!(
            Asked::checked(" ark:/99999/fk4 ", "36600", "0"),
            Ok(Asked {
                subject: Some("ark:/99999/fk4".into()),
                days: 36_600,
                top: 0
            })
        );
        for (days, top, said) in [
            ("0", "", "days \"0\": give a number from 1 to 36600"),
            ("36601", "", "days \"36601\": give a number from 1 to 36600"),
            ("-1", "", "days \"-1\": give a number from 1 to 36600"),
            ("x", "", "days \"x\": give a number from 1 to 36600"),
            ("", "10001", "top \"10001\": give a number from 0 to 10000"),
            ("", "2.5", "top \"2.5\": give a number from 0 to 10000"),
        ] {
            assert_eq!(Asked::checked("", days, top), Err(said.to_string()));
        }
    }
}
