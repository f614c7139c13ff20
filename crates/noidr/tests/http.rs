//! `noidr --http`: the same resolution served over HTTP (crate `noid-http`), here on a
//! unix socket so that tests never fight over ports.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{noidr_bin, Minter};

/// One HTTP/1.1 request, the whole response as text.
fn get(sock: &std::path::Path, path: &str, headers: &str) -> String {
    let mut s = UnixStream::connect(sock).expect("connect");
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn http_mode_resolves_like_the_line_protocols() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/fk4a", "_t", "https://e.org/a"),
        ("ark:/13030/fk4a", "who", "Somebody"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("noidr.sock");
    let mut child = Command::new(noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .arg("--http")
        .arg(&sock)
        .env_clear()
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while UnixStream::connect(&sock).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "server never came up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = get(&sock, "/redirect/ark:/13030/fk4a/b/c", "");
    assert!(r.starts_with("HTTP/1.1 302"), "{r}");
    assert!(r.contains("location: https://e.org/a/b/c\r\n"), "{r}");
    let r = get(&sock, "/redirect/ark:/99999/nope", "");
    assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    // Inflection: the metadata page.
    let r = get(&sock, "/redirect/ark:/13030/fk4a??", "");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(r.contains("who: Somebody"), "{r}");
    // Asked twice (the second answer from the view's memo), and twice a miss.
    for _ in 0..2 {
        let r = get(&sock, "/redirect/ark:/13030/fk4a", "");
        assert!(r.contains("location: https://e.org/a\r\n"), "{r}");
        let r = get(&sock, "/redirect/ark:/13030/fk4b", "");
        assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    }
    // A write is visible to the next request, kept answers or not.
    m.noid_bind_set("ark:/13030/fk4a", "_t", "https://e.org/new");
    m.noid_bind_set("ark:/13030/fk4b", "_t", "https://e.org/b");
    for _ in 0..2 {
        let r = get(&sock, "/redirect/ark:/13030/fk4a", "");
        assert!(r.contains("location: https://e.org/new\r\n"), "{r}");
        let r = get(&sock, "/redirect/ark:/13030/fk4b", "");
        assert!(r.contains("location: https://e.org/b\r\n"), "{r}");
    }
    let r = get(&sock, "/health", "");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    let st = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(st.success());
    let st = child.wait().unwrap();
    assert!(st.success(), "{st:?}");
}
