//! Resolution counts (`--counts`) of real `noidr` processes under concurrent load, read
//! back from the counts store's files: the totals equal the requests the tests sent
//! (the expected counts are the tests' own tally of what they sent), robots are
//! counted apart by User-Agent, a killed server loses at most its last window, and the
//! store's bytes hold no address and no User-Agent.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use noid_counts::{counts_dir_of, Class, CountsDir, Kind};

use crate::util::{noidr_bin, Http, Minter, Noidr};

/// What a test expects: (identifier, kind, class) → count.
type Tally = BTreeMap<(String, Kind, Class), u64>;

/// The counts store's sums, by (identifier, kind, class), all days together.
fn stored(dbdir: &Path) -> Tally {
    let mut sums = Tally::new();
    for e in CountsDir::new(counts_dir_of(dbdir)).read().unwrap() {
        let id = String::from_utf8(e.id).unwrap();
        *sums.entry((id, e.kind, e.class)).or_default() += e.count;
    }
    sums
}

fn total(t: &Tally) -> u64 {
    t.values().sum()
}

/// Polls `cond` (30 s at most: a bound for a hung server, not a speed).
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(30), "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Ten bound identifiers (`ark:/99999/fk4a0` … `a9`), each with a target and a `who`.
fn minter() -> Minter {
    let m = Minter::new();
    let ids: Vec<String> = (0..10).map(|i| format!("ark:/99999/fk4a{i}")).collect();
    let mut bindings = Vec::new();
    for id in &ids {
        bindings.push((id.as_str(), "_t", "https://example.org/x"));
        bindings.push((id.as_str(), "who", "Somebody"));
    }
    m.bind(&bindings);
    m
}

/// Request `i` of a load: a hit, a miss or an inflection of one of the identifiers.
pub(crate) fn request(i: u64) -> (String, Kind) {
    match i % 5 {
        0 => (format!("ark:/99999/fk4zz{}", i % 7), Kind::Miss),
        1 => (format!("ark:/99999/fk4a{}", i % 10), Kind::Inflection),
        _ => (format!("ark:/99999/fk4a{}", i % 10), Kind::Redirect(302)),
    }
}

#[test]
fn prg_counts_of_concurrent_noidr_processes_equal_the_requests_sent() {
    let m = minter();
    let per_process = 3_000u64;
    let mut expected = Tally::new();
    let mut servers = Vec::new();
    // Process 1 writes every 0.1 s; 0 and 2 only at their end (the interval is an
    // hour), so their counts are there only if the end of input (0) and SIGTERM (2)
    // write them.
    for (p, interval) in [(0u64, "3600"), (1, "0.1"), (2, "3600")] {
        let noidr = Noidr::start(
            m.dbdir(),
            &[
                "--protocol",
                "egg",
                "--counts",
                "--counts-interval",
                interval,
            ],
        );
        servers.push((p, noidr));
    }
    std::thread::scope(|s| {
        for (p, noidr) in &mut servers {
            let p = *p;
            s.spawn(move || {
                // All requests written at once: answered in batches, by both threads.
                let mut lines = Vec::new();
                for i in 0..per_process {
                    let (id, kind) = request(i + p);
                    let inflection = if kind == Kind::Inflection { "?" } else { "" };
                    lines.extend_from_slice(format!("{id}{inflection}.resolve\n").as_bytes());
                }
                let mut stdin = noidr.stdin.take().unwrap();
                let writer = std::thread::spawn(move || {
                    stdin.write_all(&lines).unwrap();
                    stdin
                });
                let stdout = noidr.stdout.as_mut().unwrap();
                for i in 0..per_process {
                    let mut answer = String::new();
                    stdout.read_line(&mut answer).unwrap();
                    let (_, kind) = request(i + p);
                    let want = match kind {
                        Kind::Miss => "NULL",
                        Kind::Inflection => "inflect ",
                        _ => "redir302 https://example.org/x",
                    };
                    assert!(answer.starts_with(want), "{answer:?}");
                }
                let stdin = writer.join().unwrap();
                if p == 2 {
                    // Apache's way of stopping a prg: SIGTERM, which flushes first.
                    noidr.stdin = Some(stdin);
                    let st = Command::new("kill")
                        .args(["-TERM", &noidr.child.id().to_string()])
                        .status()
                        .unwrap();
                    assert!(st.success());
                } else {
                    drop(stdin); // the end of input: a clean end
                }
                assert!(noidr.child.wait().unwrap().success());
            });
        }
    });
    for p in 0..3u64 {
        for i in 0..per_process {
            let (id, kind) = request(i + p);
            // No User-Agent reaches a prg: every request is counted as a person's.
            *expected.entry((id, kind, Class::Person)).or_default() += 1;
        }
    }
    let got = stored(m.dbdir());
    assert_eq!(total(&got), 3 * per_process);
    assert_eq!(got, expected);
}

/// Sends `requests` (path, User-Agent) on one kept-alive connection, 50 at a time
/// pipelined, and returns each response's status.
pub(crate) fn http_load(server: &Http, requests: &[(String, Option<&str>)]) -> Vec<u16> {
    let mut conn = BufReader::new(server.connect());
    let mut statuses = Vec::new();
    for chunk in requests.chunks(50) {
        let mut batch = String::new();
        for (path, ua) in chunk {
            batch.push_str(&format!("GET {path} HTTP/1.1\r\nHost: x\r\n"));
            if let Some(ua) = ua {
                batch.push_str(&format!("User-Agent: {ua}\r\n"));
            }
            batch.push_str("\r\n");
        }
        conn.get_mut().write_all(batch.as_bytes()).unwrap();
        for _ in chunk {
            let mut status = String::new();
            conn.read_line(&mut status).unwrap();
            statuses.push(status[9..12].parse().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                conn.read_line(&mut line).unwrap();
                if line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            conn.read_exact(&mut body).unwrap();
        }
    }
    statuses
}

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
pub(crate) const FIREFOX: &str =
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// A client's requests: a person's (Firefox), a robot's (Googlebot) or one without a
/// User-Agent (a robot by the COUNTER list's `^.?$`), by turns.
pub(crate) fn http_requests(
    client: u64,
    n: u64,
) -> Vec<(String, Kind, Option<&'static str>, Class)> {
    (0..n)
        .map(|i| {
            let (id, kind) = request(i + client);
            let path = match kind {
                Kind::Inflection => format!("/{id}?"),
                _ => format!("/{id}"),
            };
            let (ua, class) = match (i + client) % 3 {
                0 => (Some(FIREFOX), Class::Person),
                1 => (Some(GOOGLEBOT), Class::Robot),
                _ => (None, Class::Robot),
            };
            (path, kind, ua, class)
        })
        .collect()
}

#[test]
fn http_counts_under_concurrent_load_equal_the_requests_sent_robots_apart_and_nothing_identifying_stored(
) {
    let m = minter();
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir()).args([
        "--http-threads",
        "2",
        "--counts",
        "--counts-interval",
        "0.2",
    ]);
    let mut server = Http::start(cmd, "127.0.0.1:0");
    let (clients, n) = (4u64, 2_000u64);
    let mut expected = Tally::new();
    std::thread::scope(|s| {
        for c in 0..clients {
            let server = &server;
            s.spawn(move || {
                let requests = http_requests(c, n);
                let sent: Vec<(String, Option<&str>)> = requests
                    .iter()
                    .map(|(p, _, ua, _)| (p.clone(), *ua))
                    .collect();
                let statuses = http_load(server, &sent);
                for ((_, kind, _, _), status) in requests.iter().zip(statuses) {
                    let want = match kind {
                        Kind::Miss => 404,
                        Kind::Inflection => 200,
                        _ => 302,
                    };
                    assert_eq!(status, want);
                }
            });
        }
    });
    for c in 0..clients {
        for (i, (_, kind, _, class)) in http_requests(c, n).into_iter().enumerate() {
            let (id, _) = request(i as u64 + c);
            *expected.entry((id, kind, class)).or_default() += 1;
        }
    }
    // The Prometheus totals see every request before the server stops.
    let metrics = server.get("/metrics", "");
    let sample = |kind: &str, class: &str| -> u64 {
        let name = format!("noidr_resolutions_counted_total{{kind=\"{kind}\",class=\"{class}\"}} ");
        let line = metrics.lines().find(|l| l.starts_with(&name)).unwrap();
        line[name.len()..].parse().unwrap()
    };
    let want = |group: &str, class: Class| -> u64 {
        expected
            .iter()
            .filter(|((_, k, c), _)| k.group() == group && *c == class)
            .map(|(_, n)| n)
            .sum()
    };
    for group in ["redirect", "miss", "inflection"] {
        assert_eq!(
            sample(group, "person"),
            want(group, Class::Person),
            "{group}"
        );
        assert_eq!(sample(group, "robot"), want(group, Class::Robot), "{group}");
    }
    assert!(server.stop().success());
    let got = stored(m.dbdir());
    assert_eq!(total(&got), clients * n);
    assert_eq!(got, expected);
    assert!(got.keys().any(|(_, _, c)| *c == Class::Robot));

    // Nothing identifying in the store's bytes: neither the client's address (as
    // text or as the four bytes of 127.0.0.1), nor any part of a User-Agent.
    let mut bytes = Vec::new();
    for f in std::fs::read_dir(counts_dir_of(m.dbdir())).unwrap() {
        bytes.extend(std::fs::read(f.unwrap().path()).unwrap());
    }
    assert!(bytes.len() > 100, "{} bytes", bytes.len());
    let port = server.port().to_string();
    for needle in [
        &b"127.0.0.1"[..],
        &[127, 0, 0, 1],
        &[1, 0, 0, 127],
        b"Mozilla",
        b"Googlebot",
        b"Firefox",
        b"Gecko",
        b"google.com",
        port.as_bytes(),
    ] {
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle),
            "{:?} is in the counts store",
            String::from_utf8_lossy(needle)
        );
    }
}

#[test]
fn a_killed_http_server_loses_at_most_its_last_window() {
    let m = minter();
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f")
        .arg(m.dbdir())
        .args(["--counts", "--counts-interval", "0.2"]);
    let mut server = Http::start(cmd, "127.0.0.1:0");
    let first: Vec<(String, Option<&str>)> = (0..500)
        .map(|i| (format!("/{}", request(i).0), Some(FIREFOX)))
        .collect();
    http_load(&server, &first);
    // The first window is written within an interval or two.
    eventually("the first 500 requests are in the store", || {
        total(&stored(m.dbdir())) == 500
    });
    let second: Vec<(String, Option<&str>)> = (0..300)
        .map(|i| (format!("/{}", request(i).0), Some(FIREFOX)))
        .collect();
    http_load(&server, &second);
    server.child.kill().unwrap(); // SIGKILL: no flush
    server.child.wait().unwrap();
    let after = total(&stored(m.dbdir()));
    // What was counted since the last write (at most one interval's) may be lost,
    // and nothing else; the store still reads.
    assert!((500..=800).contains(&after), "{after}");
}

#[test]
fn nginx_auth_request_counts_a_request_once() {
    let m = minter();
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f")
        .arg(m.dbdir())
        .args(["--counts", "--counts-interval", "3600"]);
    let mut server = Http::start(cmd, "127.0.0.1:0");
    // What nginx asks: /auth/ first; for a page (401) /redirect/ after it.
    let asked = [
        ("/auth/ark:/99999/fk4a1", 204),
        ("/auth/ark:/99999/fk4zz", 403),
        ("/auth/ark:/99999/fk4a2?", 401),
        ("/redirect/ark:/99999/fk4a2?", 200),
        ("/lookup/ark:/99999/fk4a3", 200),
        ("/healthz", 200),
    ];
    let sent: Vec<(String, Option<&str>)> = asked
        .iter()
        .map(|(p, _)| (p.to_string(), Some(FIREFOX)))
        .collect();
    let statuses = http_load(&server, &sent);
    assert_eq!(statuses, asked.map(|(_, s)| s));
    assert!(server.stop().success());
    let person = |id: &str, kind| ((id.to_string(), kind, Class::Person), 1);
    assert_eq!(
        stored(m.dbdir()),
        Tally::from([
            person("ark:/99999/fk4a1", Kind::Redirect(302)),
            person("ark:/99999/fk4zz", Kind::Miss),
            person("ark:/99999/fk4a2", Kind::Inflection),
            person("ark:/99999/fk4a3", Kind::Redirect(302)),
        ])
    );
}

#[test]
fn counts_that_cannot_be_written_stop_noidr_with_the_reason() {
    let m = minter();
    // A file where the counts directory would be.
    std::fs::write(m.dbdir().join("counts"), b"").unwrap();
    let out = Command::new(noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .args(["--protocol", "egg", "--counts"])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let want = format!(
        "noidr: error: --counts: cannot write in {}",
        m.dbdir().join("counts").display()
    );
    assert!(err.starts_with(&want), "{err}");
    assert!(out.stdout.is_empty());
}
