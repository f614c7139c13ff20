//! The EggNog `rrm` line protocol (N2T's RewriteMap resolver): one request line
//! `ID.resolve[ HEADERBLOB]`, one answer line.
//!
//! Answers (always exactly one line, embedded CR/LF deleted, NUL written `%00`):
//!
//! | answer | line |
//! |---|---|
//! | redirect | `redirNNN TARGET` (`redir302 …` by default, `redir303` for conneg) |
//! | redirect, `signposting on`, a bound identifier | `redirNNN TARGET<TAB>LINK` (its `Link` header's value, [`crate::signpost`]) |
//! | inflection, no target bound | `inflect "op=arkinflect" "id=ID" "suffix=%3f"` |
//! | conneg for a metadata type | `inflect "op=cn.application/json" "id=ID"` |
//! | several targets | `inflect "op=multi" "id=ID" "target=A" "target=B"` |
//! | partial id | `inflect "op=partial" "partial=ark:/99999"` |
//! | partial id with a registry record | `inflect "op=partial" "partial=ark:/99999" "name=…" "provider=CODE%20PATTERN" … "below=ark:/99999/fk4"` |
//! | `*/ID` | `inflect "op=providers" "id=ID" "prefix=pdb:" "target=URL1" "target=URL2" "down=CODE"` |
//! | not found | `NULL` (default) or EggNog's `redir302 ` ([`Miss::Eggnog`]) |
//! | malformed request, storage error | `error: …` |
//!
//! `NULL` is the default miss answer because Apache's prg protocol treats `NULL` as
//! "not found" (so `${map:key|default}` works), while EggNog's empty-target line needs a
//! dedicated `^_rslv_redir3.. $` rule. Inflect arguments are `"name=value"` with space,
//! `?`, tab, `"`, `%`, CR and LF hex-encoded as `%hh` (lower case, as EggNog).
//!
//! The header blob (built by the Apache config from request headers) is %-decoded once,
//! then `!!!pr=http|https!!!` (protocol) and `!!!ac=ACCEPT!!!` are taken from it.

use std::borrow::Cow;

use crate::outcome::Outcome;
use crate::resolve::{Answer, Request, Resolver};
use noid_core::lookup::Lookup;
use noid_core::unescape::percent_decode;

/// What a miss is answered with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Miss {
    /// `NULL`: Apache's prg protocol reads it as "not found" (the default).
    #[default]
    Null,
    /// `redir302 ` with an empty target, as EggNog answers.
    Eggnog,
}

/// One parsed request line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EggRequest<'a> {
    /// The identifier (invalid UTF-8 bytes arrive `%XX`-encoded).
    pub id: Cow<'a, str>,
    /// `!!!ac=…!!!` from the header blob.
    pub accept: Option<Cow<'a, str>>,
    /// `!!!pr=…!!!` from the header blob.
    pub proto: Option<Cow<'a, str>>,
}

/// Why a line is not a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EggError {
    /// The line has no `.resolve` method.
    NotResolve,
}

impl std::fmt::Display for EggError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EggError::NotResolve => {
                f.write_str("expected \"ID.resolve\" or \"ID.resolve HEADERS\"")
            }
        }
    }
}

impl std::error::Error for EggError {}

const METHOD: &str = ".resolve";

/// Parse a request line (without its line terminator). `Ok(None)` for a blank line,
/// which is answered as a miss.
pub fn parse_line(line: &[u8]) -> Result<Option<EggRequest<'_>>, EggError> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let text = escape_invalid_utf8(line);
    let (id_end, blob_start) = split_request(text.as_bytes()).ok_or(EggError::NotResolve)?;
    fn fields(t: &str, blob_start: Option<usize>) -> Fields<'_> {
        match blob_start {
            Some(start) => header_fields(&t[start..]),
            None => (None, None),
        }
    }
    Ok(Some(match text {
        Cow::Borrowed(t) => {
            let (accept, proto) = fields(t, blob_start);
            EggRequest {
                id: Cow::Borrowed(&t[..id_end]),
                accept,
                proto,
            }
        }
        Cow::Owned(mut t) => {
            let (accept, proto) = fields(&t, blob_start);
            let owned = |v: Option<Cow<'_, str>>| v.map(|v| Cow::Owned(v.into_owned()));
            let (accept, proto) = (owned(accept), owned(proto));
            t.truncate(id_end);
            EggRequest {
                id: Cow::Owned(t),
                accept,
                proto,
            }
        }
    }))
}

/// Where the identifier ends and the header blob, if any, starts in a request line.
fn split_request(b: &[u8]) -> Option<(usize, Option<usize>)> {
    // A blob made of raw headers may hold spaces: its `!!!` marker is unambiguous.
    for sp in memchr::memchr_iter(b' ', b) {
        if b[..sp].ends_with(METHOD.as_bytes()) && b[sp + 1..].starts_with(b"!!!") {
            return Some((sp - METHOD.len(), Some(sp + 1)));
        }
    }
    if b.ends_with(METHOD.as_bytes()) {
        return Some((b.len() - METHOD.len(), None));
    }
    let sp = memchr::memrchr(b' ', b)?;
    b[..sp]
        .ends_with(METHOD.as_bytes())
        .then(|| (sp - METHOD.len(), Some(sp + 1)))
}

/// The identifier of a request line as sent (its bytes before `.resolve`, found as
/// [`parse_line`] finds them), without parsing the rest: for the resolution counts.
#[inline]
pub fn request_identifier(line: &[u8]) -> Option<&[u8]> {
    split_request(line).map(|(end, _)| &line[..end])
}

/// Invalid UTF-8 bytes become `%XX`: Apache hands over %-decoded URLs, so this restores
/// the URL spelling of such bytes (which then pass through into a suffix unchanged).
fn escape_invalid_utf8(line: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(line) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut out = String::with_capacity(line.len() + 16);
            for chunk in line.utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            Cow::Owned(out)
        }
    }
}

/// A request's `Accept` and protocol.
type Fields<'a> = (Option<Cow<'a, str>>, Option<Cow<'a, str>>);

/// %-decode the blob once and extract `!!!ac=…!!!` and `!!!pr=…!!!`; borrowed from the
/// line when the blob holds no `%` (as for a request without an `Accept` header). The
/// markers are ASCII, so a value cut from the whole blob (made UTF-8 once, bytes that
/// are not replaced) is the value decoded on its own.
fn header_fields(blob: &str) -> Fields<'_> {
    match percent_decode(blob) {
        Cow::Borrowed(_) => (
            field(blob, b"!!!ac=").map(Cow::Borrowed),
            field(blob, b"!!!pr=").map(Cow::Borrowed),
        ),
        Cow::Owned(b) => {
            let text = String::from_utf8_lossy(&b);
            let owned = |v: Option<&str>| v.map(|v| Cow::Owned(v.to_owned()));
            (
                owned(field(&text, b"!!!ac=")),
                owned(field(&text, b"!!!pr=")),
            )
        }
    }
}

/// The value after `name` (`!!!ac=`, ending in `=`) up to the next `!!!` (or the end),
/// trimmed; `None` if absent or empty. The name is found by its `=` (a blob has few),
/// the end by its `!`: `memmem` would set up a searcher per call, which cost more than
/// the whole search in these short blobs.
fn field<'b>(blob: &'b str, name: &[u8]) -> Option<&'b str> {
    let b = blob.as_bytes();
    let eq = positions(b'=', b).find(|&e| b[..=e].ends_with(name))?;
    let rest = &b[eq + 1..];
    let len = positions(b'!', rest)
        .find(|&i| rest[i..].starts_with(b"!!!"))
        .unwrap_or(rest.len());
    // Cut at ASCII bytes (`=`, `!`): character boundaries.
    let value = trim(&blob[eq + 1..eq + 1 + len]);
    (!value.is_empty()).then_some(value)
}

/// Where `byte` occurs in `hay`: a plain loop over a blob as short as Apache's for a
/// request without `Accept` (`memchr` costs more to set up than such a search), memchr
/// over a longer one.
fn positions(byte: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    const SHORT: usize = 48;
    let (short, long) = if hay.len() <= SHORT {
        (Some(hay.iter().enumerate()), None)
    } else {
        (None, Some(memchr::memchr_iter(byte, hay)))
    };
    let short = short
        .into_iter()
        .flatten()
        .filter_map(move |(i, &c)| (c == byte).then_some(i));
    short.chain(long.into_iter().flatten())
}

/// `s` without leading and trailing white space, as `str::trim`; a value that starts
/// and ends with a visible ASCII character (the usual case) is not decoded to find out.
fn trim(s: &str) -> &str {
    let visible = |c: Option<&u8>| c.is_some_and(u8::is_ascii_graphic);
    if visible(s.as_bytes().first()) && visible(s.as_bytes().last()) {
        s
    } else {
        s.trim()
    }
}

/// Answer one request line: append exactly one line (with its `\n`) to `out`, and say
/// what kind of answer it is.
pub fn answer<L: Lookup + ?Sized>(
    resolver: &Resolver,
    l: &L,
    line: &[u8],
    miss: Miss,
    out: &mut Vec<u8>,
) -> Outcome {
    match parse_line(line) {
        Ok(None) => {
            render(&Answer::NotFound, miss, out);
            Outcome::Miss
        }
        Ok(Some(req)) => {
            let r = Request {
                id: &req.id,
                accept: req.accept.as_deref(),
                proto: req.proto.as_deref(),
            };
            match resolver.resolve_counted(l, &r) {
                Ok((a, outcome)) => {
                    let at = out.len();
                    render(&a, miss, out);
                    if resolver.rules().signposting {
                        signpost(resolver, l, &r, &a, at, out);
                    }
                    outcome
                }
                Err(e) => {
                    error_line(&e, out);
                    Outcome::Error
                }
            }
        }
        Err(e) => {
            error_line(&e, out);
            Outcome::Error
        }
    }
}

/// With `signposting on`, a redirect (3xx) of a bound identifier's own record carries
/// its signposts ([`crate::signpost`]) after a tab: `redirNNN TARGET<TAB>LINK`, LINK
/// being the `Link` header's value the web servers send with the redirect (the shipped
/// configurations and both modules split it off). A tab in the target is written `%09`
/// then, so that the first tab always ends it. Signposts that cannot be read (a store
/// error) leave the line as it is.
fn signpost<L: Lookup + ?Sized>(
    resolver: &Resolver,
    l: &L,
    r: &Request<'_>,
    answer: &Answer,
    at: usize,
    out: &mut Vec<u8>,
) {
    if !matches!(answer, Answer::Redirect { code, .. } if (300..400).contains(code)) {
        return;
    }
    let Ok(Some(signposts)) = resolver.signposts(l, r) else {
        return;
    };
    let newline = out.last() == Some(&b'\n');
    if newline {
        out.pop();
    }
    if out[at..].contains(&b'\t') {
        let line = out.split_off(at);
        for &b in &line {
            match b {
                b'\t' => out.extend_from_slice(b"%09"),
                _ => out.push(b),
            }
        }
    }
    out.push(b'\t');
    out.extend_from_slice(signposts.link_header().as_bytes());
    if newline {
        out.push(b'\n');
    }
}

/// Append `error: MESSAGE\n`, the message made single-line as every answer of this
/// protocol is: every error answer, a request's or the store's, is written here.
pub fn error_line(e: &dyn std::fmt::Display, out: &mut Vec<u8>) {
    out.extend_from_slice(b"error: ");
    push_clean(e.to_string().as_bytes(), out);
    out.push(b'\n');
}

/// Append bytes without CR/LF (deleted, as EggNog does); NUL becomes `%00`, because
/// httpd reads the answer as a C string and would cut it there.
fn push_clean(b: &[u8], out: &mut Vec<u8>) {
    if memchr::memchr3(b'\n', b'\r', b'\0', b).is_none() {
        out.extend_from_slice(b);
        return;
    }
    for &c in b {
        match c {
            b'\n' | b'\r' => {}
            b'\0' => out.extend_from_slice(b"%00"),
            _ => out.push(c),
        }
    }
}

/// Render an answer as one egg protocol line (with its `\n`).
pub fn render(answer: &Answer, miss: Miss, out: &mut Vec<u8>) {
    match answer {
        Answer::Redirect { code, target } => {
            out.extend_from_slice(b"redir");
            push_code(*code, out);
            out.push(b' ');
            push_clean(target.as_bytes(), out);
        }
        Answer::Tombstone { text, .. } => {
            out.extend_from_slice(b"redir410 ");
            push_clean(text.as_bytes(), out);
        }
        // A line can only redirect: to the archived copy the page would link to.
        Answer::Archived { url, .. } => {
            out.extend_from_slice(b"redir302 ");
            push_clean(url.as_bytes(), out);
        }
        Answer::NotFound => match miss {
            Miss::Null => out.extend_from_slice(b"NULL"),
            Miss::Eggnog => out.extend_from_slice(b"redir302 "),
        },
        Answer::Inflection { id, suffix, .. } => {
            inflect(out, &[("op", "arkinflect"), ("id", id), ("suffix", suffix)])
        }
        Answer::Negotiate { id, media_type, .. } => {
            let op = format!("cn.{media_type}");
            inflect(out, &[("op", &op), ("id", id)]);
        }
        Answer::Multi { id, targets } => {
            let mut args = vec![("op", "multi"), ("id", id.as_str())];
            args.extend(targets.iter().map(|t| ("target", t.as_str())));
            inflect(out, &args);
        }
        Answer::Partial { key, .. } => inflect(out, &[("op", "partial"), ("partial", key)]),
        Answer::Record { key, records, .. } => {
            // EggNog's partial answer, the record's elements after it.
            let mut args = vec![
                ("op", Cow::Borrowed("partial")),
                ("partial", Cow::Borrowed(key.as_str())),
            ];
            if let Some((first, below)) = records.split_first() {
                args.extend(first.anvl().into_iter().skip(1));
                args.extend(
                    below
                        .iter()
                        .map(|r| ("below", Cow::Borrowed(r.prefix.as_str()))),
                );
            }
            let args: Vec<(&str, &str)> = args.iter().map(|(n, v)| (*n, v.as_ref())).collect();
            inflect(out, &args);
        }
        Answer::Providers {
            id,
            prefix,
            targets,
        } => {
            let mut args = vec![
                ("op", "providers"),
                ("id", id.as_str()),
                ("prefix", prefix.as_str()),
            ];
            args.extend(targets.iter().map(|t| ("target", t.target.as_str())));
            args.extend(
                targets
                    .iter()
                    .filter(|t| !t.healthy)
                    .map(|t| ("down", t.code.as_str())),
            );
            inflect(out, &args);
        }
    }
    out.push(b'\n');
}

fn push_code(code: u16, out: &mut Vec<u8>) {
    let code = code.min(999);
    out.extend_from_slice(&[
        b'0' + (code / 100) as u8,
        b'0' + (code / 10 % 10) as u8,
        b'0' + (code % 10) as u8,
    ]);
}

fn inflect(out: &mut Vec<u8>, args: &[(&str, &str)]) {
    out.extend_from_slice(b"inflect");
    for (name, value) in args {
        out.extend_from_slice(b" \"");
        out.extend_from_slice(name.as_bytes());
        out.push(b'=');
        for &c in value.as_bytes() {
            match c {
                b' ' | b'?' | b'\t' | b'"' | b'%' | b'\r' | b'\n' => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(&[b'%', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]);
                }
                _ => out.push(c),
            }
        }
        out.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_forms() {
        let r = parse_line(b"ark:/1/a b.resolve").unwrap().unwrap();
        assert_eq!(r.id, "ark:/1/a b");
        assert_eq!(r.accept, None);
        let r = parse_line(b"ark:/1/a b.resolve !!!pr=https!!!!!!ac=application%2Fjson!!!")
            .unwrap()
            .unwrap();
        assert_eq!(r.id, "ark:/1/a b");
        assert_eq!(r.accept.as_deref(), Some("application/json"));
        assert_eq!(r.proto.as_deref(), Some("https"));
        let r = parse_line(b"x.resolve.resolve").unwrap().unwrap();
        assert_eq!(r.id, "x.resolve");
        let r = parse_line(b"x\xff.resolve").unwrap().unwrap();
        assert_eq!(r.id, "x%FF");
        assert_eq!(parse_line(b"   ").unwrap(), None);
        assert_eq!(parse_line(b"").unwrap(), None);
        assert_eq!(parse_line(b"x.fetch").unwrap_err(), EggError::NotResolve);
        assert_eq!(parse_line(b".resolve").unwrap().unwrap().id, "");
    }

    /// The blob is %-decoded before its markers are looked for; values are trimmed, an
    /// empty one is absent, bytes that are not UTF-8 are replaced, and a value ends at the
    /// next `!!!` or at the end of the blob.
    #[test]
    fn header_blob_fields() {
        let r = parse_line(b"x\xfe.resolve %21%21%21ac=%FF%20text/html%20!!!!!!pr=!!!")
            .unwrap()
            .unwrap();
        assert_eq!(r.id, "x%FE");
        assert_eq!(r.accept.as_deref(), Some("\u{FFFD} text/html"));
        assert_eq!(r.proto, None);
        // What Apache's config sends for a request without Accept: read in place.
        let r = parse_line(b"x.resolve !!!pr=http!!!!!!ac=!!!")
            .unwrap()
            .unwrap();
        assert_eq!(r.proto, Some(Cow::Borrowed("http")));
        assert_eq!(r.accept, None);
        let r = parse_line(b"x.resolve !!!zz=!!pr=1!!!ac=a!b!!c!!!")
            .unwrap()
            .unwrap();
        assert_eq!(r.proto, None);
        assert_eq!(r.accept.as_deref(), Some("a!b!!c"));
        let r = parse_line(b"x.resolve !!!pr=http!!!ac=*/*")
            .unwrap()
            .unwrap();
        assert_eq!(r.proto.as_deref(), Some("http"));
        assert_eq!(r.accept.as_deref(), Some("*/*"));
        // Trimmed as `str::trim` trims: ASCII white space (vertical tab too) and
        // Unicode's (an em space, U+2003), but not inside the value.
        let r = parse_line("x.resolve !!!pr=\x0bhttp \u{2003}!!!ac= a b\t!!!".as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!(r.proto, Some(Cow::Borrowed("http")));
        assert_eq!(r.accept, Some(Cow::Borrowed("a b")));
        let r = parse_line(b"x.resolve !!!pr=%20https%0B!!!ac=\xff!!!")
            .unwrap()
            .unwrap();
        assert_eq!(r.proto.as_deref(), Some("https"));
        assert_eq!(r.accept.as_deref(), Some("\u{FFFD}"));
    }

    #[test]
    fn render_lines() {
        let mut out = Vec::new();
        render(
            &Answer::Redirect {
                code: 301,
                target: "a\nb".into(),
            },
            Miss::Null,
            &mut out,
        );
        render(&Answer::NotFound, Miss::Null, &mut out);
        render(&Answer::NotFound, Miss::Eggnog, &mut out);
        render(
            &Answer::Inflection {
                id: "ark:/1/x".into(),
                suffix: "??".into(),
                bindings: vec![],
            },
            Miss::Null,
            &mut out,
        );
        render(
            &Answer::Partial {
                key: "ark:/99999".into(),
                bindings: vec![],
            },
            Miss::Null,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "redir301 ab\nNULL\nredir302 \n\
             inflect \"op=arkinflect\" \"id=ark:/1/x\" \"suffix=%3f%3f\"\n\
             inflect \"op=partial\" \"partial=ark:/99999\"\n"
        );
    }

    #[test]
    fn nul_and_newlines_in_targets() {
        let mut out = Vec::new();
        render(
            &Answer::Redirect {
                code: 302,
                target: "a\0b\r\nc".into(),
            },
            Miss::Null,
            &mut out,
        );
        assert_eq!(out, b"redir302 a%00bc\n");
    }
}
