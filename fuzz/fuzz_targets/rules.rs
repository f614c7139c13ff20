//! The rules file (`noidr --rules`): any text parses or gives an error; a parsed table
//! resolves identifiers without panicking. The input is the rules text, a NUL, then
//! identifiers one per line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_core::MemLookup;
use noid_resolve::{Request, Resolver, Rules};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (rules, ids) = text
        .split_once('\0')
        .unwrap_or((text, "doi:10.1/x\nark:/13030/a"));
    let Ok(rules) = Rules::parse(rules) else {
        return;
    };
    let resolver = Resolver::new(rules);
    let store = MemLookup::new();
    for id in ids.lines().take(16) {
        let _ = resolver.resolve(&store, &Request::new(id));
    }
});
