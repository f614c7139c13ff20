//! `noidr --follow URL --minter NAME --cache DIR`: answers from a local copy of a
//! minter held by a real PostgreSQL server, which every acknowledged commit reaches
//! within the poll interval (or at once, when notified); a follower killed and started
//! again catches up before it answers, also when the log was pruned past its position
//! meanwhile (it copies the minter anew), and its copy is exactly the minter's keys.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use noid_pg::testing::TestServer;
use noid_pg::{Location, PgSnapshot, PgWriter, APPLIED};
use noid_store::{Op, Scan, Snapshot, Store};

use crate::util::*;

fn put(k: &str, v: &str) -> Op {
    Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

fn follower(url: &str, cache: &Path) -> Noidr {
    let mut cmd = Command::new(noidr_bin());
    cmd.args(["--follow", url, "--minter", "m", "--cache"])
        .arg(cache)
        .args(["--poll", "0.2"]);
    Noidr::spawn(cmd)
}

/// Ask until the answer is `want`: a commit reaches a follower within a poll
/// interval, but how long that takes on a loaded machine is not this test's subject.
fn ask_until(n: &mut Noidr, request: &str, want: &str) {
    let start = Instant::now();
    loop {
        let got = n.ask(request);
        if got == want {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{request}: still {got:?}, never {want:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every key of a store.
fn keys(scan: &dyn Scan) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut all = BTreeMap::new();
    scan.scan_from(b"", &mut |k, v| {
        all.insert(k.to_vec(), v.to_vec());
        true
    })
    .expect("scan");
    all
}

#[test]
fn followers_answer_every_commit_and_a_restarted_one_catches_up_exactly() {
    let server = TestServer::start();
    let url = server.create_database("follow");
    let loc = Location::new(&url, "m").unwrap();
    let w = PgWriter::create(&loc, Duration::from_secs(10)).unwrap();
    w.commit_all(&mut vec![put("99999/a\t_t", "https://example.org/a")])
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (c1, c2) = (tmp.path().join("c1"), tmp.path().join("c2"));
    let mut f1 = follower(&url, &c1);
    let mut f2 = follower(&url, &c2);
    // The copy is made before the first answer.
    assert_eq!(f1.ask("get 99999/a _t"), "https://example.org/a");
    assert_eq!(f2.ask("get 99999/a _t"), "https://example.org/a");
    w.commit_all(&mut vec![put("99999/b\t_t", "https://example.org/b")])
        .unwrap();
    ask_until(&mut f1, "get 99999/b _t", "https://example.org/b");
    ask_until(&mut f2, "get 99999/b _t", "https://example.org/b");
    // Kill one; commit meanwhile; start it again on its copy.
    f2.child.kill().unwrap();
    drop(f2);
    w.commit_all(&mut vec![
        put("99999/c\t_t", "https://example.org/c"),
        Op::Delete(b"99999/a\t_t".to_vec()),
    ])
    .unwrap();
    let mut f2 = follower(&url, &c2);
    assert_eq!(f2.ask("get 99999/c _t"), "https://example.org/c");
    assert_eq!(f2.ask("get 99999/a _t"), "NULL");
    ask_until(&mut f1, "get 99999/a _t", "NULL");
    assert_eq!(f1.ask("get 99999/c _t"), "https://example.org/c");
    // Kill it again, commit, and prune the whole log: started again, it finds its
    // position gone and makes its copy anew.
    f2.child.kill().unwrap();
    drop(f2);
    w.commit_all(&mut vec![put("99999/d\t_t", "https://example.org/d")])
        .unwrap();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.execute("DELETE FROM noid_log", &[]).unwrap();
    let mut f2 = follower(&url, &c2);
    assert_eq!(f2.ask("get 99999/d _t"), "https://example.org/d");
    ask_until(&mut f1, "get 99999/d _t", "https://example.org/d");
    drop((f1, f2));
    // Both copies are exactly the minter's keys, and the change they are at.
    let snap = PgSnapshot::open(&loc).unwrap();
    let mut want = keys(&snap);
    want.insert(
        APPLIED.to_vec(),
        snap.log_seq().unwrap().to_string().into_bytes(),
    );
    assert_eq!(keys(&Snapshot::open(&c1).unwrap()), want);
    assert_eq!(keys(&Snapshot::open(&c2).unwrap()), want);
}

#[test]
fn follow_options_are_checked() {
    let run = |args: &[&str]| {
        let out = Command::new(noidr_bin()).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&[
        "--follow",
        "mysql://h/db",
        "--minter",
        "m",
        "--cache",
        "/nonexistent",
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "noidr: error: --follow must be a postgres:// URL (got \"mysql://h/db\")\n"
    );
    let (code, err) = run(&["--follow", "postgres://h/db", "--cache", "/x"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--minter <NAME>"), "{err}");
    // Nobody listens on port 1, and there is no copy to answer from.
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("c");
    let (code, err) = run(&[
        "--follow",
        "postgres://noid@127.0.0.1:1/x",
        "--minter",
        "m",
        "--cache",
        cache.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with(&format!("noidr: error: cannot make the copy in {}: PostgreSQL at postgres://noid@127.0.0.1:1/x (minter m): cannot connect", cache.display())),
        "{err}"
    );
    assert!(!cache.exists());
}
