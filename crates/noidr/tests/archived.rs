//! Issue 43, item 6, on every resolving path of the real `noidr`: where the rules file
//! says `archived-copy`, a broken target with an archived copy stored is answered with
//! the copy: a redirect, or (HTTP) a page linking to it with its date; the egg line
//! redirects. With no such line, the same store answers as before. The link records
//! are written as the checker and `noid links archive` write them (noid-core's
//! encoders); the expected answers are written out by hand.

use std::process::Command;

use noid_core::links::{self, Archived, LinkState, Status};
use noid_store::Op;

use crate::util::{noidr_bin, Http, Minter, Noidr};

const PAGE: &str = "https://gone.example.org/p";
const REDIRECT: &str = "https://gone.example.org/r";
const ALIVE: &str = "https://alive.example.org/k";
const COPY_P: &str = "https://web.archive.org/web/20200101000000/https://gone.example.org/p";
const COPY_R: &str = "https://web.archive.org/web/20210101000000/https://gone.example.org/r";
const DATE: &str = "Wed, 01 Jan 2020 00:00:00 GMT";

fn state(status: Status) -> Vec<u8> {
    LinkState {
        status,
        http: None,
        checked: 1_800_000_000,
        since: 1_799_000_000,
        failures: 5,
        failing_since: Some(1_790_000_000),
        detail: "connection refused".into(),
        location: None,
        fingerprint: None,
        cert_expires: None,
    }
    .encode()
}

fn copy(url: &str, original: &str) -> Vec<u8> {
    Archived {
        url: url.into(),
        datetime: DATE.into(),
        original: original.into(),
        found: 1_800_000_001,
    }
    .encode()
}

/// A minter whose `p` and `r` targets are broken with copies stored (`p` as a minter
/// stores ARKs, without `ark:/`), and whose `k` has a copy but answers.
fn minter() -> Minter {
    let m = Minter::new();
    m.bind(&[
        ("13030/p", "_t", PAGE),
        ("ark:/13030/r", "_t", REDIRECT),
        ("ark:/13030/k", "_t", ALIVE),
    ]);
    m.commit([
        Op::Put(links::state_key("13030/p", PAGE), state(Status::Broken)),
        Op::Put(links::archived_key("13030/p"), copy(COPY_P, PAGE)),
        Op::Put(
            links::state_key("ark:/13030/r", REDIRECT),
            state(Status::Broken),
        ),
        Op::Put(links::archived_key("ark:/13030/r"), copy(COPY_R, REDIRECT)),
        Op::Put(links::state_key("ark:/13030/k", ALIVE), state(Status::Ok)),
        Op::Put(links::archived_key("ark:/13030/k"), copy(COPY_P, ALIVE)),
    ]);
    m
}

fn rules() -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        f.path(),
        "archived-copy page ark:/13030/p\narchived-copy redirect ark:/13030/r ark:/13030/k\n",
    )
    .unwrap();
    f
}

fn http(m: &Minter, rules: Option<&std::path::Path>) -> Http {
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir());
    if let Some(r) = rules {
        cmd.arg("--rules").arg(r);
    }
    Http::start(cmd, "127.0.0.1:0")
}

/// The response to one GET: its status line, headers (names lower-cased) and body.
struct Got {
    status: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn get(s: &Http, path: &str, headers: &str) -> Got {
    let out = s.get(path, headers);
    let (head, body) = out.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().to_string();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(": ").unwrap();
            (n.to_ascii_lowercase(), v.to_string())
        })
        .collect();
    Got {
        status,
        headers,
        body: body.to_string(),
    }
}

#[test]
fn over_http_a_broken_target_is_answered_with_its_archived_copy() {
    let m = minter();
    let r = rules();
    let s = http(&m, Some(r.path()));

    let page = get(&s, "/ark:/13030/p", "");
    assert_eq!(page.status, "HTTP/1.1 200 OK");
    assert_eq!(
        page.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(
        page.header("link"),
        Some(&*format!(
            "<{COPY_P}>; rel=\"memento\"; datetime=\"{DATE}\", <{PAGE}>; rel=\"original\""
        ))
    );
    assert_eq!(
        page.body,
        format!("id: ark:/13030/p\noriginal: {PAGE}\narchived: {COPY_P}\narchived-at: {DATE}\n")
    );
    let html = get(&s, "/ark:/13030/p", "Accept: text/html,*/*;q=0.8\r\n");
    assert_eq!(
        (html.status.as_str(), html.header("content-type")),
        ("HTTP/1.1 200 OK", Some("text/html; charset=utf-8"))
    );
    assert!(
        html.body.contains(&format!(
            "<main>\n<h1>ark:/13030/p</h1>\n<div class=\"withdrawn\">\n\
             <p>The original is gone: <a href=\"{PAGE}\">{PAGE}</a> no longer answers.</p>\n\
             <p>An archived copy, made {DATE}: <a href=\"{COPY_P}\">{COPY_P}</a></p>\n</div>\n"
        )),
        "{}",
        html.body
    );

    // nginx's routes: auth_request gets 401 and the page's status, njs the page.
    let auth = get(&s, "/auth/ark:/13030/p", "");
    assert_eq!(
        (auth.status.as_str(), auth.header("x-status")),
        ("HTTP/1.1 401 Unauthorized", Some("200"))
    );
    let lookup = get(&s, "/lookup/ark:/13030/p", "");
    assert_eq!(
        (lookup.status.as_str(), lookup.header("x-status")),
        ("HTTP/1.1 200 OK", Some("200"))
    );
    assert_eq!(lookup.body, page.body);

    let redirect = get(&s, "/ark:/13030/r", "");
    assert_eq!(
        (redirect.status.as_str(), redirect.header("location")),
        ("HTTP/1.1 302 Found", Some(COPY_R))
    );
    // A target that answers is resolved as ever, copy or not.
    let alive = get(&s, "/ark:/13030/k", "");
    assert_eq!(
        (alive.status.as_str(), alive.header("location")),
        ("HTTP/1.1 302 Found", Some(ALIVE))
    );
}

#[test]
fn the_egg_line_redirects_to_the_copy_and_with_no_directive_nothing_changes() {
    let m = minter();
    let r = rules();
    let rules_path = r.path().to_str().unwrap();
    let mut egg = Noidr::start(m.dbdir(), &["--protocol", "egg", "--rules", rules_path]);
    assert_eq!(
        egg.ask("ark:/13030/p.resolve"),
        format!("redir302 {COPY_P}")
    );
    assert_eq!(
        egg.ask("ark:/13030/r.resolve"),
        format!("redir302 {COPY_R}")
    );
    assert_eq!(egg.ask("ark:/13030/k.resolve"), format!("redir302 {ALIVE}"));
    egg.finish();

    // The same store, no archived-copy line: every target as bound.
    let mut egg = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    assert_eq!(egg.ask("ark:/13030/p.resolve"), format!("redir302 {PAGE}"));
    assert_eq!(
        egg.ask("ark:/13030/r.resolve"),
        format!("redir302 {REDIRECT}")
    );
    egg.finish();
    let s = http(&m, None);
    let plain = get(&s, "/ark:/13030/p", "");
    assert_eq!(
        (
            plain.status.as_str(),
            plain.header("location"),
            plain.header("link")
        ),
        ("HTTP/1.1 302 Found", Some(PAGE), None)
    );
}
