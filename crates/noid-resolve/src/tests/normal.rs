//! The ARK specification's normalisation vectors, read from the table docs/RESOLUTION.md
//! publishes, so that the published table and the tests cannot drift apart.

use super::check;
use noid_core::normalize;

const DOC: &str = include_str!("../../../../docs/RESOLUTION.md");

/// (request, normal form) of every row between the table's markers.
fn vectors() -> Vec<(&'static str, &'static str)> {
    let begin = DOC
        .find("<!-- normalisation vectors: begin -->")
        .expect("begin marker");
    let end = DOC
        .find("<!-- normalisation vectors: end -->")
        .expect("end marker");
    DOC[begin..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let code = |c: &'static str| c.trim_matches('`');
            (code(cells[1]), code(cells[2]))
        })
        .collect()
}

#[test]
fn the_table_has_every_step() {
    let v = vectors();
    assert_eq!(v.len(), 18, "{v:?}");
    for dash in '\u{2010}'..='\u{2015}' {
        assert!(v.iter().any(|(r, _)| r.contains(dash)), "{dash:?}");
    }
}

#[test]
fn normal_forms() {
    for (request, normal) in vectors() {
        assert_eq!(
            normalize::ark(request).as_deref(),
            Some(normal),
            "request {request:?}"
        );
        // Normalising is idempotent.
        assert_eq!(
            normalize::ark(normal).as_deref(),
            Some(normal),
            "{normal:?}"
        );
    }
}

#[test]
fn every_spelling_finds_the_normal_form_in_either_ark_form() {
    for (request, normal) in vectors() {
        let local = normal.strip_prefix("ark:").expect("normal form");
        for stored in [format!("ark:/{local}"), format!("ark:{local}")] {
            check(
                &[(&stored, "_t", "https://example.org/t")],
                &format!("{request}.resolve"),
                "redir302 https://example.org/t",
            );
        }
    }
}

#[test]
fn a_different_identifier_part_is_not_found() {
    // Case outside `%XX` and the NAAN matters; a dash that is not a hyphen is kept.
    for request in [
        "ark:/12345/x",
        "ark:/12345/x\u{2016}y",
        "ark:/12345/x\u{2212}y",
    ] {
        check(
            &[("ark:/12345/X", "_t", "T"), ("ark:/12345/xy", "_t", "T")],
            &format!("{request}.resolve"),
            "NULL",
        );
    }
}
