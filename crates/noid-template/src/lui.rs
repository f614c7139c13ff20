//! Crockford base32 local unique identifiers ("LUIs"), spelled exactly as the Python
//! package `base32-lib` 1.1.1 spells them (spec-minting-extended §2): most significant
//! digit first over `0123456789abcdefghjkmnpqrstvwxyz`, an optional ISO 7064 MOD 97-10
//! checksum as two decimal digits, zero padding to a minimum length and a dash every
//! so many characters for readability.
//!
//! Readers may type a LUI in upper case, with dashes missing or moved, `I`/`L` for `1`
//! and `O` for `0`: [`normalize`] maps every such spelling to one canonical string,
//! which is how a LUI minter validates and resolves them.

use std::fmt;

use crate::permutation::Permutation;

/// The 32 digits, in value order (no `i`, `l`, `o` or `u`).
pub const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// Bits per base32 digit.
pub const BITS_PER_DIGIT: u32 = 5;

/// Digits of a 64-bit number at most (13 × 5 bits ≥ 64).
pub const MAX_DIGITS: usize = 13;

/// Marker for "not a base32 digit" in [`VALUES`].
const INVALID: u8 = 0xFF;

/// Byte → digit value, with the reader-friendly aliases: upper case, `I`/`i`/`L`/`l`
/// for 1 and `O`/`o` for 0. A dash is not in the table; callers drop dashes first.
static VALUES: [u8; 256] = {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 32 {
        let c = ALPHABET[i];
        t[c as usize] = i as u8;
        t[c.to_ascii_uppercase() as usize] = i as u8;
        i += 1;
    }
    t[b'i' as usize] = 1;
    t[b'I' as usize] = 1;
    t[b'l' as usize] = 1;
    t[b'L' as usize] = 1;
    t[b'o' as usize] = 0;
    t[b'O' as usize] = 0;
    t
};

/// Why a string is not a LUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LuiError {
    /// A character that is neither a base32 digit, one of its aliases, nor a dash.
    BadCharacter {
        /// The offending character.
        c: char,
    },
    /// The checksum is not two digits equal to the checksum of the rest.
    BadChecksum,
    /// The value does not fit in 64 bits.
    TooLarge,
    /// Not as many characters as the minter's LUIs have.
    BadLength {
        /// Characters found (dashes not counted).
        length: usize,
        /// Characters expected.
        expected: usize,
    },
}

impl fmt::Display for LuiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LuiError::BadCharacter { c } => write!(
                f,
                "'{}' is not a Crockford base32 character (0-9, a-z but u, and dashes)",
                c.escape_default()
            ),
            LuiError::BadChecksum => f.write_str("invalid checksum"),
            LuiError::TooLarge => f.write_str("the number does not fit in 64 bits"),
            LuiError::BadLength { length, expected } => write!(
                f,
                "{length} characters where {expected} are expected (dashes not counted)"
            ),
        }
    }
}

impl std::error::Error for LuiError {}

/// How [`encode`] spells a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spelling {
    /// Insert `-` after every this many characters (0: none), counted from the left
    /// after padding, checksum included.
    pub split_every: usize,
    /// Pad with leading `0` to at least this many characters, checksum included.
    pub min_length: usize,
    /// Append the two-digit checksum.
    pub checksum: bool,
}

/// The shape of a LUI minter's identifiers, from its template `luiN[-W]`: `N`
/// characters, the last two the checksum, zero-padded, with a dash every `W`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LuiShape {
    /// Characters including the two checksum digits (3 to 14).
    pub length: usize,
    /// A dash after every this many characters (0: none).
    pub split: usize,
}

impl LuiShape {
    /// The shortest LUI: one base32 digit and the checksum.
    pub const MIN_LENGTH: usize = 3;
    /// The longest: 12 digits (60 bits, what a 64-bit number holds in whole digits)
    /// and the checksum.
    pub const MAX_LENGTH: usize = 14;

    /// Parses `N` or `N-W` (what follows `lui` in a template).
    pub fn parse(s: &str) -> Option<LuiShape> {
        let number = |t: &str| -> Option<usize> {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            t.parse().ok()
        };
        let (length, split) = match s.split_once('-') {
            Some((n, w)) => (number(n)?, number(w).filter(|w| *w > 0)?),
            None => (number(s)?, 0),
        };
        (Self::MIN_LENGTH..=Self::MAX_LENGTH)
            .contains(&length)
            .then_some(LuiShape { length, split })
    }

    /// The mask part of the template, `luiN` or `luiN-W`.
    pub fn mask(&self) -> String {
        match self.split {
            0 => format!("lui{}", self.length),
            w => format!("lui{}-{w}", self.length),
        }
    }

    /// Base32 digits before the checksum.
    pub fn digits(&self) -> usize {
        self.length - 2
    }

    /// Bits of the numbers: 5 per digit.
    pub fn bits(&self) -> u32 {
        self.digits() as u32 * BITS_PER_DIGIT
    }

    /// How many identifiers the shape holds, `32^digits`.
    pub fn total(&self) -> u64 {
        1 << self.bits()
    }

    /// How [`encode`] spells this shape's identifiers.
    pub fn spelling(&self) -> Spelling {
        Spelling {
            split_every: self.split,
            min_length: self.length,
            checksum: true,
        }
    }

    /// The shape `n` digits longer, or `None` beyond [`LuiShape::MAX_LENGTH`].
    pub fn grown(&self, n: usize) -> Option<LuiShape> {
        let length = self.length + n.max(1);
        (length <= Self::MAX_LENGTH).then_some(LuiShape {
            length,
            split: self.split,
        })
    }

    /// The canonical spelling of a LUI of this shape typed in any spelling, or why it
    /// is none: it must normalise to exactly [`LuiShape::length`] characters whose
    /// checksum holds. What a LUI minter validates against.
    pub fn canonical(&self, s: &str) -> Result<String, LuiError> {
        let plain = normalize(s)?;
        if plain.len() != self.length {
            return Err(LuiError::BadLength {
                length: plain.len(),
                expected: self.length,
            });
        }
        decode(&plain, true)?;
        Ok(split(&plain, self.split))
    }
}

/// The generator of a LUI minter: counter `i` gives the LUI of `permute(i)`, so the
/// identifiers look random, never repeat, and run out only when all are issued.
#[derive(Debug, Clone)]
pub struct LuiGenerator {
    shape: LuiShape,
    permutation: Permutation,
}

impl LuiGenerator {
    /// The generator of `shape` under the minter's secret `key`.
    pub fn new(shape: LuiShape, key: [u8; 16]) -> LuiGenerator {
        LuiGenerator {
            shape,
            permutation: Permutation::new(key, shape.bits()),
        }
    }

    /// The generator of a grown `shape` under the same key.
    pub fn grown(&self, shape: LuiShape) -> LuiGenerator {
        LuiGenerator {
            shape,
            permutation: self.permutation.with_bits(shape.bits()),
        }
    }

    /// The shape of the identifiers.
    pub fn shape(&self) -> LuiShape {
        self.shape
    }

    /// Appends the LUI for `counter` (below [`LuiShape::total`]) to `out`.
    pub fn write(&self, counter: u64, out: &mut String) {
        out.push_str(&encode(
            self.permutation.permute(counter),
            self.shape.spelling(),
        ));
    }
}

/// The ISO 7064 MOD 97-10 checksum `97 - (100·n mod 97) + 1`, always in `1..=98`.
pub fn checksum(n: u64) -> u8 {
    (97 - (u128::from(n) * 100 % 97) as u8) + 1
}

/// `base32_lib.encode(n, split_every, min_length, checksum)`.
pub fn encode(n: u64, s: Spelling) -> String {
    let mut digits = [0u8; MAX_DIGITS + 2];
    let mut len = 0;
    if s.checksum {
        let c = checksum(n);
        digits[len] = b'0' + c % 10;
        digits[len + 1] = b'0' + c / 10;
        len += 2;
    }
    let mut v = n;
    loop {
        digits[len] = ALPHABET[(v & 31) as usize];
        len += 1;
        v >>= BITS_PER_DIGIT;
        if v == 0 {
            break;
        }
    }
    let width = len.max(s.min_length);
    let mut out = String::with_capacity(width + width / s.split_every.max(1));
    for i in 0..width {
        if s.split_every > 0 && i > 0 && i % s.split_every == 0 {
            out.push('-');
        }
        // Digits were collected least significant first; pad on the left.
        let from_right = width - 1 - i;
        out.push(if from_right < len {
            char::from(digits[from_right])
        } else {
            '0'
        });
    }
    out
}

/// The digit values `s` spells, most significant first: dashes skipped, aliases
/// accepted, any other character an error. The one reading rule of [`decode`] and
/// [`normalize`].
fn digit_values(s: &str) -> impl Iterator<Item = Result<u8, LuiError>> + '_ {
    s.chars().filter(|&c| c != '-').map(|c| {
        let v = if c.is_ascii() {
            VALUES[c as usize]
        } else {
            INVALID
        };
        if v == INVALID {
            Err(LuiError::BadCharacter { c })
        } else {
            Ok(v)
        }
    })
}

/// The value of base32 digits, dashes skipped, aliases accepted.
fn value_of(s: &str) -> Result<u64, LuiError> {
    let mut n: u64 = 0;
    for v in digit_values(s) {
        let v = v?;
        if n >> (64 - BITS_PER_DIGIT) != 0 {
            return Err(LuiError::TooLarge);
        }
        n = (n << BITS_PER_DIGIT) | u64::from(v);
    }
    Ok(n)
}

/// `base32_lib.decode(s, checksum)`: the number `s` spells.
///
/// As in base32-lib, the checksum is the last two characters of `s` as given (so a
/// dash may not stand among them) and must be two ASCII digits; the rest may have
/// dashes anywhere and any of the aliases. The empty string is 0.
pub fn decode(s: &str, with_checksum: bool) -> Result<u64, LuiError> {
    if !with_checksum {
        return value_of(s);
    }
    let split = s
        .char_indices()
        .rev()
        .nth(1)
        .map(|(i, _)| i)
        .ok_or(LuiError::BadChecksum)?;
    let (rest, sum) = s.split_at(split);
    let sum = sum.as_bytes();
    if sum.len() != 2 || !sum.iter().all(u8::is_ascii_digit) {
        return Err(LuiError::BadChecksum);
    }
    let n = value_of(rest)?;
    if (sum[0] - b'0') * 10 + (sum[1] - b'0') != checksum(n) {
        return Err(LuiError::BadChecksum);
    }
    Ok(n)
}

/// The canonical spelling of `s`: dashes dropped, aliases replaced by the digits they
/// stand for, lower case. Any other character is an error. Two spellings denote the
/// same LUI exactly when their canonical spellings are equal.
pub fn normalize(s: &str) -> Result<String, LuiError> {
    let mut out = String::with_capacity(s.len());
    for v in digit_values(s) {
        out.push(char::from(ALPHABET[v? as usize]));
    }
    Ok(out)
}

/// Inserts a dash after every `every` characters of `s` (0: none), as [`encode`] does.
pub fn split(s: &str, every: usize) -> String {
    if every == 0 {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + s.len() / every);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && i % every == 0 {
            out.push('-');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(n: u64, split_every: usize, min_length: usize, checksum: bool) -> String {
        encode(
            n,
            Spelling {
                split_every,
                min_length,
                checksum,
            },
        )
    }

    /// The vectors of spec-minting-extended §2.
    #[test]
    fn spec_vectors() {
        assert_eq!(enc(923_446_243_762, 4, 0, true), "tw0t-ywdj-94");
        assert_eq!(decode("tw0t-ywdj-94", true), Ok(923_446_243_762));
        assert_eq!(decode("TW0T-YWDJ-94", true), Ok(923_446_243_762));
        assert_eq!(decode("tw0tywdj94", true), Ok(923_446_243_762));
        assert_eq!(decode("tw0t-ywdj-9", true), Err(LuiError::BadChecksum));
        assert_eq!(enc(0, 0, 0, true), "098");
        assert_eq!(enc(32, 0, 0, false), "10");
    }

    /// Answers of base32-lib 1.1.1 to edge cases, recorded by running it.
    #[test]
    fn base32_lib_edge_cases() {
        assert_eq!(enc(0, 0, 0, false), "0");
        assert_eq!(enc(5, 0, 4, false), "0005");
        assert_eq!(enc(5, 2, 4, false), "00-05");
        assert_eq!(enc(5, 0, 2, true), "583");
        assert_eq!(enc(5, 4, 6, true), "0005-83");
        assert_eq!(enc(123_456, 3, 0, false), "3rj-0");
        assert_eq!(enc(1, 0, 0, true), "195");
        assert_eq!(enc(u64::MAX, 0, 0, true), "fzzzzzzzzzzzz15");
        assert_eq!(enc((1 << 40) - 1, 4, 0, true), "zzzz-zzzz-90");
        assert_eq!(enc(31, 4, 10, true), "0000-000z-05");
        assert_eq!(enc(1000, 0, 1, false), "z8");
        assert_eq!(decode("", false), Ok(0));
        assert_eq!(decode("i", false), Ok(1));
        assert_eq!(decode("Oo", false), Ok(0));
        assert_eq!(decode("--1--", false), Ok(1));
        assert_eq!(decode("98", true), Ok(0));
        assert_eq!(decode("-98", true), Ok(0));
        assert_eq!(decode("l95", true), Ok(1));
        assert_eq!(decode("oo98", true), Ok(0));
        for bad in [
            "01",
            "1",
            "001",
            "0-1",
            "1-01",
            "L-9-5",
            "tw0tywdjO94",
            "12",
        ] {
            assert_eq!(decode(bad, true), Err(LuiError::BadChecksum), "{bad}");
        }
        for bad in ["u", "U", " 1", "1 "] {
            assert!(
                matches!(decode(bad, false), Err(LuiError::BadCharacter { .. })),
                "{bad}"
            );
        }
        assert_eq!(
            decode("tw0t ywdj94", true),
            Err(LuiError::BadCharacter { c: ' ' })
        );
        assert_eq!(decode("u98", true), Err(LuiError::BadCharacter { c: 'u' }));
    }

    #[test]
    fn sixty_four_bits_and_no_more() {
        assert_eq!(decode("fzzzzzzzzzzzz", false), Ok(u64::MAX));
        assert_eq!(decode("g000000000000", false), Err(LuiError::TooLarge));
        assert_eq!(decode("10000000000000", false), Err(LuiError::TooLarge));
        assert_eq!(decode("0000000000000000001", false), Ok(1));
    }

    #[test]
    fn normalize_maps_every_spelling_to_one() {
        assert_eq!(normalize("TW0T-YWDJ-94").unwrap(), "tw0tywdj94");
        assert_eq!(normalize("tw-0tyw-dj94").unwrap(), "tw0tywdj94");
        assert_eq!(normalize("IiLlOo").unwrap(), "111100");
        assert_eq!(normalize("").unwrap(), "");
        assert_eq!(normalize("ab u"), Err(LuiError::BadCharacter { c: ' ' }));
        assert_eq!(normalize("é"), Err(LuiError::BadCharacter { c: 'é' }));
        assert_eq!(split("tw0tywdj94", 4), "tw0t-ywdj-94");
        assert_eq!(split("tw0tywdj94", 0), "tw0tywdj94");
    }

    #[test]
    fn shapes() {
        let s = LuiShape::parse("10-4").unwrap();
        assert_eq!((s.length, s.split, s.digits(), s.bits()), (10, 4, 8, 40));
        assert_eq!(s.total(), 1 << 40);
        assert_eq!(s.mask(), "lui10-4");
        assert_eq!(LuiShape::parse("6").unwrap().mask(), "lui6");
        assert_eq!(LuiShape::parse("6-3").unwrap().total(), 32u64.pow(4));
        for bad in ["", "2", "15", "10-", "10-0", "-4", "1x", "10-4-2", "+5"] {
            assert_eq!(LuiShape::parse(bad), None, "{bad}");
        }
        assert_eq!(LuiShape::parse("14").unwrap().bits(), 60);
        assert_eq!(s.grown(3).unwrap().mask(), "lui13-4");
        assert_eq!(s.grown(5), None);
        assert_eq!(s.canonical("TW0T-YW-DJ94"), Ok("tw0t-ywdj-94".to_string()));
        assert_eq!(s.canonical("tw0t-ywdj-95"), Err(LuiError::BadChecksum));
        assert_eq!(
            s.canonical("tw0t-ywdj-9"),
            Err(LuiError::BadLength {
                length: 9,
                expected: 10
            })
        );
    }

    #[test]
    fn generator_spells_the_permuted_counter() {
        let g = LuiGenerator::new(LuiShape::parse("10-4").unwrap(), *b"0123456789abcdef");
        let mut out = String::new();
        g.write(0, &mut out);
        // permute(0) = 454184741964 (see permutation's pinned values).
        assert_eq!(out, encode(454_184_741_964, g.shape().spelling()));
        assert_eq!(out.len(), 12);
    }

    #[test]
    fn checksum_range() {
        assert_eq!(checksum(0), 98);
        assert_eq!(checksum(1), 95);
        assert_eq!(checksum(923_446_243_762), 94);
        for n in 0..10_000u64 {
            assert!((1..=98).contains(&checksum(n)));
        }
    }

    #[test]
    fn errors_read_well() {
        assert_eq!(
            LuiError::BadCharacter { c: 'u' }.to_string(),
            "'u' is not a Crockford base32 character (0-9, a-z but u, and dashes)"
        );
    }
}
