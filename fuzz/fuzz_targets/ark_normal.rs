//! The ARK normal form (draft-kunze-ark-43 §3; issue 47): normalising twice changes
//! nothing, in the resolver's normaliser (`noid_core::normalize`) and at the identifier
//! gate (`noid_core::spelling`), and every spelling the draft calls equivalent reaches
//! the same key: the gate stores each under one spelling, and each resolves to the
//! target bound under it. From the input: any text, which must normalise idempotently;
//! and an ARK built from it (NAAN, identifier part) whose spellings (label form and
//! case, NAAN case, `%xx` case, a hyphen or an en dash inserted, pasted white space, a
//! final `/`) must all give its normal form, its stored key and its target.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_core::normalize::{ark, with_slashes_collapsed, without_final_structure};
use noid_core::spelling::{canonical, Canon};
use noid_core::MemLookup;
use noid_resolve::{Answer, Request, Resolver, Rules};

/// Characters an identifier part is built of: word characters, separators, `%`.
const PART: &[u8] = b"abXY09~_/.%7eEf";
/// NAAN characters (digits and betanumeric letters, both cases).
const NAAN: &[u8] = b"0123456789bBcdfgkz";

fuzz_target!(|data: &[u8]| {
    let binder = Canon::Ark { naans: Vec::new() };
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(n) = ark(text) {
            assert_eq!(ark(&n).as_deref(), Some(n.as_str()), "{text:?}");
        }
        if let Ok(stored) = canonical(text, &binder) {
            let again = canonical(&stored, &binder).expect("a stored spelling");
            assert_eq!(again, stored, "{text:?}");
        }
        for respell in [without_final_structure, with_slashes_collapsed] {
            if let Some(once) = respell(text) {
                assert_eq!(respell(&once), None, "{text:?} gave {once:?}");
            }
        }
    }
    let (Some(&how), Some(naan), Some(rest)) = (data.first(), data.get(1..6), data.get(6..)) else {
        return;
    };
    let naan: String = naan.iter().map(|b| char::from(NAAN[usize::from(*b) % NAAN.len()])).collect();
    let mut part: String = rest.iter().take(24).map(|b| char::from(PART[usize::from(*b) % PART.len()])).collect();
    // A `%` is followed by two hex digits, as in a well-formed ARK; the part starts and
    // ends with a word character and holds no `//` (a final `/` or `.` is ignored, and
    // `//` collapses: other spellings of a shorter ARK).
    part = part.replace('%', "%7e");
    while part.contains("//") {
        part = part.replace("//", "/");
    }
    if !part.ends_with(|c: char| c.is_ascii_alphanumeric()) {
        part.push('x');
    }
    if !part.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        part.insert(0, 'a');
    }
    let base = format!("ark:/{naan}/{part}");
    let normal = ark(&base).expect("an ARK");
    let stored = canonical(&base, &binder).expect("a storable ARK").into_owned();
    // Spellings the draft calls equivalent.
    let label = if how & 1 == 0 { "ark:/" } else { "ARK:" };
    let naan_case = if how & 2 == 0 { naan.clone() } else { naan.to_ascii_uppercase() };
    let pct = if how & 4 == 0 { part.clone() } else { part.replace("%7e", "%7E") };
    // A hyphen anywhere but inside a `%XX`.
    let at = usize::from(how >> 3) % (pct.len() + 1);
    let inside = |i: usize| pct[..i].ends_with('%') || pct[..i.saturating_sub(1)].ends_with('%');
    let at = (0..=at).rev().find(|&i| !inside(i)).unwrap_or(0);
    let hyphenated = format!("{}-{}", &pct[..at], &pct[at..]);
    let spellings = [
        format!("{label}{naan_case}/{pct}"),
        format!("{label}{naan_case}/{hyphenated}"),
        format!("ark:{naan}/{}", hyphenated.replace('-', "\u{2013}")),
    ];
    let l = MemLookup::new();
    l.bind(&stored, "_t", "https://example.org/t");
    let resolver = Resolver::new(Rules::empty());
    let target = Answer::Redirect { code: 302, target: "https://example.org/t".into() };
    for s in &spellings {
        assert_eq!(ark(s).as_ref(), Some(&normal), "{s:?} of {base:?}");
        assert_eq!(canonical(s, &binder).expect("storable"), stored, "{s:?} stored");
        let pasted = format!("{} {}", &s[..5], &s[5..]);
        let slashed = format!("{s}/");
        for asked in [s, &pasted, &slashed] {
            let answer = resolver.resolve(&l, &Request::new(asked)).expect("a memory lookup");
            assert_eq!(answer, target, "{asked:?} with {stored:?} bound");
        }
    }
});
