//! Reading either text form, one record at a time, with the line of every error.

use std::io::BufRead;

use super::{DumpError, DumpFormat, DumpRecord, EXPORT_FAMILY, EXPORT_HEADER};
use crate::escape;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Print,
    Bytevalue,
}

/// Reads records from either text form, recognised by the first line.
pub struct Reader<R> {
    input: R,
    format: DumpFormat,
    encoding: Encoding,
    /// Lines read so far (the number of the last line read).
    line: u64,
    bytes: u64,
    records: u64,
    done: bool,
    buf: Vec<u8>,
}

impl<R: BufRead> Reader<R> {
    /// Read the header and get ready to yield records.
    pub fn new(input: R) -> Result<Reader<R>, DumpError> {
        let mut r = Reader {
            input,
            format: DumpFormat::DbDump,
            encoding: Encoding::Print,
            line: 0,
            bytes: 0,
            records: 0,
            done: false,
            buf: Vec::new(),
        };
        if !r.read_line()? {
            return Err(DumpError::at(
                1,
                "the input is empty (expected a db_dump header or \"# noid export v1\")",
            ));
        }
        let first = r.buf.clone();
        if first.starts_with(b"VERSION=") {
            r.format = DumpFormat::DbDump;
            r.dbdump_header(&first)?;
        } else if first.starts_with(EXPORT_FAMILY.as_bytes()) {
            r.format = DumpFormat::Export;
            if first != EXPORT_HEADER.as_bytes() {
                return Err(DumpError::at(
                    1,
                    format!(
                        "unsupported export format \"{}\" (this noid reads \"{EXPORT_HEADER}\")",
                        String::from_utf8_lossy(&first)
                    ),
                ));
            }
        } else {
            return Err(DumpError::at(
                1,
                format!(
                    "not a minter dump: expected \"VERSION=3\" (db_dump -p text) or \"{EXPORT_HEADER}\", found \"{}\"",
                    snippet(&first)
                ),
            ));
        }
        Ok(r)
    }

    /// Which form the input is in.
    pub fn format(&self) -> DumpFormat {
        self.format
    }

    /// Bytes consumed so far (for progress reports).
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// Records yielded so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Read the next line into `buf` without its `\n`; false at end of input.
    fn read_line(&mut self) -> Result<bool, DumpError> {
        self.buf.clear();
        let n = self.input.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            return Ok(false);
        }
        self.bytes += n as u64;
        self.line += 1;
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        Ok(true)
    }

    fn dbdump_header(&mut self, first: &[u8]) -> Result<(), DumpError> {
        let version = &first[b"VERSION=".len()..];
        if version != b"3" && version != b"2" {
            return Err(DumpError::at(
                1,
                format!(
                    "unsupported db_dump version \"{}\" (expected 3)",
                    snippet(version)
                ),
            ));
        }
        let mut format_seen = false;
        loop {
            if !self.read_line()? {
                return Err(DumpError::at(
                    self.line + 1,
                    "the dump is truncated: end of input before HEADER=END",
                ));
            }
            let line = self.buf.clone();
            if line == b"HEADER=END" {
                break;
            }
            let Some(eq) = line.iter().position(|&b| b == b'=') else {
                return Err(DumpError::at(
                    self.line,
                    format!(
                        "bad db_dump header line \"{}\" (expected name=value)",
                        snippet(&line)
                    ),
                ));
            };
            let (name, value) = (&line[..eq], &line[eq + 1..]);
            match name {
                b"format" => {
                    format_seen = true;
                    self.encoding = match value {
                        b"print" => Encoding::Print,
                        b"bytevalue" => Encoding::Bytevalue,
                        _ => {
                            return Err(DumpError::at(
                                self.line,
                                format!("unknown db_dump format \"{}\"", snippet(value)),
                            ))
                        }
                    }
                }
                b"type" if value != b"btree" && value != b"hash" => {
                    return Err(DumpError::at(
                        self.line,
                        format!(
                            "not a Noid minter: a {} database (Noid minters are btree databases)",
                            snippet(value)
                        ),
                    ));
                }
                b"duplicates" | b"dupsort" if value != b"0" => {
                    return Err(DumpError::at(
                        self.line,
                        "not a Noid minter: the database allows duplicate keys",
                    ))
                }
                _ => {}
            }
        }
        if !format_seen {
            return Err(DumpError::at(
                self.line,
                "the db_dump header has no format= line",
            ));
        }
        Ok(())
    }

    /// The next record, or `None` after the last one (the end marker was seen and
    /// nothing follows it).
    pub fn next_record(&mut self) -> Result<Option<DumpRecord>, DumpError> {
        if self.done {
            return Ok(None);
        }
        let rec = match self.format {
            DumpFormat::DbDump => self.next_dbdump()?,
            DumpFormat::Export => self.next_export()?,
        };
        if rec.is_some() {
            self.records += 1;
        }
        Ok(rec)
    }

    fn decode_dbdump(&self, line: &[u8]) -> Result<Vec<u8>, DumpError> {
        let body = &line[1..];
        match self.encoding {
            Encoding::Print => escape::dbdump_unescape(body),
            Encoding::Bytevalue => escape::hex_decode(body),
        }
        .map_err(|m| DumpError::at(self.line, m))
    }

    fn next_dbdump(&mut self) -> Result<Option<DumpRecord>, DumpError> {
        if !self.read_line()? {
            return Err(DumpError::at(
                self.line + 1,
                "the dump is truncated: end of input before DATA=END",
            ));
        }
        if self.buf == b"DATA=END" {
            self.finish_dbdump()?;
            return Ok(None);
        }
        if self.buf.first() != Some(&b' ') {
            return Err(DumpError::at(
                self.line,
                format!(
                    "expected a key line starting with a space or DATA=END, found \"{}\"",
                    snippet(&self.buf)
                ),
            ));
        }
        let line = self.line;
        let key = self.decode_dbdump(&self.buf)?;
        if !self.read_line()? {
            return Err(DumpError::at(
                self.line + 1,
                format!("the dump is truncated: the key on line {line} has no value"),
            ));
        }
        if self.buf.first() != Some(&b' ') {
            return Err(DumpError::at(
                self.line,
                format!(
                    "expected the value of the key on line {line} (a line starting with a space), found \"{}\"",
                    snippet(&self.buf)
                ),
            ));
        }
        let value = self.decode_dbdump(&self.buf)?;
        Ok(Some(DumpRecord { key, value, line }))
    }

    fn finish_dbdump(&mut self) -> Result<(), DumpError> {
        self.done = true;
        while self.read_line()? {
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let msg = if self.buf.starts_with(b"VERSION=") {
                "the dump holds more than one database (a Noid minter has one)".to_string()
            } else {
                format!("unexpected text after DATA=END: \"{}\"", snippet(&self.buf))
            };
            return Err(DumpError::at(self.line, msg));
        }
        Ok(())
    }

    fn next_export(&mut self) -> Result<Option<DumpRecord>, DumpError> {
        if !self.read_line()? {
            return Err(DumpError::at(
                self.line + 1,
                "the export is truncated: end of input before its \"# end\" line",
            ));
        }
        if self.buf.first() == Some(&b'#') {
            let Some(n) = self.buf.strip_prefix(b"# end ") else {
                return Err(DumpError::at(
                    self.line,
                    format!("unexpected comment line \"{}\"", snippet(&self.buf)),
                ));
            };
            let n: Option<u64> = std::str::from_utf8(n).ok().and_then(|s| s.parse().ok());
            if n != Some(self.records) {
                return Err(DumpError::at(
                    self.line,
                    format!(
                        "the export is damaged: its end line \"{}\" does not match the {} record{} read",
                        snippet(&self.buf),
                        self.records,
                        if self.records == 1 { "" } else { "s" }
                    ),
                ));
            }
            self.done = true;
            if self.read_line()? {
                return Err(DumpError::at(
                    self.line,
                    format!(
                        "unexpected text after the \"# end\" line: \"{}\"",
                        snippet(&self.buf)
                    ),
                ));
            }
            return Ok(None);
        }
        let mut tabs = self
            .buf
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\t')
            .map(|(i, _)| i);
        let (Some(tab), None) = (tabs.next(), tabs.next()) else {
            return Err(DumpError::at(
                self.line,
                format!(
                    "a record needs exactly one tab between key and value: \"{}\"",
                    snippet(&self.buf)
                ),
            ));
        };
        let key = escape::export_unescape(&self.buf[..tab])
            .map_err(|m| DumpError::at(self.line, format!("key: {m}")))?;
        let value = escape::export_unescape(&self.buf[tab + 1..])
            .map_err(|m| DumpError::at(self.line, format!("value: {m}")))?;
        Ok(Some(DumpRecord {
            key,
            value,
            line: self.line,
        }))
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<DumpRecord, DumpError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// At most 60 characters of a line, for messages.
fn snippet(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    let mut out: String = s.chars().take(60).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    out.escape_debug()
        .to_string()
        .replace("\\'", "'")
        .replace("\\\"", "\"")
}

/// Read every record of `input` (for tests and small inputs).
pub fn read_all(input: impl BufRead) -> Result<(DumpFormat, Vec<DumpRecord>), DumpError> {
    let mut r = Reader::new(input)?;
    let mut v = Vec::new();
    while let Some(rec) = r.next_record()? {
        v.push(rec);
    }
    Ok((r.format(), v))
}
