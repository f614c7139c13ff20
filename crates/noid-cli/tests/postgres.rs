//! `noid` on minters held by PostgreSQL (docs/SCALING.md), against real PostgreSQL
//! servers started for each test (noid-store's `pg` `testing::TestServer`): the same commands
//! give the same output as on the embedded store, identifiers continue exactly as Perl
//! Noid's, concurrent writers never collide, and the change log records every commit.

#[allow(dead_code)]
#[path = "util.rs"]
mod util;

mod serve;

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};

use noid_store::pg::testing::TestServer;
use util::*;

/// A minter directory whose minter `dbcreate ARGS` makes in database `db` of `server`.
fn pg_minter(server: &TestServer, db: &str, args: &[&str]) -> (Dir, String) {
    let url = server.create_database(db);
    let d = Dir::new();
    let mut a = vec!["dbcreate", "--backend", &url];
    a.extend_from_slice(args);
    let r = d.noid(&a);
    assert_eq!(r.code, 0, "dbcreate on PostgreSQL failed: {r:?}");
    (d, url)
}

/// `r`'s output with `dir` (a minter directory's path), timestamps and the creation
/// record's two random sample identifiers made neutral.
fn neutral(r: &Run, dir: &Dir) -> (String, String, i32) {
    let p = dir.path().display().to_string();
    let n = |s: &str| {
        let s = undate(&s.replace(&p, "DIR"));
        s.lines()
            .filter(|l| !l.contains("Sample identifiers would be"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    (n(&r.stdout), n(&r.stderr), r.code)
}

/// The identifiers real Perl Noid 0.424 minted next after the commands of
/// `PERL_SESSION` (tests/fixtures/perl-noid-0.424/random-long.next).
const PERL_NEXT: &str = "13030/f5x63b46k 13030/f5sf2mb2f 13030/f5np1wh8p 13030/f5j09w371 \
    13030/f5d795938 13030/f58g8fg9h 13030/f54q7qp5c 13030/f50z70w1m 13030/f5w66976b \
    13030/f5rf5kf26 13030/f5ms3k11s 13030/f5h12v67b 13030/f5c824d3k 13030/f57h1dk9t \
    13030/f53r0ps5p 13030/f5000001n 13030/f5v97zq91 13030/f5qj77x58 13030/f5ks6j41j \
    13030/f5g15t973 13030/f5b853h3b 13030/f56h4cp9k 13030/f52r3nw5f 13030/f5z31nn33 \
    13030/f5tb0xt9b 13030/f5pk07150 13030/f5js9h719 13030/f5f18sd7v 13030/f59882m33 \
    13030/f55h7bs9b";

/// The Perl Noid session after which Perl minted `PERL_NEXT`, after its `dbcreate`.
const PERL_SESSION: &[&[&str]] = &[
    &["mint", "25"],
    &["hold", "set", "13030/f5nd4wg4p"],
    &[
        "bind",
        "set",
        "13030/f54x54g11",
        "_t",
        "https://example.org/obj/1",
    ],
    &["bind", "add", "13030/f54x54g11", "who", "Jane Doe"],
    &[
        "bind",
        "set",
        ":idmap/^(13030/f5)(.*)$",
        "myGoto",
        "https://example.org/m/$2",
    ],
    &["queue", "now", "13030/f5154dn7k"],
];

const PERL_CREATE: &[&str] = &["f5.reedeedk", "long", "13030", "example.org", "oac"];

#[test]
fn every_command_answers_as_on_the_embedded_store_and_minting_continues_as_perl_did() {
    let server = TestServer::start();
    let (pg, _) = pg_minter(&server, "perl", PERL_CREATE);
    let embedded = Dir::minter(PERL_CREATE);
    assert!(pg.path().join("NOID/backend").is_file());
    assert!(!pg.path().join("NOID/noid.rocksdb").exists());
    let reads: &[&[&str]] = &[
        &["fetch", "13030/f54x54g11"],
        &["get", "13030/f54x54g11", "_t", "who"],
        &["get", "13030/f5anything", "myGoto"],
        &["fetch", "13030/f5nd4wg4p"],
        &["validate", "-", "13030/f5x63b46k", "13030/f5x63b46x"],
        &["dbinfo", "brief"],
        &["standing", "13030/f54x54g11"],
        &["13030/f54x54g11.set", "how", "(:mtype text)"],
        &["13030/f54x54g11.add", "who", "John Doe"],
        &["13030/f54x54g11.fetch"],
        &["note", "color", "blue"],
        &["get", ":", "color"],
        &["check"],
        &["check", "--repair"],
        &["standing"],
    ];
    let last: &[&str] = &["mint", "30"];
    for cmd in PERL_SESSION.iter().chain(reads).chain([&last]) {
        let (a, b) = (pg.noid(cmd), embedded.noid(cmd));
        assert_eq!(neutral(&a, &pg), neutral(&b, &embedded), "noid {cmd:?}");
        if cmd == &last {
            assert_eq!(ids(a.ok()).join(" "), PERL_NEXT);
        }
    }
    // The same again in one bulk run (one batch, one transaction).
    let bulk = b"mint 3\nhold release 13030/f5x63b46k\nqueue first 13030/f5x63b46k\nget 13030/f54x54g11 _t\nmint 2\ndbinfo brief\n";
    let (a, b) = (
        pg.noid_stdin(&["-"], bulk),
        embedded.noid_stdin(&["-"], bulk),
    );
    assert_eq!(neutral(&a, &pg), neutral(&b, &embedded), "bulk run");
    assert_eq!(ids(a.ok())[3], "13030/f5x63b46k", "the queued id first");
}

#[test]
fn bulk_binds_read_ahead_and_answer_as_on_the_embedded_store() {
    // A bulk run on PostgreSQL reads the keys of the identifiers its buffered lines
    // bind in one query; what it read must stay exact across its own writes and the
    // commits within the run (`mint` commits the batch before it).
    let server = TestServer::start();
    let (pg, _) = pg_minter(&server, "ahead", &[".sdd"]);
    let embedded = Dir::minter(&[".sdd"]);
    let first = b"bind set 51 _t one\nbind set 52 _t two\nbind set 53 _t three\n";
    let bulk = b"bind set 51 _t uno\nbind append 51 _t -more\nbind new 52 _t dos\n\
        bind delete 53 _t\nmint 1\nbind add 51 _t +z\nbind replace 53 _t tres\n\
        bind set 54 _t four\nbind prepend 52 _t pre-\nget 51 _t\nget 52 _t\nfetch 53\n";
    for input in [&first[..], &bulk[..]] {
        let (a, b) = (
            pg.noid_stdin(&["-"], input),
            embedded.noid_stdin(&["-"], input),
        );
        assert_eq!(neutral(&a, &pg), neutral(&b, &embedded), "bulk run");
    }
    let r = pg.noid(&["get", "51", "_t"]);
    assert_eq!(r.ok(), "uno-more+z\n");
}

/// `noid compact` on a minter held by PostgreSQL: an error that says why, exit 1, and
/// the minter as it was.
#[test]
fn compact_on_postgres_is_an_error_that_says_why() {
    let server = TestServer::start();
    let (pg, _) = pg_minter(&server, "compact", &[".sdd"]);
    pg.noid(&["bind", "set", "51", "_t", "one"]).ok();
    let r = pg.noid(&["compact"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr.replace(&pg.path().display().to_string(), "DIR"),
        "error: DIR: a minter held by PostgreSQL has no tables of noid's to compact \
         (PostgreSQL's autovacuum keeps its own)\n"
    );
    assert_eq!(pg.noid(&["get", "51", "_t"]).ok(), "one\n");
}

#[test]
fn eight_concurrent_minters_on_postgres_mint_the_embedded_backends_first_ids() {
    let server = TestServer::start();
    let (pg, _) = pg_minter(
        &server,
        "race",
        &["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"],
    );
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(noid_exe())
                .arg("-f")
                .arg(pg.path())
                .args(["mint", "60"])
                .env_remove("NOID")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn noid")
        })
        .collect();
    let mut minted = Vec::new();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = ids(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(got.len(), 60);
        minted.extend(got);
    }
    let distinct: BTreeSet<_> = minted.iter().cloned().collect();
    assert_eq!(distinct.len(), 480, "every id distinct");
    let embedded = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let reference: BTreeSet<_> = embedded.mint(480).into_iter().collect();
    assert_eq!(distinct, reference);
    let info = pg.noid(&["dbinfo", "brief"]);
    assert!(
        info.ok().contains("\n  :/oacounter: 480\n"),
        "{}",
        info.stdout
    );
}

#[test]
fn the_change_log_holds_every_commit_in_order_and_replays_to_the_keys() {
    let server = TestServer::start();
    let (pg, url) = pg_minter(&server, "log", &[".sdd"]);
    pg.noid(&["mint", "3"]).ok();
    pg.noid(&["bind", "set", "01", "_t", "https://example.org/1"])
        .ok();
    pg.noid(&["bind", "delete", "01", "_t"]).ok();
    pg.noid_stdin(&["-"], b"mint 1\nhold set 50\n").ok();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let head: i64 = c
        .query_one("SELECT log_seq FROM noid_minters", &[])
        .unwrap()
        .get(0);
    // dbcreate, mint, bind, purge, and the bulk run's one batch.
    assert_eq!(head, 5);
    // One row per commit.
    let seqs: Vec<i64> = c
        .query("SELECT seq FROM noid_log ORDER BY seq", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(seqs, (1..=5).collect::<Vec<i64>>(), "no gaps, commit order");
    // Applying the log in order gives exactly the keys. Each row's `changes`, decoded
    // here as docs/SCALING.md documents it: a version byte 1, then per key `P` or `D`,
    // the key's length (4 bytes, big-endian) and the key, and for `P` the value's
    // length and the value.
    let mut replayed = BTreeMap::new();
    for r in c
        .query("SELECT changes FROM noid_log ORDER BY seq", &[])
        .unwrap()
    {
        let changes: Vec<u8> = r.get(0);
        assert_eq!(changes[0], 1, "format version");
        let mut at = 1;
        let field = |at: &mut usize| {
            let len = u32::from_be_bytes(changes[*at..*at + 4].try_into().unwrap()) as usize;
            *at += 4 + len;
            changes[*at - len..*at].to_vec()
        };
        while at < changes.len() {
            at += 1;
            match changes[at - 1] {
                b'P' => {
                    let k = field(&mut at);
                    replayed.insert(k, field(&mut at));
                }
                b'D' => {
                    replayed.remove(&field(&mut at));
                }
                other => panic!("operation byte {other}"),
            }
        }
    }
    // The table's rows, a minted identifier's hold (`ID\t:/h` = 1) packed into its
    // circulation record's row as a flag.
    let mut keys: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for r in c
        .query("SELECT key, value, held FROM noid_rows ORDER BY key", &[])
        .unwrap()
    {
        let key: Vec<u8> = r.get(0);
        if r.get::<_, bool>(2) {
            let id = key
                .strip_suffix(b"\t:/c")
                .expect("only records are flagged");
            keys.insert([id, b"\t:/h"].concat(), b"1".to_vec());
        }
        keys.entry(key).or_insert(r.get(1));
    }
    assert_eq!(replayed, keys);
    assert!(keys.contains_key(&b"00\t:/c"[..]) && keys.contains_key(&b"50\t:/h"[..]));
    assert!(!keys.contains_key(&b"01\t_t"[..]), "the delete is logged");
}

#[test]
fn export_from_postgres_imports_into_the_embedded_store_exactly() {
    let server = TestServer::start();
    let (pg, _) = pg_minter(&server, "port", PERL_CREATE);
    for cmd in PERL_SESSION {
        // As in Perl's session, the queue of a held id is refused.
        let r = pg.noid(cmd);
        assert_eq!(r.code, i32::from(cmd[0] == "queue"), "{cmd:?}: {r:?}");
    }
    let exported = pg.noid(&["export"]);
    let tmp = Dir::new();
    let target = tmp.path().join("copy");
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f").arg(&target).args(["import", "-"]);
    let imported = run(cmd, exported.ok().as_bytes());
    imported.ok();
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f").arg(&target).arg("export");
    let again = run(cmd, b"");
    assert_eq!(
        again.ok(),
        exported.stdout,
        "export, import, export is exact"
    );
    // And both go on minting Perl's identifiers.
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f").arg(&target).args(["mint", "30"]);
    assert_eq!(ids(run(cmd, b"").ok()).join(" "), PERL_NEXT);
    assert_eq!(pg.mint(30).join(" "), PERL_NEXT);
    pg.assert_check_clean();
}

#[test]
fn a_held_writers_lock_times_out_with_a_clear_error_and_changes_nothing() {
    let server = TestServer::start();
    let (pg, url) = pg_minter(&server, "lock", &[".sdd"]);
    let mut holder = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    // The writers' lock as a writing noid holds it: ('noid', minter id).
    holder
        .execute(
            "SELECT pg_advisory_lock(1852795236, (SELECT id::int FROM noid_minters WHERE name = $1))",
            &[&pg.path().file_name().unwrap().to_str().unwrap()],
        )
        .expect("take the lock");
    let r = pg.noid(&["--lock-timeout", "1", "mint", "1"]);
    let name = pg.path().file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(r.code, 1, "{r:?}");
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        format!("error: lock timeout after 1 seconds; another noid process holds minter {name} at {url}\n")
    );
    // Readers are not blocked; nothing was minted.
    assert!(pg
        .noid(&["dbinfo", "brief"])
        .ok()
        .contains("\n  :/oacounter: 0\n"));
    drop(holder);
    assert_eq!(pg.mint(1), ["00"]);
}

#[test]
fn bad_backends_are_refused_and_leave_nothing() {
    let server = TestServer::start();
    let url = server.create_database("bad");
    let d = Dir::new();
    let r = d.noid(&["dbcreate", "--backend", "mysql://h/db", ".sdd"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            1,
            "error: --backend must be a postgres:// URL (got \"mysql://h/db\")\n\n"
        )
    );
    let r = d.noid(&["dbcreate", "--minter", "m", ".sdd"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (1, "error: --minter needs --backend.\n\n")
    );
    let r = d.noid(&["dbcreate", "--backend", &url, "--minter", "a b", ".sdd"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.starts_with("error: minter name \"a b\" must be"),
        "{r:?}"
    );
    // Nobody listens on port 1: the error names the server, and no file is left.
    let r = d.noid(&[
        "dbcreate",
        "--backend",
        "postgres://noid@127.0.0.1:1/x",
        ".sdd",
    ]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .starts_with("error: PostgreSQL at postgres://noid@127.0.0.1:1/x (minter "),
        "{r:?}"
    );
    assert!(r.stdout.contains("cannot connect"), "{r:?}");
    assert!(!d.path().join("NOID/backend").exists());
    assert_eq!(d.noid(&["mint", "1"]).code, 1, "still no minter");
    // A second minter of the same name in the same database is refused.
    d.noid(&["dbcreate", "--backend", &url, "--minter", "m", ".sdd"])
        .ok();
    let other = Dir::new();
    let r = other.noid(&["dbcreate", "--backend", &url, "--minter", "m", ".sdd"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.ends_with("a minter named m already exists\n\n"),
        "{r:?}"
    );
    assert!(!other.path().join("NOID/backend").exists());
    // A copy of the backend file is a second host's way in to the same minter.
    std::fs::create_dir_all(other.path().join("NOID")).unwrap();
    std::fs::copy(
        d.path().join("NOID/backend"),
        other.path().join("NOID/backend"),
    )
    .unwrap();
    assert_eq!(d.mint(1), ["00"]);
    assert_eq!(other.mint(1), ["01"]);
    assert_eq!(d.mint(1), ["02"]);
}

/// `noid serve` with populator `sam` (login `sam`/`secret`): its binder and its minter
/// `ark/99999/fk4` both held by `server`.
struct Api {
    child: std::process::Child,
    port: u16,
    root: tempfile::TempDir,
}

impl Drop for Api {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Api {
    fn start(server: &TestServer) -> Api {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let url = server.create_database("api");
        for (dir, args) in [
            ("binders/sam", &[][..]),
            (
                "minters/sam/ark/99999/fk4",
                &["fk4.reedeedk", "long", "99999", "example.org", "test"][..],
            ),
        ] {
            let mut cmd = Command::new(noid_exe());
            cmd.arg("-f").arg(r.join(dir));
            cmd.args([
                "dbcreate",
                "--backend",
                &url,
                "--minter",
                dir.rsplit('/').next().unwrap(),
            ]);
            cmd.args(args);
            run(cmd, b"").ok();
        }
        let hash = bcrypt::hash_with_result("secret", 4)
            .unwrap()
            .format_for_version(bcrypt::Version::TwoY);
        std::fs::write(r.join("pwd"), format!("sam:{hash}\n")).unwrap();
        let config = format!(
            "[populator.sam]\nhtpasswd = \"{r}/pwd\"\nbinder = \"{r}/binders/sam\"\nminters = \"{r}/minters/sam\"\n",
            r = r.display()
        );
        std::fs::write(r.join("api.toml"), config).unwrap();
        let (child, port) = serve(&r.join("api.toml"));
        Api { child, port, root }
    }

    /// `curl -u sam:secret` of PATH?QUERY (the query %-encoded here); the body.
    fn get(&self, path: &str, query: &str) -> String {
        let q: String = query
            .bytes()
            .map(|c| match c {
                b' ' => "%20".to_string(),
                c => (c as char).to_string(),
            })
            .collect();
        let out = Command::new("curl")
            .args(["-s", "-f", "-u", "sam:secret"])
            .arg(format!("http://127.0.0.1:{}{path}?{q}", self.port))
            .output()
            .expect("run curl");
        assert!(out.status.success(), "curl {path}?{query}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }
}

#[test]
fn the_binder_api_and_eight_noid_processes_mint_and_bind_on_one_postgres_minter_at_once() {
    let server = TestServer::start();
    let api = Api::start(&server);
    let minter = api.root.path().join("minters/sam/ark/99999/fk4");
    let mut minted = Vec::new();
    std::thread::scope(|s| {
        let clients: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    (0..6)
                        .flat_map(|_| {
                            let body = api.get("/a/sam/m/ark/99999/fk4", "mint 5");
                            body.lines()
                                .filter_map(|l| l.strip_prefix("s: "))
                                .map(str::to_string)
                                .collect::<Vec<_>>()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let processes: Vec<_> = (0..8)
            .map(|_| {
                Command::new(noid_exe())
                    .arg("-f")
                    .arg(&minter)
                    .args(["mint", "30"])
                    .env_remove("NOID")
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn noid")
            })
            .collect();
        for p in processes {
            let out = p.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            minted.extend(ids(&String::from_utf8_lossy(&out.stdout)));
        }
        for c in clients {
            minted.extend(c.join().unwrap());
        }
    });
    // 4 clients x 6 requests x 5 ids, 8 processes x 30 ids.
    assert_eq!(minted.len(), 360);
    let distinct: BTreeSet<_> = minted.iter().cloned().collect();
    assert_eq!(distinct.len(), 360, "every id distinct");
    let embedded = Dir::minter(&["fk4.reedeedk", "long", "99999", "example.org", "test"]);
    assert_eq!(
        distinct,
        embedded.mint(360).into_iter().collect::<BTreeSet<_>>()
    );
    // A binding made through the API is in the PostgreSQL binder.
    let id = minted[0].clone();
    api.get(
        "/a/sam/b",
        &format!("ark:/{id}.set _t https://example.org/x"),
    );
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f")
        .arg(api.root.path().join("binders/sam"))
        .args(["get", &format!("ark:/{id}"), "_t"]);
    assert_eq!(run(cmd, b"").ok(), "https://example.org/x\n");
}

/// Whether a session holds the writers' lock of minter `name` in `admin`'s database: a
/// granted advisory lock ('noid', minter id), exclusive or shared (a mint of several
/// batches shares it between its two connections).
fn writers_lock_held(admin: &mut postgres::Client, name: &str) -> bool {
    admin
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted \
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
             AND classid::bigint = 1852795236 AND objsubid = 2 \
             AND objid::bigint = (SELECT id FROM noid_minters WHERE name = $1)::bigint)",
            &[&name],
        )
        .expect("read pg_locks")
        .get(0)
}

/// Wait until `cond` holds (60 s at most: a bound for a hang, not a speed).
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "never: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// `noid mint COUNT` (ten batches) killed at random moments while it holds the writers'
/// lock: no id is printed twice, every printed id is circulated, the minter checks
/// clean. A third of the kills are timed from the lock (as `concurrency.rs` does on the
/// embedded store), spread over the time one whole mint took on this machine (measured
/// first, lock to exit), so some land before anything is printed; the others wait until
/// a random number of ids (fewer than the last batch's first) has been printed, so they
/// land mid-mint after ids were printed whatever the machine's speed. Most kills must
/// land mid-mint after ids were printed, or the test proved nothing.
#[test]
fn writers_killed_at_any_moment_never_print_an_id_twice_and_leave_the_minter_sound() {
    const COUNT: &str = "200000";
    const RUNS: usize = 12;
    let server = TestServer::start();
    let (pg, url) = pg_minter(
        &server,
        "kill",
        &["f5.reedeedk", "long", "13030", "cdlib.org", "oac"],
    );
    let name = pg.path().file_name().unwrap().to_str().unwrap().to_string();
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let mut printed: Vec<String> = Vec::new();
    let mut whole_mint = None;
    let (mut mid_mint, mut mid_mint_printed) = (0, 0);
    let mut seed: u64 = 0x9E3779B97F4A7C15;
    for run in 0..=RUNS {
        let mut child = Command::new(noid_exe())
            .arg("-f")
            .arg(pg.path())
            .args(["mint", COUNT])
            .env_remove("NOID")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn noid");
        let mut stdout = child.stdout.take().unwrap();
        let lines = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = lines.clone();
        let reader = std::thread::spawn(move || {
            let (mut out, mut buf) = (Vec::new(), [0u8; 65536]);
            while let Ok(n @ 1..) = std::io::Read::read(&mut stdout, &mut buf) {
                out.extend_from_slice(&buf[..n]);
                let more = buf[..n].iter().filter(|&&b| b == b'\n').count();
                counted.fetch_add(more, std::sync::atomic::Ordering::SeqCst);
            }
            out
        });
        eventually("noid takes the writers' lock or ends", || {
            writers_lock_held(&mut admin, &name) || child.try_wait().unwrap().is_some()
        });
        let locked = std::time::Instant::now();
        let mut delay = None;
        let landed = match whole_mint {
            // The first run mints to the end: how long a whole mint takes here.
            None => {
                let st = child.wait().unwrap();
                assert!(st.success(), "the whole mint: {st}");
                whole_mint = Some(locked.elapsed());
                false
            }
            Some(whole) => {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if run % 3 == 0 {
                    let after = whole.mul_f64((seed % 1000) as f64 / 1000.0);
                    delay = Some(after);
                    while locked.elapsed() < after && child.try_wait().unwrap().is_none() {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                } else {
                    // A line count the last batch (ids 180001 on) cannot be needed for.
                    let enough = 1 + (seed % 180_000) as usize;
                    while lines.load(std::sync::atomic::Ordering::SeqCst) < enough
                        && child.try_wait().unwrap().is_none()
                    {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    delay = Some(locked.elapsed());
                }
                let landed =
                    child.try_wait().unwrap().is_none() && writers_lock_held(&mut admin, &name);
                let _ = child.kill(); // SIGKILL
                let _ = child.wait();
                landed
            }
        };
        let out = reader.join().unwrap();
        // Whole lines only: a kill may cut the last one.
        let whole = out.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let these = ids(&String::from_utf8_lossy(&out[..whole]));
        if landed {
            mid_mint += 1;
            mid_mint_printed += usize::from(!these.is_empty());
        }
        eprintln!(
            "run {run}: killed {delay:?} after the lock, {} ids printed{}",
            these.len(),
            if landed { ", mid-mint" } else { "" }
        );
        printed.extend(these);
        // The killed writer's session ends (its lock with it) before the next starts:
        // the next run's clock starts at its own lock.
        eventually("the killed writer's session ends", || {
            !writers_lock_held(&mut admin, &name)
        });
    }
    assert!(
        mid_mint_printed * 2 > RUNS,
        "only {mid_mint_printed} of {RUNS} kills landed mid-mint after ids were printed \
         ({mid_mint} mid-mint; a whole mint took {whole_mint:?})"
    );
    printed.extend(pg.mint(100));
    let distinct: BTreeSet<_> = printed.iter().collect();
    assert_eq!(distinct.len(), printed.len(), "an id was printed twice");
    pg.assert_check_clean();
    // Every printed id is circulated: the minter knows it was issued.
    for id in printed.iter().step_by(7919) {
        let f = pg.noid(&["fetch", id]);
        assert!(
            f.stdout.contains("Circ:") || f.stderr.contains("Circ:"),
            "{id}: {f:?}"
        );
    }
    eprintln!(
        "{mid_mint_printed} of {RUNS} kills landed mid-mint after ids were printed \
         ({mid_mint} mid-mint); {} ids printed",
        printed.len()
    );
}

/// A commit whose COMMIT got no answer may have been written: a backend that wrote its
/// commit record and is terminated while it waits for a synchronous standby answers
/// nothing (PostgreSQL: "The transaction has already committed locally"). The writer
/// prints nothing of it and says the outcome is unknown, not that nothing was written;
/// the commit is there, and minting goes on after it (no id handed out twice).
#[test]
fn a_commit_cut_off_at_commit_is_reported_as_unknown_and_printed_never() {
    let server = TestServer::start();
    let (pg, url) = pg_minter(&server, "unknown", &[".sdd"]);
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    // A synchronous standby that never comes: every COMMIT waits for it.
    let reconfigure = |admin: &mut postgres::Client, sql: &str| {
        admin.batch_execute(sql).expect(sql);
        admin
            .batch_execute("SELECT pg_reload_conf()")
            .expect("reload");
    };
    reconfigure(
        &mut admin,
        "ALTER SYSTEM SET synchronous_standby_names = 'absent'",
    );
    let child = Command::new(noid_exe())
        .arg("-f")
        .arg(pg.path())
        .args(["mint", "1"])
        .env_remove("NOID")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn noid");
    let waiting = "SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'";
    let mut pid: Option<i32> = None;
    for _ in 0..600 {
        pid = admin
            .query_opt(waiting, &[])
            .expect("pg_stat_activity")
            .map(|r| r.get(0));
        if pid.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = pid.expect("noid's COMMIT waits for the synchronous standby");
    admin
        .execute("SELECT pg_terminate_backend($1)", &[&pid])
        .expect("terminate noid's backend");
    let out = child.wait_with_output().expect("wait");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert_eq!(stdout, "");
    let name = pg.path().file_name().unwrap().to_str().unwrap().to_string();
    let want =
        format!("error: PostgreSQL at {url} (minter {name}): the connection was lost at COMMIT: ");
    assert!(stderr.starts_with(&want), "{stderr}");
    assert!(
        stderr.ends_with("; whether it was written is unknown; nothing of it was printed\n"),
        "{stderr}"
    );
    reconfigure(&mut admin, "ALTER SYSTEM RESET synchronous_standby_names");
    // It was written: the counter moved, and the next id is the second.
    assert!(pg
        .noid(&["dbinfo", "brief"])
        .ok()
        .contains("\n  :/oacounter: 1\n"));
    assert_eq!(pg.mint(1), ["01"]);
    pg.assert_check_clean();
}

#[test]
fn an_embedded_minter_moves_to_postgres_by_export_and_import() {
    let server = TestServer::start();
    let url = server.create_database("moved");
    let embedded = Dir::minter(PERL_CREATE);
    for cmd in PERL_SESSION {
        embedded.noid(cmd);
    }
    let exported = embedded.noid(&["export"]);
    let tmp = Dir::new();
    let import = |dir: &std::path::Path| {
        let mut cmd = Command::new(noid_exe());
        cmd.arg("-f").arg(dir);
        cmd.args(["import", "--backend", &url, "--minter", "moved", "-"]);
        run(cmd, exported.stdout.as_bytes())
    };
    let target = tmp.path().join("pg");
    let r = import(&target);
    assert!(r.ok().starts_with("ok: imported "), "{r:?}");
    let left: BTreeSet<String> = std::fs::read_dir(target.join("NOID"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        left,
        BTreeSet::from(["README".into(), "backend".into(), "log".into()])
    );
    let names: Vec<_> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["NOID"], "no staging directory is left");
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f").arg(&target).arg("export");
    assert_eq!(
        run(cmd, b"").ok(),
        exported.ok(),
        "the same keys, byte for byte"
    );
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f").arg(&target).args(["mint", "30"]);
    assert_eq!(ids(run(cmd, b"").ok()).join(" "), PERL_NEXT);
    // The same name again is refused, and leaves nothing.
    let again = tmp.path().join("again");
    let r = import(&again);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.ends_with("a minter named moved already exists\n"),
        "{r:?}"
    );
    assert!(!again.exists());
}

#[test]
fn prune_log_drops_the_old_changes_asked_for_and_refuses_what_it_cannot_do() {
    let server = TestServer::start();
    let (pg, url) = pg_minter(&server, "prune", &[".sdd"]);
    for _ in 0..3 {
        pg.mint(1);
    }
    // dbcreate and three mints: changes 1 to 4.
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let rows_below = |c: &mut postgres::Client, seq: i64| -> i64 {
        c.query_one("SELECT count(*) FROM noid_log WHERE seq < $1", &[&seq])
            .unwrap()
            .get(0)
    };
    // A row per commit.
    assert_eq!(rows_below(&mut c, 5), 4);
    let r = pg.noid(&["prune-log", "--keep", "2"]);
    assert_eq!(
        r.ok(),
        "ok: pruned 2 changes; the change log holds changes 3 to 4\n"
    );
    let r = pg.noid(&["prune-log", "--before", "4"]);
    assert_eq!(
        r.ok(),
        "ok: pruned 1 change; the change log holds changes 4 to 4\n"
    );
    assert_eq!(rows_below(&mut c, 4), 0);
    assert!(rows_below(&mut c, 5) > 0, "change 4 is kept");
    // Minting goes on, from the minter's keys (the log is only for followers).
    assert_eq!(pg.mint(1), ["03"]);
    // A follower's recorded position (change 4) keeps what it still needs, unless
    // told otherwise.
    c.execute(
        "INSERT INTO noid_followers (minter, name, applied) SELECT id, 'web9', 4 \
         FROM noid_minters",
        &[],
    )
    .unwrap();
    assert_eq!(
        pg.noid(&["prune-log", "--keep", "0"]).ok(),
        "ok: pruned 1 change; the change log holds changes 5 to 5; kept from change 5 \
         for follower web9\n"
    );
    assert_eq!(
        pg.noid(&["prune-log", "--keep", "0", "--ignore-followers"])
            .ok(),
        "ok: pruned 1 change; the change log is empty (head 5)\n"
    );
    // Usage errors: one of --keep and --before, a number.
    for args in [
        &["prune-log"][..],
        &["prune-log", "--keep", "1", "--before", "2"],
        &["prune-log", "--keep", "x"],
    ] {
        let r = pg.noid(args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert_eq!(r.stdout, "");
        assert!(r.stderr.starts_with("error: "), "{r:?}");
    }
    let help = pg.noid(&["prune-log", "--help"]);
    assert!(
        help.ok()
            .starts_with("noid prune-log: drop old rows of a PostgreSQL minter's change log"),
        "{help:?}"
    );
    // An embedded minter has no change log.
    let embedded = Dir::minter(&[".sdd"]);
    let r = embedded.noid(&["prune-log", "--keep", "0"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        format!(
            "error: {}: not a minter held by PostgreSQL (no NOID/backend); only those have a change log\n",
            embedded.path().display()
        )
    );
}

/// A `mint` of more than one batch commits on two connections, each batch's write
/// started before the last one's has finished, and applied only after it. The ids
/// are the embedded store's; and when one batch's commit fails, none after it is
/// applied, so the next mint goes on with the failed batch's ids: none skipped, none
/// printed twice. The failure comes from a trigger on the change log that refuses one
/// commit's row, once on each connection (the second batch goes to the second one),
/// while the batch after it is already in flight, and once the last batch's.
#[test]
fn a_large_mint_on_two_connections_applies_batches_in_order_and_none_after_a_failure() {
    let server = TestServer::start();
    let tpl = ["f5.reedeedk", "long", "13030", "example.org", "bench"];
    let embedded = Dir::minter(&tpl);
    let reference = embedded.mint(100_000);
    assert_eq!(reference.len(), 100_000);

    let (pg, _) = pg_minter(&server, "whole", &tpl);
    assert_eq!(
        pg.mint(100_000),
        reference,
        "the embedded store's ids, in order"
    );

    for (db, failing) in [("second", 2), ("third", 3), ("fifth", 5)] {
        let (pg, url) = pg_minter(&server, db, &tpl);
        let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
        let head: i64 = c
            .query_one("SELECT log_seq FROM noid_minters", &[])
            .expect("head")
            .get(0);
        c.batch_execute(&format!(
            // Once only (a sequence is not rolled back): a later commit taking the
            // same number, were it applied, would be let through.
            "CREATE SEQUENCE refusals; \
             CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             IF NEW.seq = {} AND nextval('refusals') = 1 THEN \
             RAISE EXCEPTION 'refused commit %', NEW.seq; END IF; \
             RETURN NEW; END $$; \
             CREATE TRIGGER refuse BEFORE INSERT ON noid_log FOR EACH ROW EXECUTE FUNCTION refuse()",
            head + failing
        ))
        .expect("the trigger");
        let r = pg.noid(&["mint", "100000"]);
        assert_eq!(r.code, 1, "{}", r.stderr);
        let printed = ids(&r.stdout);
        let good = (failing as usize - 1) * 20_000;
        assert_eq!(
            printed,
            reference[..good],
            "the batches before the failed one"
        );
        assert!(
            r.stderr
                .contains(&format!("refused commit {}", head + failing)),
            "{}",
            r.stderr
        );
        let after: i64 = c
            .query_one("SELECT log_seq FROM noid_minters", &[])
            .expect("head")
            .get(0);
        assert_eq!(after, head + failing - 1, "no commit after the failed one");
        c.batch_execute("DROP TRIGGER refuse ON noid_log")
            .expect("drop the trigger");
        assert_eq!(
            pg.mint(100_000 - good),
            reference[good..],
            "the mint goes on with the failed batch's ids"
        );
        pg.assert_check_clean();
    }
}

/// The link checker's schedule on a binder held by PostgreSQL, with two hosts running
/// `noid serve` against it (each its own directory naming the same minter): one
/// checks, the other waits for the lease (docs/LINKS.md, "Schedule"). The
/// targets are on a loopback server; both hosts answer the report the checks left.
#[test]
fn two_hosts_on_one_postgres_binder_check_its_targets_from_one() {
    let server = TestServer::start();
    let url = server.create_database("links");
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let first = r.join("host1/binders/sam");
    let mut cmd = Command::new(noid_exe());
    cmd.arg("-f").arg(&first);
    cmd.args(["dbcreate", "--backend", &url, "--minter", "sam"]);
    run(cmd, b"").ok();
    let second = r.join("host2/binders/sam");
    std::fs::create_dir_all(second.join("NOID")).unwrap();
    std::fs::copy(first.join("NOID/backend"), second.join("NOID/backend")).unwrap();
    let site = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = site.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut s in site.incoming().flatten() {
            let mut head = [0u8; 4096];
            let _ = s.read(&mut head);
            let _ = s.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    for n in 1..=2 {
        let mut cmd = Command::new(noid_exe());
        cmd.arg("-f").arg(&first);
        cmd.args(["bind", "set", &format!("x{n}"), "_t"]);
        cmd.arg(format!("http://127.0.0.1:{port}/gone{n}"));
        run(cmd, b"").ok();
    }
    let hash = bcrypt::hash_with_result("secret", 4)
        .unwrap()
        .format_for_version(bcrypt::Version::TwoY);
    std::fs::write(r.join("pwd"), format!("sam:{hash}\n")).unwrap();
    let hosts: Vec<(std::process::Child, u16)> = [&first, &second]
        .iter()
        .enumerate()
        .map(|(i, binder)| {
            let config = format!(
                "[links]\ncontact = \"https://noid.example.org/links\"\ninterval = \"2s\"\n\
                 failures = 1\nspan = \"0s\"\nallow_net = [\"127.0.0.0/8\"]\n\
                 [populator.sam]\nhtpasswd = \"{}\"\nbinder = \"{}\"\n",
                r.join("pwd").display(),
                binder.display()
            );
            let path = r.join(format!("api{i}.toml"));
            std::fs::write(&path, config).unwrap();
            serve(&path)
        })
        .collect();
    let get = |port: u16, path: &str, query: &str| {
        let out = Command::new("curl")
            .args(["-s", "-u", "sam:secret"])
            .arg(format!("http://127.0.0.1:{port}{path}?{query}"))
            .output()
            .expect("run curl");
        String::from_utf8(out.stdout).unwrap()
    };
    let checks = |port: u16| -> u64 {
        get(port, "/metrics", "")
            .lines()
            .find_map(|l| l.strip_prefix("noid_links_checks_total "))
            .map_or(0, |n| n.parse().unwrap())
    };
    // Two rounds' checks, from one host.
    eventually("four checks", || {
        hosts.iter().map(|(_, p)| checks(*p)).max() >= Some(4)
    });
    let counts: Vec<u64> = hosts.iter().map(|(_, p)| checks(*p)).collect();
    assert!(
        counts.contains(&0),
        "one host checks, the other waits: {counts:?}"
    );
    for (_, port) in &hosts {
        let csv = get(*port, "/a/sam/links", "format=csv&status=broken");
        let ids: Vec<&str> = csv
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').next())
            .collect();
        assert_eq!(ids, ["x1", "x2"], "{csv}");
    }
    // The checking host stops: the other takes the lease over (it tries every 10 s).
    let mut hosts = hosts;
    let holder = counts.iter().position(|c| *c > 0).unwrap();
    let (mut stopped, _) = hosts.remove(holder);
    let _ = stopped.kill();
    let _ = stopped.wait();
    let (mut waiting, port) = hosts.pop().unwrap();
    eventually("the other host checks", || checks(port) > 0);
    let _ = waiting.kill();
    let _ = waiting.wait();
}
