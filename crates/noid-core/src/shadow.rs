//! EZID's shadow ARKs, both directions in one place: a DOI `doi:10.P/X` is shadowed by
//! the ARK `ark:/CODE/x`, where CODE is the DOI prefix in EZID's letter code (four
//! digits `5072` → `b5072`; five digits `12345` → `c2345`, the letter counting the
//! leading digit up from `b`) and `x` the suffix lower-cased without hyphens.
//!
//! The egg language's `shadow` writes a DOI's shadow ([`ark_of_doi`]); resolution reads
//! a shadow ARK as its DOI ([`doi_of_ark`]). On DOIs whose prefix has four digits, or
//! five not starting with 0, and whose suffix is upper-case without hyphens, the two
//! are inverse (a property test below). Shorter prefixes are zero-padded
//! (`10.123` → `b0123`, as EggNog's tests pin), so their shadow reads back as `10.0123`.

use crate::normalize::is_hyphen;

/// The shadow ARK of a DOI's scheme-local part `10.P/REST` (`10.5072/FK2-X` →
/// `ark:/b5072/fk2x`), or `None` when P is not one to five digits.
pub fn ark_of_doi(local: &str) -> Option<String> {
    let (prefix, rest) = local.split_once('/').unwrap_or((local, ""));
    let digits = prefix.strip_prefix("10.")?;
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let code = if digits.len() == 5 {
        let lead = digits.as_bytes()[0] - b'0';
        format!("{}{}", char::from(b'b' + lead), &digits[1..])
    } else {
        format!("b{digits:0>4}")
    };
    let rest: String = rest
        .chars()
        .filter(|&c| !is_hyphen(c))
        .collect::<String>()
        .to_lowercase();
    Some(if rest.is_empty() {
        format!("ark:/{code}")
    } else {
        format!("ark:/{code}/{rest}")
    })
}

/// Whether `naan` is a shadow ARK's: a letter `b` to `k` and four digits. Inlined: every
/// ARK that misses asks (its other spellings), and almost none is one.
#[inline]
pub fn is_shadow_naan(naan: &str) -> bool {
    let naan = naan.as_bytes();
    naan.len() == 5 && (b'b'..=b'k').contains(&naan[0]) && naan[1..].iter().all(u8::is_ascii_digit)
}

/// The DOI a shadow ARK stands for, from its NAAN (`b5072`, `c2345`) and what follows
/// the NAAN (`/fk2x`): `doi:10.5072/FK2X`. `None` when the NAAN is not a letter `b` to
/// `k` and four digits.
pub fn doi_of_ark(naan: &str, rest: &str) -> Option<String> {
    if !is_shadow_naan(naan) {
        return None;
    }
    let naan = naan.as_bytes();
    let digits = std::str::from_utf8(&naan[1..]).ok()?;
    let lead = naan[0] - b'b';
    let prefix = if lead == 0 {
        digits.to_string()
    } else {
        format!("{lead}{digits}")
    };
    Some(format!("doi:10.{prefix}{}", rest.to_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn examples() {
        assert_eq!(
            ark_of_doi("10.5072/FK2-X").as_deref(),
            Some("ark:/b5072/fk2x")
        );
        assert_eq!(ark_of_doi("10.12345/X").as_deref(), Some("ark:/c2345/x"));
        assert_eq!(
            ark_of_doi("10.123/A\u{2010}B").as_deref(),
            Some("ark:/b0123/ab")
        );
        assert_eq!(ark_of_doi("10.5072").as_deref(), Some("ark:/b5072"));
        assert_eq!(ark_of_doi("10.123456/x"), None);
        assert_eq!(ark_of_doi("11.5072/x"), None);
        assert_eq!(
            doi_of_ark("b5072", "/fk2x").as_deref(),
            Some("doi:10.5072/FK2X")
        );
        assert_eq!(doi_of_ark("c2345", "").as_deref(), Some("doi:10.12345"));
        assert_eq!(doi_of_ark("k9999", "/a").as_deref(), Some("doi:10.99999/A"));
        for naan in ["l1234", "a1234", "b123", "b12x4", "12345"] {
            assert_eq!(doi_of_ark(naan, "/x"), None, "{naan}");
        }
    }

    /// A DOI prefix that has a shadow which reads back: four digits, or five not
    /// starting with 0.
    fn prefix() -> impl Strategy<Value = String> {
        prop_oneof!["[0-9]{4}", "[1-9][0-9]{4}"]
    }

    proptest! {
        #[test]
        fn doi_to_shadow_and_back(p in prefix(), suffix in "(/[A-Z0-9._;()]{1,12}){0,3}") {
            let doi = format!("10.{p}{suffix}");
            let ark = ark_of_doi(&doi).expect("a shadow");
            let local = ark.strip_prefix("ark:/").unwrap();
            let (naan, rest) = local.split_at(5);
            prop_assert_eq!(doi_of_ark(naan, rest), Some(format!("doi:{doi}")));
        }

        #[test]
        fn shadow_to_doi_and_back(p in prefix(), suffix in "(/[a-z0-9._;()]{1,12}){0,3}") {
            let doi = format!("10.{p}/x").to_uppercase();
            let naan = &ark_of_doi(&doi).unwrap()["ark:/".len().."ark:/".len() + 5];
            let back = doi_of_ark(naan, &suffix).expect("a DOI");
            prop_assert_eq!(
                ark_of_doi(back.strip_prefix("doi:").unwrap()),
                Some(format!("ark:/{naan}{suffix}"))
            );
        }
    }
}
