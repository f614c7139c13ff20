//! The output decision and what follows a miss: inflections, content negotiation,
//! prefix extension, redirect rules, partial ids, forwarding.

use super::{check, check_rules, resolve};
use crate::{Answer, Request};

// ---- inflections --------------------------------------------------------------------

#[test]
fn inflections_without_targets_answer_metadata() {
    let b = [
        ("ark:/12345/fk4a", "_t", "T"),
        ("ark:/12345/fk4a", "who", "Me"),
    ];
    let inflect = |suffix: &str| {
        format!("inflect \"op=arkinflect\" \"id=ark:/12345/fk4a\" \"suffix={suffix}\"")
    };
    // (request, N2T's answer with `final-slash inflection`, the ARK draft's default).
    for (req, n2t, draft) in [
        ("?", "%3f", "%3f"),
        ("??", "%3f%3f", "%3f%3f"),
        ("?info", "%3f%3f", "%3f%3f"),
        ("/", "/", ""),
        ("./", "./", ""),
        ("/?", "/%3f", "%3f"),
        ("./??", "./%3f%3f", "%3f%3f"),
    ] {
        let line = format!("ark:/12345/fk4a{req}.resolve");
        check_rules(&b, "final-slash inflection", &line, &inflect(n2t));
        let draft = match draft {
            "" => "redir302 T".to_string(),
            suffix => inflect(suffix),
        };
        check(&b, &line, &draft);
    }
}

#[test]
fn inflection_targets() {
    let b = [
        ("ark:/12345/fk4a", "_t", "T"),
        ("ark:/12345/fk4a", "_,eTi,?", "https://e.org/brief"),
        ("ark:/12345/fk4b", "_t", "T"),
        ("ark:/12345/fk4b", "_,eTi,", "301 https://e.org/any"),
    ];
    check(
        &b,
        "ark:/12345/fk4a?.resolve",
        "redir302 https://e.org/brief",
    );
    check(
        &b,
        "ark:/12345/fk4a??.resolve",
        "inflect \"op=arkinflect\" \"id=ark:/12345/fk4a\" \"suffix=%3f%3f\"",
    );
    check(
        &b,
        "ark:/12345/fk4b??.resolve",
        "redir301 https://e.org/any",
    );
    check(
        &b,
        "ark:/12345/fk4b?info.resolve",
        "redir301 https://e.org/any",
    );
    // A non-inflection suffix without word characters passes through (N2T's reading);
    // the ARK draft ignores a final `/` or `.`.
    check_rules(
        &b,
        "final-slash inflection",
        "ark:/12345/fk4a//.resolve",
        "redir302 T//",
    );
    check(&b, "ark:/12345/fk4a//.resolve", "redir302 T");
}

#[test]
fn inflection_answer_lists_kernel_first() {
    let b = [
        ("ark:/12345/fk4a", "_t", "T"),
        ("ark:/12345/fk4a", "_,eTm,text/html", "H"),
        ("ark:/12345/fk4a", "how", "text"),
        ("ark:/12345/fk4a", "color", "red"),
        ("ark:/12345/fk4a", "who", "Me"),
        ("ark:/12345/fk4a", ":/c", "i|x|y|1"),
    ];
    let a = resolve(&b, Request::new("ark:/12345/fk4a??"));
    let Answer::Inflection {
        id,
        suffix,
        bindings,
    } = a
    else {
        panic!("{a:?}")
    };
    assert_eq!((id.as_str(), suffix.as_str()), ("ark:/12345/fk4a", "??"));
    let names: Vec<&str> = bindings.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(names, ["who", "where", "how", "_t", "color"]);
    assert_eq!(bindings[1].1, b"ark:/12345/fk4a");
}

// ---- content negotiation ------------------------------------------------------------

#[test]
fn content_negotiation() {
    let b = [
        ("ark:/12345/fk4a", "_t", "T"),
        (
            "ark:/12345/fk4a",
            "_,eTm,application/json",
            "https://e.org/a.json",
        ),
        ("ark:/12345/fk4b", "_t", "T"),
        ("ark:/12345/fk4b", "_,eTm,", "https://e.org/any-md"),
    ];
    let ac = |id: &str, accept: &str| format!("{id}.resolve !!!pr=https!!!!!!ac={accept}!!!");
    check(
        &b,
        &ac("ark:/12345/fk4a", "application/json"),
        "redir303 https://e.org/a.json",
    );
    check(
        &b,
        &ac("ark:/12345/fk4a", "text/turtle;q=0.2, application/json"),
        "redir303 https://e.org/a.json",
    );
    check(
        &b,
        &ac("ark:/12345/fk4a", "application%2Fjson"),
        "redir303 https://e.org/a.json",
    );
    // Browsers send */*: no negotiation.
    check(
        &b,
        &ac("ark:/12345/fk4a", "application/json,*/*;q=0.8"),
        "redir302 T",
    );
    // A type we cannot serve and no target: the plain target.
    check(&b, &ac("ark:/12345/fk4a", "text/html"), "redir302 T");
    // A metadata type without a target: our own metadata answer.
    check(
        &b,
        &ac("ark:/12345/fk4a", "text/plain"),
        "inflect \"op=cn.text/plain\" \"id=ark:/12345/fk4a\"",
    );
    // The generic metadata target.
    check(
        &b,
        &ac("ark:/12345/fk4b", "text/turtle"),
        "redir303 https://e.org/any-md",
    );
    // Not on suffixes.
    check(
        &b,
        &ac("ark:/12345/fk4a/x", "application/json"),
        "redir302 T/x",
    );
    assert!(matches!(
        resolve(
            &b,
            Request {
                id: "ark:/12345/fk4a",
                accept: Some("application/json;q=1"),
                proto: None
            }
        ),
        Answer::Redirect { code: 303, .. }
    ));
    assert_eq!(
        resolve(
            &b[2..],
            Request {
                id: "ark:/12345/fk4b",
                accept: Some("application/json"),
                proto: None
            }
        ),
        Answer::Redirect {
            code: 303,
            target: "https://e.org/any-md".into()
        }
    );
}

// ---- prefix extension ---------------------------------------------------------------

#[test]
fn prefix_extension() {
    check(
        &[("doi:10.12345/XYZ", "_t", "303 http://a.b.org")],
        "doi:10.12345-dev-2a/XYZ.resolve",
        "redir303 http://a-dev-2a.b.org",
    );
    check(
        &[("ark:/12345", "_t", "a.b.org/${nlid}")],
        "ark:/12345-dev/678.resolve",
        "redir302 http://a-dev.b.org/678",
    );
    check_rules(
        &[],
        "xyzzy: https://a.b.org/${id}",
        "xyzzy-dev:foo.resolve !!!pr=https!!!",
        "redir302 https://a-dev.b.org/foo",
    );
}

// ---- redirect rules -----------------------------------------------------------------

#[test]
fn rules_file() {
    let rules = "doi: https://doi.org/${id}\n\
                 ark:/12345/fk4 https://e.org/fk4/${blade}\n\
                 ark:/12345 301 https://naan.org/${nlid}\n\
                 hdl: hdl.handle.net/${id}\n";
    check_rules(
        &[],
        rules,
        "doi:10.5072/FK2ABC.resolve",
        "redir302 https://doi.org/10.5072/FK2ABC",
    );
    check_rules(
        &[],
        rules,
        "ark:/12345/fk4abc/d.resolve",
        "redir302 https://e.org/fk4/abc/d",
    );
    check_rules(
        &[],
        rules,
        "ark:/12345/zz9/d.resolve",
        "redir301 https://naan.org/zz9/d",
    );
    check_rules(
        &[],
        rules,
        "hdl:1234/5.resolve",
        "redir302 http://hdl.handle.net/1234/5",
    );
    check_rules(
        &[],
        rules,
        "hdl:1234/5.resolve !!!pr=https!!!",
        "redir302 https://hdl.handle.net/1234/5",
    );
    check_rules(&[], rules, "pmid:1.resolve", "NULL");
    // A bound id beats every rule.
    check_rules(
        &[("doi:10.5072/FK2ABC", "_t", "mine")],
        rules,
        "doi:10.5072/FK2ABC.resolve",
        "redir302 mine",
    );
}

#[test]
fn rules_bound_in_the_store() {
    let b = [
        ("ark:/13960", "_t", "https://archive.org/ark:/${id}"),
        ("ark:", "_t", "https://n2t.net/ark:/${id}"),
        ("ark:/99999/fk4", "_t", "https://shoulder.org/${blade}"),
    ];
    check(
        &b,
        "ark:/13960/t6m042969.resolve",
        "redir302 https://archive.org/ark:/13960/t6m042969",
    );
    check(
        &b,
        "ark:/11111/x.resolve",
        "redir302 https://n2t.net/ark:/11111/x",
    );
    check(
        &b,
        "ark:/99999/fk4zz.resolve",
        "redir302 https://shoulder.org/zz",
    );
    // A rule without placeholders gets the rest of the id appended.
    check(
        &[("ark:/13960", "_t", "https://a.org/ark:/13960")],
        "ark:/13960/x/y.resolve",
        "redir302 https://a.org/ark:/13960/x/y",
    );
    // The store beats the file at the same level; the shoulder beats the NAAN.
    check_rules(
        &b,
        "ark:/13960 https://file.org/",
        "ark:/13960/x.resolve",
        "redir302 https://archive.org/ark:/13960/x",
    );
    check_rules(
        &b,
        "ark:/13960/t6 https://file.org/${blade}",
        "ark:/13960/t6m04.resolve",
        "redir302 https://file.org/m04",
    );
}

#[test]
fn partial_ids() {
    let rules = "doi: https://doi.org/${id}";
    for (line, key) in [
        ("ark:.resolve", "ark:"),
        ("ark:/.resolve", "ark:"),
        ("ark:/99999.resolve", "ark:/99999"),
        ("ark:99999/.resolve", "ark:/99999"),
        ("doi:10.5072.resolve", "doi:10.5072"),
        ("doi:.resolve", "doi:"),
    ] {
        check_rules(
            &[],
            rules,
            line,
            &format!("inflect \"op=partial\" \"partial={key}\""),
        );
    }
    // A bound partial id is a plain id.
    check(
        &[("ark:/99999", "_t", "n")],
        "ark:/99999.resolve",
        "redir302 n",
    );
}

#[test]
fn forwarding_to_a_global_resolver() {
    let rules = "global-resolver https://n2t.net/\nlocal-naans 12345\n";
    check_rules(
        &[],
        rules,
        "ark:/99999/nope.resolve",
        "redir302 https://n2t.net/ark:/99999/nope",
    );
    check_rules(
        &[],
        rules,
        "ark:99999/nope??.resolve",
        "redir302 https://n2t.net/ark:/99999/nope??",
    );
    // Loop protection: our own NAANs are never forwarded.
    check_rules(&[], rules, "ark:/12345/nope.resolve", "NULL");
    check_rules(
        &[("ark:/67890/x", "_t", "T")],
        rules,
        "ark:/67890/nope.resolve",
        "NULL",
    );
    // Only ARKs are forwarded.
    check_rules(&[], rules, "doi:10.1/x.resolve", "NULL");
    check_rules(&[], rules, "X.resolve", "NULL");
}
