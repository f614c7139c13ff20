//! `noid serve` against slow clients (issue 42, item 4), through the real binary on
//! 127.0.0.1 with `[serve]` limits shortened in its configuration so that each test
//! runs in seconds: a client's connections over its cap, a console form trickled
//! byte by byte, a bulk POST trickled while others write to the same binder. A second
//! client is a socket bound to 127.0.0.2 ([`crate::clients`]). Expected texts are
//! the refusals as docs/SECURITY.md states them.

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::api::Api;
use crate::clients::{connect_from, read_until_closed};
use crate::console::Browser;
use crate::hardening::read_answer;
use crate::util::noid_exe;

const ONE: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);
const TWO: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

fn basic(user: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(user)
}

/// Write `byte` to `s` every `every` until `stop` or until the server has closed the
/// connection: a client trickling its body.
fn trickle(mut s: TcpStream, byte: u8, every: Duration, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        if s.write_all(&[byte]).is_err() {
            return;
        }
        std::thread::sleep(every);
    }
}

/// One client's connections beyond `max_connections_per_client` are answered `503`
/// and closed as soon as they are accepted, its connections within the cap stay open
/// (slow as they are), and another client is served meanwhile although the client's
/// connections would have filled `max_connections`. Before: no cap per client; the
/// extra connections were held for the header timeout and the other client waited.
#[test]
fn one_clients_connections_over_its_cap_are_closed_and_others_are_served() {
    let api = Api::start_with(
        "[serve]\nmax_connections = 6\nmax_connections_per_client = 4\nheader_timeout = 60\n",
    );
    let server = SocketAddr::from((ONE, api.port));
    let head = "GET /a/sam/b?x.fetch%20who HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    let mut slow: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = connect_from(ONE, server);
            s.write_all(head.as_bytes()).unwrap();
            s
        })
        .collect();
    let body = "error: 503 too many connections from your address (at most 4)\n";
    let refusal = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=UTF-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    for _ in 0..4 {
        let mut extra = connect_from(ONE, server);
        assert_eq!(read_until_closed(&mut extra), refusal);
    }
    let mut other = BufReader::new(connect_from(TWO, server));
    write!(
        other.get_mut(),
        "{head}Authorization: Basic {}\r\n\r\n",
        basic("sam:secret")
    )
    .unwrap();
    let a = read_answer(&mut other).unwrap();
    assert_eq!((a.status, a.text().as_str()), (200, "egg-status: 0\n"));
    // The first client's slow connections were kept, and are answered once whole.
    for s in &mut slow {
        write!(s, "Authorization: Basic {}\r\n\r\n", basic("sam:secret")).unwrap();
        let a = read_answer(&mut BufReader::new(&*s)).unwrap();
        assert_eq!((a.status, a.text().as_str()), (200, "egg-status: 0\n"));
    }
}

/// A console form sent one byte every 500 ms is answered `408` with the form page's
/// refusal once `body_timeout` (2 s here; its `Content-Length` of 200 earns no more) is
/// over, and the connection is closed. Before: no deadline on a body; a form sent one
/// byte every 10 s was still open after 100 s.
#[test]
fn a_trickled_console_form_is_cut_off_at_its_deadline() {
    let api = Api::start_with("[serve]\nbody_timeout = 2\n");
    let b = Browser::new(&api, "trickle");
    let page = b.get("/console/login");
    let id = page
        .header("set-cookie")
        .and_then(|c| c.strip_prefix("noid_console_login="))
        .and_then(|c| c.split(';').next())
        .expect("the login form's cookie")
        .to_string();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", api.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "POST /console/login HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: noid_console_login={id}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\ncsrf={}&login=",
        api.port,
        page.token()
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let trickler = {
        let (w, stop) = (s.try_clone().unwrap(), stop.clone());
        std::thread::spawn(move || trickle(w, b'a', Duration::from_millis(500), stop))
    };
    let mut r = BufReader::new(s);
    let a = read_answer(&mut r).unwrap();
    stop.store(true, Ordering::Relaxed);
    assert_eq!(a.status, 408, "{}", a.text());
    assert_eq!(a.header("connection"), Some("close"));
    assert!(
        a.text().contains(
            "The form did not arrive within 2 seconds. Check your connection and send it again."
        ),
        "{}",
        a.text()
    );
    assert_eq!(read_until_closed(r.get_mut()), "");
    trickler.join().unwrap();
}

/// A bulk POST whose body trickles (a byte every 300 ms, here with `bulk_wait = 1`,
/// `bulk_min_rate = 1000`) does not keep the binder from others: while it trickles,
/// an API write and `noid bind --lock-timeout 5` succeed, and the POST is answered
/// with what it committed and why it ended. Before: each byte reset the 30 s stall
/// limit, the run held the binder's writer and its lock as long as the client
/// trickled: an API write waited and `noid bind --lock-timeout 20` failed.
#[test]
fn a_trickled_bulk_post_does_not_hold_the_binder() {
    let api = Api::start_with("[serve]\nbulk_wait = 1\nbulk_min_rate = 1000\n");
    let mut s = std::net::TcpStream::connect(("127.0.0.1", api.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "POST /a/sam/b?- HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Basic {}\r\n\
         Content-Length: 1000\r\n\r\nt1.set a 1\nt2.set a ",
        basic("sam:secret")
    )
    .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let trickler = {
        let (w, stop) = (s.try_clone().unwrap(), stop.clone());
        std::thread::spawn(move || trickle(w, b'x', Duration::from_millis(300), stop))
    };
    let mut r = BufReader::new(s);
    // The answer's head goes out once the run has its body (docs/API.md): from here
    // the run is the binder's.
    let mut head = String::new();
    while !head.ends_with("\r\n\r\n") {
        assert_ne!(r.read_line(&mut head).unwrap(), 0, "{head}");
    }
    assert!(head.starts_with("HTTP/1.0 200 OK\r\n"), "{head}");
    let binder = api.dir("binders/sam");
    let cli = std::thread::spawn(move || {
        Command::new(noid_exe())
            .arg("-f")
            .arg(&binder)
            .args(["--lock-timeout", "5", "bind", "set", "w1", "a", "cli"])
            .output()
            .unwrap()
    });
    let port = api.port;
    let write = std::thread::spawn(move || {
        let mut c = BufReader::new(TcpStream::connect(("127.0.0.1", port)).unwrap());
        c.get_mut()
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            c.get_mut(),
            "GET /a/sam/b?w2.set%20a%20api HTTP/1.1\r\nHost: 127.0.0.1\r\n\
             Authorization: Basic {}\r\n\r\n",
            basic("sam:secret")
        )
        .unwrap();
        read_answer(&mut c).map(|a| (a.status, a.text()))
    });
    let out = cli.join().unwrap();
    assert!(out.status.success(), "noid bind: {out:?}");
    assert_eq!(
        write.join().unwrap().unwrap(),
        (200, "egg-status: 0\n".to_string())
    );
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut r, &mut answer).unwrap();
    stop.store(true, Ordering::Relaxed);
    trickler.join().unwrap();
    assert_eq!(
        answer,
        "error: the request body came too slowly: less than 1000 octets in 1 s while the \
         binder waited for it (send the body as fast as it is read, or in smaller requests); \
         the commands after line 1 were not run\n\n\
         # committed 1 commands, through line 1\negg-status: 1\n"
    );
    for (id, want) in [
        ("t1", "1\n"),
        ("t2", "\n"),
        ("w1", "cli\n"),
        ("w2", "api\n"),
    ] {
        let got = Command::new(noid_exe())
            .arg("-f")
            .arg(api.dir("binders/sam"))
            .args(["get", id, "a"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(got.stdout).unwrap(), want, "{id}");
    }
}
