//! Egg commands through the `noid` binary (issue 18): next to Perl Noid's verbs, a
//! command whose first word has the `ID.OP` form runs as egg. Expected outputs are the
//! spec's cases (`../shared/spec-binder-api.md` §6).

use crate::util::Dir;

fn binder() -> Dir {
    Dir::minter(&[])
}

#[test]
fn spec_cases_1_to_8_one_command_per_process() {
    let d = binder();
    // EggNog ignores the extra word; noid refuses it (docs/COMPATIBILITY.md).
    let r = d.noid(&["foo.set", "bar", "zaf", "woof"]);
    assert_eq!(
        (r.stdout.as_str(), r.code),
        ("error: set takes one value, and 1 more word followed it (woof); quote a value with spaces: ID.set bar 'A value with spaces'\n\n", 1)
    );
    assert_eq!(d.noid(&["foo.set", "bar", "zaf"]).ok(), "");
    assert_eq!(
        d.noid(&["-m", "plain", "foo.fetch", "bar"]).ok(),
        "bar: zaf\n\n"
    );
    // `--` before egg's options still works.
    assert_eq!(
        d.noid(&["--", "-m", "plain", "foo.fetch", "bar"]).ok(),
        "bar: zaf\n\n"
    );
    assert_eq!(d.noid(&["foo.let", "eel", "cow"]).ok(), "");
    assert_eq!(
        d.noid(&["foo.fetch"]).ok(),
        "# id: foo\nbar: zaf\neel: cow\n# elements bound under foo: 2\n\n"
    );
    assert_eq!(d.noid(&["foo.get", "bar"]).ok(), "zaf\n\n");
    assert_eq!(
        d.noid(&["--format", "anvl", "--ack", "foo.add", "bar", "yaf"])
            .ok(),
        "oxum: 3.1\n\n"
    );
    d.noid(&["foo.insert", "bar", "daf"]).ok();
    assert_eq!(d.noid(&["foo.get", "bar"]).ok(), "zaf\nyaf\ndaf\n\n");
    let r = d.noid(&["foo.let", "bar", "x"]);
    r.failed();
    assert_eq!(
        r.stdout,
        "error: cannot proceed on an element (bar) that already has a value\n\n"
    );
    assert_eq!(d.noid(&["--ack", "foo.rm", "that"]).ok(), "0.0\n\n");
}

#[test]
fn egg_and_perl_noid_bindings_are_the_same_bindings() {
    let d = binder();
    d.noid(&["ark:/99999/fk4f30n.set", "_t", "https://example.org/a"])
        .ok();
    assert_eq!(
        d.noid(&["get", "ark:/99999/fk4f30n", "_t"]).ok(),
        "https://example.org/a\n"
    );
    d.noid(&["bind", "set", "x", "_t", "https://example.org/x"])
        .ok();
    assert_eq!(d.noid(&["x.get", "_t"]).ok(), "https://example.org/x\n\n");
}

#[test]
fn bulk_mixes_egg_and_perl_noid_lines() {
    let d = binder();
    let r = d.noid_stdin(
        &["-"],
        b"j.purge\nj.set a b\nj.add a c\nj.add a d\nj.add u v\nj.add x y\nj.fetch\nbind set j z 1\nj.purge\nj.fetch\n",
    );
    assert_eq!(
        r.ok(),
        "# admin + user elements found to purge under j: 0\n\n\
         # id: j\na: b\na: c\na: d\nu: v\nx: y\n# elements bound under j: 5\n\n\
         Id:      j\nElement: z\nBind:    set\nStatus:  ok, 1 bytes written, replacing 0 bytes\n\n\
         # admin + user elements found to purge under j: 8\n\n\
         # id: j\n# elements bound under j: 0\n\n"
    );
}

#[test]
fn indirect_tokens_read_standard_input_and_files() {
    let d = binder();
    d.noid_stdin(&["j|a.set", "@-10"], b"z\n\ny\n\nxuvw\n#eot\n")
        .ok();
    assert_eq!(d.noid(&["j.get", "a"]).ok(), "z\n\ny\n\nxuvw\n\n");
    let f = d.path().join("value");
    std::fs::write(&f, "is nice").unwrap();
    d.noid(&["rat.set", "fur", &format!("@{}", f.display())])
        .ok();
    assert_eq!(d.noid(&["rat.get", "fur"]).ok(), "is nice\n\n");
}

/// Egg's options and modifiers need no `--` in front, also after noid's own options;
/// Perl Noid's commands and options are untouched.
#[test]
fn egg_options_without_a_separator() {
    let d = binder();
    let r = d.noid(&["-m", "anvl", "--ack", "i.set", "a", "b"]);
    assert_eq!(r.ok(), "oxum: 1.1\n\n");
    assert_eq!(
        d.noid(&["-q", "--lock-timeout", "5", "--all", ":hx", "i^2e.get"])
            .ok(),
        "# id: i.\n# elements bound under i.: 0\n\n"
    );
    assert_eq!(d.noid(&["-m", "json", "i.exists"]).ok(), "{\"exists\":1}\n");
    assert_eq!(
        d.noid(&["-m", "xml", "i.get", "a"]).ok(),
        "<record id=\"i\"><element name=\"a\">b</element></record>\n"
    );
    // Perl Noid: an unknown option before a Perl verb is still clap's usage error.
    let r = d.noid(&["-m", "plain", "mint", "1"]);
    assert_eq!(r.code, 2, "{r:?}");
}

/// `noid -` runs egg lines as `egg -` does: indirect tokens read the lines after their
/// command, a value may start with `#`, a trailing backslash continues a line.
#[test]
fn bulk_egg_lines_read_their_indirect_tokens() {
    let d = binder();
    let r = d.noid_stdin(
        &["-"],
        b"j|a.set @-\n  b  \n\nj.fetch a\ni.set @ @\n@\n@\ni.fetch\nk.set h #x\nk.get h\nu.set eee fff\\\nhhh\nu.get eee\n:hx m.set a @-5\nz^20y\n#eot\nm.get a\nbind set p q r\n",
    );
    assert_eq!(
        r.ok(),
        "a:   b  \n\n\
         # id: i\n@: @\n# elements bound under i: 1\n\n\
         #x\n\n\
         fffhhh\n\n\
         z^20y\n\n\
         Id:      p\nElement: q\nBind:    set\nStatus:  ok, 1 bytes written, replacing 0 bytes\n\n"
    );
}

/// Spec cases 42-44 through the `noid` binary.
#[test]
fn list_norm_shadow_and_resolve() {
    let d = binder();
    for id in [
        "ark:/12345/f84",
        "ark:/12345/f81",
        "ark:/12345/f83",
        "ark:/12345/f82",
        "ark:/12345/g1",
    ] {
        d.noid(&[&format!("{id}.set"), "_t", &format!("http://e.org/{id}")])
            .ok();
    }
    let head = format!("# listing for binder {}, max 1000\n", d.path().display());
    assert_eq!(
        d.noid(&["list", "-", "ark:/12345/f8"]).ok(),
        format!(
            "{head}ark:/12345/f81\nark:/12345/f82\nark:/12345/f83\nark:/12345/f84\n\
             # produced 4 ids, 4 bindings (average 1.00 bindings per id)\n\n"
        )
    );
    assert_eq!(
        d.noid(&["list", "-", "xyzzy"]).ok(),
        format!("{head}# produced 0 ids, 0 bindings (average 0.00 bindings per id)\n\n")
    );
    assert_eq!(
        d.noid(&["ark:12345/e-f?g-h.norm"]).ok(),
        "ark:/12345/ef?g-h\n\n"
    );
    assert_eq!(
        d.noid(&[":hx", "  DOI:10.12345/croWD-^0a^09 sOUrced?lower.norm"])
            .ok(),
        "doi:10.12345/CROWD-SOURCED?lower\n\n"
    );
    assert_eq!(
        d.noid(&["-m", "anvl", "doi:10.123/THIS-THat?NO-W.shadow"])
            .ok(),
        "id: ark:/b0123/thisthat?NO-W\n\n"
    );
    assert_eq!(
        d.noid(&["ark:/12345/f82/x.resolve"]).ok(),
        "redir302 http://e.org/ark:/12345/f82/x\n"
    );
}

/// Spec case 40 (mod.t:193): a one-million-octet `@-1000000` value from standard input.
#[test]
fn a_million_octets_from_an_indirect_token() {
    let d = binder();
    let big = "x".repeat(1_000_000);
    d.noid_stdin(&["j|a.set", "@-1000000"], big.as_bytes()).ok();
    assert_eq!(d.noid(&["j.get", "a"]).ok().len(), 1_000_002);
    // The same through bulk mode, the value in the lines after the command.
    let input = format!("k|a.set @-1000000\n{big}\n#eot\nk.get a\n");
    assert_eq!(d.noid_stdin(&["-"], input.as_bytes()).ok().len(), 1_000_002);
}

/// Egg's session variables last for a whole `noid -` run, as in `egg -`.
#[test]
fn bulk_session_variables() {
    let d = binder();
    let r = d.noid_stdin(
        &["-"],
        b"var base http://example.org\ni.set _t &{base}/x\nbind set j k l\ni.get _t\n",
    );
    assert_eq!(
        r.ok(),
        "Id:      j\nElement: k\nBind:    set\nStatus:  ok, 1 bytes written, replacing 0 bytes\n\n\
         http://example.org/x\n\n"
    );
}
