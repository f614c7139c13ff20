//! Binding tested directly through the minter's API, over a write batch on a store in
//! memory: each How's semantics and Perl Noid's report (expected texts from the noid
//! manual's `bind` and Perl Noid 0.424's messages), refusals that change nothing, and a
//! failed commit that keeps nothing.

mod support;

use noid_core::{keys, Lookup};
use noid_minter::batch::Batch;
use noid_minter::bind::{bind, BindArgs};
use noid_minter::MinterError;
use support::{context, minter, MemError, MemStore};

/// A binder made by a plain `noid dbcreate` (no template: any identifier may be bound).
fn binder() -> MemStore {
    minter(None, "-", None)
}

/// `bind HOW ID ELEM [VALUE]` in `batch`, undone alone when refused.
fn run(
    batch: &mut Batch<'_, MemStore>,
    how: &str,
    id: &str,
    elem: &str,
    value: Option<&str>,
) -> Result<String, MinterError> {
    let ctx = context();
    batch.attempt(|txn, m| {
        let args = BindArgs {
            how,
            id,
            elem,
            value: value.map(str::as_bytes),
            new_pepper: None,
            check_pattern: |_| Ok(()),
        };
        bind(txn, m, &ctx, &args)
    })
}

fn value(store: &MemStore, id: &str, elem: &str) -> Option<String> {
    let v = store.keys.get(&keys::elem(id, elem)).unwrap()?;
    Some(String::from_utf8(v).unwrap())
}

fn report(id: &str, elem: &str, how: &str, status: &str) -> String {
    format!("Id:      {id}\nElement: {elem}\nBind:    {how}\nStatus:  ok, {status}\n")
}

#[test]
fn each_how_changes_the_value_as_the_manual_says_and_reports_as_perl_did() {
    let store = binder();
    let mut b = Batch::open(&store).expect("open");
    let steps: [(&str, Option<&str>, &str, Option<&str>); 9] = [
        (
            "set",
            Some("abc"),
            "3 bytes written, replacing 0 bytes",
            Some("abc"),
        ),
        (
            "set",
            Some("wxyz"),
            "4 bytes written, replacing 3 bytes",
            Some("wxyz"),
        ),
        (
            "add",
            Some("12"),
            "2 bytes written to the end of 4 bytes",
            Some("wxyz12"),
        ),
        (
            "append",
            Some("!"),
            "1 bytes written to the end of 6 bytes",
            Some("wxyz12!"),
        ),
        (
            "prepend",
            Some(">"),
            "1 bytes written to the beginning of 7 bytes",
            Some(">wxyz12!"),
        ),
        (
            "replace",
            Some("r"),
            "1 bytes written, replacing 8 bytes",
            Some("r"),
        ),
        ("delete", None, "1 bytes removed", None),
        ("purge", None, "0 bytes removed", None),
        (
            "insert",
            Some("i"),
            "1 bytes written to the beginning of 0 bytes",
            Some("i"),
        ),
    ];
    for (how, given, status, after) in steps {
        let got = run(&mut b, how, "x1", "who", given).unwrap_or_else(|e| panic!("{how}: {e}"));
        assert_eq!(got, report("x1", "who", how, status));
        b.commit().expect("commit");
        assert_eq!(value(&store, "x1", "who").as_deref(), after, "after {how}");
    }
    // `add` on nothing is `new`; `new` on something is refused.
    let got = run(&mut b, "add", "x2", "who", Some("a")).unwrap();
    assert_eq!(
        got,
        report("x2", "who", "add", "1 bytes written to the end of 0 bytes")
    );
    b.commit().expect("commit");
    assert_eq!(value(&store, "x2", "who").as_deref(), Some("a"));
}

#[test]
fn refused_binds_say_why_as_perl_did_and_change_nothing() {
    let store = binder();
    let mut b = Batch::open(&store).expect("open");
    run(&mut b, "set", "x1", "who", Some("abc")).unwrap();
    b.commit().expect("commit");
    let before = store.all_keys();
    let refusals: [(&str, &str, Option<&str>, &str); 7] = [
        (
            "append",
            "x9",
            Some("v"),
            "error: for \"bind append\", \"x9 who\" must already be bound.",
        ),
        (
            "replace",
            "x9",
            Some("v"),
            "error: for \"bind replace\", \"x9 who\" must already be bound.",
        ),
        (
            "delete",
            "x9",
            None,
            "error: for \"bind delete\", \"x9 who\" must already be bound.",
        ),
        (
            "new",
            "x1",
            Some("v"),
            "error: for \"bind new\", \"x1 who\"  cannot already be bound.",
        ),
        (
            "set",
            "x1",
            None,
            "error: \"bind set who\" requires a value to bind.",
        ),
        (
            "sett",
            "x1",
            Some("v"),
            "error: bind how?  What does sett mean?",
        ),
        (
            "set",
            "",
            Some("v"),
            "error: bind needs an identifier specified.",
        ),
    ];
    for (how, id, given, message) in refusals {
        let e = run(&mut b, how, id, "who", given).expect_err(how);
        assert_eq!(e.to_string(), message);
        assert_eq!(b.pending(), 0, "{how} left nothing pending");
    }
    b.commit().expect("commit");
    assert_eq!(store.all_keys(), before);
    assert_eq!(value(&store, "x1", "who").as_deref(), Some("abc"));
}

#[test]
fn a_refused_bind_undoes_itself_alone_and_a_failed_commit_keeps_nothing() {
    let store = binder();
    let mut b = Batch::open(&store).expect("open");
    run(&mut b, "set", "x1", "a", Some("1")).unwrap();
    run(&mut b, "append", "x1", "b", Some("2")).expect_err("b is not bound");
    run(&mut b, "set", "x1", "c", Some("3")).unwrap();
    b.commit().expect("commit");
    assert_eq!(value(&store, "x1", "a").as_deref(), Some("1"));
    assert_eq!(value(&store, "x1", "b"), None);
    assert_eq!(value(&store, "x1", "c").as_deref(), Some("3"));

    let before = store.all_keys();
    run(&mut b, "set", "x2", "a", Some("1")).unwrap();
    run(&mut b, "purge", "x1", "a", None).unwrap();
    store.fail_commit(1);
    assert_eq!(b.commit(), Err(MemError::DiskFull));
    assert_eq!(
        store.all_keys(),
        before,
        "nothing of the failed commit was written"
    );
    assert_eq!(b.pending(), 0);
    // The batch goes on from the store.
    let got = run(&mut b, "add", "x1", "a", Some("+")).unwrap();
    assert_eq!(
        got,
        report("x1", "a", "add", "1 bytes written to the end of 1 bytes")
    );
    b.commit().expect("commit");
    assert_eq!(value(&store, "x1", "a").as_deref(), Some("1+"));
}
