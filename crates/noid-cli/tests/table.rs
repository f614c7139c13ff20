//! The spec's case list (`crates/noid-egg/tests/cases/table.rs`, from
//! `../shared/spec-binder-api.md` §6) through the `noid` binary and through a real
//! `noid serve`: each case from an empty binder, its setup lines one by one, then its
//! command (a bulk case's input through `noid -` or a `?-` POST).

#[allow(dead_code)]
mod cases {
    include!("../../noid-egg/tests/cases/table.rs");
}

use cases::{expected, placeholders, CASES};

use crate::util::Dir;

#[test]
fn spec_cases_through_the_noid_binary() {
    let mut ran = 0;
    for case in CASES.iter().filter(|c| c.cli) {
        let d = Dir::minter(&[]);
        let binder = d.path().display().to_string();
        let Some(want) = expected(case, false, &binder) else {
            continue;
        };
        if !case.setup.is_empty() {
            let input = case.setup.join("\n") + "\n";
            let r = d.noid_stdin(&["-"], input.as_bytes());
            assert_eq!(r.code, 0, "case {} setup: {r:?}", case.name);
        }
        let r = if case.bulk {
            d.noid_stdin(&["-"], case.command.as_bytes())
        } else {
            let words = noid_egg::token::split(case.command).unwrap();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            d.noid(&words)
        };
        assert_eq!(
            (placeholders(&r.stdout), r.code),
            (want, i32::from(case.failed)),
            "case {}: {r:?}",
            case.name
        );
        ran += 1;
    }
    assert_eq!(
        ran,
        CASES.iter().filter(|c| c.cli && c.plain.is_some()).count()
    );
}
