//! Bad input: a clear message, a non-zero exit status, and an unchanged store.

use std::time::Duration;

use crate::util::*;

#[test]
fn missing_database() {
    let d = Dir::new();
    let r = d.noid(&["mint", "1"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "\n\n");
    assert_eq!(
        r.stderr,
        format!("error: no database ({}/NOID/noid.bdb) -- use dbcreate?\n \n Usage:\n               noid [-f Dbdir] [-v] [-h] Command Arguments\n               noid -h             (for help with a Command summary).", d.path().display())
    );
    assert!(!d.path().join("NOID").exists(), "nothing created");
}

#[test]
fn unknown_command() {
    let d = Dir::minter(&[".sd"]);
    let r = d.noid(&["frobnicate", "a", "b"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "error: no such command: frobnicate (a b)\n\n\n");
    assert!(r
        .stderr
        .starts_with("Usage:\n               noid [-f Dbdir]"));
}

/// `noid -` skips comment lines (`#` in column 1 or after blanks) and blank lines
/// silently: no output, no usage, and they do not make the exit status 1 (Perl Noid
/// 0.424 answered a comment with `error: no such command`; docs/COMPATIBILITY.md). A
/// comment after a command's words is shell syntax, as it was. Before this, each such
/// line printed usage on stderr and the run exited 1.
#[test]
fn bulk_skips_comments_and_blank_lines() {
    let d = Dir::minter(&[".sd"]);
    let r = d.noid_stdin(
        &["-"],
        b"# a comment\n\n   \n  # indented comment\nmint 1\n\t\n#mint 1\nmint 1 # two?\n# last",
    );
    assert_eq!(
        (r.stdout.as_str(), r.stderr.as_str(), r.code),
        ("id: 0\n\nid: 1\n\n", "", 0)
    );
    // A failing command still fails the run; the comments around it change nothing.
    let r = d.noid_stdin(&["-"], b"# before\nfrob x\n# after\n\nmint 1\n");
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "error: no such command: frob (x)\n\n\nid: 2\n\n");
    assert_eq!(
        r.stderr,
        "Usage:\n               noid [-f Dbdir] [-v] [-h] Command Arguments\n               noid -h             (for help with a Command summary)."
    );
}

#[test]
fn bad_templates_and_terms_create_nothing() {
    let cases: &[(&[&str], &str)] = &[
        (&["ab.rdqdk"], "parse_template: a mask may contain only the letters 'd' or 'e'.\n\n"),
        (&[".r"], "parse_template: exactly one check character (k) is allowed, and it may\nonly appear at the end of a string of one or more mask characters.\n\n"),
        (&["x.q"], "parse_template: mask must begin with one of the letters\n'r' (random), 's' (sequential), or 'z' (sequential unlimited).\n\n"),
        (&["abc"], "parse_template: no template mask - can't generate identifiers.\n\n"),
        (&[".sd", "bogus"], "error: term (bogus) must be either \"long\", \"medium\", \"-\", or \"short\".\n\n"),
        (&[".sd", "long"], "error: longterm identifiers require an NAA Number, NAA, and SubNAA.\n\n"),
        (&[".sd", "long", "123", "a", "b"], "error: term of \"long\" requires a 5-digit NAAN (00000 if none), and non-empty string values for NAA and SubNAA.\n\n"),
    ];
    for (args, msg) in cases {
        let d = Dir::new();
        let r = d.noid(&[&["dbcreate"], *args].concat());
        assert_eq!(r.code, 1, "{args:?}");
        assert_eq!(&r.stdout, msg, "{args:?}");
        assert!(
            !d.path().join("NOID/noid.rocksdb").exists(),
            "{args:?} created a store"
        );
    }
}

#[test]
fn dbcreate_twice_is_refused() {
    let d = Dir::minter(&[".sd"]);
    let r = d.noid(&["dbcreate", ".sdd"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout,
        format!("error: a NOID database already exists in \"{}\".\n\tTo permit creation of a new minter, rename\n\tor remove the entire NOID subdirectory.\n\n", d.path().display())
    );
    assert!(d.noid(&["dbinfo"]).stdout.contains("  :/template: .sd\n"));
}

#[test]
fn bad_mint_count() {
    let d = Dir::minter(&[".sd"]);
    let r = d.noid(&["mint", "x"]);
    assert_eq!(r.code, 1);
    assert!(r
        .stderr
        .starts_with("Argument error: expected positive integer, got \"x\"\n"));
    let r = d.noid(&["mint"]);
    assert!(r
        .stderr
        .starts_with("Argument error: expected positive integer, got nothing\n"));
    assert!(d.noid(&["dbinfo"]).stdout.contains("  :/oacounter: 0\n"));
}

#[test]
fn hold_errors() {
    let d = Dir::minter(&[".sdd"]);
    assert!(d
        .noid(&["hold"])
        .failed()
        .stderr
        .starts_with("error: hold \"set\" or \"release\"?\n"));
    assert!(d
        .noid(&["hold", "maybe", "00"])
        .stderr
        .starts_with("error: unrecognized hold directive (maybe)\n"));
    assert!(d
        .noid(&["hold", "set"])
        .stderr
        .starts_with("error: no Id(s) specified\n"));
    let r = d.noid(&["hold", "set", "00", "0x"]);
    assert!(r.stderr.starts_with("error: hold operation not started -- one or more ids did not validate:\niderr: 0x char 'x' conflicts with template (-) char 'd' (digit)\n"), "{}", r.stderr);
    assert!(
        d.noid(&["dbinfo"]).stdout.contains("  :/held: 0\n"),
        "nothing held after a refused hold"
    );
}

/// spec-noid.md: a missing key or value gets the message and the (absent) brief
/// help on "note"; an empty key is refused with the same message and stores nothing.
#[test]
fn note_errors() {
    let d = Dir::minter(&[".sdd"]);
    let r = d.noid(&["note", "k"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "You must supply a key and a value.\nSorry: no information on \"note/brief\".\n\n"
    );
    let r = d.noid(&["note", "", "v"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "You must supply a key and a value.\n");
    assert!(
        !d.noid(&["dbinfo"]).stdout.contains("User Assigned Values"),
        "no note stored"
    );
}

#[test]
fn unreadable_store() {
    let d = Dir::minter(&[".sd"]);
    std::fs::write(d.path().join("NOID/noid.rocksdb/CURRENT"), b"garbage\n").unwrap();
    let r = d.noid(&["mint", "1"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.starts_with("error: database error: "),
        "{}",
        r.stderr
    );
}

#[test]
fn locked_store_times_out() {
    let d = Dir::minter(&[".sd"]);
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(d.path().join("NOID/lock"))
        .unwrap();
    lock.lock().unwrap();
    let start = std::time::Instant::now();
    let r = d.noid(&["--lock-timeout", "1", "mint", "1"]);
    assert!(start.elapsed() >= Duration::from_secs(1));
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        format!(
            "error: lock timeout after 1 seconds; another noid process holds \"{}/NOID/lock\"\n",
            d.path().display()
        )
    );
    drop(lock);
    assert_eq!(d.mint(1), ["0"], "nothing was minted while locked");
}

#[test]
fn version_hello_and_help() {
    let d = Dir::new();
    assert_eq!(d.noid(&["-v"]).ok(), "This is \"noid\" version 0.424.\n");
    assert_eq!(d.noid(&["hello"]).ok(), "Hello.\n");
    let r = d.noid(&["help", "mint"]);
    assert_eq!(r.ok(), "Sorry: no information on \"mint\".\n\n");
    let r = d.noid(&["help", "dbcreate"]);
    assert!(r.ok().starts_with("\n To create an identifier minter governed by Template and Term (\"long\" or \"-\"),\n \n    noid dbcreate"));
    let r = d.noid(&["help", "zz"]);
    assert_eq!(
        r.ok(),
        "Sorry: nothing under \"zz\".\n You might try one of these topics:\n\t intro all templates bind dbinfo dbcreate fetch\n\t get hello help hold mint note peppermint\n\t queue validate import export check lui standing\n\t serve replay prune-log links explain rules index\n\t search history rewrite stats compact\n \n\n"
    );
    // Issue 41, item 11: the process modes have help topics too.
    let r = d.noid(&["help", "serve"]);
    assert!(
        r.ok()
            .starts_with("\n To serve populators' binders and minters over HTTP"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("\n    noid serve --http 127.0.0.1:8080 --config /etc/noid/api.toml\n"));
    let r = d.noid(&["help"]);
    assert!(r.ok().starts_with("Usage:\n               noid [-f Dbdir] [-v] [-h] Command Arguments\n \n Dbdir defaults to"), "{}", r.stdout);
    assert!(r.stdout.contains(
        "\n    noid mint N [ Elem Value ]\t# to mint N identifiers (optionally binding)\n"
    ));
    let r = d.noid(&[]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "\n\n");
    let r = d.noid(&["--bogus"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--bogus"), "{}", r.stderr);
}

/// `noid` tunes its allocator before `main` (see `tune_mimalloc` in main.rs) by option
/// number; mimalloc's own report, by option name, shows the numbers still mean what
/// they meant (they are not stable across mimalloc versions).
#[test]
fn allocator_options_are_the_intended_ones() {
    let out = std::process::Command::new(crate::util::noid_exe())
        .arg("hello")
        .env("MIMALLOC_VERBOSE", "1")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr);
    for option in ["arena_eager_commit", "allow_thp"] {
        assert!(
            report.contains(&format!("option '{option}': 0 ")),
            "{option} is not 0 in mimalloc's report:\n{report}"
        );
    }
}
