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
    let mut c = Census::new();
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
        l.insert(k, v);
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
