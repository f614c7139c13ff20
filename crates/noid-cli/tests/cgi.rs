//! Web mode: the binary invoked as `noidu_DIR` with a real query string.

use std::os::unix::fs::symlink;
use std::process::Command;

use crate::util::*;

fn noidu(d: &Dir, query: &str, body: &[u8]) -> Run {
    let link = d.path().join("noidu_m");
    if !link.exists() {
        symlink(noid_exe(), &link).unwrap();
    }
    let mut cmd = Command::new(&link);
    cmd.current_dir(d.path())
        .env("QUERY_STRING", query)
        .env("REMOTE_USER", "alice")
        .env("REMOTE_ADDR", "10.0.0.1");
    run(cmd, body)
}

#[test]
fn cgi_query_string() {
    let d = Dir::new();
    let m = d.path().join("m");
    std::fs::create_dir(&m).unwrap();
    let r = Command::new(noid_exe())
        .arg("-f")
        .arg(&m)
        .args(["dbcreate", ".sdd"])
        .output()
        .unwrap();
    assert!(r.status.success());
    let r = noidu(&d, "mint+2", b"");
    assert_eq!(r.ok(), "Content-Type: text/plain\n\nid: 00\nid: 01\n\n");
    let r = noidu(&d, "bind+set+00+goto+http%3A%2F%2Fexample.org%2Fa%20b", b"");
    assert!(r
        .ok()
        .starts_with("Content-Type: text/plain\n\nId:      00\nElement: goto\nBind:    set\n"));
    let r = noidu(&d, "get+00+goto", b"");
    assert_eq!(
        r.ok(),
        "Content-Type: text/plain\n\nhttp://example.org/a b\n"
    );
    let r = noidu(&d, "fetch+00+goto", b"");
    assert!(
        undate(r.ok()).contains("Circ:  i|DATE|alice@10.0.0.1 "),
        "{}",
        r.stdout
    );
    // Errors come on the same stream.
    let r = noidu(&d, "get+02", b"");
    assert_eq!(
        r.stdout,
        "Content-Type: text/plain\n\nnote: no elements bound under 02.\n"
    );
    // dbcreate is refused.
    let r = noidu(&d, "dbcreate+.sd", b"");
    assert!(r.stdout.starts_with(
        "Content-Type: text/plain\n\nerror: command \"dbcreate\" not allowed in URL interface.\n"
    ));
    // ?- runs the POST body in bulk.
    let r = noidu(&d, "-", b"get 00 goto\nhello\n");
    assert_eq!(
        r.ok(),
        "Content-Type: text/plain\n\nhttp://example.org/a b\nHello.\n"
    );
}
