//! The ARK specification's normalisation (draft-kunze-ark, "Normalization and Lexical
//! Equivalence"): which spellings of an ARK name the same thing.
//!
//! The steps applied, in the specification's order:
//!
//! 1. (the NMA, `https://host/` before `ark:`): a request path has none;
//! 2. (the query string): **not** removed, because resolution reads `?`, `??` and
//!    `?info` as inflections and passes any other query through to the target;
//! 3. the label, `ark:/` or `ark:` in any case, becomes `ark:`;
//! 4. the two characters after every `%` are upper-cased (`%7e` → `%7E`: draft-kunze-ark-43
//!    §3.2 step 5, as RFC 3986 §6.2.2.1 has it);
//! 5. the NAAN is lower-cased (`B5072` → `b5072`);
//! 6. hyphens are removed from the identifier part (after the NAAN): U+002D and its
//!    typographic variants U+2010 to U+2015 (hyphen, non-breaking hyphen, figure dash,
//!    en dash, em dash, horizontal bar), which line-breaking text tools insert. A hyphen
//!    in the NAAN is N2T's prefix extension (`ark:/12345-dev/x`) and is kept here;
//! 7. (structural characters `/` and `.`): **not** in this normal form, because a suffix
//!    passed through below a bound ancestor keeps its `//` (EggNog's conformance); the
//!    draft's final `/` or `.` ignored and `//` collapsed are resolution steps of their
//!    own ([`without_final_structure`], [`with_slashes_collapsed`]).
//!
//! [`ark`] is that normal form; [`identifier_part`] is steps 4 and 6 on the part after
//! the NAAN, which resolution uses for its lookups of other spellings
//! (`crate::ident::Parsed::alternates`) and the identifier gate writes
//! (`crate::spelling`). [`without_pasted_space`] drops what a copy and paste adds. The
//! vectors are published in docs/RESOLUTION.md, and every one of them is a test.

use std::borrow::Cow;

/// The typographic hyphens the ARK specification treats as identity inert, next to
/// U+002D: U+2010 hyphen, U+2011 non-breaking hyphen, U+2012 figure dash, U+2013 en
/// dash, U+2014 em dash, U+2015 horizontal bar.
pub const UNICODE_HYPHENS: std::ops::RangeInclusive<char> = '\u{2010}'..='\u{2015}';

/// Whether `c` is a hyphen the ARK specification removes.
pub fn is_hyphen(c: char) -> bool {
    c == '-' || UNICODE_HYPHENS.contains(&c)
}

/// Step 6 alone: `part` without its hyphens; borrowed when it has none. Every miss
/// asks (other spellings of the id), so the test is a plain byte loop: on the short
/// parts of identifiers it costs a third of `memchr2`'s vector set-up.
pub fn without_hyphens(part: &str) -> Cow<'_, str> {
    let maybe = |b: &u8| *b == b'-' || *b == 0xE2;
    if !part.as_bytes().iter().any(maybe) || !part.contains(is_hyphen) {
        return Cow::Borrowed(part);
    }
    Cow::Owned(part.chars().filter(|&c| !is_hyphen(c)).collect())
}

/// Steps 4 and 6 on an ARK's identifier part (what follows the NAAN): `%XX` upper-cased,
/// every hyphen removed. Borrowed when there is nothing to change, which a byte search
/// decides (a `%`, an ASCII hyphen, or the lead byte 0xE2 of U+2010–U+2015).
pub fn identifier_part(part: &str) -> Cow<'_, str> {
    if memchr::memchr3(b'%', b'-', 0xE2, part.as_bytes()).is_none() {
        return Cow::Borrowed(part);
    }
    let mut out = String::with_capacity(part.len());
    let mut lower = 0;
    for c in part.chars() {
        if lower > 0 {
            lower -= 1;
            out.push(c.to_ascii_uppercase());
            // A hyphen right after `%` is one of the two characters, not removed.
            continue;
        }
        if is_hyphen(c) {
            continue;
        }
        if c == '%' {
            lower = 2;
        }
        out.push(c);
    }
    if out == part {
        Cow::Borrowed(part)
    } else {
        Cow::Owned(out)
    }
}

/// The ARK specification's normal form of `id` (`ark:NAAN/PART`), or `None` when `id`
/// (leading `/`s ignored) is not an ARK. See the module's doc for the steps.
///
/// ```
/// use noid_core::normalize::ark;
/// assert_eq!(ark("ARK:/B5072/fk2‐x-y%7E").as_deref(), Some("ark:b5072/fk2xy%7E"));
/// assert_eq!(ark("doi:10.5072/x"), None);
/// ```
pub fn ark(id: &str) -> Option<String> {
    let id = id.trim_start_matches('/');
    let label = id.get(..4).filter(|l| l.eq_ignore_ascii_case("ark:"))?;
    debug_assert_eq!(label.len(), 4);
    let rest = id[4..].strip_prefix('/').unwrap_or(&id[4..]);
    let (naan, part) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if naan.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(id.len());
    out.push_str("ark:");
    // Step 4 applies to the NAAN too; then step 5 lower-cases the whole NAAN.
    out.push_str(&naan.to_ascii_lowercase());
    out.push_str(&identifier_part(part));
    Some(out)
}

/// The normal form of the ARK `id` written both ways, `ark:/NAAN/…` first, then
/// `ark:NAAN/…`, leaving out `id` itself: the spellings under which a store may hold
/// what `id` names. Empty when `id` is not an ARK.
pub fn spellings(id: &str) -> Vec<String> {
    let Some(normal) = ark(id) else {
        return Vec::new();
    };
    let slashed = ["ark:/", &normal["ark:".len()..]].concat();
    [slashed, normal].into_iter().filter(|s| s != id).collect()
}

/// An ARK as pasted, with the white space a copy brings into it (spaces, tabs, line
/// breaks, no-break spaces: Unicode's White_Space) dropped before its first `?`, or
/// `None` when `id` holds none there or is no ARK without it. The ARK draft
/// (draft-kunze-ark-43 §3.1) has resolvers drop it before comparison; a query after `?`
/// is passed through as given.
///
/// ```
/// use noid_core::normalize::without_pasted_space;
/// assert_eq!(without_pasted_space("ark:/12345/x9ab\n cd?q=a b").as_deref(), Some("ark:/12345/x9abcd?q=a b"));
/// assert_eq!(without_pasted_space("ark:/12345/x9abcd"), None);
/// assert_eq!(without_pasted_space("my file"), None);
/// ```
pub fn without_pasted_space(id: &str) -> Option<String> {
    // Every miss asks: a byte loop first (no ASCII blank or control, nothing beyond
    // ASCII, where the other white space is), the Unicode test only after it.
    if id.bytes().all(|b| b > b' ' && b < 0x80) {
        return None;
    }
    let end = id.find('?').unwrap_or(id.len());
    let (ark, query) = id.split_at(end);
    if !ark.contains(char::is_whitespace) {
        return None;
    }
    let kept: String = ark.chars().filter(|c| !c.is_whitespace()).collect();
    let label = kept.trim_start_matches('/').get(..4);
    label
        .is_some_and(|l| l.eq_ignore_ascii_case("ark:"))
        .then(|| kept + query)
}

/// Whether `id` (leading `/`s ignored) carries an ARK label, `ark:` in any case.
fn is_ark(id: &str) -> bool {
    let id = id.trim_start_matches('/');
    id.get(..4).is_some_and(|l| l.eq_ignore_ascii_case("ark:"))
}

/// An ARK request without the `/` and `.` that end its ARK (before an inflection `?`,
/// `??` or `?info`), or `None` when it has none there or is no ARK: the ARK draft
/// (draft-kunze-ark-43 §3.1) has a final `/` or `.` ignored. N2T read a final `/` as an
/// inflection (the rules file's `final-slash inflection` keeps that reading).
///
/// ```
/// use noid_core::normalize::without_final_structure;
/// assert_eq!(without_final_structure("ark:/12345/x/").as_deref(), Some("ark:/12345/x"));
/// assert_eq!(without_final_structure("ark:/12345/x./?info").as_deref(), Some("ark:/12345/x?info"));
/// assert_eq!(without_final_structure("ark:/12345/x"), None);
/// assert_eq!(without_final_structure("doi:10.5072/x/"), None);
/// ```
pub fn without_final_structure(id: &str) -> Option<String> {
    if !matches!(id.as_bytes().last(), Some(b'/' | b'.' | b'?' | b'o')) || !is_ark(id) {
        return None;
    }
    let inflection = ["?info", "??", "?"]
        .into_iter()
        .find(|q| id.ends_with(q))
        .unwrap_or("");
    let base = &id[..id.len() - inflection.len()];
    if base.contains('?') {
        return None;
    }
    let kept = base.trim_end_matches(['/', '.']);
    if kept.len() == base.len() || kept.ends_with(':') || kept.is_empty() {
        return None;
    }
    Some([kept, inflection].concat())
}

/// An ARK request with every `//` after its NAAN (before any `?`) collapsed to `/`, or
/// `None` when it has none or is no ARK (draft-kunze-ark-43 §3.2 step 8, a SHOULD).
/// Resolution reads it only once the request as given found nothing, so a suffix
/// passed through below a bound ancestor keeps its `//`, as EggNog passes it.
///
/// ```
/// use noid_core::normalize::with_slashes_collapsed;
/// assert_eq!(with_slashes_collapsed("ark:/12345/x//y///z?a//b").as_deref(), Some("ark:/12345/x/y/z?a//b"));
/// assert_eq!(with_slashes_collapsed("ark:/12345/x/y"), None);
/// ```
pub fn with_slashes_collapsed(id: &str) -> Option<String> {
    let end = id.find('?').unwrap_or(id.len());
    // A plain byte loop: on the short ids of a miss it costs less than a searcher's
    // set-up.
    let mut prev = 0;
    let doubled = id.as_bytes()[..end].iter().any(|&b| {
        let pair = b == b'/' && prev == b'/';
        prev = b;
        pair
    });
    if !doubled || !is_ark(id) {
        return None;
    }
    // Everything is read before the query: a `/` after a `?` ends no NAAN.
    let ark = &id[..end];
    let lead = ark.len() - ark.trim_start_matches('/').len();
    let labelled = &ark[lead + 4..];
    let after_label = labelled.len() - labelled.trim_start_matches('/').len();
    let naan_end = lead + 4 + after_label + labelled[after_label..].find('/')?;
    let (head, part) = ark.split_at(naan_end);
    let mut out = String::with_capacity(id.len());
    out.push_str(head);
    for (i, piece) in part.split('/').enumerate() {
        if i > 0 && !piece.is_empty() {
            out.push('/');
        }
        out.push_str(piece);
    }
    if part.ends_with('/') {
        out.push('/');
    }
    out.push_str(&id[end..]);
    (out != id).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_parts() {
        assert_eq!(identifier_part("/x-y"), "/xy");
        assert!(matches!(identifier_part("/fk4abc"), Cow::Borrowed(_)));
        assert_eq!(identifier_part("/a%7e%2fb"), "/a%7E%2Fb");
        assert_eq!(
            identifier_part("/a\u{2010}b\u{2011}c\u{2012}d\u{2013}e\u{2014}f\u{2015}g"),
            "/abcdefg"
        );
        // Other dashes are not hyphens: U+2016 (double vertical line), U+2212 (minus).
        assert_eq!(
            identifier_part("/a\u{2016}b\u{2212}c"),
            "/a\u{2016}b\u{2212}c"
        );
        assert!(matches!(identifier_part("/a\u{20ac}"), Cow::Borrowed(_)));
        assert_eq!(identifier_part("/%-a"), "/%-A");
    }

    /// Found by fuzzing (ark_normal): a `/` after the query once ended the NAAN, and
    /// the cut fell beyond the part before the `?` (a panic on `ark:///?//`).
    #[test]
    fn slashes_collapse_before_the_query_only() {
        assert_eq!(with_slashes_collapsed("ark:///?//"), None);
        assert_eq!(with_slashes_collapsed("ark:/1?a//b"), None);
        assert_eq!(
            with_slashes_collapsed("ark:/1/a//b?c//d").as_deref(),
            Some("ark:/1/a/b?c//d")
        );
    }

    #[test]
    fn pasted_white_space() {
        for pasted in [
            "ark:/12345/x9ab cd",
            "ark:/12345/x9ab\ncd",
            "ark:/12345/x9ab\r\ncd",
            "ark:/12345/x9ab\tcd",
            "ark:/12345/x9ab\u{a0}cd",
            " ark: /12345/ x9abcd ",
            "/ark:/12345/x9ab\u{2028}cd",
        ] {
            let want = if pasted.starts_with('/') {
                "/ark:/12345/x9abcd"
            } else {
                "ark:/12345/x9abcd"
            };
            assert_eq!(
                without_pasted_space(pasted).as_deref(),
                Some(want),
                "{pasted:?}"
            );
        }
        assert_eq!(without_pasted_space("doi:10.5072/a b"), None);
        assert_eq!(without_pasted_space("ark:/12345/x?a b"), None);
    }

    #[test]
    fn not_arks() {
        for id in [
            "doi:10.5072/x",
            "ar",
            "ark:",
            "ark:/",
            "13030/x",
            "arkx:/1/x",
        ] {
            assert_eq!(ark(id), None, "{id}");
        }
    }
}
