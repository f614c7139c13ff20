//! Unit tests of `generator`.

use super::*;

fn n2x(num: u64, mask: &str) -> String {
    n2xdig(num, mask).unwrap()
}

#[test]
fn n2xdig_spec_values() {
    assert_eq!(n2x(0, "zdd"), "00");
    assert_eq!(n2x(99, "zdd"), "99");
    assert_eq!(n2x(100, "zdd"), "100");
    assert_eq!(n2x(1000, "zdd"), "1000");
    assert_eq!(n2x(289, "zed"), "z9");
    assert_eq!(n2x(290, "zed"), "100");
    assert_eq!(n2x(28, "zde"), "0z");
    assert_eq!(n2x(29, "zde"), "10");
    assert_eq!(n2x(290, "zde"), "100");
    assert_eq!(n2x(100, "rdd"), "00");
    assert_eq!(n2x(101, "rdd"), "01");
    assert_eq!(n2x(8410, "zdeek"), "1000+");
    assert_eq!(n2x(1 + 50 * 241_393, "reedeedk"), "4x54g1+");
    assert_eq!(n2x(1 + 12 * 241_393, "reedeedk"), "154dn7+");
    assert_eq!(n2x(0, "sdddd"), "0000");
    assert_eq!(n2x(u64::MAX, "zd").len(), 20);
}

#[test]
fn n2xdig_rejects_bad_masks() {
    for m in [
        "", "r", "rk", "qdd", "rdq", "rdkk", "rkd", "Rdd", "rdd\n", "rD",
    ] {
        assert_eq!(n2xdig(1, m), None, "{m:?}");
    }
}

#[test]
fn n2xdig_extended_repertoires() {
    assert_eq!(n2x(0, "sEEE"), "111");
    assert_eq!(n2x(47, "sEE"), "21");
    assert_eq!(n2x(16, "sxx"), "0_");
    assert_eq!(n2x(17, "sxx"), "10");
    assert_eq!(n2x(37, "zv"), "10");
    assert_eq!(n2x(88, "scc"), "!~");
    assert_eq!(n2x(1 + 50 * 6397, "rvvvvk"), "6bnn+");
    // `z` grows in the repertoire of the character after it.
    assert_eq!(n2x(11 * 10, "zid"), "100");
    assert_eq!(n2x(61 * 61, "zl"), "100");
}

#[test]
fn assemble_in_other_repertoires() {
    assert_eq!(
        assemble_in("13030/x4", "6bnn+", Some(Repertoire::Lowercase)),
        "13030/x46bnnd"
    );
    assert_eq!(
        assemble_in("q", "111+", Some(Repertoire::MixedBetanumeric)),
        "q111q"
    );
    assert_eq!(assemble_in("", "1+", Some(Repertoire::Wide)), "11");
    assert_eq!(assemble_in("", "ab", None), "ab");
}

#[test]
fn take_counter_counts_then_stops_or_wraps() {
    let mut s = init_counters(NOLIMIT);
    s.total = 2;
    s.oatop = 2;
    assert_eq!(s.take_counter(false), Ok(0));
    assert_eq!(s.take_counter(false), Ok(1));
    assert_eq!(
        s.take_counter(false),
        Err(GenError::Exhausted(Exhausted { stopped_at: 2 }))
    );
    assert_eq!(s.oacounter, 2);
    assert_eq!(s.take_counter(true), Ok(0));
    assert_eq!(s.oacounter, 1);
}

#[test]
fn long_masks_use_the_heap_buffer() {
    let mask = format!("s{}", "d".repeat(100));
    let s = n2x(12345, &mask);
    assert_eq!(s.len(), 100);
    assert!(s.ends_with("0012345"));
    let z = format!("z{}", "e".repeat(70));
    assert_eq!(n2x(29, &z).len(), 70);
}

#[test]
fn init_counters_f5_reedeedk() {
    let s = init_counters(70_728_100);
    assert_eq!(s.percounter, 241_393);
    assert_eq!(s.counters.len(), 293);
    assert_eq!(
        s.counters[0],
        Counter {
            top: 241_393,
            value: 0
        }
    );
    assert_eq!(s.counters[292].top, 241_344);
    assert_eq!(s.oatop, 70_728_100);
    assert_eq!(s.oacounter, 0);
    assert!(s.saclist_string().starts_with("c0 c1 c2 "));
    assert!(s.saclist_string().ends_with(" c291 c292 "));
    assert_eq!(s.siclist_string(), "");
}

#[test]
fn init_counters_small_and_unlimited() {
    assert_eq!(percounter_for(290), 1);
    assert_eq!(percounter_for(8410), 29);
    assert_eq!(percounter_for(293), 2);
    let s = init_counters(8410);
    assert_eq!(s.counters.len(), 290);
    let s = init_counters(100);
    assert_eq!((s.percounter, s.counters.len()), (1, 100));
    let z = init_counters(NOLIMIT);
    assert_eq!(z.percounter, 0);
    assert!(z.counters.is_empty());
    assert_eq!(z.saclist_string(), "");
    assert_eq!(z.oatop, -1);
}

#[test]
fn list_strings_round_trip() {
    let mut s = init_counters(10);
    assert_eq!(s.saclist_string(), "c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 ");
    s.saclist = vec![0, 3, 12];
    s.siclist = vec![5, 7];
    assert_eq!(s.saclist_string(), "c0 c3 c12 ");
    assert_eq!(s.siclist_string(), " c5 c7");
    assert_eq!(parse_saclist("c0 c3 c12 ").unwrap(), vec![0, 3, 12]);
    assert_eq!(parse_siclist(" c5 c7").unwrap(), vec![5, 7]);
    assert_eq!(parse_saclist("").unwrap(), Vec::<u32>::new());
    assert_eq!(parse_siclist("").unwrap(), Vec::<u32>::new());
    assert_eq!(parse_saclist("c0 x1 ").unwrap_err().token, "x1");
    assert!(parse_saclist("c ").is_err());
    assert!(parse_saclist("c-1 ").is_err());
}

#[test]
fn first_random_pick_uses_counter_50() {
    let mut s = init_counters(70_728_100);
    let m = CompiledMask::new("reedeedk").unwrap();
    let mut out = String::new();
    let ch = s.genid_into(&m, GenType::Random, false, &mut out).unwrap();
    assert_eq!(
        ch,
        Changes {
            counter: Some(50),
            lists: false,
            reset: false
        }
    );
    assert_eq!(out, "4x54g1+");
    assert_eq!(s.counters[50].value, 1);
    assert_eq!(s.oacounter, 1);
    assert_eq!(assemble("13030/f5", &out, true), "13030/f54x54g11");
}

#[test]
fn exhaustion_message_and_no_change() {
    let mut s = init_counters(10);
    for i in 0..10 {
        assert_eq!(
            s.genid("sd", GenType::Sequential, false).unwrap(),
            i.to_string()
        );
    }
    let before = s.clone();
    let e = s.genid("sd", GenType::Sequential, false).unwrap_err();
    assert_eq!(e, GenError::Exhausted(Exhausted { stopped_at: 10 }));
    assert_eq!(e.to_string(), "identifiers exhausted (stopped at 10).");
    assert_eq!(s, before);
}

#[test]
fn sequential_wrap_restarts_at_zero() {
    let mut s = init_counters(10);
    let ids: Vec<String> = (0..12)
        .map(|_| s.genid("sd", GenType::Sequential, true).unwrap())
        .collect();
    assert_eq!(ids[9], "9");
    assert_eq!(ids[10], "0");
    assert_eq!(ids[11], "1");
    assert_eq!(s.oacounter, 2);
}

#[test]
fn counter_exhaustion_moves_it_to_siclist() {
    let mut s = init_counters(100); // 100 counters of one number each
    let m = CompiledMask::new("rdd").unwrap();
    let mut out = String::new();
    let ch = s.genid_into(&m, GenType::Random, false, &mut out).unwrap();
    let n = ch.counter.unwrap();
    assert!(ch.lists);
    assert_eq!(s.saclist.len(), 99);
    assert_eq!(s.siclist, vec![n]);
    assert_eq!(s.siclist_string(), format!(" c{n}"));
}

#[test]
fn broken_dash_minter_panics_like_perl() {
    // Template "-": total -1, no counters, generator type "" (treated as random).
    let mut s = init_counters(NOLIMIT);
    let e = s.genid("", GenType::from_stored(""), false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "no active counters panic, but 0 identifiers left?"
    );
}

#[test]
fn corrupt_state_errors() {
    let mut s = init_counters(100);
    s.saclist = vec![500];
    let e = s.genid("rdd", GenType::Random, false).unwrap_err();
    assert_eq!(e, GenError::MissingCounter { n: 500 });
    let mut s = init_counters(100);
    assert_eq!(
        s.genid("sq", GenType::Sequential, false).unwrap_err(),
        GenError::BadMask { mask: "sq".into() }
    );
}

#[test]
fn assemble_without_checkchar() {
    assert_eq!(assemble("13030/", "abc", false), "13030/abc");
    assert_eq!(assemble("", "fk491+", true), "fk491f");
    assert_eq!(assemble("fk", "491+", true), "fk491f");
}
