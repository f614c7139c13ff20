//! The rules file (`noidr --rules`): any text parses or gives an error; a parsed table
//! resolves identifiers without panicking. The input is the rules text, a NUL, then
//! identifiers one per line.
//!
//! Beyond "no panic", two invariants, chosen because each failure would be silent in
//! production:
//! * every rule of a file that parses is found both by the key written in the file
//!   and by that key's canonical form, with the target of the last line for that
//!   canonical key. The table is keyed by canonical form and every look-up
//!   canonicalises again, so a canonical form that is not its own canonical form
//!   (normalisation not idempotent) makes a rule unreachable by the spelling the
//!   resolver derives from a request: a dead rule, with no error anywhere;
//! * an identifier's answer does not depend on what was resolved before: each is
//!   resolved again in reverse order and must answer the same. One resolver serves
//!   every request of a `noidr` process, so state carried from one request to the next
//!   (a cache keyed too coarsely) would hand one client another's answer.
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use noid_core::MemLookup;
use noid_resolve::{Request, Resolver, Rules};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (rules_text, ids) = text
        .split_once('\0')
        .unwrap_or((text, "doi:10.1/x\nark:/13030/a"));
    let Ok(rules) = Rules::parse(rules_text) else {
        return;
    };
    // The rule lines, as the format reads them: KEY (with a colon) and TARGET.
    let mut last: HashMap<String, (&str, &str)> = HashMap::new();
    for line in rules_text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((key, target)) = line.split_once(char::is_whitespace) {
            if key.contains(':') {
                last.insert(Rules::canonical_key(key), (key, target.trim()));
            }
        }
    }
    assert_eq!(rules.len(), last.len(), "{rules_text:?}");
    for (canonical, (key, target)) in &last {
        assert_eq!(rules.get(key), Some(*target), "rule {key:?}");
        assert_eq!(
            rules.get(canonical),
            Some(*target),
            "rule {key:?}, by its canonical form {canonical:?} (canonical again: {:?})",
            Rules::canonical_key(canonical)
        );
    }
    let resolver = Resolver::new(rules);
    let store = MemLookup::new();
    let ids: Vec<&str> = ids.lines().take(16).collect();
    let first: Vec<_> = ids
        .iter()
        .map(|id| resolver.resolve(&store, &Request::new(id)))
        .collect();
    for (id, answer) in ids.iter().zip(&first).rev() {
        let again = resolver.resolve(&store, &Request::new(id));
        assert_eq!(
            format!("{again:?}"),
            format!("{answer:?}"),
            "{id:?} answers differently the second time"
        );
    }
});
