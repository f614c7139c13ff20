//! The NCDA ("Noid Check Digit Algorithm") check character (spec §2.7).
//!
//! The check character is `xdig[Σ pos·ord(c) mod 29]` over every character before it,
//! positions counted from 1, with characters outside the extended-digit alphabet
//! weighing 0. Because 29 is prime and every position weight is below 29 for
//! identifiers shorter than 29 characters, it catches every single-character
//! substitution and every transposition of two adjacent extended digits.
//!
//! The sum runs over the whole identifier **including the NAAN, the `/` and the
//! prefix**, as Perl Noid computes it; work is done on bytes, as Perl does on
//! command-line strings.

use crate::xdigits::{ordinal, xdigit, RADIX};

/// Weighted sum modulo 29 of `body`, positions starting at 1.
#[inline]
fn weighted_sum(body: &[u8]) -> usize {
    let sum: u64 = body
        .iter()
        .enumerate()
        .map(|(i, b)| (i as u64 + 1) * u64::from(ordinal(*b).unwrap_or(0)))
        .sum();
    (sum % RADIX) as usize
}

/// Computes the check character for `body` (everything that precedes it, NAAN and
/// `/` included).
pub fn compute(body: &str) -> char {
    xdigit(weighted_sum(body.as_bytes())) as char
}

/// Perl's `checkchar`: treats the last character of `id` as the check character
/// position and returns the identifier with the correct check character there, or
/// `None` when the existing last character is wrong.
///
/// Quirks kept from Perl, since minting and validation rely on them:
/// * `""` and `"0"` are false in Perl and give `None`;
/// * a trailing `+` is always accepted and replaced, which is how minting fills in
///   the placeholder that `n2xdig` appends (and why `validate` accepts ids ending
///   in `+`);
/// * `checkchar("+")` is `Some("0")`.
pub fn checkchar(id: &str) -> Option<String> {
    if id.is_empty() || id == "0" {
        return None;
    }
    let bytes = id.as_bytes();
    let (last, body) = bytes.split_last()?;
    let cc = xdigit(weighted_sum(body));
    if *last == b'+' || *last == cc {
        // `last` is ASCII here, so `body` ends on a character boundary.
        let mut out = String::with_capacity(id.len());
        out.push_str(&id[..body.len()]);
        out.push(cc as char);
        Some(out)
    } else {
        None
    }
}

/// In-place version of [`checkchar`] for the minting hot path: replaces the last
/// character of `id` by the check character and returns true, or leaves `id`
/// untouched and returns false when [`checkchar`] would return `None`.
pub fn apply_in_place(id: &mut String) -> bool {
    if id.is_empty() || id == "0" {
        return false;
    }
    let bytes = id.as_bytes();
    let (last, body) = bytes.split_last().expect("non-empty");
    let cc = xdigit(weighted_sum(body));
    if *last == b'+' || *last == cc {
        id.pop();
        id.push(cc as char);
        true
    } else {
        false
    }
}

/// Strict check: true when `id` is non-empty and its last character is exactly the
/// check character of the rest. Unlike [`checkchar`], a trailing `+` does not pass.
pub fn verify(id: &str) -> bool {
    match id.as_bytes().split_last() {
        Some((last, body)) => *last == xdigit(weighted_sum(body)),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        assert_eq!(
            checkchar("13030/xf93gt2+").as_deref(),
            Some("13030/xf93gt2q")
        );
        assert_eq!(weighted_sum(b"13030/xf93gt2"), 891 % 29);
        assert_eq!(compute("13030/xf93gt2"), 'q');
        assert_eq!(
            checkchar("13030/f54x54g1+").as_deref(),
            Some("13030/f54x54g11")
        );
        assert_eq!(compute("13030/f54x54g1"), '1');
        assert_eq!(checkchar("fk491+").as_deref(), Some("fk491f"));
        assert_eq!(compute("fk491"), 'f');
        assert_eq!(checkchar("fk491g"), None);
        assert_eq!(checkchar("+").as_deref(), Some("0"));
        assert_eq!(checkchar("a+").as_deref(), Some("a0"));
    }

    #[test]
    fn conformance_check_character_vectors() {
        assert_eq!(
            checkchar("13030/xf93gt2q").as_deref(),
            Some("13030/xf93gt2q")
        );
        assert_eq!(
            checkchar("13030/f54x54g11").as_deref(),
            Some("13030/f54x54g11")
        );
        assert!(verify("13030/xf93gt2q"));
        assert!(verify("13030/f54x54g11"));
        assert!(verify("fk491f"));
        assert!(!verify("fk492f"));
        assert!(!verify("fk419f"));
        assert_eq!(checkchar("fk492f"), None);
        assert_eq!(checkchar("fk419f"), None);
        // The NAAN and "/" take part in the sum.
        assert_ne!(compute("f54x54g1"), compute("13030/f54x54g1"));
    }

    #[test]
    fn perl_falsy_ids() {
        assert_eq!(checkchar(""), None);
        assert_eq!(checkchar("0"), None);
        assert!(!verify(""));
        // "00": body "0" sums to 0, check char "0" matches.
        assert_eq!(checkchar("00").as_deref(), Some("00"));
    }

    #[test]
    fn non_xdigits_weigh_zero_but_take_a_position() {
        // "/" and uppercase weigh 0 but still shift later positions.
        assert_eq!(compute("/1"), xdigit(2) as char);
        assert_eq!(compute("A1"), xdigit(2) as char);
        assert_eq!(compute("1"), xdigit(1) as char);
        // A multibyte last character can be neither "+" nor an xdigit.
        assert_eq!(checkchar("ab\u{e9}"), None);
    }

    #[test]
    fn in_place_matches_checkchar() {
        for id in [
            "13030/f54x54g1+",
            "fk491+",
            "fk491g",
            "+",
            "0",
            "",
            "fk491f",
            "x\u{e9}",
        ] {
            let mut s = id.to_string();
            let ok = apply_in_place(&mut s);
            match checkchar(id) {
                Some(expected) => {
                    assert!(ok);
                    assert_eq!(s, expected);
                }
                None => {
                    assert!(!ok);
                    assert_eq!(s, id);
                }
            }
        }
    }
}
