//! Concurrent writers and killed writers: no identifier is ever lost or issued twice.

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::*;

#[test]
fn eight_concurrent_minters_never_collide() {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(noid_exe())
                .arg("-f")
                .arg(d.path())
                .args(["mint", "2000"])
                .env_remove("NOID")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut all = HashSet::new();
    let mut total = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for id in ids(&String::from_utf8_lossy(&out.stdout)) {
            total += 1;
            all.insert(id);
        }
    }
    assert_eq!(total, 16_000);
    assert_eq!(all.len(), 16_000, "every id distinct");
    let info = d.noid(&["dbinfo", "brief"]);
    assert!(
        info.ok().contains("\n  :/oacounter: 16000\n"),
        "{}",
        info.stdout
    );
    assert!(
        info.stdout.contains("\n  :/held: 16000\n"),
        "long term auto-holds every id"
    );
}

/// Kill `noid mint 100000` at random moments while it holds the writers' lock, then mint
/// on: no identifier is ever printed twice, every printed one has its circulation
/// record, and `noid check` finds nothing wrong.
/// NOID_CRASH_RUNS sets the number of kills (default 50).
#[test]
fn killed_minters_leave_a_consistent_store() {
    kill_minters("100000", crash_runs(), 300);
}

/// The same with mints of several batches, whose writes run on a second thread while
/// the next batch is minted: kills land between a batch's write and its printing too.
#[test]
fn killed_multi_batch_minters_leave_a_consistent_store() {
    kill_minters("350000", crash_runs().div_ceil(5), 1500);
}

/// `NOID_CRASH_RUNS`, default 50; a value that is not a positive count is an error,
/// not a test that quietly kills nothing.
fn crash_runs() -> usize {
    match std::env::var("NOID_CRASH_RUNS") {
        Err(_) => 50,
        Ok(v) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => panic!("NOID_CRASH_RUNS={v:?}: expected a positive number of kills"),
        },
    }
}

/// Whether some process holds the writers' lock of the minter in `dbdir` (takes and
/// drops it at once if nobody does).
fn lock_is_held(dbdir: &Path) -> bool {
    let f = std::fs::File::open(dbdir.join("NOID").join("lock")).expect("NOID/lock");
    match fs2::FileExt::try_lock_exclusive(&f) {
        Ok(()) => false,
        Err(e) if e.raw_os_error() == fs2::lock_contended_error().raw_os_error() => true,
        Err(e) => panic!("flock NOID/lock: {e}"),
    }
}

/// Start `noid mint COUNT` `runs` times; once it holds the writers' lock (it is
/// minting), kill it after a random 0 to `spread_ms` milliseconds; then check every
/// printed identifier and the whole store. Most kills must land while the lock is
/// still held, or the test proved nothing.
fn kill_minters(count: &str, runs: usize, spread_ms: u64) {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let mut printed: Vec<String> = Vec::new();
    let mut seed: u64 = 0x9E3779B97F4A7C15;
    let mut mid_mint = 0;
    for _ in 0..runs {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_millis(seed % spread_ms);
        let mut child = Command::new(noid_exe())
            .arg("-f")
            .arg(d.path())
            .args(["mint", count])
            .env_remove("NOID")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            s
        });
        // Wait for the minter to take the lock (or to finish without our seeing it).
        while !lock_is_held(d.path()) && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let start = Instant::now();
        while start.elapsed() < delay && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(2));
        }
        if child.try_wait().unwrap().is_none() && lock_is_held(d.path()) {
            mid_mint += 1;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let out = reader.join().unwrap();
        // A line cut by the kill is incomplete; only whole lines were printed.
        let whole = match out.rfind('\n') {
            Some(i) => &out[..=i],
            None => "",
        };
        printed.extend(ids(whole));
    }
    assert!(
        mid_mint * 2 >= runs,
        "only {mid_mint} of {runs} kills landed while noid held the lock"
    );
    printed.extend(d.mint(1000));
    let mut seen = HashSet::new();
    for id in &printed {
        assert!(seen.insert(id.clone()), "identifier {id} printed twice");
    }
    let dump = d.noid(&["dbinfo", "dump"]);
    let circulated: HashSet<&str> = dump
        .ok()
        .lines()
        .filter_map(|l| l.split_once("\t:/c: ").map(|(id, _)| id))
        .collect();
    for id in &printed {
        assert!(
            circulated.contains(id.as_str()),
            "{id} has no circulation record"
        );
    }
    let oacounter: usize = dump
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix(":/oacounter: "))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        oacounter,
        circulated.len(),
        "every generated id was recorded exactly once"
    );
    let check = d.noid(&["check"]);
    assert!(
        check.ok().ends_with("\nok: no problems found\n"),
        "{}",
        check.stdout
    );
    eprintln!(
        "{mid_mint} of {runs} kills landed mid-mint; {} ids printed",
        printed.len()
    );
}
