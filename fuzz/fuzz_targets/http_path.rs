//! The HTTP request path of `noidr --http`: any request-target splits into a route and
//! an identifier (decoded once) or is refused; an identifier never holds CR, LF or NUL
//! (it would split the resolver's answer or a header).
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_http::route::{identifier, split};

fuzz_target!(|data: &[u8]| {
    let Ok(target) = std::str::from_utf8(data) else {
        return;
    };
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    if let Some((_, rest)) = split(path) {
        if let Some(id) = identifier(rest, query) {
            assert!(
                !id.contains(['\r', '\n', '\0']),
                "{target:?} gave the identifier {id:?}"
            );
        }
    }
});
