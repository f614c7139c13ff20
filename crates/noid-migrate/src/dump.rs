//! Whole-minter text streams: BerkeleyDB's `db_dump` text and noid's export format.
//!
//! [`Reader`] yields one [`Record`] at a time, so a minter of millions of keys is never
//! held in memory; every error names the line it was found on. [`Writer`] produces
//! either form from records given in key order.

use std::fmt;
use std::io::{BufRead, Write};

use crate::escape;

/// The first line of noid's export format.
pub const EXPORT_HEADER: &str = "# noid export v1";

/// The prefix of every version line of the export format.
const EXPORT_FAMILY: &str = "# noid export v";

/// The two text forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// BerkeleyDB `db_dump` text (`-p` printable, or the default hex "bytevalue").
    DbDump,
    /// noid's own line format, `# noid export v1`.
    Export,
}

impl Format {
    /// The name used on the command line (`noid export noid|dbdump`).
    pub fn name(self) -> &'static str {
        match self {
            Format::DbDump => "dbdump",
            Format::Export => "noid",
        }
    }
}

/// One key/value pair and the line its key was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The key, raw bytes.
    pub key: Vec<u8>,
    /// The value, raw bytes.
    pub value: Vec<u8>,
    /// 1-based line number of the key in the input.
    pub line: u64,
}

/// Why a dump could not be read.
#[derive(Debug)]
pub enum DumpError {
    /// Reading the input failed.
    Io(std::io::Error),
    /// The text is not what it should be at `line` (1-based; the line after the last
    /// one when the input ended too early).
    Syntax {
        /// Where.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

impl DumpError {
    fn at(line: u64, message: impl Into<String>) -> DumpError {
        DumpError::Syntax {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for DumpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpError::Io(e) => write!(f, "read error: {e}"),
            DumpError::Syntax { line, message } => write!(f, "line {line}: {message}"),
        }
    }
}

impl std::error::Error for DumpError {}

impl From<std::io::Error> for DumpError {
    fn from(e: std::io::Error) -> Self {
        DumpError::Io(e)
    }
}

/// What the first bytes of a file look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    /// Text in one of the two [`Format`]s.
    Text(Format),
    /// A BerkeleyDB database file (btree or hash magic number), to be read with `db_dump`.
    BerkeleyDb,
    /// Something else.
    Unknown,
}

/// Recognise a file from its first bytes (at least 16 are needed for BerkeleyDB).
pub fn sniff(head: &[u8]) -> Sniff {
    if head.starts_with(b"VERSION=") {
        return Sniff::Text(Format::DbDump);
    }
    if head.starts_with(EXPORT_FAMILY.as_bytes()) {
        return Sniff::Text(Format::Export);
    }
    if let Some(m) = head.get(12..16) {
        let m: [u8; 4] = m.try_into().expect("four bytes");
        // Btree 0x053162 and hash 0x061561 metadata pages, either byte order.
        for magic in [0x0005_3162u32, 0x0006_1561] {
            if m == magic.to_le_bytes() || m == magic.to_be_bytes() {
                return Sniff::BerkeleyDb;
            }
        }
    }
    Sniff::Unknown
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Print,
    Bytevalue,
}

/// Reads records from either text form, recognised by the first line.
pub struct Reader<R> {
    input: R,
    format: Format,
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
            format: Format::DbDump,
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
            r.format = Format::DbDump;
            r.dbdump_header(&first)?;
        } else if first.starts_with(EXPORT_FAMILY.as_bytes()) {
            r.format = Format::Export;
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
    pub fn format(&self) -> Format {
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
    pub fn next_record(&mut self) -> Result<Option<Record>, DumpError> {
        if self.done {
            return Ok(None);
        }
        let rec = match self.format {
            Format::DbDump => self.next_dbdump()?,
            Format::Export => self.next_export()?,
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

    fn next_dbdump(&mut self) -> Result<Option<Record>, DumpError> {
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
        Ok(Some(Record { key, value, line }))
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

    fn next_export(&mut self) -> Result<Option<Record>, DumpError> {
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
        Ok(Some(Record {
            key,
            value,
            line: self.line,
        }))
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Record, DumpError>;

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

/// Writes records, in the order given (callers give bytewise key order), in one of
/// the two forms. Call [`Writer::finish`] at the end: a dump without its end marker
/// is deliberately unreadable (it counts as truncated).
pub struct Writer<W: Write> {
    out: W,
    format: Format,
    records: u64,
    buf: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// Start a dump: writes the header.
    pub fn new(mut out: W, format: Format) -> std::io::Result<Writer<W>> {
        match format {
            Format::DbDump => {
                out.write_all(b"VERSION=3\nformat=print\ntype=btree\nHEADER=END\n")?
            }
            Format::Export => out.write_all(format!("{EXPORT_HEADER}\n").as_bytes())?,
        }
        Ok(Writer {
            out,
            format,
            records: 0,
            buf: Vec::with_capacity(256),
        })
    }

    /// Write one key/value pair.
    pub fn record(&mut self, key: &[u8], value: &[u8]) -> std::io::Result<()> {
        self.buf.clear();
        match self.format {
            Format::DbDump => {
                self.buf.push(b' ');
                escape::dbdump_escape(key, &mut self.buf);
                self.buf.extend_from_slice(b"\n ");
                escape::dbdump_escape(value, &mut self.buf);
            }
            Format::Export => {
                escape::export_escape(key, true, &mut self.buf);
                self.buf.push(b'\t');
                escape::export_escape(value, false, &mut self.buf);
            }
        }
        self.buf.push(b'\n');
        self.records += 1;
        self.out.write_all(&self.buf)
    }

    /// Write the end marker and flush; returns the output and the record count.
    pub fn finish(mut self) -> std::io::Result<(W, u64)> {
        match self.format {
            Format::DbDump => self.out.write_all(b"DATA=END\n")?,
            Format::Export => self
                .out
                .write_all(format!("# end {}\n", self.records).as_bytes())?,
        }
        self.out.flush()?;
        Ok((self.out, self.records))
    }
}

/// Read every record of `input` (for tests and small inputs).
pub fn read_all(input: impl BufRead) -> Result<(Format, Vec<Record>), DumpError> {
    let mut r = Reader::new(input)?;
    let mut v = Vec::new();
    while let Some(rec) = r.next_record()? {
        v.push(rec);
    }
    Ok((r.format(), v))
}

/// Write `records` (key, value) as a complete dump into a byte vector.
pub fn write_all<'a>(
    format: Format,
    records: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), format).expect("writing to memory");
    for (k, v) in records {
        w.record(k, v).expect("writing to memory");
    }
    w.finish().expect("writing to memory").0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match read_all(text.as_bytes()) {
            Ok(_) => panic!("accepted: {text:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn pairs(records: &[Record]) -> Vec<(&[u8], &[u8])> {
        records
            .iter()
            .map(|r| (r.key.as_slice(), r.value.as_slice()))
            .collect()
    }

    const BDB: &str = "VERSION=3\nformat=print\ntype=btree\ndb_pagesize=4096\nHEADER=END\n \n empty key\n :/a\n 1\n x\\09y\n multi\\0aline\\\\\\ff\nDATA=END\n";

    #[test]
    fn reads_what_db_dump_prints() {
        let (f, recs) = read_all(BDB.as_bytes()).unwrap();
        assert_eq!(f, Format::DbDump);
        assert_eq!(
            pairs(&recs),
            vec![
                (&b""[..], &b"empty key"[..]),
                (b":/a", b"1"),
                (b"x\ty", b"multi\nline\\\xff"),
            ]
        );
        assert_eq!(
            recs.iter().map(|r| r.line).collect::<Vec<_>>(),
            vec![6, 8, 10]
        );
    }

    #[test]
    fn reads_bytevalue_dumps() {
        let text = "VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n \n 656d707479206b6579\n 3a2f61\n 31\nDATA=END\n";
        let (_, recs) = read_all(text.as_bytes()).unwrap();
        assert_eq!(
            pairs(&recs),
            vec![(&b""[..], &b"empty key"[..]), (b":/a", b"1")]
        );
    }

    #[test]
    fn both_formats_round_trip() {
        let (_, recs) = read_all(BDB.as_bytes()).unwrap();
        for format in [Format::DbDump, Format::Export] {
            let text = write_all(format, pairs(&recs));
            let (f, again) = read_all(&text[..]).unwrap();
            assert_eq!(f, format);
            assert_eq!(pairs(&again), pairs(&recs));
        }
        let text = write_all(Format::DbDump, pairs(&recs));
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n \n empty key\n :/a\n 1\n x\\09y\n multi\\0aline\\\\\\ff\nDATA=END\n"
        );
        let text = write_all(Format::Export, pairs(&recs));
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "# noid export v1\n\tempty key\n:/a\t1\nx\\ty\tmulti\\nline\\\\\\xff\n# end 3\n"
        );
    }

    #[test]
    fn empty_minter_dumps() {
        for format in [Format::DbDump, Format::Export] {
            let text = write_all(format, Vec::<(&[u8], &[u8])>::new());
            assert!(read_all(&text[..]).unwrap().1.is_empty());
        }
    }

    #[test]
    fn truncation_is_detected_everywhere() {
        let full = write_all(
            Format::DbDump,
            vec![(&b"k1"[..], &b"v1"[..]), (b"k2", b"v2")],
        );
        for cut in 0..full.len() - 1 {
            // Cutting off only the final newline leaves a complete dump.
            assert!(read_all(&full[..cut]).is_err(), "cut at {cut}");
        }
        let full = write_all(
            Format::Export,
            vec![(&b"k1"[..], &b"v1"[..]), (b"k2", b"v2")],
        );
        for cut in 0..full.len() - 1 {
            let r = read_all(&full[..cut]);
            // "# end 2" cut to "# end " or shorter is caught; so is every earlier cut.
            assert!(r.is_err(), "cut at {cut}: {:?}", r.map(|x| x.1));
        }
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            err(""),
            "line 1: the input is empty (expected a db_dump header or \"# noid export v1\")"
        );
        assert_eq!(
            err("hello\n"),
            "line 1: not a minter dump: expected \"VERSION=3\" (db_dump -p text) or \"# noid export v1\", found \"hello\""
        );
        assert_eq!(
            err("VERSION=3\nformat=print\n"),
            "line 3: the dump is truncated: end of input before HEADER=END"
        );
        assert_eq!(
            err("VERSION=3\nformat=print\ntype=recno\nHEADER=END\n"),
            "line 3: not a Noid minter: a recno database (Noid minters are btree databases)"
        );
        assert_eq!(
            err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\n"),
            "line 6: the dump is truncated: the key on line 5 has no value"
        );
        assert_eq!(
            err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\n v\n"),
            "line 7: the dump is truncated: end of input before DATA=END"
        );
        assert_eq!(
            err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\nv\nDATA=END\n"),
            "line 6: expected the value of the key on line 5 (a line starting with a space), found \"v\""
        );
        assert_eq!(
            err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\\q1\n v\nDATA=END\n"),
            "line 5: bad escape \"\\q1\" (expected \\\\ or \\ and two hex digits)"
        );
        assert_eq!(
            err("VERSION=3\nformat=print\ntype=btree\nHEADER=END\nDATA=END\nVERSION=3\n"),
            "line 6: the dump holds more than one database (a Noid minter has one)"
        );
        assert_eq!(err("# noid export v2\n"), "line 1: unsupported export format \"# noid export v2\" (this noid reads \"# noid export v1\")");
        assert_eq!(err("# noid export v1\na\tb\n# end 2\n"), "line 3: the export is damaged: its end line \"# end 2\" does not match the 1 record read");
        assert_eq!(
            err("# noid export v1\na\tb\tc\n# end 1\n"),
            "line 2: a record needs exactly one tab between key and value: \"a\\tb\\tc\""
        );
        assert_eq!(
            err("# noid export v1\nab\n# end 1\n"),
            "line 2: a record needs exactly one tab between key and value: \"ab\""
        );
        assert_eq!(
            err("# noid export v1\na\\z\tb\n# end 1\n"),
            "line 2: key: unknown escape \"\\z\" (known: \\\\ \\t \\n \\r \\xHH)"
        );
        assert_eq!(
            err("# noid export v1\na\tb\n# end 1\nmore\n"),
            "line 4: unexpected text after the \"# end\" line: \"more\""
        );
        assert_eq!(
            err("# noid export v1\n# note\n"),
            "line 2: unexpected comment line \"# note\""
        );
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff(b"VERSION=3\n"), Sniff::Text(Format::DbDump));
        assert_eq!(sniff(b"# noid export v1\n"), Sniff::Text(Format::Export));
        let mut bdb = vec![0u8; 16];
        bdb[12..16].copy_from_slice(&[0x62, 0x31, 0x05, 0x00]);
        assert_eq!(sniff(&bdb), Sniff::BerkeleyDb);
        assert_eq!(sniff(b"something else entirely"), Sniff::Unknown);
    }
}
