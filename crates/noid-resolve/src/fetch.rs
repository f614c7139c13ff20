//! Perl Noid's read commands, `fetch ID [ELEM…]` (labelled lines) and `get ID [ELEM…]`
//! (bare values), as the lines they print: the `noid` CLI writes each line to standard
//! output or error, the noid line protocol of `noidr` joins them into one answer line.
//! Both read and word them here, so that they cannot drift apart.
//!
//! The lines are handed to a callback as pieces to be written one after the other
//! (`ELEM`, `: `, `VALUE`), so that no line is assembled in memory first: `get` is on
//! the resolver's per-request path.

use crate::elem::{bindings, elem_value, read_id, Source};
use noid_core::keys;
use noid_core::lookup::{Lookup, LookupError};

/// Which read command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadVerb {
    /// `fetch`: a header (`id:`, `Circ:`), then `ELEM: VALUE` lines and notes.
    Fetch,
    /// `get`: bare values, an empty line for an element that is not bound.
    Get,
}

impl ReadVerb {
    /// The command's name.
    pub fn name(self) -> &'static str {
        match self {
            ReadVerb::Fetch => "fetch",
            ReadVerb::Get => "get",
        }
    }

    /// Perl's message for a command given no identifier (after `error: `).
    pub fn missing_id(self) -> String {
        format!("{} requires that an identifier be specified.", self.name())
    }
}

/// Where Perl prints a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Out,
    /// Standard error: only when an identifier has no bindings at all.
    Err,
}

/// What a read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fetched {
    /// Some value was found (an element asked for, or any binding when none was named).
    pub any: bool,
    /// Everything asked for was found: the command's exit status.
    pub complete: bool,
}

/// The other spellings under which an identifier with nothing bound as given may be
/// bound, in the order every read tries them: a LUI minter's canonical spelling, else,
/// for an ARK, its normal form in both label forms ([`noid_core::normalize::spellings`]),
/// as resolution finds them. `noid fetch`/`get` and noidr's noid line protocol read an
/// id under the first of these that has something bound when the id as given has none.
pub fn other_spellings<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<Vec<String>, LookupError> {
    if let Some(lui) = crate::lui::canonical(l, id)? {
        return Ok(vec![lui]);
    }
    Ok(noid_core::normalize::spellings(id))
}

/// Run `verb ID ELEMS…` (every binding of the identifier when `elems` is empty, at most
/// `limit` of them), handing each line Perl prints to `line(stream, pieces)`, without
/// its line end. The identifier may be given in its peppered form `ID!PEPPER`.
pub fn fetch<L, S>(
    l: &L,
    verb: ReadVerb,
    given: &str,
    elems: &[S],
    limit: usize,
    mut line: impl FnMut(Stream, &[&[u8]]),
) -> Result<Fetched, LookupError>
where
    L: Lookup + ?Sized,
    S: AsRef<str>,
{
    let id = read_id(l, given)?;
    let labelled = verb == ReadVerb::Fetch;
    if elems.is_empty() {
        let bound = bindings(l, id, limit)?;
        let stream = if bound.is_empty() {
            Stream::Err
        } else {
            Stream::Out
        };
        if labelled {
            header(l, id, stream, &mut line)?;
        }
        for (elem, value) in &bound {
            match labelled {
                true => line(stream, &[elem.as_bytes(), b": ", value]),
                false => line(stream, &[value]),
            }
        }
        if bound.is_empty() {
            line(
                Stream::Err,
                &[b"note: no elements bound under ", id.as_bytes(), b"."],
            );
        }
        let any = !bound.is_empty();
        return Ok(Fetched { any, complete: any });
    }
    if labelled {
        header(l, id, Stream::Out, &mut line)?;
    }
    let mut found = Fetched {
        any: false,
        complete: true,
    };
    for elem in elems {
        let elem = elem.as_ref();
        match elem_value(l, id, elem)? {
            Some(v) => {
                found.any = true;
                if !labelled {
                    line(Stream::Out, &[&v.value]);
                    continue;
                }
                line(Stream::Out, &[elem.as_bytes(), b": ", &v.value]);
                if v.source == Source::Idmap {
                    line(Stream::Out, &[b"note: previous result produced by :idmap"]);
                }
            }
            None => {
                found.complete = false;
                match labelled {
                    true => line(
                        Stream::Out,
                        &[
                            b"error: \"",
                            id.as_bytes(),
                            b" ",
                            elem.as_bytes(),
                            b"\" is not bound.",
                        ],
                    ),
                    false => line(Stream::Out, &[]),
                }
            }
        }
    }
    Ok(found)
}

/// `fetch`'s header: `id:    ID[ hold]` and `Circ:  RECORD` (or `uncirculated`).
fn header<L: Lookup + ?Sized>(
    l: &L,
    id: &str,
    stream: Stream,
    line: &mut impl FnMut(Stream, &[&[u8]]),
) -> Result<(), LookupError> {
    let held = l.get(&keys::hold(id))?.is_some();
    let hold: &[u8] = if held { b" hold" } else { b"" };
    line(stream, &[b"id:    ", id.as_bytes(), hold]);
    let circ = l.get(&keys::circ(id))?;
    line(
        stream,
        &[b"Circ:  ", circ.as_deref().unwrap_or(b"uncirculated")],
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::lookup::MemLookup;

    /// The lines as the CLI prints them: `>` for standard output, `!` for error.
    #[track_caller]
    fn check(l: &MemLookup, verb: ReadVerb, id: &str, elems: &[&str], expect: &str) {
        let mut got = String::new();
        let found = fetch(l, verb, id, elems, usize::MAX, |stream, pieces| {
            got.push(if stream == Stream::Out { '>' } else { '!' });
            for p in pieces {
                got.push_str(&String::from_utf8_lossy(p));
            }
            got.push('\n');
        })
        .unwrap();
        got.push_str(&format!("{found:?}"));
        assert_eq!(got, expect);
    }

    fn store() -> MemLookup {
        let l = MemLookup::new();
        l.bind("x", "who", "W");
        l.bind("x", ":/c", "i|20261122011757|root/root|1");
        l.bind("x", ":/h", "1");
        l.bind("x", ":/p", "pep");
        l.bind_idmap("^ft", "redirect", "g7h");
        l
    }

    #[test]
    fn labelled_lines() {
        let l = store();
        check(
            &l,
            ReadVerb::Fetch,
            "x",
            &["who", "nope"],
            ">id:    x hold\n>Circ:  i|20261122011757|root/root|1\n>who: W\n\
             >error: \"x nope\" is not bound.\nFetched { any: true, complete: false }",
        );
        check(
            &l,
            ReadVerb::Fetch,
            "ft1",
            &["redirect"],
            ">id:    ft1\n>Circ:  uncirculated\n>redirect: g7h1\n\
             >note: previous result produced by :idmap\nFetched { any: true, complete: true }",
        );
        check(
            &l,
            ReadVerb::Fetch,
            "y",
            &[],
            "!id:    y\n!Circ:  uncirculated\n!note: no elements bound under y.\n\
             Fetched { any: false, complete: false }",
        );
    }

    #[test]
    fn bare_values() {
        let l = store();
        check(
            &l,
            ReadVerb::Get,
            "x",
            &["nope", "who"],
            ">\n>W\nFetched { any: true, complete: false }",
        );
        check(
            &l,
            ReadVerb::Get,
            "x",
            &[],
            ">W\nFetched { any: true, complete: true }",
        );
    }

    /// Reads accept the peppered form `ID!PEPPER` (docs/COMPATIBILITY.md); a wrong
    /// pepper names another identifier.
    #[test]
    fn peppered_form() {
        let l = store();
        check(
            &l,
            ReadVerb::Get,
            "x!pep",
            &["who"],
            ">W\nFetched { any: true, complete: true }",
        );
        check(
            &l,
            ReadVerb::Get,
            "x!nope",
            &["who"],
            ">\nFetched { any: false, complete: false }",
        );
    }
}
