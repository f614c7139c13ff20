//! The prefix registry file (`noidr --registry`): any text parses or gives an error
//! naming a line of it; what parses is written in canonical form, which parses again
//! and writes the same text; resolution with the registry never panics. The input is
//! the registry text, a NUL, then identifiers one per line.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use noid_core::MemLookup;
use noid_resolve::{Registry, Request, Resolver, Rules};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (reg, ids) = text
        .split_once('\0')
        .unwrap_or((text, "pdb:2gc4\n*/pdb:2gc4\nark:/99999\nark:99999/fk4x"));
    let registry = match Registry::parse(reg) {
        Ok(r) => r,
        Err(e) => {
            assert!(e.line >= 1 && e.line <= reg.lines().count().max(1), "{e}");
            return;
        }
    };
    let canonical = registry.to_text();
    let again = Registry::parse(&canonical).expect("the canonical text parses");
    assert_eq!(again.to_text(), canonical, "writing is stable");
    let registry = Arc::new(registry);
    for slot in 0..2 {
        registry.set_healthy(slot, false);
    }
    let resolver = Resolver::with_registry(Rules::empty(), registry);
    let store = MemLookup::new();
    for id in ids.lines().take(16) {
        let _ = resolver.resolve(&store, &Request::new(id));
    }
});
