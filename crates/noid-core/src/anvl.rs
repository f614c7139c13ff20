//! ANVL as noid writes it, one rule for every writer: the egg language's `fetch`/`get`
//! replies, the HTTP metadata and registry pages, and the registry file.
//!
//! An element is one line, `NAME: VALUE`. The encoding is EggNog's (shared
//! spec-binder-api.md §1): in a value, `%` is written `%25` and a newline `%0a`, so a
//! value is always one line; in a name, also whitespace (except the first space of a
//! run inside the name, so `an elem  name` reads `an elem %20name`), control
//! characters, `:`, `=`, `<` and `%` are written `%hh`. Nothing else is encoded: a value
//! holding `%2F` is written `%252F`.
//!
//! [`decode_value`] and [`decode_name`] undo exactly that, for the registry file's
//! reader: a value's `%25` and `%0a` (a `%` followed by anything else is kept as it is,
//! so URL patterns written by hand keep their own `%XX`), a name's every `%hh`.

use std::borrow::Cow;

/// Where encoded text goes: bytes (egg replies, whose values may be any bytes) or a
/// `String` (pages and files, whose names and values are text).
trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Sink for String {
    /// Only called with runs of a `&str` cut at ASCII bytes, or with ASCII escapes: always
    /// UTF-8, so the conversion borrows.
    fn put(&mut self, bytes: &[u8]) {
        self.push_str(&String::from_utf8_lossy(bytes));
    }
}

/// One element line, `NAME: VALUE` and a newline, encoded, appended to `out`.
pub fn element(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    write(out, name, value);
}

/// [`element`] for text.
pub fn element_str(out: &mut String, name: &str, value: &str) {
    write(out, name.as_bytes(), value.as_bytes());
}

fn write(out: &mut impl Sink, name: &[u8], value: &[u8]) {
    encode_name(out, name);
    out.put(b": ");
    encode_value(out, value);
    out.put(b"\n");
}

/// A value: `%` → `%25`, newline → `%0a`.
fn encode_value(out: &mut impl Sink, value: &[u8]) {
    let mut start = 0;
    for i in memchr::memchr2_iter(b'%', b'\n', value) {
        out.put(&value[start..i]);
        out.put(if value[i] == b'%' { b"%25" } else { b"%0a" });
        start = i + 1;
    }
    out.put(&value[start..]);
}

/// A name: a space that starts a whitespace run inside the name stays; other
/// whitespace, control characters, `%`, `:`, `=` and `<` become `%hh`.
fn encode_name(out: &mut impl Sink, name: &[u8]) {
    let mut start = 0;
    for (i, &c) in name.iter().enumerate() {
        if !needs_escape(name, i) {
            continue;
        }
        out.put(&name[start..i]);
        out.put(&hex(c));
        start = i + 1;
    }
    out.put(&name[start..]);
}

/// Whether the name's byte at `i` is written `%hh`.
fn needs_escape(name: &[u8], i: usize) -> bool {
    let c = name[i];
    if c == b' ' {
        let starts_run = i > 0 && !name[i - 1].is_ascii_whitespace();
        let inner = i + 1 < name.len() && name[i..].iter().any(|c| !c.is_ascii_whitespace());
        return !(starts_run && inner);
    }
    c.is_ascii_whitespace() || c.is_ascii_control() || b"%:=<".contains(&c)
}

/// `%hh`, lower-case hex, as EggNog writes it.
fn hex(c: u8) -> [u8; 3] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    [
        b'%',
        DIGITS[usize::from(c >> 4)],
        DIGITS[usize::from(c & 15)],
    ]
}

/// A value as written by [`element`], decoded: `%25` → `%`, `%0a` (either case) →
/// newline; any other `%` stays.
pub fn decode_value(value: &str) -> Cow<'_, str> {
    decode(value, |pair| match pair {
        b"25" => Some(b'%'),
        b"0a" | b"0A" => Some(b'\n'),
        _ => None,
    })
}

/// A name as written by [`element`], decoded: every `%hh`.
pub fn decode_name(name: &str) -> Cow<'_, str> {
    decode(name, |pair| {
        let hi = char::from(pair[0]).to_digit(16)?;
        let lo = char::from(pair[1]).to_digit(16)?;
        u8::try_from(hi * 16 + lo).ok()
    })
}

/// `s` with each `%` and the two characters after it that `byte` maps replaced by
/// the byte (bytes that would not make UTF-8 keep their escape).
fn decode(s: &str, byte: impl Fn(&[u8]) -> Option<u8>) -> Cow<'_, str> {
    let b = s.as_bytes();
    if memchr::memchr(b'%', b).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b.get(i + 1..i + 3).filter(|_| b[i] == b'%').and_then(&byte) {
            Some(c) => {
                out.push(c);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    match String::from_utf8(out) {
        Ok(text) => Cow::Owned(text),
        Err(_) => Cow::Borrowed(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str) -> String {
        let mut s = String::new();
        element_str(&mut s, n, "");
        s.strip_suffix(": \n").unwrap().to_string()
    }

    #[test]
    fn names() {
        // spec-binder-api.md test cases 27, 29, 32.
        assert_eq!(name("an elem  name"), "an elem %20name");
        assert_eq!(name("a    b  \tc"), "a %20%20%20b %20%09c");
        assert_eq!(name("b\nar"), "b%0aar");
        assert_eq!(name(" x "), "%20x%20");
        assert_eq!(name("$u.|e"), "$u.|e");
        assert_eq!(name("a:b=c<d%e\u{1}é"), "a%3ab%3dc%3cd%25e%01é");
    }

    #[test]
    fn values() {
        // spec-binder-api.md test cases 33 and 37.
        let mut v = Vec::new();
        element(&mut v, b"bar", b"z^0aa%0af r");
        element(&mut v, b"a", b"c^0ad\ne\nf");
        element(&mut v, b"x", b"\xff%");
        assert_eq!(v, b"bar: z^0aa%250af r\na: c^0ad%0ae%0af\nx: \xff%25\n");
    }

    #[test]
    fn decoding_undoes_encoding() {
        for (n, v) in [("a=b", "x%y\nz%0a"), ("%41", "100%25"), ("é:", "\n\n%")] {
            let mut s = String::new();
            element_str(&mut s, n, v);
            let (en, ev) = s.trim_end_matches('\n').split_once(": ").unwrap();
            assert_eq!(decode_name(en), n);
            assert_eq!(decode_value(ev), v);
        }
        // A hand-written URL keeps its own escapes.
        assert_eq!(
            decode_value("https://x.org/a%2Fb%20c"),
            "https://x.org/a%2Fb%20c"
        );
        assert_eq!(decode_value("a%0Ab%"), "a\nb%");
        assert_eq!(decode_name("a%zz%4"), "a%zz%4");
    }
}
