//! Holds, queues, terms, wrap: whole scenarios with exact minting order.

use crate::util::*;

#[test]
fn hold_and_queue_order() {
    let d = Dir::minter(&[".sdd"]);
    assert_eq!(d.noid(&["hold", "set", "00"]).ok(), "ok: 1 hold placed\n\n");
    assert_eq!(d.mint(5), ["01", "02", "03", "04", "05"]);
    assert_eq!(
        d.noid(&["queue", "now", "03"]).ok(),
        "id: 03\nnote: 1 identifier queued\n"
    );
    assert_eq!(
        d.noid(&["queue", "first", "05", "04"]).ok(),
        "id: 05\nid: 04\nnote: 2 identifiers queued\n"
    );
    assert_eq!(
        d.noid(&["queue", "lvf", "02", "01"]).ok(),
        "id: 02\nid: 01\nnote: 2 identifiers queued\n"
    );
    assert_eq!(
        d.noid(&["queue", "1d", "07"]).ok(),
        "id: 07\nnote: 1 identifier queued\n"
    );
    assert_eq!(
        d.noid(&["queue", "delete", "04"]).ok(),
        "id: 04\nnote: 1 identifier queued\n"
    );
    // A held id cannot be queued; the line is an error and the exit status says so.
    let r = d.noid(&["queue", "now", "00"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout,
        "error: a hold has been set for \"00\" and must be released before the identifier can be queued for minting.\nnote: 0 identifiers queued\n"
    );
    let full = d.noid(&["dbinfo", "full"]);
    let q: Vec<&str> = full
        .ok()
        .lines()
        .filter(|l| l.starts_with("  :/q/"))
        .collect();
    assert_eq!(q.len(), 7, "{q:?}");
    assert_eq!(q[0], "  :/q/00000000000000/000000/00001: 01");
    assert_eq!(q[1], "  :/q/00000000000000/000000/00002: 02");
    assert_eq!(q[2], "  :/q/00000000000000/000000/00004: 04");
    assert_eq!(q[3], "  :/q/00000000000000/000001/00005: 05");
    assert_eq!(q[4], "  :/q/00000000000000/000002/00004: 04");
    assert!(full.stdout.contains("  :/queued: 7\n"));
    // lvf by value, the deleted 04 dropped, first entries FIFO (04 dropped again),
    // ripe dated entries, then generation (07 is queued for tomorrow, so skipped).
    assert_eq!(d.mint(7), ["01", "02", "05", "03", "06", "08", "09"]);
    let f = d.noid(&["fetch", "01", "x"]);
    assert!(
        undate(&f.stdout).starts_with(&format!("id:    01\nCirc:  iqi|DATE|{}|", contact())),
        "{}",
        f.stdout
    );
    let info = d.noid(&["dbinfo", "brief"]).stdout;
    assert!(info.contains("  :/queued: 1\n"), "{info}");
    assert_eq!(
        d.noid(&["hold", "release", "00"]).ok(),
        "ok: 1 hold placed\n\n"
    );
}

#[test]
fn queue_errors() {
    let d = Dir::minter(&[".sdd"]);
    d.mint(2);
    d.noid(&["queue", "now", "01"]).ok();
    let r = d.noid(&["queue", "now", "01"]);
    assert!(undate(&r.stdout).starts_with("error: id 01 cannot be queued since it appears to be in the queue already -- circ record is qi|DATE|"), "{}", r.stdout);
    let r = d.noid(&["queue", "delete", "00"]);
    assert!(undate(&r.stdout).starts_with("error: id 00 cannot be unqueued since its circ record does not indicate its being queued, circ record is i|DATE|"));
    let r = d.noid(&["queue", "soon", "00"]);
    r.failed();
    assert_eq!(r.stderr, "error: unrecognized queue time: soon\n");
    assert_eq!(r.stdout, "note: 0 identifiers queued\n");
    let r = d.noid(&["queue"]);
    assert_eq!(r.stderr, "error: queue when? (eg, first, lvf, 30d, now)\n");
    let r = d.noid(&["queue", "now"]);
    assert_eq!(r.stderr, "error: must specify at least one id to queue.\n");
}

#[test]
fn long_term_rules() {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let r = d.noid(&["bind", "set", "13030/f54x54g11", "goto", "http://x"]);
    r.failed();
    assert_eq!(
        r.stderr,
        "error: 13030/f54x54g11: \"long\" term disallows binding an unissued identifier unless a hold is first placed on it.\n"
    );
    assert_eq!(d.mint(1), ["13030/f54x54g11"]);
    let f = d.noid(&["fetch", "13030/f54x54g11"]);
    assert!(
        f.stderr
            .starts_with("id:    13030/f54x54g11 hold\nCirc:  i|"),
        "auto-hold: {f:?}"
    );
    assert!(f
        .stderr
        .ends_with("note: no elements bound under 13030/f54x54g11.\n"));
    d.noid(&["bind", "set", "13030/f54x54g11", "goto", "http://x"])
        .ok();
    // A hold lets an unissued id be bound.
    d.noid(&["hold", "set", "13030/f5154dn7k"]).ok();
    d.noid(&["bind", "set", "13030/f5154dn7k", "goto", "http://y"])
        .ok();
    // ...and makes minting skip it.
    assert_eq!(d.mint(1), ["13030/f5wd3q12m"]);
    // Long-term ids that do not validate are refused.
    let r = d.noid(&["bind", "set", "13030/f5zzzzzzz", "goto", "u"]);
    r.failed();
    assert_eq!(
        r.stderr,
        "iderr: 13030/f5zzzzzzz has a check character error\n"
    );
    let info = d.noid(&["dbinfo"]).stdout;
    assert!(info.contains("  :/held: 3\n"), "{info}");
}

#[test]
fn short_term_wraps() {
    let d = Dir::minter(&[".sd", "short"]);
    let r = d.noid(&["mint", "12"]);
    assert_eq!(
        ids(r.ok()),
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "1"]
    );
}

/// A hold on an identifier already issued does not stop minting from skipping probes
/// (`:/fresh`) until the generator wraps and meets that identifier again.
#[test]
fn holds_count_again_after_a_wrap() {
    let d = Dir::minter(&[".sd", "short"]);
    assert_eq!(ids(d.noid(&["mint", "3"]).ok()), ["0", "1", "2"]);
    d.noid(&["hold", "set", "1"]).ok();
    assert!(d.noid(&["dbinfo"]).stdout.contains("  :/fresh: 1\n"));
    assert_eq!(
        ids(d.noid(&["mint", "12"]).ok()),
        ["3", "4", "5", "6", "7", "8", "9", "0", "2", "3", "4", "5"]
    );
    assert!(!d.noid(&["dbinfo"]).stdout.contains(":/fresh"));
}

/// Queueing or holding an identifier the generator has not reached yet ends the
/// probe-free minting for good; a hold on an issued one does not.
#[test]
fn fresh_flag_lifecycle() {
    let fresh = |d: &Dir| d.noid(&["dbinfo"]).stdout.contains("  :/fresh: 1\n");
    let d = Dir::minter(&[".sdd", "medium"]);
    assert!(fresh(&d));
    d.noid(&["queue", "now", "55"]).ok();
    assert!(!fresh(&d));
    let d = Dir::minter(&[".sdd", "medium"]);
    d.noid(&["hold", "set", "42"]).ok();
    assert!(!fresh(&d));
    let d = Dir::minter(&[".sdd", "medium"]);
    d.noid(&["mint", "1"]).ok();
    d.noid(&["hold", "release", "00"]).ok();
    d.noid(&["hold", "set", "00"]).ok();
    assert!(fresh(&d));
}

#[test]
fn fetch_and_get() {
    let d = Dir::minter(&[".zd"]);
    d.mint(1);
    d.noid(&["bind", "set", "0", "a", "value a"]).ok();
    d.noid(&["bind", "set", "0", "b", "value b"]).ok();
    let f = d.noid(&["fetch", "0", "a", "b", "nope"]);
    assert_eq!(f.code, 1);
    assert_eq!(
        undate(&f.stdout),
        format!("id:    0\nCirc:  i|DATE|{}|1\na: value a\nb: value b\nerror: \"0 nope\" is not bound.\n\n", contact())
    );
    let f = d.noid(&["fetch", "0"]);
    assert!(f.ok().ends_with("a: value a\nb: value b\n\n"));
    assert_eq!(d.noid(&["get", "0", "b", "a"]).ok(), "value b\nvalue a\n");
    assert_eq!(d.noid(&["get", "0"]).ok(), "value a\nvalue b\n");
    let g = d.noid(&["get", "0", "nope", "a"]);
    assert_eq!(g.stdout, "\nvalue a\n");
    let g = d.noid(&["get", "1"]);
    g.failed();
    assert_eq!(g.stderr, "note: no elements bound under 1.\n");
    let g = d.noid(&["get"]);
    assert_eq!(
        g.stderr,
        "error: get requires that an identifier be specified.\n"
    );
    // Perl truthiness: a stored "0" reads as unbound.
    d.noid(&["bind", "set", "0", "zero", "0"]).ok();
    assert_eq!(d.noid(&["get", "0", "zero"]).stdout, "\n");
}

#[test]
fn notes_and_dbinfo() {
    let d = Dir::minter(&[".sd"]);
    let r = d.noid(&["note", "color", "blue"]);
    assert_eq!(r.ok(), "");
    let info = d.noid(&["dbinfo"]).stdout;
    assert!(
        info.starts_with(
            "User Assigned Values\n  :/:/color: blue\n\nAdmin Values\n  :/:/color: blue\n"
        ),
        "{info}"
    );
    assert!(!info.contains(":/c0/"), "brief hides counters");
    let r = d.noid(&["note", "x"]);
    r.failed();
    assert_eq!(
        r.stderr,
        "You must supply a key and a value.\nSorry: no information on \"note/brief\".\n\n"
    );
}

#[test]
fn bulk_mode() {
    let d = Dir::minter(&[".sd"]);
    let input = b"mint 2\nbind set 0 a 'x y'\nget 0 a\nhello\nfetch 0 a\n";
    let r = d.noid_stdin(&["-"], input);
    assert_eq!(
        undate(r.ok()),
        format!(
            "id: 0\nid: 1\n\nId:      0\nElement: a\nBind:    set\nStatus:  ok, 3 bytes written, replacing 0 bytes\n\nx y\nHello.\nid:    0\nCirc:  i|DATE|{}|1\na: x y\n\n",
            contact()
        )
    );
    // A failing command in the middle does not undo the others, but sets the exit status.
    let r = d.noid_stdin(&["-"], b"bind new 0 b 1\nbind new 0 b 2\nget 0 b\n");
    assert_eq!(r.code, 1);
    assert!(r.stdout.ends_with("\n1\n"), "{}", r.stdout);
}

#[test]
fn peppermint() {
    let d = Dir::minter(&[".sdd"]);
    let r = d.noid(&["peppermint", "1"]);
    let id = ids(r.ok())[0].clone();
    let (base, pepper) = id.split_once('!').expect("peppered id");
    assert_eq!(base, "00");
    assert_eq!(pepper.len(), 8);
    let r = d.noid(&["bind", "set", "00", "a", "v"]);
    r.failed();
    assert_eq!(
        r.stderr,
        "error: 00: identifier is peppered; changes require the peppered form 00!PEPPER.\n"
    );
    let r = d.noid(&["bind", "set", "00!wrong", "a", "v"]);
    assert_eq!(r.stderr, "error: 00: wrong pepper.\n");
    d.noid(&["bind", "set", &id, "a", "v"]).ok();
    assert_eq!(d.noid(&["get", "00", "a"]).ok(), "v\n");
}

/// `peppermint N ELEM VALUE` binds each new peppered identifier (it failed before
/// printing any: the bind named the identifier without its pepper).
#[test]
fn peppermint_binds_each_new_identifier() {
    let d = Dir::minter(&[".sdd"]);
    let minted = ids(d.noid(&["peppermint", "2", "who", "Jane Doe"]).ok());
    assert_eq!(minted.len(), 2);
    for (id, base) in minted.iter().zip(["00", "01"]) {
        assert_eq!(id.split_once('!').map(|(b, _)| b), Some(base), "{id}");
        assert_eq!(d.noid(&["get", id, "who"]).ok(), "Jane Doe\n");
    }
}

/// A short-term random minter that wraps inside one command and ends it with
/// `:/oacounter` back at the value it had at the start must still store its
/// re-initialised counters: minting in two commands gives the same identifiers as in
/// one, and `check` finds nothing wrong.
#[test]
fn a_wrap_within_one_command_stores_the_new_counters() {
    let once = Dir::minter(&[".rd", "short"]);
    let all = once.mint(18);
    let twice = Dir::minter(&[".rd", "short"]);
    let mut split = twice.mint(3);
    split.extend(twice.mint(10));
    assert!(twice
        .noid(&["check"])
        .ok()
        .ends_with("ok: no problems found\n"));
    split.extend(twice.mint(5));
    assert_eq!(split, all);
}
