//! Benchmark client for `noidr` over a pipe (used by `scripts/bench-noidr.sh`).
//!
//! ```text
//! bench_noidr load DBDIR N            # create a store of N bound ARKs (skipped if present)
//! bench_noidr unmerged DBDIR K KEYS   # add K level-0 tables of KEYS bindings each
//! bench_noidr run NOIDR DBDIR N REQS  # measure: hits, misses, 4-level chop-backs
//! bench_noidr rawget DBDIR N REQS     # the ceiling: RocksDB gets in-process
//! bench_noidr rawchop DBDIR N REQS    # the same for a chop-back's range read, 2 threads
//! bench_noidr binds N                 # the same N bindings as `noid -` bulk lines
//! bench_noidr hits NOIDR N REQS ARGS… # hits only, noidr started with ARGS (e.g. --follow …);
//!                                     # one line: RESULT one/s p50-µs p99-µs piped/s cpu-µs
//! bench_noidr file NOIDR PROTOCOL REQUESTS EXPECT ARGS…
//!                                     # the requests of file REQUESTS (one a line), each
//!                                     # answer starting with EXPECT; one line: RESULT one/s
//!                                     # p50-µs p99-µs piped/s cpu-µs noidr's-peak-RSS-kB
//! ```
//!
//! `run` starts the real `noidr` on DBDIR and measures, for each kind of request,
//! answers per second and round-trip latency p50/p99 one request at a time (as Apache
//! sends them), then answers per second pipelined (a writer thread sends all requests
//! while a reader thread counts answers), with the CPU time `noidr` spent per pipelined
//! answer and the cores it kept busy (answers/s = cores busy / CPU per answer): what an
//! answer costs and how much of the machine `noidr` got, told apart. On a virtual
//! machine the host may also run other guests on its cores: the last column is the
//! share of this machine's CPU time the host took back ("steal" in `/proc/stat`) while
//! the row was measured, so that a slow row can be told from slow code. Request ids are
//! drawn at random (fixed seed) among the N bound ids. Output is a Markdown table.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use noid_store::{Op, Writer};

const XDIGITS: &[u8] = b"0123456789bcdfghjkmnpqrstvwxz";

/// The i-th bound id: `ark:/13030/fk4` + 6 extended digits.
fn id(mut i: u64) -> String {
    let mut s = *b"000000";
    for c in s.iter_mut().rev() {
        *c = XDIGITS[(i % 29) as usize];
        i /= 29;
    }
    format!("ark:/13030/fk4{}", std::str::from_utf8(&s).unwrap())
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn load(dbdir: &Path, n: u64) {
    if dbdir.join("NOID").exists() {
        eprintln!("store {} exists; not reloading", dbdir.display());
        return;
    }
    let start = Instant::now();
    let w = Writer::create(dbdir, Duration::from_secs(10)).expect("create store");
    // Batch b of 100,000 takes the ids b, b + batches, b + 2 * batches ... so that
    // batches overlap in key order as a minter's quasi-random ids do, and compaction
    // merges them into the tables a real store has (batches of consecutive ids would
    // stay side by side, one table each).
    let batches = n.div_ceil(100_000);
    for b in 0..batches {
        w.commit((b..n).step_by(batches as usize).map(|j| {
            Op::Put(
                format!("{}\t_t", id(j)).into_bytes(),
                format!("https://example.org/objects/{j:08}").into_bytes(),
            )
        }))
        .expect("commit");
    }
    w.compact(None).expect("compact");
    eprintln!("loaded {n} ids in {:.1} s", start.elapsed().as_secs_f64());
}

/// Leave `k` level-0 tables of `keys` bindings each (under bound ids), as `k` `noid
/// bind` commands would (a writer flushes its memtable on close) before compaction
/// merges them.
fn unmerged(dbdir: &Path, k: u64, keys: u64) {
    for i in 0..k {
        let w = Writer::open(dbdir, Duration::from_secs(10)).expect("open store");
        w.commit((0..keys).map(|j| {
            Op::Put(
                format!("{}/zz{i}\t_t", id(j * 97 % 1_000_000)).into_bytes(),
                b"https://example.org/zz".to_vec(),
            )
        }))
        .expect("commit");
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

struct Result {
    one_rate: f64,
    p50: Duration,
    p99: Duration,
    piped_rate: f64,
    /// CPU time (user and system) `noidr` spent per pipelined answer.
    piped_cpu: Duration,
    /// Cores `noidr` kept busy while pipelined (its CPU time over the wall time).
    piped_cores: f64,
    /// Percentage of the machine's CPU time the host took while the row was measured.
    steal: f64,
    /// `noidr`'s peak resident memory (`VmHWM`), in kB, read before it exits.
    peak_rss_kb: u64,
}

/// The machine's CPU time so far, in clock ticks: (all of it, stolen by the host), from
/// the first line of `/proc/stat` (user nice system idle iowait irq softirq steal …).
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").expect("read /proc/stat");
    let first = stat.lines().next().expect("a cpu line");
    let ticks: Vec<u64> = first
        .split_ascii_whitespace()
        .skip(1)
        .take(8)
        .map(|t| t.parse().expect("a tick count"))
        .collect();
    (ticks.iter().sum(), ticks.get(7).copied().unwrap_or(0))
}

/// Percentage of the machine's CPU time stolen by the host since `before`
/// ([`machine_ticks`]).
fn steal_since(before: (u64, u64)) -> f64 {
    let after = machine_ticks();
    let all = after.0.saturating_sub(before.0).max(1);
    100.0 * after.1.saturating_sub(before.1) as f64 / all as f64
}

/// CPU time (user and system) used so far by process `pid`, exited threads included,
/// from `/proc/PID/stat` (in clock ticks of 10 ms: Linux's fixed USER_HZ of 100).
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/PID/stat");
    // Fields after the command name, which is in parentheses and may hold spaces:
    // state is field 3, utime and stime are fields 14 and 15.
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

/// Fewest requests in the pipelined measurement of [`measure`].
const PIPED_MIN: usize = 1_000_000;

/// `noidr` started with `store` (`-f DBDIR`, or `--follow URL … --cache DIR`).
fn measure(
    noidr: &Path,
    store: &[OsString],
    protocol: &str,
    reqs: &[Vec<u8>],
    expect: &[u8],
) -> Result {
    let mut child = Command::new(noidr)
        .args(store)
        .args(["--protocol", protocol])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start noidr");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = Vec::new();
    let mut ask = |req: &[u8], line: &mut Vec<u8>| {
        stdin.write_all(req).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_until(b'\n', line).unwrap();
    };
    // Warm up (page cache, block cache).
    for r in reqs.iter().take(20_000) {
        ask(r, &mut line);
    }
    assert!(
        line.starts_with(expect),
        "unexpected answer {:?}",
        String::from_utf8_lossy(&line)
    );
    // Steal is counted over what is timed, from here to the last pipelined answer.
    let machine_before = machine_ticks();
    let mut lat = Vec::with_capacity(reqs.len());
    let start = Instant::now();
    for r in reqs {
        let t = Instant::now();
        ask(r, &mut line);
        lat.push(t.elapsed());
    }
    let one_rate = reqs.len() as f64 / start.elapsed().as_secs_f64();
    lat.sort_unstable();
    let (p50, p99) = (percentile(&lat, 0.50), percentile(&lat, 0.99));

    // Pipelined: all requests written by one thread, answers counted by another. The
    // list is sent as many times as it takes to reach PIPED_MIN requests: answered at
    // over a million a second, one pass of 100,000 would last some 70 ms, which the
    // machine's other work moves by a third either way.
    let passes = PIPED_MIN.div_ceil(reqs.len()).max(1);
    let total = reqs.len() * passes;
    let all: Vec<u8> = reqs.concat().repeat(passes);
    let cpu_before = cpu_time(child.id());
    let start = Instant::now();
    let writer = std::thread::spawn(move || {
        let mut w = BufWriter::with_capacity(1 << 16, stdin);
        w.write_all(&all).unwrap();
        w.flush().unwrap();
        w
    });
    let mut count = 0;
    while count < total {
        line.clear();
        if stdout.read_until(b'\n', &mut line).unwrap() == 0 {
            break;
        }
        count += 1;
    }
    let wall = start.elapsed();
    let steal = steal_since(machine_before);
    let cpu = cpu_time(child.id()) - cpu_before;
    let piped_rate = count as f64 / wall.as_secs_f64();
    assert_eq!(count, total);
    let peak_rss_kb = peak_rss_kb(child.id());
    drop(writer.join().unwrap());
    let _ = child.wait();
    Result {
        one_rate,
        p50,
        p99,
        piped_rate,
        piped_cpu: cpu / count as u32,
        piped_cores: cpu.as_secs_f64() / wall.as_secs_f64(),
        steal,
        peak_rss_kb,
    }
}

/// The peak resident memory of process `pid` so far (`VmHWM` in `/proc/PID/status`), kB.
fn peak_rss_kb(pid: u32) -> u64 {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc/PID/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmHWM line")
}

fn run(noidr: &Path, dbdir: &Path, n: u64, count: usize) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut pick = || rng.next() % n;
    let kinds: Vec<(&str, &str, Vec<Vec<u8>>, &[u8])> = vec![
        (
            "hit",
            "egg",
            (0..count)
                .map(|_| format!("{}.resolve\n", id(pick())).into_bytes())
                .collect(),
            b"redir302 https://example.org/objects/",
        ),
        (
            "miss",
            "egg",
            // Same shoulder, never bound (ids past N).
            (0..count)
                .map(|_| format!("{}.resolve\n", id(n + pick())).into_bytes())
                .collect(),
            b"NULL",
        ),
        (
            "4-level chop-back",
            "egg",
            (0..count)
                .map(|_| format!("{}/a/b.c/d.resolve\n", id(pick())).into_bytes())
                .collect(),
            b"redir302 https://example.org/objects/",
        ),
        (
            "hit (noid `get ID _t`)",
            "noid",
            (0..count)
                .map(|_| format!("get {} _t\n", id(pick())).into_bytes())
                .collect(),
            b"https://example.org/objects/",
        ),
    ];
    println!("| request | one at a time: answers/s | p50 | p99 | pipelined: answers/s | pipelined: noidr CPU per answer (cores busy) | host steal |");
    println!("|---|---|---|---|---|---|---|");
    for (name, protocol, reqs, expect) in kinds {
        let store = [OsString::from("-f"), dbdir.into()];
        let r = measure(noidr, &store, protocol, &reqs, expect);
        println!(
            "| {name} | {:.0} | {:.1} µs | {:.1} µs | {:.0} | {:.2} µs ({:.2}) | {:.0} % |",
            r.one_rate,
            r.p50.as_secs_f64() * 1e6,
            r.p99.as_secs_f64() * 1e6,
            r.piped_rate,
            r.piped_cpu.as_secs_f64() * 1e6,
            r.piped_cores,
            r.steal
        );
    }
}

/// Hits only, `noidr` started with `store` arguments: one machine-readable line, for
/// scripts that compare two ways of serving the same data (scripts/bench-pg.sh).
fn hits(noidr: &Path, store: &[OsString], n: u64, count: usize) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let reqs: Vec<Vec<u8>> = (0..count)
        .map(|_| format!("{}.resolve\n", id(rng.next() % n)).into_bytes())
        .collect();
    let r = measure(
        noidr,
        store,
        "egg",
        &reqs,
        b"redir302 https://example.org/objects/",
    );
    println!(
        "RESULT {:.0} {:.1} {:.1} {:.0} {:.2}",
        r.one_rate,
        r.p50.as_secs_f64() * 1e6,
        r.p99.as_secs_f64() * 1e6,
        r.piped_rate,
        r.piped_cpu.as_secs_f64() * 1e6
    );
}

/// The requests of the file `requests` (one a line, as `noidr` reads them), `noidr`
/// started with `store` arguments and `protocol`, every answer starting with `expect`:
/// one machine-readable line, for scripts with data of their own (scripts/bench-scale.sh).
fn file(noidr: &Path, protocol: &str, requests: &Path, expect: &str, store: &[OsString]) {
    let text = std::fs::read(requests).expect("read the requests");
    let reqs: Vec<Vec<u8>> = text
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    assert!(!reqs.is_empty(), "no requests in {}", requests.display());
    let r = measure(noidr, store, protocol, &reqs, expect.as_bytes());
    println!(
        "RESULT {:.0} {:.1} {:.1} {:.0} {:.2} {}",
        r.one_rate,
        r.p50.as_secs_f64() * 1e6,
        r.p99.as_secs_f64() * 1e6,
        r.piped_rate,
        r.piped_cpu.as_secs_f64() * 1e6,
        r.peak_rss_kb
    );
}

/// The bindings [`load`] makes, as `noid -` bulk lines, so that a minter loaded with
/// them (embedded or PostgreSQL) answers the same requests.
fn binds(n: u64) {
    let mut out = BufWriter::new(std::io::stdout().lock());
    for j in 0..n {
        writeln!(
            out,
            "bind set {} _t https://example.org/objects/{j:08}",
            id(j)
        )
        .unwrap();
    }
    out.flush().unwrap();
}

/// The ceiling: the same random gets in-process on a `noid_store::Secondary`, no pipe.
fn rawget(dbdir: &Path, n: u64, count: usize) {
    let reader = noid_store::Secondary::open(dbdir, None, 256 << 20).expect("open reader");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let keys: Vec<Vec<u8>> = (0..count)
        .map(|_| format!("{}\t_t", id(rng.next() % n)).into_bytes())
        .collect();
    for k in keys.iter().take(20_000) {
        reader.get(k).unwrap();
    }
    let machine_before = machine_ticks();
    let start = Instant::now();
    let mut found = 0;
    for k in &keys {
        found += reader.get(k).unwrap().is_some() as usize;
    }
    let rate = count as f64 / start.elapsed().as_secs_f64();
    assert_eq!(found, count);
    let steal = steal_since(machine_before);
    println!("| RocksDB get in-process (the ceiling) | | | | {rate:.0} | | {steal:.0} % |");
}

/// The ceiling for chop-backs: the one range read `noidr` makes for `ID/a/b.c/d` (from
/// `ID` to the whole id's `_t`: the id, its ancestors and its `_t_am` flag), in-process
/// on two threads sharing one `noid_store::Secondary` (each keeps its own cursor), no
/// pipe, no resolution.
fn rawchop(dbdir: &Path, n: u64, count: usize) {
    let reader = noid_store::Secondary::open(dbdir, None, 256 << 20).expect("open reader");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let requests: Vec<(Vec<u8>, Vec<u8>)> = (0..count)
        .map(|_| {
            let x = id(rng.next() % n);
            (
                x.clone().into_bytes(),
                format!("{x}/a/b.c/d\t_t").into_bytes(),
            )
        })
        .collect();
    let run = |part: &[(Vec<u8>, Vec<u8>)]| {
        let mut found = 0;
        for (first, last) in part {
            found += reader
                .range(first, last, 32)
                .unwrap()
                .expect("a range read")
                .len();
        }
        found
    };
    run(&requests[..count.min(20_000)]);
    let machine_before = machine_ticks();
    let start = Instant::now();
    let (a, b) = requests.split_at(count / 2);
    let found = std::thread::scope(|s| {
        let other = s.spawn(|| run(b));
        run(a) + other.join().unwrap()
    });
    let rate = count as f64 / start.elapsed().as_secs_f64();
    assert_eq!(found, count);
    let steal = steal_since(machine_before);
    println!("| RocksDB in-process, a chop-back's range read on 2 threads (its ceiling) | | | | {rate:.0} | | {steal:.0} % |");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("load") if args.len() == 4 => load(Path::new(&args[2]), args[3].parse().expect("N")),
        Some("unmerged") if args.len() == 5 => unmerged(
            Path::new(&args[2]),
            args[3].parse().expect("K"),
            args[4].parse().expect("KEYS"),
        ),
        Some("rawget") if args.len() == 5 => rawget(
            Path::new(&args[2]),
            args[3].parse().expect("N"),
            args[4].parse().expect("REQS"),
        ),
        Some("rawchop") if args.len() == 5 => rawchop(
            Path::new(&args[2]),
            args[3].parse().expect("N"),
            args[4].parse().expect("REQS"),
        ),
        Some("run") if args.len() == 6 => run(
            Path::new(&args[2]),
            Path::new(&args[3]),
            args[4].parse().expect("N"),
            args[5].parse().expect("REQS"),
        ),
        Some("file") if args.len() > 6 => file(
            Path::new(&args[2]),
            &args[3],
            Path::new(&args[4]),
            &args[5],
            &args[6..].iter().map(OsString::from).collect::<Vec<_>>(),
        ),
        Some("binds") if args.len() == 3 => binds(args[2].parse().expect("N")),
        Some("hits") if args.len() > 5 => hits(
            Path::new(&args[2]),
            &args[5..].iter().map(OsString::from).collect::<Vec<_>>(),
            args[3].parse().expect("N"),
            args[4].parse().expect("REQS"),
        ),
        _ => {
            eprintln!(
                "usage: bench_noidr load DBDIR N | unmerged DBDIR K KEYS | run NOIDR DBDIR N REQS | rawget|rawchop DBDIR N REQS | binds N | hits NOIDR N REQS NOIDR-ARGS... | file NOIDR PROTOCOL REQUESTS EXPECT NOIDR-ARGS..."
            );
            std::process::exit(2);
        }
    }
}
