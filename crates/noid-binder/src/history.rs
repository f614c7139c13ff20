//! An identifier's history, read from its binder's write log ([`history`]): every
//! logged write to it, oldest first, with who wrote, when, which element, the value it
//! replaced (the record's old values, [`crate::Record::prior`]) and the value written.
//!
//! The identifier is matched in any spelling: the one given and the one logged are
//! both brought to one normal form (noid-core's `spelling`: `ark:/NAAN/…`, the ARK
//! draft's normal form after the NAAN), so `13030/f5-x`, `ark:13030/f5x` and
//! `https://n2t.net/ark:/13030/f5x` find the same records. Rotated logs
//! (`write.log.1`, `write.log.2`, … beside the log, the oldest the highest) are read
//! too, oldest first ([`log_files`]). Records written before old values were logged
//! have none ([`Change::old`] is `None`: "not recorded").
//!
//! History shows what went through a write log: `noid serve`'s API, console and
//! upload writes, and `noid rewrite` and its undo. A `noid bind` or egg line run from
//! the command line writes no log record, and is not shown.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use noid_core::spelling::{self, Canon};
use noid_egg::exec::Prior;

use crate::recent::Logged;
use crate::write_log::Record;

/// One logged write to an identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// When it was accepted, seconds since the epoch.
    pub when: i64,
    /// The populator whose binder it is (empty for a write from the command line).
    pub populator: String,
    /// Who wrote: the login.
    pub agent: String,
    /// The party the populator acted for (N2T's `Acting-For`), if any.
    pub acting_for: Option<String>,
    /// The identifier as logged (its stored spelling).
    pub id: String,
    /// What was done: `set`, `add`, `insert`, `let`, `incr`, `rm`, `purge`.
    pub action: &'static str,
    /// The element written; empty for a purge.
    pub element: String,
    /// The values the write replaced, as (element, value); `None` when the record is
    /// older than old values in the log.
    pub old: Option<Prior>,
    /// The value written (empty for removals; the increment for `incr`).
    pub new: String,
    /// The operation it belongs to (`noid rewrite`, an undo), if any.
    pub op: Option<String>,
}

/// The log files of the log at `log`, oldest first: its rotated copies (`LOG.N` …
/// `LOG.1`, as logrotate names them) that exist, then `log` itself.
pub fn log_files(log: &Path) -> Vec<PathBuf> {
    let mut files = vec![log.to_path_buf()];
    for n in 1.. {
        let mut name = log.as_os_str().to_owned();
        name.push(format!(".{n}"));
        let rotated = PathBuf::from(name);
        if !rotated.is_file() {
            break;
        }
        files.push(rotated);
    }
    files.reverse();
    files
}

/// Every record of the logs in `logs` (oldest first), in order; lines that are not
/// records are skipped, and a log that does not exist has none.
pub fn records(logs: &[PathBuf], mut each: impl FnMut(Record)) -> io::Result<()> {
    for path in logs {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        };
        for line in io::BufReader::new(file).split(b'\n') {
            let line = line?;
            let Ok(text) = std::str::from_utf8(&line) else {
                continue;
            };
            if let Ok(r) = Record::parse(text.trim_end_matches('\r')) {
                each(r);
            }
        }
    }
    Ok(())
}

/// The normal form two spellings of one identifier share: the spelling a binder that
/// stores ARKs labelled gives it (`ark:/NAAN/…`, normalised after the NAAN), a bare
/// `NAAN/…` read as that ARK. Anything else is compared as given.
pub fn normal(id: &str) -> String {
    let canon = |s: &str| {
        spelling::canonical(s, &Canon::Ark { naans: Vec::new() })
            .map(|c| c.into_owned())
            .unwrap_or_else(|_| s.to_string())
    };
    let first = canon(id.trim());
    if first.starts_with("ark:/") {
        return first;
    }
    match first.split_once('/') {
        Some((naan, rest)) if !rest.is_empty() && spelling::is_naan_shaped(naan) => {
            let labelled = format!("ark:/{naan}/{rest}");
            spelling::canonical(
                &labelled,
                &Canon::Ark {
                    naans: vec![naan.into()],
                },
            )
            .map(|c| c.into_owned())
            .unwrap_or(labelled)
        }
        _ => first,
    }
}

/// Every logged write to `id` (in any spelling) in `logs` (oldest first, as
/// [`log_files`] gives them), oldest first.
pub fn history(logs: &[PathBuf], id: &str) -> io::Result<Vec<Change>> {
    let wanted = normal(id);
    let mut found = Vec::new();
    records(logs, |r| {
        let Some(w) = Logged::parse(&r.command) else {
            return;
        };
        if w.id != wanted && normal(&w.id) != wanted {
            return;
        }
        found.push(Change {
            when: r.epoch,
            populator: r.populator,
            agent: r.agent,
            acting_for: r.acting_for,
            id: w.id,
            action: w.word,
            element: w.elem,
            old: r.prior,
            new: w.value,
            op: r.op,
        });
    })?;
    Ok(found)
}

/// How a history is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One line per change, for people.
    Table,
    /// One JSON array of objects.
    Json,
    /// CSV with a header row.
    Csv,
}

/// `epoch` as RFC 3339 UTC.
fn time(epoch: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(epoch.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

/// The old values as text: the values, one per line; `ELEM: VALUE` lines for a purge;
/// `(not recorded)` for a record older than old values in the log.
pub fn old_text(c: &Change) -> String {
    let Some(old) = &c.old else {
        return "(not recorded)".into();
    };
    let lines: Vec<String> = old
        .iter()
        .map(|(e, v)| {
            let v = String::from_utf8_lossy(v);
            if c.element.is_empty() {
                format!("{e}: {v}")
            } else {
                v.into_owned()
            }
        })
        .collect();
    lines.join("\n")
}

/// A change as JSON.
pub fn change_json(c: &Change) -> serde_json::Value {
    let old = c.old.as_ref().map(|o| {
        o.iter()
            .map(|(e, v)| serde_json::json!({"element": e, "value": String::from_utf8_lossy(v)}))
            .collect::<Vec<_>>()
    });
    serde_json::json!({
        "when": time(c.when),
        "epoch": c.when,
        "id": c.id,
        "populator": c.populator,
        "agent": c.agent,
        "acting_for": c.acting_for,
        "action": c.action,
        "element": c.element,
        "old": old,
        "new": c.new,
        "op": c.op,
    })
}

/// `changes` written out as `format`.
pub fn render(changes: &[Change], format: Format) -> String {
    match format {
        Format::Json => {
            let all: Vec<serde_json::Value> = changes.iter().map(change_json).collect();
            serde_json::Value::Array(all).to_string() + "\n"
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            let _ = w.write_record([
                "when",
                "id",
                "populator",
                "agent",
                "acting_for",
                "action",
                "element",
                "old",
                "new",
                "op",
            ]);
            for c in changes {
                let _ = w.write_record([
                    time(c.when).as_str(),
                    &c.id,
                    &c.populator,
                    &c.agent,
                    c.acting_for.as_deref().unwrap_or(""),
                    c.action,
                    &c.element,
                    &old_text(c),
                    &c.new,
                    c.op.as_deref().unwrap_or(""),
                ]);
            }
            String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
        }
        Format::Table => {
            let mut out = String::new();
            for c in changes {
                let who = match &c.acting_for {
                    Some(a) => format!("{} for {a}", c.agent),
                    None => c.agent.clone(),
                };
                let one_line = |s: &str| s.replace('\n', "\\n");
                out.push_str(&format!(
                    "{}  {who}  {} {}  {} -> {}",
                    time(c.when),
                    c.action,
                    c.element,
                    one_line(&old_text(c)),
                    one_line(&c.new),
                ));
                if let Some(op) = &c.op {
                    out.push_str(&format!("  op {op}"));
                }
                out.push('\n');
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_share_a_normal_form() {
        for s in [
            "13030/f5-x",
            "ark:13030/f5x",
            "ARK:/13030/f5x",
            "https://n2t.net/ark:/13030/f5x",
            "ark:/13030/f5x",
        ] {
            assert_eq!(normal(s), "ark:/13030/f5x", "{s}");
        }
        assert_eq!(normal("fk4x"), "fk4x");
    }

    #[test]
    fn finds_every_spelling_in_rotated_logs_and_shows_old_values() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("write.log");
        let line = |cmd: &str, prior: &str| {
            format!("1700000000\t127.0.0.1\tsam\tsam\t{cmd}\tx\t-\t{prior}\t-\n")
        };
        // Oldest in .2, then .1, then the log; a seven-field record; another id.
        std::fs::write(
            log.with_extension("log.2"),
            "1699999999\t127.0.0.1\tsam\tsam\t:hx 13030/f5x.set _t https^3a//a.org/1\tx\t-\n",
        )
        .unwrap();
        std::fs::write(
            log.with_extension("log.1"),
            line(
                ":hx ark^3a/13030/f5x.set _t https^3a//b.org/1",
                "=_t|https^3a//a.org/1",
            ),
        )
        .unwrap();
        std::fs::write(
            &log,
            line(":hx ark^3a/13030/other.set _t x", "=")
                + "not a record\n"
                + &line(":hx ark^3a/13030/f5x.purge", "=_t|https^3a//b.org/1 _,ec|1"),
        )
        .unwrap();
        let files = log_files(&log);
        assert_eq!(files.len(), 3);
        let h = history(&files, "13030/f5-x").unwrap();
        let shown: Vec<(String, String, String)> = h
            .iter()
            .map(|c| {
                (
                    format!("{} {}", c.action, c.element),
                    old_text(c),
                    c.new.clone(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "set _t".into(),
                    "(not recorded)".into(),
                    "https://a.org/1".into()
                ),
                (
                    "set _t".into(),
                    "https://a.org/1".into(),
                    "https://b.org/1".into()
                ),
                (
                    "purge ".into(),
                    "_t: https://b.org/1\n_,ec: 1".into(),
                    "".into()
                ),
            ]
        );
        let csv = render(&h[1..2], Format::Csv);
        assert_eq!(
            csv,
            "when,id,populator,agent,acting_for,action,element,old,new,op\n\
             2023-11-14T22:13:20Z,ark:/13030/f5x,sam,sam,,set,_t,https://a.org/1,https://b.org/1,\n"
        );
        assert_eq!(
            render(&h[1..2], Format::Table),
            "2023-11-14T22:13:20Z  sam  set _t  https://a.org/1 -> https://b.org/1\n"
        );
    }
}
