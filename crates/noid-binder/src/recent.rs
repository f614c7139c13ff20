//! A binder's recent writes, newest first, read from the end of its write log
//! (its records, `write_log`) a page at a time, for the console's recent-writes page.
//! A page is found by the byte offset where the newer page's oldest record starts,
//! so that paging back costs one page's reading however long the log is. Only the
//! current log file is read: writes before a rotation are in the rotated files.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use crate::write_log::Record;
use noid_egg::{Command, Session};

/// Writes shown on a page.
pub const PAGE: usize = 50;

/// Bytes read from the log at a time, going back.
const BLOCK: u64 = 64 << 10;

/// One write as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// Where its record starts in the log.
    pub offset: u64,
    /// The record, as logged.
    pub record: Record,
    /// The identifier written (empty if the command does not parse).
    pub id: String,
    /// What was done: `set ELEM`, `add ELEM`, `rm ELEM`, `purge`, …
    pub action: String,
    /// The value written, as text (empty for removals).
    pub value: String,
}

/// A page of writes, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    /// The writes.
    pub writes: Vec<Write>,
    /// The offset to ask for the next (older) page, if there are older writes.
    pub older: Option<u64>,
}

/// The `n` writes before byte `before` of `log` (its end when `None`). A log that does
/// not exist yet has no writes; lines that are not records are skipped.
pub fn page(log: &Path, before: Option<u64>, n: usize) -> io::Result<Page> {
    let mut f = match File::open(log) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Page::default()),
        Err(e) => return Err(e),
    };
    let len = f.metadata()?.len();
    let end = before.map_or(len, |b| b.min(len));
    // Blocks are read going back, newest first, each looked at once: a long line
    // costs its length, not its length times its blocks (issue 42, item 9).
    let mut start = end;
    let mut blocks = Vec::new();
    let mut newlines = 0;
    while start > 0 && newlines <= n {
        let from = start.saturating_sub(BLOCK);
        let mut block = vec![0; (start - from) as usize];
        f.seek(SeekFrom::Start(from))?;
        f.read_exact(&mut block)?;
        newlines += block.iter().filter(|&&b| b == b'\n').count();
        blocks.push(block);
        start = from;
    }
    blocks.reverse();
    let buf = blocks.concat();
    // Before `start`, the first line may be cut: it belongs to an older page.
    let skip = match start {
        0 => 0,
        _ => buf
            .iter()
            .position(|&b| b == b'\n')
            .map_or(buf.len(), |i| i + 1),
    };
    let mut lines = Vec::new();
    let mut at = skip;
    for line in buf[skip..].split_inclusive(|&b| b == b'\n') {
        lines.push((start + at as u64, line));
        at += line.len();
    }
    let first = lines.len().saturating_sub(n);
    let older = lines.get(first).map(|l| l.0).filter(|&o| o > 0);
    let writes = lines[first..]
        .iter()
        .rev()
        .filter_map(|(offset, line)| write(*offset, line))
        .collect();
    Ok(Page { writes, older })
}

/// A log line as a write; `None` if it is not a record.
fn write(offset: u64, line: &[u8]) -> Option<Write> {
    let text = std::str::from_utf8(line)
        .ok()?
        .trim_end_matches(['\n', '\r']);
    let record = Record::parse(text).ok()?;
    // What was logged is shown, whatever its size (values written before a limit).
    let mut session = Session::new(true);
    session.max_value = None;
    let parsed = session.parse(&record.command, &mut io::empty());
    let (id, action, value) = match parsed.command {
        Ok(c) => described(c),
        Err(_) => (String::new(), record.command.clone(), String::new()),
    };
    Some(Write {
        offset,
        record,
        id,
        action,
        value,
    })
}

/// A logged command as (identifier, action, value).
fn described(c: Command) -> (String, String, String) {
    match Logged::of(c) {
        Ok(l) if l.elem.is_empty() => (l.id, l.word.into(), l.value),
        Ok(l) => (l.id, format!("{} {}", l.word, l.elem), l.value),
        Err(other) => (String::new(), format!("{other:?}"), String::new()),
    }
}

/// A logged write's parts: what Recent writes and an identifier's history show.
pub(crate) struct Logged {
    /// The identifier written, as logged (its stored spelling).
    pub id: String,
    /// `set`, `add`, `incr`, `rm`, `purge` …
    pub word: &'static str,
    /// The element written; empty for a purge.
    pub elem: String,
    /// The value written, as text (empty for removals).
    pub value: String,
}

impl Logged {
    /// The parts of a write log's command; the command itself when it is no write.
    pub(crate) fn of(c: Command) -> Result<Logged, Command> {
        let (id, word, elem, value) = match c {
            Command::Bind {
                op,
                id,
                elem,
                value,
            } => {
                let value = String::from_utf8_lossy(&value).into_owned();
                (id, op.bind_word(), elem, value)
            }
            Command::Incr { id, elem, by } => (id, "incr", elem, by.to_string()),
            Command::Remove { id, elem, .. } => (id, "rm", elem, String::new()),
            Command::Purge { id } => (id, "purge", String::new(), String::new()),
            other => return Err(other),
        };
        Ok(Logged {
            id,
            word,
            elem,
            value,
        })
    }

    /// The write a record's command makes (`None` when it does not parse as one).
    pub(crate) fn parse(command: &str) -> Option<Logged> {
        // What was logged is shown, whatever its size (values written before a limit).
        let mut session = Session::new(true);
        session.max_value = None;
        let parsed = session.parse(command, &mut io::empty());
        Logged::of(parsed.command.ok()?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_egg::canonical::canonical;
    use noid_egg::Op;

    fn record(i: usize) -> Record {
        let cmd = Command::Bind {
            op: Op::Set,
            id: format!("ark:/1/x{i}"),
            elem: "_t".into(),
            value: format!("https://e.org/{i} a\tb").into_bytes(),
        };
        Record {
            epoch: 1_700_000_000 + i as i64,
            client: "127.0.0.1".into(),
            populator: "sam".into(),
            agent: "sam".into(),
            command: canonical(&cmd).unwrap(),
            received: "x".into(),
            acting_for: None,
            prior: None,
            op: None,
        }
    }

    #[test]
    fn pages_back_from_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("write.log");
        assert_eq!(page(&log, None, 2).unwrap(), Page::default());
        let mut text = String::new();
        for i in 0..5 {
            record(i).write_line(&mut text);
        }
        text.push_str("not a record\n");
        Record {
            command: ":hx ark^3a/1/x9.purge".into(),
            ..record(9)
        }
        .write_line(&mut text);
        std::fs::write(&log, &text).unwrap();
        let first = page(&log, None, 3).unwrap();
        let shown: Vec<String> = first
            .writes
            .iter()
            .map(|w| format!("{} {} {}", w.id, w.action, w.value))
            .collect();
        assert_eq!(
            shown,
            ["ark:/1/x9 purge ", "ark:/1/x4 set _t https://e.org/4 a\tb"]
        );
        assert_eq!(first.writes[1].record, record(4));
        let second = page(&log, first.older, 3).unwrap();
        let ids: Vec<&str> = second.writes.iter().map(|w| w.id.as_str()).collect();
        assert_eq!(ids, ["ark:/1/x3", "ark:/1/x2", "ark:/1/x1"]);
        let offset = text.find(&record(3).line()).unwrap() as u64;
        assert_eq!(second.writes[0].offset, offset);
        let last = page(&log, second.older, 3).unwrap();
        assert_eq!(last.writes.len(), 1);
        assert_eq!(last.writes[0].id, "ark:/1/x0");
        assert_eq!(last.older, None);
    }

    #[test]
    fn long_logs_read_in_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("write.log");
        let mut text = String::new();
        for i in 0..3000 {
            record(i).write_line(&mut text);
        }
        std::fs::write(&log, &text).unwrap();
        assert!(text.len() as u64 > 2 * BLOCK);
        let mut before = None;
        let mut seen = 0;
        loop {
            let p = page(&log, before, PAGE).unwrap();
            for w in &p.writes {
                assert_eq!(w.id, format!("ark:/1/x{}", 2999 - seen));
                seen += 1;
            }
            match p.older {
                Some(o) => before = Some(o),
                None => break,
            }
        }
        assert_eq!(seen, 3000);
    }
}
