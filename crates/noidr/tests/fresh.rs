//! Freshness: a write made by a `noid` command that has returned is visible to the very
//! next request, with no sleep (issue 4).

use crate::eqnice;
use std::time::Duration;

use noid_store::{Op, Writer};

use crate::util::{Minter, Noidr};

#[test]
fn bind_then_resolve_1000_times_in_a_row() {
    let m = Minter::new();
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    eqnice!("X.resolve", "NULL", n.ask("X.resolve"));
    for i in 0..1000 {
        let url = format!("https://example.org/v{i}");
        m.noid_bind_set("X", "_t", &url);
        eqnice!(i, format!("redir302 {url}"), n.ask("X.resolve"));
    }
    assert!(n.finish().success());
}

#[test]
fn noid_protocol_sees_new_bindings_at_once() {
    let m = Minter::new();
    let mut n = Noidr::start(m.dbdir(), &[]);
    for i in 0..100 {
        let id = format!("13030/fk{i}");
        eqnice!(i, "NULL", n.ask(&format!("get {id} myGoto")));
        m.noid_bind_set(&id, "myGoto", &format!("http://e.org/{i}"));
        eqnice!(
            i,
            format!("http://e.org/{i}"),
            n.ask(&format!("get {id} myGoto"))
        );
    }
}

/// Large batches are ingested as table files. A secondary that replayed an older value
/// from the write-ahead log (it opened while a writer was at work) keeps showing that
/// value over an ingested file if it only catches up: the resolver must reopen.
#[test]
fn large_batches_replace_values_the_resolver_already_saw() {
    let m = Minter::new();
    for round in 0..3 {
        let w = Writer::open(m.dbdir(), Duration::from_secs(30)).expect("writer");
        let small = format!("https://example.org/small{round}");
        w.commit([Op::Put(b"X\t_t".to_vec(), small.clone().into_bytes())])
            .expect("small commit");
        // Started (or reopened) while the writer still holds the small write in its
        // memtable and log.
        let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
        eqnice!(round, format!("redir302 {small}"), n.ask("X.resolve"));
        let big = (0..20_000)
            .map(|i| {
                Op::Put(
                    format!("b{i}\t_t").into_bytes(),
                    format!("https://example.org/big{round}/{i}").into_bytes(),
                )
            })
            .chain([Op::Put(
                b"X\t_t".to_vec(),
                format!("https://example.org/big{round}").into_bytes(),
            )]);
        w.commit(big).expect("big commit");
        drop(w);
        eqnice!(
            round,
            format!("redir302 https://example.org/big{round}"),
            n.ask("X.resolve")
        );
        eqnice!(
            round,
            format!("redir302 https://example.org/big{round}/777"),
            n.ask("b777.resolve")
        );
        assert!(n.finish().success());
    }
}

/// The resolver remembers which ARK key forms (`ark:/NAAN/…`, `NAAN/…`) the store has;
/// a binding of a form it had none of is still seen by the next request.
#[test]
fn new_key_forms_are_seen_at_once() {
    let m = Minter::new();
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    // An empty store serves no NAAN: the ARK draft (§3.3) sends the ARK on to N2T.
    eqnice!(
        "before",
        "redir302 https://n2t.net/ark:/13030/x1/a/b",
        n.ask("ark:/13030/x1/a/b.resolve")
    );
    m.noid_bind_set("13030/x1", "_t", "https://example.org/bare");
    eqnice!(
        "bare form",
        "redir302 https://example.org/bare/a/b",
        n.ask("ark:/13030/x1/a/b.resolve")
    );
    m.noid_bind_set("ark:/13030/x1/a", "_t", "https://example.org/full");
    eqnice!(
        "full form",
        "redir302 https://example.org/full/b",
        n.ask("ark:/13030/x1/a/b.resolve")
    );
    assert!(n.finish().success());
}

/// The rules are cached per request thread; a catch-up that brings a write drops the
/// cache, whichever catch-up it is: the background thread's (checked through the
/// metrics, with no request in between to catch up itself) or the next request's.
#[test]
fn new_and_changed_idmap_rules_are_seen_at_once() {
    let m = Minter::new();
    let (mut n, errors) = Noidr::start_with_stderr(m.dbdir(), &["--protocol", "egg"]);
    eqnice!("before", "NULL", n.ask("mp12.resolve"));
    let line = n.usr1_line(&errors);
    assert_eq!(Noidr::count(&line, "catch-ups"), 0, "{line}");
    m.noid_bind_set(":idmap/^mp([0-9]+)$", "_t", "https://m.org/$1");
    // The background catch-up brings the rule (it must not keep the empty list).
    n.usr1_until(&errors, "catch-ups", 1);
    eqnice!("rule", "redir302 https://m.org/12", n.ask("mp12.resolve"));
    m.noid_bind_set(":idmap/^mp([0-9]+)$", "_t", "https://n.org/$1");
    eqnice!(
        "changed rule",
        "redir302 https://n.org/12",
        n.ask("mp12.resolve")
    );
    assert!(n.finish().success());
}

/// A chop-back reads the id's ancestors as one range through an iterator kept between
/// requests: a binding or flag a `noid` command gives any ancestor shows in the very next
/// request.
#[test]
fn chop_backs_see_new_ancestors_and_flags_at_once() {
    let m = Minter::new();
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    let ask = "ark:/13030/fk4x/a/b.c/d.resolve";
    // An empty store serves no NAAN: the ARK draft (§3.3) sends the ARK on to N2T.
    eqnice!(
        "before",
        "redir302 https://n2t.net/ark:/13030/fk4x/a/b.c/d",
        n.ask(ask)
    );
    m.noid_bind_set("13030/fk4x", "_t", "https://e.org/x");
    eqnice!("id", "redir302 https://e.org/x/a/b.c/d", n.ask(ask));
    for i in 0..20 {
        let url = format!("https://e.org/b{i}");
        m.noid_bind_set("13030/fk4x/a/b", "_t", &url);
        eqnice!(i, format!("redir302 {url}.c/d"), n.ask(ask));
        m.noid_bind_set("13030/fk4x/a/b", "_t_am", "n");
        eqnice!(i, "NULL", n.ask(ask));
        m.noid_bind_set("13030/fk4x/a/b", "_t_am", "y");
        eqnice!(i, format!("redir302 {url}.c/d"), n.ask(ask));
    }
    assert!(n.finish().success());
}
