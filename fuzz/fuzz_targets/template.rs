//! The template parser (`dbcreate`'s `PREFIX.MASK`): any string is a template or an
//! error; a template's properties text and its first identifiers never panic. Beyond
//! "no panic": a template that parses is accepted by `dbcreate` (medium term, no
//! NAAN), whose creation record states the namespace's size (`Size:` and the `what:`
//! line) as the template's total; on a small namespace (at most 4096 identifiers) the
//! minter made from `dbcreate`'s keys mints exactly that many identifiers, every one
//! distinct, and then stops.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use noid_core::keys;
use noid_core::MemLookup;
use noid_minter::create::{dbcreate, CreateArgs};
use noid_minter::Minter;
use noid_template::generator::n2xdig;
use noid_template::template::parse_template;

/// The largest namespace minted to its end.
const SMALL: i64 = 4096;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(t) = parse_template(text) else {
        return;
    };
    let _ = t.properties("13030", true, false);
    let _ = t.is_unlimited();
    let _ = t.padwidth();
    if let Some((_, mask)) = text.split_once('.') {
        for n in [0, 1, 9, 10, 28, 29, 1000, u64::MAX / 2] {
            let _ = n2xdig(n, mask);
        }
    }
    let created = dbcreate(&CreateArgs {
        template: Some(text),
        term: None,
        naan: None,
        naa: None,
        subnaa: None,
        contact: "fuzz",
        when: "20260101000000",
        where_: "host:/fuzz",
        dbdir_display: ".",
        samples: (12_345, 67_890),
        atlast: None,
        lui_key: [7; 16],
    })
    .unwrap_or_else(|e| panic!("{text:?} parses but dbcreate refuses it: {e}"));
    let size = if t.total < 0 {
        "unlimited".to_string()
    } else {
        t.total.to_string()
    };
    assert!(
        created.readme.contains(&format!("\nSize:      {size}\n")),
        "{text:?}: total {}, but the creation record says\n{}",
        t.total,
        created.readme
    );
    assert!(
        created.readme.contains(&format!(
            "\nwhat:      {size} {} identifiers of form ",
            t.gen_type.as_str()
        )),
        "{text:?}: {}",
        created.readme
    );
    if !(0..=SMALL).contains(&t.total) {
        return;
    }
    let store = MemLookup::new();
    for (k, v) in &created.keys {
        store.insert(keys::admin(k), v.as_bytes());
    }
    let minter = Minter::load(&store).expect("dbcreate's keys load");
    let mut gen = minter.gen.clone();
    let mut body = String::new();
    let mut seen = HashSet::new();
    while let Ok(id) = minter.candidates().next(&mut gen, &mut body) {
        assert!(seen.insert(id.clone()), "{text:?}: {id} minted twice");
        assert!(
            seen.len() as i64 <= t.total,
            "{text:?}: more than {} identifiers",
            t.total
        );
    }
    assert_eq!(
        seen.len() as i64,
        t.total,
        "{text:?}: the generator stopped early"
    );
});
