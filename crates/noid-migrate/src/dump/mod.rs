//! Whole-minter text streams: BerkeleyDB's `db_dump` text and noid's export format.
//!
//! [`Reader`] yields one [`DumpRecord`] at a time, so a minter of millions of keys is never
//! held in memory; every error names the line it was found on. [`Writer`] produces
//! either form from records given in key order.

mod read;
mod write;

#[cfg(test)]
mod tests;

use std::fmt;

pub use read::{read_all, Reader};
pub use write::{write_all, Writer};

/// The first line of noid's export format.
pub const EXPORT_HEADER: &str = "# noid export v1";

/// The prefix of every version line of the export format.
const EXPORT_FAMILY: &str = "# noid export v";

/// The two text forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpFormat {
    /// BerkeleyDB `db_dump` text (`-p` printable, or the default hex "bytevalue").
    DbDump,
    /// noid's own line format, `# noid export v1`.
    Export,
}

impl DumpFormat {
    /// The name used on the command line (`noid export noid|dbdump`).
    pub fn name(self) -> &'static str {
        match self {
            DumpFormat::DbDump => "dbdump",
            DumpFormat::Export => "noid",
        }
    }
}

/// One key/value pair and the line its key was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRecord {
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
    /// Text in one of the two [`DumpFormat`]s.
    Text(DumpFormat),
    /// A BerkeleyDB database file (btree or hash magic number), to be read with `db_dump`.
    BerkeleyDb,
    /// Something else.
    Unknown,
}

/// Recognise a file from its first bytes (at least 16 are needed for BerkeleyDB).
pub fn sniff(head: &[u8]) -> Sniff {
    if head.starts_with(b"VERSION=") {
        return Sniff::Text(DumpFormat::DbDump);
    }
    if head.starts_with(EXPORT_FAMILY.as_bytes()) {
        return Sniff::Text(DumpFormat::Export);
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
