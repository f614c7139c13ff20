//! Minting beyond Perl Noid through the real binary and store: extended repertoires,
//! LUI minters, minters that grow, stop or wrap at the end of their namespace, and the
//! `noid lui` commands. Expected values come from spec-minting-extended.md, base32-lib
//! 1.1.1's answers and EggNog's growth rule (spec-binder-api §4).

use std::collections::HashSet;

use crate::util::*;

#[test]
fn extended_repertoire_minter_mints_noid4php_ids() {
    let d = Dir::minter(&["x4.rvvvvk", "long", "13030", "example.org", "oac"]);
    assert_eq!(
        d.mint(5),
        [
            "13030/x46bnnd",
            "13030/x41j2rd",
            "13030/x4xqn6h",
            "13030/x4sy2ah",
            "13030/x4o4ieg"
        ]
    );
    let r = d.noid(&[
        "validate",
        "-",
        "13030/x46bnnd",
        "13030/x46bnne",
        "13030/x46b_nd",
    ]);
    assert_eq!(
        r.failed().stdout,
        "id: 13030/x46bnnd\niderr: 13030/x46bnne has a check character error\niderr: 13030/x46b_nd has a check character error\n"
    );
    let readme = std::fs::read_to_string(d.path().join("NOID/README")).unwrap();
    assert!(readme.contains(
        "       Mask characters: v (digit, lower-case letter or _).\n       The check character is computed over the 'v' repertoire (37 characters).\nPolicy:"
    ));
    let q = Dir::minter(&["q.sEEEk"]);
    assert_eq!(q.mint(5), ["q111q", "q112v", "q113B", "q114G", "q115M"]);
}

#[test]
fn perl_minters_readme_has_no_extension_lines() {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let readme = std::fs::read_to_string(d.path().join("NOID/README")).unwrap();
    assert!(readme.contains("\"noid_xz4\" since identifiers are \"xz\" followed by 4 characters.\nPolicy:    (:GRANITE)"));
    assert!(!readme.contains("Atlast"));
}

#[test]
fn bad_extended_templates_are_refused() {
    for (args, msg) in [
        (
            &[".rcck", "long", "13030", "a", "b"][..],
            "error: template .rcck: mask character 'c' mints characters that are not legal in ARKs\n(\" < > ` { } | ^ [ ] # ?); use 'w' for a minter with a NAAN.\n\n",
        ),
        (
            &["a%.rvk"][..],
            "parse_template: with a check character at the end, the prefix and mask may contain only\ncharacters of one check repertoire; the widest, 'c', is visible ASCII but %-./\\ (and '/' in the prefix).\n\n",
        ),
        (
            &["lui15"][..],
            "parse_template: a LUI template is [Prefix.]luiN[-W]: N characters from 3 to 14, the last two\na checksum, and a dash every W characters (W at least 1).\n\n",
        ),
        (
            &["--atlast", "grow", ".sd"][..],
            "error: atlast (grow) must be addN (N from 1 to 99: grow by N characters), stop[N] or wrap[N] (N an exit status from 0 to 255).\n\n",
        ),
        (
            &["--atlast=wrap", ".sd", "long", "13030", "a", "b"][..],
            "error: long-term identifiers are never re-issued, so a long-term minter cannot wrap.\n\n",
        ),
    ] {
        let d = Dir::new();
        let r = d.noid(&[&["dbcreate"], args].concat());
        assert_eq!(r.code, 1, "{args:?}");
        assert_eq!(r.stdout, msg, "{args:?}");
        assert!(!d.path().join("NOID").exists(), "{args:?}");
    }
    // Without a NAAN, `c` is allowed with a warning.
    let d = Dir::new();
    let r = d.noid(&["dbcreate", ".rcck"]);
    assert!(r.ok().contains(
        "       Warning: mask character 'c' mints characters that URLs and ARKs must escape\n       (\" < > ` { } | ^ [ ] # ?).\n"
    ));
}

/// A lui6-3 minter issues each of its 32^4 identifiers once, then refuses (Perl's
/// behaviour) or grows to lui9-3 (`--atlast add3`).
#[test]
fn lui6_minter_issues_its_namespace_once_then_stops_or_grows() {
    for atlast in [None, Some("add3")] {
        let d = Dir::new();
        let mut create = vec!["dbcreate"];
        create.extend(atlast.iter().flat_map(|a| ["--atlast", a]));
        create.push("lui6-3");
        d.noid(&create).ok();
        let r = d.noid(&["mint", "1048576"]);
        let ids = ids(r.ok());
        assert_eq!(ids.len(), 1 << 20);
        let unique: HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), 1 << 20);
        for id in ids.iter().step_by(4099) {
            assert_eq!(id.len(), 7, "{id}");
            let r = d.noid(&["lui", "decode", id, "--checksum"]);
            assert!(r.ok().trim().parse::<u64>().unwrap() < 1 << 20, "{id}");
        }
        let r = d.noid(&["mint", "2"]);
        match atlast {
            None => {
                assert_eq!(
                    r.failed().stderr,
                    "error: identifiers exhausted (stopped at 1048576).\n"
                );
                assert_eq!(r.stdout, "");
            }
            Some(_) => {
                let out = r.ok();
                let more = crate::util::ids(out);
                assert_eq!(more.len(), 2);
                assert!(more.iter().all(|id| id.len() == 11), "{more:?}");
                assert!(out.ends_with(
                    "note: chars added (via add3) to template 'lui6-3' to create 'lui9-3'\n\n"
                ));
                let info = d.noid(&["dbinfo"]);
                assert!(info.ok().contains("  :/template: lui9-3\n"));
            }
        }
    }
}

#[test]
fn lui_minter_validates_any_spelling_and_hides_its_key() {
    let d = Dir::minter(&["f5.lui10-4", "-", "13030"]);
    let id = d.mint(1).remove(0);
    let lui = id.strip_prefix("13030/f5").unwrap();
    let shouted = format!("13030/f5{}", lui.to_uppercase().replace('-', ""));
    let r = d.noid(&[
        "validate",
        "-",
        &shouted,
        "13030/f5tw0t-ywdj-95",
        "13030/f5tw0t-ywdj-94",
    ]);
    assert_eq!(
        r.failed().stdout,
        format!("id: {id}\niderr: 13030/f5tw0t-ywdj-95 has a check character error\nid: 13030/f5tw0t-ywdj-94\n")
    );
    let brief = d.noid(&["dbinfo"]);
    assert!(!brief.ok().contains(":/luikey"));
    let full = d.noid(&["dbinfo", "full"]);
    let key = full
        .ok()
        .lines()
        .find_map(|l| l.strip_prefix("  :/luikey: "))
        .expect("the key is kept in the minter");
    assert_eq!(key.len(), 32);
    assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
    // Two minters made alike draw different orders from their own keys.
    let other = Dir::minter(&["f5.lui10-4", "-", "13030"]);
    assert_ne!(other.mint(3), d.mint(3));
}

/// A random minter that grows by one character crosses two growths without issuing
/// any identifier twice (the shorter ones are a different length).
#[test]
fn growing_random_minter_crosses_two_growths() {
    let d = Dir::minter(&["--atlast", "add1", "x.rdd"]);
    let r = d.noid(&["mint", "1150"]);
    let out = r.ok();
    let ids = ids(out);
    assert_eq!(ids.len(), 1150);
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), 1150);
    let lengths: Vec<usize> = [0, 99, 100, 1099, 1100, 1149]
        .iter()
        .map(|i| ids[*i].len())
        .collect();
    assert_eq!(lengths, [3, 3, 4, 4, 5, 5]);
    assert!(out.ends_with(
        "note: chars added (via add1) to template 'x.rdd' to create 'x.rddd'\nnote: chars added (via add1) to template 'x.rddd' to create 'x.rdddd'\n\n"
    ));
    let info = d.noid(&["dbinfo"]);
    let info = info.ok();
    for line in [
        "  :/template: x.rdddd\n",
        "  :/total: 10000\n",
        "  :/oacounter: 50\n",
        "  :/atlast: add1\n",
    ] {
        assert!(info.contains(line), "{line}");
    }
    // The grown minter still mints in Perl's order for its template: .rdddd's first
    // fifty-first id after 50 issued, from a fresh minter of that template.
    let fresh = Dir::minter(&["x.rdddd"]);
    assert_eq!(fresh.mint(51)[50], d.mint(1)[0]);
}

#[test]
fn stop_and_wrap_set_the_exit_status() {
    let d = Dir::minter(&["--atlast", "stop7", ".sd"]);
    let r = d.noid(&["mint", "12"]);
    assert_eq!(r.code, 7);
    assert_eq!(ids(&r.stdout).len(), 10);
    assert_eq!(r.stderr, "error: identifiers exhausted (stopped at 10).\n");
    let w = Dir::minter(&["--atlast", "wrap3", ".sd"]);
    let r = w.noid(&["mint", "12"]);
    assert_eq!(r.code, 3);
    assert_eq!(
        ids(&r.stdout),
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "1"]
    );
    let r = w.noid(&["mint", "1"]);
    assert_eq!(r.ok(), "id: 2\n\n");
}

#[test]
fn lui_commands() {
    let d = Dir::new();
    let ok = |args: &[&str], expected: &str| {
        let r = d.noid(&[&["lui"], args].concat());
        assert_eq!(r.ok(), expected, "{args:?}");
    };
    ok(
        &["encode", "923446243762", "--split", "4", "--checksum"],
        "tw0t-ywdj-94\n",
    );
    ok(&["encode", "0", "--checksum"], "098\n");
    ok(&["encode", "32"], "10\n");
    ok(
        &[
            "encode",
            "5",
            "--min-length",
            "6",
            "--split",
            "4",
            "--checksum",
        ],
        "0005-83\n",
    );
    ok(&["decode", "tw0t-ywdj-94", "--checksum"], "923446243762\n");
    ok(&["decode", "TW0T-YWDJ-94", "--checksum"], "923446243762\n");
    ok(&["decode", "tw0tywdj94", "--checksum"], "923446243762\n");
    ok(&["decode", "-98", "--checksum"], "0\n");
    ok(&["normalize", "TW0T-yw-dJ94"], "tw0tywdj94\n");
    ok(
        &["normalize", "TW0T-yw-dJ94", "--split", "4", "--checksum"],
        "tw0t-ywdj-94\n",
    );
    let bad = |args: &[&str], stderr: &str| {
        let r = d.noid(&[&["lui"], args].concat());
        assert_eq!(r.code, 1, "{args:?}");
        assert_eq!(r.stdout, "", "{args:?}");
        assert!(r.stderr.starts_with(stderr), "{args:?}: {}", r.stderr);
    };
    bad(
        &["decode", "tw0t-ywdj-9", "--checksum"],
        "error: lui decode \"tw0t-ywdj-9\": invalid checksum\n",
    );
    bad(
        &["decode", "tw0u"],
        "error: lui decode \"tw0u\": 'u' is not a Crockford base32 character",
    );
    bad(
        &["decode", "g000000000000"],
        "error: lui decode \"g000000000000\": the number does not fit in 64 bits\n",
    );
    bad(
        &["normalize", "tw0t-ywdj-95", "--checksum"],
        "error: lui normalize \"tw0t-ywdj-95\": invalid checksum\n",
    );
    bad(
        &["encode", "18446744073709551616"],
        "error: invalid value '18446744073709551616' for '<NUMBER>'",
    );
    bad(&["encode", "x"], "error: invalid value 'x' for '<NUMBER>'");
    bad(
        &["frobnicate"],
        "error: unrecognized subcommand 'frobnicate'",
    );
    let help = d.noid(&["lui", "encode", "--help"]);
    assert!(help
        .ok()
        .contains("Usage: noid lui encode [OPTIONS] <NUMBER>"));
    let help = d.noid(&["help", "lui"]);
    assert!(help.ok().contains(
        "\n    noid lui encode 923446243762 --split 4 --checksum     prints tw0t-ywdj-94\n"
    ));
    let help = d.noid(&["help", "templates"]);
    assert!(help.ok().contains(
        "\n    v  0-9, a-z and _ (37)          E  1-9 and consonants but l, both cases (47)\n"
    ));
    assert!(help.stdout.contains("A LUI template, [Prefix.]luiN[-W]"));
}

/// A LUI minter that grows, exported and imported into a new directory, keeps its key,
/// its setting and its place: both copies mint the same identifiers next, and `check`
/// finds nothing wrong with either.
#[test]
fn lui_minter_moves_with_its_key_and_atlast() {
    let d = Dir::minter(&["--atlast", "add3", "lui4"]);
    d.mint(40);
    let export = d.noid(&["export"]);
    let dump = export.ok().to_string();
    assert!(dump.contains(":/luikey"));
    assert!(dump.contains(":/atlast"));
    let copy = Dir::new();
    let r = copy.noid_stdin(&["import", "-"], dump.as_bytes());
    assert!(r.ok().starts_with("ok: imported "), "{}", r.stdout);
    // lui4 holds 1,024 ids: both cross the growth to lui7 alike.
    let a = d.noid(&["mint", "1000"]);
    let b = copy.noid(&["mint", "1000"]);
    assert_eq!(a.ok(), b.ok());
    assert!(a
        .stdout
        .contains("note: chars added (via add3) to template 'lui4' to create 'lui7'\n"));
    for dir in [&d, &copy] {
        dir.assert_check_clean();
    }
}
