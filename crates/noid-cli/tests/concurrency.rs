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

/// Kill `noid mint 1000000` at random moments while it holds the writers' lock, then mint
/// on: no identifier is ever printed twice, every printed one has its circulation
/// record, and `noid check` finds nothing wrong.
/// NOID_CRASH_RUNS sets the number of kills (default 50).
///
/// The count only has to outlast the kill: a quiet machine mints some 600,000 ids a
/// second, so `mint 100000` was often done before a kill 0 to 300 ms in.
#[test]
fn killed_minters_leave_a_consistent_store() {
    kill_minters("1000000", crash_runs(), 300);
}

/// The same with mints of several batches, whose writes run on a second thread while
/// the next batch is minted: kills land between a batch's write and its printing too.
#[test]
fn killed_multi_batch_minters_leave_a_consistent_store() {
    kill_minters("3000000", crash_runs().div_ceil(5), 1500);
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
    match f.try_lock() {
        Ok(()) => false,
        Err(std::fs::TryLockError::WouldBlock) => true,
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

/// What one writer process of [`interleaved_writers_keep_every_promise`] was asked, and
/// when it ran.
struct Done {
    kind: &'static str,
    start: Instant,
    end: Instant,
}

/// Truly interleaved writers: four threads each run 30 short `noid` processes (and bulk
/// scripts) one after another, so that mints from one process fall between binds, holds
/// and queues of the others, every process taking the writers' lock for itself. Then:
/// no identifier was minted twice, every acknowledged bind, hold and queue is in the
/// store (a queued id was minted once or is still queued), and `noid check` is clean.
#[test]
fn interleaved_writers_keep_every_promise() {
    const THREADS: u64 = 4;
    const ROUNDS: u64 = 30;
    // No check character, so the test can make valid identifiers: 13030/f5 + e e d e e d.
    let d = Dir::minter(&["f5.reedeed", "long", "13030", "cdlib.org", "oac/cmp"]);
    const X: &[u8] = b"0123456789bcdfghjkmnpqrstvwxz";
    // Holds start with `b`, queues with `c`, each thread's with its own second
    // character, so that no two promises are about the same identifier.
    let made = |first: u8, t: u64, n: u64| {
        format!(
            "13030/f5{}{}{}{}{}{}",
            first as char,
            X[10 + t as usize] as char,
            n % 10,
            X[(n / 10 % 29) as usize] as char,
            X[(n / 290 % 29) as usize] as char,
            n / 8410 % 10
        )
    };
    struct Promises {
        minted: Vec<String>,
        bound: Vec<(String, String, String)>,
        held: Vec<String>,
        queued: Vec<String>,
        done: Vec<Done>,
    }
    let path = d.path().to_path_buf();
    let results: Vec<Promises> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let path = path.clone();
                s.spawn(move || {
                    let mut p = Promises {
                        minted: Vec::new(),
                        bound: Vec::new(),
                        held: Vec::new(),
                        queued: Vec::new(),
                        done: Vec::new(),
                    };
                    let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (t + 1).wrapping_mul(0x2545_F491);
                    let mut next = || {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        rng
                    };
                    for round in 0..ROUNDS {
                        let noid = |args: &[&str], input: &str| {
                            let mut cmd = Command::new(noid_exe());
                            cmd.arg("-f").arg(&path).args(args);
                            run(cmd, input.as_bytes())
                        };
                        let start = Instant::now();
                        let kind = match next() % 6 {
                            0 | 1 => {
                                let n = 1 + next() % 4;
                                let r = noid(&["mint", &n.to_string()], "");
                                let got = ids(r.ok());
                                assert_eq!(got.len() as u64, n, "{}", r.stdout);
                                p.minted.extend(got);
                                "mint"
                            }
                            2 => {
                                // A bind on an identifier this thread minted or held.
                                let own: Vec<&String> = p.minted.iter().chain(&p.held).collect();
                                let Some(id) = own
                                    .get(next() as usize % own.len().max(1))
                                    .map(|s| s.to_string())
                                else {
                                    continue;
                                };
                                let (elem, value) =
                                    (format!("e{t}_{round}"), format!("v{t}_{round}"));
                                let r = noid(&["bind", "set", &id, &elem, &value], "");
                                assert!(r.ok().contains("Status:  ok"), "{}", r.stdout);
                                p.bound.push((id, elem, value));
                                "bind"
                            }
                            3 => {
                                let id = made(b'b', t, round);
                                noid(&["hold", "set", &id], "").ok();
                                p.held.push(id);
                                "hold"
                            }
                            4 => {
                                // Queued alone: some other process's mint takes it.
                                let q = made(b'c', t, round);
                                let r = noid(&["queue", "now", &q], "");
                                assert!(
                                    r.ok().contains("note: 1 identifier queued"),
                                    "{}",
                                    r.stdout
                                );
                                p.queued.push(q);
                                "queue"
                            }
                            _ => {
                                // A bulk script: a queue, a mint and a hold in one process.
                                let (q, h) = (made(b'c', t, round), made(b'b', t, 1000 + round));
                                let script = format!("queue now {q}\nmint 1\nhold set {h}\n");
                                let r = noid(&["-"], &script);
                                assert!(
                                    r.ok().contains("note: 1 identifier queued"),
                                    "{}",
                                    r.stdout
                                );
                                // `queue` prints its identifier too: the mint's comes second.
                                let got = ids(&r.stdout);
                                assert_eq!(got.len(), 2, "{}", r.stdout);
                                p.queued.push(q);
                                p.minted.push(got[1].clone());
                                p.held.push(h);
                                "bulk"
                            }
                        };
                        p.done.push(Done {
                            kind,
                            start,
                            end: Instant::now(),
                        });
                    }
                    p
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });

    // The writers did interleave: some mint ran while another process bound, held or
    // queued (each process waits for the lock, so running at once means alternating).
    let all_done: Vec<&Done> = results.iter().flat_map(|p| &p.done).collect();
    let overlapping = all_done.iter().any(|a| {
        a.kind == "mint"
            && all_done
                .iter()
                .any(|b| b.kind != "mint" && a.start < b.end && b.start < a.end)
    });
    assert!(overlapping, "no mint ran alongside another writer");

    let mut minted = HashSet::new();
    for id in results.iter().flat_map(|p| &p.minted) {
        assert!(minted.insert(id.clone()), "{id} minted twice");
    }
    let export = d.noid(&["export", "noid"]);
    let export = export.ok();
    for p in &results {
        for (id, elem, value) in &p.bound {
            assert_eq!(
                d.noid(&["get", id, elem]).ok().trim_end(),
                value,
                "{id} {elem}"
            );
        }
        for id in &p.held {
            assert!(
                export.contains(&format!("\n{id}\\t:/h\t1\n")),
                "hold on {id} lost"
            );
        }
        for id in &p.queued {
            let still_queued = export
                .lines()
                .any(|l| l.starts_with(":/q/") && l.ends_with(&format!("\t{id}")));
            assert!(
                minted.contains(id) != still_queued,
                "queued {id}: minted {}, still queued {still_queued}",
                minted.contains(id)
            );
        }
    }
    assert!(
        d.noid(&["check"]).ok().contains("ok: no problems found"),
        "noid check"
    );
    eprintln!(
        "interleaved writers: {} processes, {} ids minted, {} binds, {} holds, {} queued",
        all_done.len(),
        minted.len(),
        results.iter().map(|p| p.bound.len()).sum::<usize>(),
        results.iter().map(|p| p.held.len()).sum::<usize>(),
        results.iter().map(|p| p.queued.len()).sum::<usize>(),
    );
}
