//! `noid links archive|mark|unmark|policy|save` against a real RocksDB minter and
//! loopback servers: a Memento TimeGate with its memento server, and a save endpoint
//! that fails once, then saves. The records written are read back through noid-core's
//! decoders; the expected lines are written out by hand.

use std::time::Duration;

use noid_core::links::{self, Archived};
use noid_core::Lookup;

use crate::loopback::Server;
use crate::util::Dir;

const TARGET: &str = "https://gone.example.org/paper";
const DATE: &str = "Tue, 20 Jun 2000 18:02:59 GMT";

/// A TimeGate at `/web/` redirecting to a memento server that dates every memento DATE.
fn archive() -> (Server, Server) {
    let mementos = Server::start(|_, _| format!("200 OK\r\nMemento-Datetime: {DATE}"));
    let base = mementos.base.clone();
    let gate = Server::start(move |r, _| match r.path.strip_prefix("/web/") {
        Some(url) if url.contains("gone.example.org") => {
            format!("302 Found\r\nLocation: {base}/web/20000620180259/{url}")
        }
        _ => "404 Not Found".to_string(),
    });
    (gate, mementos)
}

fn read(d: &Dir, key: &[u8]) -> Option<Vec<u8>> {
    let view = noid_store::Writer::open(d.path(), Duration::from_secs(5)).unwrap();
    view.get(key).unwrap()
}

#[test]
fn a_curator_archives_marks_and_unmarks_a_target() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "set", "13030/x", "_t", TARGET]).ok();
    d.noid(&[
        "bind",
        "set",
        "13030/y",
        "_t",
        "302 https://alive.example.org/",
    ])
    .ok();
    let (gate, mementos) = archive();
    let timegate = format!("{}/web/", gate.base);

    let out = d.noid(&[
        "links",
        "archive",
        "--timegate",
        &timegate,
        "13030/x",
        "13030/y",
    ]);
    let copy = format!("{}/web/20000620180259/{TARGET}", mementos.base);
    assert_eq!(
        out.ok(),
        format!(
            "13030/x: {TARGET} archived at {copy} ({DATE})\n\
             13030/y: no archived copy of https://alive.example.org/\n"
        )
    );
    let stored = Archived::decode(&read(&d, &links::archived_key("13030/x")).unwrap()).unwrap();
    assert_eq!(
        (stored.url, stored.datetime, stored.original),
        (copy.clone(), DATE.to_string(), TARGET.to_string())
    );
    assert_eq!(read(&d, &links::archived_key("13030/y")), None);

    assert_eq!(
        d.noid(&["links", "mark", "13030/x"]).ok(),
        format!("13030/x: marked gone; falls back on {copy}\n")
    );
    assert!(read(&d, &links::mark_key("13030/x")).is_some());
    assert_eq!(
        d.noid(&["links", "unmark", "13030/x"]).ok(),
        "13030/x: unmarked\n"
    );
    assert_eq!(read(&d, &links::mark_key("13030/x")), None);

    // An id with no target to archive (none, or withdrawn) is an error, and the
    // others still run.
    d.noid(&["bind", "set", "13030/w", "_t", "410 withdrawn"])
        .ok();
    let out = d.noid(&[
        "links",
        "archive",
        "--timegate",
        &timegate,
        "13030/none",
        "13030/w",
        "13030/x",
    ]);
    out.failed();
    assert_eq!(
        out.stdout,
        format!(
            "13030/none: error: no target (_t) to archive\n\
             13030/w: error: no target (_t) to archive\n\
             13030/x: {TARGET} archived at {copy} ({DATE})\n"
        )
    );
}

#[test]
fn the_policy_is_off_until_turned_on_for_a_prefix() {
    let d = Dir::minter(&[]);
    const NO_SAVES: &str = "bound targets are queued for saving for no identifier\n";
    assert_eq!(
        d.noid(&["links", "policy"]).ok(),
        format!("copies are fetched for no identifier\n{NO_SAVES}")
    );
    assert_eq!(
        d.noid(&["links", "policy", "on", "13030/fk4"]).ok(),
        format!("copies are fetched for identifiers under 13030/fk4\n{NO_SAVES}")
    );
    assert_eq!(
        read(&d, b":/links/f/13030/fk4").as_deref(),
        Some(&b"on"[..])
    );
    assert_eq!(
        d.noid(&["links", "policy", "off", "13030/fk4"]).ok(),
        format!("copies are fetched for no identifier\n{NO_SAVES}")
    );
    let bad = d.noid(&["links", "policy", "maybe"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("invalid value 'maybe'"),
        "{}",
        bad.stderr
    );
}

#[test]
fn a_save_is_queued_retried_and_recorded() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "set", "13030/x", "_t", TARGET]).ok();
    let saves = Server::start(|_, before| {
        if before == 0 {
            "500 Internal Server Error".to_string()
        } else {
            "200 OK\r\nContent-Location: /web/20270101000000/https://gone.example.org/paper"
                .to_string()
        }
    });
    let endpoint = format!("{}/save/", saves.base);
    let out = d.noid(&["links", "save", "--run", "--endpoint", &endpoint, "13030/x"]);
    assert_eq!(
        out.ok(),
        format!(
            "13030/x: {TARGET} queued\ntried 1: 0 saved, 0 given up\n\
             13030/x\t{TARGET}\tqueued\tattempts 1\t{endpoint}{TARGET} answered 500 Internal Server Error\n"
        )
    );
    // Not due again before its backoff (60 s): nothing is asked.
    let out = d.noid(&["links", "save", "--run", "--endpoint", &endpoint]);
    assert!(
        out.ok().starts_with("tried 0: 0 saved, 0 given up\n"),
        "{}",
        out.stdout
    );
    let seen = saves.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("GET", &*format!("/save/{TARGET}"))
    );
    let agent = seen[0].header("user-agent").unwrap();
    assert!(agent.starts_with("noid/"), "{agent}");
}

#[test]
fn under_a_prefix_only_broken_or_marked_targets_are_archived() {
    let d = Dir::minter(&[]);
    for id in ["13030/fk4a", "13030/fk4b", "13030/fk4c", "13030/x"] {
        d.noid(&["bind", "set", id, "_t", &format!("{TARGET}/{id}")])
            .ok();
    }
    // The checker's states: fk4a broken, fk4b failing, x (outside the prefix) broken.
    let state = |status| {
        links::LinkState {
            status,
            http: None,
            checked: 1_800_000_000,
            since: 1_800_000_000,
            failures: 3,
            failing_since: Some(1_790_000_000),
            detail: "connection refused".into(),
            location: None,
            fingerprint: None,
            cert_expires: None,
        }
        .encode()
    };
    let w = noid_store::Writer::open(d.path(), Duration::from_secs(5)).unwrap();
    w.commit([
        noid_store::Op::Put(
            links::state_key("13030/fk4a", &format!("{TARGET}/13030/fk4a")),
            state(links::Status::Broken),
        ),
        noid_store::Op::Put(
            links::state_key("13030/fk4b", &format!("{TARGET}/13030/fk4b")),
            state(links::Status::Failing),
        ),
        noid_store::Op::Put(
            links::state_key("13030/x", &format!("{TARGET}/13030/x")),
            state(links::Status::Broken),
        ),
    ])
    .unwrap();
    drop(w);
    d.noid(&["links", "mark", "13030/fk4c"]).ok();
    let (gate, mementos) = archive();
    let timegate = format!("{}/web/", gate.base);
    let out = d.noid(&[
        "links",
        "archive",
        "--under",
        "13030/fk4",
        "--timegate",
        &timegate,
    ]);
    let m = &mementos.base;
    assert_eq!(
        out.ok(),
        format!(
            "13030/fk4a: {TARGET}/13030/fk4a archived at {m}/web/20000620180259/{TARGET}/13030/fk4a ({DATE})\n\
             13030/fk4c: {TARGET}/13030/fk4c archived at {m}/web/20000620180259/{TARGET}/13030/fk4c ({DATE})\n"
        )
    );
    assert_eq!(read(&d, &links::archived_key("13030/fk4b")), None);
    assert_eq!(read(&d, &links::archived_key("13030/x")), None);
    assert_eq!(gate.seen().len(), 2);
}

/// `noid links check` keeps the archived copy of a target that turns broken, in the same
/// commit as its status, only where the fetch policy covers the identifier: 13030/x
/// (under the policy) gets one, 13030/z (outside it) is broken without one.
#[test]
fn a_target_the_checker_finds_broken_gets_its_archived_copy_where_the_policy_says() {
    let d = Dir::minter(&[]);
    // A server that answers 404 to everything: both targets are broken at once.
    let dead = Server::start(|_, _| "404 Not Found".to_string());
    let gone = format!("{}/paper", dead.base);
    d.noid(&["bind", "set", "13030/x", "_t", &gone]).ok();
    d.noid(&[
        "bind",
        "set",
        "13030/z",
        "_t",
        &format!("{}/other", dead.base),
    ])
    .ok();
    d.noid(&["links", "policy", "on", "13030/x"]).ok();
    let mementos = Server::start(|_, _| format!("200 OK\r\nMemento-Datetime: {DATE}"));
    let base = mementos.base.clone();
    let gate = Server::start(move |r, _| match r.path.strip_prefix("/web/") {
        Some(url) if url.ends_with("/paper") => {
            format!("302 Found\r\nLocation: {base}/web/20000620180259/{url}")
        }
        _ => "404 Not Found".to_string(),
    });
    let timegate = format!("{}/web/", gate.base);
    let out = d.noid(&[
        "links",
        "check",
        "--allow-net",
        "127.0.0.0/8",
        "--contact",
        "https://ids.example.org/links",
        "--interval",
        "0s",
        "--failures",
        "1",
        "--span",
        "0s",
        "--timegate",
        &timegate,
    ]);
    assert!(out.ok().contains("broken: 2\n"), "{}", out.stdout);
    let stored = Archived::decode(&read(&d, &links::archived_key("13030/x")).unwrap()).unwrap();
    assert_eq!(
        (stored.url, stored.datetime, stored.original),
        (
            format!("{}/web/20000620180259/{gone}", mementos.base),
            DATE.to_string(),
            gone.clone()
        )
    );
    assert_eq!(read(&d, &links::archived_key("13030/z")), None);
    // The TimeGate was asked about 13030/x's target only.
    let asked: Vec<String> = gate.seen().iter().map(|s| s.path.clone()).collect();
    assert_eq!(asked, [format!("/web/{gone}")]);
}

/// With the save-on-bind policy on for a prefix, every binding path queues the targets
/// it binds to identifiers under it (`noid bind`, and egg's `set` in bulk), once per
/// target, a redirect code dropped and a stored code left out; outside the prefix
/// nothing is queued; the queue is then tried as any other.
#[test]
fn targets_bound_under_the_save_on_bind_policy_are_queued() {
    let d = Dir::minter(&[]);
    assert_eq!(
        d.noid(&["links", "policy", "--save-on-bind", "on", "13030/fk4"])
            .ok(),
        "copies are fetched for no identifier\n\
         bound targets are queued for saving for identifiers under 13030/fk4\n"
    );
    d.noid(&[
        "bind",
        "set",
        "13030/fk4a",
        "_t",
        "302 https://a.example.org/1",
    ])
    .ok();
    // Bound again: still one request.
    d.noid(&[
        "bind",
        "set",
        "13030/fk4a",
        "_t",
        "302 https://a.example.org/1",
    ])
    .ok();
    d.noid_stdin(
        &["-"],
        b"13030/fk4b.set _t https://b.example.org/2\n13030/fk4c.set _t '410 gone'\n\
          13030/x.set _t https://x.example.org/3\n",
    )
    .ok();
    let view = noid_store::Writer::open(d.path(), Duration::from_secs(5)).unwrap();
    let queued: Vec<(String, String)> = view
        .scan_prefix(links::SAVE_PREFIX, 100)
        .unwrap()
        .into_iter()
        .map(|(k, v)| {
            let r = links::SaveRequest::decode(&v).unwrap();
            assert_eq!((r.state, r.attempts), (links::SaveState::Queued, 0));
            let key = String::from_utf8(k[links::SAVE_PREFIX.len()..].to_vec()).unwrap();
            let (id, target) = key.split_once('\t').unwrap();
            (id.to_string(), target.to_string())
        })
        .collect();
    drop(view);
    assert_eq!(
        queued,
        [
            (
                "13030/fk4a".to_string(),
                "https://a.example.org/1".to_string()
            ),
            (
                "13030/fk4b".to_string(),
                "https://b.example.org/2".to_string()
            ),
        ]
    );
    let saves = Server::start(|_, _| "200 OK".to_string());
    let endpoint = format!("{}/save/", saves.base);
    let out = d.noid(&["links", "save", "--run", "--endpoint", &endpoint]);
    assert!(
        out.ok().starts_with("tried 2: 2 saved, 0 given up\n"),
        "{}",
        out.stdout
    );
}
