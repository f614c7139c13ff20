//! Every match of a query written out: CSV (the target and kernel columns, a header row),
//! JSON lines, or ANVL records. "Download what I see": the same rows for `noid search
//! --format` and the API's export.

use std::io::{self, Write};

/// An export's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// RFC 4180 CSV with a header row: [`COLUMNS`].
    Csv,
    /// One JSON object per line, keyed by [`COLUMNS`].
    JsonLines,
    /// One ANVL record per identifier (`id:` first), a blank line after each.
    Anvl,
}

impl Format {
    /// The format named `name` (`csv`, `json`, `anvl`).
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "csv" => Some(Format::Csv),
            "json" | "jsonl" => Some(Format::JsonLines),
            "anvl" => Some(Format::Anvl),
            _ => None,
        }
    }

    /// Its media type, for an HTTP reply.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Csv => "text/csv; charset=utf-8",
            Format::JsonLines => "application/x-ndjson",
            Format::Anvl => "text/plain; charset=utf-8",
        }
    }
}

/// The columns of an export, in order. `status` lists the link statuses of the targets
/// (space-separated); `updated` is a UTC time (`2026-01-01T00:00:00Z`).
pub const COLUMNS: [&str; 9] = [
    "id", "target", "who", "what", "when", "where", "how", "status", "updated",
];

/// One exported row: a value per [`COLUMNS`] entry ("" when absent).
pub type Row = [String; 9];

/// Writes rows in one format.
pub(crate) enum RowWriter<W: Write> {
    Csv(Box<csv::Writer<W>>),
    JsonLines(W),
    Anvl(W),
}

impl<W: Write> RowWriter<W> {
    /// A writer of `format` to `out`; CSV's header row written.
    pub(crate) fn new(format: Format, out: W) -> io::Result<RowWriter<W>> {
        Ok(match format {
            Format::Csv => {
                let mut w = csv::Writer::from_writer(out);
                w.write_record(COLUMNS).map_err(io::Error::other)?;
                RowWriter::Csv(Box::new(w))
            }
            Format::JsonLines => RowWriter::JsonLines(out),
            Format::Anvl => RowWriter::Anvl(out),
        })
    }

    pub(crate) fn row(&mut self, row: &Row) -> io::Result<()> {
        match self {
            RowWriter::Csv(w) => w.write_record(row).map_err(into_io),
            RowWriter::JsonLines(w) => {
                let object: serde_json::Map<String, serde_json::Value> = COLUMNS
                    .iter()
                    .zip(row)
                    .map(|(c, v)| (c.to_string(), serde_json::Value::from(v.as_str())))
                    .collect();
                serde_json::to_writer(&mut *w, &object)?;
                w.write_all(b"\n")
            }
            RowWriter::Anvl(w) => {
                let mut record = String::new();
                for (c, v) in COLUMNS.iter().zip(row) {
                    if !v.is_empty() || *c == "id" {
                        noid_core::anvl::element_str(&mut record, c, v);
                    }
                }
                record.push('\n');
                w.write_all(record.as_bytes())
            }
        }
    }

    pub(crate) fn finish(self) -> io::Result<()> {
        match self {
            RowWriter::Csv(mut w) => w.flush(),
            RowWriter::JsonLines(mut w) | RowWriter::Anvl(mut w) => w.flush(),
        }
    }
}

fn into_io(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// A time as exported: `2026-01-01T00:00:00Z`.
pub fn time(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}
