//! Writing either text form from records in key order.

use std::io::Write;

use super::{DumpFormat, EXPORT_HEADER};
use crate::escape;

/// Writes records, in the order given (callers give bytewise key order), in one of
/// the two forms. Call [`Writer::finish`] at the end: a dump without its end marker
/// is deliberately unreadable (it counts as truncated).
pub struct Writer<W: Write> {
    out: W,
    format: DumpFormat,
    records: u64,
    buf: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// Start a dump: writes the header.
    pub fn new(mut out: W, format: DumpFormat) -> std::io::Result<Writer<W>> {
        match format {
            DumpFormat::DbDump => {
                out.write_all(b"VERSION=3\nformat=print\ntype=btree\nHEADER=END\n")?
            }
            DumpFormat::Export => out.write_all(format!("{EXPORT_HEADER}\n").as_bytes())?,
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
            DumpFormat::DbDump => {
                self.buf.push(b' ');
                escape::dbdump_escape(key, &mut self.buf);
                self.buf.extend_from_slice(b"\n ");
                escape::dbdump_escape(value, &mut self.buf);
            }
            DumpFormat::Export => {
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
            DumpFormat::DbDump => self.out.write_all(b"DATA=END\n")?,
            DumpFormat::Export => self
                .out
                .write_all(format!("# end {}\n", self.records).as_bytes())?,
        }
        self.out.flush()?;
        Ok((self.out, self.records))
    }
}

/// Write `records` (key, value) as a complete dump into a byte vector.
pub fn write_all<'a>(
    format: DumpFormat,
    records: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), format).expect("writing to memory");
    for (k, v) in records {
        w.record(k, v).expect("writing to memory");
    }
    w.finish().expect("writing to memory").0
}
