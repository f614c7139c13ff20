//! The search query language (noid-search's `query`, issue 44): every input is parsed
//! or refused with a message, never a panic, and a parsed query prints as text that
//! parses back to the same query.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_search::Query;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.parse::<Query>() {
        Ok(q) => {
            let printed = q.to_string();
            let again: Query = printed
                .parse()
                .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, refused: {e}"));
            assert_eq!(again, q, "{text:?} printed as {printed:?}");
        }
        Err(e) => assert!(!e.to_string().is_empty(), "{text:?}: a refusal without a message"),
    }
});
