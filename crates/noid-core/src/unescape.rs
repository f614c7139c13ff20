//! The one rule for `MARKER HH` escapes in request text: `%HH` in URLs, in the egg
//! protocol's header blob and in the CLI's web mode, and EggNog's flex encoding `^HH`
//! in suffixes. A marker followed by two hex digits (either case) is that byte; any
//! other marker stays as it is, leniently, as Apache's `mod_rewrite` sees a path. A `+`
//! stays a `+`: it means a space only in HTML form bodies, never in a path (the web mode
//! splits its words on `+` before decoding them).

use std::borrow::Cow;

/// `s` with every `%HH` decoded, once. Borrowed when there is nothing to decode.
pub fn percent_decode(s: &str) -> Cow<'_, [u8]> {
    decode(s.as_bytes(), b'%')
}

/// `s` with every `MARKER HH` decoded, once, for any marker (the egg binder language's
/// `:hx` family chooses its own). Borrowed when there is nothing to decode.
pub fn marker_decode(s: &str, marker: u8) -> Cow<'_, [u8]> {
    decode(s.as_bytes(), marker)
}

/// `s` with EggNog's flex escapes `^HH` decoded (bytes that are not UTF-8 replaced).
pub fn flex_decode(s: &str) -> Cow<'_, str> {
    match decode(s.as_bytes(), b'^') {
        Cow::Borrowed(_) => Cow::Borrowed(s),
        Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
    }
}

fn decode(b: &[u8], marker: u8) -> Cow<'_, [u8]> {
    if memchr::memchr(marker, b).is_none() {
        return Cow::Borrowed(b);
    }
    let hex = |c: Option<&u8>| c.and_then(|&c| char::from(c).to_digit(16));
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == marker {
            if let (Some(h), Some(l)) = (hex(b.get(i + 1)), hex(b.get(i + 2))) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_once_and_leniently() {
        assert_eq!(&*percent_decode("a%20b"), b"a b");
        assert_eq!(&*percent_decode("a%2520b"), b"a%20b");
        assert_eq!(&*percent_decode("%41%62"), b"Ab");
        assert_eq!(&*percent_decode("%"), b"%");
        assert_eq!(&*percent_decode("a%2"), b"a%2");
        assert_eq!(&*percent_decode("a%zz"), b"a%zz");
        assert_eq!(&*percent_decode("a+b"), b"a+b");
        assert_eq!(&*percent_decode("%e2%82%ac"), "€".as_bytes());
        assert_eq!(&*percent_decode("%3f"), b"?");
        assert_eq!(&*percent_decode("a%2Fb%zz%4"), b"a/b%zz%4");
        assert!(matches!(percent_decode("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn flex() {
        assert_eq!(flex_decode("a^20b"), "a b");
        assert_eq!(flex_decode("a^2"), "a^2");
        assert_eq!(flex_decode("a^zzb^"), "a^zzb^");
        assert_eq!(flex_decode("^5e^41"), "^A");
    }
}
