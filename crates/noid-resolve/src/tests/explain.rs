//! `Resolver::explain`: the steps of docs/RESOLUTION.md's request kinds, in words, with
//! the answer every other resolution gives (the expected words are the ones written in
//! `By::says` and the steps' notes; the answers are the table's).

use super::store;
use crate::{Request, Resolver, Rules, StepKind};

fn steps(e: &crate::Explanation) -> Vec<(StepKind, &str)> {
    e.steps.iter().map(|s| (s.kind, s.says.as_str())).collect()
}

#[test]
fn a_chop_back_names_the_ancestor_the_rest_and_the_redirect() {
    let l = store(&[("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/")]);
    let r = Resolver::new(Rules::empty());
    let e = r
        .explain(&l, &Request::new("ark:/12345/xt2rv8b/chap3"))
        .unwrap();
    assert_eq!(
        steps(&e),
        [
            (
                StepKind::Found,
                "chopped back to the longest bound ancestor: ark:/12345/xt2, the rest \"rv8b/chap3\" passed on (_t = \"http://obj.example.com/datasets/\")"
            ),
            (
                StepKind::Decided,
                "redirect 302 to http://obj.example.com/datasets/rv8b/chap3"
            ),
        ]
    );
    assert_eq!(
        e.line,
        "redir302 http://obj.example.com/datasets/rv8b/chap3"
    );
    assert_eq!(
        e.answer,
        r.resolve(&l, &Request::new("ark:/12345/xt2rv8b/chap3"))
            .unwrap()
    );
    let (id, standing) = e.bound.as_ref().unwrap();
    assert_eq!(id, "ark:/12345/xt2");
    assert_eq!(standing.missing, ["who", "what", "when", "how"]);
    assert!(e.paths.contains(&(
        "Apache, mod_noid's NoidResolve",
        "302 to http://obj.example.com/datasets/rv8b/chap3, before the rules run".into()
    )));
}

#[test]
fn a_final_slash_a_miss_and_forwarding_say_so() {
    let l = store(&[("ark:/12345/x", "_t", "https://example.org/x")]);
    let r = Resolver::new(Rules::empty());
    let e = r.explain(&l, &Request::new("ark:/12345/x/")).unwrap();
    assert_eq!(
        steps(&e),
        [
            (
                StepKind::Respelled,
                "a final / or . of an ARK is ignored (the ARK draft, §3.1): ark:/12345/x"
            ),
            (
                StepKind::Found,
                "the identifier as asked for is bound: ark:/12345/x (_t = \"https://example.org/x\")"
            ),
            (StepKind::Decided, "redirect 302 to https://example.org/x"),
        ]
    );
    let e = r.explain(&l, &Request::new("ark:/12345/nope")).unwrap();
    assert_eq!(
        steps(&e),
        [(
            StepKind::Fallback,
            "nothing bound, and no rule, :idmap or forwarding applies: not found"
        )]
    );
    assert_eq!((e.line.as_str(), e.bound.is_none()), ("NULL", true));
    // The rules file's default: a NAAN not served here goes on to N2T.
    let r = Resolver::new(Rules::parse("").unwrap());
    let e = r.explain(&l, &Request::new("ark:/99999/nope")).unwrap();
    assert_eq!(
        steps(&e),
        [(
            StepKind::Fallback,
            "nothing bound and the NAAN is not served here: sent on to the global resolver, https://n2t.net/ark:/99999/nope"
        )]
    );
}

#[test]
fn a_rules_file_rule_and_a_tombstone_say_which() {
    let l = store(&[
        ("ark:/13030/gone", "_t", "410 withdrawn"),
        ("ark:/13030/gone", "successor", "ark:/13030/new"),
    ]);
    let r = Resolver::new(Rules::parse("ark:/12345/fk4 https://e.org/${blade}\n").unwrap());
    let e = r.explain(&l, &Request::new("ark:/12345/fk4abc")).unwrap();
    assert_eq!(
        steps(&e),
        [
            (
                StepKind::Found,
                "a rule of the rules file: ark:/12345/fk4, the rest \"abc\" passed on (_t = \"https://e.org/${blade}\")"
            ),
            (StepKind::Decided, "redirect 302 to https://e.org/abc"),
        ]
    );
    let e = r.explain(&l, &Request::new("ark:/13030/gone")).unwrap();
    assert_eq!(
        steps(&e)[1],
        (
            StepKind::Decided,
            "ark:/13030/gone is withdrawn (410): its tombstone names the successor ark:/13030/new"
        )
    );
    assert_eq!(e.line, "redir410 withdrawn");
}
