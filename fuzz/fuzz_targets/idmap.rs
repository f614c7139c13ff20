//! `:idmap` rules (a Perl regex pattern and a `$1`-style replacement, as bound by
//! `noid bind set :idmap/PATTERN ELEM REPLACEMENT`): compiling any pattern and applying
//! any replacement to any identifier gives a value, no match, or an error, never a
//! panic. Input: pattern, NUL, replacement, NUL, identifier.
//!
//! Beyond "no panic", Perl's `s/PATTERN/VALUE/` (one substitution):
//! * a rule that compiles matches exactly when its pattern does, and its value keeps
//!   the identifier's text before and after the first match as it was;
//! * it applies in linear time on a long input (the identifier repeated to 16 KiB),
//!   counted in steps, not wall time: the regex crate's matching is linear by
//!   construction (and the pattern's size is bounded when it compiles), and the
//!   expansion's steps are the bytes it writes, at most three per byte of the
//!   identifier (and of the element name) for each `$` of the replacement, plus three
//!   per byte of the replacement itself (three: a case change `\U` can triple a
//!   character's UTF-8 length). A replacement run once per match, or repeated, would
//!   write more.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_resolve::idmap::{compile_pattern, Rule};

/// The long input's length.
const LONG: usize = 16 * 1024;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let (Some(pattern), Some(replacement), Some(id)) = (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let Ok(pattern) = std::str::from_utf8(pattern) else {
        return;
    };
    let Ok(rule) = Rule::new(pattern, replacement) else {
        return;
    };
    // The same pattern, compiled as the resolver compiles it, says where the first
    // match is.
    let re = regex::bytes::Regex::new(compile_pattern(pattern).unwrap().as_str()).unwrap();
    let long: Vec<u8> = if id.is_empty() {
        Vec::new()
    } else {
        id.iter().copied().cycle().take(LONG).collect()
    };
    for hay in [id, &long[..]] {
        let elem = "_t";
        let got = rule.apply(hay, elem);
        let Some(m) = re.find(hay) else {
            assert_eq!(got, None, "{pattern:?} does not match, yet gives a value");
            continue;
        };
        let out = got.unwrap_or_else(|| panic!("{pattern:?} matches, yet gives no value"));
        let (before, after) = (&hay[..m.start()], &hay[m.end()..]);
        assert!(
            out.starts_with(before)
                && out.ends_with(after)
                && out.len() >= before.len() + after.len(),
            "{pattern:?}: the text around the first match is not kept"
        );
        let dollars = replacement.iter().filter(|&&b| b == b'$').count();
        let steps = out.len() - before.len() - after.len();
        let bound = 3 * (replacement.len() + dollars * (hay.len() + elem.len()));
        assert!(
            steps <= bound,
            "{pattern:?} / {:?}: {steps} steps on {} bytes, more than {bound}",
            String::from_utf8_lossy(replacement),
            hay.len()
        );
    }
});
