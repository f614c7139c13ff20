//! Both line protocols over a real pipe against a real store: every resolver vector of
//! `conformance-public.md`, chopping, placeholders, codes, `:idmap`, framing.

use crate::eqnice;
use crate::util::{Minter, Noidr};

/// Ask each (request, expected answer) in turn of one `noidr`.
fn table(noidr: &mut Noidr, cases: &[(&str, &str)]) {
    for (request, expected) in cases {
        let got = noidr.ask(request);
        eqnice!(request, expected, got);
    }
}

fn egg_minter() -> Minter {
    let m = Minter::new();
    m.bind(&[
        ("ark:/00224/foo", "_t", "zaf"),
        ("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/"),
        ("ark:/98765/f3", "_t", "bar${suffix}zaf${suffix}foo"),
        ("X", "_t", "301 zaf"),
        ("Y", "_t", "999 zaf"),
        ("ark:/13030/fk4a", "_t", "A"),
        ("ark:/13030/fk4a/b", "_t", "B"),
        ("ark:/13030/fk4a/b/c", "_t", "C"),
        ("ark:/13030/fk4q", "_t", "410 gone"),
        ("ark:/13030/fk4q", "who", "Somebody"),
        (
            "ark:/13030/fk4q",
            "_,eTm,application/json",
            "https://e.org/q.json",
        ),
        ("ark:/13030/fk4p", "_t", "${suffix}@${suffix}"),
        ("ark:/13030/fk4n", "_t", "N"),
        ("ark:/13030/fk4n", "_t_am", "n"),
        ("ark:/13030/fk4m", "_t", "http://a.org/\nhttp://b.org/"),
        ("doi:10.12345/XYZ", "_t", "303 http://a.b.org"),
        (":idmap/^mp([0-9]+)$", "_t", "https://m.org/$1"),
    ]);
    m
}

#[test]
fn conformance_vectors_egg() {
    let m = egg_minter();
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    table(
        &mut n,
        &[
            (
                "ark:/00224/foo/bar//zif?zaf=ab&cd.resolve",
                "redir302 zaf/bar//zif?zaf=ab&cd",
            ),
            (
                "ark:/12345/xt2rv8b/chap3/sect5//para4.txt.1.bak.resolve",
                "redir302 http://obj.example.com/datasets/rv8b/chap3/sect5//para4.txt.1.bak",
            ),
            ("ark:/98765/f3abc.resolve", "redir302 barabczafabcfoo"),
            ("X.resolve", "redir301 zaf"),
            ("Y.resolve", "redir302 999 zaf"),
            // EggNog's vector answers NULL; the ARK draft (§3.3) sends an ARK of a NAAN
            // this resolver does not serve on to N2T, and the default rules do.
            (
                "ark:/99999/nope.resolve",
                "redir302 https://n2t.net/ark:/99999/nope",
            ),
            ("ark:/13030/nope.resolve", "NULL"),
        ],
    );
    assert!(n.finish().success());
}

#[test]
fn eggnog_miss_line() {
    let m = egg_minter();
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg", "--egg-miss", "eggnog"]);
    table(
        &mut n,
        &[
            // A NAAN the store serves: a miss (another NAAN's ARK goes to N2T).
            ("ark:/13030/nope.resolve", "redir302 "),
            ("X.resolve", "redir301 zaf"),
        ],
    );
}

#[test]
fn resolution_rules_egg() {
    let m = egg_minter();
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    table(
        &mut n,
        &[
            // Longest bound ancestor wins.
            ("ark:/13030/fk4a/b/c/d/e.resolve", "redir302 C/d/e"),
            ("ark:/13030/fk4a/b/x.resolve", "redir302 B/x"),
            ("ark:/13030/fk4a/x/y/z/w.resolve", "redir302 A/x/y/z/w"),
            // ${suffix} at several places.
            ("ark:/13030/fk4p/s.resolve", "redir302 /s@/s"),
            ("ark:/13030/fk4p.resolve", "redir302 @"),
            // Codes.
            ("ark:/13030/fk4q.resolve", "redir410 gone"),
            // No passthrough.
            ("ark:/13030/fk4n/x.resolve", "NULL"),
            ("ark:/13030/fk4n.resolve", "redir302 N"),
            // Normalisation.
            ("ark:13030/fk4a.resolve", "redir302 A"),
            ("ARK:/13030/fk4a/b.resolve", "redir302 B"),
            // Inflections and conneg.
            (
                "ark:/13030/fk4q?.resolve",
                "inflect \"op=arkinflect\" \"id=ark:/13030/fk4q\" \"suffix=%3f\"",
            ),
            (
                "ark:/13030/fk4q?info.resolve",
                "inflect \"op=arkinflect\" \"id=ark:/13030/fk4q\" \"suffix=%3f%3f\"",
            ),
            (
                "ark:/13030/fk4q.resolve !!!pr=https!!!!!!ac=application/json!!!",
                "redir303 https://e.org/q.json",
            ),
            (
                "ark:/13030/fk4q.resolve !!!pr=https!!!!!!ac=text/html,*/*;q=0.8!!!",
                "redir410 gone",
            ),
            // Several targets, prefix extension, :idmap, rules, partial ids.
            (
                "ark:/13030/fk4m.resolve",
                "inflect \"op=multi\" \"id=ark:/13030/fk4m\" \"target=http://a.org/\" \"target=http://b.org/\"",
            ),
            ("doi:10.12345-dev-2a/XYZ.resolve", "redir303 http://a-dev-2a.b.org"),
            ("mp42.resolve", "redir302 https://m.org/42"),
            ("doi:10.5072/FK2ABC.resolve", "redir302 https://doi.org/10.5072/FK2ABC"),
            ("ark:/99999.resolve", "inflect \"op=partial\" \"partial=ark:/99999\""),
            // Garbage is a miss or one error line.
            ("ark:/13030/(.*)[.resolve", "NULL"),
            ("no method here", "error: expected \"ID.resolve\" or \"ID.resolve HEADERS\""),
            ("", "NULL"),
        ],
    );
}

#[test]
fn rules_file_and_forwarding() {
    let m = egg_minter();
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    std::fs::write(
        &rules,
        "ark:/55555 https://five.org/${nlid}\nglobal-resolver https://n2t.net/\nlocal-naans 12345\n",
    )
    .unwrap();
    let mut n = Noidr::start(
        m.dbdir(),
        &["--protocol", "egg", "--rules", rules.to_str().unwrap()],
    );
    table(
        &mut n,
        &[
            ("ark:/55555/x.resolve", "redir302 https://five.org/x"),
            (
                "ark:/77777/x.resolve",
                "redir302 https://n2t.net/ark:/77777/x",
            ),
            ("ark:/12345/nope.resolve", "NULL"),
            ("ark:/13030/nope.resolve", "NULL"),
            // The built-in doi: rule is replaced by this file.
            ("doi:10.5072/X.resolve", "NULL"),
        ],
    );
}

#[test]
fn bad_rules_file_stops_startup() {
    let m = Minter::new();
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    std::fs::write(&rules, "doi: x\nnonsense here\n").unwrap();
    let out = std::process::Command::new(crate::util::noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .arg("--rules")
        .arg(&rules)
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2: unknown directive"), "{err}");
}

#[test]
fn noid_protocol() {
    let m = Minter::new();
    m.bind(&[
        ("13030/kt639k9", "myGoto", "http://example.org/k"),
        ("13030/kt639k9", "two", "line1\nline2"),
        (":idmap/^ft", "redirect", "g7h"),
        (":idmap/^ft([^x]+)x(.*)", "my_elem", "$2/g7h/$1"),
    ]);
    let mut n = Noidr::start(m.dbdir(), &[]);
    table(
        &mut n,
        &[
            ("get 13030/kt639k9 myGoto", "http://example.org/k"),
            ("get ft89xr2t redirect", "g7h89xr2t"),
            ("get ft89xr2t my_elem", "r2t/g7h/89"),
            ("get 13030/kt639k9 nope", "NULL"),
            ("get 13030/kt639k9 two", "line1%0Aline2"),
            (
                "get 13030/kt639k9 myGoto nope two",
                "http://example.org/k\t\tline1%0Aline2",
            ),
            (
                "bind set x _t y",
                "error: noidr is read-only: \"bind\" refused",
            ),
            ("hello", "Hello."),
            ("", "NULL"),
            ("   ", "NULL"),
            (
                "get 'unbalanced",
                "error: cannot parse request: missing closing quote",
            ),
        ],
    );
    n.send(b"get \xff\xfe x");
    assert_eq!(n.read_line(), b"error: request is not valid UTF-8");
    n.send(b"get a\0b x");
    assert_eq!(n.read_line(), b"NULL");
    assert!(n.finish().success());
}

/// Every verb the `noid` command knows that noidr does not serve is answered "use the
/// noid command" (or, for a verb that writes, "read-only"), never "no such command":
/// `standing` and `lui` were answered "no such command" before the verb table.
#[test]
fn every_noid_verb_is_sent_to_noid() {
    let m = Minter::new();
    let mut n = Noidr::start(m.dbdir(), &[]);
    let elsewhere =
        |v: &str| format!("error: \"{v}\" is not available in noidr; use the noid command");
    let read_only = |v: &str| format!("error: noidr is read-only: \"{v}\" refused");
    let mut cases = Vec::new();
    for v in [
        "dbinfo", "validate", "import", "export", "check", "lui", "standing",
    ] {
        let answer = if v == "import" {
            read_only(v)
        } else {
            elsewhere(v)
        };
        cases.push((format!("{v} x"), answer));
    }
    for v in [
        "bind",
        "dbcreate",
        "hold",
        "mint",
        "note",
        "peppermint",
        "queue",
    ] {
        cases.push((format!("{v} x"), read_only(v)));
    }
    for v in ["serve", "replay", "prune-log", "links", "compact"] {
        cases.push((format!("{v} x"), read_only(v)));
    }
    cases.push(("standing".into(), elsewhere("standing")));
    // The search index's modes read the store; noid runs them, not noidr.
    cases.push(("index status".into(), elsewhere("index")));
    cases.push(("search x".into(), elsewhere("search")));
    cases.push(("lui encode 1".into(), elsewhere("lui")));
    cases.push((
        "Standing x".into(),
        "error: no such command: Standing".into(),
    ));
    let cases: Vec<(&str, &str)> = cases
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    table(&mut n, &cases);
    assert!(n.finish().success());
}

#[test]
fn dbdir_from_program_name_and_empty_environment() {
    // Apache: `prg:/srv/nd/noidr_kt5`, cwd = /srv/nd, empty environment.
    let m = Minter::new();
    m.bind(&[("13030/kt639k9", "myGoto", "http://example.org/k")]);
    let home = tempfile::tempdir().unwrap();
    let link = home.path().join("noidr_kt5");
    std::os::unix::fs::symlink(crate::util::noidr_bin(), &link).unwrap();
    std::os::unix::fs::symlink(m.dbdir(), home.path().join("kt5")).unwrap();
    let mut cmd = std::process::Command::new(&link);
    cmd.current_dir(home.path());
    let mut n = Noidr::spawn(cmd);
    eqnice!(
        "get",
        "http://example.org/k",
        n.ask("get 13030/kt639k9 myGoto")
    );
    assert!(n.finish().success());
}

#[test]
fn missing_store_answers_errors_then_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = Noidr::start(dir.path(), &["--protocol", "egg"]);
    let a = n.ask("X.resolve");
    // The store is named by its directory's name, not by its path (issue 42, item 11).
    let name = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(
        a,
        format!("error: cannot open minter {name}: no database ({name}/NOID/noid.rocksdb) -- use dbcreate?")
    );
    // The store appears: noidr retries in the background (every second).
    let m = noid_store::Writer::create(dir.path(), std::time::Duration::from_secs(5)).unwrap();
    m.commit([noid_store::Op::Put(b"X\t_t".to_vec(), b"x".to_vec())])
        .unwrap();
    drop(m);
    let start = std::time::Instant::now();
    loop {
        let a = n.ask("X.resolve");
        if a == "redir302 x" {
            break;
        }
        assert!(a.starts_with("error: "), "{a}");
        assert!(start.elapsed().as_secs() < 30, "store never picked up");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A LUI minter's identifier, bound in its canonical spelling, is found in any
/// spelling readers type (upper case, dashes missing or moved, `O` for 0) by both line
/// protocols; a wrong checksum is not.
#[test]
fn lui_minter_answers_every_spelling() {
    let m = Minter::new();
    m.commit([
        noid_store::Op::Put(b":/mask".to_vec(), b"lui10-4".to_vec()),
        // Every LUI minter has its permutation key; readers look for it.
        noid_store::Op::Put(
            b":/luikey".to_vec(),
            b"000102030405060708090a0b0c0d0e0f".to_vec(),
        ),
        noid_store::Op::Put(b":/firstpart".to_vec(), b"13030/f5".to_vec()),
    ]);
    m.bind(&[("13030/f5tw0t-ywdj-94", "_t", "https://example.org/1")]);
    let mut noid = Noidr::start(m.dbdir(), &[]);
    table(
        &mut noid,
        &[
            ("get 13030/f5TW0TYWDJ94 _t", "https://example.org/1"),
            ("get 13030/f5tw-0tyw-dj94 _t", "https://example.org/1"),
            ("get 13030/f5TWOT-YWDJ-94 _t", "https://example.org/1"),
            ("get 13030/f5tw0t-ywdj-95 _t", "NULL"),
        ],
    );
    let mut egg = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    table(
        &mut egg,
        &[
            (
                "ark:/13030/f5TW0TYWDJ94.resolve",
                "redir302 https://example.org/1",
            ),
            ("ark:/13030/f5tw0t-ywdj-95.resolve", "NULL"),
        ],
    );
}
