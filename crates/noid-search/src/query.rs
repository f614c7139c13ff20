//! The curator's query language: what the search box, `noid search QUERY` and the API's
//! `q` accept, as a typed [`Query`].
//!
//! ```text
//! frankenstein "modern prometheus"        words and phrases, in any element
//! who:Shelley   what:"The Last Man"       an element's whole value (case ignored)
//! host:example.org   under:ark:/13030/f5  a target's host; an identifier prefix
//! updated:>2026-01-01   created:2025-01-01..2025-06-30   updated:<=2026-03-01T12:00:00Z
//! status:broken   withdrawn:yes   standing:incomplete   populator:oca
//! a b (same as a AND b)   a OR b   -a   (a OR b) -c
//! ```
//!
//! The parser is written by hand (a tokenizer and a recursive descent over four rules)
//! rather than with a parser-combinator crate: the grammar is tiny, every refusal must
//! say in the curator's words what to change (a combinator's "expected one of …" does
//! not), and the fuzz target `search_query` holds it to one invariant: every input is
//! parsed or refused with a message, and a parsed query prints as text that parses
//! back to the same [`Query`] ([`Display`](std::fmt::Display)).
//!
//! Nothing here knows the index: this module is built without Tantivy (the fuzz target
//! links it alone) and the index turns a [`Query`] into its own query
//! (`crate::index`). Tantivy's query syntax is never shown to users.

use std::fmt;
use std::str::FromStr;

use noid_core::links::Status;

/// A parsed query: the conditions an identifier must meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Every identifier (the empty query).
    All,
    /// One condition.
    Term(Term),
    /// Every one of these (two or more): `a b`, `a AND b`.
    And(Vec<Query>),
    /// Any one of these (two or more): `a OR b`.
    Or(Vec<Query>),
    /// Not this: `-a`.
    Not(Box<Query>),
}

/// One condition of a [`Query`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// A word in any element's value or in the identifier (case ignored).
    Word(String),
    /// Words in this order in one value: `"modern prometheus"`.
    Phrase(String),
    /// An element whose whole value is this (case and surrounding blanks ignored):
    /// `who:Shelley`, `what:"The Last Man"`.
    Element {
        /// The element's name (`who`, `dc.title`, `_t` …).
        name: String,
        /// The value.
        value: String,
    },
    /// A target on this host (lower case): `host:example.org`.
    Host(String),
    /// Identifiers starting with this prefix, in [`identifier_key`] form:
    /// `under:ark:/13030/f5`.
    Under(String),
    /// Created or last updated within a span: `updated:>2026-01-01`.
    Time(TimeField, Span),
    /// A target whose link status is this: `status:broken`.
    Status(LinkStatus),
    /// Withdrawn (`withdrawn:yes`) or not (`withdrawn:no`).
    Withdrawn(bool),
    /// Standing (`standing:good|incomplete|malformed`).
    Standing(Standing),
    /// Last written by this populator: `populator:oca`.
    Populator(String),
}

/// Which time of an identifier a [`Term::Time`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeField {
    /// `created:` (the first write: egg's `_,ec`, else the circulation record's time).
    Created,
    /// `updated:` (the last write, `:/m`).
    Updated,
}

impl TimeField {
    /// Its name in a query.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeField::Created => "created",
            TimeField::Updated => "updated",
        }
    }
}

/// A moment as a query writes it: a day (`2026-01-01`, UTC) or a second
/// (`2026-01-01T12:00:00Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    /// Seconds since the epoch at its start.
    pub secs: i64,
    /// Written as a day: it lasts a day, not a second.
    pub day: bool,
}

impl Moment {
    /// The second after it ends.
    pub fn end(self) -> i64 {
        self.secs + if self.day { 86_400 } else { 1 }
    }
}

/// The span of a [`Term::Time`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// `>M`: after M ends.
    After(Moment),
    /// `>=M`: from M's start.
    From(Moment),
    /// `<M`: before M starts.
    Before(Moment),
    /// `<=M`: until M ends.
    Until(Moment),
    /// `M`: within M.
    On(Moment),
    /// `M..N`: from M's start until N ends.
    Between(Moment, Moment),
}

impl Span {
    /// The seconds it covers: `(first, end)`, `first` included, `end` excluded, `None`
    /// for no bound.
    pub fn bounds(self) -> (Option<i64>, Option<i64>) {
        match self {
            Span::After(m) => (Some(m.end()), None),
            Span::From(m) => (Some(m.secs), None),
            Span::Before(m) => (None, Some(m.secs)),
            Span::Until(m) => (None, Some(m.end())),
            Span::On(m) => (Some(m.secs), Some(m.end())),
            Span::Between(a, b) => (Some(a.secs), Some(b.end())),
        }
    }
}

/// A link status a query asks for: one the link checker gives, or never checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkStatus {
    /// A status of `noid_core::links::Status`.
    Checked(Status),
    /// No target of it was ever checked.
    Unchecked,
}

impl LinkStatus {
    /// Its spelling (`broken`, `unchecked` …).
    pub fn as_str(self) -> &'static str {
        match self {
            LinkStatus::Checked(s) => s.as_str(),
            LinkStatus::Unchecked => "unchecked",
        }
    }

    /// The status spelled `s`.
    pub fn parse(s: &str) -> Option<LinkStatus> {
        match s {
            "unchecked" => Some(LinkStatus::Unchecked),
            _ => Status::parse(s).map(LinkStatus::Checked),
        }
    }
}

/// An identifier's standing in one word, as noid-resolve's `kernel::Standing` judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Standing {
    /// Every required kernel element bound, none malformed (also `complete`).
    Good,
    /// A required kernel element missing, none malformed.
    Incomplete,
    /// A kernel value malformed.
    Malformed,
}

impl Standing {
    /// Every standing.
    pub const ALL: [Standing; 3] = [Standing::Good, Standing::Incomplete, Standing::Malformed];

    /// Its spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Good => "good",
            Standing::Incomplete => "incomplete",
            Standing::Malformed => "malformed",
        }
    }

    /// The standing spelled `s` (`complete` is `good`).
    pub fn parse(s: &str) -> Option<Standing> {
        match s {
            "good" | "complete" => Some(Standing::Good),
            "incomplete" => Some(Standing::Incomplete),
            "malformed" => Some(Standing::Malformed),
            _ => None,
        }
    }
}

/// Why a query was refused: the message says what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(String);

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QueryError {}

fn refuse<T>(why: impl Into<String>) -> Result<T, QueryError> {
    Err(QueryError(why.into()))
}

/// The form of an identifier (or a prefix of one) that `under:` compares: one string
/// for every spelling the identifier gate takes as one identifier (`ark:/13030/f5`,
/// `ark:13030/f5`, `ARK:/13030/f5`, `https://n2t.net/ark:/13030/f5`, and a minter's
/// bare `13030/f5`): the ARK draft's normal form, `ark:13030/f5`
/// (`noid_core::normalize::ark`, after `noid_core::spelling`'s reading of the label and
/// a resolver's address). Anything that is not an ARK is kept as given.
pub fn identifier_key(raw: &str) -> String {
    use noid_core::spelling::{canonical, is_naan_shaped, Canon};
    let binder = Canon::Ark { naans: Vec::new() };
    let spelled = canonical(raw, &binder).map_or_else(|_| raw.to_string(), |s| s.into_owned());
    if let Some(normal) = noid_core::normalize::ark(&spelled) {
        return normal;
    }
    match spelled.split_once('/') {
        Some((naan, _)) if is_naan_shaped(naan) => {
            noid_core::normalize::ark(&format!("ark:/{spelled}")).unwrap_or(spelled)
        }
        _ => spelled,
    }
}

/// The fields a query may name besides elements.
const FIELDS: [&str; 8] = [
    "host",
    "under",
    "updated",
    "created",
    "status",
    "withdrawn",
    "standing",
    "populator",
];

/// Longest query accepted, in bytes: a search box, not a file.
pub const MAX_LEN: usize = 65_536;
/// Most conditions in one query.
pub const MAX_CONDITIONS: usize = 256;
/// Deepest nesting of parentheses and negations.
const MAX_DEPTH: usize = 32;

impl FromStr for Query {
    type Err = QueryError;

    fn from_str(text: &str) -> Result<Query, QueryError> {
        if text.len() > MAX_LEN {
            return refuse(format!(
                "the query is {} bytes long; at most {MAX_LEN} are taken",
                text.len()
            ));
        }
        let tokens = tokenize(text)?;
        let conditions = tokens
            .iter()
            .filter(|t| matches!(t, Token::Bare(_) | Token::Quoted(_) | Token::Field(..)))
            .count();
        if conditions > MAX_CONDITIONS {
            return refuse(format!(
                "the query has {conditions} conditions; at most {MAX_CONDITIONS} are taken"
            ));
        }
        if tokens.is_empty() {
            return Ok(Query::All);
        }
        let mut p = Parser {
            tokens,
            at: 0,
            depth: 0,
        };
        let q = p.or()?;
        match p.tokens.get(p.at) {
            None => Ok(q),
            Some(Token::Close) => refuse("a \")\" closes no \"(\": remove it or add the \"(\""),
            Some(_) => refuse("unexpected text after the query"),
        }
    }
}

/// A piece of query text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    Or,
    And,
    /// A `-` directly before a condition.
    Minus,
    /// A word (no `:`), or `NAME:VALUE` split at its first `:`.
    Bare(String),
    /// `"…"`, unescaped.
    Quoted(String),
    /// `NAME:"…"`.
    Field(String, String),
}

fn tokenize(text: &str) -> Result<Vec<Token>, QueryError> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        match c {
            '(' => {
                chars.next();
                out.push(Token::Open);
            }
            ')' => {
                chars.next();
                out.push(Token::Close);
            }
            '"' => {
                chars.next();
                out.push(Token::Quoted(quoted(&mut chars, i)?));
            }
            '-' => {
                chars.next();
                match chars.peek() {
                    Some(&(_, n)) if !n.is_whitespace() && n != ')' => out.push(Token::Minus),
                    _ => return refuse(
                        "a \"-\" must come directly before what it leaves out (-word, -status:ok)",
                    ),
                }
            }
            _ => {
                let mut word = String::new();
                while let Some(&(_, c)) = chars.peek() {
                    if c.is_whitespace() || matches!(c, '(' | ')' | '"') {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                if word.ends_with(':') && matches!(chars.peek(), Some((_, '"'))) {
                    let Some((at, _)) = chars.next() else {
                        unreachable!("peeked")
                    };
                    word.pop();
                    out.push(Token::Field(word, quoted(&mut chars, at)?));
                } else if word == "OR" {
                    out.push(Token::Or);
                } else if word == "AND" {
                    out.push(Token::And);
                } else {
                    out.push(Token::Bare(word));
                }
            }
        }
    }
    Ok(out)
}

/// The text of a `"…"` whose opening quote (at byte `start`) was read: `\"` and `\\`
/// stand for `"` and `\`.
fn quoted(
    chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
    start: usize,
) -> Result<String, QueryError> {
    let mut s = String::new();
    while let Some((_, c)) = chars.next() {
        match c {
            '"' => return Ok(s),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => s.push(e),
                _ => return refuse("inside quotes a \"\\\" must be followed by \" or \\"),
            },
            c => s.push(c),
        }
    }
    refuse(format!(
        "the quote at character {} is not closed: add a \" after the phrase",
        start + 1
    ))
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    /// `and (OR and)*`.
    fn or(&mut self) -> Result<Query, QueryError> {
        let mut parts = vec![self.and()?];
        while self.peek() == Some(&Token::Or) {
            self.at += 1;
            if matches!(
                self.peek(),
                None | Some(Token::Close | Token::Or | Token::And)
            ) {
                return refuse("OR needs a condition after it");
            }
            parts.push(self.and()?);
        }
        Ok(one_or(parts, Query::Or))
    }

    /// `unary ([AND] unary)*`.
    fn and(&mut self) -> Result<Query, QueryError> {
        let mut parts = vec![self.unary()?];
        loop {
            match self.peek() {
                None | Some(Token::Close | Token::Or) => break,
                Some(Token::And) => {
                    self.at += 1;
                    if matches!(
                        self.peek(),
                        None | Some(Token::Close | Token::Or | Token::And)
                    ) {
                        return refuse("AND needs a condition after it");
                    }
                }
                Some(_) => {}
            }
            parts.push(self.unary()?);
        }
        Ok(one_or(parts, Query::And))
    }

    /// `- unary | ( or ) | condition`.
    fn unary(&mut self) -> Result<Query, QueryError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return refuse(format!(
                "the query nests more than {MAX_DEPTH} deep: write it more simply"
            ));
        }
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        let q = match token {
            Some(Token::Minus) => Query::Not(Box::new(self.unary()?)),
            Some(Token::Open) => {
                if self.peek() == Some(&Token::Close) {
                    return refuse("\"()\" holds nothing: put a condition inside or remove it");
                }
                let inner = self.or()?;
                if self.peek() != Some(&Token::Close) {
                    return refuse("a \"(\" is not closed: add a \")\"");
                }
                self.at += 1;
                inner
            }
            Some(Token::Close) => {
                return refuse("a \")\" closes no \"(\": remove it or add the \"(\"")
            }
            Some(Token::Or | Token::And) => {
                return refuse("OR and AND go between two conditions (a OR b)")
            }
            Some(Token::Quoted(p)) => phrase(p)?,
            Some(Token::Field(name, value)) => match name.split_once(':') {
                // `a:b:"…"` is element `a` with a value that starts `b:`, which only a
                // quoted whole value can say.
                Some((name, _)) => {
                    return refuse(format!(
                        "put the whole value of {name}: in quotes ({name}:\"…\")"
                    ))
                }
                None => field(&name, &value)?,
            },
            Some(Token::Bare(word)) => match word.split_once(':') {
                Some((name, value)) => field(name, value)?,
                None => Query::Term(Term::Word(word)),
            },
            None => return refuse("the query ends where a condition was expected"),
        };
        self.depth -= 1;
        Ok(q)
    }
}

fn one_or(mut parts: Vec<Query>, many: fn(Vec<Query>) -> Query) -> Query {
    if parts.len() == 1 {
        parts.pop().unwrap_or(Query::All)
    } else {
        many(parts)
    }
}

fn phrase(p: String) -> Result<Query, QueryError> {
    if p.trim().is_empty() {
        return refuse("\"\" holds no words: put words between the quotes");
    }
    Ok(Query::Term(Term::Phrase(p)))
}

/// `NAME:VALUE`.
fn field(name: &str, value: &str) -> Result<Query, QueryError> {
    if name.is_empty() {
        return refuse(format!(
            "\":{value}\" names no element: write ELEMENT:VALUE (who:Shelley) or one of {}",
            FIELDS.join(", ")
        ));
    }
    if value.trim().is_empty() {
        return refuse(format!(
            "{name}: needs a value ({name}:VALUE, or {name}:\"SEVERAL WORDS\")"
        ));
    }
    let term = match name {
        "host" => Term::Host(value.to_ascii_lowercase()),
        "under" => Term::Under(identifier_key(value)),
        "updated" => Term::Time(TimeField::Updated, span(name, value)?),
        "created" => Term::Time(TimeField::Created, span(name, value)?),
        "status" => Term::Status(LinkStatus::parse(value).ok_or_else(|| {
            let all: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
            QueryError(format!(
                "status:{value} is no link status: use one of {}, unchecked",
                all.join(", ")
            ))
        })?),
        "withdrawn" => Term::Withdrawn(match value {
            "yes" => true,
            "no" => false,
            _ => return refuse(format!("withdrawn:{value}: use withdrawn:yes or withdrawn:no")),
        }),
        "standing" => Term::Standing(Standing::parse(value).ok_or_else(|| {
            QueryError(format!(
                "standing:{value}: use standing:good (or complete), standing:incomplete or standing:malformed"
            ))
        })?),
        "populator" => Term::Populator(value.to_string()),
        _ => Term::Element {
            name: name.to_string(),
            value: value.to_string(),
        },
    };
    Ok(Query::Term(term))
}

/// `>M`, `>=M`, `<M`, `<=M`, `M` or `M..N`.
fn span(name: &str, text: &str) -> Result<Span, QueryError> {
    let moment = |t: &str| {
        moment(t).ok_or_else(|| {
            QueryError(format!(
                "{name}:{text}: \"{t}\" is no date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ \
                 ({name}:>2026-01-01, {name}:2025-01-01..2025-06-30)"
            ))
        })
    };
    let span = if let Some(t) = text.strip_prefix(">=") {
        Span::From(moment(t)?)
    } else if let Some(t) = text.strip_prefix("<=") {
        Span::Until(moment(t)?)
    } else if let Some(t) = text.strip_prefix('>') {
        Span::After(moment(t)?)
    } else if let Some(t) = text.strip_prefix('<') {
        Span::Before(moment(t)?)
    } else if let Some((a, b)) = text.split_once("..") {
        let (a, b) = (moment(a)?, moment(b)?);
        if a.secs > b.secs {
            return refuse(format!("{name}:{text}: the span ends before it starts"));
        }
        Span::Between(a, b)
    } else {
        Span::On(moment(text)?)
    };
    Ok(span)
}

/// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ`, UTC.
fn moment(t: &str) -> Option<Moment> {
    let digits = |s: &str| -> Option<u32> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
    };
    let (date, time) = match t.split_once('T') {
        Some((d, rest)) => (d, Some(rest.strip_suffix('Z')?)),
        None => (t, None),
    };
    let mut parts = date.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let day = chrono::NaiveDate::from_ymd_opt(digits(y)? as i32, digits(m)?, digits(d)?)?;
    let (h, mi, s) = match time {
        None => (0, 0, 0),
        Some(time) => {
            let mut parts = time.split(':');
            let (h, mi, s) = (parts.next()?, parts.next()?, parts.next()?);
            if parts.next().is_some() || [h, mi, s].iter().any(|p| p.len() != 2) {
                return None;
            }
            (digits(h)?, digits(mi)?, digits(s)?)
        }
    };
    let secs = day.and_hms_opt(h, mi, s)?.and_utc().timestamp();
    Some(Moment {
        secs,
        day: time.is_none(),
    })
}

impl fmt::Display for Moment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(t) = chrono::DateTime::from_timestamp(self.secs, 0) else {
            return write!(f, "{}", self.secs);
        };
        if self.day {
            write!(f, "{}", t.format("%Y-%m-%d"))
        } else {
            write!(f, "{}", t.format("%Y-%m-%dT%H:%M:%SZ"))
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Span::After(m) => write!(f, ">{m}"),
            Span::From(m) => write!(f, ">={m}"),
            Span::Before(m) => write!(f, "<{m}"),
            Span::Until(m) => write!(f, "<={m}"),
            Span::On(m) => write!(f, "{m}"),
            Span::Between(a, b) => write!(f, "{a}..{b}"),
        }
    }
}

/// A value as the parser reads it back: bare when it can be, else quoted.
fn value(f: &mut fmt::Formatter<'_>, v: &str) -> fmt::Result {
    let bare = !v.is_empty()
        && !v.starts_with('"')
        && !v
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '(' | ')' | '"'));
    if bare {
        f.write_str(v)
    } else {
        quote(f, v)
    }
}

fn quote(f: &mut fmt::Formatter<'_>, v: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in v.chars() {
        if matches!(c, '"' | '\\') {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Word(w) => f.write_str(w),
            Term::Phrase(p) => quote(f, p),
            Term::Element { name, value: v } => {
                write!(f, "{name}:")?;
                value(f, v)
            }
            Term::Host(h) => {
                f.write_str("host:")?;
                value(f, h)
            }
            Term::Under(p) => {
                f.write_str("under:")?;
                value(f, p)
            }
            Term::Time(field, span) => write!(f, "{}:{span}", field.as_str()),
            Term::Status(s) => write!(f, "status:{}", s.as_str()),
            Term::Withdrawn(w) => write!(f, "withdrawn:{}", if *w { "yes" } else { "no" }),
            Term::Standing(s) => write!(f, "standing:{}", s.as_str()),
            Term::Populator(p) => {
                f.write_str("populator:")?;
                value(f, p)
            }
        }
    }
}

impl fmt::Display for Query {
    /// Text that parses back to this query: AND binds closer than OR, and a group
    /// inside one of its own kind keeps its parentheses.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Query::All => Ok(()),
            Query::Term(t) => write!(f, "{t}"),
            Query::Not(q) => match **q {
                Query::Term(_) | Query::Not(_) => write!(f, "-{q}"),
                _ => write!(f, "-({q})"),
            },
            Query::And(parts) => joined(f, parts, " ", |q| {
                matches!(q, Query::And(_) | Query::Or(_) | Query::All)
            }),
            Query::Or(parts) => {
                joined(f, parts, " OR ", |q| matches!(q, Query::Or(_) | Query::All))
            }
        }
    }
}

fn joined(
    f: &mut fmt::Formatter<'_>,
    parts: &[Query],
    sep: &str,
    grouped: fn(&Query) -> bool,
) -> fmt::Result {
    for (i, q) in parts.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        if grouped(q) {
            write!(f, "({q})")?;
        } else {
            write!(f, "{q}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
