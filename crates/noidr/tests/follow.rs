//! `noidr --follow URL --minter NAME --cache DIR`: answers from a local copy of a
//! minter held by a real PostgreSQL server, which every acknowledged commit reaches
//! within the poll interval (or at once, when notified); a follower killed and started
//! again catches up before it answers, also when the log was pruned past its position
//! meanwhile (`noid prune-log`; it copies the minter anew), and its copy is exactly the
//! minter's keys. A copy damaged on disk is found by the checksum comparison and made
//! anew, with a log line; `/metrics` shows the copy's position, the log head and the
//! lag.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use noid_store::pg::testing::TestServer;
use noid_store::pg::{Location, PgSnapshot, PgWriter, APPLIED};
use noid_store::{Layout, Op, Scan, Snapshot, Store, Writer};

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

/// How long a test waits for an answer to change (see [`Noidr::ask_until`]).
const WITHIN: Duration = Duration::from_secs(120);

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
    f1.ask_until("get 99999/b _t", "https://example.org/b", WITHIN);
    f2.ask_until("get 99999/b _t", "https://example.org/b", WITHIN);
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
    f1.ask_until("get 99999/a _t", "NULL", WITHIN);
    assert_eq!(f1.ask("get 99999/c _t"), "https://example.org/c");
    // Kill it again, commit, and prune the whole log with `noid prune-log` (on a
    // Dbdir whose NOID/backend names the minter), past what the followers recorded
    // (--ignore-followers): started again, it finds its position gone and makes its
    // copy anew.
    f2.child.kill().unwrap();
    drop(f2);
    w.commit_all(&mut vec![put("99999/d\t_t", "https://example.org/d")])
        .unwrap();
    let dbdir = tmp.path().join("m");
    loc.write(&Layout::new(&dbdir)).unwrap();
    let out = Command::new(noid_bin())
        .arg("-f")
        .arg(&dbdir)
        .args(["prune-log", "--keep", "0", "--ignore-followers"])
        .output()
        .unwrap();
    // Five keys changed in four commits, a log row each.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ok: pruned 4 changes; the change log is empty (head 4)\n"
    );
    assert!(out.status.success());
    let mut f2 = follower(&url, &c2);
    assert_eq!(f2.ask("get 99999/d _t"), "https://example.org/d");
    f1.ask_until("get 99999/d _t", "https://example.org/d", WITHIN);
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
    let (code, err) = run(&[
        "--follow",
        "postgres://h/db",
        "--minter",
        "m",
        "--cache",
        "/x",
        "--verify=-1",
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "noidr: error: --verify must be 0 (never) or at most 31536000 seconds\n"
    );
    let (code, err) = run(&["--verify", "5"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--follow <URL>"), "{err}");
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

/// `noidr --follow … --http`: its `/metrics` as name → value.
fn metrics(port: u16) -> BTreeMap<String, String> {
    let out = Command::new("curl")
        .args(["-s", "-f"])
        .arg(format!("http://127.0.0.1:{port}/metrics"))
        .output()
        .expect("curl");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Wait until `cond` holds (a bound for a hung follower, not a speed).
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(120), "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_damaged_copy_is_found_and_made_anew_and_metrics_show_the_position() {
    let mut server = TestServer::start();
    let url = server.create_database("verify");
    let loc = Location::new(&url, "m").unwrap();
    let w = PgWriter::create(&loc, Duration::from_secs(10)).unwrap();
    for id in ["a", "b", "c"] {
        w.commit_all(&mut vec![put(
            &format!("99999/{id}\t_t"),
            &format!("https://example.org/{id}"),
        )])
        .unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("c");
    let log = tmp.path().join("stderr");
    // The copy cannot have been current before its process started.
    let spawned = Instant::now();
    let mut cmd = Command::new(noidr_bin());
    cmd.args(["--follow", &url, "--minter", "m", "--cache"])
        .arg(&cache)
        .args(["--poll", "0.2", "--verify", "0.5"]);
    let noidr = Http::start_logging(cmd, "127.0.0.1:0", std::fs::File::create(&log).unwrap());
    let (port, pid) = (noidr.port(), noidr.child.id());
    // Three commits: the copy is at 3, the head is 3, and it was compared.
    eventually("verified at 3", || {
        let m = metrics(port);
        m.get("noidr_follow_verified_total")
            .is_some_and(|v| v != "0")
            && m["noidr_follow_applied_seq"] == "3"
    });
    let m = metrics(port);
    assert_eq!(m["noidr_follow_head_seq"], "3");
    assert_eq!(m["noidr_follow_remade_total"], "0");
    // The lag is the time since the copy was last current: no more than the time
    // since the process started (bounds that hold however slow the machine is).
    assert!(lag(&m) <= spawned.elapsed(), "{m:?}");
    let committed = Instant::now();
    w.commit_all(&mut vec![put("99999/d\t_t", "https://example.org/d")])
        .unwrap();
    eventually("applied 4", || {
        let m = metrics(port);
        m["noidr_follow_applied_seq"] == "4" && m["noidr_follow_head_seq"] == "4"
    });
    // Current again since change 4, which came after `committed`: a lag that was
    // not reset when the copy caught up would be older.
    let m = metrics(port);
    assert!(lag(&m) <= committed.elapsed(), "{m:?}");
    // SIGUSR1's line shows the same.
    let pid = pid.to_string();
    assert!(Command::new("kill")
        .args(["-USR1", &pid])
        .status()
        .unwrap()
        .success());
    eventually("the SIGUSR1 line", || {
        std::fs::read_to_string(&log)
            .unwrap()
            .contains(" follow-applied=4 follow-head=4 follow-lag=")
    });
    // Damage the copy behind the follower's back: a value changed.
    Writer::open(&cache, Duration::from_secs(30))
        .unwrap()
        .commit(vec![put("99999/a\t_t", "https://evil.example/")])
        .unwrap();
    eventually("the damaged copy made anew", || {
        metrics(port)["noidr_follow_remade_total"] == "1"
    });
    let snap = PgSnapshot::open(&loc).unwrap();
    let mut want = keys(&snap);
    want.insert(APPLIED.to_vec(), b"4".to_vec());
    eventually("the copy is the minter again", || {
        keys(&Snapshot::open(&cache).unwrap()) == want
    });
    // The log, copied on by the test's own thread, says so.
    let copied = format!("{}: copied anew as of change 4", cache.display());
    eventually("the log says the copy was made anew", || {
        let text = std::fs::read_to_string(&log).unwrap();
        text.contains("differs from the minter's (4 keys, ") && text.contains(&copied)
    });
    // The minter out of reach: the copy is not known to be current any more, and the
    // lag grows with the time since. A sync that read the head just before the stop
    // may still record the copy current after it; but the follower's one thread logs
    // the failed sync after that, so once the log shows a failure the copy was last
    // current before `failed`, and the lag is at least the time since.
    let before_stop = std::fs::read_to_string(&log).unwrap().len();
    server.stop();
    let cache_name = format!("{}: ", cache.display());
    eventually("a failed sync in the log", || {
        let text = std::fs::read_to_string(&log).unwrap();
        text[before_stop..].contains(&cache_name)
    });
    let failed = Instant::now();
    std::thread::sleep(Duration::from_secs(1));
    let floor = failed.elapsed();
    let m = metrics(port);
    assert!(lag(&m) >= floor, "lag below {floor:?}: {m:?}");
}

/// `noidr_follow_lag_seconds`, exactly as printed.
fn lag(m: &BTreeMap<String, String>) -> Duration {
    let text = &m["noidr_follow_lag_seconds"];
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let nanos: u32 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().unwrap()
    };
    Duration::new(whole.parse().unwrap(), nanos)
}
