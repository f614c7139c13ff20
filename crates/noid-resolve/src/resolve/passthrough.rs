//! Where text from the request goes into a target: a passed-through suffix, a `${…}`
//! placeholder's value, a forwarded identifier, a prefix extension. The one rule: such
//! text never changes the target's scheme, authority or host.
//!
//! Appending blindly would: with `_t = https://example.org`, the request
//! `/99999/x@evil.example` would redirect to `https://example.org@evil.example` (host
//! `evil.example`, `example.org` read as a user name) and `/99999/x.evil.example` to
//! `https://example.org.evil.example`. So the text written so far decides:
//!
//! * after the authority (a `/`, `?`, `#` or `\` follows `scheme://host`): the value goes
//!   in as it is, as it always did (`https://e.org/d/` + `rv8b/chap3`);
//! * at the end of a non-empty authority (`https://example.org`, the value ending the
//!   template or followed by `/`, `?`, `#`, `\` or `$`): the value starts the path, so a
//!   `/` is supplied unless it begins with `/`, `?` or `#` (a `?query` or `#fragment`
//!   follows the authority directly: `https://example.org?q=1` is the same URL as
//!   `https://example.org/?q=1`);
//! * inside the authority (`https://${blade}.example.org/`), or in a target that names no
//!   host (`https://`): the value can only be host text: every byte but ASCII letters,
//!   digits, `-`, `.`, `_` and `~` is %-encoded, so `@`, `:`, `/`, `?`, `#`, `\` and `%`
//!   cannot end the host or add a user name or a port (a browser refuses a host holding
//!   `%40`);
//! * in a relative target (`zaf`, `/x`): the value cannot make it a network-path
//!   reference (`/` + `/evil.example` is `//evil.example` to a browser, as are
//!   `/\evil.example` and `/\t/evil.example`, browsers deleting TAB) or give it a scheme
//!   (`${suffix}` + `https://evil.example`): a second leading `/` or `\`, TAB, CR and LF,
//!   and a `:` before the first `/`, `?` or `#`, are %-encoded.

use std::fmt::Write;

/// Append `value` to `out` (the target written so far) as passthrough text; `next` is
/// the template's byte right after the value (`None` at its end).
pub(super) fn push(out: &mut String, value: &str, next: Option<u8>) {
    if value.is_empty() {
        return;
    }
    match authority_state(out) {
        Authority::Closed => out.push_str(value),
        Authority::Open { empty: false } if ends_authority(next) => {
            if !value.starts_with(['/', '?', '#']) {
                out.push('/');
            }
            out.push_str(value);
        }
        Authority::Open { .. } => push_host(out, value),
        Authority::None => push_relative(out, value),
    }
}

/// Append `value` as host text: every byte but ASCII letters, digits, `-`, `.`, `_`
/// and `~` %-encoded (a prefix extension, a placeholder inside the host).
pub(super) fn push_host(out: &mut String, value: &str) {
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            percent(out, b);
        }
    }
}

fn percent(out: &mut String, b: u8) {
    let _ = write!(out, "%{b:02X}");
}

/// Whether the template byte after a value ends an authority the value is written at
/// the end of (`$`: another placeholder; a host cannot hold `$`).
fn ends_authority(next: Option<u8>) -> bool {
    matches!(next, None | Some(b'/' | b'?' | b'#' | b'\\' | b'$'))
}

/// Where the text written so far stands.
#[derive(Debug, PartialEq, Eq)]
enum Authority {
    /// A `scheme:` and nothing after it but `/` and `\`, or `scheme://` and an authority
    /// not yet ended (`empty`: no host text yet).
    Open { empty: bool },
    /// An absolute URL past its authority, or one with none (`mailto:a@b`, `urn:x`).
    Closed,
    /// No scheme: a relative reference (or nothing yet).
    None,
}

fn authority_state(out: &str) -> Authority {
    let Some(colon) = scheme_end(out) else {
        return Authority::None;
    };
    let rest = &out.as_bytes()[colon + 1..];
    let slashes = rest
        .iter()
        .take_while(|&&b| b == b'/' || b == b'\\')
        .count();
    if slashes == rest.len() {
        return Authority::Open { empty: true };
    }
    if slashes < 2 {
        return Authority::Closed;
    }
    match memchr::memchr3(b'/', b'?', b'#', &rest[slashes..]) {
        Some(_) => Authority::Closed,
        None if rest[slashes..].contains(&b'\\') => Authority::Closed,
        None => Authority::Open { empty: false },
    }
}

/// The index of the `:` ending `out`'s scheme (`[A-Za-z][A-Za-z0-9+.-]*:`), if it has
/// one.
fn scheme_end(out: &str) -> Option<usize> {
    let b = out.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let end = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')))?;
    (b[end] == b':').then_some(end)
}

/// Append `value` to a relative reference without letting it become a network-path
/// reference or gain a scheme.
fn push_relative(out: &mut String, value: &str) {
    // Leading slashes so far (`\` is read as `/` by browsers), if nothing else yet.
    let mut leading = out
        .bytes()
        .all(|b| b == b'/' || b == b'\\')
        .then_some(out.len());
    // Whether a `:` now would end a scheme: nothing but scheme characters so far.
    let mut in_first = !out.bytes().any(|b| matches!(b, b'/' | b'?' | b'#' | b'\\'));
    for (i, c) in value.char_indices() {
        let b = c as u32;
        match (c, leading) {
            // Browsers delete TAB, CR and LF from a URL: `/` + `\t/evil.example` would
            // be `//evil.example`. %-encoded, they are characters of the path.
            ('\t' | '\r' | '\n', _) => {
                percent(out, b as u8);
                leading = None;
            }
            ('/' | '\\', Some(n)) if n >= 1 => percent(out, b as u8),
            ('/' | '\\', Some(n)) => {
                out.push(c);
                leading = Some(n + 1);
                in_first = false;
            }
            _ => {
                leading = None;
                if c == ':' && in_first && scheme_like(out) {
                    percent(out, b':');
                } else {
                    out.push(c);
                }
                if matches!(c, '/' | '?' | '#' | '\\') {
                    in_first = false;
                }
                if !in_first {
                    out.push_str(&value[i + c.len_utf8()..]);
                    return;
                }
            }
        }
    }
}

/// Whether `s` could be a scheme name if a `:` followed (or is empty: a `:` first is
/// no scheme, but nothing is lost by encoding it).
fn scheme_like(s: &str) -> bool {
    s.bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `target` with `value` appended as a suffix without placeholder is.
    fn appended(target: &str, value: &str) -> String {
        let mut s = target.to_string();
        push(&mut s, value, None);
        s
    }

    #[test]
    fn a_suffix_never_changes_the_host_of_a_target_without_path() {
        let t = "https://example.org";
        assert_eq!(
            appended(t, "@evil.example"),
            "https://example.org/@evil.example"
        );
        assert_eq!(
            appended(t, ".evil.example"),
            "https://example.org/.evil.example"
        );
        assert_eq!(appended(t, ":8080"), "https://example.org/:8080");
        assert_eq!(
            appended(t, "//evil.example"),
            "https://example.org//evil.example"
        );
        assert_eq!(
            appended(t, "\\evil.example"),
            "https://example.org/\\evil.example"
        );
        assert_eq!(appended(t, "rv8b/chap3"), "https://example.org/rv8b/chap3");
        assert_eq!(appended(t, "/chap3"), "https://example.org/chap3");
        // A query or fragment follows the authority directly (the same URL as with `/`).
        assert_eq!(appended(t, "?q=1"), "https://example.org?q=1");
        assert_eq!(appended(t, "#top"), "https://example.org#top");
        // With a port, and with a user name: the whole authority is kept.
        assert_eq!(
            appended("http://example.org:8080", "@evil.example"),
            "http://example.org:8080/@evil.example"
        );
        assert_eq!(
            appended("https://user@example.org", "@evil.example"),
            "https://user@example.org/@evil.example"
        );
    }

    #[test]
    fn after_the_authority_a_suffix_is_appended_as_it_always_was() {
        assert_eq!(
            appended("https://example.org/", "@evil.example"),
            "https://example.org/@evil.example"
        );
        assert_eq!(
            appended("https://example.org/d", ".evil.example"),
            "https://example.org/d.evil.example"
        );
        assert_eq!(
            appended("https://example.org/d?a=1", "/x"),
            "https://example.org/d?a=1/x"
        );
        assert_eq!(
            appended("https://example.org?a=", "@evil.example"),
            "https://example.org?a=@evil.example"
        );
        assert_eq!(
            appended("https://example.org#f", "@x"),
            "https://example.org#f@x"
        );
        assert_eq!(
            appended("mailto:a@example.org", "x"),
            "mailto:a@example.orgx"
        );
    }

    #[test]
    fn inside_a_host_or_with_no_host_a_value_is_host_text() {
        // `https://${blade}.example.org/`
        let mut s = "https://".to_string();
        push(&mut s, "abc", Some(b'.'));
        assert_eq!(s, "https://abc");
        let mut s = "https://".to_string();
        push(&mut s, "evil.example/x?", Some(b'.'));
        assert_eq!(s, "https://evil.example%2Fx%3F");
        let mut s = "https://a".to_string();
        push(&mut s, "@evil.example:1", Some(b'.'));
        assert_eq!(s, "https://a%40evil.example%3A1");
        // A target naming no host.
        assert_eq!(appended("https://", "x@y/z"), "https://x%40y%2Fz");
        assert_eq!(
            appended("https:", "//evil.example"),
            "https:%2F%2Fevil.example"
        );
        let mut s = String::new();
        push_host(&mut s, "-dev-2a");
        assert_eq!(s, "-dev-2a");
    }

    #[test]
    fn a_relative_target_gets_no_authority_and_no_scheme() {
        assert_eq!(appended("/", "\t/evil.example"), "/%09/evil.example");
        assert_eq!(appended("", "/\t/evil.example"), "/%09/evil.example");
        assert_eq!(appended("java", "\tscript:x"), "java%09script:x");
        assert_eq!(
            appended("zaf", "/bar//zif?zaf=ab&cd"),
            "zaf/bar//zif?zaf=ab&cd"
        );
        assert_eq!(appended("/", "/evil.example"), "/%2Fevil.example");
        assert_eq!(appended("/", "\\evil.example"), "/%5Cevil.example");
        assert_eq!(appended("/x", "//y"), "/x//y");
        assert_eq!(appended("", "//evil.example/a//b"), "/%2Fevil.example/a//b");
        assert_eq!(
            appended("", "https://evil.example"),
            "https%3A//evil.example"
        );
        assert_eq!(appended("java", "script:alert(1)"), "javascript%3Aalert(1)");
        assert_eq!(appended("zaf", "x:y"), "zafx%3Ay");
        assert_eq!(appended("a/b", "x:y"), "a/bx:y");
        assert_eq!(appended("", "a/b:c"), "a/b:c");
    }
}
