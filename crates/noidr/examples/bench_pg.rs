//! Timings of a follower's copy of a PostgreSQL minter (used by `scripts/bench-pg.sh`):
//!
//! ```text
//! bench_pg bootstrap URL MINTER DIR   # make the copy in DIR (must not exist) from a snapshot
//! bench_pg catchup URL MINTER DIR     # apply the change log to the copy in DIR until current
//! bench_pg commits URL MINTER K       # K small commits, one binding each (as API binds are)
//! bench_pg verify URL MINTER DIR      # compare the copy in DIR with the minter (checksums)
//! ```
//!
//! Each prints one line, `RESULT SECONDS COUNT`: the wall time of noid-store's `pg`
//! `Replica::sync` calls (connecting included), and the keys in the copy (bootstrap) or
//! the change-log sequence numbers applied (catchup); or the time of K commits; or the
//! time of one checksum comparison of a current copy (`Replica::verify`: a digest of
//! every key computed by PostgreSQL and one of the copy) and the change it was at. The
//! same code that `noidr --follow` and `noid` run, without the resolver or the minter
//! around it.

use std::path::Path;
use std::time::Instant;

use noid_store::pg::{Location, PgWriter, Progress, Replica};
use noid_store::{Op, Store};

fn replica(url: &str, minter: &str, dir: &Path) -> Replica {
    let location = Location::new(url, minter).expect("a location");
    Replica::new(&location, dir).expect("connect to the minter")
}

fn bootstrap(url: &str, minter: &str, dir: &Path) {
    assert!(
        !dir.join("NOID").exists(),
        "{}: a copy exists",
        dir.display()
    );
    let start = Instant::now();
    let progress = replica(url, minter, dir).sync().expect("bootstrap");
    let secs = start.elapsed().as_secs_f64();
    assert!(
        matches!(progress, Progress::Bootstrapped { .. }),
        "{progress:?}"
    );
    let reader = noid_store::Snapshot::open(dir).expect("open the copy");
    let mut keys = 0u64;
    noid_store::Scan::scan_from(&reader, b"", &mut |_, _| {
        keys += 1;
        true
    })
    .expect("count the keys");
    println!("RESULT {secs:.3} {keys}");
}

fn catchup(url: &str, minter: &str, dir: &Path) {
    let start = Instant::now();
    let mut r = replica(url, minter, dir);
    let mut applied = 0;
    loop {
        match r.sync().expect("sync") {
            Progress::Applied { from, to } => applied += to - from + 1,
            Progress::Current { .. } => break,
            other => panic!("the copy was not followed but made anew: {other:?}"),
        }
    }
    println!("RESULT {:.3} {applied}", start.elapsed().as_secs_f64());
}

/// `k` commits of one binding each: the binding `ID<TAB>_t` and its last-write record
/// `ID<TAB>:/m`, under ids of a shape the bench's bulk bindings never take.
fn commits(url: &str, minter: &str, k: u64) {
    let location = Location::new(url, minter).expect("a location");
    let w = PgWriter::open(&location, std::time::Duration::from_secs(60)).expect("open");
    let start = Instant::now();
    for i in 0..k {
        let id = format!("ark:/13030/fk4zz{i:07}");
        w.commit_all(&mut vec![
            Op::Put(
                format!("{id}\t_t").into_bytes(),
                format!("https://example.org/small/{i}").into_bytes(),
            ),
            Op::Put(format!("{id}\t:/m").into_bytes(), b"1700000000".to_vec()),
        ])
        .expect("commit");
    }
    println!("RESULT {:.3} {k}", start.elapsed().as_secs_f64());
}

fn verify(url: &str, minter: &str, dir: &Path) {
    let mut r = replica(url, minter, dir);
    let start = Instant::now();
    let progress = r.verify().expect("verify");
    let Progress::Verified { seq } = progress else {
        panic!("the copy was not verified: {progress:?}");
    };
    println!("RESULT {:.3} {seq}", start.elapsed().as_secs_f64());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match (args.get(1).map(String::as_str), args.len()) {
        (Some("bootstrap"), 5) => bootstrap(&args[2], &args[3], Path::new(&args[4])),
        (Some("catchup"), 5) => catchup(&args[2], &args[3], Path::new(&args[4])),
        (Some("commits"), 5) => commits(&args[2], &args[3], args[4].parse().expect("K")),
        (Some("verify"), 5) => verify(&args[2], &args[3], Path::new(&args[4])),
        _ => {
            eprintln!(
                "usage: bench_pg bootstrap|catchup|verify URL MINTER DIR | commits URL MINTER K"
            );
            std::process::exit(2);
        }
    }
}
