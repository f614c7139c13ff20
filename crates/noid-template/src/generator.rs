//! Identifier generation: turning numbers into mask-shaped strings (`n2xdig`), the
//! counter state of the quasi-random generator, and one `genid` step (spec §2.3–§3).
//!
//! [`GeneratorState`] is a plain value that mirrors the Perl admin keys one to one
//! (`:/oacounter`, `:/oatop`, `:/total`, `:/percounter`, `:/c{n}/top`,
//! `:/c{n}/value`, `:/saclist`, `:/siclist`), so the store crate can load it, call
//! [`GeneratorState::genid_into`] and persist only what the returned [`Changes`]
//! says was touched.

use std::fmt;

use crate::checkchar;
use crate::drand48::perl_rand_index;
use crate::repertoire::Repertoire;
use crate::template::GenType;
use crate::xdigits::{MAXCOUNTERS, NOLIMIT, XDIGIT_BYTES};

/// A mask (`^[rsz][de…]+k?$`) pre-digested for fast repeated use: the repertoire of
/// every fixed position, least significant first, the growth repertoire of a `z` mask,
/// and whether a check character placeholder is appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledMask {
    /// The repertoire of each position, least significant (rightmost) first.
    positions: Vec<Repertoire>,
    /// For `z` masks, the repertoire of the character right after `z`: Perl keeps the
    /// last divisor it used, and the fixed part is processed right to left.
    grow: Option<Repertoire>,
    /// The mask ends in `k`.
    checkchar: bool,
    /// Every position is Perl's `d` or `e`: the digits are written by the two-radix
    /// loop of [`CompiledMask::fill`].
    perl: bool,
}

impl CompiledMask {
    /// Compiles `mask`, or returns `None` when it is not a generator letter, one or
    /// more repertoire characters and an optional `k` (where Perl's `n2xdig`, which
    /// knows only `d` and `e`, returns undef).
    pub fn new(mask: &str) -> Option<CompiledMask> {
        let b = mask.as_bytes();
        let (&first, rest) = b.split_first()?;
        if !matches!(first, b'r' | b's' | b'z') {
            return None;
        }
        let checkchar = rest.ends_with(b"k");
        let body = if checkchar {
            &rest[..rest.len() - 1]
        } else {
            rest
        };
        if body.is_empty() {
            return None;
        }
        let positions = body
            .iter()
            .rev()
            .map(|c| Repertoire::from_mask_char(*c))
            .collect::<Option<Vec<Repertoire>>>()?;
        let grow = (first == b'z').then(|| *positions.last().expect("body is non-empty"));
        let perl = positions.iter().all(|r| r.is_perl());
        Some(CompiledMask {
            positions,
            grow,
            checkchar,
            perl,
        })
    }

    /// True when every position is Perl's `d` or `e`.
    pub fn is_perl(&self) -> bool {
        self.perl
    }

    /// The repertoires of the positions, most significant (leftmost) first.
    pub fn positions(&self) -> impl Iterator<Item = Repertoire> + '_ {
        self.positions.iter().rev().copied()
    }

    /// True when the mask ends in `k`.
    pub fn has_checkchar(&self) -> bool {
        self.checkchar
    }

    /// Fills `buf` from its end with the digits of `num` and returns the index of the
    /// first digit written. `buf` must have room for the fixed part plus growth.
    #[inline]
    fn fill(&self, mut num: u64, buf: &mut [u8]) -> usize {
        let mut pos = buf.len();
        if self.perl {
            // Almost every minter mints from Perl's two repertoires: a two-way branch
            // with literal divisors (multiply-shift instead of `div`) and one digit
            // table (`e`'s first ten characters are the digits).
            for &r in &self.positions {
                pos -= 1;
                let d = if r == Repertoire::Digit {
                    let d = num % 10;
                    num /= 10;
                    d
                } else {
                    let d = num % 29;
                    num /= 29;
                    d
                };
                buf[pos] = XDIGIT_BYTES[d as usize];
            }
        } else {
            for &r in &self.positions {
                pos -= 1;
                let radix = r.radix();
                buf[pos] = r.digit((num % radix) as usize);
                num /= radix;
            }
        }
        // For r/s masks, any remaining high part of `num` is silently discarded.
        if let Some(g) = self.grow {
            let radix = g.radix();
            while num != 0 {
                pos -= 1;
                buf[pos] = g.digit((num % radix) as usize);
                num /= radix;
            }
        }
        pos
    }

    /// Appends `n2xdig(num, mask)` to `out` without allocating (for masks of up to
    /// 64 fixed positions; longer ones fall back to a temporary buffer).
    pub fn write(&self, num: u64, out: &mut String) {
        // 64 bits need at most 20 digits in radix 10 (fewer in larger radices).
        const GROWTH: usize = 20;
        let mut stack = [0u8; 84];
        let mut heap;
        let needed = self.positions.len() + GROWTH;
        let buf: &mut [u8] = if needed <= stack.len() {
            &mut stack[..needed]
        } else {
            heap = vec![0u8; needed];
            &mut heap
        };
        let start = self.fill(num, buf);
        out.reserve(buf.len() - start + 1);
        for &b in &buf[start..] {
            out.push(char::from(b));
        }
        if self.checkchar {
            out.push('+');
        }
    }
}

/// Perl's `n2xdig(num, mask)` (spec §2.6): `num` written in the mixed radix of the
/// mask (`d` = 10, `e` = 29, and each extended repertoire its size), zero-padded to the mask width, plus a `+` placeholder
/// for the check character when the mask ends in `k`.
///
/// For `r`/`s` masks, digits beyond the mask width are dropped (`rdd`: 101 → `01`);
/// for `z` masks, extra leading digits in the radix of the character after `z` are
/// added (`zde`: 290 → `100`). Returns `None` for a malformed mask.
pub fn n2xdig(num: u64, mask: &str) -> Option<String> {
    let m = CompiledMask::new(mask)?;
    let mut s = String::new();
    m.write(num, &mut s);
    Some(s)
}

/// One of the random generator's counters (`:/c{n}/top`, `:/c{n}/value`).
/// Counter `n` yields the numbers `n·percounter + 1 ..= n·percounter + top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counter {
    /// How many numbers this counter hands out.
    pub top: u64,
    /// How many it has handed out so far.
    pub value: u64,
}

/// The generator's persistent state, field for field the Perl admin keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratorState {
    /// `:/oacounter`: number of genid calls so far (not ids issued, since skipped
    /// candidates count too). It is also the `srand` seed of the next random pick.
    pub oacounter: u64,
    /// `:/oatop`: exhaustion limit, equal to the total, or -1 for unlimited.
    pub oatop: i64,
    /// `:/total`: namespace size, or -1 for unlimited.
    pub total: i64,
    /// `:/percounter`: stride between counters.
    pub percounter: u64,
    /// `:/c0` … `:/c{N}`, indexed by counter number.
    pub counters: Vec<Counter>,
    /// `:/saclist`: numbers of the counters still active, in Perl's order.
    pub saclist: Vec<u32>,
    /// `:/siclist`: numbers of the exhausted counters, in order of exhaustion.
    pub siclist: Vec<u32>,
}

/// What one successful `genid` changed besides `oacounter` (which always advances),
/// so that a store can write only the dirty keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Changes {
    /// The counter `n` whose `:/c{n}/value` was incremented (random masks only).
    pub counter: Option<u32>,
    /// `:/saclist` and `:/siclist` changed (a counter ran out, or a reset).
    pub lists: bool,
    /// A short-term random minter wrapped: every counter, `:/percounter` and both
    /// lists were re-initialised and must all be rewritten.
    pub reset: bool,
}

/// Returned when a bounded minter that does not wrap has issued its whole namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted {
    /// The `:/oatop` value at which minting stopped.
    pub stopped_at: i64,
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "identifiers exhausted (stopped at {}).", self.stopped_at)
    }
}

impl std::error::Error for Exhausted {}

/// Why a `genid` step produced no identifier. `Display` has no `error: ` prefix; the
/// caller adds it as Perl's `addmsg` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenError {
    /// The namespace is used up and the minter does not wrap.
    Exhausted(Exhausted),
    /// A random minter has no active counter left although it is not exhausted. This
    /// happens for the broken minter Perl builds from the template `-`; `left` is
    /// `oatop - oacounter`, shown as 0 for an unlimited minter as Perl prints it.
    NoActiveCounters {
        /// Identifiers the minter believes are left.
        left: i64,
    },
    /// The saclist names a counter that does not exist (corrupt state).
    MissingCounter {
        /// The counter number found in the saclist.
        n: u32,
    },
    /// The stored mask does not match `^[rsz][de]+k?$` (corrupt state).
    BadMask {
        /// The offending mask.
        mask: String,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Exhausted(e) => e.fmt(f),
            GenError::NoActiveCounters { left } => {
                write!(f, "no active counters panic, but {left} identifiers left?")
            }
            GenError::MissingCounter { n } => write!(f, "counter c{n} is missing"),
            GenError::BadMask { mask } => write!(f, "bad mask \"{mask}\""),
        }
    }
}

impl std::error::Error for GenError {}

impl From<Exhausted> for GenError {
    fn from(e: Exhausted) -> GenError {
        GenError::Exhausted(e)
    }
}

/// A counter list token that is not `c<number>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListParseError {
    /// The offending token.
    pub token: String,
}

impl fmt::Display for ListParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad counter name \"{}\" in counter list", self.token)
    }
}

impl std::error::Error for ListParseError {}

/// `int(total / 293 + 1)` as Perl computes it: an exact integer division when it
/// divides evenly (Perl's integer-preserving divide), floating point otherwise.
fn percounter_for(total: i64) -> u64 {
    let m = MAXCOUNTERS as i64;
    let v = if total % m == 0 {
        total / m + 1
    } else {
        (total as f64 / MAXCOUNTERS as f64 + 1.0) as i64
    };
    v.max(0) as u64
}

/// Perl's `init_counters` (spec §2.3): splits `total` over up to 293 counters of
/// `percounter = int(total/293 + 1)` numbers each, all active, none used.
///
/// dbcreate calls it for every template, so `s` minters have counters too (they show
/// in `dbinfo full`); a `z` template (total -1) gets percounter 0 and no counters.
/// `oatop` is set to `total`, as dbcreate does.
pub fn init_counters(total: i64) -> GeneratorState {
    let percounter = percounter_for(total);
    let mut counters = Vec::new();
    let mut t = total;
    while t > 0 && percounter > 0 {
        counters.push(Counter {
            top: (t as u64).min(percounter),
            value: 0,
        });
        t = t.saturating_sub(percounter as i64);
    }
    let saclist = (0..counters.len() as u32).collect();
    GeneratorState {
        oacounter: 0,
        oatop: total,
        total,
        percounter,
        counters,
        saclist,
        siclist: Vec::new(),
    }
}

/// Parses a `:/saclist` value (`"c0 c1 c5 "`). Empty fields are skipped, so the
/// trailing space and an empty list are fine.
pub fn parse_saclist(s: &str) -> Result<Vec<u32>, ListParseError> {
    parse_list(s)
}

/// Parses a `:/siclist` value (`" c5 c7"`, a leading space before every name).
pub fn parse_siclist(s: &str) -> Result<Vec<u32>, ListParseError> {
    parse_list(s)
}

/// Shared by both list parsers: space-separated `c<number>` tokens.
fn parse_list(s: &str) -> Result<Vec<u32>, ListParseError> {
    s.split(' ')
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.strip_prefix('c')
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| ListParseError {
                    token: t.to_string(),
                })
        })
        .collect()
}

impl GeneratorState {
    /// `:/saclist` exactly as Perl writes it: `"c0 c1 … cN "` with a trailing
    /// space, or `""` when no counter is active.
    pub fn saclist_string(&self) -> String {
        let mut s = String::with_capacity(self.saclist.len() * 5);
        for n in &self.saclist {
            s.push('c');
            s.push_str(&n.to_string());
            s.push(' ');
        }
        s
    }

    /// `:/siclist` exactly as Perl writes it: Perl appends `" " + name` each time a
    /// counter runs out, giving `" c5 c7"`, or `""` when none has.
    pub fn siclist_string(&self) -> String {
        let mut s = String::with_capacity(self.siclist.len() * 5);
        for n in &self.siclist {
            s.push_str(" c");
            s.push_str(&n.to_string());
        }
        s
    }

    /// True when a bounded minter has used its whole namespace.
    pub fn is_exhausted(&self) -> bool {
        self.oatop != NOLIMIT && i128::from(self.oacounter) >= i128::from(self.oatop)
    }

    /// One Perl `genid` call, returning the identifier body (no NAAN, prefix or check
    /// character yet; a trailing `+` placeholder when the mask ends in `k`).
    ///
    /// Convenience wrapper around [`GeneratorState::genid_into`] that compiles the
    /// mask on every call; use `genid_into` in loops.
    pub fn genid(&mut self, mask: &str, gen_type: GenType, wrap: bool) -> Result<String, GenError> {
        match CompiledMask::new(mask) {
            Some(m) => {
                let mut out = String::new();
                self.genid_into(&m, gen_type, wrap, &mut out)?;
                Ok(out)
            }
            None => {
                // Report what Perl would have reported before reaching n2xdig.
                if self.is_exhausted() && !wrap {
                    return Err(Exhausted {
                        stopped_at: self.oatop,
                    }
                    .into());
                }
                if gen_type == GenType::Random && self.saclist.is_empty() && !self.is_exhausted() {
                    return Err(self.no_active_counters());
                }
                Err(GenError::BadMask {
                    mask: mask.to_string(),
                })
            }
        }
    }

    /// The "no active counters" error for the current state.
    fn no_active_counters(&self) -> GenError {
        let left = if self.oatop == NOLIMIT {
            0
        } else {
            self.oatop - self.oacounter as i64
        };
        GenError::NoActiveCounters { left }
    }

    /// One Perl `genid` call (spec §2.4, §3), appending the identifier body to `out`
    /// and reporting which state fields changed.
    ///
    /// * Perl calls `srand(oacounter)` before `genid`, so the random pick is seeded
    ///   with `oacounter` as it was on entry, *before* any wrap reset. That is the
    ///   quirk by which the first pick after a short-term random minter wraps uses
    ///   seed = total, and later ones 1, 2, ….
    /// * Exhaustion (`oatop != -1 && oacounter >= oatop`) is checked first. Without
    ///   `wrap` it is an error and nothing changes; with `wrap` a sequential minter
    ///   restarts at 0 and a random one re-runs [`init_counters`].
    /// * Random: counter `n = saclist[int(rand(len))]` is incremented (its values
    ///   start at one) and the body is `n2xdig(value + n·percounter)`; a counter
    ///   reaching its top moves from the saclist to the siclist.
    /// * Sequential: the body is `n2xdig(oacounter)`, starting at 0.
    ///
    /// `oacounter` is incremented on every success.
    pub fn genid_into(
        &mut self,
        mask: &CompiledMask,
        gen_type: GenType,
        wrap: bool,
        out: &mut String,
    ) -> Result<Changes, GenError> {
        let seed = self.oacounter;
        let mut changes = Changes::default();
        if self.is_exhausted() {
            if !wrap {
                return Err(Exhausted {
                    stopped_at: self.oatop,
                }
                .into());
            }
            match gen_type {
                GenType::Sequential => self.oacounter = 0,
                GenType::Random => {
                    self.reinit();
                    changes.reset = true;
                    changes.lists = true;
                }
            }
        }
        match gen_type {
            GenType::Sequential => {
                mask.write(self.oacounter, out);
                self.oacounter += 1;
            }
            GenType::Random => {
                if self.saclist.is_empty() {
                    return Err(self.no_active_counters());
                }
                let randn = perl_rand_index(seed, self.saclist.len());
                let n = self.saclist[randn];
                let counter = self
                    .counters
                    .get_mut(n as usize)
                    .ok_or(GenError::MissingCounter { n })?;
                counter.value += 1;
                let value = counter.value;
                let top = counter.top;
                self.oacounter += 1;
                changes.counter = Some(n);
                if value >= top {
                    self.saclist.remove(randn);
                    self.siclist.push(n);
                    changes.lists = true;
                }
                mask.write(value + u64::from(n) * self.percounter, out);
            }
        }
        Ok(changes)
    }

    /// The next number of a minter that permutes its counter itself (a LUI minter):
    /// `oacounter`, which then advances. At exhaustion it is an error, or with `wrap`
    /// the count restarts at 0.
    pub fn take_counter(&mut self, wrap: bool) -> Result<u64, GenError> {
        if self.is_exhausted() {
            if !wrap {
                return Err(Exhausted {
                    stopped_at: self.oatop,
                }
                .into());
            }
            self.oacounter = 0;
        }
        let n = self.oacounter;
        self.oacounter += 1;
        Ok(n)
    }

    /// Re-runs `init_counters` for a wrapping short-term minter, keeping `oatop`.
    fn reinit(&mut self) {
        let oatop = self.oatop;
        *self = init_counters(self.total);
        self.oatop = oatop;
    }
}

/// Assembles a minted identifier as Perl's `mint` does (spec §2.8): `firstpart`
/// (NAAN + `/` when a NAAN was given, then the prefix) + `body`, then the check
/// character in place of the `+` placeholder when `addcheckchar` is set.
///
/// If Perl's `checkchar` would return undef (impossible for bodies produced by a
/// `k` mask, which end in `+`), the identifier is returned without a check character.
pub fn assemble(firstpart: &str, body: &str, addcheckchar: bool) -> String {
    assemble_in(
        firstpart,
        body,
        addcheckchar.then_some(Repertoire::Betanumeric),
    )
}

/// [`assemble`] for any check repertoire (`None`: no check character). Over `e` it is
/// Perl's `checkchar`; over another repertoire, whose characters may include `+`, the
/// placeholder `n2xdig` appended is replaced by the check character of the rest.
pub fn assemble_in(firstpart: &str, body: &str, check: Option<Repertoire>) -> String {
    let mut id = String::with_capacity(firstpart.len() + body.len());
    id.push_str(firstpart);
    id.push_str(body);
    match check {
        None => {}
        Some(Repertoire::Betanumeric) => {
            checkchar::apply_in_place(&mut id);
        }
        Some(r) => {
            id.pop();
            let cc = r.check_char(id.as_bytes());
            id.push(char::from(cc));
        }
    }
    id
}

#[cfg(test)]
mod tests;
