//! `Config::lookup_deadline` on a real socket, with a backend whose lookups of `stall`
//! wait until the test releases them: the stalled request gets a whole `503` from the
//! watchdog (no body for a HEAD) and its connection is closed, every request while it
//! stays stalled gets `503` without a lookup, `/health` says so, and once the lookup
//! returns the server resolves again.
//!
//! No time is asserted: a `503` can only come from the deadline while the lookup waits
//! for the test, and a request on the healthy backend is asked again until it is
//! answered (it could itself be claimed, on a machine that keeps the server thread
//! waiting for the whole deadline).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use noid_http::{Answer, Backend, Config, LookupError, Request, Shutdown};

/// `stall` waits for a release (and says it has begun); anything else redirects.
struct Stalling {
    begun: Mutex<Sender<()>>,
    release: Mutex<Receiver<()>>,
    /// Lookups of anything but `stall`.
    lookups: Mutex<usize>,
}

impl Backend for Stalling {
    fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError> {
        if req.id == "stall" {
            self.begun.lock().unwrap().send(()).unwrap();
            self.release.lock().unwrap().recv().unwrap();
        } else {
            *self.lookups.lock().unwrap() += 1;
        }
        Ok(Answer::Redirect {
            code: 302,
            target: format!("https://example.org/{}", req.id),
        })
    }
}

/// The whole response to `request` on a fresh connection (read to its end: the
/// requests say `Connection: close`, and a claimed one is closed by the server).
fn ask(addr: &Path, request: &str) -> String {
    let mut s = UnixStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

fn get(addr: &Path, path: &str) -> String {
    ask(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    )
}

/// `GET path` until it is not a `503` (a bound only for a server that never resolves
/// again); that response.
fn get_resolved(addr: &Path, path: &str) -> String {
    let start = Instant::now();
    loop {
        let r = get(addr, path);
        if !r.starts_with("HTTP/1.1 503 ") {
            return r;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{path}: {r}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

const BODY: &str = "no answer from the store within 0.05 s\n";

#[test]
fn a_stalled_lookup_is_answered_503_and_the_server_resolves_again() {
    let (begun, begins) = channel();
    let (releases, release) = channel();
    let backend = Arc::new(Stalling {
        begun: Mutex::new(begun),
        release: Mutex::new(release),
        lookups: Mutex::new(0),
    });
    let config = Config {
        lookup_deadline: Some(Duration::from_millis(50)),
        ..Config::default()
    };
    // Two server threads: the one whose lookup stalls answers nothing else meanwhile,
    // and new connections go to the other.
    let dir = std::env::temp_dir().join(format!("noid-http-deadline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let addr = dir.join("s");
    let stop = Shutdown::new();
    let (b, s) = (backend.clone() as Arc<dyn Backend>, stop.clone());
    let unix = format!("unix:{}", addr.display());
    let server = std::thread::spawn(move || noid_http::run_with(&unix, b, 2, config, s));
    let start = Instant::now();
    while UnixStream::connect(&addr).is_err() {
        assert!(start.elapsed() < Duration::from_secs(60), "never listened");
        std::thread::sleep(Duration::from_millis(5));
    }

    let r = get_resolved(&addr, "/ok");
    assert!(r.starts_with("HTTP/1.1 302 "), "{r}");
    // The stalled lookup: the watchdog's whole 503, then the end of the connection.
    let r = get(&addr, "/stall");
    begins.recv().unwrap();
    assert!(r.starts_with("HTTP/1.1 503 Service Unavailable\r\n"), "{r}");
    assert!(r.contains("\r\nconnection: close\r\n"), "{r}");
    assert!(r.contains("\r\nretry-after: 1\r\n"), "{r}");
    assert!(r.ends_with(&format!("\r\n\r\n{BODY}")), "{r}");
    // While it stays stalled: 503 at once, without a lookup; /health says why.
    let before = *backend.lookups.lock().unwrap();
    let r = get(&addr, "/other");
    assert!(r.starts_with("HTTP/1.1 503 "), "{r}");
    assert!(r.ends_with(BODY), "{r}");
    assert_eq!(
        *backend.lookups.lock().unwrap(),
        before,
        "a lookup while stalled"
    );
    let r = get(&addr, "/health");
    assert!(r.starts_with("HTTP/1.1 503 "), "{r}");
    assert!(r.ends_with(&format!("unhealthy: {BODY}")), "{r}");
    // The lookup returns: resolved again.
    releases.send(()).unwrap();
    let r = get_resolved(&addr, "/other");
    assert!(
        r.contains("\r\nlocation: https://example.org/other\r\n"),
        "{r}"
    );
    // A stalled HEAD gets the 503's head alone.
    let r = ask(
        &addr,
        "HEAD /stall HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    begins.recv().unwrap();
    assert!(r.starts_with("HTTP/1.1 503 "), "{r}");
    assert!(
        r.contains(&format!("\r\ncontent-length: {}\r\n", BODY.len())),
        "{r}"
    );
    assert!(r.ends_with("\r\n\r\n"), "{r}");
    releases.send(()).unwrap();
    assert!(get_resolved(&addr, "/ok").starts_with("HTTP/1.1 302 "));
    stop.shut_down();
    server.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
