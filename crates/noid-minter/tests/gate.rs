//! The identifier gate tested through the minter's API (a bind in a write batch over a
//! store in memory): the spellings of one identifier reach one record; a mistyped check
//! character, an identifier outside a limited populator's shoulders and a target that
//! is not one are refused with the messages docs/API.md gives, and change nothing.

mod support;

use noid_minter::batch::Batch;
use noid_minter::bind::{bind, BindArgs};
use noid_minter::gate::{Admission, Shoulder, Targets};
use noid_minter::{Minter, MinterError};
use support::{context, minter, perl_issued, MemStore};

/// A populator's binder (a plain `noid dbcreate`) whose populator has the minter
/// `dbcreate f5.reedeedk long 13030 …` and is limited to its shoulder.
fn populators_binder() -> (MemStore, Admission) {
    let f5 = support::random_long();
    let shoulder = Shoulder::of(&Minter::load(&f5).unwrap()).expect("a template");
    let admission = Admission {
        shoulders: vec![shoulder],
        limit: true,
        targets: Targets::Checked,
    };
    (minter(None, "-", None), admission)
}

fn set(
    b: &mut Batch<'_, MemStore>,
    admission: &Admission,
    id: &str,
    target: &str,
) -> Result<String, MinterError> {
    let ctx = context();
    b.attempt(|txn, m| {
        m.gate = m.gate.clone().admitting(admission);
        let args = BindArgs {
            how: "set",
            id,
            elem: "_t",
            value: Some(target.as_bytes()),
            new_pepper: None,
            check_pattern: |_| Ok(()),
        };
        bind(txn, m, &ctx, &args)
    })
}

/// An identifier Perl Noid minted with that template (check character and all).
const PERL_MINTED: &str = "13030/f5057cr7b";

#[test]
fn the_spellings_of_one_identifier_reach_one_record() {
    assert!(perl_issued("random-long")
        .iter()
        .any(|id| id == PERL_MINTED));
    let (store, admission) = populators_binder();
    let mut b = Batch::open(&store).expect("open");
    for (i, given) in [
        "ark:/13030/f5057cr7b",
        "ark:13030/f5057cr7b",
        "ARK:/13030/f5057cr7b",
        "https://n2t.net/ark:/13030/f5057cr7b",
        "13030/f5057cr7b",
    ]
    .into_iter()
    .enumerate()
    {
        let target = format!("https://example.org/{i}");
        let report = set(&mut b, &admission, given, &target).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            report.starts_with("Id:      ark:/13030/f5057cr7b\n"),
            "{given}: {report}"
        );
        b.commit().expect("commit");
        let ids: Vec<String> = store
            .all_keys()
            .into_iter()
            .filter(|k| k.ends_with("\t_t"))
            .collect();
        assert_eq!(ids, ["ark:/13030/f5057cr7b\t_t"], "{given}");
    }
}

#[test]
fn the_gate_refuses_typos_other_shoulders_and_non_targets_and_writes_nothing() {
    let (store, admission) = populators_binder();
    let mut b = Batch::open(&store).expect("open");
    let before = store.all_keys();
    let refusals = [
        (
            "ark:/13030/f5057cr7c",
            "https://example.org/",
            "error: ark:/13030/f5057cr7c: its check character does not match (minter \
             13030/f5.reedeedk): a character is mistyped",
        ),
        (
            "ark:/12345/x",
            "https://example.org/",
            "error: ark:/12345/x: this populator writes only identifiers under ark:/13030/f5",
        ),
    ];
    for (id, target, message) in refusals {
        let e = set(&mut b, &admission, id, target).expect_err(id);
        assert_eq!(e.to_string(), message);
    }
    assert_eq!(b.pending(), 0);
    b.commit().expect("commit");
    assert_eq!(store.all_keys(), before);
}

#[test]
fn a_checked_gate_admits_urls_and_stored_codes_line_by_line_and_nothing_else() {
    let (store, admission) = populators_binder();
    let gate = Minter::load(&store).unwrap().gate.admitting(&admission);
    let id = "ark:/13030/f5057cr7b";
    for good in [
        "https://example.org/a\nftp://example.org/b",
        "410 withdrawn",
        "301 https://example.org/",
    ] {
        assert_eq!(
            gate.admit_value(id, "_t", good.as_bytes()),
            Ok(()),
            "{good}"
        );
    }
    let e = gate
        .admit_value(id, "_t", b"https://example.org/a\nwww.example.edu/x")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "error: ark:/13030/f5057cr7b: \"www.example.edu/x\" cannot be a target: a target must \
         be an absolute URL (https://…) or a stored code (410 reason, 301 URL)"
    );
    // Other elements are not targets.
    assert_eq!(gate.admit_value(id, "who", b"www.example.edu/x"), Ok(()));
}
