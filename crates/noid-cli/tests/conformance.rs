//! The public conformance vectors (../shared/conformance-public.md), through the CLI.

use crate::util::*;

fn first_ids(args: &[&str], n: usize) -> Vec<String> {
    Dir::minter(args).mint(n)
}

#[test]
fn f5_reedeedk_long_first_three() {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let r = d.noid(&["mint", "3"]);
    assert_eq!(
        r.ok(),
        "id: 13030/f54x54g11\nid: 13030/f5154dn7k\nid: 13030/f5wd3q12m\n\n"
    );
    assert_eq!(r.stderr, "");
}

#[test]
fn f5_reedeedk_report_and_size() {
    let d = Dir::new();
    let r = d.noid(&[
        "dbcreate",
        "f5.reedeedk",
        "long",
        "13030",
        "cdlib.org",
        "oac/cmp",
    ]);
    let out = r.ok();
    assert!(out.starts_with("Created:   minter for 70728100 random identifiers of form f5.reedeedk\n       A Noid minting and binding database has been created that will bind\n       and mint 70,728,100 identifiers with the template \"f5.reedeedk\".\n       Sample identifiers would be \""), "{out}");
    assert!(
        out.ends_with(&format!(
            "\".\n       Minting order is random.  See {}/NOID/README for details.\n\n",
            d.path().display()
        )),
        "{out}"
    );
    let info = d.noid(&["dbinfo", "brief"]);
    assert!(
        info.ok().contains("\n  :/total: 70728100\n"),
        "{}",
        info.stdout
    );
    assert!(info.stdout.contains("\n  :/firstpart: 13030/f5\n"));
    assert!(info.stdout.contains("\n  :/percounter: 241393\n"));
    assert!(info.stdout.contains("\n  :/properties: GRANITE\n"));
    let full = d.noid(&["dbinfo", "full"]);
    assert!(
        full.ok().contains("\n  :/c292/top: 241344\n"),
        "last counter's top"
    );
    let readme = std::fs::read_to_string(d.path().join("NOID/README")).unwrap();
    assert!(readme.starts_with(
        "# Creation record for the identifier generator in NOID/noid.bdb.\n# \nerc:\nwho:       "
    ));
    assert!(readme.contains("\nSize:      70728100\nTemplate:  f5.reedeedk\n       A suggested parent directory for this template is \"noid_f57\".  Note:\n"));
    assert!(readme.contains("\nPolicy:    (:GRANITE)\n"));
    assert!(readme.contains(
        "\n          |||||||______ (E)lided of vowels to avoid creating words by accident\n"
    ));
    assert!(readme.ends_with("\nAuthority: cdlib.org | oac/cmp\nNAAN:      13030\n"));
}

/// The manual's bounds `13030/f5000000s` and `13030/f5zz9zz94` carry check characters
/// computed without the NAAN; with the NAAN-inclusive rule that `13030/f54x54g11`
/// requires, the first and last identifiers of the namespace are these.
#[test]
fn f5_namespace_bounds_validate() {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let r = d.noid(&["validate", "-", "13030/f50000005", "13030/f5zz9zz9d"]);
    assert_eq!(r.ok(), "id: 13030/f50000005\nid: 13030/f5zz9zz9d\n");
}

#[test]
fn s_zd_never_runs_out() {
    let ids = first_ids(&["s.zd"], 12);
    assert_eq!(
        ids,
        ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"]
    );
}

#[test]
fn tb7r_zdd_grows() {
    let ids = first_ids(&["tb7r.zdd"], 102);
    assert_eq!(ids[0], "tb7r00");
    assert_eq!(ids[1], "tb7r01");
    assert_eq!(ids[99], "tb7r99");
    assert_eq!(ids[100], "tb7r100");
    assert_eq!(ids[101], "tb7r101");
}

#[test]
fn xv_sdddd_last_is_xv9999_then_exhausted() {
    let d = Dir::minter(&["xv.sdddd"]);
    let ids = d.mint(10_000);
    assert_eq!(ids.len(), 10_000);
    assert_eq!(ids.last().unwrap(), "xv9999");
    let r = d.noid(&["mint", "1"]);
    r.failed();
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "error: identifiers exhausted (stopped at 10000).\n"
    );
}

#[test]
fn fk_redek_short_first() {
    assert_eq!(first_ids(&["fk.redek", "short"], 1), ["fk491f"]);
}

#[test]
fn rddd_medium_first_five() {
    assert_eq!(
        first_ids(&[".rddd"], 5),
        ["169", "041", "913", "781", "653"]
    );
}

#[test]
fn zdeek() {
    assert_eq!(first_ids(&[".zdeek"], 4), ["0000", "0013", "0026", "0039"]);
}

#[test]
fn sdeeedk() {
    assert_eq!(first_ids(&[".sdeeedk"], 3), ["000000", "000015", "00002b"]);
}

#[test]
fn se_29_then_exhausted() {
    let d = Dir::minter(&[".se"]);
    let r = d.noid(&["mint", "30"]);
    r.failed();
    let ids = ids(&r.stdout);
    let expect: Vec<String> = "0123456789bcdfghjkmnpqrstvwxz"
        .chars()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(ids, expect);
    assert!(
        !r.stdout.ends_with("\n\n"),
        "no final blank line after an error"
    );
    assert_eq!(r.stderr, "error: identifiers exhausted (stopped at 29).\n");
}

#[test]
fn sd_medium_exhausts_after_ten() {
    let d = Dir::minter(&[".sd"]);
    let r = d.noid(&["mint", "11"]);
    r.failed();
    assert_eq!(
        r.stdout,
        "id: 0\nid: 1\nid: 2\nid: 3\nid: 4\nid: 5\nid: 6\nid: 7\nid: 8\nid: 9\n"
    );
    assert_eq!(r.stderr, "error: identifiers exhausted (stopped at 10).\n");
}

#[test]
fn check_characters_validate() {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let r = d.noid(&[
        "validate",
        "-",
        "13030/f54x54g11",
        "13030/f54y54g11",
        "13030/f54x45g11",
    ]);
    assert_eq!(r.code, 1, "an iderr makes the exit status 1");
    assert_eq!(
        r.stdout,
        "id: 13030/f54x54g11\niderr: 13030/f54y54g11 has a check character error\niderr: 13030/f54x45g11 has a check character error\n"
    );
}

#[test]
fn fk_check_char_transpositions() {
    let d = Dir::minter(&["fk.redek", "short"]);
    let r = d.noid(&["validate", "-", "fk491f", "fk492f", "fk419f"]);
    assert_eq!(r.stdout, "id: fk491f\niderr: fk492f has a check character error\niderr: fk419f has a check character error\n");
}

#[test]
fn idmap_vectors() {
    let d = Dir::minter(&[]);
    d.noid(&["bind", "set", ":idmap/^ft", "redirect", "g7h"])
        .ok();
    d.noid(&[
        "bind",
        "set",
        ":idmap/^ft([^x]+)x(.*)",
        "my_elem",
        "$2/g7h/$1",
    ])
    .ok();
    assert_eq!(d.noid(&["get", "ft89xr2t", "redirect"]).ok(), "g7h89xr2t\n");
    assert_eq!(d.noid(&["get", "ft89xr2t", "my_elem"]).ok(), "r2t/g7h/89\n");
    let f = d.noid(&["fetch", "ft89xr2t", "redirect"]);
    assert_eq!(
        f.ok(),
        "id:    ft89xr2t\nCirc:  uncirculated\nredirect: g7h89xr2t\nnote: previous result produced by :idmap\n\n"
    );
}
