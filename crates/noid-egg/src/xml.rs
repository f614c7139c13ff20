//! The XML output format (`-m xml`): one XML element per reply, each on one line, so
//! that a bulk run's output, like JSON's, can be read reply by reply. EggNog names the
//! format but leaves its layout untested; this one is:
//!
//! | reply | element |
//! |---|---|
//! | `get`, `fetch` | `<record id="ID"><element name="E">V</element>…</record>` |
//! | write with `--ack` | `<oxum>3.1</oxum>` (nothing without `--ack`) |
//! | `exists` | `<exists>1</exists>` |
//! | `purge` | `<purged id="ID">N</purged>` |
//! | `delete` | `<removed id="ID" element="E" count="N" oxum="O.N"/>` |
//! | `incr`, `decr` | `<element name="E">N</element>` |
//! | `norm`, `shadow` | `<id>ID</id>` |
//! | `list`, `next` | `<listing binder="B" max="M" bindings="N"><id>ID</id>…</listing>` |
//! | `resolve` | `<resolve>redir302 URL</resolve>` |
//! | `pr`, `help`, `version` | `<text>…</text>` |
//! | error, note | `<error>MESSAGE</error>`, `<note>TEXT</note>` |
//! | `mint N` | `<minted><s>ID</s>…<note>…</note></minted>` |
//!
//! Text is escaped (`&amp; &lt; &gt; &quot; &apos;`), newlines, tabs and carriage
//! returns are written as character references (`&#10;` …) so that an element stays on
//! one line, other control characters (which XML 1.0 cannot carry) and bytes that are
//! not UTF-8 become U+FFFD.

use crate::reply::Reply;

/// Append `reply` as one XML element and a newline (nothing for a silent reply).
pub fn reply(out: &mut Vec<u8>, reply: &Reply, ack: bool) {
    let start = out.len();
    match reply {
        Reply::Done { oxum } => {
            if let (true, Some((octets, count))) = (ack, oxum) {
                leaf(out, "oxum", &[], format!("{octets}.{count}").as_bytes());
            }
        }
        Reply::Values { id, elems, .. } => {
            open(out, "record", &[("id", id)]);
            for (e, v) in elems {
                leaf(out, "element", &[("name", e)], v);
            }
            close(out, "record");
        }
        Reply::Exists(b) => leaf(out, "exists", &[], if *b { b"1" } else { b"0" }),
        Reply::Purged { id, count } => {
            leaf(out, "purged", &[("id", id)], count.to_string().as_bytes())
        }
        Reply::Removed {
            id,
            elem,
            count,
            octets,
        } => {
            let (count, oxum) = (count.to_string(), format!("{octets}.{count}"));
            empty(
                out,
                "removed",
                &[
                    ("id", id),
                    ("element", elem),
                    ("count", &count),
                    ("oxum", &oxum),
                ],
            );
        }
        Reply::Number { elem, value } => leaf(
            out,
            "element",
            &[("name", elem)],
            value.to_string().as_bytes(),
        ),
        Reply::Id(id) => leaf(out, "id", &[], id.as_bytes()),
        Reply::Listing { binder, max, found } => {
            let (max, bindings) = (max.unwrap_or(0).to_string(), found.bindings.to_string());
            open(
                out,
                "listing",
                &[("binder", binder), ("max", &max), ("bindings", &bindings)],
            );
            for id in &found.ids {
                leaf(out, "id", &[], id.as_bytes());
            }
            close(out, "listing");
        }
        Reply::Resolved(line) => leaf(out, "resolve", &[], line),
        Reply::Text(t) => leaf(out, "text", &[], t),
        Reply::Nothing => {}
        Reply::Error(e) => leaf(out, "error", &[], e.to_string().as_bytes()),
    }
    if out.len() > start {
        out.push(b'\n');
    }
}

/// A `<note>` line.
pub fn note(out: &mut Vec<u8>, text: &str) {
    leaf(out, "note", &[], text.as_bytes());
    out.push(b'\n');
}

/// Minted identifiers and the minter's notes, as one `<minted>` line.
pub fn minted(out: &mut Vec<u8>, ids: &[String], notes: &[String]) {
    open(out, "minted", &[]);
    for id in ids {
        leaf(out, "s", &[], id.as_bytes());
    }
    for n in notes {
        leaf(out, "note", &[], n.as_bytes());
    }
    close(out, "minted");
    out.push(b'\n');
}

fn open(out: &mut Vec<u8>, name: &str, attrs: &[(&str, &str)]) {
    out.push(b'<');
    out.extend_from_slice(name.as_bytes());
    for (a, v) in attrs {
        out.push(b' ');
        out.extend_from_slice(a.as_bytes());
        out.extend_from_slice(b"=\"");
        escape(out, v.as_bytes());
        out.push(b'"');
    }
    out.push(b'>');
}

fn close(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b"</");
    out.extend_from_slice(name.as_bytes());
    out.push(b'>');
}

fn leaf(out: &mut Vec<u8>, name: &str, attrs: &[(&str, &str)], text: &[u8]) {
    open(out, name, attrs);
    escape(out, text);
    close(out, name);
}

fn empty(out: &mut Vec<u8>, name: &str, attrs: &[(&str, &str)]) {
    open(out, name, attrs);
    out.pop();
    out.extend_from_slice(b"/>");
}

/// `text` as XML character data or attribute value.
fn escape(out: &mut Vec<u8>, text: &[u8]) {
    for c in String::from_utf8_lossy(text).chars() {
        match c {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '>' => out.extend_from_slice(b"&gt;"),
            '"' => out.extend_from_slice(b"&quot;"),
            '\'' => out.extend_from_slice(b"&apos;"),
            '\n' => out.extend_from_slice(b"&#10;"),
            '\t' => out.extend_from_slice(b"&#9;"),
            '\r' => out.extend_from_slice(b"&#13;"),
            c if c.is_control() && (c as u32) < 0x20 || c == '\u{7f}' => {
                out.extend_from_slice("\u{FFFD}".as_bytes())
            }
            c => {
                let mut b = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::Listing;

    fn xml(r: &Reply, ack: bool) -> String {
        let mut out = Vec::new();
        reply(&mut out, r, ack);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn elements_and_escapes() {
        let r = Reply::Values {
            id: "a<&>\"'".into(),
            whole: true,
            labelled: true,
            elems: vec![("e f".into(), b"x\ny\tz\x01\xff".to_vec())],
        };
        assert_eq!(
            xml(&r, false),
            "<record id=\"a&lt;&amp;&gt;&quot;&apos;\"><element name=\"e f\">\
             x&#10;y&#9;z\u{FFFD}\u{FFFD}</element></record>\n"
        );
        assert_eq!(xml(&Reply::Done { oxum: Some((3, 1)) }, false), "");
        assert_eq!(
            xml(&Reply::Done { oxum: Some((3, 1)) }, true),
            "<oxum>3.1</oxum>\n"
        );
        assert_eq!(
            xml(
                &Reply::Removed {
                    id: "i".into(),
                    elem: "bow".into(),
                    count: 1,
                    octets: 3
                },
                false
            ),
            "<removed id=\"i\" element=\"bow\" count=\"1\" oxum=\"3.1\"/>\n"
        );
        let listing = Reply::Listing {
            binder: "sam".into(),
            max: Some(1000),
            found: Listing {
                ids: vec!["a".into(), "b".into()],
                bindings: 3,
            },
        };
        assert_eq!(
            xml(&listing, false),
            "<listing binder=\"sam\" max=\"1000\" bindings=\"3\"><id>a</id><id>b</id></listing>\n"
        );
        let mut out = Vec::new();
        minted(&mut out, &["99999/fk4x".into()], &[]);
        assert_eq!(out, b"<minted><s>99999/fk4x</s></minted>\n");
    }
}
