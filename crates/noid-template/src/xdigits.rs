//! The Noid "extended digit" alphabet and the numeric constants shared by every module.
//!
//! Noid identifiers are written with the 29 characters `0123456789bcdfghjkmnpqrstvwxz`:
//! the ten digits plus the consonants except `l` (too similar to `1`). Leaving out the
//! vowels keeps generated identifiers from spelling words by accident, and 29 being
//! prime is what lets the check character catch every single substitution and every
//! adjacent transposition.

use crate::repertoire::Repertoire;

/// The extended digits, in ordinal order (`xdig[i]` has ordinal `i`).
pub const XDIGITS: &str = "0123456789bcdfghjkmnpqrstvwxz";

/// The same alphabet as bytes, for indexing without bounds-checked `char` work.
pub const XDIGIT_BYTES: &[u8; 29] = b"0123456789bcdfghjkmnpqrstvwxz";

/// The radix of the alphabet (`R` in the Noid documentation).
pub const RADIX: u64 = 29;

/// The "no limit" marker Perl Noid uses for unbounded totals (`z` masks) and for
/// templates that cannot mint at all.
pub const NOLIMIT: i64 = -1;

/// Number of counters the random generator spreads the namespace over. It is prime so
/// that the counters' strides do not line up with the mask radices.
pub const MAXCOUNTERS: u64 = 293;

/// Smallest queue sequence number (queue keys carry `seqnum % 1000000`, six digits).
pub const SEQNUM_MIN: u64 = 1;

/// Largest queue sequence number before it wraps back to [`SEQNUM_MIN`].
pub const SEQNUM_MAX: u64 = 1_000_000;

/// Returns the ordinal (0..=28) of an extended digit, or `None` for any other byte
/// (uppercase letters, vowels, `l`, `/`, `+` and so on).
#[inline]
pub fn ordinal(b: u8) -> Option<u8> {
    // The `e` repertoire's own compile-time table (one load per byte).
    Repertoire::Betanumeric.ordinal(b)
}

/// Returns true if `b` is one of the 29 extended digits.
#[inline]
pub fn is_xdigit(b: u8) -> bool {
    ordinal(b).is_some()
}

/// Returns the extended digit with ordinal `i`.
///
/// # Panics
///
/// Panics if `i >= 29`; callers always reduce modulo [`RADIX`] first.
#[inline]
pub fn xdigit(i: usize) -> u8 {
    XDIGIT_BYTES[i]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabet_has_29_distinct_chars_without_vowels_or_l() {
        assert_eq!(XDIGITS.len(), 29);
        assert_eq!(RADIX, 29);
        for c in "aeiouyl".bytes() {
            assert!(!is_xdigit(c));
        }
        for (i, b) in XDIGIT_BYTES.iter().enumerate() {
            assert_eq!(ordinal(*b), Some(i as u8));
            assert_eq!(xdigit(i), *b);
        }
        let count = (0u8..=255).filter(|b| is_xdigit(*b)).count();
        assert_eq!(count, 29);
    }

    #[test]
    fn non_xdigits_have_no_ordinal() {
        for b in [b'/', b'+', b'B', b'a', b'l', b' ', 0x80, 0xFF] {
            assert_eq!(ordinal(b), None);
        }
        assert_eq!(ordinal(b'z'), Some(28));
        assert_eq!(ordinal(b'b'), Some(10));
    }
}
