//! Unit tests of `template`.

use super::*;

fn err(t: &str) -> String {
    parse_template(t).unwrap_err().to_string()
}

#[test]
fn f5_reedeedk() {
    let t = parse_template("f5.reedeedk").unwrap();
    assert_eq!(t.template, "f5.reedeedk");
    assert_eq!(t.prefix, "f5");
    assert_eq!(t.mask, "reedeedk");
    assert_eq!(t.gen_type, GenType::Random);
    assert_eq!(t.total, 70_728_100);
    assert!(t.has_checkchar);
    assert_eq!(t.synonym, "f57");
    assert_eq!(t.padwidth(), 10);
    assert_eq!(t.properties("13030", true, true), "GRANITE");
    assert_eq!(human_num(t.total), "70,728,100");
}

#[test]
fn sequential_and_unlimited() {
    let t = parse_template(".sdd").unwrap();
    assert_eq!(
        (t.prefix.as_str(), t.total, t.synonym.as_str()),
        ("", 100, "2")
    );
    assert_eq!(t.gen_type, GenType::Sequential);
    assert_eq!(t.padwidth(), 5);
    let t = parse_template("s.zd").unwrap();
    assert_eq!(t.total, NOLIMIT);
    assert!(t.is_unlimited());
    assert_eq!(t.gen_type, GenType::Sequential);
    assert_eq!(t.synonym, "s1+");
    assert_eq!(t.padwidth(), 18);
    assert_eq!(parse_template("xv.sdddd").unwrap().total, 10_000);
    assert_eq!(parse_template("fk.redek").unwrap().total, 8_410);
    assert_eq!(parse_template(".rddd").unwrap().total, 1_000);
    assert_eq!(parse_template(".se").unwrap().total, 29);
}

#[test]
fn trailing_junk_directory_and_whitespace() {
    let t = parse_template("x.sdd-foo.bar").unwrap();
    assert_eq!((t.prefix.as_str(), t.mask.as_str()), ("x", "sdd"));
    let t = parse_template("some/dir/ab.rdd/ \t\n").unwrap();
    assert_eq!((t.prefix.as_str(), t.mask.as_str()), ("ab", "rdd"));
    assert_eq!(t.template, "some/dir/ab.rdd/ \t\n");
    let t = parse_template("a.b.sd").unwrap_err();
    assert_eq!(t, TemplateError::BadGenerator);
    // A newline in the directory part defeats Perl's `.*`, so nothing matches.
    assert_eq!(
        parse_template("a\nb/c.sd").unwrap_err(),
        TemplateError::NoMinting
    );
}

#[test]
fn no_minting() {
    for t in ["", "-", "0", "/", " ", "dir/-", "-/"] {
        assert_eq!(err(t), "parse_template: no minting possible.", "{t:?}");
    }
}

#[test]
fn bad_templates_give_perl_messages() {
    let no_mask = "parse_template: no template mask - can't generate identifiers.";
    assert_eq!(err("abc"), no_mask);
    assert_eq!(err("ab."), no_mask);
    assert_eq!(err("ab.-rd"), no_mask);
    assert_eq!(
            err(".q"),
            "parse_template: mask must begin with one of the letters\n'r' (random), 's' (sequential), or 'z' (sequential unlimited)."
        );
    assert_eq!(err(".Rdd"), err(".q"));
    let cc = "parse_template: exactly one check character (k) is allowed, and it may\nonly appear at the end of a string of one or more mask characters.";
    for t in [".r", ".rk", ".rdkk", ".rkd", ".zk", "x.sdkd"] {
        assert_eq!(err(t), cc, "{t}");
    }
    let md = "parse_template: a mask may contain only the letters 'd' or 'e'.";
    for t in ["ab.rdqdk", ".rddq", ".sD", ".z_"] {
        assert_eq!(err(t), md, "{t}");
    }
    let px = "parse_template: with a check character at the end, a mask may contain only characters from \"0123456789bcdfghjkmnpqrstvwxz\".";
    for t in ["a.rdk", "x-.rdk", "F.sdk", "bl.rek"] {
        assert_eq!(err(t), px, "{t}");
    }
    // The prefix may contain `/` and xdigits with a check character.
    // "x/" is a directory, so ".rdk" (empty prefix) is what gets parsed.
    assert_eq!(parse_template("x/.rdk").unwrap().prefix, "");
    assert!(parse_template("xz.redek").is_ok());
    // Without a check character any prefix is fine.
    assert!(parse_template("a-B.rdd").is_ok());
}

#[test]
fn too_large_namespace_is_refused() {
    assert!(parse_template(".sddddddddddddddddd").is_ok()); // 10^18
    assert_eq!(
        parse_template(".sdddddddddddddddddddd").unwrap_err(),
        TemplateError::TooLarge
    );
    // Unlimited masks have no total, so any length is accepted.
    assert!(parse_template(".zdddddddddddddddddddddddd").is_ok());
}

#[test]
fn properties_letters() {
    let p = |t: &str, naan: &str, long: bool, genonly: bool| {
        parse_template(t).unwrap().properties(naan, long, genonly)
    };
    assert_eq!(p("f5.reedeedk", "00000", true, true), "-RANITE");
    assert_eq!(p("f5.reedeedk", "", false, true), "-RA-ITE");
    assert_eq!(p(".sdd", "13030", false, true), "G-A-I-E");
    // Three alphabetic positions in a row: no A.
    assert_eq!(p("x.seeed", "", false, true), "----I-E");
    assert_eq!(p("xy.sdd", "", false, true), "--A-I--");
    assert_eq!(p(".zed", "", false, true), "----I-E");
    assert_eq!(p(".zde", "", false, true), "--A-I-E");
    // A hyphen loses I; the vowel `a` loses E.
    assert_eq!(p("a-b.sdd", "", false, true), "--A----");
}

#[test]
fn bind_only_minter_properties() {
    let t = parse_template(".zd").unwrap();
    assert_eq!(t.properties("", false, false), "------E");
    assert_eq!(t.properties("13030", true, false), "G--N--E");
}

#[test]
fn human_num_groups() {
    assert_eq!(human_num(0), "0");
    assert_eq!(human_num(999), "999");
    assert_eq!(human_num(1000), "1,000");
    assert_eq!(human_num(8410), "8,410");
    assert_eq!(human_num(100_000), "100,000");
    assert_eq!(human_num(1_234_567), "1,234,567");
    assert_eq!(human_num(-1234), "-1234");
}

#[test]
fn gen_type_strings() {
    assert_eq!(GenType::Random.as_str(), "random");
    assert_eq!(GenType::Sequential.to_string(), "sequential");
    assert_eq!(GenType::from_stored("sequential"), GenType::Sequential);
    assert_eq!(GenType::from_stored(""), GenType::Random);
}
