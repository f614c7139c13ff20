//! Targets and templating: a stored target's redirect code, `${…}` placeholders and
//! suffix, the protocol of a rule's target, prefix extension, single-line answers.

use super::answer::Answer;
use super::passthrough;
use noid_core::ident::Parsed;

/// `^([34][01][0123478]) +(.*)`: a leading redirect code. EggNog's class is
/// `[012347]`; 308 (Permanent Redirect) is accepted too, on purpose. The link checker
/// reads stored targets with it too.
pub fn split_code(text: &str) -> (Option<u16>, &str) {
    let b = text.as_bytes();
    if b.len() >= 4
        && matches!(b[0], b'3' | b'4')
        && matches!(b[1], b'0' | b'1')
        && matches!(b[2], b'0'..=b'4' | b'7' | b'8')
        && b[3] == b' '
    {
        let code = (b[0] - b'0') as u16 * 100 + (b[1] - b'0') as u16 * 10 + (b[2] - b'0') as u16;
        return (Some(code), text[4..].trim_start_matches(' '));
    }
    (None, text)
}

/// A redirect to an inflection or metadata target (code from the value, else `default`).
pub(super) fn redirect(value: &[u8], default: u16, ext: Option<&str>) -> Answer {
    let text = String::from_utf8_lossy(value);
    let (code, target) = split_code(text.trim_matches(['\r', '\n']));
    let mut target = strip_newlines(target.to_string());
    if let Some(ext) = ext {
        target = apply_extension(&target, ext);
    }
    Answer::Redirect {
        code: code.unwrap_or(default),
        target,
    }
}

/// Protocol for rules, placeholders and suffix, prefix extension. Text from the
/// request goes in through [`passthrough`], which keeps it from changing the target's
/// scheme, authority or host.
pub(super) fn finish_target(
    target: &str,
    suffix: &str,
    p: Option<&Parsed>,
    proto: Option<&str>,
    ext: Option<&str>,
) -> String {
    // The protocol first, so that the authority it introduces is known to passthrough.
    let with_proto;
    let target = match proto {
        Some(proto) if !has_url_scheme(target) => {
            with_proto = format!("{proto}://{target}");
            &with_proto
        }
        _ => target,
    };
    let mut out = substitute(target, suffix, p);
    if let Some(ext) = ext {
        out = apply_extension(&out, ext);
    }
    strip_newlines(out)
}

/// Replace `${suffix}`, `${id}`, `${blade}`, `${nlid}`, `${naan}`, `${scheme}` (every
/// occurrence); when the target has none of them, append the suffix.
fn substitute(target: &str, suffix: &str, p: Option<&Parsed>) -> String {
    if !has_placeholder(target) {
        let mut s = String::with_capacity(target.len() + suffix.len() + 1);
        s.push_str(target);
        passthrough::push(&mut s, suffix, None);
        return s;
    }
    let mut out = String::with_capacity(target.len() + suffix.len() + 32);
    let mut rest = target;
    let mut any = false;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let name = &after[..close];
        let value = match (name, p) {
            ("suffix", _) => Some(suffix),
            ("id", Some(p)) => Some(p.local_id()),
            ("blade", Some(p)) => Some(p.blade()),
            ("nlid", Some(p)) => Some(p.nlid()),
            ("naan", Some(p)) => Some(p.naan().unwrap_or("")),
            ("scheme", Some(p)) => Some(p.scheme_key().trim_end_matches(':')),
            _ => None,
        };
        let literal = &rest[i..i + 3 + close];
        rest = &after[close + 1..];
        match value {
            Some(v) => {
                passthrough::push(&mut out, v, rest.bytes().next());
                any = true;
            }
            None => out.push_str(literal),
        }
    }
    out.push_str(rest);
    if !any {
        passthrough::push(&mut out, suffix, None);
    }
    out
}

fn has_url_scheme(s: &str) -> bool {
    match s.find("://") {
        Some(i) if i > 0 => {
            let b = s.as_bytes();
            b[0].is_ascii_alphabetic()
                && b[..i]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        }
        _ => false,
    }
}

/// Prefix extension: `-dev-2a` goes to the end of the target's first host label
/// (`http://a.b.org/x` → `http://a-dev-2a.b.org/x`).
fn apply_extension(target: &str, ext: &str) -> String {
    let host = if has_url_scheme(target) {
        target.find("://").map_or(0, |i| i + 3)
    } else {
        0
    };
    let label_end = target[host..]
        .find(['.', '/', ':', '?', '#'])
        .map_or(target.len(), |i| host + i);
    let mut out = String::with_capacity(target.len() + ext.len());
    out.push_str(&target[..label_end]);
    // From the request (`ark:/12345-dev@evil.example?/x`): host text only.
    passthrough::push_host(&mut out, ext);
    out.push_str(&target[label_end..]);
    out
}

/// Schemes a redirect never goes to: a browser would run the target as a script
/// (`javascript:`, `vbscript:`) or show it as a document of the resolver's making
/// (`data:`). Browsers refuse to follow them today; the resolver does not rely on it.
const SCRIPT_SCHEMES: [&[u8]; 3] = [b"javascript", b"vbscript", b"data"];

/// Whether `target`'s scheme is one of [`SCRIPT_SCHEMES`], read as a browser reads it:
/// leading spaces and controls skipped, TAB, CR and LF anywhere ignored, any case.
pub(super) fn is_script_url(target: &str) -> bool {
    // Every redirect passes here: an `http(s)` target is told by its first byte.
    if !matches!(
        target.as_bytes().first(),
        Some(b'\0'..=b' ' | b'd' | b'D' | b'j' | b'J' | b'v' | b'V')
    ) {
        return false;
    }
    let mut scheme = [0u8; 10];
    let bytes = target.bytes().skip_while(|&b| b <= b' ');
    let read = bytes.filter(|b| !matches!(b, b'\t' | b'\r' | b'\n'));
    for (len, b) in read.enumerate() {
        if b == b':' {
            return SCRIPT_SCHEMES.contains(&&scheme[..len]);
        }
        if len == scheme.len() || !b.is_ascii_alphabetic() {
            return false;
        }
        scheme[len] = b.to_ascii_lowercase();
    }
    false
}

/// Answers are single lines: embedded CR and LF are deleted (as EggNog does).
pub(super) fn strip_newlines(mut s: String) -> String {
    if memchr::memchr2(b'\r', b'\n', s.as_bytes()).is_some() {
        s.retain(|c| c != '\r' && c != '\n');
    }
    s
}

/// Whether `s` holds `${` (a placeholder); memchr-based, this runs on every hit.
pub(super) fn has_placeholder(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'$', b).any(|i| b.get(i + 1) == Some(&b'{'))
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn codes() {
        assert_eq!(split_code("301 zaf"), (Some(301), "zaf"));
        assert_eq!(split_code("410 zaf"), (Some(410), "zaf"));
        assert_eq!(split_code("308   zaf"), (Some(308), "zaf"));
        assert_eq!(split_code("999 zaf"), (None, "999 zaf"));
        assert_eq!(split_code("305 zaf"), (None, "305 zaf"));
        assert_eq!(split_code("301zaf"), (None, "301zaf"));
        assert_eq!(split_code("301"), (None, "301"));
    }

    #[test]
    fn script_urls() {
        for t in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            " \u{1}javascript:alert(1)",
            "java\tscript:alert(1)",
            "vbscript:msgbox(1)",
            "data:text/html,<script>alert(1)</script>",
            "DATA:,x",
        ] {
            assert!(is_script_url(t), "{t:?}");
        }
        for t in [
            "https://example.org/javascript:x",
            "/javascript:x",
            "javascripts:x",
            "datum:x",
            "zaf",
            "",
            "mailto:a@example.org",
        ] {
            assert!(!is_script_url(t), "{t:?}");
        }
    }

    #[test]
    fn extension() {
        assert_eq!(
            apply_extension("http://a.b.org", "-dev-2a"),
            "http://a-dev-2a.b.org"
        );
        assert_eq!(
            apply_extension("https://z.b.example.com/x", "-dev"),
            "https://z-dev.b.example.com/x"
        );
        assert_eq!(
            apply_extension("localhost:8080/x", "-dev"),
            "localhost-dev:8080/x"
        );
    }
}
