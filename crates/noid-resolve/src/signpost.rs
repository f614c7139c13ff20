//! FAIR Signposting (signposting.org) for a bound identifier: the typed links a machine
//! follows from an identifier to what it is cited by, its metadata, its type and its
//! items, as `Link` header values (RFC 8288) on redirects and metadata pages, and as a
//! linkset (RFC 9264) in its text (`application/linkset`) and JSON
//! (`application/linkset+json`) forms, answered by content negotiation.
//!
//! Every link is made from what the identifier's own record says: its citation URL
//! ([`crate::Rules::citation_url`]), its `how` (or `dc.type`) as a schema.org type, and
//! its targets (`_t`, one per line) as items when there are several. The metadata a
//! `describedby` link names is the resolver's own, at the citation URL by content
//! negotiation (schema.org JSON-LD, CSL-JSON), as `cite.rs` makes it.

use serde_json::{json, Map, Value};

use crate::cite::{Kind, Work};
use crate::resolve::split_targets;

/// The linkset media types content negotiation answers.
pub use crate::resolve::LINKSET_TYPES;

/// One typed link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Where it points (made safe for a header: see [`header_safe`]).
    pub href: String,
    /// Its relation type (`cite-as`, `describedby`, `type`, `item`, `linkset`).
    pub rel: &'static str,
    /// The media type of what it points to, when it says one.
    pub media_type: Option<&'static str>,
}

/// The signposts of one identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signposts {
    /// The URL the links are about (the identifier's citation URL).
    pub anchor: String,
    /// The links, in the order they are written.
    pub links: Vec<Link>,
}

impl Signposts {
    /// The signposts of identifier `id`, cited as `cite_as`, from its `bindings` (all
    /// its elements, `_t` among them).
    pub fn of(id: &str, cite_as: &str, bindings: &[(String, Vec<u8>)]) -> Signposts {
        let anchor = header_safe(cite_as);
        let link = |href: String, rel, media_type| Link {
            href,
            rel,
            media_type,
        };
        let mut links = vec![link(anchor.clone(), "cite-as", None)];
        for t in [
            "application/ld+json",
            "application/vnd.citationstyles.csl+json",
        ] {
            links.push(link(anchor.clone(), "describedby", Some(t)));
        }
        let kind: Kind = Work::of(id, cite_as, bindings).kind;
        links.push(link(
            format!("https://schema.org/{}", kind.schema()),
            "type",
            None,
        ));
        let targets: Vec<String> = bindings
            .iter()
            .filter(|(e, _)| e == "_t")
            .flat_map(|(_, v)| {
                let text = String::from_utf8_lossy(v);
                split_targets(&text)
                    .map(|t| crate::resolve::split_code(t).1.to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        if targets.len() > 1 {
            links.extend(targets.iter().map(|t| link(header_safe(t), "item", None)));
        }
        for t in LINKSET_TYPES {
            links.push(link(anchor.clone(), "linkset", Some(t)));
        }
        Signposts { anchor, links }
    }

    /// The links as one `Link` header's value (RFC 8288), `type`-less links first
    /// written as they come.
    pub fn link_header(&self) -> String {
        self.links
            .iter()
            .map(|l| link_value(l, None))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The linkset in its text form (RFC 9264 §4.1, `application/linkset`): each link
    /// with its `anchor`, one a line. The `linkset` links are left out (this is it).
    pub fn linkset(&self) -> String {
        let mut s = self
            .links
            .iter()
            .filter(|l| l.rel != "linkset")
            .map(|l| link_value(l, Some(&self.anchor)))
            .collect::<Vec<_>>()
            .join(",\n");
        s.push('\n');
        s
    }

    /// The linkset in its JSON form (RFC 9264 §4.2, `application/linkset+json`).
    pub fn linkset_json(&self) -> Value {
        let mut context = Map::new();
        context.insert("anchor".into(), Value::String(self.anchor.clone()));
        for l in self.links.iter().filter(|l| l.rel != "linkset") {
            let mut target = json!({"href": l.href});
            if let Some(t) = l.media_type {
                target["type"] = Value::String(t.into());
            }
            match context.get_mut(l.rel) {
                Some(Value::Array(a)) => a.push(target),
                _ => {
                    context.insert(l.rel.into(), Value::Array(vec![target]));
                }
            }
        }
        json!({ "linkset": [Value::Object(context)] })
    }
}

/// One link as RFC 8288 writes it, with an `anchor` when given.
fn link_value(l: &Link, anchor: Option<&str>) -> String {
    let mut s = format!("<{}>; rel=\"{}\"", l.href, l.rel);
    if let Some(t) = l.media_type {
        s.push_str(&format!("; type=\"{t}\""));
    }
    if let Some(a) = anchor {
        s.push_str(&format!("; anchor=\"{a}\""));
    }
    s
}

/// A URL as it may stand between `<` and `>` in a header: control characters, space,
/// non-ASCII bytes, `<`, `>` and `"` %-encoded (a stored target is written as its
/// curator gave it, and must not end the link or the header early).
pub fn header_safe(url: &str) -> String {
    let mut s = String::with_capacity(url.len());
    for b in url.bytes() {
        if (0x21..0x7f).contains(&b) && !matches!(b, b'<' | b'>' | b'"') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(pairs: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        pairs
            .iter()
            .map(|(e, v)| (e.to_string(), v.as_bytes().to_vec()))
            .collect()
    }

    /// Written by hand from signposting.org's examples and RFC 9264's §4.1 and §4.2.
    #[test]
    fn a_dataset_with_two_targets() {
        let s = Signposts::of(
            "ark:/12345/x",
            "https://n2t.net/ark:/12345/x",
            &bound(&[
                ("how", "data"),
                (
                    "_t",
                    "https://a.example.org/x\n302 https://b.example.org/x y",
                ),
            ]),
        );
        assert_eq!(
            s.link_header(),
            "<https://n2t.net/ark:/12345/x>; rel=\"cite-as\", \
             <https://n2t.net/ark:/12345/x>; rel=\"describedby\"; type=\"application/ld+json\", \
             <https://n2t.net/ark:/12345/x>; rel=\"describedby\"; type=\"application/vnd.citationstyles.csl+json\", \
             <https://schema.org/Dataset>; rel=\"type\", \
             <https://a.example.org/x>; rel=\"item\", \
             <https://b.example.org/x%20y>; rel=\"item\", \
             <https://n2t.net/ark:/12345/x>; rel=\"linkset\"; type=\"application/linkset\", \
             <https://n2t.net/ark:/12345/x>; rel=\"linkset\"; type=\"application/linkset+json\""
        );
        assert_eq!(
            s.linkset(),
            "<https://n2t.net/ark:/12345/x>; rel=\"cite-as\"; anchor=\"https://n2t.net/ark:/12345/x\",\n\
             <https://n2t.net/ark:/12345/x>; rel=\"describedby\"; type=\"application/ld+json\"; anchor=\"https://n2t.net/ark:/12345/x\",\n\
             <https://n2t.net/ark:/12345/x>; rel=\"describedby\"; type=\"application/vnd.citationstyles.csl+json\"; anchor=\"https://n2t.net/ark:/12345/x\",\n\
             <https://schema.org/Dataset>; rel=\"type\"; anchor=\"https://n2t.net/ark:/12345/x\",\n\
             <https://a.example.org/x>; rel=\"item\"; anchor=\"https://n2t.net/ark:/12345/x\",\n\
             <https://b.example.org/x%20y>; rel=\"item\"; anchor=\"https://n2t.net/ark:/12345/x\"\n"
        );
        assert_eq!(
            s.linkset_json(),
            serde_json::from_str::<Value>(
                r#"{"linkset":[{"anchor":"https://n2t.net/ark:/12345/x",
                  "cite-as":[{"href":"https://n2t.net/ark:/12345/x"}],
                  "describedby":[{"href":"https://n2t.net/ark:/12345/x","type":"application/ld+json"},
                                 {"href":"https://n2t.net/ark:/12345/x","type":"application/vnd.citationstyles.csl+json"}],
                  "type":[{"href":"https://schema.org/Dataset"}],
                  "item":[{"href":"https://a.example.org/x"},{"href":"https://b.example.org/x%20y"}]}]}"#
            )
            .unwrap()
        );
    }

    /// One target is no item; no `how` is a CreativeWork; a `>` cannot end a link.
    #[test]
    fn one_target_no_type_and_a_hostile_url() {
        let s = Signposts::of(
            "ark:/12345/y",
            "https://r.example/ark:/12345/y>\"",
            &bound(&[("_t", "https://a.example.org/y")]),
        );
        let rels: Vec<_> = s.links.iter().map(|l| l.rel).collect();
        assert_eq!(
            rels,
            [
                "cite-as",
                "describedby",
                "describedby",
                "type",
                "linkset",
                "linkset"
            ]
        );
        assert_eq!(s.links[3].href, "https://schema.org/CreativeWork");
        assert_eq!(s.anchor, "https://r.example/ark:/12345/y%3E%22");
    }
}
