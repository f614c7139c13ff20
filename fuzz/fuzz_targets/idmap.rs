//! `:idmap` rules (a Perl regex pattern and a `$1`-style replacement, as bound by
//! `noid bind set :idmap/PATTERN ELEM REPLACEMENT`): compiling any pattern and applying
//! any replacement to any identifier gives a value, no match, or an error, never a
//! panic. Input: pattern, NUL, replacement, NUL, identifier.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_resolve::idmap::Rule;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let (Some(pattern), Some(replacement), Some(id)) = (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let Ok(pattern) = std::str::from_utf8(pattern) else {
        return;
    };
    if let Ok(rule) = Rule::new(pattern, replacement) {
        let _ = rule.apply(id, "_t");
    }
});
