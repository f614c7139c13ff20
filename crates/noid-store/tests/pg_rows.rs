//! The key space as `noid_rows` keeps it, against a real PostgreSQL server: a minted
//! identifier's hold is a flag on its circulation record's row, and every way of
//! reading the minter (point reads, prefix and range scans, a bulk run's read-ahead, a
//! snapshot's streamed copy, the checksum a follower compares) sees exactly the keys a
//! plain key space would hold after the same commits. A database an earlier noid made
//! (`noid_keys`, a row per key) is moved in place by the first writer, and refused
//! before that by readers and by a follower's bootstrap.

use std::collections::BTreeMap;
use std::time::Duration;

use noid_core::Lookup;
use noid_store::pg::testing::TestServer;
use noid_store::pg::{Location, PgSnapshot, PgWriter, Progress, Replica};
use noid_store::{Op, Scan, Store};

type Keys = BTreeMap<Vec<u8>, Vec<u8>>;

fn put(k: &str, v: &str) -> Op {
    Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

fn client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connect")
}

/// Every key `scan` yields from the start.
fn scanned(scan: &dyn Scan) -> Keys {
    let mut keys = Keys::new();
    let mut last: Option<Vec<u8>> = None;
    scan.scan_from(b"", &mut |k, v| {
        assert!(
            last.as_deref().is_none_or(|l| l < k),
            "keys in order, once each"
        );
        last = Some(k.to_vec());
        keys.insert(k.to_vec(), v.to_vec());
        true
    })
    .expect("scan");
    keys
}

/// A small deterministic generator (xorshift), so that a failure repeats.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Random commits of holds, circulation records and other elements of a few
/// identifiers (holds placed before a mint, cleared, given other values, records
/// deleted under a flag), each followed by a mint-shaped commit large enough to go by
/// `COPY` (new identifiers, or ones that exist, which turns it into upserts): after
/// each, every reading path gives the model's keys.
#[test]
fn every_read_of_the_rows_gives_the_keys_of_a_plain_key_space() {
    let server = TestServer::start();
    let url = server.create_database("rows");
    let loc = Location::new(&url, "m").unwrap();
    let w = PgWriter::create(&loc, Duration::from_secs(10)).expect("create");
    let tmp = tempfile::tempdir().unwrap();
    let mut replica = Replica::new(&loc, tmp.path()).expect("replica");
    let mut model = Keys::new();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (ids, elements) = (IDS, ELEMENTS);
    for round in 0..12 {
        for _ in 0..6 {
            let mut commit = BTreeMap::new();
            for _ in 0..rng.below(5) + 1 {
                let key = format!(
                    "{}\t{}",
                    ids[rng.below(ids.len())],
                    elements[rng.below(elements.len())]
                );
                let op = match rng.below(3) {
                    0 => Op::Delete(key.clone().into_bytes()),
                    1 => put(&key, "1"),
                    _ => put(&key, &format!("v{}", rng.below(9))),
                };
                commit.insert(key, op);
            }
            let mut ops: Vec<Op> = commit.into_values().collect();
            apply(&mut model, &ops);
            w.commit_all(&mut ops).expect("a small commit");
        }
        // A mint's batch: new identifiers, and (every other round) the small ones'
        // too, whose rows may exist.
        let mut ops: Vec<Op> = (0..1_200)
            .map(|i| format!("m{round:02}x{i:04}"))
            .chain(ids.iter().filter(|_| round % 2 == 1).map(|s| s.to_string()))
            .flat_map(|id| {
                [
                    put(&format!("{id}\t:/c"), "i|1"),
                    put(&format!("{id}\t:/h"), "1"),
                ]
            })
            .chain([put(":/oacounter", &round.to_string())])
            .collect();
        apply(&mut model, &ops);
        w.commit_all(&mut ops).expect("a mint's commit");

        writer_reads_agree(&w, &model, round);
        snapshot_reads_agree(&loc, &model, round);
        // A follower's copy, made by the bootstrap or the change log, has the
        // minter's checksum.
        replica.sync().expect("sync");
        assert!(
            matches!(replica.verify().expect("verify"), Progress::Verified { .. }),
            "round {round}: the checksums agree"
        );
    }
    // One row per minted identifier.
    let rows: i64 = client(&url)
        .query_one(
            "SELECT count(*) FROM noid_rows WHERE key >= 'm'::bytea AND key < 'n'::bytea",
            &[],
        )
        .expect("count")
        .get(0);
    assert_eq!(rows, 12 * 1_200);
}

/// The identifiers and elements of the random commits.
const IDS: [&str; 5] = ["a", "b", "b0", "c", "d"];
const ELEMENTS: [&str; 7] = [":/c", ":/h", ":/d", ":/ca", ":/i", "_t", "note"];

/// The writer's full scan, prefix scans, point reads, and point reads after reading
/// ahead give the model's keys, after round `round`.
fn writer_reads_agree(w: &PgWriter, model: &Keys, round: usize) {
    let (ids, elements) = (IDS, ELEMENTS);
    assert_eq!(&scanned(w), model, "round {round}: the writer's scan");
    for id in ids {
        let prefix = format!("{id}\t");
        let want: Vec<(Vec<u8>, Vec<u8>)> = model
            .range(prefix.clone().into_bytes()..)
            .take_while(|(k, _)| k.starts_with(prefix.as_bytes()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for limit in [1, 2, 100] {
            let got = w
                .scan_prefix(prefix.as_bytes(), limit)
                .expect("scan_prefix");
            let mut expect = want.clone();
            expect.truncate(limit);
            assert_eq!(got, expect, "round {round}: {prefix:?}, {limit} at most");
        }
    }
    gets_agree(
        w,
        model,
        ids.iter().copied(),
        &elements,
        &format!("round {round}"),
    );
    // The read-ahead of a bulk run holds the same keys: read as one span (every
    // identifier, or two with others between them, which it leaves out), or one
    // identifier at a time (two far apart, with this round's 1,200 minted ones
    // between them: more rows than a span may hold).
    let last_minted = format!("m{round:02}x1199");
    for ahead in [&ids[..], &["a", "c"][..], &["a", "d", &last_minted][..]] {
        w.read_ahead(&ahead.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let all = ids.iter().copied().chain([last_minted.as_str()]);
        let context = format!("round {round}, after reading ahead {ahead:?}");
        gets_agree(w, model, all, &elements, &context);
    }
}

/// A snapshot's scan and its streamed copy give the model's keys.
fn snapshot_reads_agree(loc: &Location, model: &Keys, round: usize) {
    let snap = PgSnapshot::open(loc).expect("snapshot");
    assert_eq!(&scanned(&snap), model, "round {round}: a snapshot's scan");
    let mut copied = Keys::new();
    let mut last: Option<Vec<u8>> = None;
    let n = snap
        .copy_sorted(&mut |k, v| {
            assert!(last.as_deref().is_none_or(|l| l < k), "copied in order");
            last = Some(k.to_vec());
            copied.insert(k.to_vec(), v.to_vec());
            Ok(())
        })
        .expect("copy");
    assert_eq!(
        (n, &copied),
        (model.len() as u64, model),
        "round {round}: the copy"
    );
}

/// Every key `ID\tELEMENT` of `ids` and `elements` reads from `w` as `model` holds it.
fn gets_agree<'a>(
    w: &PgWriter,
    model: &Keys,
    ids: impl Iterator<Item = &'a str>,
    elements: &[&str],
    context: &str,
) {
    for id in ids {
        for el in elements {
            let key = format!("{id}\t{el}").into_bytes();
            assert_eq!(
                w.get(&key).expect("get"),
                model.get(&key).cloned(),
                "{context}: {key:?}"
            );
        }
    }
}

fn apply(model: &mut Keys, ops: &[Op]) {
    for op in ops {
        match op {
            Op::Put(k, v) => model.insert(k.clone(), v.clone()),
            Op::Delete(k) => model.remove(k),
        };
    }
}

/// The tables as the previous version of noid made them (schema version 2), with
/// minter `m`'s keys: a circulation record and its hold as two rows.
const VERSION_2: &str = "
CREATE TABLE noid_minters (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE,
    log_seq bigint NOT NULL DEFAULT 0);
CREATE TABLE noid_keys (minter bigint NOT NULL, key bytea NOT NULL, value bytea NOT NULL,
    PRIMARY KEY (minter, key));
CREATE TABLE noid_log (minter bigint NOT NULL REFERENCES noid_minters(id),
    seq bigint NOT NULL, changes bytea NOT NULL, PRIMARY KEY (minter, seq));
CREATE TABLE noid_followers (minter bigint NOT NULL REFERENCES noid_minters(id),
    name text NOT NULL, applied bigint NOT NULL, seen timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (minter, name));
INSERT INTO noid_minters (name) VALUES ('m');
INSERT INTO noid_keys VALUES (1, 'x\t:/c'::bytea, 'i|1'::bytea), (1, 'x\t:/h'::bytea, '1'::bytea),
    (1, ':/oacounter'::bytea, '1'::bytea);
";

#[test]
fn an_earlier_layout_is_refused_by_readers_and_moved_by_the_first_writer() {
    let server = TestServer::start();
    let url = server.create_database("v2");
    client(&url)
        .batch_execute(VERSION_2)
        .expect("the version-2 tables");
    let loc = Location::new(&url, "m").unwrap();
    let err = PgSnapshot::open(&loc)
        .err()
        .expect("a reader refuses")
        .to_string();
    assert!(
        err.contains("its keys are in the table noid_keys of an earlier noid"),
        "{err}"
    );
    // A follower starts (it reads the change log), but makes no copy of such rows.
    let tmp = tempfile::tempdir().unwrap();
    let mut replica = Replica::new(&loc, tmp.path()).expect("a follower starts");
    let err = replica.sync().expect_err("no bootstrap").to_string();
    assert!(err.contains("table noid_keys of an earlier noid"), "{err}");
    let w = PgWriter::open(&loc, Duration::from_secs(10)).expect("a writer moves it");
    let want: Keys = [(":/oacounter", "1"), ("x\t:/c", "i|1"), ("x\t:/h", "1")]
        .into_iter()
        .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
        .collect();
    assert_eq!(scanned(&w), want);
    drop(w);
    let mut c = client(&url);
    let old: Option<String> = c
        .query_one("SELECT to_regclass('noid_keys')::text", &[])
        .unwrap()
        .get(0);
    assert_eq!(old, None, "an earlier noid finds no table of its own");
    assert_eq!(
        scanned(&PgSnapshot::open(&loc).expect("now readable")),
        want
    );
    assert!(matches!(replica.sync(), Ok(Progress::Bootstrapped { .. })));
}
