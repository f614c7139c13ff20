//! Template parsing (`prefix.mask`), the namespace size it implies, and the derived
//! descriptions dbcreate reports (the "GRANITE" durability properties, the directory
//! synonym and comma-separated numbers).
//!
//! For masks of `d` and `e`, the rules and every error message follow Perl Noid
//! 0.424's `parse_template` exactly (spec §2.2), because the messages are printed
//! verbatim by `dbcreate` and `validate`, and scripts written against the Perl tool
//! compare them. Beyond Perl, a mask may use Noid4Php's extended repertoires
//! (`i x v E l w c`, see [`crate::repertoire`]), and a template may be a Crockford
//! base32 LUI template, `[PREFIX.]luiN[-W]` (see [`crate::lui`]).

use std::fmt;

use crate::lui::LuiShape;
use crate::repertoire::{check_repertoire, Repertoire};
use crate::xdigits::{is_xdigit, NOLIMIT};

/// The order in which a minter hands out identifiers, from the first mask letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GenType {
    /// `r` masks: quasi-random order driven by Perl's reseeded `rand`.
    Random,
    /// `s` (bounded) and `z` (unbounded) masks: plain counting.
    Sequential,
}

impl GenType {
    /// The word Perl stores under `:/generator_type` and prints in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            GenType::Random => "random",
            GenType::Sequential => "sequential",
        }
    }

    /// Parses the stored `:/generator_type` value. Perl's genid treats anything other
    /// than `sequential` as random, so this does too.
    pub fn from_stored(s: &str) -> GenType {
        if s == "sequential" {
            GenType::Sequential
        } else {
            GenType::Random
        }
    }
}

impl fmt::Display for GenType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a template was rejected. `Display` gives Perl's message byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// The template is empty or `-`. Perl returns NOLIMIT here rather than failing
    /// outright (a bind-only minter), but no identifier can be generated.
    NoMinting,
    /// No `.` followed by at least one word character.
    NoMask,
    /// The mask does not start with `r`, `s` or `z`.
    BadGenerator,
    /// `k` appears other than once at the very end, or there is no mask character
    /// between the generator letter and `k` (this is what a bare `.r` hits).
    BadCheckCharPosition,
    /// A mask character other than `d` or `e`.
    BadMaskChar,
    /// With a check character, the prefix contains a character that is neither an
    /// extended digit nor `/`. (Perl's message says "mask" but it is the prefix.)
    BadPrefixForCheckChar,
    /// The namespace has more identifiers than fit in an `i64`. Perl would fall back
    /// to floating point and mint unreliably; this port refuses such templates.
    TooLarge,
    /// With a check character, no check repertoire holds every character of the
    /// prefix and the mask (only an extended mask gets here; a `d`/`e` mask gets
    /// Perl's [`TemplateError::BadPrefixForCheckChar`]).
    NoCheckRepertoire,
    /// A `luiN[-W]` template whose length or dash spacing is out of range.
    BadLui,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TemplateError::NoMinting => "parse_template: no minting possible.",
            TemplateError::NoMask => {
                "parse_template: no template mask - can't generate identifiers."
            }
            TemplateError::BadGenerator => {
                "parse_template: mask must begin with one of the letters\n'r' (random), 's' (sequential), or 'z' (sequential unlimited)."
            }
            TemplateError::BadCheckCharPosition => {
                "parse_template: exactly one check character (k) is allowed, and it may\nonly appear at the end of a string of one or more mask characters."
            }
            TemplateError::BadMaskChar => {
                "parse_template: a mask may contain only the letters 'd' or 'e'."
            }
            TemplateError::BadPrefixForCheckChar => {
                "parse_template: with a check character at the end, a mask may contain only characters from \"0123456789bcdfghjkmnpqrstvwxz\"."
            }
            TemplateError::TooLarge => {
                "parse_template: template describes more than 9223372036854775807 identifiers."
            }
            TemplateError::NoCheckRepertoire => {
                "parse_template: with a check character at the end, the prefix and mask may contain only\ncharacters of one check repertoire; the widest, 'c', is visible ASCII but %-./\\ (and '/' in the prefix)."
            }
            TemplateError::BadLui => {
                "parse_template: a LUI template is [Prefix.]luiN[-W]: N characters from 3 to 14, the last two\na checksum, and a dash every W characters (W at least 1)."
            }
        })
    }
}

impl std::error::Error for TemplateError {}

/// A successfully parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The template exactly as given, which is what dbcreate stores under
    /// `:/template` and what validate prints. The normalised form is
    /// `prefix + "." + mask`.
    pub template: String,
    /// Everything before the first `.` of the last path component.
    pub prefix: String,
    /// The first run of word characters after that `.`, e.g. `reedeedk`.
    pub mask: String,
    /// Random for `r` masks, sequential for `s` and `z`.
    pub gen_type: GenType,
    /// Number of identifiers in the namespace, or [`NOLIMIT`] (-1) for `z` masks.
    pub total: i64,
    /// True when the mask ends in `k`, i.e. identifiers carry an NCDA check character.
    pub has_checkchar: bool,
    /// Perl's "synonym": prefix + (mask length - 1), plus `+` for `z` masks
    /// (`f5.reedeedk` → `f57`). It names the suggested parent directory `noid_<synonym>`.
    pub synonym: String,
    /// The repertoire of the check character: `e` for every `d`/`e` mask ending in
    /// `k` (Perl's rule), the one [`check_repertoire`] picks for an extended mask,
    /// `None` without `k` and for LUIs, whose checksum is their own.
    pub check: Option<Repertoire>,
    /// For a `luiN[-W]` template, its shape; `mask` is then `luiN[-W]`.
    pub lui: Option<LuiShape>,
}

/// Perl's `\s` on byte strings: ASCII whitespace including vertical tab.
fn is_perl_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

/// Perl's `\w` on byte strings (no Unicode rules for command-line arguments).
fn is_perl_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Returns the final path component Perl's `m|^(.*/)?([^/]+)$|` would capture, or ""
/// when the pattern does not match. The directory part can only be skipped if it has
/// no newline, because `.` does not match `\n`.
fn last_component(t: &str) -> &str {
    match t.rfind('/') {
        None => t,
        Some(i) if t[..i].contains('\n') => "",
        Some(i) => &t[i + 1..],
    }
}

/// Parses a template exactly as Perl Noid 0.424's `parse_template` does (spec §2.2).
///
/// Anything after the first run of word characters following the `.` is ignored, so
/// `x.sdd-foo` parses like `x.sdd`. A leading directory (`dir/f5.rdd`) is dropped.
pub fn parse_template(t: &str) -> Result<Template, TemplateError> {
    // `$template ||= ""`: Perl treats "0" as false too.
    let given = if t == "0" { "" } else { t };
    let stripped =
        given.trim_end_matches(|c: char| c == '/' || (c.is_ascii() && is_perl_space(c as u8)));
    let rest = last_component(stripped);
    if rest.is_empty() || rest == "0" || rest == "-" {
        return Err(TemplateError::NoMinting);
    }
    if let Some(t) = parse_lui(t, rest)? {
        return Ok(t);
    }
    let dot = rest.find('.').ok_or(TemplateError::NoMask)?;
    let prefix = &rest[..dot];
    let after = &rest.as_bytes()[dot + 1..];
    let mask_len = after.iter().take_while(|b| is_perl_word(**b)).count();
    if mask_len == 0 {
        return Err(TemplateError::NoMask);
    }
    let mask = &rest[dot + 1..dot + 1 + mask_len];
    let mb = mask.as_bytes();

    if !matches!(mb[0], b'r' | b's' | b'z') {
        return Err(TemplateError::BadGenerator);
    }
    // /^.[^k]+k?$/
    let body = mb[1..].strip_suffix(b"k").unwrap_or(&mb[1..]);
    if body.is_empty() || body.contains(&b'k') {
        return Err(TemplateError::BadCheckCharPosition);
    }
    // Perl: /^.[de]+k?$/; beyond Perl, the extended repertoires too.
    let positions = body
        .iter()
        .map(|b| Repertoire::from_mask_char(*b))
        .collect::<Option<Vec<Repertoire>>>()
        .ok_or(TemplateError::BadMaskChar)?;
    let has_checkchar = mb.ends_with(b"k");
    let check = check_of(prefix, &positions, has_checkchar)?;

    let unlimited = mb[0] == b'z';
    let mut synonym = format!("{}{}", prefix, mask.len() - 1);
    if unlimited {
        synonym.push('+');
    }
    let total = if unlimited {
        NOLIMIT
    } else {
        positions
            .iter()
            .try_fold(1i64, |acc, r| acc.checked_mul(r.radix() as i64))
            .ok_or(TemplateError::TooLarge)?
    };
    Ok(Template {
        template: t.to_string(),
        prefix: prefix.to_string(),
        mask: mask.to_string(),
        gen_type: if mb[0] == b'r' {
            GenType::Random
        } else {
            GenType::Sequential
        },
        total,
        has_checkchar,
        synonym,
        check,
        lui: None,
    })
}

/// The repertoire of a template's check character (`None` without one): `e` for a
/// `d`/`e` mask, whose prefix must then be extended digits and `/` as Perl requires,
/// and the one [`check_repertoire`] picks for an extended mask.
pub fn check_of(
    prefix: &str,
    positions: &[Repertoire],
    has_checkchar: bool,
) -> Result<Option<Repertoire>, TemplateError> {
    if !has_checkchar {
        return Ok(None);
    }
    if positions.iter().all(|r| r.is_perl()) {
        if !prefix.bytes().all(|b| b == b'/' || is_xdigit(b)) {
            return Err(TemplateError::BadPrefixForCheckChar);
        }
        return Ok(Some(Repertoire::Betanumeric));
    }
    check_repertoire(prefix, positions)
        .map(Some)
        .ok_or(TemplateError::NoCheckRepertoire)
}

/// Recognises `[PREFIX.]luiN[-W]` (after Perl's whitespace and directory stripping),
/// which Perl Noid rejects in any case (no `.`, or a mask not starting with `r`, `s`
/// or `z`), so no Perl template changes meaning. `Ok(None)`: not a LUI template.
fn parse_lui(given: &str, rest: &str) -> Result<Option<Template>, TemplateError> {
    let (prefix, mask) = match rest.rsplit_once('.') {
        Some((p, m)) if !p.contains('.') => (p, m),
        Some(_) => return Ok(None),
        None => ("", rest),
    };
    let Some(shape) = mask
        .strip_prefix("lui")
        .filter(|s| s.starts_with(|c: char| c.is_ascii_digit()))
    else {
        return Ok(None);
    };
    let shape = LuiShape::parse(shape).ok_or(TemplateError::BadLui)?;
    Ok(Some(Template {
        template: given.to_string(),
        prefix: prefix.to_string(),
        mask: mask.to_string(),
        gen_type: GenType::Random,
        total: shape.total() as i64,
        has_checkchar: true,
        synonym: format!("{prefix}{}", shape.length),
        check: None,
        lui: Some(shape),
    }))
}

impl Template {
    /// True for `z` masks, which never run out.
    pub fn is_unlimited(&self) -> bool {
        self.total == NOLIMIT
    }

    /// The width dbcreate stores as `:/padwidth`: queue keys zero-pad identifiers to
    /// it so that the "lvf" entries sort by value. 16 extra characters leave room for
    /// `z` growth, 2 otherwise.
    pub fn padwidth(&self) -> usize {
        (if self.is_unlimited() { 16 } else { 2 }) + self.mask.len()
    }

    /// True when the mask uses the `c` repertoire, whose characters include some that
    /// an ARK or a URL must escape (`"`, `<`, `>`, `#`, `?` …).
    pub fn needs_escaping(&self) -> bool {
        self.lui.is_none()
            && self
                .mask
                .bytes()
                .skip(1)
                .filter_map(Repertoire::from_mask_char)
                .any(Repertoire::needs_escaping)
    }

    /// The template a bounded minter continues with when its namespace is used up and
    /// it is configured to grow by `n` characters (EggNog's `addN`, spec-binder-api §4):
    /// the first `n` mask characters after the generator letter are repeated (all of
    /// them as one when the mask has fewer), so `f5.reedk` grows to `f5.reedeedk`; a
    /// LUI template grows by `n` base32 digits. Every identifier of the grown template
    /// is longer than any of the old one, so none can come again.
    pub fn grown(&self, n: usize) -> Result<Template, TemplateError> {
        let grown = match &self.lui {
            Some(shape) => shape.grown(n).ok_or(TemplateError::BadLui)?.mask(),
            None => {
                let (generator, rest) = self.mask.split_at(1);
                let body = rest.strip_suffix('k').unwrap_or(rest);
                let n = if body.len() < n { 1 } else { n };
                format!("{generator}{}{rest}", &body[..n])
            }
        };
        let dot = if self.prefix.is_empty() && self.lui.is_some() {
            ""
        } else {
            "."
        };
        parse_template(&format!("{}{dot}{grown}", self.prefix))
    }

    /// The seven-letter durability summary dbcreate stores as `:/properties`; each
    /// position holds its letter of "GRANITE" or `-` (spec §5, "Properties").
    ///
    /// `genonly` is false only for a minter created without a template (bind-only,
    /// where the stored template is `.zd`); several properties then cannot be claimed
    /// because arbitrary identifiers may be bound.
    pub fn properties(&self, naan: &str, longterm: bool, genonly: bool) -> String {
        let mut p = String::with_capacity(7);
        let flag = |p: &mut String, on: bool, letter: char| p.push(if on { letter } else { '-' });

        // G: globally unique only under a real registered NAAN.
        flag(&mut p, !naan.is_empty() && naan != "00000", 'G');
        // R: randomly sequenced.
        flag(&mut p, self.gen_type == GenType::Random, 'R');
        // A: no run of three alphabetic positions, so no accidental acronyms. Letters
        // of the prefix and every `e`/`k` position count as alphabetic, and a `z`
        // mask is treated as if it could grow by three more `e` positions.
        let pre: String = self
            .prefix
            .chars()
            .map(|c| if c.is_ascii_alphabetic() { 'e' } else { c })
            .collect();
        // Every extended mask character may be a letter, so it counts as `e`; a LUI
        // may have runs of letters of any length.
        let mut m: String = self
            .mask
            .chars()
            .map(|c| if "rszd".contains(c) { c } else { 'e' })
            .collect();
        if self.lui.is_some() {
            m = "eeee".to_string();
        }
        if let Some(rest) = m.strip_prefix("ze") {
            m = format!("zeeee{rest}");
        }
        let m = m.get(1..).unwrap_or("");
        flag(&mut p, genonly && !format!("{pre}{m}").contains("eee"), 'A');
        // N: non-reassignable, promised only by the "long" term.
        flag(&mut p, longterm, 'N');
        // I: impression safe unless the prefix has a hyphen a typesetter could eat.
        flag(&mut p, genonly && !self.prefix.contains('-'), 'I');
        // T: transcription safe thanks to the check character.
        flag(&mut p, self.has_checkchar, 'T');
        // E: elided of vowels; a bind-only minter may hold anything, so it claims E.
        // Perl's rule (any mask character but `rszdek` loses it) keeps `d`/`e`
        // minters' summaries; extended repertoires without vowels (`i`, `E`) keep it.
        let vowels = self.prefix.chars().any(|c| "aeiouyAEIOUY".contains(c));
        let odd_mask = match self.lui {
            Some(_) => true, // Crockford base32 has `a` and `e`.
            None => self.mask.bytes().skip(1).any(|c| {
                c != b'k' && Repertoire::from_mask_char(c).is_none_or(Repertoire::has_vowels)
            }),
        };
        flag(&mut p, !(genonly && (vowels || odd_mask)), 'E');
        p
    }
}

/// Formats a number with commas between groups of three digits, as Perl Noid's
/// `human_num` does for reports (`70728100` → `70,728,100`). Like the Perl regex,
/// which is anchored on a leading digit, negative numbers are left without commas.
pub fn human_num(n: i64) -> String {
    let digits = n.to_string();
    if n < 0 {
        return digits;
    }
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests;
