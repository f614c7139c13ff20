//! `noid explain` and `noid rules test` on docs/RESOLUTION.md's request kinds ("Request
//! kinds and answers"): the bindings and answers are that table's, the words of each
//! step the ones noid-resolve's explanation writes (checked there too).

use crate::util::Dir;

/// Some of the table's bindings: (identifier, element, value).
const BINDINGS: [(&str, &str, &str); 5] = [
    ("ark:/00224/foo", "_t", "zaf"),
    ("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/"),
    ("ark:/13030/gone", "_t", "410 withdrawn"),
    ("ark:/13030/gone", "successor", "ark:/13030/new"),
    ("ark:/13960", "_t", "https://archive.org/ark:/${id}"),
];

/// A minter holding [`BINDINGS`] (through `noid bind`).
fn minter() -> Dir {
    let m = Dir::new();
    m.noid(&["dbcreate"]).ok();
    for (id, elem, value) in BINDINGS {
        m.noid(&["bind", "set", id, elem, value]).ok();
    }
    m
}

/// `noid explain ark:/12345/xt2rv8b/chap3/` on [`BINDINGS`] with the built-in rules: a
/// final `/` dropped, a chop-back to `ark:/12345/xt2`, its passed-on suffix.
const XT2_EXPLAINED: &str = "request: ark:/12345/xt2rv8b/chap3/\n\
    \x20 respelled: a final / or . of an ARK is ignored (the ARK draft, §3.1): ark:/12345/xt2rv8b/chap3\n\
    \x20 found: chopped back to the longest bound ancestor: ark:/12345/xt2, the rest \"rv8b/chap3\" passed on (_t = \"http://obj.example.com/datasets/\")\n\
    \x20 decided: redirect 302 to http://obj.example.com/datasets/rv8b/chap3\n\
    answer: redir302 http://obj.example.com/datasets/rv8b/chap3 (chop-back)\n\
    standing of ark:/12345/xt2: not good (who missing; what missing; when missing; how missing)\n\
    web servers:\n\
    \x20 Apache, mod_noid's NoidResolve: 302 to http://obj.example.com/datasets/rv8b/chap3, before the rules run\n\
    \x20 Apache, noid-resolve.conf (prg: or mod_noid's map): RewriteRule [R=302] to http://obj.example.com/datasets/rv8b/chap3\n\
    \x20 nginx, the module (noid-module-resolve.conf): 302 to http://obj.example.com/datasets/rv8b/chap3\n\
    \x20 nginx or Apache proxying to noidr --http: 302 to http://obj.example.com/datasets/rv8b/chap3\n";

/// A table of the N2T cases on [`BINDINGS`], with a shoulder rule's and a DOI rule's.
const CASES: &str = "# request\texpected answer\tAccept\n\
    ark:/00224/foo/bar//zif?zaf=ab&cd\tredir302 zaf/bar//zif?zaf=ab&cd\n\
    ark:/12345/xt2rv8b/chap3/sect5//para4.txt.1.bak\tredir302 http://obj.example.com/datasets/rv8b/chap3/sect5//para4.txt.1.bak\n\
    ark:/12345/fk4abc\tredir302 https://e.org/abc\n\
    doi:10.5072/FK2ABC\tredir302 https://doi.org/10.5072/FK2ABC\n\
    ark:/99999/nope\tNULL\n\
    ark:/13030/gone\tredir410 withdrawn\ttext/html\n";

/// Rules under which every case of [`CASES`] answers as expected.
const RULES: &str =
    "doi: https://doi.org/${id}\nark:/12345/fk4 https://e.org/${blade}\nglobal-resolver off\n";

/// Rules that drop the shoulder rule and forward again, and what they break.
const CHANGED_RULES: &str = "doi: https://doi.org/${id}\n";
const CHANGED_DIFF: &str = "line 4: ark:/12345/fk4abc\n- redir302 https://e.org/abc\n+ NULL\n\
    line 6: ark:/99999/nope\n- NULL\n+ redir302 https://n2t.net/ark:/99999/nope\n\
    4 of 6 cases answer as expected; 2 differ\n";

#[test]
fn explain_says_each_step_the_answer_and_the_web_servers_paths() {
    let m = minter();
    let r = m.noid(&["explain", "ark:/12345/xt2rv8b/chap3/"]);
    assert_eq!(r.ok(), XT2_EXPLAINED);
    // A NAAN rule bound in the store, in JSON.
    let r = m.noid(&["explain", "ark:/13960/t6m0", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(v["answer"], "redir302 https://archive.org/ark:/13960/t6m0");
    assert_eq!(v["outcome"], "hit");
    assert_eq!(
        v["steps"][0]["says"],
        "a shoulder, NAAN or scheme target bound in the store: ark:/13960, the rest \"/t6m0\" passed on (_t = \"https://archive.org/ark:/${id}\")"
    );
    // A tombstone: the rules send 410s on to noidr's page.
    let r = m.noid(&["explain", "ark:/13030/gone"]);
    assert!(
        r.ok().contains("  decided: ark:/13030/gone is withdrawn (410): its tombstone names the successor ark:/13030/new\nanswer: redir410 withdrawn (hit)\n"),
        "{}",
        r.stdout
    );
    // Bad input: a clear error and the usage exit status.
    let r = m.noid(&["explain"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("<ID>"), "{}", r.stderr);
    let r = m.noid(&["explain", "ark:/1/x", "--rules", "/nonexistent/rules"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            2,
            "noid explain: cannot read rules file /nonexistent/rules: No such file or directory (os error 2)\n"
        )
    );
}

#[test]
fn rules_test_passes_a_table_and_diffs_what_a_changed_rules_file_breaks() {
    let m = minter();
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.tsv");
    std::fs::write(&cases, CASES).unwrap();
    let rules = dir.path().join("rules");
    std::fs::write(&rules, RULES).unwrap();
    let r = m.noid(&[
        "rules",
        "test",
        rules.to_str().unwrap(),
        cases.to_str().unwrap(),
    ]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "6 of 6 cases answer as expected; 0 differ\n")
    );
    // The candidate drops the shoulder rule and forwards again.
    std::fs::write(&rules, CHANGED_RULES).unwrap();
    let r = m.noid(&[
        "rules",
        "test",
        rules.to_str().unwrap(),
        cases.to_str().unwrap(),
    ]);
    assert_eq!((r.code, r.stdout.as_str()), (1, CHANGED_DIFF));
    // A cases file that is not one.
    std::fs::write(&cases, "ark:/1/x redir302 y\n").unwrap();
    let r = m.noid(&[
        "rules",
        "test",
        rules.to_str().unwrap(),
        cases.to_str().unwrap(),
    ]);
    assert_eq!(
        (r.code, r.stderr),
        (
            2,
            format!(
                "noid rules test: bad cases file {}: line 1: want REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]: no tab in the line\n",
                cases.display()
            )
        )
    );
}

