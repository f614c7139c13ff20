//! Local copies of a PostgreSQL minter (`Replica`), against a real PostgreSQL server:
//! a bootstrap copies every key, the change log brings each copy up to date with whole
//! commits in order, a copy reopened later resumes where it stopped, one that cannot
//! follow the log (pruned, or a minter behind it) is made anew, and `follow` applies a
//! commit once notified; `verify` finds a copy that differs from the minter (damaged
//! on disk, a damaged log row applied, a history the minter no longer has) and makes
//! it anew; `prune` drops the commits asked for.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use noid_store::pg::prune::{prune, Followers, Keep, Pruned};
use noid_store::pg::testing::TestServer;
use noid_store::pg::{Location, PgWriter, Progress, Replica, APPLIED};
use noid_store::{Op, Scan, Snapshot, Store, Writer};

type Keys = BTreeMap<Vec<u8>, Vec<u8>>;

/// Every key of the embedded store in `dir`.
fn copy_of(dir: &std::path::Path) -> Keys {
    let snap = Snapshot::open(dir).expect("open the copy");
    let mut keys = Keys::new();
    Scan::scan_from(&snap, b"", &mut |k, v| {
        keys.insert(k.to_vec(), v.to_vec());
        true
    })
    .expect("scan the copy");
    keys
}

/// Every key of the minter at `loc`, and the applied key a copy as of `seq` adds.
fn expected(loc: &Location, seq: i64) -> Keys {
    let snap = noid_store::pg::PgSnapshot::open(loc).expect("snapshot");
    let mut keys = Keys::new();
    snap.scan_from(b"", &mut |k, v| {
        keys.insert(k.to_vec(), v.to_vec());
        true
    })
    .expect("scan");
    keys.insert(APPLIED.to_vec(), seq.to_string().into_bytes());
    keys
}

fn put(k: &str, v: &str) -> Op {
    Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

fn minter(server: &TestServer, db: &str) -> (Location, PgWriter) {
    let url = server.create_database(db);
    let loc = Location::new(&url, "m").unwrap();
    let w = PgWriter::create(&loc, Duration::from_secs(10)).expect("create");
    (loc, w)
}

#[test]
fn a_copy_bootstraps_then_applies_whole_commits_in_order() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "boot");
    // More keys than one write batch of the bootstrap's first table file holds.
    let mut ops: Vec<Op> = (0..25_000)
        .map(|i| {
            put(
                &format!("99999/x{i:05}\t_t"),
                &format!("https://example.org/{i}"),
            )
        })
        .collect();
    w.commit_all(&mut ops).unwrap();
    w.commit_all(&mut vec![put(":/oacounter", "7")]).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.applied().unwrap(), None);
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 2 });
    let copy = copy_of(&dir);
    assert_eq!(copy.len(), 25_002);
    assert_eq!(copy, expected(&loc, 2));
    assert_eq!(r.sync().unwrap(), Progress::Current { seq: 2 });
    // Three commits: a put, a change and a delete, and a put of a deleted key.
    w.commit_all(&mut vec![put("a\t_t", "1")]).unwrap();
    w.commit_all(&mut vec![
        put("a\t_t", "2"),
        Op::Delete(b"99999/x00000\t_t".to_vec()),
    ])
    .unwrap();
    w.commit_all(&mut vec![put("99999/x00000\t_t", "back")])
        .unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Applied { from: 3, to: 5 });
    let copy = copy_of(&dir);
    assert_eq!(copy.get(&b"a\t_t"[..]).map(Vec::as_slice), Some(&b"2"[..]));
    assert_eq!(
        copy.get(&b"99999/x00000\t_t"[..]).map(Vec::as_slice),
        Some(&b"back"[..])
    );
    assert_eq!(copy, expected(&loc, 5));
    // A second replica over the same copy (a restarted follower) resumes at 5.
    drop(r);
    w.commit_all(&mut vec![Op::Delete(b"a\t_t".to_vec())])
        .unwrap();
    let mut again = Replica::new(&loc, &dir).unwrap();
    assert_eq!(again.applied().unwrap(), Some(5));
    assert_eq!(again.sync().unwrap(), Progress::Applied { from: 6, to: 6 });
    assert_eq!(copy_of(&dir), expected(&loc, 6));
    assert!(!copy_of(&dir).contains_key(&b"a\t_t"[..]));
}

/// The bootstrap streams PostgreSQL's `ORDER BY key` straight into RocksDB table files,
/// which take keys only in RocksDB's bytewise order: `bytea` must sort the same way
/// (memcmp, then the shorter first), high bytes, zero bytes and prefixes included.
#[test]
fn a_bootstrap_copies_keys_in_bytewise_order_with_any_bytes() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "bytes");
    let big = vec![0xa5u8; 1 << 20];
    // Hand-sorted by bytes; the copy's applied key (":/pg/applied", ':' is 0x3a) goes
    // between "9" and "a".
    let want: Vec<(&[u8], &[u8])> = vec![
        (b"\x00", b"zero"),
        (b"9", b""),
        (b":/pg/applied", b"1"),
        (b"a", b"\x00\xff\x00"),
        (b"a\x00", b"1"),
        (b"a\x01", b"2"),
        (b"ab", &big),
        (b"a\x7f", b"3"),
        (b"a\x80", b"4"),
        (b"a\xff", b"5"),
        (b"b", b"6"),
        (b"\xc3\xa9", b"7"),
        (b"\xff\xff", b"8"),
    ];
    // Committed in another order.
    let mut ops: Vec<Op> = want
        .iter()
        .rev()
        .filter(|(k, _)| *k != APPLIED)
        .map(|(k, v)| Op::Put(k.to_vec(), v.to_vec()))
        .collect();
    w.commit_all(&mut ops).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 1 });
    let snap = Snapshot::open(&dir).expect("open the copy");
    let mut got = Vec::new();
    Scan::scan_from(&snap, b"", &mut |k, v| {
        got.push((k.to_vec(), v.to_vec()));
        true
    })
    .unwrap();
    let want: Vec<(Vec<u8>, Vec<u8>)> =
        want.iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect();
    assert_eq!(got, want);
}

/// A follower killed while copying leaves its staging directory (and, while replacing a
/// copy, the old one) behind, as large as a copy; the next bootstrap removes both, and
/// leaves a live process's directory alone.
#[test]
fn a_bootstrap_removes_what_a_killed_one_left() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "swept");
    w.commit_all(&mut vec![put("k", "1")]).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    // A process id that is gone: a child that has exited and been waited for.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    let live = std::process::id();
    for name in [
        format!(".bootstrap-{gone}"),
        format!(".replaced-{gone}"),
        format!(".bootstrap-{live}-other"),
    ] {
        std::fs::create_dir_all(dir.join(&name).join("NOID")).unwrap();
        std::fs::write(dir.join(&name).join("NOID/000001.sst"), b"left").unwrap();
    }
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 1 });
    let mut left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [format!(".bootstrap-{live}-other"), "NOID".to_string()]
    );
    assert_eq!(copy_of(&dir), expected(&loc, 1));
}

#[test]
fn a_copy_that_cannot_follow_the_log_is_made_anew() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "pruned");
    w.commit_all(&mut vec![put("k", "1"), put("gone", "x")])
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 1 });
    w.commit_all(&mut vec![put("k", "2")]).unwrap();
    w.commit_all(&mut vec![put("k", "3"), Op::Delete(b"gone".to_vec())])
        .unwrap();
    // The log pruned past the copy's position: a gap.
    let mut c = postgres::Client::connect(&loc.url, postgres::NoTls).unwrap();
    c.execute("DELETE FROM noid_log WHERE seq = 2", &[])
        .unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Remade { seq: 3 });
    assert_eq!(copy_of(&dir), expected(&loc, 3));
    assert!(!copy_of(&dir).contains_key(&b"gone"[..]));
    // Every row after the copy's position pruned.
    w.commit_all(&mut vec![put("k", "4")]).unwrap();
    c.execute("DELETE FROM noid_log WHERE seq = 4", &[])
        .unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Remade { seq: 4 });
    assert_eq!(copy_of(&dir), expected(&loc, 4));
    // A minter behind its copy (a standby promoted before it had every change): the
    // copy becomes the minter as it is.
    c.execute("UPDATE noid_minters SET log_seq = 2", &[])
        .unwrap();
    c.execute("DELETE FROM noid_rows WHERE key = 'k'::bytea", &[])
        .unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Remade { seq: 2 });
    assert_eq!(copy_of(&dir), expected(&loc, 2));
    assert!(!copy_of(&dir).contains_key(&b"k"[..]));
    // Nothing is left of the staging or the replaced copies.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["NOID"]);
}

#[test]
fn a_follower_applies_a_notified_commit() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "follow");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (loc2, dir2, stop) = (loc.clone(), dir.clone(), &stop);
        let follower = s.spawn(move || {
            let mut r = Replica::new(&loc2, &dir2).unwrap();
            // A long poll: the commit below must arrive by notification.
            r.follow(Duration::from_secs(3600), stop, |_, _| {})
        });
        // Wait for the bootstrap, then commit.
        let start = Instant::now();
        while !dir.join("NOID").exists() {
            assert!(start.elapsed() < Duration::from_secs(120), "no bootstrap");
            std::thread::sleep(Duration::from_millis(20));
        }
        w.commit_all(&mut vec![put("99999/x\t_t", "https://example.org/")])
            .unwrap();
        let start = Instant::now();
        while !copy_of(&dir).contains_key(&b"99999/x\t_t"[..]) {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the notified commit was never applied"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        stop.store(true, Ordering::Relaxed);
        // Wake the follower so that it sees `stop`.
        w.commit_all(&mut vec![put("wake", "1")]).unwrap();
        follower.join().unwrap().unwrap();
    });
}

#[test]
fn verification_finds_a_copy_that_differs_and_makes_it_anew() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "verify");
    w.commit_all(&mut vec![put("99999/a\t_t", "A"), put("99999/b\t_t", "B")])
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.verify().unwrap(), Progress::Bootstrapped { seq: 1 });
    // A new cluster is on timeline 1; the copy says so.
    let timeline = dir.join("NOID/pg-timeline");
    assert_eq!(std::fs::read_to_string(&timeline).unwrap(), "1\n");
    std::fs::remove_file(&timeline).unwrap();
    assert_eq!(r.verify().unwrap(), Progress::Verified { seq: 1 });
    assert_eq!(std::fs::read_to_string(&timeline).unwrap(), "1\n");
    // A commit not yet applied: verification applies it first, then compares.
    w.commit_all(&mut vec![put("99999/c\t_t", "C")]).unwrap();
    assert_eq!(r.verify().unwrap(), Progress::Verified { seq: 2 });
    assert_eq!(r.head_seen(), Some(2));
    assert_eq!(copy_of(&dir), expected(&loc, 2));
    // The copy damaged on disk: a value changed, a key added, a key removed; each is
    // found, and the copy made anew equals the minter.
    let damages: [Op; 3] = [
        put("99999/a\t_t", "tampered"),
        put("99999/x\t_t", "extra"),
        Op::Delete(b"99999/b\t_t".to_vec()),
    ];
    for damage in damages {
        Writer::open(&dir, Duration::from_secs(10))
            .unwrap()
            .commit(vec![damage.clone()])
            .unwrap();
        assert_ne!(copy_of(&dir), expected(&loc, 2));
        // A sync sees nothing wrong: the applied number is right.
        assert_eq!(
            r.sync().unwrap(),
            Progress::Current { seq: 2 },
            "{damage:?}"
        );
        assert_eq!(
            r.verify().unwrap(),
            Progress::Remade { seq: 2 },
            "{damage:?}"
        );
        assert_eq!(copy_of(&dir), expected(&loc, 2));
    }
    // A damaged change-log row that still decodes, applied as it is: the copy differs
    // from the keys. The row, by hand (schema.rs): version 1, put, key length 10, the
    // key, value length 7, "damaged".
    w.commit_all(&mut vec![put("99999/d\t_t", "D")]).unwrap();
    let mut c = postgres::Client::connect(&loc.url, postgres::NoTls).unwrap();
    c.execute(
        concat!(
            "UPDATE noid_log SET changes = ",
            "'\\x01 50 0000000a 39393939392f64095f74 00000007 64616d61676564'::bytea ",
            "WHERE seq = 3"
        ),
        &[],
    )
    .unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Applied { from: 3, to: 3 });
    assert_eq!(
        copy_of(&dir).get(&b"99999/d\t_t"[..]).map(Vec::as_slice),
        Some(&b"damaged"[..])
    );
    assert_eq!(r.verify().unwrap(), Progress::Remade { seq: 3 });
    assert_eq!(copy_of(&dir), expected(&loc, 3));
    assert_eq!(r.verify().unwrap(), Progress::Verified { seq: 3 });
    // A row that does not decode (cut short, or another format version) is not
    // applied: the copy is made anew.
    let cut_short: &[u8] = &[1, b'P', 0, 0, 0, 10, b'9', b'9'];
    for damaged in [cut_short, &[2], b"damaged"] {
        w.commit_all(&mut vec![put("99999/e\t_t", "E")]).unwrap();
        let seq: i64 = c
            .query_one("SELECT log_seq FROM noid_minters", &[])
            .unwrap()
            .get(0);
        c.execute(
            "UPDATE noid_log SET changes = $1 WHERE seq = $2",
            &[&damaged, &seq],
        )
        .unwrap();
        assert_eq!(r.sync().unwrap(), Progress::Remade { seq }, "{damaged:?}");
        assert_eq!(copy_of(&dir), expected(&loc, seq));
    }
}

#[test]
fn a_copy_ahead_of_a_failed_over_minter_that_wrote_on_is_found_by_verification() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "diverged");
    w.commit_all(&mut vec![put("k", "1")]).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let mut r = Replica::new(&loc, &dir).unwrap();
    r.sync().unwrap();
    w.commit_all(&mut vec![put("k", "2"), put("lost", "x")])
        .unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Applied { from: 2, to: 2 });
    // A standby promoted without commit 2 (asynchronous replication), which then
    // took two commits of its own: its head (3) is past the copy's (2), but its
    // commit 2 is another one.
    let mut c = postgres::Client::connect(&loc.url, postgres::NoTls).unwrap();
    c.batch_execute(
        "DELETE FROM noid_log WHERE seq = 2; UPDATE noid_minters SET log_seq = 1; \
         UPDATE noid_rows SET value = '1'::bytea WHERE key = 'k'::bytea; \
         DELETE FROM noid_rows WHERE key = 'lost'::bytea",
    )
    .unwrap();
    w.commit_all(&mut vec![put("k", "other 2")]).unwrap();
    w.commit_all(&mut vec![put("m", "3")]).unwrap();
    // Following the log alone goes wrong: it applies commit 3 only.
    assert_eq!(r.sync().unwrap(), Progress::Applied { from: 3, to: 3 });
    assert_ne!(copy_of(&dir), expected(&loc, 3));
    assert_eq!(r.verify().unwrap(), Progress::Remade { seq: 3 });
    let copy = copy_of(&dir);
    assert_eq!(copy, expected(&loc, 3));
    assert_eq!(
        copy.get(&b"k"[..]).map(Vec::as_slice),
        Some(&b"other 2"[..])
    );
    assert!(!copy.contains_key(&b"lost"[..]));
}

#[test]
fn pruning_drops_the_rows_asked_for_and_a_copy_behind_them_is_made_anew() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "prune");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    w.commit_all(&mut vec![put("a", "1"), put("b", "1")])
        .unwrap();
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 1 });
    for i in 2..=5 {
        w.commit_all(&mut vec![put("a", &i.to_string())]).unwrap();
    }
    let seqs = |c: &mut postgres::Client| -> Vec<i64> {
        c.query("SELECT DISTINCT seq FROM noid_log ORDER BY seq", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    let mut c = postgres::Client::connect(&loc.url, postgres::NoTls).unwrap();
    // One row per commit: commit 1 wrote two keys, one row.
    assert_eq!(
        prune(&loc, Keep::From(2), Followers::Ignore).unwrap(),
        Pruned {
            commits: 1,
            first_kept: 2,
            head: 5,
            held_for: None
        }
    );
    assert_eq!(seqs(&mut c), [2, 3, 4, 5]);
    // The copy needs 2 onwards: still there.
    assert_eq!(r.sync().unwrap(), Progress::Applied { from: 2, to: 5 });
    assert_eq!(
        prune(&loc, Keep::Last(2), Followers::Ignore).unwrap(),
        Pruned {
            commits: 2,
            first_kept: 4,
            head: 5,
            held_for: None
        }
    );
    assert_eq!(seqs(&mut c), [4, 5]);
    w.commit_all(&mut vec![put("b", "6")]).unwrap();
    assert_eq!(
        prune(&loc, Keep::Last(0), Followers::Ignore).unwrap(),
        Pruned {
            commits: 3,
            first_kept: 7,
            head: 6,
            held_for: None
        }
    );
    assert!(seqs(&mut c).is_empty());
    // Nothing to prune is no error; a bound past the head drops nothing more.
    assert_eq!(
        prune(&loc, Keep::From(100), Followers::Ignore).unwrap(),
        Pruned {
            commits: 0,
            first_kept: 7,
            head: 6,
            held_for: None
        }
    );
    // The copy was at 5 and commit 6 is gone: it is made anew.
    assert_eq!(r.sync().unwrap(), Progress::Remade { seq: 6 });
    assert_eq!(copy_of(&dir), expected(&loc, 6));
}

#[test]
fn pruning_keeps_what_a_follower_behind_still_needs() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "behind");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    w.commit_all(&mut vec![put("a", "1")]).unwrap();
    let mut r = Replica::new(&loc, &dir).unwrap();
    r.set_name("web1");
    // The first sync records the follower's position at once.
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 1 });
    for i in 2..=5 {
        w.commit_all(&mut vec![put("a", &i.to_string())]).unwrap();
    }
    let respect = Followers::Respect {
        forget_after: Duration::from_secs(3600),
    };
    // Asked to drop the whole log, prune keeps what the follower at change 1 needs.
    assert_eq!(
        prune(&loc, Keep::Last(0), respect).unwrap(),
        Pruned {
            commits: 1,
            first_kept: 2,
            head: 5,
            held_for: Some(("web1".into(), 1)),
        }
    );
    // The follower catches up from the log: applied, not made anew.
    assert_eq!(r.sync().unwrap(), Progress::Applied { from: 2, to: 5 });
    assert_eq!(copy_of(&dir), expected(&loc, 5));
    // A follower not heard of within `forget_after` holds nothing back: its record
    // (change 1, written less than a second before change 5 was applied) is old.
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(
        prune(
            &loc,
            Keep::Last(0),
            Followers::Respect {
                forget_after: Duration::from_millis(10)
            }
        )
        .unwrap(),
        Pruned {
            commits: 4,
            first_kept: 6,
            head: 5,
            held_for: None,
        }
    );
}

#[test]
fn a_database_with_the_old_row_per_key_log_is_refused_clearly() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "oldlog");
    drop(w);
    // The first, unreleased layout: a log row per key.
    let mut c = postgres::Client::connect(&loc.url, postgres::NoTls).unwrap();
    c.batch_execute(
        "DROP TABLE noid_log; CREATE TABLE noid_log (minter bigint NOT NULL, \
         seq bigint NOT NULL, ord integer NOT NULL, key bytea NOT NULL, value bytea, \
         PRIMARY KEY (minter, seq, ord))",
    )
    .unwrap();
    let old = "its table noid_log has the old layout (a row per key, from a development \
               version of noid); noid now keeps a row per commit: copy the minters out \
               with noid export and into a new database with noid import";
    let err = PgWriter::open(&loc, Duration::from_secs(10))
        .err()
        .expect("an old log is refused")
        .to_string();
    assert!(err.ends_with(old), "{err}");
    let other = Location::new(&loc.url, "other").unwrap();
    let err = PgWriter::create(&other, Duration::from_secs(10))
        .err()
        .expect("an old log is refused")
        .to_string();
    assert!(err.ends_with(old), "{err}");
    let tmp = tempfile::tempdir().unwrap();
    let err = Replica::new(&loc, &tmp.path().join("copy"))
        .err()
        .expect("an old log is refused")
        .to_string();
    assert!(err.ends_with(old), "{err}");
    // Nothing was created.
    let minters: i64 = c
        .query_one("SELECT count(*) FROM noid_minters", &[])
        .unwrap()
        .get(0);
    assert_eq!(minters, 1);
}

#[test]
fn a_commit_of_more_keys_than_one_statement_takes_writes_them_all() {
    // 12,000 keys that exist (so the COPY gives way to upserts: two statements of
    // 5,000, the last 2,000 with the change-log row), a new one, a delete, the counter.
    let server = TestServer::start();
    let (loc, w) = minter(&server, "chunks");
    let key = |i: usize| format!("99999/c{i:05}\t_t");
    let mut first: Vec<Op> = (0..12_000).map(|i| put(&key(i), "old")).collect();
    w.commit_all(&mut first).unwrap();
    let mut ops: Vec<Op> = (0..12_000)
        .map(|i| put(&key(i), &format!("new{i}")))
        .collect();
    ops.push(put(&key(12_000), "added"));
    ops.push(Op::Delete(key(5).into_bytes()));
    ops.push(put(":/oacounter", "7"));
    w.commit_all(&mut ops).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 2 });
    let keys = copy_of(&dir);
    let value = |i: usize| keys.get(key(i).as_bytes()).cloned();
    for i in [0, 4_999, 5_000, 9_999, 10_000, 11_999] {
        assert_eq!(value(i), Some(format!("new{i}").into_bytes()), "key {i}");
    }
    assert_eq!(value(5), None);
    assert_eq!(value(12_000), Some(b"added".to_vec()));
    assert_eq!(keys.get(&b":/oacounter"[..]), Some(&b"7".to_vec()));
    // 11,999 + 1 identifiers' keys, the counter and the copy's applied number.
    assert_eq!(keys.len(), 12_002);
    let changed = keys.iter().filter(|(_, v)| v.starts_with(b"new")).count();
    assert_eq!(changed, 11_999);
}

#[test]
fn a_large_commit_over_keys_that_exist_updates_them() {
    let server = TestServer::start();
    let (loc, w) = minter(&server, "rewrite");
    let batch = |from: usize, to: usize, value: &str| -> Vec<Op> {
        (from..to)
            .map(|i| put(&format!("99999/r{i:05}\t_t"), value))
            .chain([put(":/oacounter", value)])
            .collect()
    };
    // 2,000 new keys, then 2,000 of which 1,000 exist (the last of them among the
    // first 1,000 written), then a delete and 2,000 new ones in one commit.
    w.commit_all(&mut batch(0, 2_000, "1")).unwrap();
    w.commit_all(&mut batch(1_000, 3_000, "2")).unwrap();
    let mut ops = batch(3_000, 5_000, "3");
    ops.push(Op::Delete(b"99999/r00000\t_t".to_vec()));
    w.commit_all(&mut ops).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("copy");
    let mut r = Replica::new(&loc, &dir).unwrap();
    assert_eq!(r.sync().unwrap(), Progress::Bootstrapped { seq: 3 });
    let keys = copy_of(&dir);
    let value = |i: usize| keys.get(format!("99999/r{i:05}\t_t").as_bytes()).cloned();
    assert_eq!(value(0), None);
    assert_eq!(value(999), Some(b"1".to_vec()));
    assert_eq!(value(1_000), Some(b"2".to_vec()));
    assert_eq!(value(1_999), Some(b"2".to_vec()));
    assert_eq!(value(2_999), Some(b"2".to_vec()));
    assert_eq!(value(4_999), Some(b"3".to_vec()));
    assert_eq!(keys.get(&b":/oacounter"[..]), Some(&b"3".to_vec()));
    // 4,999 identifiers' keys, the counter and the copy's applied number.
    assert_eq!(keys.len(), 5_001);
    // A copy that followed the three commits holds the same.
    let dir2 = tmp.path().join("copy2");
    let (loc2, w2) = minter(&server, "rewrite2");
    let mut r2 = Replica::new(&loc2, &dir2).unwrap();
    assert_eq!(r2.sync().unwrap(), Progress::Bootstrapped { seq: 0 });
    w2.commit_all(&mut batch(0, 2_000, "1")).unwrap();
    w2.commit_all(&mut batch(1_000, 3_000, "2")).unwrap();
    let mut ops = batch(3_000, 5_000, "3");
    ops.push(Op::Delete(b"99999/r00000\t_t".to_vec()));
    w2.commit_all(&mut ops).unwrap();
    assert_eq!(r2.sync().unwrap(), Progress::Applied { from: 1, to: 3 });
    assert_eq!(copy_of(&dir2), keys);
}
