//! A standby promoted, writes continue (docs/SCALING.md, "What fails and what
//! happens"): a real primary and a real hot standby streaming from it synchronously,
//! a minter whose URL names both (`target_session_attrs=read-write` picks the one that
//! takes writes), `noid mint` and `bind` before and after the primary crashes and the
//! standby is promoted, and a `noidr --follow` on the same URL that follows the
//! promoted standby to exactly the minter's keys (export compared). With asynchronous
//! replication, a standby promoted without the last commits: the follower that had
//! applied them copies the minter anew, and the ids of the lost mint are minted again
//! (why docs/SCALING.md asks for synchronous replication).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use noid_store::pg::testing::TestServer;

use crate::util::*;

/// `noid -f DIR ARGS…`; its stdout, which must succeed.
fn noid(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(noid_bin())
        .arg("-f")
        .arg(dir)
        .args(args)
        .env_remove("NOID")
        .output()
        .expect("run noid");
    assert!(out.status.success(), "noid {args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The ids of `mint` output (`id: ID` lines).
fn ids(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(str::to_string)
        .collect()
}

/// How long a test waits for an answer to change (see [`Noidr::ask_until`]).
const WITHIN: Duration = Duration::from_secs(180);

const TEMPLATE: &[&str] = &["f5.reedeedk", "long", "13030", "example.org", "oac"];

#[test]
fn a_standby_promoted_after_the_primary_crashed_takes_the_writes_and_the_follower_follows() {
    let mut primary = TestServer::start();
    primary.create_database("ha");
    let standby = TestServer::standby_of(&primary);
    // Synchronous replication: a commit returns once the standby has it, so nothing
    // acknowledged (no id printed) is lost when the standby takes over.
    let mut admin = postgres::Client::connect(&primary.url("postgres"), postgres::NoTls).unwrap();
    for sql in [
        "ALTER SYSTEM SET synchronous_standby_names = '*'",
        "SELECT pg_reload_conf()",
    ] {
        admin.batch_execute(sql).unwrap();
    }
    let start = Instant::now();
    while admin
        .query_one(
            "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0)
        != 1
    {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the standby never became synchronous:\n{}",
            standby.log_text()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(admin);
    let url = format!(
        "postgres://noid@127.0.0.1:{},127.0.0.1:{}/ha?target_session_attrs=read-write",
        primary.port(),
        standby.port()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("fk"), tmp.path().join("cache"));
    let mut create = vec!["dbcreate", "--backend", &url, "--minter", "fk"];
    create.extend_from_slice(TEMPLATE);
    noid(&dir, &create);
    let mut printed = ids(&noid(&dir, &["mint", "20"]));
    noid(
        &dir,
        &[
            "bind",
            "set",
            &printed[0],
            "_t",
            "https://example.org/before",
        ],
    );
    let mut cmd = Command::new(noidr_bin());
    cmd.args(["--follow", &url, "--minter", "fk", "--cache"])
        .arg(&cache)
        .args(["--poll", "0.2"]);
    let mut follower = Noidr::spawn(cmd);
    let get0 = format!("get {} _t", printed[0]);
    assert_eq!(follower.ask(&get0), "https://example.org/before");

    // The primary fails; the standby is promoted. The same URL now reaches it.
    primary.crash();
    standby.promote();
    printed.extend(ids(&noid(&dir, &["mint", "20"])));
    noid(
        &dir,
        &[
            "bind",
            "set",
            &printed[20],
            "_t",
            "https://example.org/after",
        ],
    );
    noid(
        &dir,
        &[
            "bind",
            "set",
            &printed[0],
            "_t",
            "https://example.org/moved",
        ],
    );
    printed.extend(ids(&noid_stdin(&dir, b"mint 5\nmint 5\n")));

    // No id printed twice, and none skipped: the 50 are the embedded backend's first 50.
    assert_eq!(printed.len(), 50);
    let distinct: BTreeSet<_> = printed.iter().cloned().collect();
    assert_eq!(distinct.len(), 50, "an id was printed twice: {printed:?}");
    let embedded = tmp.path().join("embedded");
    let mut create = vec!["dbcreate"];
    create.extend_from_slice(TEMPLATE);
    noid(&embedded, &create);
    let reference: BTreeSet<_> = ids(&noid(&embedded, &["mint", "50"])).into_iter().collect();
    assert_eq!(distinct, reference);

    // The follower reconnects to the promoted standby, on timeline 2, compares its copy
    // (which records the timeline it was verified on) and converges.
    let start = Instant::now();
    while std::fs::read_to_string(cache.join("NOID/pg-timeline"))
        .ok()
        .as_deref()
        != Some("2\n")
    {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "the follower never compared its copy on the new timeline"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    follower.ask_until(
        &format!("get {} _t", printed[20]),
        "https://example.org/after",
        WITHIN,
    );
    follower.ask_until(&get0, "https://example.org/moved", WITHIN);
    // The copy's export is the minter's, plus the change it is at (and so one record
    // more in the count at the end).
    let records = |export: String, extra: usize| -> String {
        let n = export.lines().filter(|l| !l.starts_with('#')).count() - extra;
        let mut kept: String = export
            .lines()
            .filter(|l| !l.starts_with(":/pg/applied\t") && !l.starts_with("# end "))
            .map(|l| format!("{l}\n"))
            .collect();
        kept.push_str(&format!("# end {n}\n"));
        kept
    };
    let want = noid(&dir, &["export"]);
    assert!(want.ends_with("\n# end 718\n"), "{want}");
    let want = records(want, 0);
    let start = Instant::now();
    loop {
        let copy = records(noid(&cache, &["export"]), 1);
        if copy == want {
            break;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let (a, b): (BTreeSet<&str>, BTreeSet<&str>) =
                (copy.lines().collect(), want.lines().collect());
            panic!(
                "the follower's copy never became the minter: only in the copy {:?}, only in the minter {:?}",
                a.difference(&b).collect::<Vec<_>>(),
                b.difference(&a).collect::<Vec<_>>()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(noid(&dir, &["check"]).ends_with("ok: no problems found\n"));
}

/// `noid -f DIR -` with `input` on stdin; its stdout, which must succeed.
fn noid_stdin(dir: &Path, input: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new(noid_bin())
        .arg("-f")
        .arg(dir)
        .arg("-")
        .env_remove("NOID")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run noid");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "noid -: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The change-log head of minter `fk` on `server` (None: no such row yet).
fn head_on(server: &TestServer, db: &str) -> Option<i64> {
    let mut c = postgres::Client::connect(&server.url(db), postgres::NoTls).ok()?;
    c.query_opt("SELECT log_seq FROM noid_minters WHERE name = 'fk'", &[])
        .ok()?
        .map(|r| r.get(0))
}

#[test]
fn a_standby_promoted_without_the_last_commits_makes_the_follower_copy_anew() {
    let mut primary = TestServer::start();
    primary.create_database("async");
    let mut standby = TestServer::standby_of(&primary);
    let url = format!(
        "postgres://noid@127.0.0.1:{},127.0.0.1:{}/async?target_session_attrs=read-write",
        primary.port(),
        standby.port()
    );
    let tmp = tempfile::tempdir().unwrap();
    let (dir, cache) = (tmp.path().join("fk"), tmp.path().join("cache"));
    let mut create = vec!["dbcreate", "--backend", &url, "--minter", "fk"];
    create.extend_from_slice(TEMPLATE);
    noid(&dir, &create);
    let first = ids(&noid(&dir, &["mint", "10"]));
    noid(
        &dir,
        &["bind", "set", &first[0], "_t", "https://example.org/kept"],
    );
    // The standby has every commit so far (3: dbcreate, mint, bind); then it stops.
    let start = Instant::now();
    while head_on(&standby, "async") != Some(3) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the standby never caught up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    standby.stop();
    let mut cmd = Command::new(noidr_bin());
    cmd.args(["--follow", &url, "--minter", "fk", "--cache"])
        .arg(&cache)
        .args(["--poll", "0.2"]);
    let mut follower = Noidr::spawn(cmd);
    // Two commits the standby never gets, which the follower applies.
    let lost = ids(&noid(&dir, &["mint", "5"]));
    noid(
        &dir,
        &["bind", "set", &first[0], "_t", "https://example.org/lost"],
    );
    let get0 = format!("get {} _t", first[0]);
    follower.ask_until(&get0, "https://example.org/lost", WITHIN);
    // The primary crashes; the standby comes back and is promoted, at change 3.
    primary.crash();
    standby.restart();
    standby.promote();
    assert_eq!(head_on(&standby, "async"), Some(3));
    // The follower's copy (at change 5) is ahead of the minter: made anew.
    follower.ask_until(&get0, "https://example.org/kept", WITHIN);
    // The lost mint's ids come out again: printed twice.
    assert_eq!(ids(&noid(&dir, &["mint", "5"])), lost);
    noid(
        &dir,
        &["bind", "set", &first[1], "_t", "https://example.org/after"],
    );
    follower.ask_until(
        &format!("get {} _t", first[1]),
        "https://example.org/after",
        WITHIN,
    );
    drop(follower);
    let want = noid(&dir, &["export"]);
    let copy: String = noid(&cache, &["export"])
        .lines()
        .filter(|l| !l.starts_with(":/pg/applied\t") && !l.starts_with("# end "))
        .map(|l| format!("{l}\n"))
        .collect();
    let want_records: String = want
        .lines()
        .filter(|l| !l.starts_with("# end "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(copy, want_records, "the copy is the promoted minter");
}
