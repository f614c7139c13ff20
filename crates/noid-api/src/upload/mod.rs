//! The console's batch upload (docs/CONSOLE.md): a CSV sheet ([`sheet`]) or a file
//! of egg lines, run as one bulk run of the binder, the same write path as a bulk
//! POST (`Work::Bulk` through noid-binder's directory thread and noid-minter's
//! write batch engine), its writes in the write log like any API write. `mint` rows
//! get their identifiers from one mint of the chosen minter first. The run's
//! [`Tally`](noid_binder::Tally) gives the progress page its count and each row its
//! [`outcome`].

pub mod outcome;
pub mod run;
pub mod script;
pub mod sheet;

use std::fmt;

pub use sheet::Sheet;

/// The largest file accepted, in bytes.
pub const MAX_UPLOAD: usize = 16 << 20;

/// The upload form's field that carries the file.
pub const FILE_FIELD: &str = "file";

/// An upload, checked and ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upload {
    /// A CSV sheet.
    Sheet(Sheet),
    /// Egg command lines, run as they are.
    Egg(String),
}

/// The two forms an upload may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadKind {
    /// CSV with a header row.
    Csv,
    /// Egg lines, one command a line.
    Egg,
}

impl UploadKind {
    /// The form's name for it (`csv`, `egg`).
    pub fn parse(name: &str) -> Option<UploadKind> {
        match name {
            "csv" => Some(UploadKind::Csv),
            "egg" => Some(UploadKind::Egg),
            _ => None,
        }
    }
}

impl Upload {
    /// The upload in `bytes`, read as `kind`.
    pub fn read(kind: UploadKind, bytes: &[u8]) -> Result<Upload, UploadError> {
        match kind {
            UploadKind::Csv => Sheet::read(bytes).map(Upload::Sheet),
            UploadKind::Egg => egg_lines(bytes).map(Upload::Egg),
        }
    }

    /// How many rows (CSV) or lines (egg) it has, for the progress page.
    pub fn rows(&self) -> usize {
        match self {
            Upload::Sheet(s) => s.rows.len(),
            Upload::Egg(t) => t.lines().count(),
        }
    }
}

/// A file of egg lines: UTF-8 text with at least one command (a line that is neither
/// blank nor a `#` comment). A BOM is dropped.
fn egg_lines(bytes: &[u8]) -> Result<String, UploadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        UploadError::at(line, "not UTF-8 text")
    })?;
    let commands = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    if commands.count() == 0 {
        return Err(UploadError::whole("the file has no commands"));
    }
    Ok(text.to_string())
}

/// Why an upload was refused before anything ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadError {
    /// The line of the file at fault, if one is.
    pub line: Option<usize>,
    /// What is wrong.
    pub why: String,
}

impl UploadError {
    /// A fault at line `line`.
    pub fn at(line: usize, why: impl Into<String>) -> UploadError {
        UploadError {
            line: Some(line),
            why: why.into(),
        }
    }

    /// A fault of the whole file or form.
    pub fn whole(why: impl Into<String>) -> UploadError {
        UploadError {
            line: None,
            why: why.into(),
        }
    }
}

impl fmt::Display for UploadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.why),
            None => f.write_str(&self.why),
        }
    }
}

impl std::error::Error for UploadError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn egg_uploads() {
        assert_eq!(
            Upload::read(UploadKind::Egg, b"\xef\xbb\xbfx.set _t u\r\n").unwrap(),
            Upload::Egg("x.set _t u\r\n".into())
        );
        assert_eq!(
            Upload::read(UploadKind::Egg, b"# only\n\n  \n")
                .unwrap_err()
                .to_string(),
            "the file has no commands"
        );
        assert_eq!(
            Upload::read(UploadKind::Egg, b"x.set a b\ny.set a \xc3\n")
                .unwrap_err()
                .to_string(),
            "line 2: not UTF-8 text"
        );
        assert_eq!(UploadKind::parse("csv"), Some(UploadKind::Csv));
        assert_eq!(UploadKind::parse("xls"), None);
    }
}
