//! The check analysed and repaired on minters built in memory, as dbcreate makes them
//! and as mint leaves them.

use super::*;
use noid_core::keys;
use noid_core::Lookup;
use noid_core::MemLookup;
use noid_minter::create::{dbcreate, CreateArgs};
use noid_minter::Minter;
use noid_template::generator::{assemble, GeneratorState};

/// A fresh minter in memory, as dbcreate makes it.
fn create(template: &str, term: &str) -> MemLookup {
    let long = term == "long";
    let c = dbcreate(&CreateArgs {
        template: Some(template),
        term: Some(term),
        naan: long.then_some("13030"),
        naa: long.then_some("cdlib.org"),
        subnaa: long.then_some("oac/cmp"),
        contact: "me/me",
        when: "20260101000000",
        where_: "host:/x",
        dbdir_display: ".",
        samples: (1, 2),
        atlast: None,
        lui_key: [0; 16],
    })
    .unwrap();
    let l = MemLookup::new();
    for (k, v) in c.keys {
        l.insert(keys::admin(&k), v);
    }
    l
}

fn census(l: &MemLookup) -> Census {
    let mut c = Census::of(l).unwrap();
    for (k, v) in l.scan_prefix(b"", usize::MAX).unwrap() {
        c.add(&k, &v);
    }
    c
}

/// Mint `n` identifiers the way Perl does on the generator path (no queue, no
/// holds in the way), recording circulation and, for long term, the hold.
fn mint(l: &MemLookup, n: usize) -> Vec<String> {
    let mut m = Minter::load(l).unwrap();
    let mask = m.compiled.clone().unwrap();
    let mut ids = Vec::new();
    for _ in 0..n {
        let mut body = String::new();
        m.gen
            .genid_into(&mask, m.gen_type, m.wrap, &mut body)
            .unwrap();
        let id = assemble(&m.firstpart, &body, m.addcheckchar);
        l.insert(
            keys::circ(&id),
            format!("i|20260101000000|me/me|{}", m.gen.oacounter),
        );
        if m.longterm {
            l.insert(keys::hold(&id), "1");
            m.held += 1;
        }
        ids.push(id);
    }
    save(l, &m.gen);
    l.insert(keys::admin("held"), m.held.to_string());
    ids
}

fn save(l: &MemLookup, g: &GeneratorState) {
    l.insert(keys::admin("oacounter"), g.oacounter.to_string());
    for (n, c) in g.counters.iter().enumerate() {
        l.insert(keys::admin(&format!("c{n}/value")), c.value.to_string());
    }
    l.insert(keys::admin("saclist"), g.saclist_string());
    l.insert(keys::admin("siclist"), g.siclist_string());
}

fn apply(l: &MemLookup, a: &Analysis) {
    for (k, v) in a.repair() {
        match v {
            Some(v) => l.insert(k, v),
            None => l.remove(k),
        }
    }
}

#[test]
fn a_healthy_minter() {
    let l = create("f5.reedeedk", "long");
    let ids = mint(&l, 3);
    assert_eq!(
        ids,
        ["13030/f54x54g11", "13030/f5154dn7k", "13030/f5wd3q12m"]
    );
    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    assert!(a.ok(), "{:?}", a.problems);
    assert_eq!(a.lines()[0], "template:    f5.reedeedk (random, long term)");
    assert_eq!(
        a.lines()[1],
        "minted:      :/oacounter 3; circulation records: 3 issued, 0 queued, 0 unqueued"
    );
    assert_eq!(a.lines()[2], "held:        3");
    assert_eq!(a.lines()[4], "left:        70728097");
    assert_eq!(
        a.lines()
            .iter()
            .filter(|l| l.starts_with("next:") && l.ends_with(" free"))
            .count(),
        10
    );
}

#[test]
fn an_outdated_minter_is_found_and_repaired() {
    let l = create(".rddd", "-");
    let before = Minter::load(&l).unwrap().gen;
    let ids = mint(&l, 5);
    assert_eq!(ids, ["169", "041", "913", "781", "653"]);
    // A backup of the generator state from before the mints is restored.
    save(&l, &before);
    l.insert("041\tnote", "bound elsewhere");
    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(a.problems.len(), 1, "{:?}", a.problems);
    assert!(
        a.problems[0]
            .finding
            .to_string()
            .starts_with("5 of the next 10 identifiers"),
        "{}",
        a.problems[0].finding
    );
    assert_eq!(
        a.problems[0]
            .repair
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("the generator skipped 5 identifiers (5 already used)")
    );
    assert_eq!(
        a.lines()[6],
        "next:        169 ALREADY ISSUED (circulation record i|20260101000000|me/me|1)"
    );
    apply(&l, &a);
    let again = analyze(&l, &census(&l), Options::default()).unwrap();
    assert!(again.ok(), "{:?}", again.problems);
    let mut m = Minter::load(&l).unwrap();
    assert_eq!(m.gen.oacounter, 5);
    let mut body = String::new();
    m.gen
        .genid_into(&m.compiled.clone().unwrap(), m.gen_type, false, &mut body)
        .unwrap();
    assert_eq!(body, "525");
}

#[test]
fn a_bound_but_unissued_candidate_is_a_problem() {
    let l = create("x.sdd", "-");
    l.insert("x01\tgoto", "somewhere");
    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(
        a.lines()[7],
        "next:        x01 ALREADY BOUND (1 element) but never issued"
    );
    assert_eq!(
        a.problems[0]
            .repair
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("the generator skipped 2 identifiers (1 already used, 1 unused passed over)")
    );
    apply(&l, &a);
    assert!(analyze(&l, &census(&l), Options::default()).unwrap().ok());
    assert_eq!(Minter::load(&l).unwrap().gen.oacounter, 2);
}

#[test]
fn held_queued_and_counters_are_checked() {
    let l = create("f5.reedeedk", "long");
    mint(&l, 3);
    l.insert(keys::admin("held"), "7");
    l.insert(keys::admin("queued"), "1");
    l.insert(keys::admin("oacounter"), "4");
    l.insert(keys::admin("c50/value"), "241393");
    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    let texts: Vec<String> = a.problems.iter().map(|p| p.finding.to_string()).collect();
    assert_eq!(
        texts,
        [
            ":/held is 7 but 3 identifiers are held",
            ":/queued is 1 but the queue holds 0 entries",
            "the counter lists disagree with the counters: :/saclist has 293 and :/siclist 0 names, the counters say 292 active and 1 exhausted",
            ":/oacounter is 4 but the counters have handed out 241395 numbers",
        ]
    );
    assert_eq!(a.repairable(), 4);
    apply(&l, &a);
    let again = analyze(&l, &census(&l), Options::default()).unwrap();
    assert!(again.ok(), "{:?}", again.problems);
    assert_eq!(l.get(b":/siclist").unwrap().unwrap(), b" c50");
}

#[test]
fn damaged_counters_are_not_replayed() {
    let l = create("f5.reedeedk", "long");
    l.insert(keys::admin("percounter"), "5");
    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(
        a.problems[0].finding.to_string(),
        ":/percounter is 5 but a namespace of 70728100 needs 241393"
    );
    assert_eq!(a.repairable(), 0);
    assert!(!a.lines().iter().any(|l| l.starts_with("next:")));
}

#[test]
fn census_counts() {
    let l = create(".zd", "-");
    l.insert("a\t:/c", "i|x|y|1");
    l.insert("a\t:/h", "1");
    l.insert("a\tx", "1");
    l.insert("a\ty", "1");
    l.insert("b\t:/c", "qi|x|y|1");
    l.insert("c\t:/c", "u|x|y|1");
    l.insert("c\tz", "1");
    l.insert(":/q/00000000000000/000001/c", "c");
    l.insert(":/idmap/e\t^x", "y");
    l.insert(":/idmap/e\t:/h", "1");
    l.insert(":/:/note", "n");
    let c = census(&l);
    assert_eq!(
        (
            c.issued,
            c.queued_status,
            c.unqueued,
            c.holds,
            c.bindings,
            c.bound_ids,
            c.queue_entries,
            c.idmap_rules,
            c.notes
        ),
        (1, 1, 1, 2, 3, 2, 1, 1, 1)
    );
}

/// Every key under the identifiers that start with `prefix`, as `KEY=VALUE` text (values
/// that are not UTF-8 escaped), in key order.
fn keys_under(l: &MemLookup, prefixes: &[&str]) -> Vec<String> {
    prefixes
        .iter()
        .flat_map(|p| l.scan_prefix(p.as_bytes(), usize::MAX).unwrap())
        .map(|(k, v)| {
            format!(
                "{}={}",
                String::from_utf8(k).unwrap().replace('\t', "<TAB>"),
                v.escape_ascii()
            )
        })
        .collect()
}

/// The problems' findings and repairs as text.
fn findings(a: &Analysis) -> Vec<(String, Option<String>)> {
    a.problems
        .iter()
        .map(|p| {
            (
                p.finding.to_string(),
                p.repair.as_ref().map(ToString::to_string),
            )
        })
        .collect()
}

#[test]
fn an_identifier_split_over_spellings_is_found_and_merged() {
    let l = create("f5.reedeedk", "long");
    let ids = mint(&l, 2);
    assert_eq!(ids, ["13030/f54x54g11", "13030/f5154dn7k"]);
    // The directory's spelling, as the gate writes it.
    l.bind("13030/f54x54g11", "_t", "https://example.org/a");
    l.bind("13030/f54x54g11", ":/m", "1700000100");
    // Older records under other spellings: an equal target, a new element, a later
    // and an earlier last write, a binary value, an egg duplicate, a second hold.
    l.bind("ark:13030/f54x54g11", "_t", "https://example.org/a");
    l.bind("ark:13030/f54x54g11", "what", "Migrant Mother");
    l.bind("ark:13030/f54x54g11", ":/m", "1700000300");
    l.bind("ark:13030/f54x54g11", ":/h", "1");
    l.bind("ARK:/13030/f54x54g11", "who", b"\xff\x00");
    l.bind("ARK:/13030/f54x54g11", ":/d/what\t0000000001", "Nipomo");
    l.bind("ARK:/13030/f54x54g11", ":/m", "1700000200");
    // A resolver URL of an identifier minted here; an ARK of another NAAN stored only
    // under spellings other than the directory's (`ark:/99999/x`).
    l.bind(
        "https://n2t.net/ark:/13030/f5154dn7k",
        "_t",
        "https://example.org/b",
    );
    l.bind("ark:99999/x", "_t", "https://example.org/c");
    l.bind("ARK:99999/x", "who", "someone");
    // Already as the directory stores them: another NAAN's ARK keeps `ark:/`; a bare
    // `NAAN/…` is not respelled in a minter's directory.
    l.bind("ark:/99999/y", "_t", "https://example.org/d");
    l.bind("99999/z", "_t", "https://example.org/e");
    // Perl's hold counted the second hold too.
    l.insert(keys::admin("held"), "3");

    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(
        findings(&a),
        [
            (
                ":/held is 3 but 2 identifiers are held".to_string(),
                Some(":/held set to 2".to_string())
            ),
            (
                "13030/f5154dn7k is stored under 2 spellings: 13030/f5154dn7k, https://n2t.net/ark:/13030/f5154dn7k".to_string(),
                Some("https://n2t.net/ark:/13030/f5154dn7k merged into 13030/f5154dn7k (1 key)".to_string())
            ),
            (
                "13030/f54x54g11 is stored under 3 spellings: 13030/f54x54g11, ARK:/13030/f54x54g11, ark:13030/f54x54g11".to_string(),
                Some("ARK:/13030/f54x54g11, ark:13030/f54x54g11 merged into 13030/f54x54g11 (7 keys)".to_string())
            ),
            (
                "ark:/99999/x is stored under 2 spellings, none of them the binder's: ARK:99999/x, ark:99999/x".to_string(),
                Some("ARK:99999/x, ark:99999/x merged into ark:/99999/x (2 keys)".to_string())
            ),
        ]
    );
    assert_eq!(
        a.repair().iter().filter(|(_, v)| v.is_none()).count(),
        10,
        "one delete per key of another spelling"
    );
    apply(&l, &a);
    let again = analyze(&l, &census(&l), Options::default()).unwrap();
    assert!(again.ok(), "{:?}", again.problems);
    assert_eq!(
        keys_under(&l, &["13030/", "99999/", "ark", "ARK", "http"]),
        [
            "13030/f5154dn7k<TAB>:/c=i|20260101000000|me/me|2",
            "13030/f5154dn7k<TAB>:/h=1",
            "13030/f5154dn7k<TAB>_t=https://example.org/b",
            "13030/f54x54g11<TAB>:/c=i|20260101000000|me/me|1",
            "13030/f54x54g11<TAB>:/d/what<TAB>0000000001=Nipomo",
            "13030/f54x54g11<TAB>:/h=1",
            "13030/f54x54g11<TAB>:/m=1700000300",
            "13030/f54x54g11<TAB>_t=https://example.org/a",
            "13030/f54x54g11<TAB>what=Migrant Mother",
            "13030/f54x54g11<TAB>who=\\xff\\x00",
            "99999/z<TAB>_t=https://example.org/e",
            "ark:/99999/x<TAB>_t=https://example.org/c",
            "ark:/99999/x<TAB>who=someone",
            "ark:/99999/y<TAB>_t=https://example.org/d",
        ]
    );
    assert_eq!(l.get(b":/held").unwrap().unwrap(), b"2");
}

#[test]
fn spellings_with_different_values_are_reported_and_left_alone() {
    let l = create("f5.reedeedk", "long");
    mint(&l, 1);
    l.bind("13030/f54x54g11", "_t", "https://example.org/a");
    l.bind("13030/f54x54g11", "what", "first");
    l.bind("ark:13030/f54x54g11", "_t", "https://example.org/other");
    l.bind("ark:13030/f54x54g11", "when", "1936");
    l.bind("ark:13030/f54x54g11", ":/h", "1");
    l.bind("ARK:/13030/f54x54g11", ":/d/what\t0000000001", "second");
    l.bind("ARK:/13030/f54x54g11", "what", "other first");
    // An identifier stored only under another spelling still merges.
    l.bind("ark:/13030/f5-legacy", "_t", "https://example.org/b");
    let before = keys_under(&l, &["13030/", "ark", "ARK"]);
    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(
        findings(&a),
        [
            (
                "13030/f54x54g11 is stored under 3 spellings: 13030/f54x54g11, ARK:/13030/f54x54g11, ark:13030/f54x54g11; they hold different values of _t, what, so they are not merged (needs repairing by hand)".to_string(),
                None
            ),
            (
                "ark:/13030/f5-legacy is stored under a spelling other than the binder's (13030/f5legacy)".to_string(),
                Some("ark:/13030/f5-legacy merged into 13030/f5legacy (1 key)".to_string())
            ),
        ]
    );
    assert_eq!(a.repairable(), 1);
    apply(&l, &a);
    let after = keys_under(&l, &["13030/", "ark", "ARK"]);
    let moved = "13030/f5legacy<TAB>_t=https://example.org/b".to_string();
    assert_eq!(
        after.iter().filter(|k| **k != moved).collect::<Vec<_>>(),
        before
            .iter()
            .filter(|k| !k.starts_with("ark:/13030/f5-legacy"))
            .collect::<Vec<_>>(),
        "nothing of the conflicting identifier changed"
    );
    assert!(after.contains(&moved));
    // The second hold of the identifier left alone counts no second held identifier.
    let again = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(findings(&again).len(), 1);
    assert_eq!(again.repairable(), 0);
}

/// The ARK draft's normal form (issue 47): two spellings of one ARK that differ in
/// hyphens or in the case of a `%xx` are one identifier, merged into the spelling the
/// gate now writes; one whose spellings hold different targets is reported, not chosen.
#[test]
fn spellings_the_ark_draft_equates_are_merged_and_conflicts_reported() {
    let l = create("f5.reedeedk", "long");
    mint(&l, 1);
    // Bound before the gate removed hyphens: both spellings, equal targets.
    l.bind("13030/x9-ab-cd", "_t", "https://example.org/a");
    l.bind("13030/x9-ab-cd", "what", "hyphenated");
    l.bind("13030/x9abcd", "_t", "https://example.org/a");
    // Another NAAN's ARK with a lower-case %xx, typographic hyphens, and the normal form.
    l.bind("ark:/99999/w%7e1", "_t", "https://example.org/w");
    l.bind("ark:/99999/w\u{2010}%7E1", "who", "someone");
    // Both spellings bound, different targets: reported, left alone.
    l.bind("13030/y7-z", "_t", "https://example.org/one");
    l.bind("13030/y7z", "_t", "https://example.org/two");
    let a = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(
        findings(&a),
        [
            (
                "13030/x9abcd is stored under 2 spellings: 13030/x9abcd, 13030/x9-ab-cd".to_string(),
                Some("13030/x9-ab-cd merged into 13030/x9abcd (2 keys)".to_string())
            ),
            (
                "13030/y7z is stored under 2 spellings: 13030/y7z, 13030/y7-z; they hold different values of _t, so they are not merged (needs repairing by hand)".to_string(),
                None
            ),
            (
                "ark:/99999/w%7E1 is stored under 2 spellings, none of them the binder's: ark:/99999/w%7e1, ark:/99999/w‐%7E1".to_string(),
                Some("ark:/99999/w%7e1, ark:/99999/w‐%7E1 merged into ark:/99999/w%7E1 (2 keys)".to_string())
            ),
        ]
    );
    apply(&l, &a);
    assert_eq!(
        keys_under(&l, &["13030/x", "13030/y", "ark"]),
        [
            "13030/x9abcd<TAB>_t=https://example.org/a",
            "13030/x9abcd<TAB>what=hyphenated",
            "13030/y7-z<TAB>_t=https://example.org/one",
            "13030/y7z<TAB>_t=https://example.org/two",
            "ark:/99999/w%7E1<TAB>_t=https://example.org/w",
            "ark:/99999/w%7E1<TAB>who=someone",
        ]
    );
    let again = analyze(&l, &census(&l), Options::default()).unwrap();
    assert_eq!(findings(&again).len(), 1, "only the conflict is left");
}
