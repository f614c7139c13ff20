//! Timings of a follower's copy of a PostgreSQL minter (used by `scripts/bench-pg.sh`):
//!
//! ```text
//! bench_pg bootstrap URL MINTER DIR   # make the copy in DIR (must not exist) from a snapshot
//! bench_pg catchup URL MINTER DIR     # apply the change log to the copy in DIR until current
//! ```
//!
//! Each prints one line, `RESULT SECONDS COUNT`: the wall time of noid-pg's
//! `Replica::sync` calls (connecting included), and the keys in the copy (bootstrap) or
//! the change-log sequence numbers applied (catchup). The same code that `noidr
//! --follow` runs, without the resolver around it.

use std::path::Path;
use std::time::Instant;

use noid_pg::{Location, Progress, Replica};

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match (args.get(1).map(String::as_str), args.len()) {
        (Some("bootstrap"), 5) => bootstrap(&args[2], &args[3], Path::new(&args[4])),
        (Some("catchup"), 5) => catchup(&args[2], &args[3], Path::new(&args[4])),
        _ => {
            eprintln!("usage: bench_pg bootstrap|catchup URL MINTER DIR");
            std::process::exit(2);
        }
    }
}
