//! Minters made by Perl Noid 0.424 itself (`tests/fixtures/perl-noid-0.424/`: the
//! `db_dump -p` text of each `noid.bdb`, and the 30 identifiers Perl minted next from
//! a copy of it): imported from the BerkeleyDB file and from the dump text, checked,
//! minted from (the next 30 must be Perl's, in order), repaired after a rollback, and
//! exported back to BerkeleyDB. The expected outputs come from the fixtures and their
//! README (what Perl was asked to do), not from noid.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::old_minters::*;
use crate::util::*;

const SET: Set = Set::Perl;

/// Each fixture, and import's summary of it: the template, generator type, term and
/// `:/oacounter` stored in its dump (see the fixtures' README for how each was made).
const FIXTURES: &[(&str, &str)] = &[
    (
        "random-long",
        "template f5.reedeedk (random, long term), :/oacounter 25",
    ),
    (
        "sequential-medium",
        "template tst3.sdd (sequential, medium term), :/oacounter 40",
    ),
    (
        "random-short",
        "template .rd (random, short term), :/oacounter 7",
    ),
    (
        "unbounded-long",
        "template b.zdek (sequential, long term), :/oacounter 300",
    ),
];

/// What `noid mint N` prints for Perl's next identifiers.
fn mint_output(ids: &[&str]) -> String {
    let mut out: String = ids.iter().map(|id| format!("id: {id}\n")).collect();
    out.push('\n');
    out
}

/// `noid check` on `dir`: it must find nothing wrong.
fn assert_check_clean(dir: &std::path::Path, what: &str) {
    let c = noid_raw(dir, &["check"], b"", None);
    let out = String::from_utf8_lossy(&c.stdout).into_owned();
    assert_eq!((c.code, c.stderr.as_str()), (0, ""), "{what}: {out}");
    assert!(out.ends_with("\nok: no problems found\n"), "{what}: {out}");
}

#[test]
fn perl_noid_minters_import_whole_check_clean_and_mint_on_as_perl_did() {
    for (name, summary) in FIXTURES {
        let old = SET.bdb_minter(name);
        let bdb = old.path().join("NOID/noid.bdb").display().to_string();
        let dump = SET.dump(name).display().to_string();
        let (expected, n) = SET.expected_dump(name);
        let next = SET.next(name);
        let next: Vec<&str> = next.lines().collect();
        assert_eq!(next.len(), 30, "{name}.next");
        for from in [&bdb, &dump] {
            let tmp = Dir::new();
            let new = tmp.path().join("new");
            let r = import(&new, from, b"");
            assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{name} from {from}");
            assert_eq!(
                String::from_utf8_lossy(&r.stdout),
                ok_line(n, from, summary),
                "{name}"
            );
            assert!(
                dbinfo_dump(&new) == expected,
                "{name} from {from}: dbinfo dump differs from Perl's records"
            );
            assert_check_clean(&new, name);
            let m = noid_raw(&new, &["mint", "30"], b"", None);
            assert_eq!((m.code, m.stderr.as_str()), (0, ""), "{name}");
            assert_eq!(
                String::from_utf8_lossy(&m.stdout),
                mint_output(&next),
                "{name} from {from}: the next 30 are not Perl's"
            );
            assert_check_clean(&new, &format!("{name} after 30 mints"));
        }
    }
}

/// The minter as it was restored from a backup taken before `k` mints, while the
/// records of those mints survived: its generator's admin values (counters, counter
/// lists, `:/oacounter`) are the imported ones, its records those after the mints.
fn rolled_back(name: &str, k: usize) -> (Dir, std::path::PathBuf) {
    let tmp = Dir::new();
    let first = tmp.path().join("first");
    assert_eq!(
        import(&first, &SET.dump(name).display().to_string(), b"").code,
        0
    );
    let backup = noid_raw(&first, &["export"], b"", None).stdout;
    let m = noid_raw(&first, &["mint", &k.to_string()], b"", None);
    assert_eq!(m.code, 0, "{name}: {}", m.stderr);
    let now = noid_raw(&first, &["export"], b"", None).stdout;
    let generator = |l: &&str| {
        l.starts_with(":/c")
            || l.starts_with(":/oacounter\t")
            || l.starts_with(":/saclist\t")
            || l.starts_with(":/siclist\t")
    };
    let backup = String::from_utf8(backup).unwrap();
    let old: Vec<(&str, &str)> = backup
        .lines()
        .filter(generator)
        .map(|l| l.split_once('\t').unwrap())
        .collect();
    let rolled = edit_export(&now, &old);
    let restored = tmp.path().join("restored");
    let r = import(&restored, "-", &rolled);
    assert_eq!(r.code, 0, "{name}: {}", r.stderr);
    (tmp, restored)
}

#[test]
fn check_repairs_a_perl_minter_whose_generator_was_rolled_back() {
    // (fixture, mints before the rollback, of which the generator made)
    for (name, k, generated) in [
        ("random-long", 5, 5),
        // Its first mint comes from the queue, not the generator.
        ("sequential-medium", 5, 4),
        ("unbounded-long", 5, 5),
    ] {
        let next = SET.next(name);
        let next: Vec<&str> = next.lines().collect();
        let (_tmp, m) = rolled_back(name, k);
        let c = noid_raw(&m, &["check"], b"", None);
        let out = String::from_utf8_lossy(&c.stdout).into_owned();
        assert_eq!(
            (c.code, c.stderr.as_str()),
            (
                1,
                "error: 1 problem found; \"noid check --repair\" repairs it\n"
            ),
            "{name}: {out}"
        );
        assert!(
            out.contains(&format!(
                "\nproblem: {generated} of the next 10 identifiers the generator will produce are already issued or bound: the counters are behind the store (an outdated minter?)\n"
            )),
            "{name}: {out}"
        );
        for id in &next[k - generated..k] {
            assert!(
                out.contains(&format!("next:        {id} ALREADY ISSUED")),
                "{name}: {id} is not reported issued: {out}"
            );
        }
        let r = noid_raw(&m, &["check", "--repair"], b"", None);
        let out = String::from_utf8_lossy(&r.stdout).into_owned();
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{name}: {out}");
        let s = if generated == 1 { "" } else { "s" };
        assert!(
            out.ends_with(&format!(
                "repaired: the generator skipped {generated} identifier{s} ({generated} already used)\nok: 1 problem repaired\n"
            )),
            "{name}: {out}"
        );
        assert_check_clean(&m, name);
        let rest = noid_raw(&m, &["mint", &(30 - k).to_string()], b"", None);
        assert_eq!(
            String::from_utf8_lossy(&rest.stdout),
            mint_output(&next[k..]),
            "{name}: after the repair, minting does not go on as Perl's did"
        );
    }
}

#[test]
fn a_perl_minter_exported_as_dbdump_loads_back_into_berkeleydb_as_it_was() {
    db_util();
    for (name, _) in FIXTURES {
        let tmp = Dir::new();
        let m = tmp.path().join("m");
        assert_eq!(
            import(&m, &SET.dump(name).display().to_string(), b"").code,
            0
        );
        let e = noid_raw(&m, &["export", "dbdump"], b"", None);
        assert_eq!((e.code, e.stderr.as_str()), (0, ""), "{name}");
        let bdb = tmp.path().join("back.bdb");
        let mut load = Command::new("db_load")
            .arg(&bdb)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        load.stdin.take().unwrap().write_all(&e.stdout).unwrap();
        assert!(load.wait().unwrap().success(), "{name}: db_load refused");
        let back = Command::new("db_dump")
            .arg("-p")
            .arg(&bdb)
            .output()
            .unwrap();
        assert!(
            back.stdout == std::fs::read(SET.dump(name)).unwrap(),
            "{name}: db_dump of the exported minter differs from Perl's"
        );
    }
}
