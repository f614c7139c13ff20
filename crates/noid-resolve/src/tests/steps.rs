//! The lookup steps: verbatim ids and codes, ancestor chopping (read as one range or
//! key by key), normalisation, `:idmap`, peppered ids.

use super::{check, check_rules, resolve};
use crate::egg::{self, Miss};
use crate::{Answer, Request, Resolver};
use noid_core::MemLookup;

// ---- conformance-public.md, "N2T-style resolution" -------------------------------

#[test]
fn conformance_suffix_passthrough() {
    check(
        &[("ark:/00224/foo", "_t", "zaf")],
        "ark:/00224/foo/bar//zif?zaf=ab&cd.resolve",
        "redir302 zaf/bar//zif?zaf=ab&cd",
    );
}

#[test]
fn conformance_shoulder_as_id() {
    check(
        &[("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/")],
        "ark:/12345/xt2rv8b/chap3/sect5//para4.txt.1.bak.resolve",
        "redir302 http://obj.example.com/datasets/rv8b/chap3/sect5//para4.txt.1.bak",
    );
}

#[test]
fn conformance_suffix_placeholders() {
    let b = [("ark:/98765/f3", "_t", "bar${suffix}zaf${suffix}foo")];
    check(&b, "ark:/98765/f3abc.resolve", "redir302 barabczafabcfoo");
    check(&b, "ark:/98765/f3.resolve", "redir302 barzaffoo");
}

#[test]
fn conformance_codes() {
    check(&[("X", "_t", "301 zaf")], "X.resolve", "redir301 zaf");
    check(&[("X", "_t", "999 zaf")], "X.resolve", "redir302 999 zaf");
}

/// The ARK draft's §3.3 (rule 8): a rules file that names no global resolver sends an
/// ARK of a NAAN not served here to N2T; one the store, the minter (`:/naan`) or the
/// registry serves is a miss, so N2T's answer cannot bounce back.
#[test]
fn unknown_naans_go_to_n2t_unless_told_otherwise() {
    check_rules(
        &[],
        "",
        "ark:/99999/nope.resolve",
        "redir302 https://n2t.net/ark:/99999/nope",
    );
    check_rules(
        &[],
        "global-resolver off",
        "ark:/99999/nope.resolve",
        "NULL",
    );
    check_rules(
        &[("ark:/99999/x", "_t", "T")],
        "",
        "ark:/99999/nope.resolve",
        "NULL",
    );
    check_rules(
        &[(":/", "naan", "99999")],
        "",
        "ark:/99999/nope.resolve",
        "NULL",
    );
    // Only ARKs: a DOI of no rule is not forwarded.
    check_rules(&[], "", "doi:10.1/nope.resolve", "NULL");
}

#[test]
fn conformance_miss() {
    check(&[], "ark:/99999/nope.resolve", "NULL");
    let r = Resolver::default();
    let mut out = Vec::new();
    egg::answer(
        &r,
        &MemLookup::new(),
        b"ark:/99999/nope.resolve",
        Miss::Eggnog,
        &mut out,
    );
    assert_eq!(out, b"redir302 \n");
}

// ---- targets and codes ------------------------------------------------------------

#[test]
fn redirect_codes() {
    for (value, line) in [
        ("301 zaf", "redir301 zaf"),
        ("302 zaf", "redir302 zaf"),
        ("303 zaf", "redir303 zaf"),
        ("307 zaf", "redir307 zaf"),
        ("308 zaf", "redir308 zaf"),
        ("410 zaf", "redir410 zaf"),
        ("404 zaf", "redir404 zaf"),
        ("999 zaf", "redir302 999 zaf"),
        ("305 zaf", "redir302 305 zaf"),
        ("301zaf", "redir302 301zaf"),
        ("301  two spaces", "redir301 two spaces"),
        ("https://e.org/?a=b c", "redir302 https://e.org/?a=b c"),
        ("line\r\n", "redir302 line"),
    ] {
        check(&[("X", "_t", value)], "X.resolve", line);
    }
}

#[test]
fn falsy_targets_are_unbound() {
    check(&[("X", "_t", "0")], "X.resolve", "NULL");
    check(&[("X", "_t", "")], "X.resolve", "NULL");
}

#[test]
fn code_with_suffix_passthrough() {
    check(
        &[("ark:/12345/fk4a", "_t", "301 https://e.org/a")],
        "ark:/12345/fk4a/b.resolve",
        "redir301 https://e.org/a/b",
    );
}

#[test]
fn several_targets_are_multi() {
    let b = [("X", "_t", "http://a.org/\nhttp://b.org/\n")];
    check(
        &b,
        "X.resolve",
        "inflect \"op=multi\" \"id=X\" \"target=http://a.org/\" \"target=http://b.org/\"",
    );
    assert_eq!(
        resolve(&b, Request::new("X/y")),
        Answer::Multi {
            id: "X".into(),
            targets: vec!["http://a.org//y".into(), "http://b.org//y".into()]
        }
    );
}

// ---- ancestor chopping --------------------------------------------------------------

#[test]
fn longest_bound_ancestor_wins() {
    let b = [
        ("ark:/12345/fk4a", "_t", "A"),
        ("ark:/12345/fk4a/b", "_t", "B"),
        ("ark:/12345/fk4a/b/c", "_t", "C"),
    ];
    check(&b, "ark:/12345/fk4a/b/c/d/e.resolve", "redir302 C/d/e");
    check(&b, "ark:/12345/fk4a/b/x.y.resolve", "redir302 B/x.y");
    check(&b, "ark:/12345/fk4a/bc.resolve", "redir302 A/bc");
    check(&b, "ark:/12345/fk4a.resolve", "redir302 A");
    check(&b, "ark:/12345/fk4ab.resolve", "NULL");
    check(&b, "ark:/12345/fk5a/b.resolve", "NULL");
}

#[test]
fn four_level_chop_back() {
    check(
        &[("ark:/13030/fk4abcde", "_t", "https://e.org/o")],
        "ark:/13030/fk4abcde/l1/l2/l3/l4.resolve",
        "redir302 https://e.org/o/l1/l2/l3/l4",
    );
}

/// Where the store offers it, the ancestors are read as one range (`check` runs every
/// case both ways); these cases are those where the range needs care.
#[test]
fn ancestors_read_as_one_range() {
    // Both ARK forms, at different levels: the `ark:/` form where both have a key,
    // even when its value is unbound ("0").
    let b = [
        ("13030/x1", "_t", "bare"),
        ("ark:/13030/x1/a", "_t", "full"),
        ("ark:/13030/x1/a/b", "_t", "0"),
        ("13030/x1/a/b", "_t", "bare-b"),
    ];
    check(&b, "ark:/13030/x1/a/b/c.resolve", "redir302 full/b/c");
    check(&b, "ark:/13030/x1/q/b/c.resolve", "redir302 bare/q/b/c");
    // A flag on the longest bound ancestor, and one on a shorter one.
    let b = [
        ("ark:/13030/x1", "_t", "X"),
        ("ark:/13030/x1/a", "_t", "A"),
        ("ark:/13030/x1/a", "_t_am", "n"),
        ("ark:/13030/x1/a/b", "_t", "B"),
    ];
    check(&b, "ark:/13030/x1/a/b/c/d.resolve", "redir302 B/c/d");
    check(&b, "ark:/13030/x1/a/c/d.resolve", "NULL");
    check(&b, "ark:/13030/x1/c/d.resolve", "redir302 X/c/d");
    // The whole id is read with its ancestors: bound, unbound ("0"), and spelled
    // otherwise than its normal form (then looked up by itself).
    let b = [
        ("ark:/13030/x1", "_t", "X"),
        ("ark:/13030/x1/a/b/c", "_t", "V"),
        ("ark:/13030/x1/a/b/d", "_t", "0"),
        ("ark:13030/x1/a/b/e", "_t", "E"),
    ];
    check(&b, "ark:/13030/x1/a/b/c.resolve", "redir302 V");
    check(&b, "ark:/13030/x1/a/b/d.resolve", "redir302 X/a/b/d");
    check(&b, "ark:13030/x1/a/b/e.resolve", "redir302 E");
    check(&b, "ark:13030/x1/a/b/c.resolve", "redir302 V");
    // More bindings between the id and its longest ancestor than one range reads.
    let mut b = vec![("ark:/13030/x1/a", "_t", "A")];
    let elems: Vec<String> = (0..40).map(|i| format!("e{i:02}")).collect();
    b.extend(elems.iter().map(|e| ("ark:/13030/x1", e.as_str(), "v")));
    check(&b, "ark:/13030/x1/a/b/c.resolve", "redir302 A/b/c");
    // A separator that sorts before the tab: `fk4ab\x01c\t…` comes before `fk4ab\t…`,
    // so the id's own key lies outside the range read.
    let b = [("ark:/13030/fk4ab", "_t", "X")];
    check(&b, "ark:/13030/fk4ab\x01c/d.resolve", "redir302 X\x01c/d");
}

#[test]
fn trailing_separators_are_trimmed_first() {
    // N2T's reading passes the final separators through; the ARK draft's ignores them.
    check_rules(
        &[("ark:/12345/fk4a", "_t", "A")],
        "final-slash inflection",
        "ark:/12345/fk4a//.resolve",
        "redir302 A//",
    );
    check(
        &[("ark:/12345/fk4a", "_t", "A")],
        "ark:/12345/fk4a//.resolve",
        "redir302 A",
    );
    check(
        &[("ark:/12345/fk4a", "_t", "A")],
        "ark:/12345/fk4a.b.resolve",
        "redir302 A.b",
    );
}

#[test]
fn suffix_placeholders_anywhere() {
    let b = [(
        "ark:/12345/fk4a",
        "_t",
        "${suffix}|https://e.org/?s=${suffix}&t=${suffix}",
    )];
    check(
        &b,
        "ark:/12345/fk4a/p.resolve",
        "redir302 /p|https://e.org/?s=/p&t=/p",
    );
    check(
        &[("ark:/12345/fk4a", "_t", "https://e.org/${nope}")],
        "ark:/12345/fk4a/p.resolve",
        "redir302 https://e.org/${nope}/p",
    );
}

#[test]
fn flex_encoded_suffix() {
    check(
        &[("ark:/12345/fk4a", "_t", "T")],
        "ark:/12345/fk4a/a^20b.resolve",
        "redir302 T/a b",
    );
}

#[test]
fn no_passthrough_flags() {
    let b = [
        ("ark:/12345/fk4a", "_t", "A"),
        ("ark:/12345/fk4a", "_t_am", "n"),
        ("ark:/12345/fk4", "_t", "S"),
    ];
    check(&b, "ark:/12345/fk4a/b.resolve", "NULL");
    check(&b, "ark:/12345/fk4a.resolve", "redir302 A");
    // Inflections are not passthrough: they still work.
    check(
        &b,
        "ark:/12345/fk4a?.resolve",
        "inflect \"op=arkinflect\" \"id=ark:/12345/fk4a\" \"suffix=%3f\"",
    );
    // The shoulder's own flag stops passthrough for everything under it.
    let b = [
        ("ark:/12345/fk4a", "_t", "A"),
        ("ark:/12345/fk4", "_t_am", "n"),
    ];
    check(&b, "ark:/12345/fk4a/b.resolve", "NULL");
    check(&b, "ark:/12345/fk4a.resolve", "redir302 A");
}

#[test]
fn schemeless_noid_ids() {
    let b = [("13030/kt639k9", "_t", "http://e.org/k"), ("X", "_t", "x")];
    check(
        &b,
        "13030/kt639k9/page2.resolve",
        "redir302 http://e.org/k/page2",
    );
    check(&b, "X/foo.resolve", "redir302 x/foo");
    check(&b, "Xfoo.resolve", "NULL");
}

#[test]
fn chopping_never_goes_above_the_naan() {
    check(
        &[
            ("ark:/12345", "_t_", "x"),
            ("ark:", "_t", "http://n2t.net/ark:"),
        ],
        "ark:/99999/x.resolve",
        "redir302 http://n2t.net/ark:/99999/x",
    );
    check(
        &[("ark:/00224/", "_t", "x")],
        "ark:/00224/a.resolve",
        "NULL",
    );
}

// ---- normalisation ------------------------------------------------------------------

#[test]
fn normalisation() {
    let b = [
        ("ark:/12345/xyz", "_t", "slash"),
        ("ark:12345/new", "_t", "noslash"),
        ("ark:/b5072/low", "_t", "naan"),
        ("doi:10.5072/FK2X", "_t", "doi"),
    ];
    check(&b, "ark:12345/xyz.resolve", "redir302 slash");
    check(&b, "ARK:/12345/xyz.resolve", "redir302 slash");
    check(&b, "/ark:/12345/xyz.resolve", "redir302 slash");
    check(&b, "ark:/12345/x-y-z.resolve", "redir302 slash");
    check(&b, "ark:/12345/new.resolve", "redir302 noslash");
    check(&b, "ark:/B5072/low.resolve", "redir302 naan");
    check(&b, "doi:10.5072/fk2x.resolve", "redir302 doi");
    check(&b, "DOI:10.5072/FK2X.resolve", "redir302 doi");
    check(&b, "eoi:10.5072/FK2X.resolve", "redir302 doi");
    check(&b, "ark:/b5072/fk2x.resolve", "redir302 doi");
    check(&b, "t-ark:/12345/xyz.resolve", "redir302 slash");
}

#[test]
fn odd_requests_are_misses() {
    for line in [
        ".resolve",
        "/.resolve",
        "ark:/12345/(.*)[.resolve",
        "^$\\.resolve",
        "\0\0.resolve",
        "a b c.resolve !!!ac=",
        "ark:/12345/fk4%zz.resolve",
    ] {
        check(&[("ark:/12345/fk4", "_t_am", "y")], line, "NULL");
    }
    check(
        &[],
        "no method",
        "error: expected \"ID.resolve\" or \"ID.resolve HEADERS\"",
    );
    check(&[], "", "NULL");
    check(&[], "   ", "NULL");
}

// ---- :idmap on _t -------------------------------------------------------------------

#[test]
fn idmap_targets() {
    let b = [
        (":idmap/^ark:/12345/(\\w+)$", "_t", "http://x.org/$1"),
        (":idmap/^ft", "_t", "301 http://g7h.org/"),
    ];
    check(&b, "ark:/12345/abc.resolve", "redir302 http://x.org/abc");
    check(&b, "ft89.resolve", "redir301 http://g7h.org/89");
    check(&b, "ark:/12345/a/b.resolve", "NULL");
}

#[test]
fn stored_and_ancestor_targets_beat_idmap() {
    let b = [
        (":idmap/^ark:/12345/", "_t", "mapped/"),
        ("ark:/12345/fk4a", "_t", "stored"),
    ];
    check(&b, "ark:/12345/fk4a.resolve", "redir302 stored");
    check(&b, "ark:/12345/fk4a/x.resolve", "redir302 stored/x");
    check(&b, "ark:/12345/zz.resolve", "redir302 mapped/zz");
}

/// A peppered id `ID!PEPPER` resolves as `ID` (docs/COMPATIBILITY.md: reads accept
/// either form); with any other text after the `!`, that text is a suffix as before.
#[test]
fn peppered_ids_resolve_as_the_id() {
    let b = [
        ("13030/fk4x", ":/p", "b3c4d5f6"),
        ("13030/fk4x", "_t", "https://e.org/x"),
    ];
    check(
        &b,
        "13030/fk4x!b3c4d5f6.resolve",
        "redir302 https://e.org/x",
    );
    check(
        &b,
        "ark:/13030/fk4x!b3c4d5f6.resolve",
        "redir302 https://e.org/x",
    );
    check(
        &b,
        "ark:/13030/fk4x!b3c4d5f7.resolve",
        "redir302 https://e.org/x!b3c4d5f7",
    );
    check(
        &b,
        "13030/fk4x!.resolve",
        "inflect \"op=arkinflect\" \"id=13030/fk4x\" \"suffix=!\"",
    );
}
