//! Metadata pages: what `?`, `??`, content negotiation and partial identifiers show in
//! HTTP mode. ANVL `text/plain` by default, JSON for clients that ask for it, and for
//! an inflection HTML when the client prefers it (a browser; [`crate::html`]).
//!
//! ANVL (`name: value` lines, a record opened by `erc:`; a value's further lines are
//! continuation lines indented by four spaces; a `:` or `%` in a name is `%3a`/`%25`):
//!
//! ```text
//! erc:
//! who: Smith, J.
//! what: A title
//! when: 2020
//! where: ark:/12345/x
//! ```
//!
//! JSON: `{"id": "ark:/12345/x", "inflection": "?", "erc": {"who": "Smith, J.", …}}`,
//! names in the same order, bytes that are not UTF-8 replaced by U+FFFD.
//!
//! A brief inflection (`?`, `/`, `./`, `/?`, `./?`, `!`) shows the kernel elements
//! (`who what when where how`) only; `??` (and `?info`, which the resolver reports as
//! `??`) shows every element.
//!
//! An identifier's page (an inflection, negotiated metadata) ends with its standing
//! ([`identifier`]): `standing: good`, or `standing: not good` and what falls short, as
//! `noid standing` reports it.

use std::fmt::Write;

use noid_resolve::kernel::Standing;
use noid_resolve::{Accept, KERNEL, METADATA_TYPES};

/// Output format of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `text/plain` ANVL.
    Anvl,
    /// `application/json`.
    Json,
    /// `text/html`, for browsers asking for an identifier's metadata (`?`, `??`):
    /// see [`crate::html`].
    Html,
}

impl Format {
    /// JSON when the client prefers `application/json` to `text/plain` and
    /// `text/x-anvl` ([`noid_resolve::Accept`]'s weights and order); ANVL otherwise.
    pub fn from_accept(accept: Option<&str>) -> Format {
        let preferred = accept.and_then(|a| Accept::parse(a).preferred(&METADATA_TYPES));
        match preferred {
            Some("application/json") => Format::Json,
            _ => Format::Anvl,
        }
    }

    /// For an inflection page (`?`, `??`): HTML when the client prefers `text/html`
    /// to the metadata types, else as [`Format::from_accept`].
    pub fn for_inflection(accept: Option<&str>) -> Format {
        const CHOICES: [&str; 4] = [
            METADATA_TYPES[0],
            METADATA_TYPES[1],
            METADATA_TYPES[2],
            "text/html",
        ];
        match accept.and_then(|a| Accept::parse(a).preferred(&CHOICES)) {
            Some("text/html") => Format::Html,
            _ => Format::from_accept(accept),
        }
    }

    /// The `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Anvl => "text/plain; charset=utf-8",
            Format::Json => "application/json",
            Format::Html => "text/html; charset=utf-8",
        }
    }
}

/// Whether an inflection suffix asks for every element (`??`) or the kernel only.
pub fn is_full(suffix: &str) -> bool {
    suffix.ends_with("??")
}

/// An identifier's metadata page (an inflection or negotiated metadata): as
/// [`metadata`], followed by the identifier's standing, judged from all of its
/// `bindings` by [`Standing::of`], the function behind `noid standing` and the HTML
/// page. ANVL ends the record with `standing: good` or `standing: not good` and one
/// `missing: ELEM` or `malformed: ELEM: WHY` line per shortfall, as `noid standing`
/// words them; JSON adds `"standing":{"good":…,"missing":[…],"malformed":[{"element":…,
/// "why":…}]}` after `"erc"`. The HTML page shows the same facts (see [`crate::html`]).
pub fn identifier(
    fmt: Format,
    id: &str,
    inflection: Option<&str>,
    bindings: &[(String, Vec<u8>)],
    full: bool,
) -> String {
    let mut page = metadata(fmt, "id", id, inflection, bindings, full);
    let standing = Standing::of(bindings);
    match fmt {
        Format::Anvl => {
            let verdict = if standing.is_good() {
                "good"
            } else {
                "not good"
            };
            anvl_line(&mut page, "standing", verdict);
            for m in &standing.missing {
                anvl_line(&mut page, "missing", m);
            }
            for (elem, why) in &standing.malformed {
                anvl_line(&mut page, "malformed", &format!("{elem}: {why}"));
            }
        }
        Format::Json => {
            // Before the closing `}\n` of the page's object.
            page.truncate(page.len() - 2);
            let _ = write!(page, ",\"standing\":{{\"good\":{}", standing.is_good());
            page.push_str(",\"missing\":[");
            for (i, m) in standing.missing.iter().enumerate() {
                if i > 0 {
                    page.push(',');
                }
                json_str(&mut page, m);
            }
            page.push_str("],\"malformed\":[");
            for (i, (elem, why)) in standing.malformed.iter().enumerate() {
                if i > 0 {
                    page.push(',');
                }
                page.push_str("{\"element\":");
                json_str(&mut page, elem);
                page.push_str(",\"why\":");
                json_str(&mut page, &why.to_string());
                page.push('}');
            }
            page.push_str("]}}\n");
        }
        Format::Html => {}
    }
    page
}

/// A metadata page for `id` (or a partial key), with an optional inflection suffix.
pub fn metadata(
    fmt: Format,
    id_label: &str,
    id: &str,
    inflection: Option<&str>,
    bindings: &[(String, Vec<u8>)],
    full: bool,
) -> String {
    let shown = shown(bindings, full);
    match fmt {
        Format::Anvl => {
            let mut s = String::from("erc:\n");
            if !shown.iter().any(|(n, _)| *n == "where") && id_label != "id" {
                // partial ids have no `where`; say what was asked for
                anvl_line(&mut s, id_label, id);
            }
            for (n, v) in &shown {
                anvl_line(&mut s, n, v);
            }
            s
        }
        Format::Json => {
            let mut s = String::from("{");
            json_str(&mut s, id_label);
            s.push(':');
            json_str(&mut s, id);
            if let Some(inf) = inflection {
                s.push_str(",\"inflection\":");
                json_str(&mut s, inf);
            }
            s.push_str(",\"erc\":{");
            for (i, (n, v)) in shown.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                json_str(&mut s, n);
                s.push(':');
                json_str(&mut s, v);
            }
            s.push_str("}}\n");
            s
        }
        Format::Html => crate::html::page(id, &shown, bindings),
    }
}

/// The (name, value) pairs a page shows: every binding, or the kernel elements only.
pub(crate) fn shown(bindings: &[(String, Vec<u8>)], full: bool) -> Vec<(&str, String)> {
    bindings
        .iter()
        .filter(|(n, _)| full || KERNEL.contains(&n.as_str()))
        .map(|(n, v)| (n.as_str(), String::from_utf8_lossy(v).into_owned()))
        .collect()
}

/// The list of targets for a `300 Multiple Choices`.
pub fn multi(fmt: Format, id: &str, targets: &[String]) -> String {
    match fmt {
        Format::Anvl | Format::Html => {
            let mut s = String::from("erc:\n");
            anvl_line(&mut s, "where", id);
            for t in targets {
                anvl_line(&mut s, "target", t);
            }
            s
        }
        Format::Json => {
            let mut s = String::from("{\"id\":");
            json_str(&mut s, id);
            s.push_str(",\"targets\":[");
            for (i, t) in targets.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                json_str(&mut s, t);
            }
            s.push_str("]}\n");
            s
        }
    }
}

pub(crate) fn anvl_line(s: &mut String, name: &str, value: &str) {
    for c in name.chars() {
        match c {
            ':' => s.push_str("%3a"),
            '%' => s.push_str("%25"),
            '\n' | '\r' => s.push(' '),
            c => s.push(c),
        }
    }
    s.push(':');
    let mut lines = value.split('\n');
    if let Some(first) = lines.next() {
        if !first.is_empty() {
            s.push(' ');
        }
        s.push_str(first.trim_end_matches('\r'));
    }
    for l in lines {
        s.push_str("\n    ");
        s.push_str(l.trim_end_matches('\r'));
    }
    s.push('\n');
}

pub(crate) fn json_str(s: &mut String, v: &str) {
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(n: &str, v: &str) -> (String, Vec<u8>) {
        (n.to_owned(), v.as_bytes().to_vec())
    }

    #[test]
    fn accept() {
        assert_eq!(Format::from_accept(None), Format::Anvl);
        assert_eq!(Format::from_accept(Some("application/json")), Format::Json);
        assert_eq!(
            Format::from_accept(Some("text/html, application/json;q=0.9")),
            Format::Json
        );
        assert_eq!(
            Format::from_accept(Some("text/plain, application/json")),
            Format::Anvl
        );
        assert_eq!(
            Format::from_accept(Some("application/json;q=0, text/html")),
            Format::Anvl
        );
        assert_eq!(Format::from_accept(Some("*/*")), Format::Anvl);
        // Weights decide, not the order of the list.
        assert_eq!(
            Format::from_accept(Some("text/plain;q=0.5, application/json")),
            Format::Json
        );
        assert_eq!(
            Format::from_accept(Some("application/json;q=0.4, text/x-anvl;q=0.6")),
            Format::Anvl
        );
    }

    #[test]
    fn anvl_brief_and_full() {
        let bs = [
            b("who", "Smith, J."),
            b("what", "two\nlines"),
            b("where", "ark:/1/x"),
            b("note", "x"),
        ];
        assert_eq!(
            metadata(Format::Anvl, "id", "ark:/1/x", Some("?"), &bs, false),
            "erc:\nwho: Smith, J.\nwhat: two\n    lines\nwhere: ark:/1/x\n"
        );
        assert!(
            metadata(Format::Anvl, "id", "ark:/1/x", Some("??"), &bs, true).ends_with("note: x\n")
        );
        assert_eq!(
            metadata(
                Format::Anvl,
                "partial",
                "ark:/99999",
                None,
                &[b("a:b", "c")],
                true
            ),
            "erc:\npartial: ark:/99999\na%3ab: c\n"
        );
    }

    #[test]
    fn identifier_pages_end_with_the_standing() {
        let good = [
            b("_t", "https://e.org/"),
            b("how", "(:mtype text) thesis"),
            b("what", "W"),
            b("when", "2026"),
            b("who", "(:unkn) Anonymous"),
        ];
        assert_eq!(
            identifier(Format::Anvl, "ark:/1/x", Some("?"), &good, false),
            "erc:\nhow: (:mtype text) thesis\nwhat: W\nwhen: 2026\nwho: (:unkn) Anonymous\n\
             standing: good\n"
        );
        let bad = [b("how", "rock"), b("what", ""), b("who", "(:soon)")];
        assert_eq!(
            identifier(Format::Anvl, "ark:/1/x", Some("??"), &bad, true),
            "erc:\nhow: rock\nwhat:\nwho: (:soon)\nstanding: not good\nmissing: when\n\
             malformed: how: no metatype\n\
             malformed: what: empty value (a reserved code such as (:null) says why)\n\
             malformed: who: unknown reserved code (:soon)\n"
        );
        assert_eq!(
            identifier(Format::Json, "ark:/1/x", None, &bad[..1], true),
            "{\"id\":\"ark:/1/x\",\"erc\":{\"how\":\"rock\"},\"standing\":{\"good\":false,\
             \"missing\":[\"who\",\"what\",\"when\"],\
             \"malformed\":[{\"element\":\"how\",\"why\":\"no metatype\"}]}}\n"
        );
        assert!(identifier(Format::Json, "x", None, &good, true)
            .ends_with(",\"standing\":{\"good\":true,\"missing\":[],\"malformed\":[]}}\n"));
    }

    #[test]
    fn json() {
        let bs = [b("who", "A \"q\"\\"), b("what", "t\u{1}"), b("x", "y")];
        assert_eq!(
            metadata(Format::Json, "id", "ark:/1/x", Some("?"), &bs, false),
            "{\"id\":\"ark:/1/x\",\"inflection\":\"?\",\"erc\":{\"who\":\"A \\\"q\\\"\\\\\",\"what\":\"t\\u0001\"}}\n"
        );
        assert_eq!(
            multi(Format::Json, "i", &["a".into(), "b".into()]),
            "{\"id\":\"i\",\"targets\":[\"a\",\"b\"]}\n"
        );
        assert_eq!(
            multi(Format::Anvl, "i", &["a".into()]),
            "erc:\nwhere: i\ntarget: a\n"
        );
    }
}
