//! The one spelling a binder stores an identifier under, whatever spelling it arrived in:
//! the spelling half of the identifier gate every write path passes (noid-minter's
//! `gate` adds the check character and the populator's shoulders).
//!
//! Curators paste identifiers in every spelling: `ark:13030/x` (the current ARK
//! specification's form), `ark:/13030/x` (EggNog's and N2T's), `ARK:/13030/x`, and the
//! resolver URL `https://n2t.net/ark:/13030/x`. These name one identifier, so they must
//! reach one record. A binder has one [`Canon`]:
//!
//! * [`Canon::Bare`]: a minter's directory stores what its template mints, `13030/x`
//!   (Perl Noid's form, which `noid mint` prints): an ARK of the minter's NAAN loses its
//!   label; an ARK of another NAAN keeps `ark:/`.
//! * [`Canon::Ark`]: a binder without a template (a populator's binder under `noid
//!   serve`) stores ARKs as `ark:/NAAN/…`, the form N2T's API binds and the form whose
//!   suffixes and ancestors the resolver passes through for every spelling
//!   (docs/RESOLUTION.md). A bare `NAAN/…` whose NAAN is one of the binder's own (its
//!   populator's minters') is that ARK too, since those minters print it bare.
//!
//! The label (`ark:`, `ark:/`, any case) and a resolver's address before it (the ARK
//! specification's NMA, `http(s)://host/`) are not part of the identifier; the NAAN is
//! lower-cased (the specification's step 5). After the NAAN an ARK is written in the
//! ARK draft's normal form ([`crate::normalize::identifier_part`]: hyphens removed,
//! `%XX` upper-cased; draft-kunze-ark-43 §3.1, §3.2), so that every spelling the draft
//! calls one ARK reaches one record and meets what the resolver asks for. The one
//! exception is a minter's own ARKs when it mints hyphens (a LUI minter binds its
//! dashed spelling, and its resolver step reads every other spelling of a LUI):
//! [`Canon::Bare`]'s `as_minted`. An identifier that cannot be a key (one holding a
//! control character such as the tab that separates identifier and element in a key)
//! or that a paste spoiled (white space at either end) is refused.

use std::borrow::Cow;
use std::fmt;

/// How a binder spells the identifiers it stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Canon {
    /// A minter's directory: its own ARKs bare, `NAAN/…` (the NAAN given, lower case;
    /// empty for a minter without one, whose ARKs all keep `ark:/`).
    Bare {
        /// The minter's NAAN.
        naan: String,
        /// Its own ARKs (`NAAN/…`) are kept as minted after the NAAN, hyphens and all:
        /// a minter whose identifiers hold hyphens (a LUI minter, a prefix with a `-`).
        as_minted: bool,
    },
    /// A binder without a template: ARKs as `ark:/NAAN/…`; a bare `NAAN/…` of one of
    /// these NAANs (lower case) is read as that ARK.
    Ark {
        /// The NAANs whose bare form is an ARK here.
        naans: Vec<String>,
    },
}

/// Why an identifier cannot be stored in any spelling. (The empty identifier can:
/// EggNog's `set a b` names it; Perl Noid's `bind` refuses it itself.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unspellable {
    /// A control character (tab, newline, NUL …) at this byte offset: a key cannot hold it.
    Control(usize),
    /// White space at the start or the end, which a paste adds and nobody means.
    Space,
    /// `ark:` with no NAAN after it.
    NoNaan,
}

impl fmt::Display for Unspellable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unspellable::Control(at) => write!(
                f,
                "an identifier must not hold a control character (tab, line break …; one at byte {at})"
            ),
            Unspellable::Space => {
                f.write_str("an identifier must not begin or end with white space")
            }
            Unspellable::NoNaan => f.write_str("an ARK needs a NAAN after \"ark:\" (ark:/NAAN/…)"),
        }
    }
}

impl std::error::Error for Unspellable {}

/// The spelling `raw` is stored under in a binder of canon `canon`.
///
/// ```
/// use noid_core::spelling::{canonical, Canon};
/// let bare = Canon::Bare { naan: "13030".into(), as_minted: false };
/// let ark = Canon::Ark { naans: vec!["13030".into()] };
/// for raw in ["13030/f54x54g11", "ark:13030/f54x54g11", "ARK:/13030/f54-x54-g11",
///             "https://n2t.net/ark:/13030/f54x54g11"] {
///     assert_eq!(canonical(raw, &bare).unwrap(), "13030/f54x54g11");
///     assert_eq!(canonical(raw, &ark).unwrap(), "ark:/13030/f54x54g11");
/// }
/// ```
pub fn canonical<'a>(raw: &'a str, canon: &Canon) -> Result<Cow<'a, str>, Unspellable> {
    let spelled = labelled_canonical(raw, canon)?;
    // After the NAAN, the draft's normal form (hyphens removed, `%XX` upper case).
    let Some(at) = ark_part_start(&spelled, canon) else {
        return Ok(spelled);
    };
    match crate::normalize::identifier_part(&spelled[at..]) {
        Cow::Borrowed(_) => Ok(spelled),
        Cow::Owned(part) => Ok(Cow::Owned([&spelled[..at], &part].concat())),
    }
}

/// Where the identifier part of `spelled` (already in its stored spelling) begins, the
/// `/` after its NAAN, when `spelled` is an ARK this binder writes in the draft's normal
/// form: `ark:/NAAN/…`, or a minter's own bare `NAAN/…` unless it keeps them as minted.
fn ark_part_start(spelled: &str, canon: &Canon) -> Option<usize> {
    if let Some(rest) = spelled.strip_prefix("ark:/") {
        return rest.find('/').map(|i| i + 5);
    }
    match canon {
        Canon::Bare {
            naan,
            as_minted: false,
        } if !naan.is_empty()
            && spelled.len() > naan.len()
            && spelled.as_bytes()[naan.len()] == b'/'
            && spelled[..naan.len()].eq_ignore_ascii_case(naan) =>
        {
            Some(naan.len())
        }
        _ => None,
    }
}

/// [`canonical`]'s label and NAAN: the stored spelling up to the identifier part.
fn labelled_canonical<'a>(raw: &'a str, canon: &Canon) -> Result<Cow<'a, str>, Unspellable> {
    if let Some(at) = raw.find(|c: char| c.is_control()) {
        return Err(Unspellable::Control(at));
    }
    if raw.trim() != raw {
        return Err(Unspellable::Space);
    }
    let unlocated = without_nma(raw);
    let Some((naan, rest)) = ark_parts(unlocated)? else {
        // Not labelled an ARK: bare `NAAN/…` of one of an Ark binder's NAANs, or as given.
        if let Canon::Ark { naans } = canon {
            if let Some((first, rest)) = unlocated.split_once('/') {
                if naans.iter().any(|n| n.eq_ignore_ascii_case(first)) {
                    return Ok(format!("ark:/{}/{rest}", first.to_ascii_lowercase()).into());
                }
            }
        }
        return Ok(Cow::Borrowed(raw));
    };
    let own = match canon {
        Canon::Bare { naan: own, .. } => !own.is_empty() && own.eq_ignore_ascii_case(naan),
        Canon::Ark { .. } => false,
    };
    // Already in its stored spelling (the common case of a bulk load): no new string.
    let labelled = rest.map_or(naan.len() + 5, |r| naan.len() + r.len() + 6);
    if !own
        && raw.len() == labelled
        && raw.starts_with("ark:/")
        && !naan.bytes().any(|b| b.is_ascii_uppercase())
    {
        return Ok(Cow::Borrowed(raw));
    }
    let naan = naan.to_ascii_lowercase();
    Ok(Cow::Owned(match rest {
        Some(rest) if own => format!("{naan}/{rest}"),
        Some(rest) => format!("ark:/{naan}/{rest}"),
        None => format!("ark:/{naan}"),
    }))
}

/// Whether `raw` carries an ARK label (`ark:` in any case, alone or after a resolver's
/// address `http(s)://host/`): without a binder's NAANs these are the only spellings
/// [`canonical`] can change, so a pass over every stored identifier (`noid check`)
/// respells only these, without building a string for the others.
///
/// ```
/// use noid_core::spelling::is_labelled;
/// assert!(is_labelled("ARK:13030/x"));
/// assert!(is_labelled("https://n2t.net/ark:/13030/x"));
/// assert!(!is_labelled("13030/x"));
/// assert!(!is_labelled("https://example.org/page"));
/// ```
pub fn is_labelled(raw: &str) -> bool {
    matches!(ark_parts(without_nma(raw)), Ok(Some(_)))
}

/// Whether `s` has the shape of a NAAN: five characters, digits or the lower-case
/// betanumeric letters (`13030`, `b5072`), as NAANs are assigned.
pub fn is_naan_shaped(s: &str) -> bool {
    s.len() == 5
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b"bcdfghjkmnpqrstvwxz".contains(&b.to_ascii_lowercase()))
}

/// `raw` without a resolver's address before an ARK label (`https://n2t.net/ark:/…`
/// is `ark:/…`); any other URL is an identifier of its own and kept whole.
fn without_nma(raw: &str) -> &str {
    let after_scheme = if starts_with_label(raw, "https://") {
        &raw[8..]
    } else if starts_with_label(raw, "http://") {
        &raw[7..]
    } else {
        return raw;
    };
    match after_scheme.find('/') {
        Some(slash) if starts_with_label(&after_scheme[slash + 1..], "ark:") => {
            &after_scheme[slash + 1..]
        }
        _ => raw,
    }
}

/// Whether `s` starts with the ASCII `label` in any case. Compared as bytes: a letter
/// beyond ASCII may straddle the label's end (`arké/x`), where a `str` cannot be cut.
fn starts_with_label(s: &str, label: &str) -> bool {
    s.as_bytes()
        .get(..label.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(label.as_bytes()))
}

/// An ARK's NAAN and the part after it (`None` for a NAAN alone), or `None` when `s`
/// has no `ark:` label.
fn ark_parts(s: &str) -> Result<Option<(&str, Option<&str>)>, Unspellable> {
    if !starts_with_label(s, "ark:") {
        return Ok(None);
    }
    let after = s[4..].trim_start_matches('/');
    let (naan, rest) = match after.split_once('/') {
        Some((n, r)) => (n, Some(r)),
        None => (after, None),
    };
    if naan.is_empty() {
        return Err(Unspellable::NoNaan);
    }
    Ok(Some((naan, rest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare() -> Canon {
        Canon::Bare {
            naan: "13030".into(),
            as_minted: false,
        }
    }

    fn ark() -> Canon {
        Canon::Ark {
            naans: vec!["13030".into()],
        }
    }

    /// (given, stored in a 13030 minter's directory, stored in a binder of 13030's).
    const CASES: &[(&str, &str, &str)] = &[
        ("13030/f54x54g11", "13030/f54x54g11", "ark:/13030/f54x54g11"),
        (
            "ark:/13030/f54x54g11",
            "13030/f54x54g11",
            "ark:/13030/f54x54g11",
        ),
        (
            "ark:13030/f54x54g11",
            "13030/f54x54g11",
            "ark:/13030/f54x54g11",
        ),
        (
            "ARK:/13030/f54x54g11",
            "13030/f54x54g11",
            "ark:/13030/f54x54g11",
        ),
        ("Ark:13030/F54X", "13030/F54X", "ark:/13030/F54X"),
        ("ark://13030/x", "13030/x", "ark:/13030/x"),
        (
            "https://n2t.net/ark:/13030/f54x54g11",
            "13030/f54x54g11",
            "ark:/13030/f54x54g11",
        ),
        (
            "http://example.org/ARK:13030/x/y.pdf",
            "13030/x/y.pdf",
            "ark:/13030/x/y.pdf",
        ),
        ("ark:/B5072/fk2x", "ark:/b5072/fk2x", "ark:/b5072/fk2x"),
        ("b5072/fk2x", "b5072/fk2x", "b5072/fk2x"),
        ("ark:/99999/x-y", "ark:/99999/xy", "ark:/99999/xy"),
        ("ark:/99999/x‐y%7e", "ark:/99999/xy%7E", "ark:/99999/xy%7E"),
        ("ark:13030/x9-ab-cd", "13030/x9abcd", "ark:/13030/x9abcd"),
        (
            "13030/x9-ab-cd/p-1",
            "13030/x9abcd/p1",
            "ark:/13030/x9abcd/p1",
        ),
        ("13030/x%2fy", "13030/x%2Fy", "ark:/13030/x%2Fy"),
        (
            "ark:/12345-dev/x-y",
            "ark:/12345-dev/xy",
            "ark:/12345-dev/xy",
        ),
        ("99999/x-y", "99999/x-y", "99999/x-y"),
        ("doi:10.5072/a-b", "doi:10.5072/a-b", "doi:10.5072/a-b"),
        ("ark:/13030", "ark:/13030", "ark:/13030"),
        (
            "https://example.org/page",
            "https://example.org/page",
            "https://example.org/page",
        ),
        ("doi:10.5072/FK2", "doi:10.5072/FK2", "doi:10.5072/FK2"),
        ("foo", "foo", "foo"),
        ("00", "00", "00"),
        (":idmap/x", ":idmap/x", ":idmap/x"),
    ];

    #[test]
    fn every_spelling_reaches_one_form() {
        for (given, in_minter, in_binder) in CASES {
            assert_eq!(
                canonical(given, &bare()).unwrap(),
                *in_minter,
                "{given} in a minter"
            );
            assert_eq!(
                canonical(given, &ark()).unwrap(),
                *in_binder,
                "{given} in a binder"
            );
        }
    }

    /// A minter that mints hyphens (a LUI minter) keeps its own ARKs as minted, and
    /// writes every other ARK in the draft's normal form.
    #[test]
    fn a_minter_minting_hyphens_keeps_its_own_arks_as_minted() {
        let lui = Canon::Bare {
            naan: "13030".into(),
            as_minted: true,
        };
        for (given, stored) in [
            ("13030/f5tw0t-ywdj-94", "13030/f5tw0t-ywdj-94"),
            ("ark:/13030/f5tw0t-ywdj-94", "13030/f5tw0t-ywdj-94"),
            ("ark:/99999/x-y", "ark:/99999/xy"),
        ] {
            assert_eq!(canonical(given, &lui).unwrap(), stored, "{given}");
        }
    }

    #[test]
    fn a_minter_without_a_naan_keeps_every_ark_labelled() {
        let c = Canon::Bare {
            naan: String::new(),
            as_minted: false,
        };
        assert_eq!(canonical("ARK:13030/x", &c).unwrap(), "ark:/13030/x");
        assert_eq!(canonical("13030/x", &c).unwrap(), "13030/x");
    }

    #[test]
    fn letters_beyond_ascii_where_a_label_or_scheme_would_end_are_kept() {
        // `é` and `€` straddle byte 4 (after `ark:`), 7 (`http://`) and 8 (`https://`).
        for raw in [
            "arké/x",
            "abcdefé/x",
            "abcdefgé/x",
            "abc€",
            "http://é/ark:/13030/x",
        ] {
            let expected = if raw.starts_with("http") {
                "13030/x"
            } else {
                raw
            };
            assert_eq!(canonical(raw, &bare()).unwrap(), expected, "{raw}");
            assert_eq!(is_labelled(raw), raw.starts_with("http"), "{raw}");
        }
    }

    /// A spelling already stored as given is not copied (a bulk load's common case).
    #[test]
    fn a_stored_spelling_is_borrowed() {
        for (given, canon) in [
            ("ark:/13030/x", ark()),
            ("ark:/99999/x", bare()),
            ("ark:/13030", ark()),
            ("13030/x", bare()),
            ("foo", ark()),
        ] {
            assert!(
                matches!(canonical(given, &canon).unwrap(), Cow::Borrowed(_)),
                "{given}"
            );
        }
        for (given, canon) in [
            ("ark:/13030/x", bare()),
            ("ark://13030/x", ark()),
            ("ark:/B5072/x", ark()),
            ("ark:13030/x", ark()),
        ] {
            assert!(
                matches!(canonical(given, &canon).unwrap(), Cow::Owned(_)),
                "{given}"
            );
        }
    }

    #[test]
    fn naan_shapes() {
        for n in ["13030", "99999", "b5072", "B5072"] {
            assert!(is_naan_shaped(n), "{n}");
        }
        for n in ["1303", "130301", "10.50", "a5072", "fk4"] {
            assert!(!is_naan_shaped(n), "{n}");
        }
    }

    #[test]
    fn what_cannot_be_a_key_is_refused() {
        assert_eq!(canonical("", &bare()).unwrap(), "");
        assert_eq!(canonical("  ", &ark()), Err(Unspellable::Space));
        assert_eq!(
            canonical("13030/x\ty", &bare()),
            Err(Unspellable::Control(7))
        );
        assert_eq!(canonical("x\n", &bare()), Err(Unspellable::Control(1)));
        assert_eq!(canonical("ark:/", &bare()), Err(Unspellable::NoNaan));
        assert_eq!(canonical(" 13030/x", &bare()), Err(Unspellable::Space));
        assert_eq!(
            Unspellable::Control(7).to_string(),
            "an identifier must not hold a control character (tab, line break …; one at byte 7)"
        );
    }
}
