//! Old values in the write log, an identifier's history, and a rewrite with its
//! preview and undo, on real RocksDB binders made in temporary directories. The
//! expected values are written out by hand from the record format of docs/API.md
//! ("The write log") and docs/HISTORY.md.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use noid_binder::history::{self, old_text};
use noid_binder::rewrite::{self, Operation, Planned, Rewrite, Selection};
use noid_binder::{AdmissionSource, DirectoryWriter, Settings, Unobserved, Who, Work};
use noid_egg::{Command, Op};

mod support;
use support::binder;

fn who() -> Who {
    Who {
        populator: "sam".into(),
        login: "sam".into(),
        client: "127.0.0.1".into(),
        acting_for: None,
    }
}

fn set(id: &str, elem: &str, value: &str) -> Command {
    Command::Bind {
        op: Op::Set,
        id: id.into(),
        elem: elem.into(),
        value: value.as_bytes().to_vec(),
    }
}

/// Bind `commands` in `store` through egg, committed as one batch (no log).
fn bind(store: &(dyn noid_store::Store + 'static), commands: &[Command]) {
    let mut batch = noid_minter::batch::Batch::open(store).unwrap();
    let (txn, minter) = batch.parts().unwrap();
    let mut session = noid_egg::Session::new(false);
    let agent = noid_egg::Agent {
        who: "test".into(),
        now: 1_767_225_600,
    };
    for c in commands {
        let done = session.command(txn, minter, &agent, c);
        assert!(!done.reply.failed(), "{:?}", done.reply);
    }
    batch.commit().unwrap();
}

/// Every value of `elem` under `id`, as text.
fn values(store: &dyn noid_store::Store, id: &str, elem: &str) -> Vec<String> {
    noid_egg::elements::values(store, id, elem)
        .unwrap()
        .into_iter()
        .map(|(_, v)| String::from_utf8(v).unwrap())
        .collect()
}

/// The writer thread logs what each write replaced; history shows it, in any spelling.
#[test]
fn the_writer_logs_old_values_and_history_shows_them() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("binder");
    binder(&dir);
    let log = root.path().join("write.log");
    let settings = Settings {
        lock_timeout: Duration::from_secs(5),
        temper: |_| "20260101000000".into(),
        stopping: Arc::default(),
        observer: Arc::new(Unobserved),
    };
    let w = DirectoryWriter::start(
        dir.clone(),
        Some(log.clone()),
        settings,
        AdmissionSource::default(),
    );
    let egg = |line: &str| {
        let a = w.run(
            Work::Egg {
                line: line.into(),
                body: Vec::new(),
            },
            who(),
            false,
        );
        assert!(!a.failed, "{line}: {}", String::from_utf8_lossy(&a.body));
    };
    egg("ark:/99999/fk4a.set _t https://a.org/1");
    egg("ark:/99999/fk4a.set _t https://b.org/1");
    egg("ark:/99999/fk4a.add _t https://c.org/1");
    egg("ark:/99999/fk4other.set _t https://a.org/2");
    let typed = w.run(
        Work::Commands(vec![Command::Remove {
            id: "ark:/99999/fk4a".into(),
            elem: "_t".into(),
            report: false,
        }]),
        who(),
        false,
    );
    assert!(!typed.failed);
    drop(w);
    noid_store::open::writer(&dir, Duration::from_secs(10)).unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let old: Vec<&str> = text
        .lines()
        .map(|l| l.split('\t').nth(7).unwrap())
        .collect();
    assert_eq!(
        old,
        [
            "=",
            "=_t|https^3a//a.org/1",
            "=_t|https^3a//b.org/1",
            "=",
            "=_t|https^3a//b.org/1 _t|https^3a//c.org/1",
        ]
    );
    let h = history::history(&history::log_files(&log), "ark:99999/fk4-a").unwrap();
    let shown: Vec<String> = h
        .iter()
        .map(|c| {
            format!(
                "{} {} [{}] -> [{}]",
                c.action,
                c.element,
                old_text(c),
                c.new
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "set _t [] -> [https://a.org/1]",
            "set _t [https://a.org/1] -> [https://b.org/1]",
            "add _t [https://b.org/1] -> [https://c.org/1]",
            "rm _t [https://b.org/1\nhttps://c.org/1] -> []",
        ]
    );
    assert!(h.iter().all(|c| c.agent == "sam" && c.op.is_none()));
}

fn rewrite_setup() -> (
    tempfile::TempDir,
    PathBuf,
    Box<dyn noid_store::Store>,
    PathBuf,
) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("binder");
    let store = binder(&dir);
    bind(
        &*store,
        &[
            set("x1", "_t", "https://old.org/a"),
            set(
                "x2",
                "_t",
                "https://old.org/b\n301 https://old.org/c\nhttps://else.org/old.org/",
            ),
            set("x3", "_t", "https://else.org/d"),
            set("x4", "_t", "https://old.org/e"),
            Command::Bind {
                op: Op::Add,
                id: "x4".into(),
                elem: "_t".into(),
                value: b"https://old.org/f".to_vec(),
            },
            set("y1", "_t", "https://old.org/g"),
            set("y1", "title", "https://old.org/ is not a target"),
        ],
    );
    let log = root.path().join("write.log");
    (root, dir, store, log)
}

/// The preview counts and samples without writing; apply changes the same identifiers
/// in batches, each record carrying the op id; undo puts them back, refusing the one
/// changed since; an undo can itself be undone.
#[test]
fn a_rewrite_previews_applies_and_undoes() {
    let (_root, _dir, store, log) = rewrite_setup();
    let rw = Rewrite::new("_t", "https://old.org/", "https://new.org/").unwrap();
    let p = rewrite::preview(&*store, &Selection::Every, &rw, 1).unwrap();
    assert_eq!(p.count, 3);
    assert_eq!(
        p.sample,
        [Planned {
            id: "x1".into(),
            old: "https://old.org/a".into(),
            new: "https://new.org/a".into()
        }]
    );
    assert_eq!(
        p.skipped,
        [(
            "x4".to_string(),
            "_t has 2 values; rewrite changes an element with one".to_string()
        )]
    );
    let under = rewrite::preview(&*store, &Selection::Under(vec!["x".into()]), &rw, 20).unwrap();
    assert_eq!(under.count, 2);
    assert_eq!(values(&*store, "x1", "_t"), ["https://old.org/a"]);
    assert!(!log.exists(), "a preview writes nothing");

    let op = rewrite::op_id();
    let who = who();
    let operation = Operation {
        who: &who,
        log: &log,
        batch: 2,
        op: &op,
    };
    let done = rewrite::apply(&*store, &Selection::Every, &rw, &operation).unwrap();
    assert_eq!(
        (done.changed, done.refused.len(), done.stopped),
        (3, 1, None)
    );
    assert_eq!(values(&*store, "x1", "_t"), ["https://new.org/a"]);
    assert_eq!(
        values(&*store, "x2", "_t"),
        ["https://new.org/b\n301 https://new.org/c\nhttps://else.org/old.org/"]
    );
    assert_eq!(values(&*store, "x3", "_t"), ["https://else.org/d"]);
    assert_eq!(values(&*store, "y1", "_t"), ["https://new.org/g"]);
    assert_eq!(
        values(&*store, "y1", "title"),
        ["https://old.org/ is not a target"]
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(
        text.lines().all(|l| l.ends_with(&format!("\t{op}"))),
        "{text}"
    );

    // y1 is changed again by hand; the undo leaves it and says why.
    bind(&*store, &[set("y1", "_t", "https://elsewhere.org/g")]);
    let logs = history::log_files(&log);
    let undo_op = rewrite::op_id();
    let undo = Operation {
        op: &undo_op,
        ..operation
    };
    let undoing = rewrite::undoing(&logs, &op).unwrap();
    assert_eq!(undoing.len(), 3);
    let undone = rewrite::undo(&*store, undoing, &undo).unwrap();
    assert_eq!(undone.changed, 2);
    assert_eq!(
        undone.refused,
        [(
            "y1".to_string(),
            format!("changed since {op}: _t is now https://elsewhere.org/g")
        )]
    );
    assert_eq!(values(&*store, "x1", "_t"), ["https://old.org/a"]);
    assert_eq!(
        values(&*store, "x2", "_t"),
        ["https://old.org/b\n301 https://old.org/c\nhttps://else.org/old.org/"]
    );
    // Undoing the undo changes them back again.
    let again = rewrite::op_id();
    let redo = Operation {
        op: &again,
        ..operation
    };
    let redone = rewrite::undo(&*store, rewrite::undoing(&logs, &undo_op).unwrap(), &redo).unwrap();
    assert_eq!((redone.changed, redone.refused.len()), (2, 0));
    assert_eq!(values(&*store, "x1", "_t"), ["https://new.org/a"]);
    // The history of x1 shows all three operations.
    let h = history::history(&logs, "x1").unwrap();
    let ops: Vec<Option<&str>> = h.iter().map(|c| c.op.as_deref()).collect();
    assert_eq!(
        ops,
        [
            Some(op.as_str()),
            Some(undo_op.as_str()),
            Some(again.as_str())
        ]
    );
    assert_eq!(
        rewrite::undoing(&logs, "20260101T000000Z-000000").unwrap_err(),
        format!(
            "no operation 20260101T000000Z-000000 in the write log ({})",
            log.display()
        )
    );
}

/// Bad requests are refused before anything is read or written.
#[test]
fn bad_rewrites_are_refused_with_what_to_do() {
    assert_eq!(
        Rewrite::new("_t", "", "https://b.org/").unwrap_err(),
        "--from needs the prefix to replace (https://old.example.org/)"
    );
    assert_eq!(
        Rewrite::new("_t", "https://a.org/", "https://a.org/").unwrap_err(),
        "--to is the same as --from (https://a.org/): nothing would change"
    );
    assert_eq!(
        Rewrite::new("_t", "https://a.org/", "javascript:alert(1)//").unwrap_err(),
        "--to javascript:alert(1)//: a target must not run code in a browser (javascript:, vbscript:, data:)"
    );
    // A to-prefix that makes targets the gate refuses: every such identifier is
    // skipped with the reason, and the apply changes none of them.
    let (_root, _dir, store, log) = rewrite_setup();
    let rw = Rewrite::new("_t", "https://old.org/", "no scheme/").unwrap();
    let p = rewrite::preview(&*store, &Selection::Ids(vec!["x1".into()]), &rw, 20).unwrap();
    assert_eq!(p.count, 0);
    assert_eq!(
        p.skipped,
        [(
            "x1".to_string(),
            "no scheme/a would not be a target: a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)".to_string()
        )]
    );
    let who = who();
    let op = rewrite::op_id();
    let operation = Operation {
        who: &who,
        log: &log,
        batch: 10,
        op: &op,
    };
    let done = rewrite::apply(&*store, &Selection::Every, &rw, &operation).unwrap();
    assert_eq!(done.changed, 0);
    assert_eq!(values(&*store, "x1", "_t"), ["https://old.org/a"]);
    assert!(!Path::new(&log).exists());
}
