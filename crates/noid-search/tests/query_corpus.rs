//! The fuzz target `search_query`'s invariant over its kept inputs (fuzz/corpus and
//! fuzz/regressions), on the stable toolchain: every input is parsed or refused with a
//! message, and a parsed query prints as text that parses back to the same query.

use std::path::Path;

use noid_search::Query;

#[test]
fn kept_inputs_parse_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut seen = 0;
    for dir in ["corpus/search_query", "regressions/search_query"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            seen += 1;
            match text.parse::<Query>() {
                Ok(q) => {
                    let printed = q.to_string();
                    assert_eq!(
                        printed.parse::<Query>().as_ref(),
                        Ok(&q),
                        "{text:?} → {printed:?}"
                    );
                }
                Err(e) => assert!(!e.to_string().is_empty(), "{text:?}"),
            }
        }
    }
    assert!(seen >= 13, "the corpus is there ({seen} inputs)");
}
