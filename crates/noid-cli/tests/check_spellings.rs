//! `noid check` finds an identifier stored under several spellings (records an old
//! minter wrote before the identifier gate: `ark:13030/x`, `ARK:/13030/x`, a resolver
//! URL, beside the directory's own `13030/x`), and `noid check --repair` merges them
//! into the directory's spelling, leaving an identifier whose spellings hold different
//! values to a person.
//!
//! The split minter is made as an old one arrives: the records are planted in a `noid
//! export` of a minter, which `noid import` loads key for key (the gate does not
//! respell an import). Expected identifiers come from the CLI minting a twin of the
//! minter; expected values are the ones planted and bound; the expected keys after the
//! merge are the original minter's own (`dbinfo dump`), with the planted ones moved.

use crate::util::Dir;

const TEMPLATE: [&str; 5] = ["f5.reedeedk", "long", "13030", "example.org", "test"];

/// A time after any test run (2100-01-01), as a last write planted under another
/// spelling: the merge keeps it, being the later one.
const LATER: &str = "4102444800";

/// A minter of TEMPLATE with two minted identifiers, the first bound, as its
/// `dbinfo dump` lines and its export with `planted` records (export lines, `\t` in
/// the key) added.
fn minter_with(planted: &[&str]) -> (Vec<String>, Vec<u8>) {
    let old = Dir::minter(&TEMPLATE);
    assert_eq!(old.mint(2), ["13030/f54x54g11", "13030/f5154dn7k"]);
    old.noid(&[
        "bind",
        "set",
        "13030/f54x54g11",
        "_t",
        "https://example.org/a",
    ])
    .ok();
    let dump = old.noid(&["dbinfo", "dump"]).ok().to_string();
    let export = old.noid(&["export"]).ok().to_string();
    let mut lines: Vec<&str> = export.lines().collect();
    let trailer = lines.pop().unwrap();
    let count: usize = trailer.strip_prefix("# end ").unwrap().parse().unwrap();
    lines.extend_from_slice(planted);
    let text = format!("{}\n# end {}\n", lines.join("\n"), count + planted.len());
    (
        dump.lines().map(str::to_string).collect(),
        text.into_bytes(),
    )
}

/// A new directory importing `export`.
fn imported(export: &[u8]) -> Dir {
    let d = Dir::new();
    d.noid_stdin(&["import", "-"], export).ok();
    d
}

/// The report `noid check` prints before its problems, for the split minter: the
/// next identifiers are the ones a twin mints after the first two.
fn report_head(bindings: &str) -> String {
    let twin = Dir::minter(&TEMPLATE);
    let next: String = twin.mint(12)[2..]
        .iter()
        .map(|id| format!("next:        {id} free\n"))
        .collect();
    format!(
        "template:    f5.reedeedk (random, long term)\n\
         minted:      :/oacounter 2; circulation records: 2 issued, 0 queued, 0 unqueued\n\
         held:        2\n\
         queued:      0\n\
         left:        70728098\n\
         bindings:    {bindings}\n\
         {next}"
    )
}

#[test]
fn check_finds_an_identifier_under_several_spellings_and_repair_merges_it() {
    let (own, export) = minter_with(&[
        "ark:13030/f54x54g11\\t_t\thttps://example.org/a",
        "ark:13030/f54x54g11\\twhat\tMigrant Mother",
        &format!("ark:13030/f54x54g11\\t:/m\t{LATER}"),
        "ARK:/13030/f54x54g11\\twho\tDorothea Lange",
        "https://n2t.net/ark:/13030/f5154dn7k\\t_t\thttps://example.org/b",
    ]);
    let d = imported(&export);
    let head = report_head("5 on 4 identifiers, 0 :idmap rules, 0 notes");
    let problems = "problem: 13030/f5154dn7k is stored under 2 spellings: 13030/f5154dn7k, https://n2t.net/ark:/13030/f5154dn7k\n\
                    problem: 13030/f54x54g11 is stored under 3 spellings: 13030/f54x54g11, ARK:/13030/f54x54g11, ark:13030/f54x54g11\n";

    let check = d.noid(&["check"]);
    check.failed();
    assert_eq!(check.stdout, format!("{head}{problems}"));
    assert_eq!(
        check.stderr,
        "error: 2 problems found; \"noid check --repair\" repairs them\n"
    );
    // The split is real: the directory's spelling shows only its own part (and `get`
    // fails for the elements it lacks).
    let split = d.noid(&["get", "13030/f54x54g11", "_t", "what", "who"]);
    split.failed();
    assert_eq!(split.stdout, "https://example.org/a\n\n\n");

    let repair = d.noid(&["check", "--repair"]);
    assert_eq!(
        repair.ok(),
        format!(
            "{head}{problems}\
             repaired: https://n2t.net/ark:/13030/f5154dn7k merged into 13030/f5154dn7k (1 key)\n\
             repaired: ARK:/13030/f54x54g11, ark:13030/f54x54g11 merged into 13030/f54x54g11 (4 keys)\n\
             ok: 2 problems repaired\n"
        )
    );
    d.assert_check_clean();
    assert_eq!(
        d.noid(&["get", "13030/f54x54g11", "_t", "what", "who"])
            .ok(),
        "https://example.org/a\nMigrant Mother\nDorothea Lange\n"
    );
    assert_eq!(
        d.noid(&["get", "13030/f5154dn7k", "_t"]).ok(),
        "https://example.org/b\n"
    );

    // Every key is the original minter's, with the planted ones moved to the
    // directory's spelling and the later last write kept; none is left under another.
    let mut expected: Vec<String> = own
        .iter()
        .map(|l| {
            if l.starts_with("13030/f54x54g11\t:/m: ") {
                format!("13030/f54x54g11\t:/m: {LATER}")
            } else {
                l.clone()
            }
        })
        .chain([
            "13030/f54x54g11\twhat: Migrant Mother".to_string(),
            "13030/f54x54g11\twho: Dorothea Lange".to_string(),
            "13030/f5154dn7k\t_t: https://example.org/b".to_string(),
        ])
        .collect();
    expected.sort();
    assert!(
        own.iter().any(|l| l.starts_with("13030/f54x54g11\t:/m: ")),
        "the bind recorded a last write: {own:?}"
    );
    let mut dump: Vec<String> = d
        .noid(&["dbinfo", "dump"])
        .ok()
        .lines()
        .map(str::to_string)
        .collect();
    dump.sort();
    assert_eq!(dump, expected);
}

#[test]
fn spellings_with_different_values_are_reported_and_left_as_they_are() {
    let (_, export) = minter_with(&[
        "ark:13030/f54x54g11\\t_t\thttps://example.org/other",
        "ark:13030/f54x54g11\\twhat\tMigrant Mother",
    ]);
    let d = imported(&export);
    let head = report_head("3 on 2 identifiers, 0 :idmap rules, 0 notes");
    let problem = "problem: 13030/f54x54g11 is stored under 2 spellings: 13030/f54x54g11, ark:13030/f54x54g11; they hold different values of _t, so they are not merged (needs repairing by hand)\n";
    let dump = d.noid(&["dbinfo", "dump"]).ok().to_string();

    let check = d.noid(&["check"]);
    check.failed();
    assert_eq!(check.stdout, format!("{head}{problem}"));
    assert_eq!(
        check.stderr,
        "error: 1 problem found; it needs repairing by hand (see docs/MIGRATION.md)\n"
    );

    let repair = d.noid(&["check", "--repair"]);
    repair.failed();
    assert_eq!(repair.stdout, format!("{head}{problem}{problem}"));
    assert_eq!(
        repair.stderr,
        "error: 1 problem remains after repair; see docs/MIGRATION.md\n"
    );
    assert_eq!(d.noid(&["dbinfo", "dump"]).ok(), dump, "nothing changed");
}

/// The ARK draft's normal form (issue 47): `noid bind` writes an ARK without its
/// hyphens and with `%XX` upper-cased, and egg's reads find it in any of those
/// spellings; an old store holding two spellings of one ARK (with and without hyphens,
/// `%7e` and `%7E`) is merged by `--repair`, and one whose spellings hold different
/// targets is reported and left alone.
#[test]
fn spellings_the_ark_draft_equates_are_one_record_and_old_ones_merge() {
    let d = Dir::new();
    d.noid(&["dbcreate"]).ok();
    d.noid(&[
        "bind",
        "set",
        "ark:/13030/x9-ab-cd",
        "_t",
        "https://example.org/h",
    ])
    .ok();
    d.noid(&[
        "bind",
        "set",
        "ark:/99999/w%7e1",
        "_t",
        "https://example.org/w",
    ])
    .ok();
    for spelling in ["ark:/13030/x9abcd", "13030/x9-ab-cd", "ark:13030/x9‐ab‐cd"] {
        assert_eq!(
            d.noid(&[&format!("{spelling}.get"), "_t"]).ok(),
            "https://example.org/h\n\n",
            "{spelling}"
        );
    }
    let dump = d.noid(&["dbinfo", "dump"]).ok().to_string();
    assert!(
        dump.contains("ark:/13030/x9abcd\t_t: https://example.org/h\n"),
        "{dump}"
    );
    assert!(
        dump.contains("ark:/99999/w%7E1\t_t: https://example.org/w\n"),
        "{dump}"
    );
    assert!(!dump.contains("x9-ab") && !dump.contains("%7e"), "{dump}");
    d.assert_check_clean();

    let (_, export) = minter_with(&[
        "13030/x9-ab-cd\\t_t\thttps://example.org/h",
        "13030/x9abcd\\t_t\thttps://example.org/h",
        "13030/x9abcd\\twhat\tboth",
        "ark:/99999/w%7e1\\t_t\thttps://example.org/w",
        "13030/y7-z\\t_t\thttps://example.org/one",
        "13030/y7z\\t_t\thttps://example.org/two",
    ]);
    let old = imported(&export);
    let head = report_head("7 on 6 identifiers, 0 :idmap rules, 0 notes");
    let problems = "problem: 13030/x9abcd is stored under 2 spellings: 13030/x9abcd, 13030/x9-ab-cd\n\
                    problem: 13030/y7z is stored under 2 spellings: 13030/y7z, 13030/y7-z; they hold different values of _t, so they are not merged (needs repairing by hand)\n\
                    problem: ark:/99999/w%7e1 is stored under a spelling other than the binder's (ark:/99999/w%7E1)\n";
    let check = old.noid(&["check"]);
    check.failed();
    assert_eq!(check.stdout, format!("{head}{problems}"));
    let repair = old.noid(&["check", "--repair"]);
    repair.failed();
    assert_eq!(
        repair.stdout,
        format!(
            "{head}{problems}\
             repaired: 13030/x9-ab-cd merged into 13030/x9abcd (1 key)\n\
             repaired: ark:/99999/w%7e1 merged into ark:/99999/w%7E1 (1 key)\n\
             problem: 13030/y7z is stored under 2 spellings: 13030/y7z, 13030/y7-z; they hold different values of _t, so they are not merged (needs repairing by hand)\n"
        )
    );
    assert_eq!(old.noid(&["13030/x9-ab-cd.get", "what"]).ok(), "both\n\n");
    let dump = old.noid(&["dbinfo", "dump"]).ok().to_string();
    assert!(
        dump.contains("13030/y7-z\t_t: https://example.org/one\n"),
        "{dump}"
    );
    assert!(
        dump.contains("13030/y7z\t_t: https://example.org/two\n"),
        "{dump}"
    );
    assert!(
        !dump.contains("x9-ab-cd") && !dump.contains("%7e"),
        "{dump}"
    );
}
