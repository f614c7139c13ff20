//! The character repertoires a template's mask may draw from: Perl Noid's `d` and `e`,
//! and Noid4Php 1.4.0's extended repertoires `i x v E l w c` (spec-minting-extended §1).
//!
//! Each mask character names one repertoire; a position of a minted identifier is a
//! digit in that repertoire's radix. The check character of a template is computed in
//! the repertoire [`check_repertoire`] chooses. All but `d` have a prime size, which is
//! what lets a check character over them catch every single substitution and every
//! transposition of two adjacent characters.

/// One character repertoire, named after the mask character that selects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Repertoire {
    /// `d`: the ten digits.
    Digit,
    /// `e`: Perl Noid's 29 extended digits (digits and consonants except `l`).
    Betanumeric,
    /// `i`: digits and `x` (11).
    DigitX,
    /// `x`: lower-case hexadecimal digits and `_` (17).
    Hex,
    /// `v`: digits, lower-case letters and `_` (37).
    Lowercase,
    /// `E`: digits but `0`, consonants but `l` in both cases (47).
    MixedBetanumeric,
    /// `l`: digits and letters of both cases except lower-case `l` (61).
    Alphanumeric,
    /// `w`: digits, letters of both cases and `#*+@_` (67).
    Wide,
    /// `c`: visible ASCII except `%-./\` (89); some of these are not legal in ARKs or
    /// URLs unescaped.
    Visible,
}

/// Marker for "not in this repertoire" in the ordinal tables.
const ABSENT: u8 = 0xFF;

/// Byte → ordinal table of `chars`, built at compile time so that a lookup is one load.
const fn ordinals(chars: &[u8]) -> [u8; 256] {
    let mut table = [ABSENT; 256];
    let mut i = 0;
    while i < chars.len() {
        table[chars[i] as usize] = i as u8;
        i += 1;
    }
    table
}

/// The `c` repertoire: ASCII 33..=126 in order, without `%`, `-`, `.`, `/` and `\`.
const VISIBLE: [u8; 89] = {
    let mut out = [0u8; 89];
    let mut b = 33u8;
    let mut i = 0;
    while b < 127 {
        if !matches!(b, b'%' | b'-' | b'.' | b'/' | b'\\') {
            out[i] = b;
            i += 1;
        }
        b += 1;
    }
    out
};

/// One repertoire's characters (in ordinal order) and their ordinal table.
struct Table {
    chars: &'static [u8],
    ordinals: [u8; 256],
}

/// Builds a [`Table`] at compile time.
const fn table(chars: &'static [u8]) -> Table {
    Table {
        chars,
        ordinals: ordinals(chars),
    }
}

static DIGIT: Table = table(b"0123456789");
static BETANUMERIC: Table = table(crate::xdigits::XDIGIT_BYTES);
static DIGIT_X: Table = table(b"0123456789x");
static HEX: Table = table(b"0123456789abcdef_");
static LOWERCASE: Table = table(b"0123456789abcdefghijklmnopqrstuvwxyz_");
static MIXED_BETANUMERIC: Table = table(b"123456789bcdfghjkmnpqrstvwxzBCDFGHJKMNPQRSTVWXZ");
static ALPHANUMERIC: Table =
    table(b"0123456789abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
static WIDE: Table = table(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#*+@_");
static VISIBLE_TABLE: Table = table(&VISIBLE);

/// The repertoires a check character may be computed in, in order of preference: the
/// first that holds every character of the prefix and of the mask's repertoires wins
/// (`d`, `i` and `e` all check over `e`).
const CHECK_PREFERENCE: [Repertoire; 7] = [
    Repertoire::Betanumeric,
    Repertoire::Hex,
    Repertoire::Lowercase,
    Repertoire::MixedBetanumeric,
    Repertoire::Alphanumeric,
    Repertoire::Wide,
    Repertoire::Visible,
];

impl Repertoire {
    /// Every repertoire, in the order the documentation lists them.
    pub const ALL: [Repertoire; 9] = [
        Repertoire::Digit,
        Repertoire::Betanumeric,
        Repertoire::DigitX,
        Repertoire::Hex,
        Repertoire::Lowercase,
        Repertoire::MixedBetanumeric,
        Repertoire::Alphanumeric,
        Repertoire::Wide,
        Repertoire::Visible,
    ];

    /// The repertoire a mask character selects, or `None` for any other byte.
    pub fn from_mask_char(b: u8) -> Option<Repertoire> {
        Some(match b {
            b'd' => Repertoire::Digit,
            b'e' => Repertoire::Betanumeric,
            b'i' => Repertoire::DigitX,
            b'x' => Repertoire::Hex,
            b'v' => Repertoire::Lowercase,
            b'E' => Repertoire::MixedBetanumeric,
            b'l' => Repertoire::Alphanumeric,
            b'w' => Repertoire::Wide,
            b'c' => Repertoire::Visible,
            _ => return None,
        })
    }

    /// The mask character that selects this repertoire.
    pub fn mask_char(self) -> char {
        match self {
            Repertoire::Digit => 'd',
            Repertoire::Betanumeric => 'e',
            Repertoire::DigitX => 'i',
            Repertoire::Hex => 'x',
            Repertoire::Lowercase => 'v',
            Repertoire::MixedBetanumeric => 'E',
            Repertoire::Alphanumeric => 'l',
            Repertoire::Wide => 'w',
            Repertoire::Visible => 'c',
        }
    }

    /// A short description for messages: Perl's own words for `d` and `e`.
    pub fn description(self) -> &'static str {
        match self {
            Repertoire::Digit => "digit",
            Repertoire::Betanumeric => "extended digit",
            Repertoire::DigitX => "digit or x",
            Repertoire::Hex => "hexadecimal digit or _",
            Repertoire::Lowercase => "digit, lower-case letter or _",
            Repertoire::MixedBetanumeric => "digit 1-9 or consonant but l",
            Repertoire::Alphanumeric => "digit or letter but lower-case l",
            Repertoire::Wide => "digit, letter or one of #*+@_",
            Repertoire::Visible => "visible ASCII but %-./\\",
        }
    }

    fn table(self) -> &'static Table {
        match self {
            Repertoire::Digit => &DIGIT,
            Repertoire::Betanumeric => &BETANUMERIC,
            Repertoire::DigitX => &DIGIT_X,
            Repertoire::Hex => &HEX,
            Repertoire::Lowercase => &LOWERCASE,
            Repertoire::MixedBetanumeric => &MIXED_BETANUMERIC,
            Repertoire::Alphanumeric => &ALPHANUMERIC,
            Repertoire::Wide => &WIDE,
            Repertoire::Visible => &VISIBLE_TABLE,
        }
    }

    /// The characters, in ordinal order.
    pub fn chars(self) -> &'static [u8] {
        self.table().chars
    }

    /// The number of characters, which is the radix of a mask position.
    pub fn radix(self) -> u64 {
        self.table().chars.len() as u64
    }

    /// The character with ordinal `i` (`i` below the radix).
    #[inline]
    pub fn digit(self, i: usize) -> u8 {
        self.table().chars[i]
    }

    /// The ordinal of `b`, or `None` when `b` is not in the repertoire.
    #[inline]
    pub fn ordinal(self, b: u8) -> Option<u8> {
        match self.table().ordinals[b as usize] {
            ABSENT => None,
            o => Some(o),
        }
    }

    /// True when `b` is in the repertoire.
    #[inline]
    pub fn contains(self, b: u8) -> bool {
        self.table().ordinals[b as usize] != ABSENT
    }

    /// True when every character of `self` is also in `other`.
    pub fn is_within(self, other: Repertoire) -> bool {
        self.chars().iter().all(|b| other.contains(*b))
    }

    /// True for Perl Noid's own repertoires, `d` and `e`, whose templates keep Perl's
    /// rules and messages exactly.
    pub fn is_perl(self) -> bool {
        matches!(self, Repertoire::Digit | Repertoire::Betanumeric)
    }

    /// True when some of the characters must be escaped in an ARK or a URL.
    pub fn needs_escaping(self) -> bool {
        self == Repertoire::Visible
    }

    /// True when the repertoire holds a vowel, so identifiers may spell words.
    pub fn has_vowels(self) -> bool {
        b"aeiouyAEIOUY".iter().any(|b| self.contains(*b))
    }

    /// The check character of `body` in this repertoire: Σ position·ordinal modulo the
    /// radix, positions counted from 1, characters outside the repertoire (the `/`
    /// after a NAAN, say) weighing 0.
    #[inline]
    pub fn check_char(self, body: &[u8]) -> u8 {
        let t = self.table();
        let sum: u64 = body
            .iter()
            .enumerate()
            .map(|(i, b)| match t.ordinals[*b as usize] {
                ABSENT => 0,
                o => (i as u64 + 1) * u64::from(o),
            })
            .sum();
        t.chars[(sum % t.chars.len() as u64) as usize]
    }
}

/// The repertoire a template's check character is computed in: the first of `e`, `x`,
/// `v`, `E`, `l`, `w`, `c` holding every character of `prefix` (but `/`) and every
/// character of the mask positions' repertoires; `None` when none does.
pub fn check_repertoire(prefix: &str, positions: &[Repertoire]) -> Option<Repertoire> {
    CHECK_PREFERENCE.into_iter().find(|r| {
        prefix.bytes().all(|b| b == b'/' || r.contains(b))
            && positions.iter().all(|p| p.is_within(*r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repertoires as spec-minting-extended §1 lists them.
    #[test]
    fn repertoires_as_specified() {
        let spec: [(char, &str, u64); 8] = [
            ('d', "0123456789", 10),
            ('e', "0123456789bcdfghjkmnpqrstvwxz", 29),
            ('i', "0123456789x", 11),
            ('x', "0123456789abcdef_", 17),
            ('v', "0123456789abcdefghijklmnopqrstuvwxyz_", 37),
            ('E', "123456789bcdfghjkmnpqrstvwxzBCDFGHJKMNPQRSTVWXZ", 47),
            (
                'l',
                "0123456789abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                61,
            ),
            (
                'w',
                "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#*+@_",
                67,
            ),
        ];
        for (c, chars, n) in spec {
            let r = Repertoire::from_mask_char(c as u8).unwrap();
            assert_eq!(r.mask_char(), c);
            assert_eq!(r.chars(), chars.as_bytes(), "{c}");
            assert_eq!(r.radix(), n, "{c}");
        }
        let c = Repertoire::Visible;
        assert_eq!(c.radix(), 89);
        let expected = "!\"#$&'()*+,0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";
        assert_eq!(c.chars(), expected.as_bytes());
        for r in Repertoire::ALL {
            for (i, b) in r.chars().iter().enumerate() {
                assert_eq!(r.ordinal(*b), Some(i as u8));
                assert_eq!(r.digit(i), *b);
            }
            let members = (0u8..=255).filter(|b| r.contains(*b)).count();
            assert_eq!(members as u64, r.radix());
        }
        assert_eq!(Repertoire::from_mask_char(b'k'), None);
        assert_eq!(Repertoire::from_mask_char(b'D'), None);
    }

    #[test]
    fn check_repertoire_preference() {
        use Repertoire::*;
        let pick = |p: &str, m: &[Repertoire]| check_repertoire(p, m);
        assert_eq!(pick("", &[Digit, DigitX, Betanumeric]), Some(Betanumeric));
        assert_eq!(pick("x4", &[Lowercase]), Some(Lowercase));
        assert_eq!(pick("z", &[Lowercase]), Some(Lowercase));
        assert_eq!(pick("q", &[MixedBetanumeric]), Some(MixedBetanumeric));
        assert_eq!(pick("", &[Hex, Digit]), Some(Hex));
        assert_eq!(pick("g", &[Hex]), Some(Lowercase));
        // `E` lacks `0`, so E with `d` needs `l`; `v` with `E` needs `w`.
        assert_eq!(pick("", &[MixedBetanumeric, Digit]), Some(Alphanumeric));
        assert_eq!(pick("x", &[Lowercase, MixedBetanumeric]), Some(Wide));
        assert_eq!(pick("13030/a", &[DigitX]), Some(Lowercase));
        assert_eq!(pick("", &[Visible]), Some(Visible));
        assert_eq!(pick("a-b", &[Digit]), None);
        assert_eq!(pick("", &[Wide, Visible]), Some(Visible));
    }

    #[test]
    fn perl_check_char_is_the_betanumeric_one() {
        let r = Repertoire::Betanumeric;
        assert_eq!(r.check_char(b"13030/xf93gt2"), b'q');
        assert_eq!(r.check_char(b"13030/f54x54g1"), b'1');
        assert_eq!(r.check_char(b"fk491"), b'f');
    }

    #[test]
    fn properties_of_the_repertoires() {
        use Repertoire::*;
        assert!(Visible.needs_escaping());
        assert!(!Wide.needs_escaping());
        for r in [Digit, Betanumeric, DigitX, MixedBetanumeric] {
            assert!(!r.has_vowels(), "{r:?}");
        }
        for r in [Hex, Lowercase, Alphanumeric, Wide, Visible] {
            assert!(r.has_vowels(), "{r:?}");
        }
        assert!(!Digit.is_within(MixedBetanumeric));
        assert!(MixedBetanumeric.is_within(Alphanumeric));
    }
}
