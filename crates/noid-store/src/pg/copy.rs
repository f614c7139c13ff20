//! The binary `COPY` stream that adds a large commit's new rows to `noid_rows`.
//!
//! Encoded here, in the format PostgreSQL documents ("COPY", "Binary Format"), rather
//! than by the `postgres` crate's `BinaryCopyInWriter`: that writer enters the
//! connection's runtime and calls `ToSql` once per field and sends 4 KiB at a time, and
//! on a `mint 100000` it took a fifth of the writing process's CPU, which on two cores
//! the database server then lacks (docs/SCALING.md, "Where the bound is"). Rows are
//! encoded into one buffer and sent [`CHUNK`] bytes at a time.

use std::io::Write;

use postgres::{Statement, Transaction};

use crate::pg::packed::RowOp;

/// Bytes encoded before they are handed to the connection.
const CHUNK: usize = 256 * 1024;

/// The stream's header: the signature, no flags (no OIDs), no header extension.
const HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

/// The stream's trailer: a field count of -1.
const TRAILER: &[u8] = &[0xff, 0xff];

/// Fields per row: `minter`, `key`, `value`, `held`.
const FIELDS: i16 = 4;

/// Why [`new_rows`] failed.
#[derive(Debug)]
pub(crate) enum CopyFailed {
    /// The connection or the server: a unique violation means a key exists.
    Db(postgres::Error),
    /// The stream could not be written: why (a key or value too long for it).
    Refused(String),
}

/// Add the puts among `ops` to minter `minter`'s rows in `t` by one binary `COPY`
/// (`copy`: `COPY noid_rows (minter, key, value, held) FROM STDIN (FORMAT binary)`),
/// which fails (unique violation) if one of the rows exists. A new row's flag is the
/// put's, or clear.
pub(crate) fn new_rows(
    t: &mut Transaction<'_>,
    copy: &Statement,
    minter: i64,
    ops: &[&RowOp],
) -> Result<(), CopyFailed> {
    let mut sink = t.copy_in(copy).map_err(CopyFailed::Db)?;
    let rows = ops.iter().filter_map(|op| match op {
        RowOp::Put { key, value, held } => Some((*key, *value, held.unwrap_or(false))),
        _ => None,
    });
    write_rows(&mut sink, minter, rows)?;
    sink.finish().map(|_| ()).map_err(CopyFailed::Db)
}

/// Append one row, `(minter, key, value, held)`, to `out`.
fn encode_row(
    out: &mut Vec<u8>,
    minter: i64,
    key: &[u8],
    value: &[u8],
    held: bool,
) -> Result<(), CopyFailed> {
    // A field's length is a signed 32-bit number (and PostgreSQL refuses a `bytea`
    // over 1 GiB anyway).
    let len = |b: &[u8]| {
        i32::try_from(b.len()).map_err(|_| {
            CopyFailed::Refused(format!("a key or value of {} bytes is too long", b.len()))
        })
    };
    let (key_len, value_len) = (len(key)?, len(value)?);
    out.extend_from_slice(&FIELDS.to_be_bytes());
    out.extend_from_slice(&8i32.to_be_bytes());
    out.extend_from_slice(&minter.to_be_bytes());
    out.extend_from_slice(&key_len.to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&value_len.to_be_bytes());
    out.extend_from_slice(value);
    out.extend_from_slice(&1i32.to_be_bytes());
    out.push(u8::from(held));
    Ok(())
}

/// Write the whole stream for `rows` of minter `minter` to `sink` (a `COPY … FROM
/// STDIN (FORMAT binary)`'s writer).
fn write_rows<'a>(
    sink: &mut impl Write,
    minter: i64,
    rows: impl IntoIterator<Item = (&'a [u8], &'a [u8], bool)>,
) -> Result<(), CopyFailed> {
    let mut buf = Vec::with_capacity(CHUNK + 1024);
    buf.extend_from_slice(HEADER);
    for (key, value, held) in rows {
        encode_row(&mut buf, minter, key, value, held)?;
        if buf.len() >= CHUNK {
            sink.write_all(&buf).map_err(sink_error)?;
            buf.clear();
        }
    }
    buf.extend_from_slice(TRAILER);
    sink.write_all(&buf).map_err(sink_error)
}

/// A `COPY` writer's error as [`CopyFailed`]: the writer reports the connection's
/// errors as I/O errors that carry them.
fn sink_error(e: std::io::Error) -> CopyFailed {
    let text = e.to_string();
    match e
        .into_inner()
        .map(|inner| inner.downcast::<postgres::Error>())
    {
        Some(Ok(db)) => CopyFailed::Db(*db),
        _ => CopyFailed::Refused(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes PostgreSQL's documentation gives for a binary `COPY` of one row
    /// `(7, '\x6b', '', true)`: the 11-byte signature, flags and extension length 0, a
    /// field count of 4, then each field as a length and its bytes (a boolean is one
    /// byte, 1 for true), then the -1 trailer.
    #[test]
    fn one_row_is_encoded_as_the_documented_format() {
        let mut out = Vec::new();
        write_rows(&mut out, 7, [(&b"k"[..], &b""[..], true)]).unwrap();
        let expected: Vec<u8> = [
            &b"PGCOPY\n"[..],
            &[0xff, b'\r', b'\n', 0],
            &[0, 0, 0, 0],
            &[0, 0, 0, 0],
            &[0, 4],
            &[0, 0, 0, 8],
            &[0, 0, 0, 0, 0, 0, 0, 7],
            &[0, 0, 0, 1],
            b"k",
            &[0, 0, 0, 0],
            &[0, 0, 0, 1],
            &[1],
            &[0xff, 0xff],
        ]
        .concat();
        assert_eq!(out, expected);
    }

    /// A stream longer than one chunk arrives whole and in order.
    #[test]
    fn a_stream_of_many_chunks_is_the_rows_in_order() {
        let rows: Vec<(Vec<u8>, Vec<u8>)> = (0..20_000)
            .map(|i| (format!("13030/x{i}\t:/c").into_bytes(), vec![b'v'; i % 50]))
            .collect();
        let mut out = Vec::new();
        write_rows(
            &mut out,
            1,
            rows.iter().map(|(k, v)| (&k[..], &v[..], false)),
        )
        .unwrap();
        let mut at = HEADER.len();
        for (k, v) in &rows {
            let field = |at: &mut usize| {
                let n = i32::from_be_bytes(out[*at..*at + 4].try_into().unwrap()) as usize;
                *at += 4 + n;
                &out[*at - n..*at]
            };
            assert_eq!(&out[at..at + 2], &[0, 4]);
            at += 2;
            assert_eq!(field(&mut at), &1i64.to_be_bytes());
            assert_eq!(field(&mut at), &k[..]);
            assert_eq!(field(&mut at), &v[..]);
            assert_eq!(field(&mut at), &[0]);
        }
        assert_eq!(&out[at..], TRAILER);
    }
}
