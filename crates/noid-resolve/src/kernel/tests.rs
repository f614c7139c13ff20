//! Kernel metadata: the N2T page's reserved codes, metatypes and examples, and
//! standing, with expected answers written from the page.

use super::*;
use noid_core::lookup::{Lookup, MemLookup};

#[test]
fn every_reserved_code_with_and_without_free_text() {
    let page = [
        ("(:unac)", Reserved::Unac, "temporarily inaccessible"),
        (
            "(:unal)",
            Reserved::Unal,
            "unallowed, suppressed intentionally",
        ),
        ("(:unap)", Reserved::Unap, "not applicable, makes no sense"),
        (
            "(:unas)",
            Reserved::Unas,
            "value unassigned (e.g., Untitled)",
        ),
        (
            "(:unav)",
            Reserved::Unav,
            "value unavailable, possibly unknown",
        ),
        (
            "(:unkn)",
            Reserved::Unkn,
            "known to be unknown (e.g., Anonymous, Inconnue)",
        ),
        ("(:none)", Reserved::None, "never had a value, never will"),
        (
            "(:null)",
            Reserved::Null,
            "explicitly and meaningfully empty",
        ),
        (
            "(:etal)",
            Reserved::Etal,
            "other values too numerous to list",
        ),
        ("(:tba)", Reserved::Tba, "to be assigned or announced later"),
    ];
    for (written, code, meaning) in page {
        assert_eq!(parse(written), Ok(Value::Reserved(code, "")), "{written}");
        let with_text = format!("{written} some words");
        assert_eq!(parse(&with_text), Ok(Value::Reserved(code, "some words")));
        assert_eq!(code.meaning(), meaning);
        assert_eq!(format!("(:{})", code.code()), written);
    }
    assert_eq!(
        parse("(:at) https://archive.org/services/img/wonderfulwizardo00baumiala"),
        Ok(Value::Reserved(
            Reserved::At,
            "https://archive.org/services/img/wonderfulwizardo00baumiala"
        ))
    );
    assert_eq!(
        Reserved::At.meaning(),
        "present value is an indirect reference to the real value"
    );
    assert_eq!(Reserved::ALL.len(), 11);
}

#[test]
fn the_pages_examples() {
    assert_eq!(
        parse("(:unkn) Anonymous"),
        Ok(Value::Reserved(Reserved::Unkn, "Anonymous"))
    );
    assert_eq!(
        parse("(:tba) Work in progress"),
        Ok(Value::Reserved(Reserved::Tba, "Work in progress"))
    );
    assert_eq!(parse("1900, c1899"), Ok(Value::Text("1900, c1899")));
}

#[test]
fn malformed_values() {
    assert_eq!(
        parse("(:unknown) x"),
        Err(Malformed::UnknownCode("unknown".into()))
    );
    assert_eq!(parse("(:UNAV)"), Err(Malformed::UnknownCode("UNAV".into())));
    assert_eq!(parse("(:unav"), Err(Malformed::Unclosed));
    assert_eq!(parse("(:at)"), Err(Malformed::NoReference));
    assert_eq!(parse("   "), Err(Malformed::Empty));
    assert_eq!(
        Malformed::UnknownCode("unknown".into()).to_string(),
        "unknown reserved code (:unknown)"
    );
}

fn mt(bases: &[Base], set: bool) -> Metatype {
    Metatype {
        bases: bases.to_vec(),
        set,
    }
}

#[test]
fn metatypes_of_the_page() {
    use Base::*;
    let page = [
        (
            "(:mtype text) dissertation",
            mt(&[Text], false),
            "dissertation",
        ),
        (
            "(:mtype data) financial spreadsheet",
            mt(&[Data], false),
            "financial spreadsheet",
        ),
        (
            "(:mtype data+code set) time series analysis database",
            mt(&[Data, Code], true),
            "time series analysis database",
        ),
        (
            "(:mtype data+code) visualization and simulation",
            mt(&[Data, Code], false),
            "visualization and simulation",
        ),
        ("(:mtype agent) fruit fly", mt(&[Agent], false), "fruit fly"),
        (
            "(:mtype agent set) orchestra",
            mt(&[Agent], true),
            "orchestra",
        ),
        ("text", mt(&[Text], false), ""),
        ("(:mtype text)", mt(&[Text], false), ""),
        (
            "image+audio+video set",
            mt(&[Image, Audio, Video], true),
            "",
        ),
        (
            "term settlement names",
            mt(&[Term], false),
            "settlement names",
        ),
    ];
    for (written, m, text) in page {
        assert_eq!(
            parse_how(written),
            Ok(Value::Metatype(m, text)),
            "{written}"
        );
    }
    assert_eq!(mt(&[Data, Code], true).to_string(), "data+code set");
}

#[test]
fn every_base_metatype() {
    let terms = [
        "text", "image", "audio", "video", "data", "code", "term", "service", "agent", "human",
        "project", "event", "oba",
    ];
    for (b, t) in Base::ALL.into_iter().zip(terms) {
        assert_eq!(
            parse_how(&format!("(:mtype {t})")),
            Ok(Value::Metatype(mt(&[b], false), ""))
        );
    }
}

#[test]
fn malformed_metatypes() {
    assert_eq!(
        parse_how("(:mtype book)"),
        Err(Malformed::UnknownBase("book".into()))
    );
    assert_eq!(
        parse_how("(:mtype data+)"),
        Err(Malformed::UnknownBase("".into()))
    );
    assert_eq!(
        parse_how("(:mtype data sets)"),
        Err(Malformed::UnknownBase("sets".into()))
    );
    assert_eq!(parse_how("(:mtype data"), Err(Malformed::Unclosed));
    assert_eq!(parse_how("(:mtype )"), Err(Malformed::NoMetatype));
    assert_eq!(parse_how("dissertation"), Err(Malformed::NoMetatype));
    assert_eq!(
        parse_how("(:unav) not yet typed"),
        Ok(Value::Reserved(Reserved::Unav, "not yet typed"))
    );
    assert_eq!(
        parse_how("(:bogus)"),
        Err(Malformed::UnknownCode("bogus".into()))
    );
}

#[test]
fn standing_of_the_pages_oz_record() {
    let l = MemLookup::new();
    let id = "ark:/13960/t6m042969";
    l.bind(
        id,
        "_t",
        "http://www.archive.org/details/wonderfulwizardo00baumiala",
    );
    l.bind(id, "how", "text");
    l.bind(id, "who", "Baum, L. Frank (Lyman Frank), 1856-1919");
    l.bind(id, "what", "The wonderful wizard of Oz");
    l.bind(id, "when", "1900, c1899");
    l.bind(
        id,
        "peek",
        "(:at) https://archive.org/services/img/wonderfulwizardo00baumiala",
    );
    let s = standing(&l, id).unwrap();
    assert_eq!(s, Standing::default());
    assert!(s.is_good());
}

#[test]
fn standing_names_missing_and_malformed_elements() {
    let l = MemLookup::new();
    l.bind("x", "_t", "http://example.org/");
    l.bind("x", "who", "(:unkn) Anonymous");
    l.bind("x", "how", "(:mtype book)");
    l.bind("x", "peek", "(:at)");
    l.bind("x", "title", "(:nonsense) not kernel, not judged");
    let s = standing(&l, "x").unwrap();
    assert_eq!(s.missing, vec!["what", "when"]);
    assert_eq!(
        s.malformed,
        vec![
            ("how".to_string(), Malformed::UnknownBase("book".into())),
            ("peek".to_string(), Malformed::NoReference),
        ]
    );
    assert!(!s.is_good());
    let none = standing(&l, "unbound").unwrap();
    assert_eq!(none.missing, vec!["who", "what", "when", "how"]);
}

#[test]
fn census_groups_keys_by_identifier_and_skips_admin_keys() {
    let l = MemLookup::new();
    l.insert(":/template", "f5.reedeedk");
    l.bind("a", ":/c", "i|2026|me|1");
    l.bind("a", "how", "text");
    l.bind("a", "what", "A");
    l.bind("a", "when", "2026");
    l.bind("a", "who", "W");
    l.bind("b", ":/c", "i|2026|me|2");
    l.bind("c", "how", "(:mtype book)");
    let mut census = Census::default();
    let mut seen = Vec::new();
    for (k, v) in l.scan_prefix(b"", usize::MAX).unwrap() {
        seen.extend(census.push(&k, &v));
    }
    seen.extend(census.finish());
    assert_eq!(
        seen,
        vec![
            ("a".to_string(), Standing::default()),
            (
                "c".to_string(),
                Standing {
                    missing: vec!["who", "what", "when"],
                    malformed: vec![("how".to_string(), Malformed::UnknownBase("book".into()))],
                }
            ),
        ]
    );
}
