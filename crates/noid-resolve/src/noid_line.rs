//! The noid line protocol of `noidr` (Perl Noid's resolver mode, `noidr_xxx`): each
//! request line is a read-only noid command, shell-word split; in practice the manual's
//! Apache example sends `get ID ELEM`.
//!
//! **Exactly one answer line per request line, always**: Apache reads one line per
//! lookup, so a second line would become the answer to the next request. Framing:
//!
//! * `get ID ELEM` → the value (stored truthy value, else `:idmap`), or `NULL` when
//!   nothing is bound (Apache's prg protocol reads `NULL` as "not found"; an empty line
//!   would be a *found* empty value).
//! * Multi-line values: inside a value CR, LF, NUL and TAB are written `%0D`, `%0A`,
//!   `%00`, `%09`. Nothing else is encoded (URLs keep their own `%XX`), so the encoding
//!   cannot be reversed in general; for URL targets it is exactly the URL encoding of
//!   those bytes, which is what a redirect needs.
//! * Several elements (`get ID e1 e2`): the values joined by one TAB, an unbound element
//!   giving an empty field (Perl printed an empty line for it); `NULL` when none is bound.
//!   `get ID` alone gives every element's value the same way.
//! * `fetch ID [ELEM…]`: Perl's labelled lines (`id: ID`, `Circ: …`, `ELEM: VALUE`,
//!   `error: "ID ELEM" is not bound.`, `note: previous result produced by :idmap`) joined
//!   by TAB; `NULL` when the id has no bindings at all.
//! * An ARK with nothing bound under it as given (and no LUI spelling) is read under
//!   its ARK normal form (`noid_core::normalize`, in the `ark:/NAAN/…` and `ark:NAAN/…`
//!   forms), as resolution reads it: `get ark:/12345/x–y _t` finds `ark:/12345/xy`.
//! * `hello` → `Hello.`; `help` → one line listing the commands.
//! * The other verbs of the `noid` command, as its verb table ([`noid_core::verbs`]) lists
//!   them: those that write (`bind mint peppermint hold queue note dbcreate import`,
//!   `serve replay prune-log links`) → `error: noidr is read-only: "bind" refused`; the
//!   others (`validate dbinfo export check lui standing`) →
//!   `error: "validate" is not available in noidr; use the noid command`.
//! * Unknown commands, unbalanced quotes, invalid UTF-8 → `error: …`; a blank line → `NULL`.
//!
//! A value whose text is `NULL` in any case cannot be told from "not found" by Apache
//! (`strcasecmp`); do not bind such values for resolution.

use std::fmt;

use crate::fetch::{self, ReadVerb, Stream};
use crate::outcome::Outcome;
use noid_core::lookup::{Lookup, LookupError};
use noid_core::verbs::{self, Name};

/// Bindings listed for `get ID` / `fetch ID` without elements.
const MAX_ELEMENTS: usize = 10_000;

/// What `help` answers.
const HELP: &str = "noidr (read-only) answers one line per request: get ID [ELEM...], \
                    fetch ID [ELEM...], hello, help; NULL when nothing is bound";

/// One request line, parsed once: what the client asks for. Every noid command has its
/// variant; any other verb is [`Command::Unknown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A line with no words: answered `NULL`, as a miss.
    Blank,
    /// `get ID [ELEM…]` or `fetch ID [ELEM…]`.
    Read {
        /// Which of the two.
        verb: ReadVerb,
        /// The identifier, plain or peppered (`ID!PEPPER`).
        id: String,
        /// The elements asked for; none asks for every binding.
        elems: Vec<String>,
    },
    /// `hello`.
    Hello,
    /// `help`.
    Help,
    /// A verb of the `noid` command that changes the minter: noidr is read-only.
    Write(&'static str),
    /// Any other verb of the `noid` command that noidr does not serve: use `noid`.
    Elsewhere(&'static str),
    /// A word that is no noid command.
    Unknown(String),
}

impl Command {
    /// Parse a request line (without its terminator): shell words, the first the verb.
    pub fn parse(line: &[u8]) -> Result<Command, LineError> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Command::Blank);
        }
        let text = std::str::from_utf8(line).map_err(|_| LineError::NotUtf8)?;
        let mut words = split_words(text)?;
        let Some(verb) = words.first() else {
            return Ok(Command::Blank);
        };
        let read = match verbs::find(verb) {
            Some(v) => match v.name {
                Name::Get => ReadVerb::Get,
                Name::Fetch => ReadVerb::Fetch,
                Name::Hello => return Ok(Command::Hello),
                Name::Help => return Ok(Command::Help),
                _ if v.writes => return Ok(Command::Write(v.word)),
                _ => return Ok(Command::Elsewhere(v.word)),
            },
            None => return Ok(Command::Unknown(words.swap_remove(0))),
        };
        if words.len() < 2 {
            return Err(LineError::MissingId(read));
        }
        // The elements stay where they are: no new allocation per request.
        let mut head = words.drain(..2);
        let id = head.nth(1).unwrap_or_default();
        drop(head);
        Ok(Command::Read {
            verb: read,
            id,
            elems: words,
        })
    }

    /// Answer the command from `l`: append its answer (without a line end) to `out`.
    pub fn answer<L: Lookup + ?Sized>(&self, l: &L, out: &mut Vec<u8>) -> Result<(), LineError> {
        match self {
            Command::Blank => out.extend_from_slice(b"NULL"),
            Command::Read { verb, id, elems } => read(l, *verb, id, elems, out)?,
            Command::Hello => out.extend_from_slice(b"Hello."),
            Command::Help => out.extend_from_slice(HELP.as_bytes()),
            Command::Write(verb) => return Err(LineError::ReadOnly(verb)),
            Command::Elsewhere(verb) => return Err(LineError::Elsewhere(verb)),
            Command::Unknown(verb) => return Err(LineError::Unknown(verb.clone())),
        }
        Ok(())
    }
}

/// `text`'s shell words, as `shell_words::split` gives them. That walks the line a
/// character at a time, growing each word as it goes (some 1,900 instructions for a
/// `get ID _t` line, a fifth of the RocksDB read the line then costs); a line without
/// quotes, backslashes or `#` (every line a web server sends for an identifier) has
/// its words between its blanks (space, tab, line feed: the delimiters of
/// `shell_words`), and only the other lines are walked.
fn split_words(text: &str) -> Result<Vec<String>, LineError> {
    if text
        .bytes()
        .any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'#'))
    {
        return shell_words::split(text).map_err(LineError::Split);
    }
    Ok(text
        .split([' ', '\t', '\n'])
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Why a request line gets an `error: …` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// The line is not UTF-8.
    NotUtf8,
    /// The line does not split into shell words (an unbalanced quote).
    Split(shell_words::ParseError),
    /// `get` or `fetch` without an identifier.
    MissingId(ReadVerb),
    /// A command that changes the minter.
    ReadOnly(&'static str),
    /// A command noidr does not offer.
    Elsewhere(&'static str),
    /// No such command.
    Unknown(String),
    /// The store failed.
    Lookup(LookupError),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NotUtf8 => f.write_str("request is not valid UTF-8"),
            LineError::Split(e) => write!(f, "cannot parse request: {e}"),
            LineError::MissingId(verb) => f.write_str(&verb.missing_id()),
            LineError::ReadOnly(verb) => write!(f, "noidr is read-only: {verb:?} refused"),
            LineError::Elsewhere(verb) => write!(
                f,
                "{verb:?} is not available in noidr; use the noid command"
            ),
            LineError::Unknown(verb) => write!(f, "no such command: {verb}"),
            LineError::Lookup(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LineError {}

impl From<LookupError> for LineError {
    fn from(e: LookupError) -> Self {
        LineError::Lookup(e)
    }
}

/// Answer one request line (without its terminator): append exactly one line, `\n`
/// included, to `out`, and say what kind of answer it is (`NULL` is a miss).
pub fn answer<L: Lookup + ?Sized>(l: &L, line: &[u8], out: &mut Vec<u8>) -> Outcome {
    let start = out.len();
    let outcome = match Command::parse(line).and_then(|c| c.answer(l, out)) {
        // `NULL` is the one answer that says "nothing bound" (a blank line included).
        Ok(()) if &out[start..] == b"NULL" => Outcome::Miss,
        Ok(()) => Outcome::Hit,
        Err(e) => {
            out.truncate(start);
            push_error(&e, out);
            Outcome::Error
        }
    };
    out.push(b'\n');
    outcome
}

/// Append `error: MESSAGE\n` for a failure outside any request's answer (a store that
/// cannot be opened), written as every error answer of this protocol is.
pub fn error_line(e: &dyn fmt::Display, out: &mut Vec<u8>) {
    push_error(e, out);
    out.push(b'\n');
}

/// `error: MESSAGE`, the message's CR, LF, NUL and TAB %-encoded: every error answer of
/// this protocol is written here.
fn push_error(e: &dyn fmt::Display, out: &mut Vec<u8>) {
    out.extend_from_slice(b"error: ");
    push_field(e.to_string().as_bytes(), out);
}

/// Append a value with CR, LF, NUL and TAB %-encoded (they would break the line framing
/// or the TAB field separator).
pub fn push_field(v: &[u8], out: &mut Vec<u8>) {
    if !v.iter().any(|c| matches!(c, b'\r' | b'\n' | b'\0' | b'\t')) {
        out.extend_from_slice(v);
        return;
    }
    for &c in v {
        match c {
            b'\r' => out.extend_from_slice(b"%0D"),
            b'\n' => out.extend_from_slice(b"%0A"),
            b'\0' => out.extend_from_slice(b"%00"),
            b'\t' => out.extend_from_slice(b"%09"),
            _ => out.push(c),
        }
    }
}

/// `get` or `fetch`: the lines Perl prints on standard output joined by TAB; `NULL`
/// when nothing asked for is bound (`get`) or the id has no bindings (`fetch ID`).
///
/// When nothing is found, the answer is that of the first of the id's other spellings
/// ([`fetch::other_spellings`]: a LUI minter's canonical spelling, an ARK's normal form)
/// that has something bound, as resolution finds it.
fn read<L: Lookup + ?Sized>(
    l: &L,
    verb: ReadVerb,
    id: &str,
    elems: &[String],
    out: &mut Vec<u8>,
) -> Result<(), LookupError> {
    let start = out.len();
    if read_id(l, verb, id, elems, out)? {
        return Ok(());
    }
    let missed = out.split_off(start);
    for other in fetch::other_spellings(l, id)? {
        if read_id(l, verb, &other, elems, out)? {
            return Ok(());
        }
        out.truncate(start);
    }
    out.extend_from_slice(&missed);
    Ok(())
}

/// [`read`] for one spelling of the id; false when nothing asked for was found.
fn read_id<L: Lookup + ?Sized>(
    l: &L,
    verb: ReadVerb,
    id: &str,
    elems: &[String],
    out: &mut Vec<u8>,
) -> Result<bool, LookupError> {
    let start = out.len();
    let mut first = true;
    let found = fetch::fetch(l, verb, id, elems, MAX_ELEMENTS, |stream, pieces| {
        if stream == Stream::Err {
            return;
        }
        if !first {
            out.push(b'\t');
        }
        first = false;
        for piece in pieces {
            push_field(piece, out);
        }
    })?;
    if !found.any && (verb == ReadVerb::Get || elems.is_empty()) {
        out.truncate(start);
        out.extend_from_slice(b"NULL");
    }
    Ok(found.any)
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::lookup::{MemLookup, Pairs};

    fn store() -> MemLookup {
        let l = MemLookup::new();
        l.bind("13030/kt639k9", "myGoto", "http://example.org/a");
        l.bind("13030/kt639k9", "multi", "line one\r\nline\ttwo\0");
        l.bind("13030/kt639k9", ":/c", "i|20261122011757|root/root|1");
        l.bind("x", "null", "null");
        l.bind_idmap("^ft", "redirect", "g7h");
        l.bind_idmap("^ft([^x]+)x(.*)", "my_elem", "$2/g7h/$1");
        l
    }

    #[track_caller]
    fn check(line: &[u8], expect: &str) {
        let l = store();
        let mut out = Vec::new();
        answer(&l, line, &mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("{expect}\n"),
            "request {line:?}"
        );
    }

    /// Lines split without `shell_words` split as it splits them: blanks of every kind
    /// (only space, tab and line feed separate words), and every character that
    /// sends a line to `shell_words` itself.
    #[test]
    fn words_as_shell_words_splits_them() {
        let alphabet = [
            " ", "\t", "\n", "\r", "\u{b}", "\u{a0}", "a", "Z", "/", ":", "é", "–", "'", "\"",
            "\\", "#",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let mut line = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for i in 0..(state % 12) {
                line.push_str(alphabet[((state >> (4 * i)) % alphabet.len() as u64) as usize]);
            }
            let expect = shell_words::split(&line).map_err(LineError::Split);
            assert_eq!(split_words(&line), expect, "line {line:?}");
        }
        assert_eq!(
            split_words("  get\tark:/13030/x#y \n _t ").unwrap(),
            ["get", "ark:/13030/x#y", "_t"]
        );
    }

    #[test]
    fn get_values() {
        check(b"get 13030/kt639k9 myGoto", "http://example.org/a");
        check(b"get 13030/kt639k9 nope", "NULL");
        check(b"get nope myGoto", "NULL");
        check(b"get ft89xr2t redirect", "g7h89xr2t");
        check(b"get ft89xr2t my_elem", "r2t/g7h/89");
        check(b"get 'ft89xr2t' \"my_elem\"", "r2t/g7h/89");
    }

    #[test]
    fn framing_multi_line_and_several_elements() {
        check(b"get 13030/kt639k9 multi", "line one%0D%0Aline%09two%00");
        check(
            b"get 13030/kt639k9 myGoto nope multi",
            "http://example.org/a\t\tline one%0D%0Aline%09two%00",
        );
        check(b"get 13030/kt639k9 nope nope2", "NULL");
        check(
            b"get 13030/kt639k9",
            "line one%0D%0Aline%09two%00\thttp://example.org/a",
        );
    }

    #[test]
    fn fetch_is_one_line() {
        check(
            b"fetch 13030/kt639k9 myGoto nope",
            "id:    13030/kt639k9\tCirc:  i|20261122011757|root/root|1\tmyGoto: http://example.org/a\terror: \"13030/kt639k9 nope\" is not bound.",
        );
        check(
            b"fetch ft89xr2t redirect",
            "id:    ft89xr2t\tCirc:  uncirculated\tredirect: g7h89xr2t\tnote: previous result produced by :idmap",
        );
        check(b"fetch nothing", "NULL");
    }

    #[test]
    fn lines_parse_into_commands() {
        let read = |verb, id: &str, elems: &[&str]| Command::Read {
            verb,
            id: id.into(),
            elems: elems.iter().map(|e| e.to_string()).collect(),
        };
        for (line, command) in [
            (
                &b"get x a 'b c'"[..],
                read(ReadVerb::Get, "x", &["a", "b c"]),
            ),
            (b"fetch x!pep", read(ReadVerb::Fetch, "x!pep", &[])),
            (b" \t", Command::Blank),
            (b"hello", Command::Hello),
            (b"help me", Command::Help),
            (b"dbimport f", Command::Write("dbimport")),
            (b"peppermint 1", Command::Write("peppermint")),
            (b"check", Command::Elsewhere("check")),
            (b"standing x", Command::Elsewhere("standing")),
            (b"lui encode 1", Command::Elsewhere("lui")),
            (b"replay log", Command::Write("replay")),
            (b"GET x y", Command::Unknown("GET".into())),
        ] {
            assert_eq!(Command::parse(line), Ok(command), "{line:?}");
        }
        assert_eq!(
            Command::parse(b"fetch"),
            Err(LineError::MissingId(ReadVerb::Fetch))
        );
        assert_eq!(Command::parse(b"get \xff"), Err(LineError::NotUtf8));
        assert!(matches!(
            Command::parse(b"get \"x"),
            Err(LineError::Split(_))
        ));
    }

    #[test]
    fn null_value_is_indistinguishable() {
        // Documented limitation: Apache reads this as "not found".
        check(b"get x null", "null");
    }

    #[test]
    fn refusals_and_errors() {
        check(
            b"bind set x _t y",
            "error: noidr is read-only: \"bind\" refused",
        );
        check(b"mint 1", "error: noidr is read-only: \"mint\" refused");
        check(
            b"dbcreate f5.reedeedk",
            "error: noidr is read-only: \"dbcreate\" refused",
        );
        check(
            b"validate - x",
            "error: \"validate\" is not available in noidr; use the noid command",
        );
        check(b"frob x", "error: no such command: frob");
        check(
            b"get",
            "error: get requires that an identifier be specified.",
        );
        check(
            b"get 'x",
            "error: cannot parse request: missing closing quote",
        );
        check(b"get \xff\xfe x", "error: request is not valid UTF-8");
        check(b"hello", "Hello.");
        check(b"", "NULL");
        check(b"    ", "NULL");
        check(b"get a\0b c", "NULL");
        check(b"frob \n\r\tx", "error: no such command: frob");
    }

    #[test]
    fn storage_errors_are_one_line() {
        struct Broken;
        impl Lookup for Broken {
            fn get(&self, _: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
                Err(LookupError::read(b"a\tb", "disk on fire\nreally"))
            }
            fn scan_prefix(&self, _: &[u8], _: usize) -> Result<Pairs, LookupError> {
                Err(LookupError::store("disk on fire"))
            }
        }
        let mut out = Vec::new();
        answer(&Broken, b"get a b", &mut out);
        assert_eq!(out, b"error: reading \"a\\tb\": disk on fire%0Areally\n");
    }
}
