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
    assert_eq!(d.noid(&["foo.set", "bar", "zaf", "woof"]).ok(), "");
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
        d.noid(&["--", "--format", "anvl", "--ack", "foo.add", "bar", "yaf"])
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
    assert_eq!(d.noid(&["--", "--ack", "foo.rm", "that"]).ok(), "0.0\n\n");
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
