//! The HTTP request path of `noidr --http`: any request-target splits into a route and
//! an identifier (decoded once) or is refused; an identifier never holds CR, LF or NUL
//! (it would split the resolver's answer or a header).
//!
//! Beyond "no panic", the round trip a browser makes: the input, typed into the front
//! page's box (sent as a form value, every byte `%HH`), is sent to the path
//! `front::target` encodes, and that path splits into the very identifier typed, with
//! `?info` kept as the query when asked for. Decoding happens once: the encoded path,
//! typed into the box in turn, comes back as that encoded text, not as the identifier.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_http::route::{identifier, split, Route};

/// A form value as a browser may send it: every byte `%HH` (a `+` too, which a form
/// reads as a space).
fn form_encoded(value: &str) -> String {
    value.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// The identifier the path the box sends `typed` to (`?info` with `info`) resolves,
/// and the path's encoded identifier; `None` when the box names no identifier.
fn through_the_box(typed: &str, info: bool) -> Option<(Option<String>, String)> {
    let go = if info { "info" } else { "resolve" };
    let to = noid_http::front_page_target(&format!("id={}&go={go}", form_encoded(typed)))?;
    let (path, query) = match to.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (to.as_str(), None),
    };
    assert_eq!(
        query,
        info.then_some("info"),
        "{typed:?} was sent to {to:?}"
    );
    let (route, encoded) =
        split(path).unwrap_or_else(|| panic!("{typed:?}: the box's {to:?} has no route"));
    assert!(
        matches!(route, Route::Direct | Route::Redirect),
        "{typed:?}: the box's {to:?} is the route {route:?}, not an identifier's"
    );
    let id = identifier(encoded, query).map(|id| id.into_owned());
    Some((id, encoded.to_string()))
}

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

    // The box trims what is typed and drops leading slashes (front::target's doc), and
    // a pasted ARK's inner white space (the ARK draft's §3.1, rule 5).
    let trimmed = target.trim().trim_start_matches('/');
    let unspaced = noid_core::normalize::without_pasted_space(trimmed);
    let expected = unspaced.as_deref().unwrap_or(trimmed);
    if expected.contains(['\r', '\n', '\0']) {
        return;
    }
    for info in [false, true] {
        let Some((id, encoded)) = through_the_box(target, info) else {
            assert!(expected.is_empty(), "{target:?} typed named no identifier");
            return;
        };
        let expected = if info {
            format!("{expected}?info")
        } else {
            expected.to_string()
        };
        assert_eq!(id.as_deref(), Some(expected.as_str()), "{target:?} typed");
        // The encoded path typed in turn: decoded once, it is that text again.
        let typed_again = encoded.trim_start_matches('/');
        if !info && !typed_again.is_empty() {
            let (again, _) = through_the_box(typed_again, false).expect("a typed identifier");
            assert_eq!(
                again.as_deref(),
                Some(typed_again),
                "{encoded:?} (the encoded {target:?}) typed: decoded more than once"
            );
        }
    }
});
