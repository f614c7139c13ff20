//! Issue 19's ARK details against the real `noidr --http` on 127.0.0.1 and a real
//! RocksDB store: `/.well-known/ark`, tombstones, `Last-Modified` (written by the real
//! `noid bind`), the standing in ANVL and JSON pages, and the ARK spec's normalisation.
//! Expected answers are written out by hand.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use noid_store::Op;

use crate::util::{noidr_bin, Http, Minter, Noidr};

/// `noidr --http 127.0.0.1:PORT` on a minter.
struct Server(Http);

impl Server {
    fn start(m: &Minter, rules: Option<&std::path::Path>) -> Server {
        let mut cmd = Command::new(noidr_bin());
        cmd.arg("-f").arg(m.dbdir());
        if let Some(r) = rules {
            cmd.arg("--rules").arg(r);
        }
        Server(Http::start(cmd, "127.0.0.1:0"))
    }

    /// One request; (status, lower-case headers, body).
    fn get(&self, path: &str, headers: &str) -> (u16, Vec<(String, String)>, String) {
        let out = self.0.get(path, headers);
        let (head, body) = out.split_once("\r\n\r\n").expect("a head");
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let headers = lines
            .map(|l| {
                let (n, v) = l.split_once(": ").unwrap();
                (n.to_ascii_lowercase(), v.to_string())
            })
            .collect();
        (status, headers, body.to_string())
    }
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

#[test]
fn well_known_ark_names_the_naans_and_the_global_resolver() {
    let m = Minter::new();
    // The NAAN `noid dbcreate` records for a minter.
    m.commit([Op::Put(b":/naan".to_vec(), b"13030".to_vec())]);
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    std::fs::write(
        &rules,
        "global-resolver https://n2t.net/\nlocal-naans 67890 B5072\n",
    )
    .unwrap();
    let s = Server::start(&m, Some(&rules));
    // The draft's discovery URL: the resolver's path alone, as plain text (rule 7).
    let (status, h, body) = s.get("/.well-known/ark", "Accept: application/json\r\n");
    assert_eq!(
        (status, header(&h, "content-type"), body.as_str()),
        (200, Some("text/plain; charset=utf-8"), "/\n")
    );
    // The service description, moved to /-/ark.
    let (status, h, body) = s.get("/-/ark", "");
    assert_eq!(status, 200);
    assert_eq!(
        header(&h, "content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(
        body,
        "erc:\nresolver: /\nnaan: 13030\nnaan: 67890\nnaan: b5072\nglobal-resolver: https://n2t.net/\n"
    );
    let (status, h, body) = s.get("/-/ark", "Accept: application/json\r\n");
    assert_eq!(
        (status, header(&h, "content-type")),
        (200, Some("application/json"))
    );
    assert_eq!(
        body,
        "{\"resolver\":\"/\",\"naans\":[\"13030\",\"67890\",\"b5072\"],\"global_resolver\":\"https://n2t.net/\"}\n"
    );
    // Without rules file nor minter NAAN: nothing served, other ARKs forwarded to N2T
    // (the ARK draft's §3.3); a rules file's `global-resolver off` forwards none.
    let bare = Minter::new();
    let s = Server::start(&bare, None);
    let (_, _, body) = s.get("/-/ark", "Accept: application/json\r\n");
    assert_eq!(
        body,
        "{\"resolver\":\"/\",\"naans\":[],\"global_resolver\":\"https://n2t.net/\"}\n"
    );
    std::fs::write(&rules, "global-resolver off\n").unwrap();
    let s = Server::start(&bare, Some(&rules));
    let (_, _, body) = s.get("/-/ark", "Accept: application/json\r\n");
    assert_eq!(
        body,
        "{\"resolver\":\"/\",\"naans\":[],\"global_resolver\":null}\n"
    );
}

/// Chromium's `Accept`, as a browser sends it for a page.
const BROWSER: &str = "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n";

/// Issue 41, item 7: a populator's binder (no minter, so no `:/naan`) whose registry
/// has a record for `ark:/13030` serves NAAN 13030; the front page lists it (it said
/// "None") and its header link to the service description (`/-/ark`) says what that is.
#[test]
fn a_populators_binder_serves_the_naans_of_its_registry_records() {
    let m = Minter::new();
    m.bind(&[("ark:/13030/f54x54g11", "_t", "https://e.org/a")]);
    let dir = tempfile::tempdir().unwrap();
    let registry = dir.path().join("registry");
    std::fs::write(
        &registry,
        "prefix: ark:/13030\nname: California Digital Library\n\n\
         prefix: ark:/99999/fk4\nname: test shoulder\n",
    )
    .unwrap();
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f")
        .arg(m.dbdir())
        .arg("--registry")
        .arg(&registry);
    let s = Server(Http::start(cmd, "127.0.0.1:0"));
    let (status, h, body) = s.get("/", BROWSER);
    assert_eq!(
        (status, header(&h, "content-type")),
        (200, Some("text/html; charset=utf-8"))
    );
    assert!(
        body.contains(
            "<h2>NAANs served</h2>\n<ul>\n<li><a href=\"/ark:/13030\">ark:/13030</a></li>\n\
             <li><a href=\"/ark:/99999\">ark:/99999</a></li>\n</ul>\n"
        ),
        "{body}"
    );
    assert!(
        body.contains("<a href=\"/-/ark\">ARK service description</a>"),
        "{body}"
    );
    let (_, _, body) = s.get("/-/ark", "");
    assert_eq!(
        body,
        "erc:\nresolver: /\nnaan: 13030\nnaan: 99999\nglobal-resolver: https://n2t.net/\n"
    );
}

#[test]
fn a_withdrawn_identifier_is_a_410_tombstone_naming_its_successor() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/gone", "_t", "410 withdrawn in 2024"),
        ("ark:/13030/gone", "successor", "ark:/13030/new"),
        ("ark:/13030/gone", "who", "A. Writer"),
        ("ark:/13030/gone", ":/m", "1700000000"),
        ("ark:/13030/old", "_t", "410 "),
        ("ark:/13030/new", "_t", "https://e.org/new"),
    ]);
    let s = Server::start(&m, None);
    let (status, h, body) = s.get("/ark:/13030/gone", "");
    assert_eq!(status, 410);
    assert_eq!(
        header(&h, "content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(
        header(&h, "link"),
        Some("</ark:/13030/new>; rel=\"successor-version\"")
    );
    assert_eq!(
        header(&h, "last-modified"),
        Some("Tue, 14 Nov 2023 22:13:20 GMT")
    );
    assert_eq!(
        body,
        "erc:\nwho: A. Writer\nwhere: ark:/13030/gone\nwithdrawn: withdrawn in 2024\nsuccessor: ark:/13030/new\n"
    );
    let (status, _, body) = s.get("/redirect/ark:/13030/gone", "Accept: application/json\r\n");
    assert_eq!(status, 410);
    assert_eq!(
        body,
        "{\"id\":\"ark:/13030/gone\",\"withdrawn\":\"withdrawn in 2024\",\"successor\":\"ark:/13030/new\",\
         \"erc\":{\"who\":\"A. Writer\",\"where\":\"ark:/13030/gone\"}}\n"
    );
    let (status, h, body) = s.get("/ark:/13030/gone", "Accept: text/html,*/*;q=0.8\r\n");
    assert_eq!(
        (status, header(&h, "content-type")),
        (410, Some("text/html; charset=utf-8"))
    );
    assert!(
        body.contains(
            "<main>\n<h1>ark:/13030/gone</h1>\n<div class=\"withdrawn\">\n\
             <p>Withdrawn: withdrawn in 2024</p>\n\
             <p>Successor: <a href=\"/ark:/13030/new\">ark:/13030/new</a></p>\n</div>\n\
             <h2>Kernel metadata</h2>\n<table>\n\
             <tr><th scope=\"row\">who <span class=\"about\">a responsible person or party</span></th>\
             <td>A. Writer</td></tr>\n"
        ),
        "{body}"
    );
    // The page shows the last write, as Last-Modified says it.
    assert!(
        body.contains("<p>Last modified: Tue, 14 Nov 2023 22:13:20 GMT</p>\n"),
        "{body}"
    );
    // Below a withdrawn id everything is gone; no successor, no text, no time: still 410.
    let (status, _, body) = s.get("/ark:/13030/gone/chapter2", "");
    assert_eq!(status, 410);
    assert!(
        body.contains("withdrawn: withdrawn in 2024/chapter2\n"),
        "{body}"
    );
    let (status, h, body) = s.get("/ark:/13030/old", "");
    assert_eq!(
        (status, header(&h, "link"), header(&h, "last-modified")),
        (410, None, None)
    );
    assert_eq!(body, "erc:\nwhere: ark:/13030/old\nwithdrawn: \n");
    // The routes for nginx: 401 + X-Status sends auth_request to /redirect/.
    let (status, h, _) = s.get("/auth/ark:/13030/gone", "");
    assert_eq!((status, header(&h, "x-status")), (401, Some("410")));
    // The line protocols answer what they always answered for a 410.
    let mut egg = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    assert_eq!(
        egg.ask("ark:/13030/gone.resolve"),
        "redir410 withdrawn in 2024"
    );
    assert_eq!(egg.ask("ark:/13030/old.resolve"), "redir410 ");
    let mut noid = Noidr::start(m.dbdir(), &[]);
    assert_eq!(noid.ask("get ark:/13030/gone _t"), "410 withdrawn in 2024");
    assert_eq!(noid.ask("get ark:/13030/gone successor"), "ark:/13030/new");
}

#[test]
fn pages_carry_last_modified_and_answer_304_when_unchanged() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/m", "_t", "https://e.org/m"),
        ("ark:/13030/m", "who", "Smith, J."),
        ("ark:/13030/m", "what", "A title"),
        ("ark:/13030/m", "when", "2020"),
        ("ark:/13030/m", "how", "(:mtype text) thesis"),
        ("ark:/13030/m", ":/m", "1700000000"),
        // As a noid minter stores it: found from `ark:/13030/f5…` too.
        ("13030/f5x", "_t", "https://e.org/f"),
        ("13030/f5x", "who", "(:soon)"),
        ("13030/f5x", ":/m", "784111777"),
    ]);
    let s = Server::start(&m, None);
    let (status, h, body) = s.get("/ark:/13030/m?", "");
    assert_eq!(status, 200);
    assert_eq!(
        header(&h, "last-modified"),
        Some("Tue, 14 Nov 2023 22:13:20 GMT")
    );
    assert_eq!(
        body,
        "erc:\nwho: Smith, J.\nwhat: A title\nwhen: 2020\nwhere: ark:/13030/m\n\
         how: (:mtype text) thesis\nstanding: good\n"
    );
    let (status, h, body) = s.get("/ark:/13030/f5x??", "Accept: application/json\r\n");
    assert_eq!(status, 200);
    assert_eq!(
        header(&h, "last-modified"),
        Some("Sun, 06 Nov 1994 08:49:37 GMT")
    );
    assert_eq!(
        body,
        "{\"id\":\"ark:/13030/f5x\",\"inflection\":\"??\",\"erc\":{\"who\":\"(:soon)\",\
         \"what\":\"(:unav)\",\"when\":\"(:unav)\",\"where\":\"ark:/13030/f5x\",\"_t\":\"https://e.org/f\"},\"standing\":{\"good\":false,\
         \"missing\":[\"what\",\"when\",\"how\"],\
         \"malformed\":[{\"element\":\"who\",\"why\":\"unknown reserved code (:soon)\"}]}}\n"
    );
    // Conditional GETs.
    let same = "If-Modified-Since: Tue, 14 Nov 2023 22:13:20 GMT\r\n";
    let (status, h, body) = s.get("/ark:/13030/m?", same);
    assert_eq!((status, body.as_str()), (304, ""));
    assert_eq!(
        header(&h, "last-modified"),
        Some("Tue, 14 Nov 2023 22:13:20 GMT")
    );
    let older = "If-Modified-Since: Tue, 14 Nov 2023 22:13:19 GMT\r\n";
    assert_eq!(s.get("/ark:/13030/m?", older).0, 200);
    // /lookup/ and /auth/ never answer 304 (njs reads the body; auth_request takes 2xx/401/403).
    assert_eq!(s.get("/lookup/ark:%2F13030%2Fm%3F", same).0, 200);
    assert_eq!(s.get("/auth/ark:/13030/m?", same).0, 401);
    // Redirects carry no Last-Modified.
    let (status, h, _) = s.get("/ark:/13030/m", same);
    assert_eq!((status, header(&h, "last-modified")), (302, None));
}

#[test]
fn noid_bind_records_the_last_write() {
    let m = Minter::new();
    let now = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let before = now();
    m.noid_bind_set("ark:/13030/w", "_t", "https://e.org/w");
    m.noid_bind_set("ark:/13030/w", "who", "W");
    let after = now();
    let s = Server::start(&m, None);
    let (status, h, _) = s.get("/ark:/13030/w?", "");
    assert_eq!(status, 200);
    let lm = header(&h, "last-modified").expect("Last-Modified");
    let t = httpdate::parse_http_date(lm)
        .unwrap()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!((before..=after).contains(&t), "{before} <= {t} <= {after}");
    // `get` never shows the record.
    let mut noid = Noidr::start(m.dbdir(), &[]);
    assert_eq!(noid.ask("get ark:/13030/w"), "https://e.org/w\tW");
}

#[test]
fn every_spelling_the_ark_spec_equates_resolves() {
    let m = Minter::new();
    m.bind(&[
        ("ark:/13030/xy", "_t", "https://e.org/xy"),
        ("ark:b5072/fk2a%7E", "_t", "https://e.org/fk2a"),
    ]);
    let s = Server::start(&m, None);
    for path in [
        "/ark:/13030/x-y",
        "/ark:13030/x%E2%80%90y",  // U+2010 hyphen
        "/ARK:/13030/x%E2%80%91y", // U+2011 non-breaking hyphen
        "/ark:/13030/x%E2%80%93y", // U+2013 en dash
        "/ark:/13030/x%E2%80%95y", // U+2015 horizontal bar
    ] {
        let (status, h, _) = s.get(path, "");
        assert_eq!(
            (status, header(&h, "location")),
            (302, Some("https://e.org/xy")),
            "{path}"
        );
    }
    for path in ["/ARK:/B5072/fk2a%257E", "/ark:/b5072/fk2-a%257e"] {
        let (status, h, _) = s.get(path, "");
        assert_eq!(
            (status, header(&h, "location")),
            (302, Some("https://e.org/fk2a")),
            "{path}"
        );
    }
    // U+2212 (minus sign) is not a hyphen.
    assert_eq!(s.get("/ark:/13030/x%E2%88%92y", "").0, 404);
}

/// Every row of docs/RESOLUTION.md's table of the ARK draft's rules, asked of the real
/// `noidr` on a real store holding the table's bindings: as a line of the egg protocol
/// (Apache's `RewriteMap prg:`) and over `--http` (the path %-encoded as a browser
/// sends it; rule 3's own URLs as written).
#[test]
fn every_row_of_the_draft_rules_table_answers_in_the_line_protocol_and_over_http() {
    use noid_resolve::draft_table::{bindings, rows, Expected};
    let m = Minter::new();
    m.bind(&bindings());
    let rows = rows();
    assert_eq!(rows.len(), 35);
    let mut prg = Noidr::start(m.dbdir(), &["--protocol", "egg", "--egg-miss", "null"]);
    let s = Server::start(&m, None);
    for row in rows {
        let request = row.request;
        let line = prg.ask(&format!("{request}.resolve"));
        let (status, h, body) = s.get(&format!("/{}", row.http_path()), "");
        match row.expected {
            Expected::Redirect(want) => {
                assert_eq!(line, format!("redir302 {want}"), "{request} as a line");
                assert_eq!(
                    (status, header(&h, "location")),
                    (302, Some(want)),
                    "{request} over HTTP"
                );
            }
            Expected::Metadata(of) => {
                assert!(line.starts_with("inflect "), "{request} as a line: {line}");
                assert_eq!(status, 200, "{request} over HTTP");
                // `where` defaults to the id, written as ANVL writes a value.
                let where_ = format!("where: {}\n", of.replace('%', "%25"));
                assert!(body.contains(&where_), "{request} over HTTP: {body}");
            }
            Expected::NotFound => {
                assert_eq!(line, "NULL", "{request} as a line");
                assert_eq!(status, 404, "{request} over HTTP");
            }
        }
    }
    assert!(prg.finish().success());
}
