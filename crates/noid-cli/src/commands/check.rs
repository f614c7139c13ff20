//! `check [--repair] [N]`: report the minter's health and (with `--repair`,
//! atomically under the writers' lock) repair what can be repaired. The analysis and
//! its text are `noid_migrate::check`'s; this module runs it and prints the verdict.

use std::fmt;

use noid_migrate::check::{analyze, Analysis, Census, CheckError, Options};
use noid_store::{Layout, Op, StoreError};

use crate::complaint::{no_database, store_error, Complaint};
use crate::invocation::Invocation;
use crate::output::Out;
use crate::progress;

/// `check [--repair] [N]`.
#[derive(Debug)]
pub struct Check {
    repair: bool,
    opts: Options,
}

impl Check {
    /// Parse the arguments after `check`.
    pub fn parse(args: Vec<String>) -> Result<Check, Complaint> {
        let mut repair = false;
        let mut opts = Options::default();
        for a in &args {
            match a.as_str() {
                "--repair" | "repair" => repair = true,
                n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                    opts.lookahead = n.parse().unwrap_or(10).clamp(1, 100_000);
                }
                other => {
                    return Err(Complaint::new(format!(
                        "error: check takes [--repair] [N], not \"{other}\""
                    )))
                }
            }
        }
        Ok(Check { repair, opts })
    }

    /// Run it.
    pub fn run(&self, session: &Invocation, out: &mut Out) {
        if !Layout::new(&session.dbdir).has_minter() {
            return no_database(session, out);
        }
        if !self.repair {
            return self.report(session, out);
        }
        if session.web {
            out.out("error: \"check --repair\" not allowed in URL interface.\n");
            out.failed = true;
            return;
        }
        self.repair(session, out)
    }

    /// `check`: the report, from a snapshot.
    fn report(&self, session: &Invocation, out: &mut Out) {
        let snap = match crate::store::open_reader(session) {
            Ok(s) => s,
            Err(e) => return store_error(session, e, out),
        };
        let a = match survey(session, &*snap, |f| snap.scan_from(b"", f), self.opts) {
            Ok(a) => a,
            Err(e) => return out.fail(format!("{e}\n")),
        };
        if findings(&a, out) {
            return;
        }
        let (n, r) = (a.problems.len(), a.repairable());
        let found = format!("{n} {} found", if n == 1 { "problem" } else { "problems" });
        out.fail(if r == n {
            format!("error: {found}; \"noid check --repair\" repairs {}\n", if n == 1 { "it" } else { "them" })
        } else if r > 0 {
            format!("error: {found}; \"noid check --repair\" repairs {r} of them, the others need repairing by hand (see docs/MIGRATION.md)\n")
        } else {
            format!("error: {found}; {} repairing by hand (see docs/MIGRATION.md)\n", if n == 1 { "it needs" } else { "they need" })
        });
    }

    /// `check --repair`: the report, the repairs as one batch under the writers' lock,
    /// and a second look at the result.
    fn repair(&self, session: &Invocation, out: &mut Out) {
        let writer = match crate::store::open_writer(session) {
            Ok(w) => w,
            Err(e) => return store_error(session, e, out),
        };
        let before = match survey(session, &*writer, |f| writer.scan_from(b"", f), self.opts) {
            Ok(a) => a,
            Err(e) => return out.fail(format!("{e}\n")),
        };
        if findings(&before, out) {
            return;
        }
        let ops = before.repair().into_iter().map(Op::from);
        if let Err(e) = writer.commit(ops) {
            return out.fail(format!("error: {e}; nothing was repaired\n"));
        }
        for fix in before.problems.iter().filter_map(|p| p.repair.as_ref()) {
            out.out(format!("repaired: {fix}\n"));
        }
        let after = match survey(session, &*writer, |f| writer.scan_from(b"", f), self.opts) {
            Ok(a) => a,
            Err(e) => return out.fail(format!("{e}\n")),
        };
        if after.ok() {
            let n = before.problems.len();
            out.out(format!(
                "ok: {n} {} repaired\n",
                if n == 1 { "problem" } else { "problems" }
            ));
            return;
        }
        problems(&after, out);
        let n = after.problems.len();
        out.fail(format!(
            "error: {n} {} after repair; see docs/MIGRATION.md\n",
            if n == 1 {
                "problem remains"
            } else {
                "problems remain"
            }
        ));
    }
}

/// Why a survey failed.
enum SurveyError {
    /// Reading every record failed.
    Scan(StoreError),
    /// The analysis failed.
    Check(CheckError),
}

impl fmt::Display for SurveyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurveyError::Scan(e) => write!(f, "error: {e}"),
            SurveyError::Check(e) => e.fmt(f),
        }
    }
}

/// Count every record, then analyse, showing the progress on a terminal (cleared
/// before anything is printed).
fn survey<L: noid_core::Lookup + ?Sized>(
    session: &Invocation,
    l: &L,
    scan: impl FnOnce(&mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<(), StoreError>,
    opts: Options,
) -> Result<Analysis, SurveyError> {
    let mut census = Census::of(l).map_err(SurveyError::Check)?;
    let pb = progress::tally(session, "checking", "keys");
    let scanned = scan(&mut |k, v| {
        census.add(k, v);
        pb.inc(1);
        true
    });
    pb.set_message(", analysing");
    let analysis = scanned
        .map_err(SurveyError::Scan)
        .and_then(|()| analyze(l, &census, opts).map_err(SurveyError::Check));
    pb.finish_and_clear();
    analysis
}

/// Print the report's lines, then `ok: no problems found` (returning true) or the
/// problems.
fn findings(a: &Analysis, out: &mut Out) -> bool {
    for l in a.lines() {
        out.out(format!("{l}\n"));
    }
    if a.ok() {
        out.out("ok: no problems found\n");
        return true;
    }
    problems(a, out);
    false
}

/// One `problem:` line per finding.
fn problems(a: &Analysis, out: &mut Out) {
    for p in &a.problems {
        out.out(format!("problem: {}\n", p.finding));
    }
}
