//! Rendering a [`Reply`]: plain text (the command line's default), ANVL (the web's
//! default), JSON or XML.
//!
//! Plain and ANVL follow EggNog: a record's elements are `name: value` lines (plain
//! `get` prints bare values), comments start `# `, and a record that printed anything
//! ends with one blank line. ANVL elements are written by `noid_core::anvl` (`%` as
//! `%25` and newlines as `%0a` in values; in names also whitespace except the first
//! space of a run inside the name, `:`, `=`, `<` and control characters), the one ANVL
//! writer the resolver's pages and registry file use too. JSON and XML, which EggNog leaves undefined, are
//! one JSON object or one XML element per reply, each on one line ([`crate::xml`]).

use noid_core::anvl;
use serde_json::{json, Value};

use crate::error::BinderError;
use crate::reply::Reply;

/// How a command's reply is rendered (options given before the command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// `-m FORMAT` / `--format FORMAT`.
    pub format: Format,
    /// `--ack`: writes print an `oxum` (octets.count) acknowledgement.
    pub ack: bool,
    /// `--all` or `:all`: reads show the admin elements `_,ep` and `_,ec` too.
    pub all: bool,
    /// `--verbose`.
    pub verbose: bool,
}

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

/// The bytes `reply` prints under `settings`.
pub fn render(reply: &Reply, settings: &Settings) -> Vec<u8> {
    let mut out = Vec::new();
    match settings.format {
        Format::Json => {
            if let Some(v) = json_of(reply, settings) {
                out.extend_from_slice(v.to_string().as_bytes());
                out.push(b'\n');
            }
            return out;
        }
        Format::Xml => {
            crate::xml::reply(&mut out, reply, settings.ack);
            return out;
        }
        Format::Plain | Format::Anvl => plain_or_anvl(&mut out, reply, settings),
    }
    if !out.is_empty() && !matches!(reply, Reply::Text(_) | Reply::Resolved(_)) {
        out.push(b'\n');
    }
    out
}

/// A reply in plain text or ANVL, before the blank line that closes a record.
fn plain_or_anvl(out: &mut Vec<u8>, reply: &Reply, settings: &Settings) {
    let anvl = settings.format == Format::Anvl;
    let oxum = |out: &mut Vec<u8>, octets: usize, count: usize| {
        if settings.ack {
            label(out, anvl, "oxum", format!("{octets}.{count}").as_bytes());
        }
    };
    match reply {
        Reply::Done { oxum: done } => {
            if let Some((octets, count)) = done {
                oxum(out, *octets, *count);
            }
        }
        Reply::Values {
            id,
            whole,
            labelled,
            elems,
        } => values(out, id, *whole, *labelled || anvl, elems),
        Reply::Exists(b) => label(out, anvl, "exists", if *b { b"1" } else { b"0" }),
        Reply::Purged { id, count } => comment(
            out,
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
            label(out, anvl, "ok", what.as_bytes());
            oxum(out, *octets, *count);
        }
        Reply::Number { elem, value } => label(out, anvl, elem, value.to_string().as_bytes()),
        Reply::Id(id) => label(out, anvl, "id", id.as_bytes()),
        Reply::Listing { binder, max, found } => {
            comment(
                out,
                &format!("listing for binder {binder}, max {}", max.unwrap_or(0)),
            );
            for id in &found.ids {
                label(out, anvl, "id", id.as_bytes());
            }
            comment(out, &produced(found));
        }
        Reply::Resolved(line) => {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
        Reply::Text(t) => out.extend_from_slice(t),
        Reply::Nothing => {}
        Reply::Error(e) => anvl::element(out, b"error", e.to_string().as_bytes()),
    }
}

/// `get`/`fetch` values: labelled (`name: value`) or bare, between the `# id:` and
/// `# elements bound under` comments when the whole identifier was read.
fn values(out: &mut Vec<u8>, id: &str, whole: bool, labelled: bool, elems: &[(String, Vec<u8>)]) {
    if whole {
        comment(out, &format!("id: {}", shown_id(id)));
    }
    for (e, v) in elems {
        label(out, labelled, e, v);
    }
    if whole {
        comment(
            out,
            &format!("elements bound under {}: {}", shown_id(id), elems.len()),
        );
    }
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
        anvl::element(out, name.as_bytes(), value);
    } else {
        out.extend_from_slice(value);
        out.push(b'\n');
    }
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
        anvl::element(&mut out, b"note", text.as_bytes());
    }
    out
}
