//! The prefix registry in resolution: each truncated form in each spelling answers its
//! record, `*/ID` lists every provider's target, IDs redirect to the first healthy
//! provider, and the store and rules keep their place.

use std::sync::Arc;

use super::store;
use crate::egg::{self, Miss};
use crate::registry::tests::SAMPLE;
use crate::{Answer, ProviderTarget, Registry, Request, Resolver, Rules};
use noid_core::{Lookup, PointLookups};

fn resolver(rules: &str) -> Resolver {
    Resolver::with_registry(
        Rules::parse(rules).unwrap(),
        Arc::new(Registry::parse(SAMPLE).unwrap()),
    )
}

/// One egg request with the sample registry: the exact answer line, both lookup ways.
#[track_caller]
fn check_with(r: &Resolver, bindings: &[(&str, &str, &str)], line: &str, expect: &str) {
    let l = store(bindings);
    for (how, l) in [("range", &l as &dyn Lookup), ("point", &PointLookups(&l))] {
        let mut out = Vec::new();
        egg::answer(r, l, line.as_bytes(), Miss::Null, &mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("{expect}\n"),
            "request {line:?} ({how} lookups)"
        );
    }
}

#[track_caller]
fn check(line: &str, expect: &str) {
    check_with(&resolver(""), &[], line, expect)
}

const NAAN: &str =
    "inflect \"op=partial\" \"partial=ark:/99999\" \"name=Test%20NAAN\" \"who=N2T\" \
     \"provider=n2t%20https://n2t.net/ark:/99999/${nlid}\" \
     \"note=test%20identifiers%0ado%20not%20persist\" \"below=ark:/99999/fk4\"";

#[test]
fn truncated_arks_in_every_spelling() {
    for id in [
        "ark:/99999",
        "ark:99999",
        "ark:/99999/",
        "ark:99999/",
        "ARK:/99999",
        "/ark:/99999",
    ] {
        check(&format!("{id}.resolve"), NAAN);
    }
    for id in ["ark:", "ark:/", "ARK:"] {
        check(
            &format!("{id}.resolve"),
            "inflect \"op=partial\" \"partial=ark:\" \"name=Archival%20Resource%20Key\" \
             \"below=ark:/99999\"",
        );
    }
}

#[test]
fn truncated_doi_and_scheme() {
    check(
        "doi:10.5072.resolve",
        "inflect \"op=partial\" \"partial=doi:10.5072\" \"name=DataCite%20test%20prefix\" \
         \"who=DataCite\"",
    );
    check(
        "pdb:.resolve",
        "inflect \"op=partial\" \"partial=pdb:\" \"name=Protein%20Data%20Bank\" \
         \"who=Worldwide%20Protein%20Data%20Bank\" \
         \"provider=rcsb%20https://www.rcsb.org/structure/$id\" \
         \"provider=pdbe%20https://www.ebi.ac.uk/pdbe/entry/pdb/{$id}\" \
         \"provider=pdbj%20301%20https://pdbj.org/mine/summary/${id}\" \"primary=rcsb\" \
         \"probe=pdbe%20http://127.0.0.1:9/health\"",
    );
    // No record: as before.
    check("hdl:.resolve", "inflect \"op=partial\" \"partial=hdl:\"");
    check(
        "ark:/12345.resolve",
        "inflect \"op=partial\" \"partial=ark:/12345\"",
    );
}

const SHOULDER: &str =
    "inflect \"op=partial\" \"partial=ark:/99999/fk4\" \"name=test%20shoulder\" \
     \"provider=ezid%20https://ezid.cdlib.org/id/ark:/99999/fk4$blade\"";

#[test]
fn a_shoulder_alone_answers_its_record() {
    for id in [
        "ark:/99999/fk4",
        "ark:99999/fk4",
        "ark:/99999/fk4/",
        "ARK:/99999/fk4",
        "/ark:/99999/fk4",
    ] {
        check(&format!("{id}.resolve"), SHOULDER);
    }
    // `*/` of a truncated id answers its record, as for a NAAN.
    check("*/ark:/99999/fk4.resolve", SHOULDER);
    // An id under the shoulder still goes to its provider.
    check(
        "ark:/99999/fk4x.resolve",
        "redir302 https://ezid.cdlib.org/id/ark:/99999/fk4x",
    );
    // The store's bindings on the shoulder come with it; a bound shoulder is a plain id.
    let r = resolver("");
    let a = r
        .resolve(
            &store(&[("ark:/99999/fk4", "who", "EZID")]),
            &Request::new("ark:99999/fk4"),
        )
        .unwrap();
    let Answer::Record {
        key,
        records,
        bindings,
    } = a
    else {
        panic!("{a:?}")
    };
    assert_eq!(key, "ark:/99999/fk4");
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].name.as_deref(), Some("test shoulder"));
    assert_eq!(bindings, [("who".to_string(), b"EZID".to_vec())]);
    check_with(
        &r,
        &[("ark:/99999/fk4", "_t", "https://bound.org/")],
        "ark:/99999/fk4.resolve",
        "redir302 https://bound.org/",
    );
}

#[test]
fn a_shoulder_without_a_record_is_still_ruled() {
    // The rules file's shoulder rule, `${blade}` empty, as before the registry.
    check_with(
        &resolver("ark:/12345/fk4 https://e.org/b/${blade}"),
        &[],
        "ark:/12345/fk4.resolve",
        "redir302 https://e.org/b/",
    );
}

#[test]
fn a_doi_shoulder_answers_its_record_under_its_upper_case_key() {
    let r = Resolver::with_registry(
        Rules::parse("").unwrap(),
        Arc::new(
            Registry::parse("prefix: doi:10.5072/fk2\nname: DataCite test shoulder\n").unwrap(),
        ),
    );
    for id in ["doi:10.5072/FK2", "doi:10.5072/fk2", "doi:10.5072/FK2/"] {
        check_with(
            &r,
            &[],
            &format!("{id}.resolve"),
            "inflect \"op=partial\" \"partial=doi:10.5072/FK2\" \"name=DataCite%20test%20shoulder\"",
        );
    }
}

#[test]
fn record_answer_keeps_the_store_bindings() {
    let r = resolver("");
    let l = store(&[
        ("ark:/99999", "who", "someone"),
        ("ark:/99999", "_,eTm,", "x"),
    ]);
    let a = r.resolve(&l, &Request::new("ark:99999")).unwrap();
    let (key, records, bindings) = match a {
        Answer::Record {
            key,
            records,
            bindings,
        } => (key, records, bindings),
        other => panic!("{other:?}"),
    };
    assert_eq!(key, "ark:/99999");
    assert_eq!(
        records
            .iter()
            .map(|r| r.prefix.as_str())
            .collect::<Vec<_>>(),
        ["ark:/99999", "ark:/99999/fk4"]
    );
    assert_eq!(bindings, [("who".to_string(), b"someone".to_vec())]);
    // A bound truncated id is a plain id.
    check_with(
        &r,
        &[("ark:/99999", "_t", "n")],
        "ark:/99999.resolve",
        "redir302 n",
    );
}

#[test]
fn ids_go_to_the_primary_provider() {
    check(
        "pdb:2gc4.resolve",
        "redir302 https://www.rcsb.org/structure/2gc4",
    );
    check(
        "ark:/99999/fk4abc/x.resolve",
        "redir302 https://ezid.cdlib.org/id/ark:/99999/fk4abc/x",
    );
    check(
        "ark:99999/xyz.resolve",
        "redir302 https://n2t.net/ark:/99999/xyz",
    );
    // The store's NAAN `_t` comes first, then the registry, then the rules file.
    check_with(
        &resolver(""),
        &[("ark:/99999", "_t", "https://store.org/${nlid}")],
        "ark:/99999/xyz.resolve",
        "redir302 https://store.org/xyz",
    );
    check_with(
        &resolver("pdb: https://rules.org/${id}\nhdl: https://hdl.handle.net/${id}"),
        &[],
        "pdb:2gc4.resolve",
        "redir302 https://www.rcsb.org/structure/2gc4",
    );
    check_with(
        &resolver("hdl: https://hdl.handle.net/${id}"),
        &[],
        "hdl:1/2.resolve",
        "redir302 https://hdl.handle.net/1/2",
    );
    // A record without providers redirects nothing.
    check("doi:10.5072/FK2X.resolve", "NULL");
    // The bound id itself wins.
    check_with(
        &resolver(""),
        &[("pdb:2gc4", "_t", "T")],
        "pdb:2gc4.resolve",
        "redir302 T",
    );
}

#[test]
fn failover_to_the_first_healthy_provider_and_back() {
    let r = resolver("");
    let rec = r.registry().get("pdb:").unwrap().clone();
    let slot = |code: &str| rec.providers.iter().find(|p| p.code == code).unwrap().slot;
    r.registry().set_healthy(slot("rcsb"), false);
    check_with(
        &r,
        &[],
        "pdb:2gc4.resolve",
        "redir302 https://www.ebi.ac.uk/pdbe/entry/pdb/2gc4",
    );
    r.registry().set_healthy(slot("pdbe"), false);
    check_with(
        &r,
        &[],
        "pdb:2gc4.resolve",
        "redir301 https://pdbj.org/mine/summary/2gc4",
    );
    r.registry().set_healthy(slot("pdbj"), false);
    check_with(
        &r,
        &[],
        "pdb:2gc4.resolve",
        "redir302 https://www.rcsb.org/structure/2gc4",
    );
    check_with(
        &r,
        &[],
        "*/pdb:2gc4.resolve",
        "inflect \"op=providers\" \"id=pdb:2gc4\" \"prefix=pdb:\" \
         \"target=https://www.rcsb.org/structure/2gc4\" \
         \"target=https://www.ebi.ac.uk/pdbe/entry/pdb/2gc4\" \
         \"target=https://pdbj.org/mine/summary/2gc4\" \"down=rcsb\" \"down=pdbe\" \"down=pdbj\"",
    );
    r.registry().set_healthy(slot("pdbe"), true);
    check_with(
        &r,
        &[],
        "pdb:2gc4.resolve",
        "redir302 https://www.ebi.ac.uk/pdbe/entry/pdb/2gc4",
    );
    r.registry().set_healthy(slot("rcsb"), true);
    check_with(
        &r,
        &[],
        "pdb:2gc4.resolve",
        "redir302 https://www.rcsb.org/structure/2gc4",
    );
}

#[test]
fn star_lists_every_provider() {
    check(
        "*/pdb:2gc4.resolve",
        "inflect \"op=providers\" \"id=pdb:2gc4\" \"prefix=pdb:\" \
         \"target=https://www.rcsb.org/structure/2gc4\" \
         \"target=https://www.ebi.ac.uk/pdbe/entry/pdb/2gc4\" \
         \"target=https://pdbj.org/mine/summary/2gc4\"",
    );
    check(
        "*/ark:99999/fk4abc.resolve",
        "inflect \"op=providers\" \"id=ark:99999/fk4abc\" \"prefix=ark:/99999/fk4\" \
         \"target=https://ezid.cdlib.org/id/ark:/99999/fk4abc\"",
    );
    check("*/ark:/12345/x.resolve", "NULL");
    check("*/doi:10.5072/FK2X.resolve", "NULL");
    check("*/pdb:.resolve", &check_line("pdb:.resolve"));
    check("*/ark:/99999.resolve", NAAN);
    // Without a registry nothing is listed.
    check_with(&Resolver::default(), &[], "*/pdb:2gc4.resolve", "NULL");
    // A bound `*/…` id is a plain id.
    check_with(
        &resolver(""),
        &[("*/pdb:2gc4", "_t", "T")],
        "*/pdb:2gc4.resolve",
        "redir302 T",
    );
    let a = resolver("")
        .resolve(
            &store(&[]),
            &Request {
                id: "*/pdb:2gc4",
                accept: None,
                proto: Some("https"),
            },
        )
        .unwrap();
    assert_eq!(
        a,
        Answer::Providers {
            id: "pdb:2gc4".into(),
            prefix: "pdb:".into(),
            targets: vec![
                ProviderTarget {
                    code: "rcsb".into(),
                    target: "https://www.rcsb.org/structure/2gc4".into(),
                    primary: true,
                    healthy: true
                },
                ProviderTarget {
                    code: "pdbe".into(),
                    target: "https://www.ebi.ac.uk/pdbe/entry/pdb/2gc4".into(),
                    primary: false,
                    healthy: true
                },
                ProviderTarget {
                    code: "pdbj".into(),
                    target: "https://pdbj.org/mine/summary/2gc4".into(),
                    primary: false,
                    healthy: true
                },
            ]
        }
    );
}

/// The answer line of `line` with the sample registry.
fn check_line(line: &str) -> String {
    let mut out = Vec::new();
    egg::answer(
        &resolver(""),
        &store(&[]),
        line.as_bytes(),
        Miss::Null,
        &mut out,
    );
    String::from_utf8(out).unwrap().trim_end().to_string()
}
