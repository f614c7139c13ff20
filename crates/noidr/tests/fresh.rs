//! Freshness: a write made by a `noid` command that has returned is visible to the very
//! next request, with no sleep (issue 4).

use crate::eqnice;
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
