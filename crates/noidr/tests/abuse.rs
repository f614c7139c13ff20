//! `noidr --http` under abuse (issue 22), the real binary on real 127.0.0.1 sockets:
//! idle connections by the thousand, slowloris, over-long request lines and heads,
//! invalid UTF-8 and NUL in paths, pipelining, half-closed sockets, a client that never
//! reads. Every well-formed request among them is answered correctly and the server's
//! memory stays bounded.
//!
//! Nothing here asserts how long something took: a slow client is shown to be dropped
//! by being cut off long before it could have finished its request.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Command;
use std::time::Duration;

use crate::util::{noidr_bin, Http, Minter};

/// The identifier every test resolves, and its target.
const ID: &str = "ark:/13030/fk4a";
const TARGET: &str = "https://e.org/a";
/// The request for it, as a keep-alive request.
const GOOD: &[u8] = b"GET /redirect/ark:/13030/fk4a HTTP/1.1\r\nHost: x\r\n\r\n";

/// A running `noidr --http 127.0.0.1:0`, killed when dropped (also when a test fails).
struct Server {
    http: Http,
    _minter: Minter,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let m = Minter::new();
        m.bind(&[(ID, "_t", TARGET), (ID, "who", &"W".repeat(2000))]);
        let mut cmd = Command::new(noidr_bin());
        cmd.arg("-f").arg(m.dbdir()).args(extra);
        Server {
            http: Http::start_logging(cmd, "127.0.0.1:0", std::io::sink()),
            _minter: m,
        }
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(&self.http.addr).expect("connect");
        // A bound on every read, so that a server bug fails the test instead of hanging it.
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s
    }

    /// One request on a fresh connection; the whole response.
    fn ask(&self, request: &[u8]) -> String {
        let mut s = self.connect();
        s.write_all(request).unwrap();
        let _ = s.shutdown(Shutdown::Write);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The well-formed request answers as it must.
    fn assert_answers(&self) {
        let r = self
            .ask(b"GET /redirect/ark:/13030/fk4a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 302 "), "{r}");
        assert!(r.contains(&format!("\r\nlocation: {TARGET}\r\n")), "{r}");
    }

    /// Resident memory of the server, in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.http.child.id()))
            .expect("server alive");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    fn assert_alive(&mut self) {
        assert!(
            self.http.child.try_wait().unwrap().is_none(),
            "noidr --http exited"
        );
    }
}

/// Read one response (head and a `content-length` body) from a kept-alive connection.
fn read_response(r: &mut BufReader<TcpStream>) -> (u16, String) {
    let mut head = String::new();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        assert!(
            r.read_line(&mut line).expect("read") > 0,
            "connection closed"
        );
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap();
        }
        let end = line == "\r\n";
        head.push_str(&line);
        if end {
            break;
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).unwrap();
    let status = head[9..12].parse().unwrap();
    (status, head)
}

/// Raise this process's open-file limit (inherited by the noidr it starts) to what
/// `fds` descriptors need, within the hard limit.
fn allow_open_files(fds: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid pointer to an rlimit owned by this frame.
    let ok = unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && {
            lim.rlim_cur = lim.rlim_max.min(fds.max(lim.rlim_cur));
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0
        }
    };
    assert!(
        ok && lim.rlim_cur >= fds,
        "need {fds} open files, the hard limit (ulimit -Hn) is {}",
        lim.rlim_max
    );
}

/// Ten thousand connections that never send a byte: each holds a slot, the server
/// answers everyone else meanwhile, and its memory stays bounded.
#[test]
fn idle_connections_are_bounded() {
    const IDLE: usize = 10_000;
    // Both this process and noidr hold one descriptor per idle connection.
    allow_open_files(IDLE as u64 + 1024);
    let mut s = Server::start(&[
        "--http-max-connections",
        "12000",
        "--http-max-per-client",
        "12000",
    ]);
    s.assert_answers();
    let before = s.rss_kib();
    let idle: Vec<TcpStream> = (0..IDLE).map(|_| s.connect()).collect();
    // Every idle connection is accepted by now: a request on a later one is answered
    // only after the server accepted the ones queued before it.
    s.assert_answers();
    let mut keep = BufReader::new(s.connect());
    for _ in 0..100 {
        keep.get_mut().write_all(GOOD).unwrap();
        assert_eq!(read_response(&mut keep).0, 302);
    }
    let during = s.rss_kib();
    eprintln!("RSS {before} KiB, with {IDLE} idle connections {during} KiB");
    // A connection costs its task and its read buffer (8 KiB to start with), about
    // 18 KiB in all; twice that is the bound.
    let per_connection = during.saturating_sub(before) / IDLE as u64;
    assert!(
        per_connection < 36,
        "RSS grew from {before} KiB to {during} KiB: {per_connection} KiB per idle connection"
    );
    drop(idle);
    s.assert_answers();
    s.assert_alive();
}

/// More idle connections than `--http-max-connections`: the extra ones wait in the
/// accept queue, the idle ones are dropped after `--http-header-timeout`, and then
/// the waiting request is answered.
#[test]
fn idle_connections_beyond_the_limit_time_out() {
    let s = Server::start(&["--http-max-connections", "16", "--http-header-timeout", "1"]);
    let mut idle: Vec<TcpStream> = (0..64).map(|_| s.connect()).collect();
    s.assert_answers();
    // Each idle connection was closed by the server (EOF), none got an answer.
    for c in &mut idle {
        let mut buf = Vec::new();
        match c.read_to_end(&mut buf) {
            Ok(_) => assert!(
                buf.is_empty() || String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 408"),
                "{buf:?}"
            ),
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
        }
    }
}

/// Issue 42 item 4: one client's slow connections cannot take the server from
/// another. With `--http-max-connections 8 --http-max-per-client 4`, a client holding
/// four connections with half a request head each gets `503` and a closed connection
/// at once for every further one, while a client at another address (127.0.0.2) is
/// answered; the slow connections are still served once their heads are whole.
/// Before: the limit was shared by all clients, and one client's slow connections
/// made everyone else wait in the accept queue. (One server thread: connections are
/// admitted in the order they were made.)
#[test]
fn one_clients_slow_connections_leave_room_for_others() {
    use crate::clients::{connect_from, read_until_closed};
    use std::net::{Ipv4Addr, SocketAddr};
    let s = Server::start(&[
        "--http-threads",
        "1",
        "--http-max-connections",
        "8",
        "--http-max-per-client",
        "4",
        "--http-header-timeout",
        "60",
    ]);
    let server: SocketAddr = s.http.addr.parse().unwrap();
    let one = Ipv4Addr::new(127, 0, 0, 1);
    let half = &GOOD[..20];
    let mut slow: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut c = connect_from(one, server);
            c.write_all(half).unwrap();
            c
        })
        .collect();
    for _ in 0..6 {
        let mut extra = connect_from(one, server);
        assert_eq!(
            read_until_closed(&mut extra),
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: 51\r\nConnection: close\r\n\r\n\
             too many connections from your address (at most 4)\n"
        );
    }
    let mut other = BufReader::new(connect_from(Ipv4Addr::new(127, 0, 0, 2), server));
    other.get_mut().write_all(GOOD).unwrap();
    let (status, head) = read_response(&mut other);
    assert_eq!(status, 302, "{head}");
    assert!(
        head.contains(&format!("\r\nlocation: {TARGET}\r\n")),
        "{head}"
    );
    for c in &mut slow {
        c.write_all(&GOOD[20..]).unwrap();
        let mut r = BufReader::new(&mut *c);
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert_eq!(line, "HTTP/1.1 302 Found\r\n");
    }
}

/// Slowloris: a request head sent one byte every 100 ms takes about 6 s to arrive
/// whole; with `--http-header-timeout 1` the server drops the connection long before,
/// and answers others all along.
#[test]
fn slowloris_is_dropped() {
    let s = Server::start(&["--http-header-timeout", "1"]);
    let mut slow = s.connect();
    let mut sent = 0;
    let mut cut = false;
    for &b in GOOD {
        if slow.write_all(&[b]).is_err() {
            cut = true;
            break;
        }
        sent += 1;
        std::thread::sleep(Duration::from_millis(100));
        if sent % 10 == 0 {
            s.assert_answers();
        }
    }
    if !cut {
        // The whole head went into the socket buffer; the server must have closed the
        // connection instead of answering it.
        let mut buf = Vec::new();
        let _ = slow.read_to_end(&mut buf);
        let text = String::from_utf8_lossy(&buf);
        assert!(
            buf.is_empty() || text.starts_with("HTTP/1.1 408"),
            "a slowloris request was answered: {text}"
        );
    }
    s.assert_answers();
}

/// Request lines and heads over the limits get 414 and 431, never a crash; invalid
/// UTF-8, NUL, CR and LF in paths are misses or 400s.
#[test]
fn oversized_and_malformed_requests() {
    let mut s = Server::start(&[]);
    let status = |r: &str| r.get(9..12).unwrap_or("").to_owned();

    let long = format!(
        "GET /redirect/{} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "x".repeat(9000)
    );
    assert_eq!(status(&s.ask(long.as_bytes())), "414");
    let huge = format!(
        "GET /redirect/{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "x".repeat(100_000)
    );
    assert_eq!(status(&s.ask(huge.as_bytes())), "431");
    let big_header = format!(
        "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "y".repeat(20_000)
    );
    assert_eq!(status(&s.ask(big_header.as_bytes())), "431");
    let many: String = (0..200).map(|i| format!("X-H{i}: v\r\n")).collect();
    let many = format!("GET /health HTTP/1.1\r\nHost: x\r\n{many}\r\n");
    assert_eq!(status(&s.ask(many.as_bytes())), "431");

    // %-encoded bytes that are not an identifier: misses.
    for path in [
        "/redirect/ark:/13030/fk4a%00",
        "/redirect/%FF%FE",
        "/redirect/ark:/13030/fk4a%0D%0ALocation:%20https://evil",
        "/lookup/%C3%28",
    ] {
        let r = s
            .ask(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes());
        assert_eq!(status(&r), "404", "{path}: {r}");
        assert!(!r.contains("evil"), "{r}");
    }
    // Raw bytes that HTTP does not allow in a request-target: 400.
    for raw in [
        &b"GET /redirect/ark:/13030/fk4a\0 HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        b"GET /redirect/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /redirect/a b c HTTP/1.1\r\nHost: x\r\n\r\n",
        b"\0\0\0\0\r\n\r\n",
        b"GET\r\n\r\n",
    ] {
        let r = s.ask(raw);
        assert_eq!(status(&r), "400", "{raw:?}: {r}");
    }
    // Methods other than GET and HEAD, and bodies.
    assert_eq!(
        status(&s.ask(b"DELETE /redirect/ark:/13030/fk4a HTTP/1.1\r\nHost: x\r\n\r\n")),
        "405"
    );
    assert_eq!(
        status(&s.ask(
            b"GET /redirect/ark:/13030/fk4a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        )),
        "413"
    );
    s.assert_answers();
    s.assert_alive();
}

/// 1,000 pipelined requests in one write, hits, misses and an inflection mixed: 1,000
/// answers in order.
#[test]
fn pipelined_requests_are_answered_in_order() {
    let s = Server::start(&[]);
    let mut c = BufReader::new(s.connect());
    let requests = [
        (
            &b"GET /redirect/ark:/13030/fk4a HTTP/1.1\r\nHost: x\r\n\r\n"[..],
            302,
        ),
        (
            b"GET /redirect/ark:/13030/none HTTP/1.1\r\nHost: x\r\n\r\n",
            404,
        ),
        (
            b"GET /redirect/ark:/13030/fk4a?? HTTP/1.1\r\nHost: x\r\n\r\n",
            200,
        ),
        (b"HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n", 200),
    ];
    let mut all = Vec::new();
    for i in 0..1000 {
        all.extend_from_slice(requests[i % requests.len()].0);
    }
    let mut writer = c.get_ref().try_clone().unwrap();
    let sender = std::thread::spawn(move || writer.write_all(&all));
    for i in 0..1000 {
        let expected = requests[i % requests.len()].1;
        let (status, head) = if i % requests.len() == 3 {
            // HEAD: no body whatever the content-length says.
            let mut head = String::new();
            loop {
                let mut line = String::new();
                c.read_line(&mut line).unwrap();
                head.push_str(&line);
                if line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            (head[9..12].parse().unwrap(), head)
        } else {
            read_response(&mut c)
        };
        assert_eq!(status, expected, "answer {i}: {head}");
    }
    sender.join().unwrap().unwrap();
}

/// A client that sends its request and shuts down its writing side still gets its
/// answer.
#[test]
fn half_closed_sockets_are_answered() {
    let s = Server::start(&[]);
    for _ in 0..20 {
        let r = s.ask(GOOD);
        assert!(r.starts_with("HTTP/1.1 302 "), "{r}");
    }
    // Shut down before the head is complete: no answer, no crash.
    let r = s.ask(b"GET /redirect/ark:/13030/fk4a HTTP/1.1\r\nHo");
    assert!(r.is_empty() || r.starts_with("HTTP/1.1 400"), "{r}");
    s.assert_answers();
}

/// A client that writes thousands of requests for a 2 KB page and never reads: the
/// server stops reading from it once its answers fill the socket, and goes on
/// answering others; its memory stays bounded.
#[test]
fn a_client_that_never_reads() {
    let mut s = Server::start(&[]);
    let before = s.rss_kib();
    let mut hogs = Vec::new();
    for _ in 0..4 {
        let mut c = s.connect();
        c.set_write_timeout(Some(Duration::from_secs(2))).unwrap();
        let request = b"GET /redirect/ark:/13030/fk4a?? HTTP/1.1\r\nHost: x\r\n\r\n";
        let mut written = 0usize;
        // Write until the server stops reading (the write times out) or 64 MB went in.
        while written < 64 << 20 {
            match c.write(request) {
                Ok(n) => written += n,
                Err(_) => break,
            }
        }
        assert!(
            written < 64 << 20,
            "the server read 64 MB of requests whose answers nobody read"
        );
        hogs.push(c);
    }
    s.assert_answers();
    let during = s.rss_kib();
    eprintln!("RSS {before} KiB, with 4 clients that never read {during} KiB");
    assert!(
        during < before + 64 * 1024,
        "RSS grew from {before} KiB to {during} KiB"
    );
    drop(hogs);
    s.assert_answers();
    s.assert_alive();
}
