//! The last-write record `ID<TAB>:/m` (issue 19: `Last-Modified` in `noidr --http`):
//! written by every binding path, never shown by Perl Noid's reads, and only where
//! something was written.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::util::Dir;

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The identifiers that have a `:/m` record, each with its time, from `dbinfo dump`.
fn records(d: &Dir) -> Vec<(String, u64)> {
    let dump = d.noid(&["dbinfo", "dump"]);
    dump.ok()
        .lines()
        .filter_map(|l| {
            let (id, t) = l.split_once("\t:/m: ")?;
            Some((id.to_string(), t.parse().expect("seconds")))
        })
        .collect()
}

#[test]
fn every_binding_path_records_the_time_of_its_write() {
    let d = Dir::minter(&[]);
    let minter = Dir::minter(&["tst1.sdd", "short"]);
    let before = now();
    d.noid(&["bind", "set", "x", "_t", "https://e.org/x"]).ok();
    d.noid(&["x.set", "who", "W"]).ok(); // egg, as the binder API runs it
    d.noid_stdin(&["-"], b"bind add y note n1\nz.add a b\nz.incr n\n")
        .ok();
    d.noid(&["bind", "set", ":idmap/^q", "_t", "https://e.org/"])
        .ok();
    minter.noid(&["mint", "1", "note", "minted"]).ok();
    minter.noid(&["bind", "mint", "new", "note", "minted"]).ok();
    let after = now();
    for (d, want) in [(&d, &["x", "y", "z"][..]), (&minter, &["tst100", "tst101"])] {
        let got = records(d);
        let ids: Vec<&str> = got.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, want, "{got:?}");
        for (id, t) in &got {
            assert!(
                (before..=after).contains(t),
                "{id}: {before} <= {t} <= {after}"
            );
        }
    }
}

#[test]
fn removing_nothing_writes_nothing() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "purge", "gone", "_t"]).ok();
    d.noid(&["bind", "delete", "gone", "_t"]).failed();
    d.noid(&["gone.rm", "_t"]).ok();
    d.noid(&["gone.purge"]).ok();
    assert_eq!(records(&d), []);
    d.noid(&["bind", "set", "here", "_t", "T"]).ok();
    d.noid(&["here.purge"]).ok();
    // The record outlives the bindings (a purge is a write too) and is never shown.
    assert_eq!(records(&d).len(), 1);
    assert_eq!(d.noid(&["here.exists"]).ok(), "0\n\n");
}

#[test]
fn perl_noid_reads_do_not_show_it() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "set", "x", "_t", "T"]).ok();
    d.noid(&["bind", "set", "x", "who", "W"]).ok();
    assert_eq!(d.noid(&["get", "x", "_t", "who"]).ok(), "T\nW\n");
    for read in [
        &["get", "x"][..],
        &["fetch", "x"],
        &["x.fetch"],
        &["--", "--all", "x.fetch"],
    ] {
        let out = d.noid(read);
        assert!(!out.ok().contains(":/m"), "{read:?}: {out:?}");
        assert!(out.stdout.contains('W'), "{read:?}: {out:?}");
    }
    assert_eq!(
        d.noid(&["x.fetch"]).ok(),
        "# id: x\n_t: T\nwho: W\n# elements bound under x: 2\n\n"
    );
}
