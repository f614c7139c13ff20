//! Every bind How, its report, and the stdin element forms.

use crate::util::*;

fn report(id: &str, elem: &str, how: &str, status: &str) -> String {
    format!("Id:      {id}\nElement: {elem}\nBind:    {how}\nStatus:  ok, {status}\n\n")
}

const BIND_USAGE: &str = "\n    noid bind How Id Element Value\t# to bind an Id's Element, where\n       How is set|add|insert|new|replace|mint|append|prepend|delete|purge.\n       Use an Id of :idmap/Idpattern, Value=PerlReplacementPattern so that\n       fetch returns variable values.  Use \":\" as Element to read Elements\n       and Values up to a blank line from stdin (up to EOF with \":-\").\n \n";

#[test]
fn every_how() {
    let d = Dir::minter(&[]);
    let b = |args: &[&str]| d.noid(&[&["bind"], args].concat());
    assert_eq!(
        b(&["new", "x", "e", "abc"]).ok(),
        report("x", "e", "new", "3 bytes written, replacing 0 bytes")
    );
    let r = b(&["new", "x", "e", "zz"]);
    r.failed();
    assert_eq!(
        r.stderr,
        "error: for \"bind new\", \"x e\"  cannot already be bound.\n"
    );
    assert_eq!(r.stdout, BIND_USAGE);
    assert_eq!(
        b(&["replace", "x", "e", "de"]).ok(),
        report("x", "e", "replace", "2 bytes written, replacing 3 bytes")
    );
    assert_eq!(
        b(&["replace", "x", "f", "de"]).stderr,
        "error: for \"bind replace\", \"x f\" must already be bound.\n"
    );
    assert_eq!(
        b(&["set", "x", "e", "hello"]).ok(),
        report("x", "e", "set", "5 bytes written, replacing 2 bytes")
    );
    assert_eq!(
        b(&["append", "x", "e", "!!"]).ok(),
        report("x", "e", "append", "2 bytes written to the end of 5 bytes")
    );
    assert_eq!(
        b(&["append", "x", "g", "!!"]).stderr,
        "error: for \"bind append\", \"x g\" must already be bound.\n"
    );
    assert_eq!(
        b(&["add", "x", "g", "12"]).ok(),
        report("x", "g", "add", "2 bytes written to the end of 0 bytes")
    );
    assert_eq!(
        b(&["prepend", "x", "e", ">"]).ok(),
        report(
            "x",
            "e",
            "prepend",
            "1 bytes written to the beginning of 7 bytes"
        )
    );
    assert_eq!(
        b(&["insert", "x", "h", "<"]).ok(),
        report(
            "x",
            "h",
            "insert",
            "1 bytes written to the beginning of 0 bytes"
        )
    );
    assert_eq!(
        d.noid(&["get", "x", "e", "g", "h"]).ok(),
        ">hello!!\n12\n<\n"
    );
    assert_eq!(
        b(&["delete", "x", "h"]).ok(),
        report("x", "h", "delete", "1 bytes removed")
    );
    assert_eq!(
        b(&["delete", "x", "h"]).stderr,
        "error: for \"bind delete\", \"x h\" must already be bound.\n"
    );
    assert_eq!(
        b(&["purge", "x", "h"]).ok(),
        report("x", "h", "purge", "0 bytes removed")
    );
    assert_eq!(
        b(&["mint", "new", "e", "v"]).ok(),
        report("0", "e", "mint", "1 bytes written, replacing 0 bytes")
    );
    let r = b(&["mint", "x", "e", "v"]);
    assert_eq!(
        r.stderr,
        "error: bind mint requires an Id of \"new\" (got \"x\").\n"
    );
    let r = b(&["peppermint", "new", "e", "v"]);
    assert!(
        r.ok()
            .starts_with("Id:      1\nElement: e\nBind:    peppermint\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn bind_errors() {
    let d = Dir::minter(&[]);
    let b = |args: &[&str]| d.noid(&[&["bind"], args].concat());
    assert_eq!(
        b(&["sett", "x", "e", "v"]).stderr,
        "error: bind how?  What does sett mean?\n"
    );
    assert_eq!(
        b(&["set"]).stderr,
        "error: bind needs an identifier specified.\n"
    );
    assert_eq!(
        b(&["set", "x"]).stderr,
        "error: \"bind set\" requires an element name.\n"
    );
    assert_eq!(
        b(&["set", "x", "e"]).stderr,
        "error: \"bind set e\" requires a value to bind.\n"
    );
    assert_eq!(
        b(&["set", ":x", "e", "v"]).stderr,
        "error: :x: id cannot begin with \":\" unless of the form \":idmap/Idpattern\".\n"
    );
    let r = b(&["set", ":idmap/(unclosed", "e", "v"]);
    r.failed();
    assert!(
        r.stderr
            .starts_with("error: :idmap/(unclosed: bad :idmap pattern: "),
        "{}",
        r.stderr
    );
    assert_eq!(
        b(&["set", "x", ":xml", "v"]).stderr,
        "Binding to element syntax \":xml\" not supported.\n"
    );
    // Nothing was stored by any of these.
    assert_eq!(
        d.noid(&["get", "x"]).stderr,
        "note: no elements bound under x.\n"
    );
}

#[test]
fn values_starting_with_dash_or_plus_are_bound_as_given() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "set", "x", "a", "-f"]).ok();
    d.noid(&["bind", "set", "x", "b", "+more"]).ok();
    d.noid(&["bind", "set", "x", "c", "--help"]).ok();
    assert_eq!(
        d.noid(&["get", "x", "a", "b", "c"]).ok(),
        "-f\n+more\n--help\n"
    );
}

#[test]
fn idmap_report_shows_internal_form() {
    let d = Dir::minter(&[]);
    assert_eq!(
        d.noid(&["bind", "set", ":idmap/^ft", "redirect", "g7h"])
            .ok(),
        report(
            ":/idmap/redirect",
            "^ft",
            "set",
            "3 bytes written, replacing 0 bytes"
        )
    );
}

#[test]
fn stdin_elements() {
    let d = Dir::minter(&[]);
    let r = d.noid_stdin(
        &["bind", "set", "x", ":"],
        b"# comment\na: one\nb: two\n  continued\n\nc: not read\n",
    );
    assert_eq!(
        r.ok(),
        format!(
            "{}{}",
            report("x", "a", "set", "3 bytes written, replacing 0 bytes"),
            report("x", "b", "set", "13 bytes written, replacing 0 bytes")
        )
    );
    assert_eq!(d.noid(&["get", "x", "b", "c"]).stdout, "two continued\n\n");
    let r = d.noid_stdin(
        &["bind", "set", "y", ":-"],
        b"\n# c\nbody: first\nsecond\n\nthird\n",
    );
    r.ok();
    assert_eq!(
        d.noid(&["get", "y", "body"]).ok(),
        "first\nsecond\n\nthird\n\n"
    );
    let r = d.noid_stdin(&["bind", "set", "y", ":-"], b"# only a comment\n");
    assert_eq!(r.stderr, "error:  no non-blank, non-comment input.\n");
    let r = d.noid(&["bind", "set", "y", ":", "extra"]);
    assert_eq!(
        r.stderr,
        "Why give a value (extra) with an element \":\"?\n"
    );
}

#[test]
fn binary_and_multiline_values_round_trip() {
    let d = Dir::minter(&[]);
    let r = d.noid_stdin(&["bind", "set", "z", ":-"], b"v: line1\nline2\twith tab\n");
    r.ok();
    assert_eq!(
        d.noid(&["get", "z", "v"]).ok(),
        "line1\nline2\twith tab\n\n"
    );
}
