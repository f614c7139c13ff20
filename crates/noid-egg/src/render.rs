//! Rendering a [`Reply`]: plain text (the command line's default), ANVL (the web's
//! default), JSON or XML.
//!
//! Plain and ANVL follow EggNog: a record's elements are `name: value` lines (plain
//! `get` prints bare values), comments start `# `, and a record that printed anything
//! ends with one blank line. ANVL encodes `%` as `%25` and newlines as `%0a` in values;
//! in names also whitespace (except the first space of a run inside the name), `:`,
//! `=`, `<` and control characters. JSON and XML, which EggNog leaves undefined, are
//! one JSON object or one XML element per reply, each on one line ([`crate::xml`]).

use serde_json::{json, Value};

use crate::error::BinderError;
use crate::exec::Reply;
use crate::session::Settings;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Values and labels as they are.
    Plain,
    /// `name: value`, encoded.
    Anvl,
    /// JSON lines.
    Json,
    /// One XML element per line.
    Xml,
}

impl Format {
    /// The format named `name` (any case).
    pub fn parse(name: &str) -> Result<Format, BinderError> {
        match name.to_ascii_lowercase().as_str() {
            "plain" => Ok(Format::Plain),
            "anvl" => Ok(Format::Anvl),
            "json" => Ok(Format::Json),
            "xml" => Ok(Format::Xml),
            _ => Err(BinderError::refused(format!(
                "unknown output format: {name} (plain, anvl, json or xml)"
            ))),
        }
    }
}

/// What `help` prints.
pub const HELP: &str = "\
# noid binder commands (egg syntax): [options] [modifiers] ID.OP [ELEM [VALUE]]
#   or ID|ELEM.OP [VALUE]
# ops: set let add insert incr decr get fetch rm delete purge exists
#      norm shadow resolve [HEADERS]   list MAX [PREFIX...]   next MAX ID [PREFIX...]
#      var pr logmark help version
# modifiers: :hx (decode ^hh), :hxC (decode Chh), :all, :allnot
# options: --ack, --all, --verbose, -m plain|anvl|json|xml
# indirect values: @ (a line), @- (to a blank line), @-- (to the end), @-N (N octets),
#   @-XYZ (to a line XYZ), &NAME (session variable)
# bulk: '-' as the command, then one command per line of input
";

/// The bytes `reply` prints under `settings`.
pub fn render(reply: &Reply, settings: &Settings) -> Vec<u8> {
    let mut out = Vec::new();
    if settings.format == Format::Json {
        if let Some(v) = json_of(reply, settings) {
            out.extend_from_slice(v.to_string().as_bytes());
            out.push(b'\n');
        }
        return out;
    }
    if settings.format == Format::Xml {
        crate::xml::reply(&mut out, reply, settings.ack);
        return out;
    }
    let anvl = settings.format == Format::Anvl;
    match reply {
        Reply::Done { oxum } => {
            if let (true, Some((octets, count))) = (settings.ack, oxum) {
                label(
                    &mut out,
                    anvl,
                    "oxum",
                    format!("{octets}.{count}").as_bytes(),
                );
            }
        }
        Reply::Values {
            id,
            whole,
            labelled,
            elems,
        } => {
            if *whole {
                comment(&mut out, &format!("id: {}", shown_id(id)));
            }
            for (e, v) in elems {
                if *labelled || anvl {
                    element(&mut out, e, v);
                } else {
                    out.extend_from_slice(v);
                    out.push(b'\n');
                }
            }
            if *whole {
                comment(
                    &mut out,
                    &format!("elements bound under {}: {}", shown_id(id), elems.len()),
                );
            }
        }
        Reply::Exists(b) => label(&mut out, anvl, "exists", if *b { b"1" } else { b"0" }),
        Reply::Purged { id, count } => comment(
            &mut out,
            &format!(
                "admin + user elements found to purge under {}: {count}",
                shown_id(id)
            ),
        ),
        Reply::Removed {
            id,
            elem,
            count,
            octets,
        } => {
            let what = if *count == 1 {
                format!("element removed: {id}|{elem}")
            } else {
                format!("{count} elements removed: {id}|{elem}")
            };
            label(&mut out, anvl, "ok", what.as_bytes());
            if settings.ack {
                label(
                    &mut out,
                    anvl,
                    "oxum",
                    format!("{octets}.{count}").as_bytes(),
                );
            }
        }
        Reply::Number { elem, value } => {
            label(&mut out, anvl, elem, value.to_string().as_bytes());
        }
        Reply::Id(id) => label(&mut out, anvl, "id", id.as_bytes()),
        Reply::Listing { binder, max, found } => {
            comment(
                &mut out,
                &format!("listing for binder {binder}, max {}", max.unwrap_or(0)),
            );
            for id in &found.ids {
                label(&mut out, anvl, "id", id.as_bytes());
            }
            comment(&mut out, &produced(found));
        }
        Reply::Resolved(line) => {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        Reply::Text(t) => out.extend_from_slice(t),
        Reply::Nothing => {}
        Reply::Error(e) => element(&mut out, "error", e.to_string().as_bytes()),
    }
    if !out.is_empty() && !matches!(reply, Reply::Text(_) | Reply::Resolved(_)) {
        out.push(b'\n');
    }
    out
}

/// The listing's last comment: `produced N ids, B bindings (average A.AA bindings per
/// id)`.
pub fn produced(found: &crate::elements::Listing) -> String {
    let n = found.ids.len();
    let average = if n == 0 {
        0.0
    } else {
        found.bindings as f64 / n as f64
    };
    format!(
        "produced {n} ids, {} bindings (average {average:.2} bindings per id)",
        found.bindings
    )
}

/// An identifier as shown in comments: the empty one as `""`.
fn shown_id(id: &str) -> &str {
    if id.is_empty() {
        "\"\""
    } else {
        id
    }
}

fn comment(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(b"# ");
    out.extend_from_slice(text.as_bytes());
    out.push(b'\n');
}

/// `name: value` in ANVL, the bare value in plain format.
fn label(out: &mut Vec<u8>, anvl: bool, name: &str, value: &[u8]) {
    if anvl {
        element(out, name, value);
    } else {
        out.extend_from_slice(value);
        out.push(b'\n');
    }
}

/// One ANVL element line.
fn element(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    encode_name(out, name.as_bytes());
    out.extend_from_slice(b": ");
    for &c in value {
        match c {
            b'%' => out.extend_from_slice(b"%25"),
            b'\n' => out.extend_from_slice(b"%0a"),
            _ => out.push(c),
        }
    }
    out.push(b'\n');
}

/// An element name in ANVL: a space that starts a whitespace run inside the name
/// stays, so `an elem  name` reads `an elem %20name`.
fn encode_name(out: &mut Vec<u8>, name: &[u8]) {
    let inner = |i: usize| i > 0 && i + 1 < name.len();
    for (i, &c) in name.iter().enumerate() {
        let starts_run = i > 0 && !name[i - 1].is_ascii_whitespace();
        let keep_space = c == b' ' && starts_run && inner(i) && has_text_after(&name[i..]);
        if keep_space {
            out.push(c);
        } else if c.is_ascii_whitespace() || c.is_ascii_control() || b"%:=<".contains(&c) {
            out.extend_from_slice(format!("%{c:02x}").as_bytes());
        } else {
            out.push(c);
        }
    }
}

/// Whether a whitespace run starting `rest` is followed by more of the name.
fn has_text_after(rest: &[u8]) -> bool {
    rest.iter().any(|c| !c.is_ascii_whitespace())
}

/// A JSON value's text for bytes that may not be UTF-8.
fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).into_owned()
}

fn json_of(reply: &Reply, settings: &Settings) -> Option<Value> {
    Some(match reply {
        Reply::Done { oxum } => match (settings.ack, oxum) {
            (true, Some((octets, count))) => json!({ "oxum": format!("{octets}.{count}") }),
            _ => return None,
        },
        Reply::Values { id, elems, .. } => json!({
            "id": id,
            "elements": elems
                .iter()
                .map(|(e, v)| json!({ "name": e, "value": text(v) }))
                .collect::<Vec<_>>(),
        }),
        Reply::Exists(b) => json!({ "exists": u8::from(*b) }),
        Reply::Purged { id, count } => json!({ "id": id, "purged": count }),
        Reply::Removed {
            id,
            elem,
            count,
            octets,
        } => {
            json!({ "id": id, "element": elem, "removed": count, "oxum": format!("{octets}.{count}") })
        }
        Reply::Number { elem, value } => json!({ "element": elem, "value": value }),
        Reply::Id(id) => json!({ "id": id }),
        Reply::Listing { binder, max, found } => json!({
            "binder": binder,
            "max": max.unwrap_or(0),
            "ids": found.ids,
            "bindings": found.bindings,
        }),
        Reply::Resolved(line) => json!({ "resolve": text(line) }),
        Reply::Text(t) => json!({ "text": text(t) }),
        Reply::Nothing => return None,
        Reply::Error(e) => json!({ "error": e.to_string() }),
    })
}

/// A `note:` line (a JSON object in JSON format).
pub fn note(text: &str, format: Format) -> Vec<u8> {
    let mut out = Vec::new();
    if format == Format::Json {
        out.extend_from_slice(json!({ "note": text }).to_string().as_bytes());
        out.push(b'\n');
    } else if format == Format::Xml {
        crate::xml::note(&mut out, text);
    } else {
        element(&mut out, "note", text.as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str) -> String {
        let mut v = Vec::new();
        encode_name(&mut v, n.as_bytes());
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn names() {
        // spec cases 27, 29, 32
        assert_eq!(name("an elem  name"), "an elem %20name");
        assert_eq!(name("a    b  \tc"), "a %20%20%20b %20%09c");
        assert_eq!(name("b\nar"), "b%0aar");
        assert_eq!(name(" x "), "%20x%20");
        assert_eq!(name("$u.|e"), "$u.|e");
    }
}
