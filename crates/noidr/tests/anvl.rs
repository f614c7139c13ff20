//! One ANVL writer: an element value holding a newline and a `%` is written alike by
//! the egg language's `fetch` (the `noid` CLI), `noidr --http`'s metadata page and
//! `noidr --write-registry`: as `%0a` and `%25`, EggNog's ANVL encoding
//! (shared/spec-binder-api.md §1: value `%` → `%25`, LF → `%0a`).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::Command;

use crate::util::{noid_bin, noidr_bin, Http, Minter};

/// The value, and its element line as the encoding rules above write it.
const VALUE: &str = "line one\n50% off";
const WRITTEN: &str = "note: line one%0a50%25 off\n";

/// The lines of `text` that are `note` elements.
fn notes(text: &str) -> Vec<&str> {
    text.split_inclusive('\n')
        .filter(|l| l.starts_with("note:"))
        .collect()
}

#[test]
fn a_value_is_written_alike_by_egg_fetch_the_http_page_and_the_registry_file() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/fk4a", "_t", "https://e.org/a"),
        ("ark:/13030/fk4a", "note", VALUE),
    ]);

    // The egg language's `fetch`, in ANVL: the element, then the record's blank line.
    let out = Command::new(noid_bin())
        .arg("-f")
        .arg(m.dbdir())
        .args(["--", "-m", "anvl", "ark:/13030/fk4a.fetch", "note"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{WRITTEN}\n")
    );

    // The HTTP metadata page (`??`: every element), in ANVL.
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("noidr.sock");
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir());
    let mut http = Http::start(cmd, sock.to_str().unwrap());
    let mut s = UnixStream::connect(&sock).unwrap();
    write!(
        s,
        "GET /ark:/13030/fk4a?? HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut page = String::new();
    s.read_to_string(&mut page).unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert_eq!(
        notes(page.split_once("\r\n\r\n").unwrap().1),
        [WRITTEN],
        "{page}"
    );
    let _ = http.child.kill();
    let _ = http.child.wait();

    // The registry file, from a record whose value continues on a second line.
    let reg = dir.path().join("registry");
    std::fs::write(&reg, "prefix: ark:/13030\nnote: line one\n    50% off\n").unwrap();
    let out = Command::new(noidr_bin())
        .arg("--registry")
        .arg(&reg)
        .args(["--write-registry", "-"])
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(notes(&text), [WRITTEN], "{text}");
}
