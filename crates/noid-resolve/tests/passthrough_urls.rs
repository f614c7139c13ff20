//! Property: whatever the request puts after an identifier, the redirect goes to the
//! stored target's host, as a browser reads the `Location`: the oracle is the `url`
//! crate's WHATWG URL parser (the standard browsers implement), not the resolver's own
//! reading. Suffixes are every sequence of up to three pieces: the characters that
//! delimit or alter an authority (`@ : / \ ? # % [ ]`, dots, fullwidth look-alikes,
//! TAB, space) and a few words.

use noid_core::MemLookup;
use noid_resolve::{Answer, Request, Resolver, Rules};
use url::Url;

/// Where a relative `Location` is resolved from: the resolver's own URL.
const RESOLVER: &str = "https://resolver.example/ark:/99999/x";

/// Stored targets: without a path, with a port or a user name, with a path, a query,
/// a trailing slash, a `${suffix}` at the end of the host, and relative ones.
const TARGETS: [&str; 10] = [
    "https://example.org",
    "http://example.org:8080",
    "https://user@example.org",
    "https://example.org/p",
    "https://example.org/",
    "https://example.org?a=",
    "https://example.org${suffix}",
    "https://example.org${suffix}/end",
    "/",
    "zaf",
];

/// (scheme, user name, host, port) as a browser reads `location` on the resolver's page.
fn origin(location: &str) -> Option<(String, String, Option<String>, Option<u16>)> {
    let base = Url::parse(RESOLVER).unwrap();
    let u = base.join(location).ok()?;
    Some((
        u.scheme().to_string(),
        u.username().to_string(),
        u.host_str().map(str::to_string),
        u.port_or_known_default(),
    ))
}

/// Pieces of suffixes: what delimits or alters an authority, and some text.
const PIECES: [&str; 22] = [
    "@", ".", ":", "/", "\\", "?", "#", "%", "%40", "%2F", "[", "]", "evil", "example", "8080",
    "a", "-", "．", "／", "＠", "\t", " ",
];

/// Every suffix of one to three pieces (22 + 22² + 22³ = 11,154).
fn suffixes() -> Vec<String> {
    let mut all: Vec<String> = PIECES.iter().map(|p| p.to_string()).collect();
    for _ in 0..2 {
        let longer: Vec<String> = all
            .iter()
            .filter(|s| s.len() < 24)
            .flat_map(|s| PIECES.iter().map(move |p| format!("{s}{p}")))
            .collect();
        all.extend(longer);
    }
    all.sort();
    all.dedup();
    all
}

fn resolve(target: &str, rules: &str, id: &str) -> Answer {
    let store = MemLookup::new();
    store.bind("ark:/99999/x", "_t", target);
    let r = Resolver::new(Rules::parse(rules).unwrap());
    r.resolve(&store, &Request::new(id)).unwrap()
}

#[test]
fn a_suffix_never_changes_the_targets_origin() {
    let suffixes = suffixes();
    for target in TARGETS {
        let stored = origin(&target.replace("${suffix}", "")).unwrap();
        let mut redirects = 0;
        for s in &suffixes {
            let id = format!("ark:/99999/x{s}");
            let Answer::Redirect {
                target: location, ..
            } = resolve(target, "", &id)
            else {
                continue;
            };
            redirects += 1;
            // A Location a browser cannot parse goes nowhere: no other host either.
            if let Some(got) = origin(&location) {
                assert_eq!(got, stored, "{target} + {s:?} -> {location}");
            }
        }
        // Chop-back found the id below most suffixes (all but those that glue onto
        // its last word, or are inflections).
        assert!(
            redirects > suffixes.len() / 2,
            "{target}: {redirects} redirects"
        );
    }
}

#[test]
fn a_blade_inside_a_host_stays_inside_it() {
    let rules = "ark:/99999/fk4 https://${blade}.example.org/";
    let mut redirects = 0;
    for s in suffixes() {
        let id = format!("ark:/99999/fk4a{s}");
        let Answer::Redirect {
            target: location, ..
        } = resolve("-", rules, &id)
        else {
            continue;
        };
        redirects += 1;
        if let Some((scheme, user, host, port)) = origin(&location) {
            assert_eq!(
                (scheme.as_str(), user.as_str(), port),
                ("https", "", Some(443))
            );
            let host = host.unwrap_or_default();
            assert!(host.ends_with(".example.org"), "{s:?} -> {location}");
        }
    }
    assert!(redirects > 10_000, "{redirects} redirects");
}

#[test]
fn a_prefix_extension_stays_in_the_first_host_label() {
    let mut redirects = 0;
    for s in suffixes() {
        // The extension runs from the NAAN's `-` to the next `/` (or the query's `?`).
        let id = format!("ark:/99999-{s}/x");
        let Answer::Redirect {
            target: location, ..
        } = resolve("https://a.b.org/p", "", &id)
        else {
            continue;
        };
        redirects += 1;
        if let Some((scheme, user, host, port)) = origin(&location) {
            assert_eq!(
                (scheme.as_str(), user.as_str(), port),
                ("https", "", Some(443))
            );
            let host = host.unwrap_or_default();
            assert!(host.ends_with(".b.org"), "{s:?} -> {location}");
        }
    }
    assert!(redirects > 1_000, "{redirects} redirects");
}
