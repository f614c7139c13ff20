//! `noidr --http`: the same resolution served over HTTP (crate `noid-http`), here on a
//! unix socket so that tests never fight over ports.

use std::process::Command;

use crate::util::{noidr_bin, Http, Minter};

#[test]
fn http_mode_resolves_like_the_line_protocols() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/fk4a", "_t", "https://e.org/a"),
        ("ark:/13030/fk4a", "who", "Somebody"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("noidr.sock");
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir());
    let mut server = Http::start(cmd, sock.to_str().unwrap());
    let r = server.get("/redirect/ark:/13030/fk4a/b/c", "");
    assert!(r.starts_with("HTTP/1.1 302"), "{r}");
    assert!(r.contains("location: https://e.org/a/b/c\r\n"), "{r}");
    let r = server.get("/redirect/ark:/13030/nope", "");
    assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    // A NAAN not served here goes on to N2T (the ARK draft's §3.3).
    let r = server.get("/redirect/ark:/99999/nope", "");
    assert!(r.starts_with("HTTP/1.1 302"), "{r}");
    assert!(
        r.contains("location: https://n2t.net/ark:/99999/nope\r\n"),
        "{r}"
    );
    // Inflection: the metadata page.
    let r = server.get("/redirect/ark:/13030/fk4a??", "");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(r.contains("who: Somebody"), "{r}");
    // Asked twice (the second answer from the view's memo), and twice a miss.
    for _ in 0..2 {
        let r = server.get("/redirect/ark:/13030/fk4a", "");
        assert!(r.contains("location: https://e.org/a\r\n"), "{r}");
        let r = server.get("/redirect/ark:/13030/fk4b", "");
        assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    }
    // A write is visible to the next request, kept answers or not.
    m.noid_bind_set("ark:/13030/fk4a", "_t", "https://e.org/new");
    m.noid_bind_set("ark:/13030/fk4b", "_t", "https://e.org/b");
    for _ in 0..2 {
        let r = server.get("/redirect/ark:/13030/fk4a", "");
        assert!(r.contains("location: https://e.org/new\r\n"), "{r}");
        let r = server.get("/redirect/ark:/13030/fk4b", "");
        assert!(r.contains("location: https://e.org/b\r\n"), "{r}");
    }
    let r = server.get("/health", "");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    let st = server.stop();
    assert!(st.success(), "{st:?}");
}

/// Issue 42: a suffix never changes the target's host, and no redirect goes to a
/// script, in the egg line protocol and in HTTP mode alike (one resolution code).
/// Expected URLs as RFC 3986 reads them: the host ends at the first `/`, `?` or `#`.
#[test]
fn a_suffix_never_changes_the_targets_host_on_either_protocol() {
    let m = Minter::new();
    m.bind(&[
        ("99999/x", "_t", "https://example.org"),
        ("99999/s", "_t", "javascript:alert(document.domain)"),
    ]);
    let mut egg = crate::util::Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    for (suffix, target) in [
        ("@evil.example", "https://example.org/@evil.example"),
        (".evil.example", "https://example.org/.evil.example"),
        (":8080", "https://example.org/:8080"),
        ("/p", "https://example.org/p"),
    ] {
        assert_eq!(
            egg.ask(&format!("99999/x{suffix}.resolve")),
            format!("redir302 {target}")
        );
    }
    assert_eq!(egg.ask("99999/s.resolve"), "NULL");
    assert!(egg.finish().success());

    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("noidr.sock");
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir());
    let mut server = Http::start(cmd, sock.to_str().unwrap());
    let r = server.get("/99999/x@evil.example", "");
    assert!(r.starts_with("HTTP/1.1 302"), "{r}");
    assert!(
        r.contains("\r\nlocation: https://example.org/@evil.example\r\n"),
        "{r}"
    );
    let r = server.get("/redirect/99999/x.evil.example", "");
    assert!(
        r.contains("\r\nlocation: https://example.org/.evil.example\r\n"),
        "{r}"
    );
    let r = server.get("/99999/s", "");
    assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    assert!(!r.contains("location:"), "{r}");
    assert!(server.stop().success());
}
