//! What a request of the line protocols (noid `get ID ELEM`, egg `ID.resolve`) is
//! counted as, for every server that answers them: noidr's `prg:` loop and the web
//! server modules (crate `noid-embed`).
//!
//! A line carries no User-Agent (Apache passes a `prg:` map only its key, and a
//! module's `RewriteMap int:` map gets no more), so these requests are counted as
//! people's; the modules' own HTTP handlers (nginx's `noid_map`, mod_noid's
//! `NoidResolve`) pass the request's User-Agent, and count robots apart. The kind is
//! read from the answer line, as the web server reads it.

use noid_resolve::lines::Answered;
use noid_resolve::Outcome;

use crate::counting::Counting;
use crate::key::{Class, Kind};

/// The line protocol a request was asked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// noid's `get ID ELEM`.
    Noid,
    /// egg's `ID.resolve[ HEADERS]`.
    Egg,
}

/// The identifier a request line asks for; `None` for a line that is no lookup (no
/// `.resolve`, a noid command other than `get`).
#[inline]
pub fn line_identifier(protocol: Protocol, line: &[u8]) -> Option<&[u8]> {
    match protocol {
        // As egg's parser finds it (an identifier may hold spaces).
        Protocol::Egg => noid_resolve::egg::request_identifier(line),
        Protocol::Noid => {
            // A plain scan: memchr's set-up costs more than a short line's bytes.
            let rest = line.strip_prefix(b"get ")?.trim_ascii_start();
            let end = rest
                .iter()
                .position(|&b| b == b' ' || b == b'\t')
                .unwrap_or(rest.len());
            Some(&rest[..end])
        }
    }
}

/// Counts the answer to a request in `protocol` for the identifier `id` finds (`None`:
/// a line that is no lookup), by an asker of `class`: one use of the kept answer when the
/// answer came from the memo or went into it (the identifier and kind are found only
/// the first time, [`Counting::count_kept`]), else by its identifier. `answer` is the
/// answer line; errors are not counted.
#[inline]
pub fn count_line<'a>(
    counting: &Counting,
    protocol: Protocol,
    id: impl FnOnce() -> Option<&'a [u8]>,
    class: Class,
    answered: &Answered,
    answer: &[u8],
) {
    let counted_as = || Some((id()?, answer_kind(protocol, answer, answered.outcome)?));
    match &answered.kept {
        Some(kept) => counting.count_kept(kept, class, counted_as),
        None => {
            if let Some((id, kind)) = counted_as() {
                counting.count_as(id, kind, class);
            }
        }
    }
}

/// What an answer of `outcome` in `protocol` counts as; `None` for an error.
fn answer_kind(protocol: Protocol, answer: &[u8], outcome: Outcome) -> Option<Kind> {
    Some(match (outcome, protocol) {
        (Outcome::Error, _) => return None,
        (Outcome::Miss, _) => Kind::Miss,
        (Outcome::Inflection, _) => Kind::Inflection,
        (Outcome::Hit | Outcome::ChopBack, Protocol::Noid) => Kind::Hit,
        (Outcome::Hit | Outcome::ChopBack, Protocol::Egg) => egg_kind(answer),
    })
}

/// A found identifier's egg answer: `redirNNN TARGET` is a redirect with code NNN,
/// any other (`inflect "op=…"`: content negotiation, several targets, a registry
/// record or providers) a page.
fn egg_kind(answer: &[u8]) -> Kind {
    match answer.strip_prefix(b"redir").and_then(|rest| rest.get(..3)) {
        Some(&[a, b, c]) if [a, b, c].iter().all(u8::is_ascii_digit) => {
            let digit = |d: u8| u16::from(d - b'0');
            Kind::Redirect(digit(a) * 100 + digit(b) * 10 + digit(c))
        }
        _ => Kind::Page,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_read_from_request_lines() {
        let egg = |l: &'static [u8]| line_identifier(Protocol::Egg, l);
        assert_eq!(
            egg(b"ark:/1/x.resolve !!!ac=text/html!!!"),
            Some(&b"ark:/1/x"[..])
        );
        assert_eq!(egg(b"ark:/1/x?.resolve"), Some(&b"ark:/1/x?"[..]));
        assert_eq!(egg(b"ark:/1/x"), None);
        assert_eq!(egg(b"ark:/1/a b.resolve"), Some(&b"ark:/1/a b"[..]));
        assert_eq!(
            egg(b"ark:/1/a b.resolve !!!pr=http!!!"),
            Some(&b"ark:/1/a b"[..])
        );
        let noid = |l: &'static [u8]| line_identifier(Protocol::Noid, l);
        assert_eq!(noid(b"get ark:/1/x _t"), Some(&b"ark:/1/x"[..]));
        assert_eq!(noid(b"hello"), None);
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
        assert_eq!(egg_kind(b"redir30x https://a.example/\n"), Kind::Page);
    }
}
