//! The TimeGate client against a loopback TimeGate and memento server that answer as
//! RFC 7089 (§4.1, pattern 2) and the Internet Archive do: the TimeGate redirects to
//! the memento nearest the `Accept-Datetime` asked for, the memento carries
//! `Memento-Datetime`. Expected values are written out from the RFC's examples.

mod loopback;

use std::time::Duration;

use loopback::Server;
use noid_archive::{find, ArchiveError, Archived, Config};

const ORIGINAL: &str = "https://gone.example.org/paper?v=1";
const DATE: &str = "Tue, 20 Jun 2000 18:02:59 GMT";

fn config(timegate: &str) -> Config {
    Config::with(
        timegate,
        "http://127.0.0.1:9/save/",
        "noid-test (https://example.org/contact)",
        Duration::from_secs(10),
    )
    .unwrap()
}

/// A memento server: every path is a memento dated DATE, unless `dated` is false.
fn mementos(dated: bool) -> Server {
    Server::start(move |_, _| {
        if dated {
            format!("200 OK\r\nMemento-Datetime: {DATE}\r\nLink: <{ORIGINAL}>; rel=\"original\"")
        } else {
            "200 OK".to_string()
        }
    })
}

/// A TimeGate redirecting every URL to `memento_base/web/20000620180259/URL`.
fn timegate(memento_base: String) -> Server {
    Server::start(move |r, _| {
        let original = r.path.strip_prefix("/web/").unwrap_or("");
        format!(
            "302 Found\r\nVary: accept-datetime\r\n\
             Location: {memento_base}/web/20000620180259/{original}\r\n\
             Link: <{original}>; rel=\"original\""
        )
    })
}

#[test]
fn the_timegate_is_followed_to_the_most_recent_memento() {
    let m = mementos(true);
    let gate = timegate(m.base.clone());
    let found = noid_archive::block_on(find(&config(&format!("{}/web/", gate.base)), ORIGINAL))
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        found,
        Archived {
            url: format!("{}/web/20000620180259/{ORIGINAL}", m.base),
            datetime: DATE.into(),
            original: ORIGINAL.into(),
            found: found.found,
        }
    );
    assert!(found.found >= 1_700_000_000, "found now: {}", found.found);
    // The TimeGate was asked for the original, with Accept-Datetime (an HTTP date: now,
    // so the most recent copy), and the memento was then read.
    let asked = gate.seen();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        (asked[0].method.as_str(), asked[0].path.as_str()),
        ("GET", "/web/https://gone.example.org/paper?v=1")
    );
    let when = asked[0].header("accept-datetime").unwrap();
    assert!(httpdate::parse_http_date(when).is_ok(), "{when}");
    assert_eq!(
        asked[0].header("user-agent"),
        Some("noid-test (https://example.org/contact)")
    );
    assert_eq!(m.seen().len(), 1);
}

#[test]
fn a_timegate_with_no_memento_finds_none() {
    let gate = Server::start(|_, _| "404 Not Found".to_string());
    let found = noid_archive::block_on(find(&config(&format!("{}/web/", gate.base)), ORIGINAL));
    assert_eq!(found.unwrap(), Ok(None));
    assert_eq!(gate.seen().len(), 1);
}

#[test]
fn a_memento_without_its_date_is_dated_by_the_link_header_or_refused() {
    let m = mementos(false);
    let base = m.base.clone();
    // The TimeGate names the memento and its date in Link (RFC 7089 §2.2.1).
    let gate = Server::start(move |_, _| {
        format!(
            "302 Found\r\nLocation: {base}/web/1/x\r\n\
             Link: <{base}/web/1/x>; rel=\"last memento\"; datetime=\"{DATE}\""
        )
    });
    let found = noid_archive::block_on(find(&config(&format!("{}/web/", gate.base)), ORIGINAL))
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.url, found.datetime),
        (format!("{}/web/1/x", m.base), DATE.to_string())
    );
    // Neither header: not taken for a copy.
    let plain = timegate(m.base.clone());
    let err = noid_archive::block_on(find(&config(&format!("{}/web/", plain.base)), ORIGINAL))
        .unwrap()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}/web/20000620180259/{ORIGINAL} answered 200 OK with no Memento-Datetime",
            m.base
        )
    );
}

#[test]
fn a_timegate_that_does_not_answer_is_an_error_naming_it() {
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let gate = format!("http://127.0.0.1:{port}/web/");
    let err = noid_archive::block_on(find(&config(&gate), ORIGINAL))
        .unwrap()
        .unwrap_err();
    match err {
        ArchiveError::Unreachable { url, .. } => assert_eq!(url, format!("{gate}{ORIGINAL}")),
        other => panic!("{other:?}"),
    }
}

/// One Config asked from one runtime after another ([`noid_archive::block_on`] makes
/// one per call, as `noid links archive` does per target), against a server that keeps
/// connections open: a connection pooled by a runtime that has ended is not reused
/// (reqwest#1148 reports panics and timeouts where it was), so every call is answered.
#[test]
fn one_config_serves_one_runtime_after_another() {
    let gate = Server::keep_alive(|_, _| "404 Not Found".to_string());
    let config = config(&format!("{}/web/", gate.base));
    for _ in 0..3 {
        let found = noid_archive::block_on(find(&config, ORIGINAL)).unwrap();
        assert_eq!(found, Ok(None));
    }
    assert_eq!(gate.seen().len(), 3);
}
