//! The prefix registry file (`noidr --registry`): any text parses or gives an error
//! naming a line of it; what parses is written in canonical form, which parses again
//! and writes the same text; resolution with the registry never panics. The input is
//! the registry text, a NUL, then identifiers one per line.
//!
//! Beyond "no panic": answers do not depend on the order of the records. The parsed
//! records, written one by one and put in an order drawn from the input (a Fisher-Yates
//! shuffle seeded by its bytes), parse into a registry whose canonical text and whose
//! every answer (the same providers marked down) are those of the file as given (a
//! record's `line`, where it starts in its file, which only error messages name, aside).
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use noid_core::MemLookup;
use noid_resolve::registry::record_text;
use noid_resolve::{Registry, Request, Resolver, Rules};

/// A small generator (SplitMix64) seeded by the input: the same input, the same order.
struct Draw(u64);

impl Draw {
    fn seeded(data: &[u8]) -> Draw {
        Draw(data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }))
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The registry's records, each written alone, in an order drawn from `data`, as one
/// file (records separated by blank lines).
fn shuffled(registry: &Registry, data: &[u8]) -> String {
    let mut records: Vec<String> = registry
        .records()
        .iter()
        .map(|r| {
            let mut text = String::new();
            record_text(r, &mut text);
            text
        })
        .collect();
    let mut draw = Draw::seeded(data);
    for i in (1..records.len()).rev() {
        records.swap(i, draw.below(i + 1));
    }
    records.join("\n")
}

/// Every answer for `ids` with the first two providers marked down, each record's
/// `line` (its place in the file) left out.
fn answers(registry: Registry, ids: &str) -> Vec<String> {
    thread_local! {
        static LINE: regex::Regex = regex::Regex::new(r"\bline: [0-9]+").unwrap();
    }
    let registry = Arc::new(registry);
    for slot in 0..2 {
        registry.set_healthy(slot, false);
    }
    let resolver = Resolver::with_registry(Rules::empty(), registry);
    let store = MemLookup::new();
    ids.lines()
        .take(16)
        .map(|id| {
            let answer = format!("{:?}", resolver.resolve(&store, &Request::new(id)));
            LINE.with(|line| line.replace_all(&answer, "line: _").into_owned())
        })
        .collect()
}

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
    let reordered = Registry::parse(&shuffled(&registry, data))
        .unwrap_or_else(|e| panic!("the records in another order do not parse: {e}"));
    assert_eq!(
        reordered.to_text(),
        canonical,
        "the records in another order read otherwise"
    );
    assert_eq!(
        answers(reordered, ids),
        answers(registry, ids),
        "the records in another order answer otherwise"
    );
});
