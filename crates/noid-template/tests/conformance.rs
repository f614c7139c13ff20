//! The public conformance vectors (`shared/conformance-public.md`) for minting order,
//! check characters and validate, asserted through the library exactly as the minter
//! uses it.

mod support;

use noid_template::checkchar::{checkchar, compute, verify};
use noid_template::drand48::perl_rand_index;
use noid_template::generator::{n2xdig, GenError};
use noid_template::template::human_num;
use noid_template::validate::validate_ids;
use support::Minter;

#[test]
fn f5_reedeedk_long_13030() {
    let mut m = Minter::new("f5.reedeedk", "long", "13030");
    assert_eq!(human_num(m.template.total), "70,728,100");
    assert_eq!(
        m.mint_n(3),
        ["13030/f54x54g11", "13030/f5154dn7k", "13030/f5wd3q12m"]
    );
    assert_eq!(m.template.properties("13030", true, true), "GRANITE");
}

#[test]
fn f5_reedeedk_namespace_bounds() {
    // The smallest body is the number `total`, which wraps to all zeros; it is the
    // last value of the last counter. The largest is total - 1.
    let mut m = Minter::new("f5.reedeedk", "long", "13030");
    let last = m.state.counters.len() - 1;
    m.state.counters[last].value = m.state.counters[last].top - 1;
    m.state.saclist = vec![last as u32];
    assert_eq!(m.mint().unwrap(), "13030/f50000005");
    assert_eq!(n2xdig(70_728_099, "reedeedk").unwrap(), "zz9zz9+");

    // The manual (and the conformance table) quote the bounds as 13030/f5000000s and
    // 13030/f5zz9zz94: those check characters were computed without the "13030/"
    // that Perl's mint really includes, so the real minter issues the ids below.
    assert_eq!(compute("f5000000"), 's');
    assert_eq!(compute("f5zz9zz9"), '4');
    assert_eq!(checkchar("13030/f5000000+").unwrap(), "13030/f50000005");
    assert_eq!(checkchar("13030/f5zz9zz9+").unwrap(), "13030/f5zz9zz9d");
    assert_eq!(
        validate_ids(
            "-",
            "f5.reedeedk",
            "13030",
            &["13030/f50000005", "13030/f5zz9zz9d"]
        )
        .unwrap(),
        ["id: 13030/f50000005", "id: 13030/f5zz9zz9d"]
    );
}

#[test]
fn s_zd_never_runs_out() {
    let mut m = Minter::new("s.zd", "-", "");
    let ids = m.mint_n(12);
    assert_eq!(
        ids,
        ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"]
    );
    assert_eq!(m.template.total, -1);
}

#[test]
fn tb7r_zdd_grows() {
    let mut m = Minter::new("tb7r.zdd", "-", "");
    let ids = m.mint_n(102);
    assert_eq!(ids[0], "tb7r00");
    assert_eq!(ids[1], "tb7r01");
    assert_eq!(ids[99], "tb7r99");
    assert_eq!(ids[100], "tb7r100");
    assert_eq!(ids[101], "tb7r101");
}

#[test]
fn xv_sdddd_last_is_xv9999() {
    let mut m = Minter::new("xv.sdddd", "-", "");
    assert_eq!(human_num(m.template.total), "10,000");
    let ids = m.mint_n(10_000);
    assert_eq!(ids[0], "xv0000");
    assert_eq!(ids[9_999], "xv9999");
    assert_eq!(
        m.mint().unwrap_err().to_string(),
        "identifiers exhausted (stopped at 10000)."
    );
}

#[test]
fn fk_redek_short() {
    let mut m = Minter::new("fk.redek", "short", "");
    assert_eq!(human_num(m.template.total), "8,410");
    assert_eq!(m.mint().unwrap(), "fk491f");
}

#[test]
fn rddd_medium() {
    let mut m = Minter::new(".rddd", "-", "");
    assert_eq!(human_num(m.template.total), "1,000");
    assert_eq!(m.mint_n(5), ["169", "041", "913", "781", "653"]);
}

#[test]
fn zdeek() {
    let mut m = Minter::new(".zdeek", "-", "");
    assert_eq!(m.mint_n(4), ["0000", "0013", "0026", "0039"]);
}

#[test]
fn sdeeedk() {
    let mut m = Minter::new(".sdeeedk", "-", "");
    assert_eq!(m.mint_n(3), ["000000", "000015", "00002b"]);
}

#[test]
fn se_has_29_ids_then_exhausts() {
    let mut m = Minter::new(".se", "-", "");
    let ids = m.mint_n(29);
    let expected: Vec<String> = "0123456789bcdfghjkmnpqrstvwxz"
        .chars()
        .map(String::from)
        .collect();
    assert_eq!(ids, expected);
    assert_eq!(
        m.mint().unwrap_err().to_string(),
        "identifiers exhausted (stopped at 29)."
    );
}

#[test]
fn sd_medium_exhausts_after_10() {
    let mut m = Minter::new(".sd", "medium", "");
    assert_eq!(
        m.mint_n(10),
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
    );
    let err = m.mint().unwrap_err();
    assert!(matches!(err, GenError::Exhausted(e) if e.stopped_at == 10));
    assert_eq!(
        format!("error: {err}"),
        "error: identifiers exhausted (stopped at 10)."
    );
    // It stays exhausted.
    assert!(m.mint().is_err());
}

#[test]
fn z_growth_repeats_the_radix_after_z() {
    assert_eq!(n2xdig(289, "zed").unwrap(), "z9");
    assert_eq!(n2xdig(290, "zed").unwrap(), "100");
    assert_eq!(n2xdig(28, "zde").unwrap(), "0z");
    assert_eq!(n2xdig(29, "zde").unwrap(), "10");
    assert_eq!(n2xdig(290, "zde").unwrap(), "100");
    // The same through minting: the n-th id is number n.
    let ids = Minter::new(".zed", "-", "").mint_n(291);
    assert_eq!((ids[289].as_str(), ids[290].as_str()), ("z9", "100"));
    let ids = Minter::new(".zde", "-", "").mint_n(291);
    assert_eq!(
        (ids[28].as_str(), ids[29].as_str(), ids[290].as_str()),
        ("0z", "10", "100")
    );
}

#[test]
fn check_character_vectors() {
    assert_eq!(compute("13030/xf93gt2"), 'q');
    assert_eq!(checkchar("13030/xf93gt2+").unwrap(), "13030/xf93gt2q");
    assert_eq!(compute("13030/f54x54g1"), '1');
    assert_eq!(checkchar("13030/f54x54g1+").unwrap(), "13030/f54x54g11");
    assert_eq!(compute("fk491"), 'f');
    assert!(verify("fk491f"));
    assert!(!verify("fk492f"));
    assert!(!verify("fk419f"));
    assert_eq!(
        validate_ids("fk.redek", "fk.redek", "", &["fk491f", "fk492f", "fk419f"]).unwrap(),
        [
            "id: fk491f",
            "iderr: fk492f has a check character error",
            "iderr: fk419f has a check character error"
        ]
    );
    // Including the NAAN changes the result.
    assert_eq!(compute("xf93gt2"), '1');
}

#[test]
fn validate_vector() {
    let lines = validate_ids(
        "-",
        "f5.reedeedk",
        "13030",
        &["13030/f54x54g11", "13030/f54y54g11", "13030/f54x45g11"],
    )
    .unwrap();
    assert_eq!(
        lines.join("\n"),
        "id: 13030/f54x54g11\n\
         iderr: 13030/f54y54g11 has a check character error\n\
         iderr: 13030/f54x45g11 has a check character error"
    );
}

/// `int(rand(len))` after `srand(seed)`, evaluated independently of the library with
/// 128-bit integers straight from the formula in the spec.
fn hand_rand_index(seed: u64, len: u128) -> usize {
    let x0 = (u128::from(seed as u32) << 16) | 0x330E;
    let x1 = (0x5DEECE66Du128 * x0 + 0xB) % (1u128 << 48);
    // floor(len * x1 / 2^48) exactly; the f64 product agrees for len <= 293.
    ((len * x1) >> 48) as usize
}

#[test]
fn short_random_minter_wraps_with_the_seed_quirk() {
    let mut m = Minter::new(".rdd", "short", "");
    assert_eq!(
        (m.template.total, m.state.percounter, m.state.counters.len()),
        (100, 1, 100)
    );
    let first = m.mint_n(100);
    let mut sorted = first.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        100,
        "the whole namespace once before wrapping"
    );
    assert_eq!(&first[..3], ["18", "05", "92"]);

    // Post-wrap pick 1: srand was called with the OLD oacounter (100). All 100
    // one-number counters are fresh, so counter n = index yields number n + 1.
    let i = hand_rand_index(100, 100);
    assert_eq!(i, 25); // X1 = 70666798780673
    let expected_first = format!("{:02}", (i + 1) % 100);
    // Post-wrap pick 2: seed 1 (oacounter was reset to 0, then advanced), over the
    // 99 counters left after removing counter i.
    let mut left: Vec<usize> = (0..100).filter(|n| *n != i).collect();
    let n2 = left.remove(hand_rand_index(1, 99));
    let expected_second = format!("{:02}", (n2 + 1) % 100);
    assert_eq!(
        (expected_first.as_str(), expected_second.as_str()),
        ("26", "05")
    );

    assert_eq!(m.mint_n(2), [expected_first, expected_second]);
    assert_eq!(m.state.oacounter, 2);
    // Seeding with 0 instead would have repeated the very first id.
    assert_eq!(perl_rand_index(0, 100), 17);
}

#[test]
fn sequential_short_minter_wraps_to_zero() {
    let mut m = Minter::new("x.sdd", "short", "");
    let ids = m.mint_n(102);
    assert_eq!(
        (ids[99].as_str(), ids[100].as_str(), ids[101].as_str()),
        ("x99", "x00", "x01")
    );
}
