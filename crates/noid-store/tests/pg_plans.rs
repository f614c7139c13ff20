//! A writer reads only the rows it needs, whatever PostgreSQL's statistics say about
//! `noid_rows`: statistics taken before its minter had rows (a minter added to a shared
//! database), or a table emptied and vacuumed before a load. Counted by the server
//! itself (`pg_stat_user_indexes`, `pg_stat_user_tables`), with autovacuum off on the
//! table so that no ANALYZE refreshes the statistics half way.

use std::time::{Duration, Instant};

use noid_core::Lookup;
use noid_store::pg::testing::TestServer;
use noid_store::pg::{Location, PgWriter};
use noid_store::{Op, Store};

fn put(k: &str, v: &str) -> Op {
    Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

fn client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connect")
}

/// Run each of `statements` on its own (`VACUUM` refuses a transaction block, which
/// several statements in one string make), in a session closed afterwards.
fn run_each(url: &str, statements: &[&str]) {
    let mut c = client(url);
    for sql in statements {
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// The puts of a mint of `n` identifiers `PREFIX0`, `PREFIX1` …: a circulation record
/// and its hold each.
fn minted(prefix: &str, n: usize) -> Vec<Op> {
    (0..n)
        .flat_map(|i| {
            [
                put(&format!("{prefix}{i}\t:/c"), "i|1"),
                put(&format!("{prefix}{i}\t:/h"), "1"),
            ]
        })
        .collect()
}

/// The server's counters for `noid_rows` once every other session has ended (a
/// backend reports its counts when it exits): index entries read through its primary
/// key, and sequential scans of it.
fn counters(url: &str) -> (i64, i64) {
    let mut c = client(url);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let others: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
                &[],
            )
            .expect("sessions")
            .get(0);
        if others == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{others} sessions still open");
        std::thread::sleep(Duration::from_millis(20));
    }
    c.batch_execute("SELECT pg_stat_clear_snapshot()")
        .expect("fresh counters");
    let row = c
        .query_one(
            "SELECT i.idx_tup_read, t.seq_scan FROM pg_stat_user_indexes i \
             JOIN pg_stat_user_tables t ON t.relid = i.relid \
             WHERE i.indexrelname = 'noid_rows_pkey'",
            &[],
        )
        .expect("counters");
    (row.get(0), row.get(1))
}

/// Small commits to a minter the statistics have never seen: each deletes an element,
/// releases a minted identifier's hold (its row's flag cleared), deletes a minted
/// identifier's circulation record (its flagged hold written out as a row first) and
/// mints one more. Such commits once read all of the minter's rows, three times each
/// (an index scan by minter alone, the keys filtered out of it): 12 commits read
/// 720,000 index entries here. Now each key is one probe.
#[test]
fn small_commits_probe_their_keys_when_the_statistics_predate_the_minter() {
    let server = TestServer::start();
    let url = server.create_database("plans");
    let old = PgWriter::create(
        &Location::new(&url, "old").unwrap(),
        Duration::from_secs(10),
    )
    .expect("create");
    old.commit_all(&mut minted("o", 20_000)).expect("mint");
    drop(old);
    run_each(
        &url,
        &[
            "ALTER TABLE noid_rows SET (autovacuum_enabled = false)",
            "ANALYZE noid_rows",
        ],
    );

    let loc = Location::new(&url, "new").unwrap();
    let w = PgWriter::create(&loc, Duration::from_secs(10)).expect("create");
    w.commit_all(&mut minted("n", 20_000)).expect("mint");
    drop(w);
    let (read_before, _) = counters(&url);

    let w = PgWriter::open(&loc, Duration::from_secs(10)).expect("open");
    for i in 0..12 {
        let mut ops = vec![
            put(&format!("n{i}\tnote"), "x"),
            Op::Delete(format!("n{}\tnote", i + 100).into_bytes()),
            Op::Delete(format!("n{}\t:/h", i + 200).into_bytes()),
            Op::Delete(format!("n{}\t:/c", i + 300).into_bytes()),
        ];
        ops.extend(minted(&format!("x{i}_"), 1));
        w.commit_all(&mut ops).expect("a small commit");
    }
    // What the commits did, read back.
    assert_eq!(w.get(b"n200\t:/h").unwrap(), None, "hold released");
    assert_eq!(w.get(b"n200\t:/c").unwrap(), Some(b"i|1".to_vec()));
    assert_eq!(w.get(b"n300\t:/c").unwrap(), None, "record deleted");
    assert_eq!(
        w.get(b"n300\t:/h").unwrap(),
        Some(b"1".to_vec()),
        "its hold kept"
    );
    assert_eq!(w.get(b"x11_0\t:/h").unwrap(), Some(b"1".to_vec()));
    drop(w);
    let (read_after, _) = counters(&url);
    let read = read_after - read_before;
    assert!(
        read < 2_000,
        "12 small commits and 5 reads took {read} index entries (20,000 per scan of the minter)"
    );
}

/// A table emptied and vacuumed before a load: the writer's reads, planned while it
/// was empty, once kept a sequential scan as the table grew (a 1M-binding load took
/// 50 s instead of 14 s). Now no statement of the writer scans the table.
#[test]
fn reads_keep_to_the_index_after_the_table_was_emptied() {
    let server = TestServer::start();
    let url = server.create_database("plans");
    let a = PgWriter::create(&Location::new(&url, "a").unwrap(), Duration::from_secs(10))
        .expect("create");
    a.commit_all(&mut minted("a", 5_000)).expect("mint");
    drop(a);
    run_each(
        &url,
        &[
            "ALTER TABLE noid_rows SET (autovacuum_enabled = false)",
            "DELETE FROM noid_rows",
            "VACUUM ANALYZE noid_rows",
        ],
    );
    let (_, scans_before) = counters(&url);

    let w = PgWriter::create(&Location::new(&url, "b").unwrap(), Duration::from_secs(10))
        .expect("create");
    let read = |w: &PgWriter| {
        for i in 0..8 {
            w.get(format!("b{i}\t:/c").as_bytes()).expect("get");
        }
    };
    read(&w);
    for round in 0..4 {
        w.commit_all(&mut minted(&format!("b{round}_"), 5_000))
            .expect("mint");
        read(&w);
    }
    assert_eq!(w.get(b"b3_4999\t:/c").unwrap(), Some(b"i|1".to_vec()));
    drop(w);
    let (_, scans_after) = counters(&url);
    assert_eq!(
        scans_after - scans_before,
        0,
        "sequential scans of noid_rows"
    );
}
