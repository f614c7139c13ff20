//! The link report: one row per target with the columns docs/LINKS.md lists, written
//! as CSV (a header line first) or as a JSON array of objects, streamed row by row.
//! Times are UTC, RFC 3339 (`2026-11-29T01:30:00Z`).

use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use noid_core::links::LinkState;

/// The report's columns, in order.
pub const COLUMNS: [&str; 9] = [
    "id", "target", "status", "http", "checked", "since", "detail", "location", "failures",
];

/// `secs` (since the epoch) as RFC 3339 UTC.
pub fn time(secs: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(secs)).to_string()
}

/// One target's row, as text in [`COLUMNS`]' order (an absent value is empty).
pub fn row(id: &str, target: &str, state: &LinkState) -> [String; 9] {
    [
        id.to_string(),
        target.to_string(),
        state.status.to_string(),
        state.http.map(|h| h.to_string()).unwrap_or_default(),
        time(state.checked),
        time(state.since),
        state.detail.clone(),
        state.location.clone().unwrap_or_default(),
        state.failures.to_string(),
    ]
}

/// A report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated values, a header line first.
    Csv,
    /// A JSON array of objects named by the columns (`http` and `failures` numbers,
    /// `http` and `location` null when absent).
    Json,
}

/// A report being written to `W`.
pub struct Report<W: Write> {
    format: Format,
    csv: Option<csv::Writer<W>>,
    json: Option<W>,
    rows: usize,
}

impl<W: Write> Report<W> {
    /// Start a report on `out` (the CSV header is written now).
    pub fn new(format: Format, out: W) -> std::io::Result<Report<W>> {
        let mut report = Report {
            format,
            csv: None,
            json: None,
            rows: 0,
        };
        match format {
            Format::Csv => {
                let mut w = csv::Writer::from_writer(out);
                w.write_record(COLUMNS).map_err(std::io::Error::other)?;
                report.csv = Some(w);
            }
            Format::Json => {
                let mut out = out;
                out.write_all(b"[")?;
                report.json = Some(out);
            }
        }
        Ok(report)
    }

    /// Write one target's row.
    pub fn row(&mut self, id: &str, target: &str, state: &LinkState) -> std::io::Result<()> {
        let fields = row(id, target, state);
        match self.format {
            Format::Csv => self
                .csv
                .as_mut()
                .expect("a CSV writer")
                .write_record(&fields)
                .map_err(std::io::Error::other)?,
            Format::Json => {
                let object = serde_json::json!({
                    "id": fields[0],
                    "target": fields[1],
                    "status": fields[2],
                    "http": state.http,
                    "checked": fields[4],
                    "since": fields[5],
                    "detail": fields[6],
                    "location": state.location,
                    "failures": state.failures,
                });
                let out = self.json.as_mut().expect("a JSON writer");
                out.write_all(if self.rows == 0 { b"\n" } else { b",\n" })?;
                serde_json::to_writer(&mut *out, &object)?;
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Close the report (the JSON array's end), flushed; how many rows it has.
    pub fn finish(mut self) -> std::io::Result<usize> {
        if let Some(mut w) = self.csv.take() {
            w.flush()?;
        }
        if let Some(mut out) = self.json.take() {
            out.write_all(if self.rows == 0 { b"]\n" } else { b"\n]\n" })?;
            out.flush()?;
        }
        Ok(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::links::Status;

    fn state() -> LinkState {
        LinkState {
            status: Status::Redirected,
            http: Some(200),
            checked: 1_800_000_000,
            since: 1_799_913_600,
            failures: 0,
            failing_since: None,
            detail: "301 → https://b.org/, \"new\"".into(),
            location: Some("https://b.org/".into()),
            fingerprint: None,
            cert_expires: None,
        }
    }

    #[test]
    fn rows_are_written_as_csv_and_as_json() {
        let mut out = Vec::new();
        let mut r = Report::new(Format::Csv, &mut out).unwrap();
        r.row("ark:/1/x", "https://a.org/", &state()).unwrap();
        assert_eq!(r.finish().unwrap(), 1);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "id,target,status,http,checked,since,detail,location,failures\n\
             ark:/1/x,https://a.org/,redirected,200,2027-01-15T08:00:00Z,2027-01-14T08:00:00Z,\
             \"301 → https://b.org/, \"\"new\"\"\",https://b.org/,0\n"
        );
        let mut out = Vec::new();
        let mut r = Report::new(Format::Json, &mut out).unwrap();
        r.row("ark:/1/x", "https://a.org/", &state()).unwrap();
        let mut failing = state();
        failing.http = None;
        failing.location = None;
        r.row("ark:/1/y", "http://c.org/", &failing).unwrap();
        r.finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v[0]["status"], "redirected");
        assert_eq!(v[0]["http"], 200);
        assert_eq!(v[0]["checked"], "2027-01-15T08:00:00Z");
        assert_eq!(v[1]["http"], serde_json::Value::Null);
        assert_eq!(v[1]["location"], serde_json::Value::Null);
        let mut out = Vec::new();
        Report::new(Format::Json, &mut out)
            .unwrap()
            .finish()
            .unwrap();
        assert_eq!(out, b"[]\n");
    }
}
