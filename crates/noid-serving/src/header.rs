//! Stored text written into an HTTP header field (a redirect's `Location`, `X-Target`):
//! every control character but TAB dropped, CR and LF above all, so that a bound target
//! can never end the field and inject one of its own. One rule for every server that
//! writes such a field: noid-http's responses and the nginx module's `Location`.

/// Whether `bytes` may be written into a header field as they are (no control but TAB).
#[inline]
pub fn is_clean(bytes: &[u8]) -> bool {
    // A fold without an early exit: the compiler checks many bytes at a time.
    bytes.iter().fold(true, |ok, &b| ok & allowed(b))
}

/// Append `bytes` to `out` without their controls but TAB.
pub fn clean_into(out: &mut Vec<u8>, bytes: &[u8]) {
    if is_clean(bytes) {
        out.extend_from_slice(bytes);
    } else {
        out.extend(bytes.iter().copied().filter(|&b| allowed(b)));
    }
}

#[inline]
fn allowed(b: u8) -> bool {
    b == b'\t' || (b >= 0x20 && b != 0x7f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_but_tab_are_dropped() {
        let mut out = Vec::new();
        clean_into(&mut out, b"https://e.org/a\r\nX-Evil: 1\x00\x7f\tb");
        assert_eq!(out, b"https://e.org/aX-Evil: 1\tb");
        assert!(is_clean("https://e.org/€ a\tb".as_bytes()));
        assert!(!is_clean(b"a\rb"));
        assert!(!is_clean(b"a\x1bb"));
    }
}
