//! FAIR Signposting from `noidr --http` (`signposting on` in the rules file): the `Link`
//! header of a bound identifier's redirect, metadata page and several targets, none for
//! a rule's redirect or a miss, none with signposting off; linksets (RFC 9264) by
//! content negotiation. Expected values written by hand from signposting.org's and RFC
//! 9264's examples.

use std::process::Command;

use crate::util::{noidr_bin, Http, Minter};

const CITED: &str = "https://ark.example.org/ark:/13030/sp1";

fn the_links(items: &str) -> String {
    format!(
        "<{CITED}>; rel=\"cite-as\", \
         <{CITED}>; rel=\"describedby\"; type=\"application/ld+json\", \
         <{CITED}>; rel=\"describedby\"; type=\"application/vnd.citationstyles.csl+json\", \
         <https://schema.org/Dataset>; rel=\"type\", \
         {items}\
         <{CITED}>; rel=\"linkset\"; type=\"application/linkset\", \
         <{CITED}>; rel=\"linkset\"; type=\"application/linkset+json\""
    )
}

/// The value of `name` in the response `r` (headers are lower case), if there is one.
fn header<'a>(r: &'a str, name: &str) -> Option<&'a str> {
    let head = r.split("\r\n\r\n").next().unwrap_or("");
    head.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
}

fn start(m: &Minter, rules: &str) -> (Http, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let rules_file = dir.path().join("rules");
    std::fs::write(&rules_file, rules).unwrap();
    let sock = dir.path().join("noidr.sock");
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir()).arg("--rules").arg(&rules_file);
    (Http::start(cmd, sock.to_str().unwrap()), dir)
}

#[test]
fn bound_identifiers_are_signposted_in_headers_and_linksets() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/sp1", "_t", "https://data.example.org/sp1"),
        ("ark:/13030/sp1", "how", "(:mtype data) tide gauges"),
        ("ark:/13030/sp1", "what", "Tide gauges"),
        (
            "ark:/13030/sp2",
            "_t",
            "https://a.example.org/2\nhttps://b.example.org/2",
        ),
    ]);
    let rules = "cite-as https://ark.example.org\nsignposting on\ndoi: https://doi.org/${id}\n";
    let (mut server, _dir) = start(&m, rules);
    // A redirect.
    let r = server.get("/redirect/ark:/13030/sp1", "");
    assert!(r.starts_with("HTTP/1.1 302"), "{r}");
    assert_eq!(header(&r, "link"), Some(the_links("").as_str()), "{r}");
    // A suffix passed on (chop-back): the links are the record's.
    let r = server.get("/redirect/ark:/13030/sp1/page/2", "");
    assert!(
        r.contains("location: https://data.example.org/sp1/page/2\r\n"),
        "{r}"
    );
    assert_eq!(header(&r, "link"), Some(the_links("").as_str()), "{r}");
    // The metadata page.
    let r = server.get("/redirect/ark:/13030/sp1??", "");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert_eq!(header(&r, "link"), Some(the_links("").as_str()), "{r}");
    // Several targets: each an item (and no `how`: a CreativeWork).
    let r = server.get("/redirect/ark:/13030/sp2", "");
    assert!(r.starts_with("HTTP/1.1 300"), "{r}");
    let sp2 = the_links(
        "<https://a.example.org/2>; rel=\"item\", <https://b.example.org/2>; rel=\"item\", ",
    )
    .replace("sp1", "sp2")
    .replace("Dataset", "CreativeWork");
    assert_eq!(header(&r, "link"), Some(sp2.as_str()), "{r}");
    // No record, no signposts: a NAAN not served here sent on, a rule's redirect, a miss.
    let r = server.get("/redirect/ark:/99999/x", "");
    assert!(
        r.contains("location: https://n2t.net/ark:/99999/x\r\n"),
        "{r}"
    );
    assert_eq!(header(&r, "link"), None, "{r}");
    let r = server.get("/redirect/doi:10.5072/X", "");
    assert!(r.contains("location: https://doi.org/10.5072/X\r\n"), "{r}");
    assert_eq!(header(&r, "link"), None, "{r}");
    let r = server.get("/redirect/ark:/13030/none", "");
    assert!(r.starts_with("HTTP/1.1 404"), "{r}");
    assert_eq!(header(&r, "link"), None, "{r}");
    // The linksets, by content negotiation.
    let r = server.get(
        "/redirect/ark:/13030/sp1",
        "Accept: application/linkset\r\n",
    );
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert_eq!(
        header(&r, "content-type"),
        Some("application/linkset"),
        "{r}"
    );
    let body = r.split("\r\n\r\n").nth(1).unwrap();
    let a = format!("; anchor=\"{CITED}\"");
    assert_eq!(
        body,
        format!(
            "<{CITED}>; rel=\"cite-as\"{a},\n\
             <{CITED}>; rel=\"describedby\"; type=\"application/ld+json\"{a},\n\
             <{CITED}>; rel=\"describedby\"; type=\"application/vnd.citationstyles.csl+json\"{a},\n\
             <https://schema.org/Dataset>; rel=\"type\"{a}\n"
        )
    );
    let r = server.get(
        "/redirect/ark:/13030/sp2",
        "Accept: application/linkset+json\r\n",
    );
    assert_eq!(
        header(&r, "content-type"),
        Some("application/linkset+json"),
        "{r}"
    );
    let body: serde_json::Value =
        serde_json::from_str(r.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    let sp2 = CITED.replace("sp1", "sp2");
    assert_eq!(
        body,
        serde_json::json!({"linkset": [{
            "anchor": sp2,
            "cite-as": [{"href": sp2}],
            "describedby": [{"href": sp2, "type": "application/ld+json"},
                            {"href": sp2, "type": "application/vnd.citationstyles.csl+json"}],
            "type": [{"href": "https://schema.org/CreativeWork"}],
            "item": [{"href": "https://a.example.org/2"}, {"href": "https://b.example.org/2"}]
        }]})
    );
    assert!(server.stop().success());

    // Signposting off (the default): no links; a linkset is still answered when asked.
    let (mut server, _dir) = start(&m, "cite-as https://ark.example.org\n");
    let r = server.get("/redirect/ark:/13030/sp1", "");
    assert!(r.starts_with("HTTP/1.1 302"), "{r}");
    assert_eq!(header(&r, "link"), None, "{r}");
    let r = server.get(
        "/redirect/ark:/13030/sp1",
        "Accept: application/linkset\r\n",
    );
    assert_eq!(
        header(&r, "content-type"),
        Some("application/linkset"),
        "{r}"
    );
    assert!(server.stop().success());
}

/// A rules file's `signposting` line says on or off, nothing else.
#[test]
fn a_bad_signposting_line_is_refused() {
    let m = Minter::new();
    let dir = tempfile::tempdir().unwrap();
    let rules_file = dir.path().join("rules");
    std::fs::write(&rules_file, "signposting yes\n").unwrap();
    let out = Command::new(noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .arg("--rules")
        .arg(&rules_file)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 1: signposting is \"on\" or \"off\", not \"yes\""),
        "{err}"
    );
}
