//! A PostgreSQL writer's second connection (`Store::open_pipeline`), against a real
//! PostgreSQL server: the writers' lock is held, shared by both connections, for as
//! long as either lives, so no other writer can slip in when one of them ends; and a
//! commit made after another (`Store::commit_after`) is applied only once that one
//! succeeded, in order, and not at all after a failure.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use noid_store::pg::schema::{decode_changes, LOCK_CLASS};
use noid_store::pg::testing::{session_setting, TestServer};
use noid_store::pg::{Location, PgWriter};
use noid_store::{Op, Store};

fn minter(server: &TestServer, db: &str) -> (String, PgWriter) {
    let url = server.create_database(db);
    let loc = Location::new(&url, "m").unwrap();
    let w = PgWriter::create(&loc, Duration::from_secs(10)).expect("create");
    (url, w)
}

fn client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connect")
}

fn put(k: &str, v: &str) -> Op {
    Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

/// `n` new identifiers' keys, as a mint's batch writes them, and the minter's counter.
fn batch(tag: &str, n: usize) -> Vec<Op> {
    let mut ops: Vec<Op> = (0..n)
        .flat_map(|i| {
            [
                put(&format!("{tag}{i:05}\t:/c"), "i|20261127000000|test|0"),
                put(&format!("{tag}{i:05}\t:/h"), "1"),
            ]
        })
        .collect();
    ops.push(put(":/oacounter", tag));
    ops
}

/// The keys the table `noid_rows` stands for: a row each, and a hold for each
/// circulation record's row flagged (these tests write no hold of its own beside a
/// flag).
fn key_count(c: &mut postgres::Client) -> i64 {
    c.query_one(
        "SELECT count(*) + count(*) FILTER (WHERE held) FROM noid_rows",
        &[],
    )
    .expect("count")
    .get(0)
}

/// The advisory locks on minter `m`'s writers' lock key: (backend pid, mode), sorted.
fn holders(c: &mut postgres::Client) -> Vec<(i32, String)> {
    let mut h: Vec<(i32, String)> = c
        .query(
            "SELECT l.pid, l.mode FROM pg_locks l, noid_minters m \
             WHERE l.locktype = 'advisory' AND l.classid::bigint = $1 \
             AND l.objid::bigint = m.id AND l.objsubid = 2 AND l.granted AND m.name = 'm'",
            &[&(LOCK_CLASS as i64)],
        )
        .expect("pg_locks")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    h.sort();
    h
}

/// Whether another session could take the writers' lock now (it releases it at once).
fn lock_is_free(c: &mut postgres::Client) -> bool {
    let free: bool = c
        .query_one(
            "SELECT pg_try_advisory_lock($1, (SELECT id::int FROM noid_minters WHERE name = 'm'))",
            &[&LOCK_CLASS],
        )
        .expect("try the lock")
        .get(0);
    if free {
        c.execute(
            "SELECT pg_advisory_unlock($1, (SELECT id::int FROM noid_minters WHERE name = 'm'))",
            &[&LOCK_CLASS],
        )
        .expect("unlock");
    }
    free
}

#[test]
fn two_connections_share_the_writers_lock_and_hold_it_until_both_are_gone() {
    let server = TestServer::start();
    let (url, w) = minter(&server, "lock");
    let mut other = client(&url);
    let before = holders(&mut other);
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before[0].1, "ExclusiveLock");
    assert_eq!(w.open_pipeline(), 2);
    let shared = holders(&mut other);
    let pids: Vec<i32> = shared.iter().map(|h| h.0).collect();
    assert_eq!(
        shared.iter().map(|h| h.1.as_str()).collect::<Vec<_>>(),
        ["ShareLock", "ShareLock"],
        "{shared:?}"
    );
    assert!(
        pids.contains(&before[0].0),
        "the first connection is one of them"
    );
    assert!(!lock_is_free(&mut other));
    // One connection's session ends (its backend terminated): the other keeps the lock.
    for (i, pid) in pids.iter().enumerate() {
        other
            .execute("SELECT pg_terminate_backend($1)", &[pid])
            .expect("terminate");
        let deadline = Instant::now() + Duration::from_secs(10);
        while holders(&mut other).iter().any(|h| h.0 == *pid) {
            assert!(
                Instant::now() < deadline,
                "backend {pid} still holds the lock"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            lock_is_free(&mut other),
            i == 1,
            "after {} of 2 ended",
            i + 1
        );
    }
    drop(w);
}

#[test]
fn a_commit_after_one_that_failed_applies_nothing_and_commits_keep_their_order() {
    let server = TestServer::start();
    let (url, w) = minter(&server, "ordering");
    let mut c = client(&url);
    let head = |c: &mut postgres::Client| -> i64 {
        c.query_one("SELECT log_seq FROM noid_minters WHERE name = 'm'", &[])
            .expect("head")
            .get(0)
    };
    let keys = |c: &mut postgres::Client| -> i64 { key_count(c) };
    assert_eq!(w.open_pipeline(), 2);
    let (h0, k0) = (head(&mut c), keys(&mut c));
    // A large commit (its new keys sent by COPY before `previous` is asked) and a small
    // one (one statement), each after a failed commit: nothing of them is applied.
    for ops in [batch("a", 2_000), vec![put("b\t:/c", "x")]] {
        let mut ops = ops;
        assert!(w.commit_after(&mut ops, &|| false).is_err());
        assert_eq!((head(&mut c), keys(&mut c)), (h0, k0), "nothing applied");
    }
    // Two large commits in flight at once, the second made after the first: both are
    // applied, in order (the change log's rows are numbered as they were made).
    let (tx, rx) = mpsc::channel::<bool>();
    let rx = std::sync::Mutex::new(rx);
    std::thread::scope(|s| {
        let first = s.spawn(|| {
            let mut ops = batch("p", 20_000);
            let r = w.commit_all(&mut ops);
            tx.send(r.is_ok()).unwrap();
            r
        });
        let second = s.spawn(|| {
            let mut ops = batch("q", 20_000);
            w.commit_after(&mut ops, &|| rx.lock().unwrap().recv().unwrap())
        });
        first.join().unwrap().expect("the first commit");
        second.join().unwrap().expect("the second commit");
    });
    assert_eq!(head(&mut c), h0 + 2);
    assert_eq!(
        keys(&mut c),
        k0 + 2 * 40_001 - 1,
        "both, and one :/oacounter"
    );
    let rows = c
        .query(
            "SELECT l.changes FROM noid_log l JOIN noid_minters m ON m.id = l.minter \
             WHERE m.name = 'm' AND l.seq > $1 ORDER BY l.seq",
            &[&h0],
        )
        .expect("the log");
    let counters: Vec<Vec<u8>> = rows
        .iter()
        .map(|r| {
            let ops = decode_changes(r.get(0)).expect("decode");
            assert_eq!(ops.len(), 40_001);
            ops.into_iter()
                .find_map(|op| match op {
                    Op::Put(k, v) if k == b":/oacounter" => Some(v),
                    _ => None,
                })
                .expect("the counter")
        })
        .collect();
    assert_eq!(counters, [b"p".to_vec(), b"q".to_vec()]);
    let counter: Vec<u8> = c
        .query_one(
            "SELECT value FROM noid_rows WHERE key = ':/oacounter'::bytea",
            &[],
        )
        .expect("the counter")
        .get(0);
    assert_eq!(counter, b"q", "the later commit's value stands");
}

/// A large commit's new keys go by one binary `COPY`: every byte of keys and values
/// arrives (NUL, 0xff, empty, long), and when one key exists after all the commit is
/// applied as upserts instead, the existing key taking its new value.
#[test]
fn a_large_commits_keys_arrive_byte_for_byte_and_an_existing_key_is_updated() {
    let server = TestServer::start();
    let (url, w) = minter(&server, "copy");
    let mut c = client(&url);
    let odd: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (b"nul\0key\t:/c".to_vec(), b"\0\xff\x00".to_vec()),
        (b"\xff\xfe\t:/h".to_vec(), Vec::new()),
        (b"long\tnote".to_vec(), vec![b'x'; 300_000]),
    ];
    let mut ops = batch("a", 1_500);
    ops.extend(odd.iter().map(|(k, v)| Op::Put(k.clone(), v.clone())));
    w.commit_all(&mut ops).expect("the first commit");
    let value = |c: &mut postgres::Client, k: &[u8]| -> Option<Vec<u8>> {
        // A hold packed into its circulation record's row (`ID\t:/c` flagged) reads 1.
        if let Some(id) = k.strip_suffix(b"\t:/h") {
            let circ = [id, b"\t:/c"].concat();
            let flagged = c
                .query_opt("SELECT held FROM noid_rows WHERE key = $1", &[&circ])
                .expect("read")
                .is_some_and(|r| r.get(0));
            if flagged {
                return Some(b"1".to_vec());
            }
        }
        c.query_opt("SELECT value FROM noid_rows WHERE key = $1", &[&k])
            .expect("read")
            .map(|r| r.get(0))
    };
    for (k, v) in &odd {
        assert_eq!(value(&mut c, k).as_deref(), Some(&v[..]), "{k:?}");
    }
    assert_eq!(
        value(&mut c, b"a00042\t:/c").as_deref(),
        Some(&b"i|20261127000000|test|0"[..])
    );
    // The second commit's new keys include one the first wrote.
    let mut ops = batch("b", 1_500);
    ops.push(put("a00042\t:/c", "q|20261128000000|again|1"));
    w.commit_all(&mut ops).expect("the second commit");
    assert_eq!(
        value(&mut c, b"a00042\t:/c").as_deref(),
        Some(&b"q|20261128000000|again|1"[..])
    );
    assert_eq!(value(&mut c, b"b01499\t:/h").as_deref(), Some(&b"1"[..]));
    assert_eq!(
        key_count(&mut c),
        2 * 3_000 + 3 + 1,
        "both batches, the odd keys, one :/oacounter"
    );
    let rows: i64 = c
        .query_one("SELECT count(*) FROM noid_rows", &[])
        .expect("count")
        .get(0);
    assert_eq!(
        rows,
        2 * 1_500 + 3 + 1,
        "a row per identifier: the holds of value 1 are flags"
    );
}

/// noid's sessions run with JIT compilation off, whatever the database's default: the
/// planner's estimate for a bulk run's statements passes `jit_above_cost`, and the
/// compilation only costs.
#[test]
fn sessions_run_without_jit_compilation() {
    let server = TestServer::start();
    let url = server.create_database("jit");
    client(&url)
        .batch_execute("ALTER DATABASE jit SET jit = on; ALTER DATABASE jit SET jit_above_cost = 0")
        .expect("turn JIT on for the database");
    assert_eq!(
        client(&url)
            .query_one("SHOW jit", &[])
            .expect("show")
            .get::<_, String>(0),
        "on",
        "a plain session has it on"
    );
    assert_eq!(session_setting(&url, "jit"), "off");
}
