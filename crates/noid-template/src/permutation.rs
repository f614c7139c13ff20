//! A keyed permutation of the numbers below 2^bits, so that a LUI minter can hand out
//! unpredictable identifiers from a plain counter: counter `i` becomes `permute(i)`, no
//! two counters give the same number, and the namespace runs out exactly when every
//! number has been issued once. Nothing is stored per identifier and no draw is ever
//! retried.
//!
//! The permutation is a balanced Feistel network over the smallest even number of bits
//! not below `bits`, with SipHash-2-4 under the minter's secret key as round function,
//! and cycle walking: a result outside the domain is permuted again until it falls
//! inside, which keeps the map a bijection of the domain itself. A domain of an odd
//! number of bits is half the network's, so a number takes two rounds of the network
//! on average.

use std::hash::Hasher;

use siphasher::sip::SipHasher24;

/// Feistel rounds. Four already make a pseudo-random permutation (Luby–Rackoff); more
/// give margin for the small domains of short LUIs.
const ROUNDS: u8 = 8;

/// The widest domain: LUIs are 64-bit numbers, of which a minter uses at most 60 bits
/// (12 base32 digits).
pub const MAX_BITS: u32 = 64;

/// A secret-keyed bijection of `0..2^bits`.
#[derive(Clone)]
pub struct Permutation {
    key: (u64, u64),
    bits: u32,
    half: u32,
}

impl std::fmt::Debug for Permutation {
    /// Leaves the key out, so that it does not end up in logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Permutation")
            .field("bits", &self.bits)
            .finish_non_exhaustive()
    }
}

impl Permutation {
    /// The permutation of `0..2^bits` under `key`.
    ///
    /// # Panics
    ///
    /// Panics unless `1 <= bits <= 62` (the network works on `2·⌈bits/2⌉` bits, which
    /// must fit in a `u64` with room to spare).
    pub fn new(key: [u8; 16], bits: u32) -> Permutation {
        assert!((1..=62).contains(&bits), "domain of {bits} bits");
        let (k0, k1) = key.split_at(8);
        Permutation {
            key: (
                u64::from_le_bytes(k0.try_into().expect("8 bytes")),
                u64::from_le_bytes(k1.try_into().expect("8 bytes")),
            ),
            bits,
            half: bits.div_ceil(2),
        }
    }

    /// The permutation of `0..2^bits` under the same key.
    pub fn with_bits(&self, bits: u32) -> Permutation {
        assert!((1..=62).contains(&bits), "domain of {bits} bits");
        Permutation {
            key: self.key,
            bits,
            half: bits.div_ceil(2),
        }
    }

    /// The number of elements, `2^bits`.
    pub fn size(&self) -> u64 {
        1 << self.bits
    }

    /// Round function: the keyed hash of the round number and one half, cut to a half.
    #[inline]
    fn round(&self, round: u8, half: u64) -> u64 {
        let mut h = SipHasher24::new_with_keys(self.key.0, self.key.1);
        h.write_u8(round);
        h.write_u8(self.bits as u8);
        h.write_u64(half);
        h.finish() & ((1 << self.half) - 1)
    }

    /// One pass of the Feistel network over `2·half` bits.
    #[inline]
    fn network(&self, x: u64) -> u64 {
        let mask = (1 << self.half) - 1;
        let (mut left, mut right) = (x >> self.half, x & mask);
        for r in 0..ROUNDS {
            let next = left ^ self.round(r, right);
            left = right;
            right = next;
        }
        (left << self.half) | right
    }

    /// The image of `x`, which must be below [`Permutation::size`].
    pub fn permute(&self, x: u64) -> u64 {
        debug_assert!(x < self.size());
        let mut y = self.network(x);
        while y >= self.size() {
            y = self.network(y);
        }
        y
    }
}

/// A key as stored in a minter: 32 lower-case hexadecimal digits.
pub fn key_to_hex(key: &[u8; 16]) -> String {
    key.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads a key written by [`key_to_hex`]; `None` unless it is 32 hexadecimal digits.
pub fn key_from_hex(hex: &str) -> Option<[u8; 16]> {
    let hex = hex.as_bytes();
    if hex.len() != 32 || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut key = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        let pair = std::str::from_utf8(pair).ok()?;
        key[i] = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 16] = *b"0123456789abcdef";

    fn is_bijection(bits: u32, key: [u8; 16]) -> bool {
        let p = Permutation::new(key, bits);
        let mut seen = vec![false; p.size() as usize];
        for x in 0..p.size() {
            let y = p.permute(x);
            if y >= p.size() || seen[y as usize] {
                return false;
            }
            seen[y as usize] = true;
        }
        true
    }

    #[test]
    fn a_bijection_of_every_small_domain() {
        for bits in 1..=16 {
            assert!(is_bijection(bits, KEY), "{bits} bits");
        }
        assert!(is_bijection(20, [7; 16]));
    }

    #[test]
    fn the_key_changes_the_order() {
        let a = Permutation::new(KEY, 40);
        let b = Permutation::new([1; 16], 40);
        let first_a: Vec<u64> = (0..8).map(|x| a.permute(x)).collect();
        let first_b: Vec<u64> = (0..8).map(|x| b.permute(x)).collect();
        assert_ne!(first_a, first_b);
        // Consecutive counters land far apart, not in a run.
        assert!(first_a.windows(2).all(|w| w[0].abs_diff(w[1]) > 1));
        assert!(first_a.iter().all(|y| *y < 1 << 40));
    }

    #[test]
    fn keys_as_hex() {
        assert_eq!(key_to_hex(&KEY), "30313233343536373839616263646566");
        assert_eq!(key_from_hex("30313233343536373839616263646566"), Some(KEY));
        assert_eq!(key_from_hex("3031"), None);
        assert_eq!(key_from_hex("z0313233343536373839616263646566"), None);
        assert_eq!(key_from_hex("+0313233343536373839616263646566"), None);
    }

    /// Values computed by an independent Python implementation of SipHash-2-4 (checked
    /// against the SipHash paper's test vector) and of the network described above:
    /// changing the construction would reorder every existing LUI minter's identifiers.
    #[test]
    fn the_order_is_fixed_by_key_and_domain() {
        let p = Permutation::new(KEY, 40);
        let first: Vec<u64> = (0..4).map(|x| p.permute(x)).collect();
        assert_eq!(
            first,
            [454184741964, 235653618671, 972911527692, 1033851949606]
        );
        let p = Permutation::new(KEY, 35);
        let first: Vec<u64> = (0..4).map(|x| p.permute(x)).collect();
        assert_eq!(first, [12677766981, 1770342949, 5800777531, 28230075400]);
        assert_eq!(format!("{p:?}"), "Permutation { bits: 35, .. }");
    }
}
