//! `import`, `export` and `check` against the modelled minters (`old_minters`,
//! `Set::Modelled`: made by noid's own generator from a model of Perl Noid's sessions):
//! BerkeleyDB files built with Debian's `db_load` from their dumps, imported, compared
//! key for key, minted from, exported and imported again. The minters Perl Noid
//! itself made are `perl_minters.rs`'s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::old_minters::*;
use crate::util::*;

const FIXTURES: &[&str] = &[
    "f5-after-3",
    "random-long",
    "sequential-medium",
    "unbounded-long",
    "random-short",
    "bind-only",
];

const SET: Set = Set::Modelled;

fn fixture(name: &str) -> PathBuf {
    SET.dump(name)
}

fn modelled_minter(name: &str) -> Dir {
    SET.bdb_minter(name)
}

fn expected_dump(name: &str) -> (Vec<u8>, usize) {
    SET.expected_dump(name)
}

/// A path under a fresh temporary directory for a new minter (not yet created).
fn new_dbdir(tmp: &Dir) -> PathBuf {
    tmp.path().join("new")
}

fn summary(name: &str) -> &'static str {
    match name {
        "f5-after-3" => "template f5.reedeedk (random, long term), :/oacounter 3",
        "random-long" => "template f5.reedeedk (random, long term), :/oacounter 3",
        "sequential-medium" => "template bt.sddk (sequential, medium term), :/oacounter 12",
        "unbounded-long" => "template tb7r.zdd (sequential, long term), :/oacounter 105",
        "random-short" => "template .rdd (random, short term), :/oacounter 98",
        "bind-only" => "template .zd (sequential, medium term), :/oacounter 1",
        _ => unreachable!(),
    }
}

fn assert_nothing_created(parent: &Dir, dbdir: &Path) {
    assert!(!dbdir.exists(), "{} was left behind", dbdir.display());
    let leftovers: Vec<_> = std::fs::read_dir(parent.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        leftovers.is_empty() || leftovers.iter().all(|n| n == "old"),
        "left behind: {leftovers:?}"
    );
}

#[test]
fn modelled_minters_import_whole_and_mint_on_as_the_model_does() {
    for name in FIXTURES {
        let old = modelled_minter(name);
        let tmp = Dir::new();
        let new = new_dbdir(&tmp);
        let from = old.path().join("NOID").display().to_string();
        let r = import(&new, &from, b"");
        let (expected, n) = expected_dump(name);
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            ok_line(n, &from, summary(name)),
            "{name}"
        );
        assert!(
            dbinfo_dump(&new) == expected,
            "{name}: dbinfo dump differs from the fixture"
        );
        assert_eq!(
            std::fs::read_to_string(new.join("NOID/README")).unwrap(),
            format!("README of the {name} minter\n")
        );
        let log = std::fs::read_to_string(new.join("NOID/log")).unwrap();
        assert!(
            log.starts_with("Creating database for template \"x\".\n")
                && log.contains(&format!("imported {n} keys from {from}")),
            "{log}"
        );
        let c = noid_raw(&new, &["check"], b"", None);
        let out = String::from_utf8_lossy(&c.stdout).into_owned();
        assert_eq!((c.code, c.stderr.as_str()), (0, ""), "{name}: {out}");
        assert!(out.ends_with("ok: no problems found\n"), "{name}: {out}");
        // The next mints are the ones the model makes from the same state.
        let want = SET.next(name);
        let m = noid_raw(
            &new,
            &["mint", &want.lines().count().to_string()],
            b"",
            None,
        );
        assert_eq!((m.code, m.stderr.as_str()), (0, ""), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&m.stdout),
            format!("{want}\n"),
            "{name}"
        );
    }
}

#[test]
fn the_fourth_id_of_an_imported_f5_minter_is_the_fourth_of_a_fresh_one() {
    let fresh = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let four = fresh.mint(4);
    assert_eq!(
        &four[..3],
        ["13030/f54x54g11", "13030/f5154dn7k", "13030/f5wd3q12m"]
    );
    let old = modelled_minter("f5-after-3");
    let tmp = Dir::new();
    let new = new_dbdir(&tmp);
    assert_eq!(
        import(
            &new,
            &old.path().join("NOID/noid.bdb").display().to_string(),
            b""
        )
        .code,
        0
    );
    let m = noid_raw(&new, &["mint", "1"], b"", None);
    assert_eq!(
        String::from_utf8_lossy(&m.stdout),
        format!("id: {}\n\n", four[3])
    );
    assert_eq!(four[3], "13030/f5rn30687");
}

#[test]
fn every_kind_of_path_imports_the_same_minter() {
    let name = "random-long";
    let old = modelled_minter(name);
    let (expected, n) = expected_dump(name);
    let text = std::fs::read(fixture(name)).unwrap();
    let erc = {
        let (_, recs) = noid_migrate::dump::read_all(&text[..]).unwrap();
        recs.into_iter().find(|r| r.key == b":/erc").unwrap().value
    };
    let bdb = old.path().join("NOID/noid.bdb").display().to_string();
    let dump = fixture(name).display().to_string();
    let parent = old.path().display().to_string();
    for (from, input, readme) in [
        (
            bdb.as_str(),
            &b""[..],
            format!("README of the {name} minter\n").into_bytes(),
        ),
        (
            parent.as_str(),
            &b""[..],
            format!("README of the {name} minter\n").into_bytes(),
        ),
        (dump.as_str(), &b""[..], erc.clone()),
        ("-", &text[..], erc.clone()),
    ] {
        let tmp = Dir::new();
        let new = new_dbdir(&tmp);
        let r = import(&new, from, input);
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{from}");
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            ok_line(n, from, summary(name))
        );
        assert!(dbinfo_dump(&new) == expected, "{from}: dbinfo dump differs");
        assert_eq!(
            std::fs::read(new.join("NOID/README")).unwrap(),
            readme,
            "{from}"
        );
    }
}

#[test]
fn export_then_import_round_trips_every_fixture_in_both_formats() {
    db_util();
    for name in FIXTURES {
        let tmp = Dir::new();
        let first = tmp.path().join("first");
        assert_eq!(
            import(&first, &fixture(name).display().to_string(), b"").code,
            0
        );
        let (expected, _) = expected_dump(name);
        for format in ["noid", "dbdump"] {
            let e = noid_raw(&first, &["export", format], b"", None);
            assert_eq!((e.code, e.stderr.as_str()), (0, ""), "{name} {format}");
            let again = tmp.path().join(format!("again-{format}"));
            let r = import(&again, "-", &e.stdout);
            assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{name} {format}");
            assert!(
                dbinfo_dump(&again) == expected,
                "{name} {format}: round trip differs"
            );
            let e2 = noid_raw(&again, &["export", format], b"", None);
            assert!(
                e2.stdout == e.stdout,
                "{name} {format}: second export differs"
            );
        }
        // The dbdump export goes back into BerkeleyDB: db_load reads it, and db_dump
        // then prints exactly the fixture (what it printed for the modelled minter).
        let e = noid_raw(&first, &["export", "dbdump"], b"", None);
        let bdb = tmp.path().join("back.bdb");
        let mut load = Command::new("db_load")
            .arg(&bdb)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        load.stdin.take().unwrap().write_all(&e.stdout).unwrap();
        assert!(
            load.wait().unwrap().success(),
            "{name}: db_load refused the export"
        );
        let back = Command::new("db_dump")
            .arg("-p")
            .arg(&bdb)
            .output()
            .unwrap();
        assert!(
            back.stdout == std::fs::read(fixture(name)).unwrap(),
            "{name}: db_dump of the exported minter differs"
        );
    }
}

#[test]
fn the_export_format_is_readable_text() {
    let tmp = Dir::new();
    let d = tmp.path().join("m");
    assert_eq!(
        import(&d, &fixture("random-long").display().to_string(), b"").code,
        0
    );
    let e = noid_raw(&d, &["export"], b"", None);
    let text = String::from_utf8(e.stdout).unwrap();
    assert!(
        text.starts_with(
            "# noid export v1\n13030/f5154dn7k\\t:/c\tuqi|20241105093011|jak/staff|3\n"
        ),
        "{}",
        &text[..200]
    );
    assert!(
        text.contains("13030/f5154dn7k\\tblob\t\\x00\\x01\\x02\\xff\\xfe\\tbinary\\r\\n\\\\end\n")
    );
    assert!(
        text.contains("13030/f54x54g11\\tnote\tline one\\nline two\\n  indented line three\\n\n")
    );
    assert!(text.contains("13030/f5wd3q12m\\ttitle\tCaf\u{e9} \u{2603} \u{65e5}\u{672c}\n"));
    assert!(text.contains(":/:/comment\tfirst line\\nsecond\\tline\n"));
    assert!(text.ends_with(":/wrap\t\n# end 637\n"));
    let r = noid_raw(&d, &["export", "xml"], b"", None);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "error: export format must be \"noid\" or \"dbdump\" (got \"xml\")\n"
        )
    );
}

/// Import `input` (as stdin) or `from`, expecting failure with exactly `stderr`,
/// and nothing left behind.
fn refused(from: &str, input: &[u8], path_env: Option<&str>, stderr: &str) {
    let tmp = Dir::new();
    let new = new_dbdir(&tmp);
    let r = noid_raw(&new, &["import", from], input, path_env);
    assert_eq!(
        (r.code, r.stderr.as_str(), r.stdout.as_slice()),
        (1, stderr, &b""[..]),
        "{from}"
    );
    assert_nothing_created(&tmp, &new);
}

#[test]
fn bad_input_gives_clear_errors_and_creates_nothing() {
    db_util();
    let text = std::fs::read_to_string(fixture("sequential-medium")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Truncated in the middle of the data.
    let cut = lines[..101].join("\n") + "\n";
    refused("-", cut.as_bytes(), None, "error: -: line 102: the dump is truncated: end of input before DATA=END; nothing was imported\n");
    // A key whose value line is missing at the end.
    let cut = lines[..100].join("\n") + "\n";
    refused("-", cut.as_bytes(), None, "error: -: line 101: the dump is truncated: the key on line 100 has no value; nothing was imported\n");
    // A damaged escape.
    let mut bad = lines.clone();
    bad[30] = " bt07\\9:/c";
    refused(
        "-",
        (bad.join("\n") + "\n").as_bytes(),
        None,
        "error: -: line 31: bad escape \"\\9:\" (expected \\\\ or \\ and two hex digits); nothing was imported\n",
    );
    // A damaged export: its end line does not match.
    refused(
        "-",
        b"# noid export v1\n:/version\t0.424\n# end 7\n",
        None,
        "error: -: line 3: the export is damaged: its end line \"# end 7\" does not match the 1 record read; nothing was imported\n",
    );
    // Something that is not a minter at all, and a minter missing essential keys.
    refused(
        "-",
        b"VERSION=3\nformat=print\ntype=btree\nHEADER=END\n apple\n 1\n pear\n 2\nDATA=END\n",
        None,
        "error: -: not a Noid minter: none of the keys :/version, :/template, :/mask, :/generator_type, :/oacounter, :/oatop, :/total is present (2 records read; is this the dump of some other database?); nothing was imported\n",
    );
    refused(
        "-",
        b"VERSION=3\nformat=print\ntype=btree\nHEADER=END\n :/template\n .zd\n :/version\n 0.424\nDATA=END\n",
        None,
        "error: -: not a complete Noid minter: the dump lacks :/mask, :/generator_type, :/oacounter, :/oatop, :/total (2 records read); nothing was imported\n",
    );
    refused("-", b"", None, "error: -: line 1: the input is empty (expected a db_dump header or \"# noid export v1\"); nothing was imported\n");
    // Not a dump at all.
    let tmp = Dir::new();
    let junk = tmp.path().join("junk.txt");
    std::fs::write(&junk, "hello, world\n").unwrap();
    let j = junk.display().to_string();
    refused(&j, b"", None, &format!("error: {j}: not a Noid minter: neither a BerkeleyDB database nor db_dump -p or noid export text\n"));
    refused(
        "/nonexistent/x",
        b"",
        None,
        "error: /nonexistent/x: No such file or directory (os error 2)\n",
    );
    let empty_dir = tmp.path().join("emptydir");
    std::fs::create_dir(&empty_dir).unwrap();
    let e = empty_dir.display().to_string();
    refused(
        &e,
        b"",
        None,
        &format!("error: {e}: no noid.bdb in this directory (nor in {e}/NOID)\n"),
    );
}

#[test]
fn berkeleydb_problems_give_clear_errors() {
    let old = modelled_minter("bind-only");
    let bdb = old.path().join("NOID/noid.bdb").display().to_string();
    // No db_dump on PATH.
    let empty = Dir::new();
    refused(
        &bdb,
        b"",
        Some(&empty.path().display().to_string()),
        "error: db_dump not found; install Debian's db-util or pass a db_dump -p text file\n",
    );
    // A BerkeleyDB file of another database.
    let tmp = Dir::new();
    let other = tmp.path().join("other.bdb");
    let mut load = Command::new("db_load")
        .arg(&other)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    load.stdin
        .take()
        .unwrap()
        .write_all(b"VERSION=3\nformat=print\ntype=btree\nHEADER=END\n apple\n 1\nDATA=END\n")
        .unwrap();
    assert!(load.wait().unwrap().success());
    let o = other.display().to_string();
    refused(
        &o,
        b"",
        None,
        &format!("error: {o}: not a Noid minter: none of the keys :/version, :/template, :/mask, :/generator_type, :/oacounter, :/oatop, :/total is present (1 record read; is this the dump of some other database?); nothing was imported\n"),
    );
    // A damaged BerkeleyDB file: db_dump's own complaint is shown.
    let bytes = std::fs::read(&bdb).unwrap();
    let broken = tmp.path().join("broken.bdb");
    std::fs::write(&broken, &bytes[..2048]).unwrap();
    let b = broken.display().to_string();
    refused(
        &b,
        b"",
        None,
        &format!("error: db_dump failed (exit status: 1): db_dump: BDB3037 {b}: file size not a multiple of the pagesize; db_dump: BDB5115 open: {b}: Invalid argument\n"),
    );
}

#[test]
fn import_refuses_to_overwrite_a_store() {
    let d = Dir::minter(&[".sdd"]);
    d.mint(2);
    let before = dbinfo_dump(d.path());
    let r = noid_raw(
        d.path(),
        &["import", &fixture("bind-only").display().to_string()],
        b"",
        None,
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        format!(
            "error: a NOID database already exists in \"{}\".\n\tTo import into it, rename or remove the entire NOID subdirectory, or choose another Dbdir with -f.\n",
            d.path().display()
        )
    );
    assert!(dbinfo_dump(d.path()) == before);
}

#[test]
fn an_interrupted_import_leaves_no_store() {
    let tmp = Dir::new();
    let new = new_dbdir(&tmp);
    let text = std::fs::read(fixture("random-long")).unwrap();
    let mut child = Command::new(noid_exe())
        .arg("-f")
        .arg(&new)
        .args(["import", "-"])
        .env_remove("NOID")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&text[..text.len() / 2]).unwrap();
    stdin.flush().unwrap();
    // Let it load what it has, then kill it hard.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pid = child.id();
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
    assert!(
        !new.join("NOID").exists(),
        "a half store was left in {}",
        new.display()
    );
    let staged = new.join(format!(".NOID.import-{pid}"));
    assert!(
        staged.exists(),
        "the staging directory is where it is expected"
    );
    // The next import works, and clears away what the killed one left.
    let r = import(&new, &fixture("random-long").display().to_string(), b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!staged.exists());
    assert!(dbinfo_dump(&new) == expected_dump("random-long").0);
}

fn check(dir: &Path, repair: bool) -> (i32, String, String) {
    let args: &[&str] = if repair {
        &["check", "--repair"]
    } else {
        &["check"]
    };
    let r = noid_raw(dir, args, b"", None);
    (
        r.code,
        String::from_utf8_lossy(&r.stdout).into_owned(),
        r.stderr,
    )
}

#[test]
fn check_reports_a_healthy_modelled_minter() {
    let tmp = Dir::new();
    let d = tmp.path().join("m");
    assert_eq!(
        import(&d, &fixture("random-long").display().to_string(), b"").code,
        0
    );
    let (code, out, err) = check(&d, false);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "template:    f5.reedeedk (random, long term)
minted:      :/oacounter 3; circulation records: 0 issued, 4 queued, 1 unqueued
held:        3
queued:      6
left:        70728097
bindings:    6 on 3 identifiers, 2 :idmap rules, 2 notes
next:        13030/f5rn30687 free
next:        13030/f5mw28d43 held (mint skips it)
next:        13030/f5h41jm08 free
next:        13030/f5cc0ts6h queued (mint skips it; it comes out of the queue)
next:        13030/f57p8tc5j free
next:        13030/f53x83k1s queued (mint skips it; it comes out of the queue)
next:        13030/f5057cr7b free
next:        13030/f5vd6p42c free
next:        13030/f5qn5z98m free
next:        13030/f5kw57h4v free
ok: no problems found
"
    );
}

#[test]
fn check_finds_and_repairs_an_outdated_minter() {
    // A minter whose generator state was restored from a backup taken before five
    // mints, while the circulation records of those mints survived.
    let d = Dir::minter(&[".rddd"]);
    let backup = noid_raw(d.path(), &["export"], b"", None).stdout;
    assert_eq!(d.mint(5), ["169", "041", "913", "781", "653"]);
    let now = noid_raw(d.path(), &["export"], b"", None).stdout;
    let admin_of = |export: &[u8]| -> Vec<(String, String)> {
        String::from_utf8(export.to_vec())
            .unwrap()
            .lines()
            .filter(|l| {
                l.starts_with(":/c")
                    || l.starts_with(":/oacounter\t")
                    || l.starts_with(":/saclist\t")
                    || l.starts_with(":/siclist\t")
            })
            .map(|l| {
                let (k, v) = l.split_once('\t').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect()
    };
    let old = admin_of(&backup);
    let changes: Vec<(&str, &str)> = old.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let rolled = edit_export(&now, &changes);
    let tmp = Dir::new();
    let m = tmp.path().join("m");
    assert_eq!(import(&m, "-", &rolled).code, 0);
    let (code, out, err) = check(&m, false);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: 1 problem found; \"noid check --repair\" repairs it\n"
    );
    let tail: Vec<&str> = out.lines().skip(6).collect();
    let contact = contact();
    let expect_issued = |id: &str, n: u32| {
        format!("next:        {id} ALREADY ISSUED (circulation record i|DATE|{contact}|{n})")
    };
    assert_eq!(undate(tail[0]), expect_issued("169", 1));
    assert_eq!(undate(tail[4]), expect_issued("653", 5));
    assert_eq!(tail[5], "next:        525 free");
    assert_eq!(
        tail[10],
        "problem: 5 of the next 10 identifiers the generator will produce are already issued or bound: the counters are behind the store (an outdated minter?)"
    );
    let (code, out, err) = check(&m, true);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        out.ends_with("repaired: the generator skipped 5 identifiers (5 already used)\nok: 1 problem repaired\n"),
        "{out}"
    );
    let (code, out, _) = check(&m, false);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        noid_raw(&m, &["mint", "2"], b"", None).stdout,
        b"id: 525\nid: 393\n\n"
    );
}

#[test]
fn check_repairs_counts_and_bound_unissued_identifiers() {
    let d = Dir::minter(&[".sdd"]);
    d.mint(3);
    assert_eq!(d.noid(&["hold", "set", "50"]).code, 0);
    // Medium term allows binding an identifier that was never issued: the next one.
    assert_eq!(d.noid(&["bind", "set", "03", "goto", "x"]).code, 0);
    let export = noid_raw(d.path(), &["export"], b"", None).stdout;
    let broken = edit_export(&export, &[(":/held", "4"), (":/queued", "2")]);
    let tmp = Dir::new();
    let m = tmp.path().join("m");
    assert_eq!(import(&m, "-", &broken).code, 0);
    let (code, out, err) = check(&m, false);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: 3 problems found; \"noid check --repair\" repairs them\n"
    );
    assert!(
        out.contains("next:        03 ALREADY BOUND (1 element) but never issued\n"),
        "{out}"
    );
    assert!(
        out.contains("problem: :/held is 4 but 1 identifier is held\n"),
        "{out}"
    );
    assert!(
        out.contains("problem: :/queued is 2 but the queue holds 0 entries\n"),
        "{out}"
    );
    let (code, out, _) = check(&m, true);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("repaired: :/held set to 1\nrepaired: :/queued set to 0\nrepaired: the generator skipped 1 identifier (1 already used)\nok: 3 problems repaired\n"), "{out}");
    assert_eq!(
        noid_raw(&m, &["mint", "1"], b"", None).stdout,
        b"id: 04\n\n"
    );
    assert_eq!(check(&m, false).0, 0);
}

#[test]
fn check_needs_a_minter() {
    let tmp = Dir::new();
    let r = noid_raw(tmp.path(), &["check"], b"", None);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.starts_with(&format!(
            "error: no database ({}/NOID/noid.bdb) -- use dbcreate?",
            tmp.path().display()
        )),
        "{}",
        r.stderr
    );
    let r = noid_raw(tmp.path(), &["export"], b"", None);
    assert_eq!(r.code, 1);
    let d = Dir::minter(&[".sdd"]);
    let r = noid_raw(d.path(), &["check", "--bogus"], b"", None);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (1, "error: check takes [--repair] [N], not \"--bogus\"\n")
    );
}

#[test]
fn port_commands_in_bulk_and_web_modes() {
    let d = Dir::minter(&[".sdd"]);
    d.mint(2);
    // Bulk: export and check run after the pending writes are committed.
    let r = d.noid_stdin(&["-"], b"mint 1\nexport\ncheck\n");
    let out = r.ok();
    assert!(out.starts_with("id: 02\n\n# noid export v1\n"), "{out}");
    assert!(out.contains("00\\t:/c\ti|"), "{out}");
    assert!(out.ends_with("ok: no problems found\n"), "{out}");
    // Web: import and repairs are refused; check and export are read-only and allowed.
    let top = Dir::new();
    let m = top.path().join("m");
    assert_eq!(noid_raw(&m, &["dbcreate", ".sdd"], b"", None).code, 0);
    let link = top.path().join("noidu_m");
    std::os::unix::fs::symlink(noid_exe(), &link).unwrap();
    let web = |query: &str| {
        let mut cmd = Command::new(&link);
        cmd.current_dir(top.path()).env("QUERY_STRING", query);
        run(cmd, b"")
    };
    let r = web("import+/etc/passwd");
    assert!(
        r.stdout.starts_with(
            "Content-Type: text/plain\n\nerror: command \"import\" not allowed in URL interface.\n"
        ),
        "{}",
        r.stdout
    );
    let r = web("check+--repair");
    assert!(
        r.stdout
            .contains("error: \"check --repair\" not allowed in URL interface.\n"),
        "{}",
        r.stdout
    );
    let r = web("check");
    assert!(
        r.stdout.ends_with("ok: no problems found\n"),
        "{}",
        r.stdout
    );
}
