//! Metrics and health: `GET /metrics` and `GET /healthz` of a real `noidr --http` on
//! 127.0.0.1, read with real `curl`, and the SIGUSR1 line of the line protocols on
//! stderr (stdout carrying nothing but answers). The expected counts follow from the
//! requests each test sends; the generation is read from the store's own
//! `NOID/generation` file.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::{noid_bin, noidr_bin, Http, Minter, Noidr};

/// The writers' generation counter: the first little-endian `u64` of `NOID/generation`.
fn generation(dbdir: &Path) -> u64 {
    let bytes = std::fs::read(dbdir.join("NOID/generation")).unwrap();
    u64::from_le_bytes(bytes[..8].try_into().unwrap())
}

fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
}

/// Polls `cond` until it holds (30 s at most: a bound for a hung server, not a speed).
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(30), "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A `noidr --http 127.0.0.1:PORT` on a Dbdir; stopped with SIGTERM when dropped,
/// which it must survive cleanly.
struct Server(Http, Log);

/// What the server logged so far.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Server {
    fn start(dbdir: &Path) -> Server {
        let mut cmd = Command::new(noidr_bin());
        cmd.arg("-f").arg(dbdir);
        let log = Log::default();
        Server(Http::start_logging(cmd, "127.0.0.1:0", log.clone()), log)
    }

    /// Waits until the server's log has a line containing `text`.
    fn logged(&self, text: &str) {
        eventually(&format!("a log line with {text:?}"), || {
            String::from_utf8_lossy(&self.1 .0.lock().unwrap()).contains(text)
        });
    }

    /// `curl` a path: (status, body).
    fn get(&self, path: &str) -> (u16, String) {
        let out = Command::new("curl")
            .args(["-s", "--path-as-is", "-o", "-", "-w", "\n%{http_code}"])
            .arg(format!("http://{}{path}", self.0.addr))
            .output()
            .expect("curl");
        let text = String::from_utf8(out.stdout).unwrap();
        let (body, code) = text.rsplit_once('\n').unwrap();
        (code.parse().unwrap(), body.to_string())
    }

    /// `GET /metrics`: each sample (`name{labels}`) and its value, as written.
    fn metrics(&self) -> BTreeMap<String, String> {
        let (status, body) = self.get("/metrics");
        assert_eq!(status, 200, "{body}");
        body.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let (name, value) = l.rsplit_once(' ').unwrap();
                (name.to_string(), value.to_string())
            })
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let st = self.0.stop();
        assert!(st.success() || std::thread::panicking(), "{st:?}");
    }
}

/// The requests-by-kind samples, in `Outcome` order: hit, chop-back, inflection,
/// miss, error.
fn by_kind(m: &BTreeMap<String, String>) -> Vec<String> {
    ["hit", "chop-back", "inflection", "miss", "error"]
        .iter()
        .map(|k| m[&format!("noidr_requests_total{{kind=\"{k}\"}}")].clone())
        .collect()
}

/// The histogram's buckets are cumulative, in order, and end with every request.
fn check_histogram(m: &BTreeMap<String, String>, requests: u64) {
    let les = [
        "0.00001", "0.000025", "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.01",
        "0.1", "1", "10", "+Inf",
    ];
    let mut last = 0;
    for le in les {
        let n: u64 = m[&format!("noidr_request_duration_seconds_bucket{{le=\"{le}\"}}")]
            .parse()
            .unwrap();
        assert!(n >= last, "buckets are cumulative: {m:?}");
        last = n;
    }
    assert_eq!(last, requests);
    assert_eq!(
        m["noidr_request_duration_seconds_count"],
        requests.to_string()
    );
    let sum: f64 = m["noidr_request_duration_seconds_sum"].parse().unwrap();
    assert_eq!(sum > 0.0, requests > 0, "{m:?}");
}

#[test]
fn metrics_count_answers_by_kind_and_follow_the_store() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/fk4a", "_t", "https://e.org/a"),
        ("ark:/13030/fk4a", "who", "Somebody"),
    ]);
    let g0 = generation(m.dbdir());
    let s = Server::start(m.dbdir());
    assert_eq!(s.get("/healthz"), (200, "ok\n".into()));

    let before = s.metrics();
    assert_eq!(by_kind(&before), ["0", "0", "0", "0", "0"]);
    check_histogram(&before, 0);
    assert_eq!(before["noidr_store_open"], "1");
    assert_eq!(before["noidr_store_generation"], g0.to_string());
    assert_eq!(before["noidr_store_catch_ups_total"], "0");
    assert_eq!(before["noidr_store_reopens_total"], "0");
    assert!(!before.contains_key("noidr_store_last_write_age_seconds"));
    let (_, text) = s.get("/metrics");
    assert!(
        text.contains(
            "# HELP noidr_requests_total Requests answered, by kind of answer.\n\
             # TYPE noidr_requests_total counter\n\
             noidr_requests_total{kind=\"hit\"} 0\n"
        ),
        "{text}"
    );
    assert!(text.contains("# TYPE noidr_request_duration_seconds histogram\n"));

    // 2 hits, 1 chop-back, 1 inflection, 4 misses (one per route, one asked twice: an
    // answer taken from the view's memo is counted as the kind it was).
    let requests = [
        ("/redirect/ark:/13030/fk4a", 302),
        ("/ark:/13030/fk4a", 302),
        ("/redirect/ark:/13030/fk4a/b/c", 302),
        ("/redirect/ark:/13030/fk4a??", 200),
        // Misses under a NAAN the store serves (another NAAN's go to N2T).
        ("/redirect/ark:/13030/nope", 404),
        ("/redirect/ark:/13030/nope", 404),
        ("/lookup/ark:/13030/x", 404),
        ("/auth/ark:/13030/y", 403),
    ];
    for (path, want) in requests {
        assert_eq!(s.get(path).0, want, "{path}");
    }
    let after = s.metrics();
    assert_eq!(by_kind(&after), ["2", "1", "1", "4", "0"]);
    check_histogram(&after, 8);
    assert_eq!(after["noidr_store_catch_ups_total"], "0");

    // A write: one commit, one catch-up, the new generation and a last write seen.
    let before_write = Instant::now();
    m.noid_bind_set("ark:/13030/fk4a", "_t", "https://e.org/new");
    let g1 = generation(m.dbdir());
    assert_eq!(g1, g0 + 1, "one noid bind, one commit");
    assert_eq!(s.get("/redirect/ark:/13030/fk4a").0, 302);
    let m1 = s.metrics();
    assert_eq!(by_kind(&m1), ["3", "1", "1", "4", "0"]);
    assert_eq!(m1["noidr_store_catch_ups_total"], "1");
    assert_eq!(m1["noidr_store_generation"], g1.to_string());
    // The write was seen after it was made: its age is at most the time since
    // (a bound that holds however slow the machine is).
    let age: f64 = m1["noidr_store_last_write_age_seconds"].parse().unwrap();
    let since = before_write.elapsed().as_secs_f64();
    assert!(
        age <= since,
        "last write age {age} s, but the write began {since} s ago"
    );

    // SIGHUP: the store is opened anew.
    signal(&s.0.child, "-HUP");
    eventually("a reopen is counted", || {
        s.metrics()["noidr_store_reopens_total"] == "1"
    });

    // NOID/ missing: 503, with the reason; back in place: 200 again.
    let noid = m.dbdir().join("NOID");
    let away = m.dbdir().join("NOID.away");
    std::fs::rename(&noid, &away).unwrap();
    let (status, body) = s.get("/healthz");
    assert_eq!(status, 503);
    // The reason names the store's path: in the log, not in the answer.
    assert_eq!(
        body,
        "unhealthy: the store cannot be read; the server's log says why\n"
    );
    s.logged(&format!(
        "/healthz: unhealthy: minter {} was removed or replaced and is not followed (yet)",
        m.dbdir().display()
    ));
    assert_eq!(s.get("/health").0, 503, "the older spelling too");
    std::fs::rename(&away, &noid).unwrap();
    eventually("healthy again", || {
        s.get("/healthz") == (200, "ok\n".into())
    });
    assert_eq!(s.metrics()["noidr_store_open"], "1");
    // Probes and scrapes are no requests.
    assert_eq!(by_kind(&s.metrics()), ["3", "1", "1", "4", "0"]);
}

#[test]
fn healthz_is_503_until_the_minter_exists() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(dir.path());
    let (status, body) = s.get("/healthz");
    assert_eq!(status, 503);
    assert_eq!(
        body,
        "unhealthy: the store cannot be read; the server's log says why\n"
    );
    s.logged(&format!(
        "/healthz: unhealthy: cannot open minter {0}: no database ({0}/NOID/noid.rocksdb) -- use dbcreate?",
        dir.path().display()
    ));
    // Nor does a lookup's error name it.
    assert_eq!(
        s.get("/redirect/ark:/13030/x"),
        (500, "resolver error\n".to_string())
    );
    let m = s.metrics();
    assert_eq!(m["noidr_store_open"], "0");
    assert!(!m.contains_key("noidr_store_generation"));
    assert_eq!(by_kind(&m), ["0", "0", "0", "0", "1"]);
    check_histogram(&m, 1);

    let out = Command::new(noid_bin())
        .arg("-f")
        .arg(dir.path())
        .args(["dbcreate", ".zd"])
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    eventually("the new minter is opened", || s.get("/healthz").0 == 200);
    let m = s.metrics();
    assert_eq!(m["noidr_store_open"], "1");
    assert_eq!(m["noidr_store_reopens_total"], "0", "the first open");
    assert_eq!(
        m["noidr_store_generation"],
        generation(dir.path()).to_string()
    );
    assert_eq!(
        s.get("/metrics/x").0,
        404,
        "only /metrics itself is the route"
    );
}

#[test]
fn sigusr1_logs_the_counts_to_stderr_and_stdout_stays_in_sync() {
    let m = Minter::new();
    m.bind(&[("ark:/13030/fk4a", "_t", "https://e.org/a")]);
    let g = generation(m.dbdir());
    let (mut n, errors) = Noidr::start_with_stderr(m.dbdir(), &["--protocol", "egg"]);
    assert_eq!(n.ask("ark:/13030/fk4a.resolve"), "redir302 https://e.org/a");
    assert_eq!(
        n.ask("ark:/13030/fk4a/b/c.resolve"),
        "redir302 https://e.org/a/b/c"
    );
    assert!(n.ask("ark:/13030/fk4a??.resolve").starts_with("inflect "));
    assert_eq!(n.ask("ark:/13030/nope.resolve"), "NULL");
    assert!(n.ask("no method").starts_with("error: "));
    let line = n.usr1_line(&errors);
    assert!(
        line.starts_with("hit=1 chop-back=1 inflection=1 miss=1 error=1 late=0 latency-sum="),
        "{line}"
    );
    assert!(
        line.ends_with(&format!(
            ",+Inf:5 catch-ups=0 reopens=0 store=open generation={g}"
        )),
        "{line}"
    );
    // The next answer is the next request's: nothing went to stdout.
    assert_eq!(n.ask("ark:/13030/fk4a.resolve"), "redir302 https://e.org/a");
    let line = n.usr1_line(&errors);
    assert!(line.starts_with("hit=2 chop-back=1 "), "{line}");
    let mut rest = Vec::new();
    drop(n.stdin.take());
    n.stdout.as_mut().unwrap().read_to_end(&mut rest).unwrap();
    assert_eq!(rest, b"", "no more output than answers");
    assert!(n.finish().success());

    // The noid protocol counts a value as a hit, NULL as a miss, a refusal as an error.
    let (mut n, errors) = Noidr::start_with_stderr(m.dbdir(), &["--protocol", "noid"]);
    assert_eq!(n.ask("get ark:/13030/fk4a _t"), "https://e.org/a");
    assert_eq!(n.ask("get ark:/13030/nope _t"), "NULL");
    assert!(n.ask("bind set x y z").starts_with("error: "));
    let line = n.usr1_line(&errors);
    assert!(
        line.starts_with("hit=1 chop-back=0 inflection=0 miss=1 error=1 late=0 "),
        "{line}"
    );
    assert!(n.finish().success());
}
