//! noid-egg's binder session driven directly over a real minter (RocksDB, in a
//! temporary directory), as the API's writer drives it, without any binary or server:
//! typed commands and values survive a commit and a reopening byte for byte, refusals
//! change nothing, and the minter's `mint N` (nog, through the mint engine) mints and
//! stops as Perl Noid does.

use std::time::Duration;

use noid_core::{keys, Commit};
use noid_egg::{nog, Agent, BinderError, Command, Format, Op, Reply, Session};
use noid_minter::batch::Batch;
use noid_minter::create::{dbcreate, CreateArgs};
use noid_minter::{Context, Minter};
use noid_store::{Store, Writer};

/// A minter made as `noid dbcreate [TEMPLATE TERM NAAN NAA SUBNAA]` makes it, in a new
/// RocksDB store in `dir`.
fn create(dir: &std::path::Path, template: Option<&str>, term: &str) -> Box<dyn Store> {
    let created = dbcreate(&CreateArgs {
        template,
        term: Some(term),
        naan: template.map(|_| "99999"),
        naa: template.map(|_| "example.org"),
        subnaa: template.map(|_| "tst3"),
        contact: "test",
        when: "20260101000000",
        where_: "host:/d",
        dbdir_display: "d",
        samples: (0, 0),
        atlast: None,
        lui_key: [0; 16],
    })
    .expect("dbcreate");
    let store = noid_store::open::create(dir, None, Duration::from_secs(5)).expect("create");
    let writes = created
        .keys
        .into_iter()
        .map(|(k, v)| (keys::admin(&k), Some(v.into_bytes())))
        .collect();
    store.commit_writes(writes).expect("commit the new minter");
    store
}

/// The store in `dir` opened anew, for writing.
fn reopen(dir: &std::path::Path) -> Box<dyn Store> {
    Box::new(Writer::open(dir, Duration::from_secs(5)).expect("reopen"))
}

fn agent() -> Agent {
    Agent {
        who: "sam".into(),
        now: 1_700_000_000,
    }
}

fn set(id: &str, elem: &str, value: &[u8]) -> Command {
    Command::Bind {
        op: Op::Set,
        id: id.into(),
        elem: elem.into(),
        value: value.to_vec(),
    }
}

fn fetch(id: &str) -> Command {
    Command::Read {
        id: id.into(),
        elems: Vec::new(),
        labelled: true,
        all: false,
    }
}

/// Run `commands` in one batch over `store` and commit; their replies.
fn run(store: &dyn Store, session: &mut Session<'_>, commands: &[Command]) -> Vec<Reply> {
    let mut batch = Batch::open(store).expect("open a batch");
    let replies = commands
        .iter()
        .map(|cmd| {
            let (txn, minter) = batch.parts().expect("the minter");
            session.command(txn, minter, &agent(), cmd).reply
        })
        .collect();
    batch.commit().expect("commit");
    replies
}

#[test]
fn typed_values_survive_a_commit_and_a_reopening_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let title = br#"Smith, J. "On commas, and quotes" (2026)"#;
    let targets = b"https://example.org/a\nhttps://example.org/b";
    let two_lines = b"first line\nsecond line\n";
    {
        let store = create(dir.path(), None, "-");
        let mut session = Session::new(true);
        let replies = run(
            &*store,
            &mut session,
            &[
                set("ark:/99999/fk4x", "_t", targets),
                set("ark:/99999/fk4x", "erc.what", title),
                set("ark:/99999/fk4x", "note", two_lines),
            ],
        );
        for r in &replies {
            assert!(matches!(r, Reply::Done { .. }), "{r:?}");
        }
    }
    let store = reopen(dir.path());
    let stored = |elem: &str| store.get(&keys::elem("ark:/99999/fk4x", elem)).unwrap();
    assert_eq!(stored("_t").as_deref(), Some(&targets[..]));
    assert_eq!(stored("erc.what").as_deref(), Some(&title[..]));
    assert_eq!(stored("note").as_deref(), Some(&two_lines[..]));
    let mut session = Session::new(true);
    let replies = run(&*store, &mut session, &[fetch("ark:/99999/fk4x")]);
    match &replies[..] {
        [Reply::Values { elems, .. }] => assert_eq!(
            elems,
            &[
                ("_t".to_string(), targets.to_vec()),
                ("erc.what".to_string(), title.to_vec()),
                ("note".to_string(), two_lines.to_vec()),
            ]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn refused_commands_change_nothing_in_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = create(dir.path(), None, "-");
    let mut session = Session::new(true);
    run(&*store, &mut session, &[set("x1", "who", b"Jane")]);
    let before = store.scan_prefix(b"", usize::MAX).unwrap();

    let mut read_only = Session::new(true);
    read_only.read_only = true;
    let replies = run(&*store, &mut read_only, &[set("x1", "who", b"Joe")]);
    assert!(
        matches!(&replies[..], [Reply::Error(BinderError::ReadOnly)]),
        "{replies:?}"
    );

    let mut small = Session::new(true);
    small.max_value = Some(3);
    let replies = run(&*store, &mut small, &[set("x1", "who", b"Josephine")]);
    assert!(
        matches!(&replies[..], [Reply::Error(BinderError::TooLarge(3))]),
        "{replies:?}"
    );
    assert_eq!(store.scan_prefix(b"", usize::MAX).unwrap(), before);
}

#[test]
fn nog_mints_through_the_engine_and_stops_as_perl_did() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new("sam".into(), 0, |_| "20260101000000".into());
    {
        let store = create(dir.path(), Some("tst3.sdd"), "medium");
        let mut batch = Batch::open(&*store).expect("open");
        let (txn, minter) = batch.parts().unwrap();
        let ids = nog::mint_n(txn, minter, &ctx, 3).expect("mint 3");
        assert_eq!(ids, ["99999/tst300", "99999/tst301", "99999/tst302"]);
        assert_eq!(
            String::from_utf8(nog::render_minted(&ids, &[], Format::Anvl)).unwrap(),
            "s: 99999/tst300\ns: 99999/tst301\ns: 99999/tst302\n\n"
        );
        batch.commit().expect("commit");
    }
    {
        let store = reopen(dir.path());
        let mut batch = Batch::open(&*store).expect("open");
        let (txn, minter) = batch.parts().unwrap();
        let (ids, e) = nog::mint_n(txn, minter, &ctx, 100).unwrap_err();
        let want: Vec<String> = (3..100).map(|i| format!("99999/tst3{i:02}")).collect();
        assert_eq!(ids, want, "the identifiers before the end stand");
        assert_eq!(e.to_string(), "identifiers exhausted (stopped at 100).");
        batch.commit().expect("commit");
    }
    let store = reopen(dir.path());
    assert_eq!(
        Minter::load(&*store).unwrap().gen.oacounter,
        100,
        "the counter is the last committed"
    );
}
