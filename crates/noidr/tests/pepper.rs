//! Peppered identifiers read through `noidr`: docs/COMPATIBILITY.md says reads accept
//! `ID` and `ID!PEPPER` alike, so both line protocols and HTTP answer the peppered form
//! as the identifier itself, as the CLI does.

use std::process::Command;

use crate::eqnice;
use crate::util::{noidr_bin, Http, Minter, Noidr};

/// A minter-issued id (stored NAAN-relative, as a minter with NAAN 13030 stores it) with
/// its pepper under `ID<TAB>:/p`, as `peppermint` leaves it.
fn peppered() -> Minter {
    let m = Minter::new();
    m.bind(&[
        ("13030/fk4x", ":/p", "b3c4d5f6"),
        ("13030/fk4x", "_t", "https://e.org/x"),
        ("13030/fk4x", "who", "Somebody"),
    ]);
    m
}

#[test]
fn noid_line_protocol_reads_the_peppered_form() {
    let m = peppered();
    let mut n = Noidr::start(m.dbdir(), &[]);
    for (request, expected) in [
        ("get 13030/fk4x!b3c4d5f6 _t", "https://e.org/x"),
        ("get 13030/fk4x _t", "https://e.org/x"),
        (
            "get 13030/fk4x!b3c4d5f6 who _t",
            "Somebody\thttps://e.org/x",
        ),
        (
            "fetch 13030/fk4x!b3c4d5f6 who",
            "id:    13030/fk4x\tCirc:  uncirculated\twho: Somebody",
        ),
        // A wrong pepper names another identifier, which has no bindings.
        ("get 13030/fk4x!b3c4d5f7 _t", "NULL"),
    ] {
        eqnice!(request, expected, n.ask(request));
    }
}

#[test]
fn egg_protocol_resolves_the_peppered_form() {
    let m = peppered();
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    for (request, expected) in [
        (
            "ark:/13030/fk4x!b3c4d5f6.resolve",
            "redir302 https://e.org/x",
        ),
        ("13030/fk4x!b3c4d5f6.resolve", "redir302 https://e.org/x"),
        // Not the pepper: `!…` is a suffix passed through to the target, as before.
        (
            "ark:/13030/fk4x!b3c4d5f7.resolve",
            "redir302 https://e.org/x!b3c4d5f7",
        ),
    ] {
        eqnice!(request, expected, n.ask(request));
    }
}

#[test]
fn http_resolves_the_peppered_form() {
    let m = peppered();
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("noidr.sock");
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir());
    let mut server = Http::start(cmd, sock.to_str().unwrap());
    let get = |path: &str| server.get(path, "");
    for path in [
        "/redirect/ark:/13030/fk4x!b3c4d5f6",
        "/redirect/13030/fk4x%21b3c4d5f6",
        "/13030/fk4x!b3c4d5f6",
    ] {
        let r = get(path);
        assert!(r.starts_with("HTTP/1.1 302"), "{path}: {r}");
        assert!(r.contains("location: https://e.org/x\r\n"), "{path}: {r}");
    }
    let r = get("/lookup/13030%2Ffk4x%21b3c4d5f6");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert!(r.ends_with("\r\n\r\nhttps://e.org/x"), "{r}");
    assert!(server.stop().success());
}
