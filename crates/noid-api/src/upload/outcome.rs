//! What happened to each row of an upload, from the bulk run's [`Tally`]: the
//! identifier minted or written, or the row's error with its line, and the result
//! file (`row,id,outcome`) the console offers for download.
//!
//! [`Tally`]: noid_binder::Tally

use std::fmt;

use super::script::Script;
use super::sheet::Sheet;

/// How a bulk run ended, as its tally saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ran {
    /// Each command run: its input line, and its error if it failed.
    pub outcomes: Vec<(usize, Option<String>)>,
    /// The first `committed` commands were committed.
    pub committed: usize,
    /// Why the run stopped early or was not (all) committed, if it was not.
    pub error: Option<String>,
    /// Commands (`start..end` of `outcomes`) written but not logged: the write log failed.
    pub unlogged: Vec<std::ops::Range<usize>>,
}

impl Ran {
    /// Whether command `k`'s write was committed but not logged.
    fn unlogged(&self, k: usize) -> bool {
        self.unlogged.iter().any(|r| r.contains(&k))
    }
}

/// What happened to one row (or, for egg lines, one command).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowOutcome {
    /// A `mint` row with nothing to set: minted.
    Minted,
    /// A `mint` row: minted and its cells set.
    MintedWritten,
    /// Its cells set (an egg line: run).
    Written,
    /// A row with every cell empty: nothing to do.
    Nothing,
    /// A command of the row failed (its other cells were set).
    Failed(String),
    /// A `mint` row that got no identifier.
    NotMinted(String),
    /// Run, but its batch was not committed.
    NotWritten(String),
    /// Not run: the run stopped before it.
    NotRun(String),
    /// Written, but the write log failed: `noid replay` of the log would miss it.
    Unlogged(String),
}

impl RowOutcome {
    /// Whether the row did what it asked.
    pub fn ok(&self) -> bool {
        matches!(
            self,
            RowOutcome::Minted
                | RowOutcome::MintedWritten
                | RowOutcome::Written
                | RowOutcome::Nothing
        )
    }
}

impl fmt::Display for RowOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowOutcome::Minted => f.write_str("minted"),
            RowOutcome::MintedWritten => f.write_str("minted and written"),
            RowOutcome::Written => f.write_str("written"),
            RowOutcome::Nothing => f.write_str("nothing to write"),
            RowOutcome::Failed(e) => write!(f, "error: {e}"),
            RowOutcome::NotMinted(e) => write!(f, "error: not minted: {e}"),
            RowOutcome::NotWritten(e) => write!(f, "error: not written: {e}"),
            RowOutcome::NotRun(e) => write!(f, "error: not run: {e}"),
            RowOutcome::Unlogged(e) => write!(f, "error: written but not logged: {e}"),
        }
    }
}

/// One line of the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowResult {
    /// The line of the uploaded file.
    pub row: usize,
    /// The identifier (minted, or as given; empty if none).
    pub id: String,
    /// What happened.
    pub outcome: RowOutcome,
}

/// The result of each row of `sheet`, given each row's identifier (`ids`, from
/// [`super::script::row_ids`]), why minting stopped short (if it did), the commands
/// run and how the run ended.
pub fn of_sheet(
    sheet: &Sheet,
    ids: &[Option<String>],
    mint_error: Option<&str>,
    script: &Script,
    ran: &Ran,
) -> Vec<RowResult> {
    let mut commands: Vec<Vec<usize>> = vec![Vec::new(); sheet.rows.len()];
    for (k, &r) in script.row_of.iter().enumerate() {
        commands[r].push(k);
    }
    let why = || {
        ran.error
            .clone()
            .unwrap_or_else(|| "the run stopped".into())
    };
    let results = sheet.rows.iter().zip(ids).zip(commands);
    results
        .map(|((row, id), ks)| {
            let minted = row.id.is_none();
            let outcome = if id.is_none() {
                RowOutcome::NotMinted(mint_error.unwrap_or("the minter gave too few").into())
            } else if let Some(e) = ks
                .iter()
                .find_map(|&k| ran.outcomes.get(k).and_then(|o| o.1.clone()))
            {
                RowOutcome::Failed(e)
            } else if ks.iter().any(|&k| k >= ran.outcomes.len()) {
                RowOutcome::NotRun(why())
            } else if ks.iter().any(|&k| k >= ran.committed) {
                RowOutcome::NotWritten(why())
            } else if ks.iter().any(|&k| ran.unlogged(k)) {
                RowOutcome::Unlogged(why())
            } else {
                match (minted, ks.is_empty()) {
                    (true, true) => RowOutcome::Minted,
                    (true, false) => RowOutcome::MintedWritten,
                    (false, true) => RowOutcome::Nothing,
                    (false, false) => RowOutcome::Written,
                }
            };
            RowResult {
                row: row.line,
                id: id.clone().unwrap_or_default(),
                outcome,
            }
        })
        .collect()
}

/// The result of each command of an egg-lines upload (`text`), and, if the run
/// stopped early, a last line saying so.
pub fn of_egg(text: &str, ran: &Ran) -> Vec<RowResult> {
    let lines: Vec<&str> = text.lines().collect();
    let mut results: Vec<RowResult> = ran
        .outcomes
        .iter()
        .enumerate()
        .map(|(k, (line, error))| RowResult {
            row: *line,
            id: lines
                .get(line.wrapping_sub(1))
                .and_then(|l| noid_egg::named_id(l))
                .unwrap_or_default(),
            outcome: match (error, &ran.error) {
                (Some(e), _) => RowOutcome::Failed(e.clone()),
                (None, Some(why)) if k >= ran.committed => RowOutcome::NotWritten(why.clone()),
                (None, Some(why)) if ran.unlogged(k) => RowOutcome::Unlogged(why.clone()),
                (None, _) => RowOutcome::Written,
            },
        })
        .collect();
    if let Some(why) = &ran.error {
        if ran.committed == ran.outcomes.len() {
            let after = ran.outcomes.last().map_or(1, |o| o.0 + 1);
            results.push(RowResult {
                row: after,
                id: String::new(),
                outcome: RowOutcome::NotRun(why.clone()),
            });
        }
    }
    results
}

/// The result file: `row,id,outcome`, a header and one line per result.
pub fn csv(results: &[RowResult]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(["row", "id", "outcome"]);
    for r in results {
        let _ = w.write_record([
            r.row.to_string(),
            inert(&r.id),
            inert(&r.outcome.to_string()),
        ]);
    }
    w.into_inner().unwrap_or_default()
}

/// A cell a spreadsheet will not read as a formula: one starting `=`, `+`, `-`, `@`,
/// a tab or a carriage return gets a `'` before it (OWASP's advice on CSV injection),
/// since identifiers and error texts come from the uploaded file.
fn inert(cell: &str) -> String {
    match cell.as_bytes().first() {
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => format!("'{cell}"),
        _ => cell.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upload::script::{row_ids, Script};

    fn sheet() -> Sheet {
        Sheet::read(b"id,_t,who\nmint,a,b\nx,,c\nmint,,\ny,,\nmint,d,\n").unwrap()
    }

    #[test]
    fn rows_from_the_tally() {
        let sheet = sheet();
        let ids = row_ids(&sheet, &["m1".into(), "m2".into()]);
        let script = Script::of(&sheet, &ids);
        assert_eq!(script.row_of, [0, 0, 1]);
        let ran = Ran {
            outcomes: vec![(1, None), (2, None), (3, Some("bad value".into()))],
            committed: 3,
            error: None,
            unlogged: Vec::new(),
        };
        let results = of_sheet(&sheet, &ids, Some("minter exhausted"), &script, &ran);
        assert_eq!(
            String::from_utf8(csv(&results)).unwrap(),
            "row,id,outcome\n\
             2,m1,minted and written\n\
             3,x,error: bad value\n\
             4,m2,minted\n\
             5,y,nothing to write\n\
             6,,error: not minted: minter exhausted\n"
        );
    }

    #[test]
    fn rows_not_committed_or_not_run() {
        let sheet = sheet();
        let ids = row_ids(&sheet, &["m1".into(), "m2".into(), "m3".into()]);
        let script = Script::of(&sheet, &ids);
        let ran = Ran {
            outcomes: vec![(1, None), (2, None), (3, None)],
            committed: 2,
            error: Some("disk full".into()),
            unlogged: Vec::new(),
        };
        let outcomes: Vec<String> = of_sheet(&sheet, &ids, None, &script, &ran)
            .iter()
            .map(|r| format!("{} {}", r.id, r.outcome))
            .collect();
        assert_eq!(
            outcomes,
            [
                "m1 minted and written",
                "x error: not written: disk full",
                "m2 minted",
                "y nothing to write",
                "m3 error: not run: disk full"
            ]
        );
    }

    #[test]
    fn egg_lines() {
        let text = "x.set _t u\n\n# note\ny.set who 'a b'\nz.purge\n";
        let ran = Ran {
            outcomes: vec![(1, None), (4, Some("refused".into())), (5, None)],
            committed: 3,
            error: Some("the server is stopping".into()),
            unlogged: Vec::new(),
        };
        assert_eq!(
            String::from_utf8(csv(&of_egg(text, &ran))).unwrap(),
            "row,id,outcome\n1,x,written\n4,y,error: refused\n5,z,written\n\
             6,,error: not run: the server is stopping\n"
        );
    }

    /// Issue 42, item 8: writes that were committed but not logged are reported as
    /// such (the run's summary counted them written), and the result file cannot carry
    /// a formula into a spreadsheet.
    #[test]
    fn unlogged_writes_and_formula_cells() {
        let sheet = sheet();
        let ids = row_ids(&sheet, &["m1".into(), "m2".into()]);
        let script = Script::of(&sheet, &ids);
        let why = "the writes were applied but their write log failed: No such file or directory (os error 2)";
        let ran = Ran {
            outcomes: vec![(1, None), (2, None), (3, None)],
            committed: 3,
            error: Some(why.into()),
            unlogged: std::iter::once(0..3).collect(),
        };
        let results = of_sheet(&sheet, &ids, None, &script, &ran);
        assert_eq!(results[0].outcome, RowOutcome::Unlogged(why.into()));
        assert!(!results[0].outcome.ok());
        assert_eq!(
            results[2].outcome,
            RowOutcome::Minted,
            "nothing to write, nothing unlogged"
        );
        let file = csv(&[RowResult {
            row: 2,
            id: "=HYPERLINK(\"http://x\")".into(),
            outcome: RowOutcome::Failed("@SUM(1)".into()),
        }]);
        assert_eq!(
            String::from_utf8(file).unwrap(),
            "row,id,outcome\n2,\"'=HYPERLINK(\"\"http://x\"\")\",error: @SUM(1)\n"
        );
        assert_eq!(inert("-1+1"), "'-1+1");
        assert_eq!(inert("+1"), "'+1");
        assert_eq!(inert("ark:/1/x"), "ark:/1/x");
    }
}
