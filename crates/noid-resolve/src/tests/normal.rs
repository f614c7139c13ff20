//! The ARK specification's normalisation vectors, read from the table docs/RESOLUTION.md
//! publishes, so that the published table and the tests cannot drift apart.

use super::check;
use crate::{Answer, Request, Resolver, Rules};
use noid_core::{normalize, MemLookup};

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

// ---- the same table through the other entry points ----------------------------------

#[test]
fn the_noid_line_protocol_finds_the_normal_form_in_either_ark_form() {
    for (request, normal) in vectors() {
        let local = normal.strip_prefix("ark:").expect("normal form");
        for stored in [format!("ark:/{local}"), format!("ark:{local}")] {
            let l = super::store(&[(&stored, "_t", "https://example.org/t")]);
            let mut out = Vec::new();
            crate::noid_line::answer(&l, format!("get {request} _t").as_bytes(), &mut out);
            assert_eq!(
                String::from_utf8_lossy(&out),
                "https://example.org/t\n",
                "get {request:?} with {stored:?} bound"
            );
        }
    }
}

/// The request up to the end of its NAAN (`ARK:/B5072` of `ARK:/B5072/fk2x`).
fn through_naan(request: &str) -> &str {
    let lead = request.len() - request.trim_start_matches('/').len();
    let label = lead + "ark:".len();
    let naan = label + usize::from(request[label..].starts_with('/'));
    let end = request[naan..]
        .find('/')
        .map_or(request.len(), |i| naan + i);
    &request[..end]
}

#[test]
fn registry_keys_are_the_normal_form_of_every_spelling() {
    use crate::{registry::Level, Registry};
    for (request, normal) in vectors() {
        let naan = through_naan(normal).strip_prefix("ark:").unwrap();
        let key = format!("ark:/{naan}");
        let spelled = through_naan(request);
        // A record's `prefix:` written in the request's spelling has the normal key …
        let reg = Registry::parse(&format!("prefix: {spelled}\nname: N\n")).unwrap();
        assert_eq!(reg.records()[0].prefix, key, "prefix: {spelled}");
        assert_eq!(reg.records()[0].level, Level::Naan);
        // … and the truncated request in that spelling answers the record.
        let r = Resolver::with_registry(Rules::empty(), std::sync::Arc::new(reg));
        match r
            .resolve(&MemLookup::new(), &Request::new(spelled))
            .unwrap()
        {
            Answer::Record { key: k, .. } => assert_eq!(k, key, "{spelled}"),
            other => panic!("{spelled}: {other:?}"),
        }
    }
    // A shoulder's hyphens go as the identifier part's do.
    let reg = Registry::parse("prefix: ARK:/B5072/f-k2\n").unwrap();
    assert_eq!(reg.records()[0].prefix, "ark:/b5072/fk2");
}
