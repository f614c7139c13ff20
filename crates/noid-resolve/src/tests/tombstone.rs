//! Withdrawn identifiers (`_t` = `410 TEXT`): the tombstone answer, and the egg line,
//! which stays `redir410 TEXT`.

use super::{check, check_rules, resolve};
use crate::{Answer, Request, Resolver, Rules};
use noid_core::MemLookup;

fn resolve_rule(id: &str) -> Answer {
    let r = Resolver::new(Rules::parse("ark:/99999 410 https://e.org/gone").unwrap());
    r.resolve(&MemLookup::new(), &Request::new(id)).unwrap()
}

fn b(n: &str, v: &str) -> (String, Vec<u8>) {
    (n.to_owned(), v.as_bytes().to_vec())
}

const GONE: [(&str, &str, &str); 4] = [
    ("ark:/12345/x", "_t", "410 withdrawn in 2024"),
    ("ark:/12345/x", "successor", "ark:/12345/y"),
    ("ark:/12345/x", "who", "W"),
    ("ark:/12345/x", ":/m", "1700000000"),
];

#[test]
fn a_withdrawn_id_is_a_tombstone_naming_its_successor() {
    assert_eq!(
        resolve(&GONE, Request::new("ark:/12345/x")),
        Answer::Tombstone {
            id: "ark:/12345/x".into(),
            text: "withdrawn in 2024".into(),
            successor: Some("ark:/12345/y".into()),
            bindings: vec![
                b("who", "W"),
                b("where", "ark:/12345/x"),
                b("_t", "410 withdrawn in 2024"),
                b("successor", "ark:/12345/y"),
            ],
        }
    );
    // The egg line is the one every 410 gets.
    check(&GONE, "ark:/12345/x.resolve", "redir410 withdrawn in 2024");
    // Another spelling finds the same tombstone.
    check(&GONE, "ARK:12345/x.resolve", "redir410 withdrawn in 2024");
}

#[test]
fn descendants_of_a_withdrawn_id_are_gone_too() {
    let a = resolve(&GONE, Request::new("ark:/12345/x/page2"));
    let Answer::Tombstone { id, text, .. } = a else {
        panic!("{a:?}")
    };
    assert_eq!(
        (id.as_str(), text.as_str()),
        ("ark:/12345/x", "withdrawn in 2024/page2")
    );
    check(
        &GONE,
        "ark:/12345/x/page2.resolve",
        "redir410 withdrawn in 2024/page2",
    );
}

#[test]
fn no_successor_and_no_text() {
    let bs = [
        ("ark:/12345/z", "_t", "410 "),
        ("ark:/12345/z", "successor", " "),
    ];
    assert_eq!(
        resolve(&bs, Request::new("ark:/12345/z")),
        Answer::Tombstone {
            id: "ark:/12345/z".into(),
            text: String::new(),
            successor: None,
            bindings: vec![
                b("where", "ark:/12345/z"),
                b("_t", "410 "),
                b("successor", " ")
            ],
        }
    );
    check(&bs, "ark:/12345/z.resolve", "redir410 ");
}

#[test]
fn inflections_and_bound_conneg_targets_still_apply() {
    let a = resolve(&GONE, Request::new("ark:/12345/x?"));
    assert!(matches!(a, Answer::Inflection { .. }), "{a:?}");
    let json = Request {
        accept: Some("application/json"),
        ..Request::new("ark:/12345/x")
    };
    // The resolver's own metadata for a withdrawn id is its tombstone ...
    assert!(
        matches!(resolve(&GONE, json), Answer::Tombstone { .. }),
        "conneg"
    );
    // ... but a bound `_,eTm,` target is still a 303.
    let mut bs = GONE.to_vec();
    bs.push((
        "ark:/12345/x",
        "_,eTm,application/json",
        "https://e.org/x.json",
    ));
    assert_eq!(
        resolve(&bs, json),
        Answer::Redirect {
            code: 303,
            target: "https://e.org/x.json".into()
        }
    );
}

#[test]
fn not_tombstones() {
    // A rule's 410 is not an identifier's: a plain 410.
    let r = resolve_rule("ark:/99999/q");
    assert_eq!(
        r,
        Answer::Redirect {
            code: 410,
            target: "https://e.org/gone/q".into()
        }
    );
    check_rules(
        &[],
        "ark:/99999 410 https://e.org/gone",
        "ark:/99999/q.resolve",
        "redir410 https://e.org/gone/q",
    );
    assert_eq!(
        resolve(&[("X", "_t", "410")], Request::new("X")),
        Answer::Redirect {
            code: 302,
            target: "410".into()
        }
    );
    let a = resolve(&[("X", "_t", "410 a\n410 b")], Request::new("X"));
    assert!(matches!(a, Answer::Multi { .. }), "{a:?}");
    let a = resolve(&[("X", "_t", "404 not here")], Request::new("X"));
    assert!(matches!(a, Answer::Redirect { code: 404, .. }), "{a:?}");
}
