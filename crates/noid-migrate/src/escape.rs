//! Byte escaping for the two text forms of a minter.
//!
//! * BerkeleyDB's `db_dump -p`: printable ASCII (`0x20`–`0x7e`, C-locale `isprint`)
//!   as is, a backslash doubled, every other byte as `\` + two hex digits.
//! * noid's export format (`docs/EXPORT-FORMAT.md`): valid UTF-8 as is, so that the
//!   file stays readable; `\\`, `\t`, `\n`, `\r` for those characters; `\xHH` for the
//!   other control characters, DEL and bytes that are not valid UTF-8; and a `#` at
//!   the start of a key as `\x23`, so that no record line looks like a comment.

const HEX: &[u8; 16] = b"0123456789abcdef";

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Append `bytes` to `out` in `db_dump -p` form.
pub fn dbdump_escape(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x20..=0x7e => out.push(b),
            _ => {
                out.push(b'\\');
                push_hex(b, out);
            }
        }
    }
}

/// Decode one `db_dump -p` data line (without its leading space and newline).
pub fn dbdump_unescape(line: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        match line.get(i + 1) {
            Some(b'\\') => {
                out.push(b'\\');
                i += 2;
            }
            Some(&h) => {
                let lo = line.get(i + 2).copied().and_then(hex_val);
                match (hex_val(h), lo) {
                    (Some(h), Some(l)) => out.push(h << 4 | l),
                    _ => {
                        let end = (i + 3).min(line.len());
                        return Err(format!(
                            "bad escape \"{}\" (expected \\\\ or \\ and two hex digits)",
                            String::from_utf8_lossy(&line[i..end])
                        ));
                    }
                }
                i += 3;
            }
            None => {
                return Err(
                    "a backslash ends the line (expected \\\\ or \\ and two hex digits)".into(),
                )
            }
        }
    }
    Ok(out)
}

/// Decode one `db_dump` (without `-p`) "bytevalue" data line: pairs of hex digits.
pub fn hex_decode(line: &[u8]) -> Result<Vec<u8>, String> {
    if !line.len().is_multiple_of(2) {
        return Err("odd number of hex digits".into());
    }
    line.chunks(2)
        .map(|p| match (hex_val(p[0]), hex_val(p[1])) {
            (Some(h), Some(l)) => Ok(h << 4 | l),
            _ => Err(format!("bad hex digits \"{}\"", String::from_utf8_lossy(p))),
        })
        .collect()
}

/// Append `bytes` to `out` in export form; `key` marks the key field, whose leading
/// `#` is escaped.
pub fn export_escape(bytes: &[u8], key: bool, out: &mut Vec<u8>) {
    let start = out.len();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.extend_from_slice(b"\\\\"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\0'..='\x1f' | '\x7f' => hex_escape(c as u8, out),
                _ => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        for &b in chunk.invalid() {
            hex_escape(b, out);
        }
    }
    if key && out.get(start) == Some(&b'#') {
        out.splice(start..start + 1, *b"\\x23");
    }
}

fn hex_escape(b: u8, out: &mut Vec<u8>) {
    out.extend_from_slice(b"\\x");
    push_hex(b, out);
}

/// The two lower-case hex digits of `b`, the form both escapings use.
fn push_hex(b: u8, out: &mut Vec<u8>) {
    out.push(HEX[usize::from(b >> 4)]);
    out.push(HEX[usize::from(b & 15)]);
}

/// Decode one field of an export record.
pub fn export_unescape(field: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let b = field[i];
        if b != b'\\' {
            if b < 0x20 || b == 0x7f {
                return Err(format!(
                    "raw control character 0x{b:02x} (it must be escaped)"
                ));
            }
            out.push(b);
            i += 1;
            continue;
        }
        match field.get(i + 1) {
            Some(b'\\') => out.push(b'\\'),
            Some(b't') => out.push(b'\t'),
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b'x') => {
                let h = field.get(i + 2).copied().and_then(hex_val);
                let l = field.get(i + 3).copied().and_then(hex_val);
                match (h, l) {
                    (Some(h), Some(l)) => out.push(h << 4 | l),
                    _ => {
                        let end = (i + 4).min(field.len());
                        return Err(format!(
                            "bad escape \"{}\" (\\x needs two hex digits)",
                            String::from_utf8_lossy(&field[i..end])
                        ));
                    }
                }
                i += 4;
                continue;
            }
            Some(&c) => {
                return Err(format!(
                    "unknown escape \"\\{}\" (known: \\\\ \\t \\n \\r \\xHH)",
                    String::from_utf8_lossy(&[c])
                ))
            }
            None => return Err("a backslash ends the field".into()),
        }
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dd(b: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        dbdump_escape(b, &mut v);
        v
    }

    fn ex(b: &[u8], key: bool) -> Vec<u8> {
        let mut v = Vec::new();
        export_escape(b, key, &mut v);
        v
    }

    #[test]
    fn dbdump_matches_berkeleydb() {
        // What db_dump -p (BerkeleyDB 5.3) prints for these bytes.
        assert_eq!(dd(b"x\ty"), b"x\\09y");
        assert_eq!(dd(b"multi\nline\\\xff"), b"multi\\0aline\\\\\\ff");
        assert_eq!(dd(b" a b~"), b" a b~");
        assert_eq!(dd(b""), b"");
        assert_eq!(
            dbdump_unescape(b"multi\\0aline\\\\\\ff").unwrap(),
            b"multi\nline\\\xff"
        );
        assert_eq!(dbdump_unescape(b"\\5c\\0A").unwrap(), b"\\\n");
    }

    #[test]
    fn dbdump_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255u8).collect();
        assert_eq!(dbdump_unescape(&dd(&all)).unwrap(), all);
    }

    #[test]
    fn dbdump_bad_escapes() {
        assert!(dbdump_unescape(b"abc\\")
            .unwrap_err()
            .contains("ends the line"));
        assert!(dbdump_unescape(b"a\\zz")
            .unwrap_err()
            .contains("bad escape \"\\zz\""));
        assert!(dbdump_unescape(b"a\\0").is_err());
    }

    #[test]
    fn hex() {
        assert_eq!(hex_decode(b"3a2f61").unwrap(), b":/a");
        assert_eq!(hex_decode(b"").unwrap(), b"");
        assert!(hex_decode(b"3a2").is_err());
        assert!(hex_decode(b"zz").is_err());
    }

    #[test]
    fn export_is_readable_and_lossless() {
        assert_eq!(ex("13030/f5\t:/c".as_bytes(), true), b"13030/f5\\t:/c");
        assert_eq!(
            ex("caf\u{e9} \u{2603}".as_bytes(), false),
            "caf\u{e9} \u{2603}".as_bytes()
        );
        assert_eq!(ex(b"a\r\n\x00\x7f\\", false), b"a\\r\\n\\x00\\x7f\\\\");
        assert_eq!(ex(b"\xff\xc3", false), b"\\xff\\xc3");
        assert_eq!(ex(b"#x", true), b"\\x23x");
        assert_eq!(ex(b"#x", false), b"#x");
        let all: Vec<u8> = (0..=255u8).collect();
        for key in [false, true] {
            assert_eq!(export_unescape(&ex(&all, key)).unwrap(), all);
        }
        let text = "ünïcödé\tand\nlines".as_bytes();
        assert_eq!(export_unescape(&ex(text, true)).unwrap(), text);
    }

    #[test]
    fn export_bad_fields() {
        assert!(export_unescape(b"a\\q")
            .unwrap_err()
            .contains("unknown escape"));
        assert!(export_unescape(b"a\\x4")
            .unwrap_err()
            .contains("two hex digits"));
        assert!(export_unescape(b"a\\")
            .unwrap_err()
            .contains("ends the field"));
        assert!(export_unescape(b"a\rb").unwrap_err().contains("0x0d"));
    }
}
