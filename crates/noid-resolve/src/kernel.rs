//! Kernel metadata as the N2T page defines it (`who`, `what`, `when`, `where`, `how`,
//! and the optional `language`, `peek`, `size`): the reserved "missing value" codes
//! `(:unac)` … `(:at)`, the metatypes of `how` (`(:mtype data+code set) time series`),
//! and an identifier's standing (which required elements are missing or malformed).
//!
//! One parse serves the `noid standing` report and the metadata page, so both judge a
//! value the same way. Only the element's first value (the one `get` and the resolver
//! read) is judged; further values added with egg's `add` are not.

use std::fmt;

use crate::elem;
use noid_core::keys;
use noid_core::lookup::{Lookup, LookupError};

/// The elements an identifier needs for good standing. `where` is required too, but N2T
/// implies it from the identifier string, so it is never missing.
pub const REQUIRED: [&str; 4] = ["who", "what", "when", "how"];
/// The optional kernel elements.
pub const OPTIONAL: [&str; 3] = ["language", "peek", "size"];
/// Most bindings read for one identifier's standing.
const MAX_BINDINGS: usize = 1000;

/// A reserved "missing value" code, written `(:code)` at the start of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    /// `(:unac)`.
    Unac,
    /// `(:unal)`.
    Unal,
    /// `(:unap)`.
    Unap,
    /// `(:unas)`.
    Unas,
    /// `(:unav)`.
    Unav,
    /// `(:unkn)`.
    Unkn,
    /// `(:none)`.
    None,
    /// `(:null)`.
    Null,
    /// `(:etal)`.
    Etal,
    /// `(:tba)`.
    Tba,
    /// `(:at)`: the rest of the value is a reference to the real value.
    At,
}

impl Reserved {
    /// Every reserved code, in the page's order.
    pub const ALL: [Reserved; 11] = [
        Reserved::Unac,
        Reserved::Unal,
        Reserved::Unap,
        Reserved::Unas,
        Reserved::Unav,
        Reserved::Unkn,
        Reserved::None,
        Reserved::Null,
        Reserved::Etal,
        Reserved::Tba,
        Reserved::At,
    ];

    /// The code between `(:` and `)`.
    pub fn code(self) -> &'static str {
        match self {
            Reserved::Unac => "unac",
            Reserved::Unal => "unal",
            Reserved::Unap => "unap",
            Reserved::Unas => "unas",
            Reserved::Unav => "unav",
            Reserved::Unkn => "unkn",
            Reserved::None => "none",
            Reserved::Null => "null",
            Reserved::Etal => "etal",
            Reserved::Tba => "tba",
            Reserved::At => "at",
        }
    }

    /// The page's definition, shown to people next to the code.
    pub fn meaning(self) -> &'static str {
        match self {
            Reserved::Unac => "temporarily inaccessible",
            Reserved::Unal => "unallowed, suppressed intentionally",
            Reserved::Unap => "not applicable, makes no sense",
            Reserved::Unas => "value unassigned (e.g., Untitled)",
            Reserved::Unav => "value unavailable, possibly unknown",
            Reserved::Unkn => "known to be unknown (e.g., Anonymous, Inconnue)",
            Reserved::None => "never had a value, never will",
            Reserved::Null => "explicitly and meaningfully empty",
            Reserved::Etal => "other values too numerous to list",
            Reserved::Tba => "to be assigned or announced later",
            Reserved::At => "present value is an indirect reference to the real value",
        }
    }

    fn from_code(code: &str) -> Option<Reserved> {
        Reserved::ALL.into_iter().find(|r| r.code() == code)
    }
}

/// A base metatype, the controlled terms a `how` metatype is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// `text`.
    Text,
    /// `image`.
    Image,
    /// `audio`.
    Audio,
    /// `video`.
    Video,
    /// `data`.
    Data,
    /// `code`.
    Code,
    /// `term`.
    Term,
    /// `service`.
    Service,
    /// `agent`.
    Agent,
    /// `human`.
    Human,
    /// `project` (in the page's element table, not in its metatype table).
    Project,
    /// `event`.
    Event,
    /// `oba`: other, or none of the above.
    Oba,
}

impl Base {
    /// Every base metatype, in the order of the page's element table.
    pub const ALL: [Base; 13] = [
        Base::Text,
        Base::Image,
        Base::Audio,
        Base::Video,
        Base::Data,
        Base::Code,
        Base::Term,
        Base::Service,
        Base::Agent,
        Base::Human,
        Base::Project,
        Base::Event,
        Base::Oba,
    ];

    /// The term as written.
    pub fn term(self) -> &'static str {
        match self {
            Base::Text => "text",
            Base::Image => "image",
            Base::Audio => "audio",
            Base::Video => "video",
            Base::Data => "data",
            Base::Code => "code",
            Base::Term => "term",
            Base::Service => "service",
            Base::Agent => "agent",
            Base::Human => "human",
            Base::Project => "project",
            Base::Event => "event",
            Base::Oba => "oba",
        }
    }

    fn from_term(term: &str) -> Option<Base> {
        Base::ALL.into_iter().find(|b| b.term() == term)
    }
}

/// A metatype: one or more base metatypes joined by `+`, and whether the metadata
/// describes a group (` set`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metatype {
    /// The base metatypes, in the order written.
    pub bases: Vec<Base>,
    /// Followed by ` set`: the metadata describes a group, collection or aggregation.
    pub set: bool,
}

impl fmt::Display for Metatype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.bases.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            f.write_str(b.term())?;
        }
        if self.set {
            f.write_str(" set")?;
        }
        Ok(())
    }
}

/// A kernel element's value, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// An actual value.
    Text(&'a str),
    /// A reserved code standing for a missing value, with the free text after it
    /// (for `(:at)`, the reference).
    Reserved(Reserved, &'a str),
    /// A `how` metatype and the human-readable resource type after it.
    Metatype(Metatype, &'a str),
}

/// Why a kernel value is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// Bound to nothing; a reserved code such as `(:null)` says why there is no value.
    Empty,
    /// Starts with `(:` and a code the page does not define.
    UnknownCode(String),
    /// Starts with `(:` and has no closing `)`.
    Unclosed,
    /// `(:at)` with no reference after it.
    NoReference,
    /// A metatype term that is not a base metatype.
    UnknownBase(String),
    /// A `how` value with no metatype (`(:mtype )`, or a bare value whose first word is
    /// not a metatype).
    NoMetatype,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::Empty => {
                f.write_str("empty value (a reserved code such as (:null) says why)")
            }
            Malformed::UnknownCode(c) => write!(f, "unknown reserved code (:{c})"),
            Malformed::Unclosed => f.write_str("\"(:\" without a closing \")\""),
            Malformed::NoReference => f.write_str("(:at) without a reference"),
            Malformed::UnknownBase(t) => write!(f, "unknown metatype \"{t}\""),
            Malformed::NoMetatype => f.write_str("no metatype"),
        }
    }
}

/// Read any kernel element's value: a reserved code with optional free text, or an
/// actual value.
pub fn parse(value: &str) -> Result<Value<'_>, Malformed> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Malformed::Empty);
    }
    let Some(rest) = value.strip_prefix("(:") else {
        return Ok(Value::Text(value));
    };
    let (code, text) = rest.split_once(')').ok_or(Malformed::Unclosed)?;
    let text = text.trim_start();
    match Reserved::from_code(code) {
        Some(Reserved::At) if text.is_empty() => Err(Malformed::NoReference),
        Some(r) => Ok(Value::Reserved(r, text)),
        None => Err(Malformed::UnknownCode(code.to_string())),
    }
}

/// Read a `how` value: `(:mtype METATYPE) resource type`, a bare metatype followed by
/// an optional resource type (the page's `set how text`), or a reserved code.
pub fn parse_how(value: &str) -> Result<Value<'_>, Malformed> {
    let trimmed = value.trim();
    if let Some(rest) = trimmed.strip_prefix("(:mtype ") {
        let (mtype, text) = rest.split_once(')').ok_or(Malformed::Unclosed)?;
        let mut words = mtype.split_whitespace();
        let bases = words.next().ok_or(Malformed::NoMetatype)?;
        let set = match words.next() {
            None => false,
            Some("set") if words.next().is_none() => true,
            Some(other) => return Err(Malformed::UnknownBase(other.to_string())),
        };
        return Ok(Value::Metatype(metatype(bases, set)?, text.trim_start()));
    }
    match parse(trimmed)? {
        Value::Text(t) => {
            let (bases, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
            let rest = rest.trim_start();
            let (set, text) = match rest.strip_prefix("set") {
                Some(after) if after.is_empty() || after.starts_with(char::is_whitespace) => {
                    (true, after.trim_start())
                }
                _ => (false, rest),
            };
            let m = metatype(bases, set).map_err(|_| Malformed::NoMetatype)?;
            Ok(Value::Metatype(m, text))
        }
        other => Ok(other),
    }
}

/// `data+code` (and whether ` set` followed) as a metatype.
fn metatype(bases: &str, set: bool) -> Result<Metatype, Malformed> {
    let bases = bases
        .split('+')
        .map(|t| Base::from_term(t).ok_or_else(|| Malformed::UnknownBase(t.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Metatype { bases, set })
}

/// Read `value` as the kernel element `elem` reads: `how` as a metatype, any other
/// element as a reserved code or an actual value.
pub fn parse_elem<'a>(elem: &str, value: &'a str) -> Result<Value<'a>, Malformed> {
    if elem == "how" {
        parse_how(value)
    } else {
        parse(value)
    }
}

/// What a kernel element says about the object, in the words of the Electronic
/// Resource Citation (ERC) that N2T's kernel follows; `None` for other elements. The
/// metadata pages show it beside the element's name.
pub fn about(elem: &str) -> Option<&'static str> {
    Some(match elem {
        "who" => "a responsible person or party",
        "what" => "a name or other human-oriented identifier",
        "when" => "a date important in the object's lifecycle",
        "where" => "a location or machine-oriented identifier",
        "how" => "a metatype and resource type",
        "language" => "the language of the object",
        "peek" => "a small preview of the object",
        "size" => "the object's size",
        _ => return None,
    })
}

/// Whether `elem` is a kernel element (required, `where`, or optional).
pub fn is_kernel(elem: &str) -> bool {
    elem == "where" || REQUIRED.contains(&elem) || OPTIONAL.contains(&elem)
}

/// Which required kernel elements an identifier lacks, and which kernel values are
/// malformed. An identifier is in good standing when both lists are empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing {
    /// Required elements with no binding, in [`REQUIRED`] order.
    pub missing: Vec<&'static str>,
    /// Kernel elements whose value is malformed, in binding order, with why.
    pub malformed: Vec<(String, Malformed)>,
}

impl Standing {
    /// Judge an identifier by its bindings (element name, value).
    pub fn of(bindings: &[(String, Vec<u8>)]) -> Standing {
        let missing = REQUIRED
            .into_iter()
            .filter(|r| !bindings.iter().any(|(e, _)| e == r))
            .collect();
        let malformed = bindings
            .iter()
            .filter(|(e, _)| is_kernel(e))
            .filter_map(|(e, v)| {
                parse_elem(e, &String::from_utf8_lossy(v))
                    .err()
                    .map(|why| (e.clone(), why))
            })
            .collect();
        Standing { missing, malformed }
    }

    /// Whether nothing is missing or malformed.
    pub fn is_good(&self) -> bool {
        self.missing.is_empty() && self.malformed.is_empty()
    }
}

/// The standing of `id` in the store: its stored bindings judged (`:idmap` values do
/// not count, as the page asks for bound elements).
pub fn standing<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<Standing, LookupError> {
    Ok(Standing::of(&elem::bindings(l, id, MAX_BINDINGS)?))
}

/// The standing of every identifier with bindings, from a walk over the whole store in
/// key order (an identifier's keys sort together): feed each (key, value) to
/// [`Census::push`], which hands back an identifier's standing once its keys are past.
#[derive(Debug, Default)]
pub struct Census {
    id: Vec<u8>,
    bindings: Vec<(String, Vec<u8>)>,
}

impl Census {
    /// Take the next key of the walk; the previous identifier and its standing when
    /// `key` starts another one.
    pub fn push(&mut self, key: &[u8], value: &[u8]) -> Option<(String, Standing)> {
        let (id, elem) = keys::split_binding(key)?;
        let done = if id != self.id.as_slice() {
            self.finish()
        } else {
            None
        };
        if self.id.is_empty() {
            self.id.extend_from_slice(id);
        }
        self.bindings
            .push((String::from_utf8_lossy(elem).into_owned(), value.to_vec()));
        done
    }

    /// The last identifier and its standing, at the end of the walk.
    pub fn finish(&mut self) -> Option<(String, Standing)> {
        if self.id.is_empty() {
            return None;
        }
        let id = String::from_utf8_lossy(&std::mem::take(&mut self.id)).into_owned();
        let standing = Standing::of(&std::mem::take(&mut self.bindings));
        Some((id, standing))
    }
}

#[cfg(test)]
mod tests;
