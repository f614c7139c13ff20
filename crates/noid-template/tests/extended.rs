//! Minting beyond Perl Noid: Noid4Php's extended repertoires (first identifiers of new
//! minters, checked against spec-minting-extended §1 and against an independent Python
//! re-implementation of the spec, `scripts/mint-vectors.py`), the check repertoires'
//! error detection, and template growth.

mod support;

use std::collections::HashSet;

use noid_template::repertoire::{check_repertoire, Repertoire};
use noid_template::template::{parse_template, TemplateError};
use proptest::prelude::*;
use support::Minter;

/// The first `expected.len()` identifiers of a new minter.
#[track_caller]
fn check_first(template: &str, term: &str, naan: &str, expected: &[&str]) {
    let mut m = Minter::new(template, term, naan);
    assert_eq!(m.mint_n(expected.len()), expected, "{template}");
}

/// spec-minting-extended §1, vectors recorded from Noid4Php 1.4.0.
#[test]
fn noid4php_vectors() {
    check_first(
        "x4.rvvvvk",
        "long",
        "13030",
        &[
            "13030/x46bnnd",
            "13030/x41j2rd",
            "13030/x4xqn6h",
            "13030/x4sy2ah",
            "13030/x4o4ieg",
        ],
    );
    check_first(
        "z.zvk",
        "-",
        "",
        &[
            "z0z", "z10", "z22", "z34", "z46", "z58", "z6a", "z7c", "z8e", "z9g",
        ],
    );
    let mut sxx: Vec<String> = "0123456789abcdef_"
        .chars()
        .map(|c| format!("0{c}"))
        .collect();
    sxx.extend(["10".to_string(), "11".to_string()]);
    let sxx: Vec<&str> = sxx.iter().map(String::as_str).collect();
    check_first(".sxx", "-", "", &sxx);
    check_first(
        "q.sEEEk",
        "-",
        "",
        &["q111q", "q112v", "q113B", "q114G", "q115M"],
    );
}

/// Further templates, every repertoire and generator letter, with expected values from
/// `python3 scripts/mint-vectors.py TEMPLATE[:NAAN] N`.
#[test]
fn more_templates_from_the_reference_script() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            ".riiik",
            "99999",
            &[
                "99999/1967",
                "99999/051b",
                "99999/x061",
                "99999/871t",
                "99999/722h",
                "99999/588j",
            ],
        ),
        (
            "b.rxxxxk",
            "",
            &["b2f84a", "b0be_a", "bf93_7", "bd5abb", "bb2061", "b8f713"],
        ),
        (
            "w4.rllllk",
            "13030",
            &[
                "13030/w4apZsW",
                "13030/w42vphh",
                "13030/w4UAQRG",
                "13030/w4MGfH1",
                "13030/w4ELFxc",
                "13030/w4wR4ny",
            ],
        ),
        (".swwk", "", &["000", "012", "024", "036", "048", "05a"]),
        (".rccc", "", &["46<", "$_V", "w1\"", "kY@", "`$Z", "SPu"]),
        (".scck", "", &["!!!", "!\"#", "!#&", "!$("]),
        (
            "x.rvEdk",
            "",
            &["x6f1r", "x1w11", "xxH1v", "xsZ18", "xo71D", "xjp1g"],
        ),
        (".rEdk", "", &["91b", "29k", "T9b", "M94", "D7R", "v7J"]),
        (
            ".zik",
            "",
            &[
                "00", "11", "22", "33", "44", "55", "66", "77", "88", "99", "xx", "101", "113",
            ],
        ),
        (".rdik", "", &["18k", "05b", "92f", "79v", "66m", "53c"]),
        ("t.sveEk", "", &["t001x", "t002B", "t003F", "t004J"]),
        (".ziik", "", &["000", "012", "024"]),
    ];
    for (template, naan, expected) in cases {
        let term = if naan.is_empty() { "-" } else { "long" };
        check_first(template, term, naan, expected);
    }
}

/// `.zEk` grows in `E`, whose first digit is `1`: after `ZZ` (46) comes `212`.
#[test]
fn z_growth_in_an_extended_repertoire() {
    let mut m = Minter::new(".zEk", "-", "");
    let ids = m.mint_n(49);
    assert_eq!(&ids[..3], ["11", "22", "33"]);
    assert_eq!(&ids[45..], ["XX", "ZZ", "212", "224"]);
}

#[test]
fn check_repertoire_of_templates() {
    let check = |t: &str| parse_template(t).unwrap().check;
    assert_eq!(check("x4.rvvvvk"), Some(Repertoire::Lowercase));
    assert_eq!(check("z.zvk"), Some(Repertoire::Lowercase));
    assert_eq!(check("q.sEEEk"), Some(Repertoire::MixedBetanumeric));
    assert_eq!(check(".rdik"), Some(Repertoire::Betanumeric));
    assert_eq!(check("13030/a.rik"), Some(Repertoire::Lowercase));
    assert_eq!(check("f5.reedeedk"), Some(Repertoire::Betanumeric));
    assert_eq!(check(".sxx"), None);
    // Perl's rule and message stay for `d`/`e` masks, even where an extended
    // repertoire would hold the prefix.
    assert_eq!(
        parse_template("a.rdk").unwrap_err(),
        TemplateError::BadPrefixForCheckChar
    );
    assert_eq!(
        parse_template("a%.rvk").unwrap_err(),
        TemplateError::NoCheckRepertoire
    );
    assert!(parse_template("a%.rv").is_ok());
    assert_eq!(
        parse_template(".rdqd").unwrap_err().to_string(),
        "parse_template: a mask may contain only the letters 'd' or 'e'."
    );
    assert_eq!(
        parse_template(".scccccccccc").unwrap_err(),
        TemplateError::TooLarge
    );
    assert!(parse_template(".rc").unwrap().needs_escaping());
    assert!(!parse_template(".rw").unwrap().needs_escaping());
}

#[test]
fn properties_of_extended_templates() {
    let p = |t: &str| parse_template(t).unwrap().properties("", false, true);
    // `i` and `E` have no vowels; `v` has.
    assert_eq!(p(".riik"), "-R--ITE");
    assert_eq!(p(".rEEk"), "-R--ITE");
    assert_eq!(p(".rvk"), "-RA-IT-");
    assert_eq!(p("lui10-4"), "-R--IT-");
}

/// Every check repertoire's size is prime, and identifiers shorter than it made of
/// its characters have every single substitution and adjacent transposition caught.
fn check_catches(r: Repertoire, ordinals: &[usize]) -> Result<(), TestCaseError> {
    let chars = r.chars();
    let mut id: Vec<u8> = ordinals.iter().map(|o| chars[o % chars.len()]).collect();
    id.push(r.check_char(&id));
    let good = |s: &[u8]| s.split_last().is_some_and(|(l, b)| *l == r.check_char(b));
    prop_assert!(good(&id));
    for i in 0..id.len() {
        for c in chars.iter().filter(|c| **c != id[i]) {
            let mut v = id.clone();
            v[i] = *c;
            prop_assert!(!good(&v), "{:?} substitution at {}", r, i);
        }
        if i + 1 < id.len() && id[i] != id[i + 1] {
            let mut v = id.clone();
            v.swap(i, i + 1);
            prop_assert!(!good(&v), "{:?} transposition at {}", r, i);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_check_repertoire_catches_substitutions_and_transpositions(
        r in prop::sample::select(vec![
            Repertoire::Betanumeric, Repertoire::Hex, Repertoire::Lowercase,
            Repertoire::MixedBetanumeric, Repertoire::Alphanumeric, Repertoire::Wide,
            Repertoire::Visible,
        ]),
        ordinals in prop::collection::vec(0usize..89, 1..28),
    ) {
        let n = r.radix() as usize;
        prop_assert!((2..n).all(|d| !n.is_multiple_of(d)), "{} is prime", n);
        let len = ordinals.len().min(n - 2);
        check_catches(r, &ordinals[..len])?;
    }

    /// Small bounded extended templates issue their whole namespace once, and every
    /// identifier validates.
    #[test]
    fn extended_namespaces_once_and_valid(
        prefix in prop::sample::select(vec!["", "x", "b4", "Q_"]),
        gen in prop::sample::select(vec!['r', 's']),
        positions in prop::collection::vec(prop::sample::select(vec!['d', 'i', 'x', 'E', 'v', 'l', 'w', 'c']), 1..=2),
        k in any::<bool>(),
    ) {
        let mut t = format!("{prefix}.{gen}");
        t.extend(positions);
        if k {
            t.push('k');
        }
        // Perl's rule refuses a prefix like `Q_` with a check character over `d` only.
        prop_assume!(parse_template(&t).is_ok());
        let mut m = Minter::new(&t, "-", "");
        let total = usize::try_from(m.template.total).unwrap();
        let ids = m.mint_n(total);
        let unique: HashSet<&String> = ids.iter().collect();
        prop_assert_eq!(unique.len(), total);
        prop_assert!(m.mint().is_err());
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        for (line, id) in noid_template::validate::validate_ids("-", &t, "", &refs).unwrap().iter().zip(&ids) {
            prop_assert_eq!(line, &format!("id: {id}"));
        }
    }
}

#[test]
fn the_check_repertoire_rule_prefers_the_narrowest() {
    use Repertoire::*;
    assert_eq!(check_repertoire("", &[Digit]), Some(Betanumeric));
    assert_eq!(check_repertoire("", &[Alphanumeric, Hex]), Some(Wide));
}
