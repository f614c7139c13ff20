//! Resolution counts in noidr (`--counts`): what each answered request is counted as
//! (crate `noid-counts`, which keeps the tally and writes `DBDIR/counts/`).
//!
//! Over HTTP, `noid-http` says what it answered and passes the User-Agent. A line of
//! the line protocols carries no User-Agent (Apache passes only the map's key), so
//! those requests are counted as people's: robots cannot be told apart on the `prg:`
//! path. Their kind is read from the answer line itself, as Apache reads it.

use noid_counts::{Class, Counting, Kind};
use noid_resolve::Outcome;

use crate::args::Protocol;

/// Counts the answer `answer` (the line written, with its `\n`) of `outcome` to the
/// request line `line`. Errors and lines that are no lookup are not counted.
#[inline]
pub fn count_line(
    counting: &Counting,
    protocol: Protocol,
    line: &[u8],
    answer: &[u8],
    outcome: Outcome,
) {
    let id = match protocol {
        Protocol::Egg => egg_identifier(line),
        Protocol::Noid => noid_identifier(line),
    };
    let Some(id) = id else { return };
    let kind = match (outcome, protocol) {
        (Outcome::Error, _) => return,
        (Outcome::Miss, _) => Kind::Miss,
        (Outcome::Inflection, _) => Kind::Inflection,
        (Outcome::Hit | Outcome::ChopBack, Protocol::Noid) => Kind::Hit,
        (Outcome::Hit | Outcome::ChopBack, Protocol::Egg) => egg_kind(answer),
    };
    counting.count_as(id, kind, Class::Person);
}

/// The identifier of an egg request line (`ID.resolve[ HEADERS]`).
fn egg_identifier(line: &[u8]) -> Option<&[u8]> {
    let end = memchr::memchr(b' ', line).unwrap_or(line.len());
    line[..end].strip_suffix(b".resolve")
}

/// The identifier of a noid `get ID ELEM` line; `None` for any other command.
fn noid_identifier(line: &[u8]) -> Option<&[u8]> {
    let rest = line.strip_prefix(b"get ")?.trim_ascii_start();
    let end = memchr::memchr2(b' ', b'\t', rest).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// A found identifier's egg answer: `redirNNN TARGET` is a redirect with code NNN,
/// any other (`inflect "op=…"`: content negotiation, several targets, a registry
/// record or providers) a page.
fn egg_kind(answer: &[u8]) -> Kind {
    let code = answer
        .strip_prefix(b"redir")
        .and_then(|rest| rest.get(..3))
        .and_then(|d| std::str::from_utf8(d).ok())
        .and_then(|d| d.parse().ok());
    code.map_or(Kind::Page, Kind::Redirect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_read_from_request_lines() {
        assert_eq!(
            egg_identifier(b"ark:/1/x.resolve !!!ac=text/html!!!"),
            Some(&b"ark:/1/x"[..])
        );
        assert_eq!(
            egg_identifier(b"ark:/1/x?.resolve"),
            Some(&b"ark:/1/x?"[..])
        );
        assert_eq!(egg_identifier(b"ark:/1/x"), None);
        assert_eq!(noid_identifier(b"get ark:/1/x _t"), Some(&b"ark:/1/x"[..]));
        assert_eq!(noid_identifier(b"hello"), None);
    }

    #[test]
    fn an_egg_answer_says_its_kind() {
        assert_eq!(
            egg_kind(b"redir301 https://a.example/\n"),
            Kind::Redirect(301)
        );
        assert_eq!(
            egg_kind(b"redir303 https://a.example/\n"),
            Kind::Redirect(303)
        );
        assert_eq!(egg_kind(b"inflect \"op=multi\" \"id=x\"\n"), Kind::Page);
    }
}
