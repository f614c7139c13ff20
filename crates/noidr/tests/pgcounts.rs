//! Several web nodes' resolution counts added up in the PostgreSQL database that holds
//! the minter: real `noidr --follow … --counts --http` nodes against a real server,
//! read back with the real `noid -f DIR stats` of the minter's directory (whose
//! `NOID/backend` names the database). The expected counts are the tests' own tally of
//! the requests they sent; "exactly once" is checked against the nodes' own counts
//! files, which `noid -f CACHE stats` reads.
//!
//! The crash tests make their scenario happen: a row the shipment must add to is held
//! by an open transaction of the test's, so the node's shipping transaction is seen
//! waiting in `pg_stat_activity` (it has read and locked its offset, and not
//! committed) when its connection is cut, or the node is killed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use noid_store::pg::testing::TestServer;
use noid_store::pg::{Location, PgWriter};
use noid_store::{Layout, Op, Store};
use postgres::{Client, NoTls};

use crate::counts::{http_load, http_requests, request, FIREFOX};
use crate::util::{noid_bin, noidr_bin, Http};

/// What was counted: (identifier, kind, class) → count, in `noid stats`' words.
type Tally = BTreeMap<(String, String, String), u64>;

/// Polls `cond` (a minute at most: a bound for a hung node, not a speed).
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A database holding the minter `m` (ten bound identifiers, `ark:/99999/fk4a0` …
/// `a9`, as in counts.rs), and its minter directory, whose `NOID/backend` names it.
struct Minter {
    server: TestServer,
    url: String,
    tmp: tempfile::TempDir,
}

impl Minter {
    fn new(db: &str) -> Minter {
        let server = TestServer::start();
        let url = server.create_database(db);
        let loc = Location::new(&url, "m").unwrap();
        let w = PgWriter::create(&loc, Duration::from_secs(10)).unwrap();
        let mut ops = Vec::new();
        for i in 0..10 {
            let id = format!("ark:/99999/fk4a{i}");
            ops.push(Op::Put(
                format!("{id}\t_t").into(),
                b"https://example.org/x".to_vec(),
            ));
            ops.push(Op::Put(format!("{id}\twho").into(), b"Somebody".to_vec()));
        }
        w.commit_all(&mut ops).unwrap();
        drop(w);
        let tmp = tempfile::tempdir().unwrap();
        loc.write(&Layout::new(&tmp.path().join("m"))).unwrap();
        Minter { server, url, tmp }
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().join("m")
    }

    fn cache(&self, node: &str) -> PathBuf {
        self.tmp.path().join(node)
    }

    /// A web node following the minter with its copy in `cache`, counting (and
    /// shipping) every 0.2 s.
    fn node(&self, cache: &Path) -> Http {
        self.node_every(cache, "0.2")
    }

    /// A web node that counts and ships every `interval` seconds.
    fn node_every(&self, cache: &Path, interval: &str) -> Http {
        let mut cmd = Command::new(noidr_bin());
        cmd.args(["--follow", &self.url, "--minter", "m", "--cache"])
            .arg(cache)
            .args(["--poll", "0.2", "--http-threads", "2"])
            .args(["--counts", "--counts-interval", interval]);
        Http::start(cmd, "127.0.0.1:0")
    }

    fn sql(&self) -> Client {
        Client::connect(&self.url, NoTls).unwrap()
    }
}

/// `noid -f DIR stats --format FORMAT` over the last two days (a request in the last
/// interval before midnight may count on the day before).
fn stats(dir: &Path, format: &str) -> String {
    let out = Command::new(noid_bin())
        .arg("-f")
        .arg(dir)
        .args(["stats", "--days", "2", "--format", format])
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The counts `noid stats` reads in `dir`, all days together.
fn counted(dir: &Path) -> Tally {
    let mut tally = Tally::new();
    for line in stats(dir, "csv").lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (f[1].to_string(), f[2].to_string(), f[3].to_string());
        *tally.entry(key).or_default() += f[4].parse::<u64>().unwrap();
    }
    tally
}

fn total(t: &Tally) -> u64 {
    t.values().sum()
}

fn add(a: &Tally, b: &Tally) -> Tally {
    let mut sum = a.clone();
    for (k, n) in b {
        *sum.entry(k.clone()).or_default() += n;
    }
    sum
}

/// Client `client`'s `n` requests (counts.rs: hits, misses and inflections, by people
/// and robots) sent to `node`; what they should count.
fn load(node: &Http, client: u64, n: u64) -> Tally {
    let requests = http_requests(client, n);
    let sent: Vec<(String, Option<&str>)> = requests
        .iter()
        .map(|(p, _, ua, _)| (p.clone(), *ua))
        .collect();
    http_load(node, &sent);
    let mut tally = Tally::new();
    for (i, (_, kind, _, class)) in requests.into_iter().enumerate() {
        let (id, _) = request(i as u64 + client);
        let key = (id, kind.name(), class.name().to_string());
        *tally.entry(key).or_default() += 1;
    }
    tally
}

/// `n` requests by a person for `ark:/99999/fk4a1` (a redirect-302 each).
fn person_load(node: &Http, n: usize) -> Tally {
    let sent = vec![("/ark:/99999/fk4a1".to_string(), Some(FIREFOX)); n];
    http_load(node, &sent);
    let key = (
        "ark:/99999/fk4a1".into(),
        "redirect-302".into(),
        "person".into(),
    );
    Tally::from([(key, n as u64)])
}

#[test]
fn two_nodes_counts_add_up_in_postgresql_each_kind_once() {
    let m = Minter::new("counts_sum");
    let (c1, c2) = (m.cache("c1"), m.cache("c2"));
    let (mut a, mut b) = (m.node(&c1), m.node(&c2));
    // Two clients at once on each node.
    let mut sent = Vec::new();
    std::thread::scope(|s| {
        let loads: Vec<_> = [(&a, 0), (&a, 1), (&b, 2), (&b, 3)]
            .into_iter()
            .map(|(node, client)| s.spawn(move || load(node, client, 700)))
            .collect();
        sent = loads.into_iter().map(|l| l.join().unwrap()).collect();
    });
    let (on_a, on_b) = (add(&sent[0], &sent[1]), add(&sent[2], &sent[3]));
    let both = add(&on_a, &on_b);
    assert_eq!(total(&both), 2_800);
    eventually("both nodes' counts are in the database", || {
        counted(&m.dir()) == both
    });
    // Each node's own directory still reads its own counts.
    assert_eq!(counted(&c1), on_a);
    assert_eq!(counted(&c2), on_b);
    // The JSON totals, each kind, people and robots apart.
    let json: serde_json::Value = serde_json::from_str(&stats(&m.dir(), "json")).unwrap();
    for (_, kind, class) in both.keys() {
        let want: u64 = both
            .iter()
            .filter(|((_, k, c), _)| k == kind && c == class)
            .map(|(_, n)| n)
            .sum();
        assert_eq!(json["total"][class][kind], want, "{kind} {class}");
    }
    // Stopped cleanly (each ships once more at its end): nothing counted twice.
    assert!(a.stop().success());
    assert!(b.stop().success());
    assert_eq!(counted(&m.dir()), both);
    let segments: i64 = m
        .sql()
        .query_one("SELECT count(*) FROM noid_counts_shipped", &[])
        .unwrap()
        .get(0);
    assert_eq!(segments, 2, "one segment per noidr process");
}

/// The backend of a node's shipping transaction that waits for a lock, if one does.
fn waiting_shipment(sql: &mut Client) -> Option<i32> {
    sql.query_opt(
        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'INSERT INTO noid_counts AS c%' \
         AND state = 'active' AND wait_event_type = 'Lock'",
        &[],
    )
    .unwrap()
    .map(|r| r.get(0))
}

#[test]
fn a_shipment_cut_off_by_a_lost_connection_or_a_killed_node_is_shipped_again_once() {
    let m = Minter::new("counts_cut");
    let c1 = m.cache("c1");
    let mut node = m.node(&c1);
    let (mut holder, mut watcher) = (m.sql(), m.sql());
    // The test's own 0 count on the row the node's shipment adds to (yesterday,
    // today and tomorrow: whichever day the node counts on), not committed: the
    // shipment waits for it, inside its transaction, its offset read and locked.
    let mut hold = holder.transaction().unwrap();
    let today = noid_counts::today() as i32;
    for day in [today - 1, today, today + 1] {
        hold.execute(
            "INSERT INTO noid_counts (minter, day, id, kind, code, class, count) \
             SELECT id, DATE '1970-01-01' + $1::int, $2, 'redirect', 302, 'person', 0 \
             FROM noid_minters WHERE name = 'm'",
            &[&day, &b"ark:/99999/fk4a1".as_slice()],
        )
        .unwrap();
    }
    let first = person_load(&node, 40);
    eventually("the node wrote its counts", || counted(&c1) == first);
    let mut cut = None;
    eventually("the node's shipment waits", || {
        cut = waiting_shipment(&mut watcher);
        cut.is_some()
    });
    let shipped = |sql: &mut Client| -> i64 {
        let row = sql.query_one("SELECT count(*) FROM noid_counts_shipped", &[]);
        row.unwrap().get(0)
    };
    assert_eq!(
        shipped(&mut watcher),
        0,
        "the offset moves only at the commit"
    );
    // (a) Its connection is lost mid-shipment: it connects again and ships again,
    // from the same offset (and waits again).
    watcher
        .execute("SELECT pg_terminate_backend($1)", &[&cut.unwrap()])
        .unwrap();
    eventually("the node ships again on a new connection", || {
        waiting_shipment(&mut watcher).is_some_and(|pid| Some(pid) != cut)
    });
    // (b) The node is killed mid-shipment: its transaction never commits.
    node.child.kill().unwrap();
    node.child.wait().unwrap();
    hold.rollback().unwrap();
    assert_eq!(counted(&m.dir()), Tally::new());
    // Started again, it ships what the killed process wrote, once, and its own.
    let mut node = m.node(&c1);
    eventually("the killed process's counts are shipped", || {
        counted(&m.dir()) == first
    });
    let more = add(&first, &person_load(&node, 25));
    eventually("the new process's counts are shipped", || {
        counted(&m.dir()) == more
    });
    assert!(node.stop().success());
    assert_eq!(counted(&m.dir()), more);
    assert_eq!(counted(&c1), more);
    assert_eq!(shipped(&mut watcher), 2, "one segment per noidr process");
    // (c) A crash after a commit and before the node's own record of it leaves the
    // record behind the database: here, as if nothing had been recorded. The
    // database's offsets decide: nothing is shipped twice.
    let record = c1.join("counts").join(noid_counts::SHIPPING_FILE);
    let text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 2);
    let behind: String = text.lines().filter(|l| l.starts_with('#')).collect();
    std::fs::write(&record, behind + "\n").unwrap();
    let mut node = m.node(&c1);
    let last = add(&more, &person_load(&node, 10));
    eventually("the third process's counts are shipped", || {
        counted(&m.dir()) == last
    });
    assert!(node.stop().success());
    assert_eq!(counted(&m.dir()), last);
}

#[test]
fn a_database_down_delays_shipping_and_a_node_killed_meanwhile_ships_at_its_next_start() {
    let mut m = Minter::new("counts_down");
    let (c1, c2) = (m.cache("c1"), m.cache("c2"));
    let (mut a, mut b) = (m.node(&c1), m.node(&c2));
    let (a1, b1) = (load(&a, 0, 300), load(&b, 1, 300));
    eventually("the first counts are in the database", || {
        counted(&m.dir()) == add(&a1, &b1)
    });
    m.server.stop();
    // Reading the sum needs the database, and says so.
    let out = Command::new(noid_bin())
        .arg("-f")
        .arg(m.dir())
        .arg("stats")
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let want = format!(
        "error: cannot read the counts of {}: PostgreSQL at ",
        m.dir().display()
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(&want), "{err}");
    // Both count on, into their own directories.
    let (a2, b2) = (add(&a1, &load(&a, 2, 300)), add(&b1, &load(&b, 3, 300)));
    eventually("node a wrote its counts", || counted(&c1) == a2);
    eventually("node b wrote its counts", || counted(&c2) == b2);
    // Node b counts a last window and is killed: it may lose that window only.
    let b3 = add(&b2, &person_load(&b, 50));
    b.child.kill().unwrap();
    b.child.wait().unwrap();
    let b_kept = counted(&c2);
    assert!(
        (total(&b2)..=total(&b3)).contains(&total(&b_kept)),
        "{}",
        total(&b_kept)
    );
    m.server.restart();
    // Node a ships what it counted while the database was down; node b's wait for
    // its next start.
    eventually("node a caught up", || counted(&m.dir()) == add(&a2, &b1));
    let mut b = m.node(&c2);
    eventually("node b caught up", || {
        counted(&m.dir()) == add(&a2, &b_kept)
    });
    assert!(a.stop().success());
    assert!(b.stop().success());
    assert_eq!(counted(&m.dir()), add(&a2, &b_kept));
}

#[test]
fn a_node_stopped_cleanly_ships_its_last_interval_before_it_ends() {
    let m = Minter::new("counts_end");
    let c1 = m.cache("c1");
    // An hour's interval: nothing is written or shipped before the end.
    let mut node = m.node_every(&c1, "3600");
    let sent = person_load(&node, 30);
    assert_eq!(counted(&m.dir()), Tally::new());
    assert!(node.stop().success());
    assert_eq!(counted(&m.dir()), sent);
    assert_eq!(counted(&c1), sent);
}

/// `noid -f DIR stats --compact`'s report line (stderr).
fn compact(dir: &Path) -> String {
    let out = Command::new(noid_bin())
        .arg("-f")
        .arg(dir)
        .args(["stats", "--compact"])
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn compaction_on_a_node_folds_only_what_was_shipped_and_a_folded_file_is_never_shipped() {
    let mut m = Minter::new("counts_fold");
    let c1 = m.cache("c1");
    // Two processes that shipped everything and ended.
    let mut shipped = Tally::new();
    for n in [20, 30] {
        let mut node = m.node(&c1);
        shipped = add(&shipped, &person_load(&node, n));
        assert!(node.stop().success());
    }
    assert_eq!(counted(&m.dir()), shipped);
    // A third that counted while the database was down, and was killed.
    m.server.stop();
    let mut node = m.node(&c1);
    let unshipped = person_load(&node, 40);
    let all = add(&shipped, &unshipped);
    eventually("the third process wrote its counts", || counted(&c1) == all);
    node.child.kill().unwrap();
    node.child.wait().unwrap();
    // Only the two shipped segments are folded; the node still reads all its counts.
    assert_eq!(
        compact(&c1),
        "compacted: 2 files folded into one, 0 already folded removed\n"
    );
    assert_eq!(counted(&c1), all);
    // The next start ships the unshipped segment, and not the folded file.
    m.server.restart();
    let mut node = m.node(&c1);
    eventually("the killed process's counts are shipped", || {
        counted(&m.dir()) == all
    });
    assert!(node.stop().success());
    assert_eq!(counted(&m.dir()), all);
    // Once shipped, it is folded too (with the folded file and the last process's).
    assert_eq!(
        compact(&c1),
        "compacted: 3 files folded into one, 0 already folded removed\n"
    );
    assert_eq!(counted(&c1), all);
}
