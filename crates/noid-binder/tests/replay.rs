//! A write log replayed directly (noid-binder's `replay`), on a real RocksDB binder made
//! in a temporary directory. The log is written here by hand in the format docs/API.md
//! ("The write log") and noid-binder's `write_log` describe: seven tab-separated fields,
//! the command in `:hx` form with `^hh` escapes.

use noid_binder::{replay, ReplayProblem, Replayed};

mod support;
use support::binder;

fn record(command: &str) -> String {
    format!("1767225600\t127.0.0.1\tsam\tsam\t{command}\t{command}\t-")
}

#[test]
fn a_log_replays_its_writes_and_reports_each_record_it_cannot_apply() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("binder");
    let store = binder(&dir);
    let log = [
        record(":hx x1.set title A^20tab^09and^0aline"),
        String::new(),
        "not a record".to_string(),
        record(":hx x1.add _t https://example.org/a"),
        record(":hx x1.add _t https://example.org/b"),
        record(":hx x2.set _t https://example.org/c"),
        record(":hx x2.purge"),
    ];
    let mut problems = Vec::new();
    let done = replay::replay(&*store, log.into_iter().map(Ok), &mut |p| problems.push(p)).unwrap();
    assert_eq!(
        done,
        Replayed {
            applied: 5,
            failed: 1,
            complete: true
        }
    );
    assert!(
        matches!(problems.as_slice(), [ReplayProblem::Record { line: 3, .. }]),
        "{problems:?}"
    );
    // Read back as the binder reads: egg's `fetch`, typed.
    assert_eq!(
        fetch(&*store, "x1"),
        [
            ("_t".to_string(), b"https://example.org/a".to_vec()),
            ("_t".to_string(), b"https://example.org/b".to_vec()),
            ("title".to_string(), b"A tab\tand\nline".to_vec()),
        ]
    );
    assert_eq!(fetch(&*store, "x2"), []);
}

/// The bindings of `id` (admin elements left out), in key order, through an egg session.
fn fetch(store: &dyn noid_store::Store, id: &str) -> Vec<(String, Vec<u8>)> {
    let mut batch = noid_minter::batch::Batch::open(store).unwrap();
    let (txn, minter) = batch.parts().unwrap();
    let read = noid_egg::Command::Read {
        id: id.into(),
        elems: Vec::new(),
        labelled: true,
        all: false,
    };
    let agent = noid_egg::Agent {
        who: "sam".into(),
        now: 1_767_225_600,
    };
    match noid_egg::Session::new(true)
        .command(txn, minter, &agent, &read)
        .reply
    {
        noid_egg::Reply::Values { elems, .. } => elems,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_log_that_cannot_be_read_stops_the_replay_there() {
    let tmp = tempfile::tempdir().unwrap();
    let store = binder(&tmp.path().join("binder"));
    let lines = vec![
        Ok(record(":hx y1.set a b")),
        Err(std::io::Error::other("disk gone")),
        Ok(record(":hx y2.set a b")),
    ];
    let mut problems = Vec::new();
    let done = replay::replay(&*store, lines.into_iter(), &mut |p| problems.push(p)).unwrap();
    assert!(!done.complete);
    assert_eq!(problems, [ReplayProblem::Read("disk gone".into())]);
    // Nothing after the failure was applied, and the batch before it was not written
    // (the run aborted before its commit).
    assert_eq!(store.get(b"y2\ta").unwrap(), None);
}
