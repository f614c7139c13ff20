//! Metadata pages: what `?`, `??`, content negotiation and partial identifiers show in
//! HTTP mode. ANVL `text/plain` by default, JSON for clients that ask for it, and for
//! an inflection HTML when the client prefers it (a browser; [`crate::metadata_html`]).
//!
//! ANVL (`name: value` lines, a record opened by `erc:`; each element written by
//! `noid_core::anvl`, so a value's newline is `%0a` and its `%` is `%25`, as the egg
//! language's `fetch` writes them):
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
//! names in the same order (a name bound twice appears twice), bytes that are not UTF-8
//! replaced by U+FFFD. Every JSON page is written by `serde_json` ([`json_line`]).
//!
//! A brief inflection (`?`, `/`, `./`, `/?`, `./?`, `!`) shows the kernel elements
//! (`who what when where how`) only; `??` (and `?info`, which the resolver reports as
//! `??`) shows every element.
//!
//! An identifier's page (an inflection, negotiated metadata) ends with its standing
//! ([`identifier`]): `standing: good`, or `standing: not good` and what falls short, as
//! `noid standing` reports it.

use serde::ser::{Serialize, SerializeMap, Serializer};

use noid_core::anvl;
use noid_resolve::kernel::Standing;
use noid_resolve::{Accept, KERNEL, METADATA_TYPES};

/// Output format of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageFormat {
    /// `text/plain` ANVL.
    Anvl,
    /// `application/json`.
    Json,
    /// `text/html`, for browsers asking for an identifier's metadata (`?`, `??`):
    /// see [`crate::metadata_html`].
    Html,
}

impl PageFormat {
    /// JSON when the client prefers `application/json` to `text/plain` and
    /// `text/x-anvl` ([`noid_resolve::Accept`]'s weights and order); ANVL otherwise.
    pub fn from_accept(accept: Option<&str>) -> PageFormat {
        let preferred = accept.and_then(|a| Accept::parse(a).preferred(&METADATA_TYPES));
        match preferred {
            Some("application/json") => PageFormat::Json,
            _ => PageFormat::Anvl,
        }
    }

    /// For an inflection page (`?`, `??`): HTML when the client prefers `text/html`
    /// to the metadata types, else as [`PageFormat::from_accept`].
    pub fn for_inflection(accept: Option<&str>) -> PageFormat {
        const CHOICES: [&str; 4] = [
            METADATA_TYPES[0],
            METADATA_TYPES[1],
            METADATA_TYPES[2],
            "text/html",
        ];
        match accept.and_then(|a| Accept::parse(a).preferred(&CHOICES)) {
            Some("text/html") => PageFormat::Html,
            _ => PageFormat::from_accept(accept),
        }
    }

    /// The `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            PageFormat::Anvl => "text/plain; charset=utf-8",
            PageFormat::Json => "application/json",
            PageFormat::Html => "text/html; charset=utf-8",
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
/// "why":…}]}` after `"erc"`. The HTML page shows the same facts (see [`crate::metadata_html`]).
pub fn identifier(
    fmt: PageFormat,
    id: &str,
    inflection: Option<&str>,
    bindings: &[(String, Vec<u8>)],
    full: bool,
) -> String {
    let standing = Standing::of(bindings);
    if fmt == PageFormat::Json {
        let shown = shown_of_id(bindings, full);
        let mut page = MetadataJson::new("id", id, inflection, &shown);
        page.standing = Some(StandingJson::of(&standing));
        return json_line(&page);
    }
    let shown = shown_of_id(bindings, full);
    let mut page = shown_metadata(fmt, "id", id, inflection, bindings, shown);
    if fmt == PageFormat::Anvl {
        let verdict = if standing.is_good() {
            "good"
        } else {
            "not good"
        };
        anvl::element_str(&mut page, "standing", verdict);
        for m in &standing.missing {
            anvl::element_str(&mut page, "missing", m);
        }
        for (elem, why) in &standing.malformed {
            anvl::element_str(&mut page, "malformed", &format!("{elem}: {why}"));
        }
    }
    page
}

/// A metadata page for `id` (or a partial key), with an optional inflection suffix.
pub fn metadata(
    fmt: PageFormat,
    id_label: &str,
    id: &str,
    inflection: Option<&str>,
    bindings: &[(String, Vec<u8>)],
    full: bool,
) -> String {
    shown_metadata(
        fmt,
        id_label,
        id,
        inflection,
        bindings,
        shown(bindings, full),
    )
}

/// [`metadata`] of the pairs `shown`.
fn shown_metadata(
    fmt: PageFormat,
    id_label: &str,
    id: &str,
    inflection: Option<&str>,
    bindings: &[(String, Vec<u8>)],
    shown: Vec<(&str, String)>,
) -> String {
    match fmt {
        PageFormat::Anvl => {
            let mut s = String::from("erc:\n");
            if !shown.iter().any(|(n, _)| *n == "where") && id_label != "id" {
                // partial ids have no `where`; say what was asked for
                anvl::element_str(&mut s, id_label, id);
            }
            for (n, v) in &shown {
                anvl::element_str(&mut s, n, v);
            }
            s
        }
        PageFormat::Json => json_line(&MetadataJson::new(id_label, id, inflection, &shown)),
        PageFormat::Html => crate::metadata_html::page(id, &shown, bindings, Default::default()),
    }
}

/// The kernel elements an identifier's metadata always answers, `(:unav)` (ERC's
/// reserved "value unavailable") when not bound: who, what and when; `where` defaults
/// to the identifier itself (draft-kunze-ark-43 §5.1.2).
pub const ANSWERED: [&str; 3] = ["who", "what", "when"];

/// What an identifier's page shows ([`shown`]), with [`ANSWERED`]'s elements that are
/// not bound written `(:unav)` in their kernel place. The standing is judged on the
/// bindings themselves, so an element answered so is still missing there.
pub(crate) fn shown_of_id(bindings: &[(String, Vec<u8>)], full: bool) -> Vec<(&str, String)> {
    let shown = shown(bindings, full);
    if ANSWERED.iter().all(|k| shown.iter().any(|(n, _)| n == k)) {
        return shown;
    }
    let mut out = Vec::with_capacity(shown.len() + ANSWERED.len());
    for k in KERNEL {
        let before = out.len();
        out.extend(shown.iter().filter(|(n, _)| *n == k).cloned());
        if out.len() == before && ANSWERED.contains(&k) {
            out.push((k, "(:unav)".to_string()));
        }
    }
    out.extend(shown.into_iter().filter(|(n, _)| !KERNEL.contains(n)));
    out
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
pub fn multi(fmt: PageFormat, id: &str, targets: &[String]) -> String {
    match fmt {
        PageFormat::Html => crate::choices::page(id, targets),
        PageFormat::Anvl => {
            let mut s = String::from("erc:\n");
            anvl::element_str(&mut s, "where", id);
            for t in targets {
                anvl::element_str(&mut s, "target", t);
            }
            s
        }
        PageFormat::Json => {
            #[derive(serde::Serialize)]
            struct Multi<'a> {
                id: &'a str,
                targets: &'a [String],
            }
            json_line(&Multi { id, targets })
        }
    }
}

/// `value` as one line of JSON (serde_json's escaping), ending in a newline.
pub(crate) fn json_line(value: &impl Serialize) -> String {
    let mut s = serde_json::to_string(value).expect("pages serialise to JSON");
    s.push('\n');
    s
}

/// Name-value pairs as one JSON object, in their order, a name bound twice written
/// twice (an identifier's bindings are not a map).
pub(crate) struct Fields<'a, N>(pub(crate) &'a [(N, String)]);

impl<N: AsRef<str>> Serialize for Fields<'_, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (n, v) in self.0 {
            map.serialize_entry(n.as_ref(), v)?;
        }
        map.end()
    }
}

/// The one field that names what a page is about: `"id"` or, for a partial
/// identifier, `"partial"`.
struct Label<'a>(&'a str, &'a str);

impl Serialize for Label<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, self.1)?;
        map.end()
    }
}

/// A metadata page in JSON: `{LABEL: id, "inflection": …, "withdrawn": …,
/// "successor": …, "erc": {…}, "standing": {…}}`, absent parts left out.
#[derive(serde::Serialize)]
pub(crate) struct MetadataJson<'a> {
    #[serde(flatten)]
    label: Label<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inflection: Option<&'a str>,
    /// A withdrawn identifier's notice ([`crate::tombstone`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) withdrawn: Option<Withdrawn<'a>>,
    erc: Fields<'a, &'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    standing: Option<StandingJson>,
}

impl<'a> MetadataJson<'a> {
    pub(crate) fn new(
        label: &'a str,
        id: &'a str,
        inflection: Option<&'a str>,
        shown: &'a [(&'a str, String)],
    ) -> Self {
        MetadataJson {
            label: Label(label, id),
            inflection,
            withdrawn: None,
            erc: Fields(shown),
            standing: None,
        }
    }
}

/// Why an identifier was withdrawn, and its successor (`null` when none).
#[derive(serde::Serialize)]
pub(crate) struct Withdrawn<'a> {
    pub(crate) withdrawn: &'a str,
    pub(crate) successor: Option<&'a str>,
}

/// An identifier's standing in JSON.
#[derive(serde::Serialize)]
struct StandingJson {
    good: bool,
    missing: Vec<&'static str>,
    malformed: Vec<MalformedJson>,
}

#[derive(serde::Serialize)]
struct MalformedJson {
    element: String,
    why: String,
}

impl StandingJson {
    fn of(standing: &Standing) -> Self {
        StandingJson {
            good: standing.is_good(),
            missing: standing.missing.clone(),
            malformed: standing
                .malformed
                .iter()
                .map(|(element, why)| MalformedJson {
                    element: element.clone(),
                    why: why.to_string(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(n: &str, v: &str) -> (String, Vec<u8>) {
        (n.to_owned(), v.as_bytes().to_vec())
    }

    #[test]
    fn accept() {
        assert_eq!(PageFormat::from_accept(None), PageFormat::Anvl);
        assert_eq!(
            PageFormat::from_accept(Some("application/json")),
            PageFormat::Json
        );
        assert_eq!(
            PageFormat::from_accept(Some("text/html, application/json;q=0.9")),
            PageFormat::Json
        );
        assert_eq!(
            PageFormat::from_accept(Some("text/plain, application/json")),
            PageFormat::Anvl
        );
        assert_eq!(
            PageFormat::from_accept(Some("application/json;q=0, text/html")),
            PageFormat::Anvl
        );
        assert_eq!(PageFormat::from_accept(Some("*/*")), PageFormat::Anvl);
        // Weights decide, not the order of the list.
        assert_eq!(
            PageFormat::from_accept(Some("text/plain;q=0.5, application/json")),
            PageFormat::Json
        );
        assert_eq!(
            PageFormat::from_accept(Some("application/json;q=0.4, text/x-anvl;q=0.6")),
            PageFormat::Anvl
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
            metadata(PageFormat::Anvl, "id", "ark:/1/x", Some("?"), &bs, false),
            "erc:\nwho: Smith, J.\nwhat: two%0alines\nwhere: ark:/1/x\n"
        );
        assert!(
            metadata(PageFormat::Anvl, "id", "ark:/1/x", Some("??"), &bs, true)
                .ends_with("note: x\n")
        );
        assert_eq!(
            metadata(
                PageFormat::Anvl,
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
            identifier(PageFormat::Anvl, "ark:/1/x", Some("?"), &good, false),
            "erc:\nhow: (:mtype text) thesis\nwhat: W\nwhen: 2026\nwho: (:unkn) Anonymous\n\
             standing: good\n"
        );
        let bad = [b("how", "rock"), b("what", ""), b("who", "(:soon)")];
        assert_eq!(
            identifier(PageFormat::Anvl, "ark:/1/x", Some("??"), &bad, true),
            // `when`, unbound, is answered `(:unav)` (the ARK draft's §5.1.2) and still
            // missing from the standing; the page lists the kernel in its order.
            "erc:\nwho: (:soon)\nwhat: \nwhen: (:unav)\nhow: rock\nstanding: not good\nmissing: when\n\
             malformed: how: no metatype\n\
             malformed: what: empty value (a reserved code such as (:null) says why)\n\
             malformed: who: unknown reserved code (:soon)\n"
        );
        assert_eq!(
            identifier(PageFormat::Json, "ark:/1/x", None, &bad[..1], true),
            "{\"id\":\"ark:/1/x\",\"erc\":{\"who\":\"(:unav)\",\"what\":\"(:unav)\",\"when\":\"(:unav)\",\"how\":\"rock\"},\"standing\":{\"good\":false,\
             \"missing\":[\"who\",\"what\",\"when\"],\
             \"malformed\":[{\"element\":\"how\",\"why\":\"no metatype\"}]}}\n"
        );
        assert!(identifier(PageFormat::Json, "x", None, &good, true)
            .ends_with(",\"standing\":{\"good\":true,\"missing\":[],\"malformed\":[]}}\n"));
    }

    #[test]
    fn json() {
        // A partial identifier's label, a name bound twice kept twice and in order.
        assert_eq!(
            metadata(
                PageFormat::Json,
                "partial",
                "ark:/9",
                None,
                &[b("who", "b"), b("who", "a"), b("note", "\u{8}\u{c}")],
                true
            ),
            "{\"partial\":\"ark:/9\",\"erc\":{\"who\":\"b\",\"who\":\"a\",\"note\":\"\\b\\f\"}}\n"
        );
        let bs = [b("who", "A \"q\"\\"), b("what", "t\u{1}"), b("x", "y")];
        assert_eq!(
            metadata(PageFormat::Json, "id", "ark:/1/x", Some("?"), &bs, false),
            "{\"id\":\"ark:/1/x\",\"inflection\":\"?\",\"erc\":{\"who\":\"A \\\"q\\\"\\\\\",\"what\":\"t\\u0001\"}}\n"
        );
        assert_eq!(
            multi(PageFormat::Json, "i", &["a".into(), "b".into()]),
            "{\"id\":\"i\",\"targets\":[\"a\",\"b\"]}\n"
        );
        assert_eq!(
            multi(PageFormat::Anvl, "i", &["a".into()]),
            "erc:\nwhere: i\ntarget: a\n"
        );
    }
}
