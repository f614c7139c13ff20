//! The server in front of the real `noid_resolve::Resolver` on a `MemLookup`: the
//! answers the web servers will relay, byte for byte.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

use noid_core::MemLookup;
use noid_http::{Answer, Backend, LookupError, Request, Shutdown};
use noid_listen::Listener;
use noid_resolve::draft_table::{self, Expected};
use noid_resolve::{Resolver, Rules};

struct Real {
    resolver: Resolver,
    store: MemLookup,
}

impl Backend for Real {
    fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError> {
        self.resolver.resolve(&self.store, req)
    }
}

fn fetch(addr: &str, target: &str, accept: Option<&str>) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    let accept = accept
        .map(|a| format!("Accept: {a}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: x\r\n{accept}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

fn status_and(out: &str, header: &str) -> (u16, Option<String>) {
    let status = out[9..12].parse().unwrap();
    let h = out
        .split("\r\n")
        .find_map(|l| {
            l.split_once(": ")
                .filter(|(n, _)| n.eq_ignore_ascii_case(header))
        })
        .map(|(_, v)| v.to_owned());
    (status, h)
}

fn body(out: &str) -> &str {
    out.split_once("\r\n\r\n").unwrap().1
}

#[test]
fn real_resolver_over_http() {
    let store = MemLookup::new();
    store.bind("ark:/00224/foo", "_t", "zaf");
    store.bind("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/");
    store.bind("ark:/12345/sfx", "_t", "https://h.example/bar${suffix}zaf");
    store.bind("ark:/12345/p", "_t", "301 https://example.org/moved");
    store.bind("ark:/12345/m", "_t", "https://example.org/m");
    store.bind("ark:/12345/m", "who", "Smith, J.");
    store.bind("ark:/12345/m", "what", "A title");
    store.bind(
        "ark:/12345/m",
        "_,eTm,text/turtle",
        "https://example.org/m.ttl",
    );
    let backend: Arc<dyn Backend> = Arc::new(Real {
        resolver: Resolver::new(Rules::empty()),
        store,
    });

    let l = Listener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr();
    let stop = Shutdown::new();
    let s2 = stop.clone();
    let server = std::thread::spawn(move || noid_http::serve(l, backend, s2));

    // chop-back to the ancestor, the tail (with its raw query) appended
    let out = fetch(&addr, "/redirect/ark:/00224/foo/bar//zif?zaf=ab&cd", None);
    assert_eq!(
        status_and(&out, "location"),
        (302, Some("zaf/bar//zif?zaf=ab&cd".into()))
    );
    // shoulder-as-id
    let out = fetch(&addr, "/ark:/12345/xt2rv8b/chap3", None);
    assert_eq!(
        status_and(&out, "location").1.as_deref(),
        Some("http://obj.example.com/datasets/rv8b/chap3")
    );
    // ${suffix}
    let out = fetch(&addr, "/redirect/ark:/12345/sfx/abc", None);
    assert_eq!(
        status_and(&out, "location").1.as_deref(),
        Some("https://h.example/bar/abczaf")
    );
    // stored code
    let out = fetch(&addr, "/redirect/ark:/12345/p", None);
    assert_eq!(
        status_and(&out, "location"),
        (301, Some("https://example.org/moved".into()))
    );
    // auth_request form
    let out = fetch(&addr, "/auth/ark:/12345/p", None);
    assert_eq!(
        status_and(&out, "x-target"),
        (204, Some("https://example.org/moved".into()))
    );
    assert_eq!(status_and(&out, "x-status").1.as_deref(), Some("301"));
    // miss
    assert_eq!(
        status_and(&fetch(&addr, "/redirect/ark:/99999/nope", None), "location"),
        (404, None)
    );
    assert_eq!(
        status_and(&fetch(&addr, "/auth/ark:/99999/nope", None), "location").0,
        403
    );
    // inflections: the metadata page
    let out = fetch(&addr, "/redirect/ark:/12345/m?", None);
    assert_eq!(
        status_and(&out, "content-type"),
        (200, Some("text/plain; charset=utf-8".into()))
    );
    assert!(
        body(&out).starts_with("erc:\nwho: Smith, J.\nwhat: A title\n"),
        "{out}"
    );
    let out = fetch(&addr, "/redirect/ark:/12345/m??", Some("application/json"));
    assert_eq!(
        status_and(&out, "content-type").1.as_deref(),
        Some("application/json")
    );
    assert!(
        body(&out).starts_with("{\"id\":\"ark:/12345/m\",\"inflection\":\"??\""),
        "{out}"
    );
    // content negotiation: a bound _,eTm, target gives a 303
    let out = fetch(&addr, "/redirect/ark:/12345/m", Some("text/turtle"));
    assert_eq!(
        status_and(&out, "location"),
        (303, Some("https://example.org/m.ttl".into()))
    );
    // a browser Accept list does not negotiate
    let out = fetch(&addr, "/redirect/ark:/12345/m", Some("text/html,*/*;q=0.8"));
    assert_eq!(
        status_and(&out, "location"),
        (302, Some("https://example.org/m".into()))
    );
    // a browser asking for the metadata page gets HTML: kernel, target, standing
    let out = fetch(
        &addr,
        "/redirect/ark:/12345/m?",
        Some("text/html,*/*;q=0.8"),
    );
    assert_eq!(
        status_and(&out, "content-type"),
        (200, Some("text/html; charset=utf-8".into()))
    );
    let page = body(&out);
    let main = &page[page.find("<main>\n").unwrap() + 7..page.find("</main>").unwrap()];
    assert_eq!(
        main,
        "<h1>ark:/12345/m</h1>\n<h2>Kernel metadata</h2>\n<table>\n\
         <tr><th scope=\"row\">who <span class=\"about\">a responsible person or party</span></th>\
         <td>Smith, J.</td></tr>\n\
         <tr><th scope=\"row\">what <span class=\"about\">a name or other human-oriented identifier</span></th>\
         <td>A title</td></tr>\n\
         <tr><th scope=\"row\">when <span class=\"about\">a date important in the object&#39;s lifecycle</span></th>\
         <td><i>no value</i> <span class=\"note\">(:unav) value unavailable, possibly unknown</span></td></tr>\n\
         <tr><th scope=\"row\">where <span class=\"about\">a location or machine-oriented identifier</span></th>\
         <td>ark:/12345/m</td></tr>\n\
         </table>\n<h2>Target</h2>\n<p><a href=\"https://example.org/m\">https://example.org/m</a></p>\n\
         <h2>Standing</h2>\n<p><span class=\"bad\">not good</span></p>\n<ul>\n\
         <li>missing: when</li>\n<li>missing: how</li>\n</ul>\n"
    );

    stop.shut_down();
    server.join().unwrap().unwrap();
}

/// docs/RESOLUTION.md's table of the ARK specification's normalisation vectors:
/// (request, normal form) of every row between its markers.
fn normalisation_vectors() -> Vec<(&'static str, &'static str)> {
    const DOC: &str = include_str!("../../../docs/RESOLUTION.md");
    let begin = DOC.find("<!-- normalisation vectors: begin -->").unwrap();
    let end = DOC.find("<!-- normalisation vectors: end -->").unwrap();
    DOC[begin..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`'), cells[2].trim_matches('`'))
        })
        .collect()
}

/// `id` as a request path segment: `%`, space and bytes outside ASCII percent-encoded, so that
/// the server's decoding gives `id` back.
fn path_of(id: &str) -> String {
    let mut out = String::new();
    for &c in id.as_bytes() {
        if c == b'%' || c == b' ' || !c.is_ascii() {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(char::from(c));
        }
    }
    out
}

#[test]
fn every_spelling_of_the_vector_table_redirects_over_http() {
    let vectors = normalisation_vectors();
    assert_eq!(vectors.len(), 18);
    for slash in ["/", ""] {
        // Each normal form bound in one ARK form, its target naming it.
        let store = MemLookup::new();
        for (_, normal) in &vectors {
            let local = normal.strip_prefix("ark:").unwrap();
            store.bind(
                &format!("ark:{slash}{local}"),
                "_t",
                format!("https://example.org/{local}"),
            );
        }
        let backend: Arc<dyn Backend> = Arc::new(Real {
            resolver: Resolver::new(Rules::empty()),
            store,
        });
        let l = Listener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr();
        let stop = Shutdown::new();
        let s2 = stop.clone();
        let server = std::thread::spawn(move || noid_http::serve(l, backend, s2));
        for (request, normal) in &vectors {
            let out = fetch(&addr, &format!("/redirect/{}", path_of(request)), None);
            let local = normal.strip_prefix("ark:").unwrap();
            assert_eq!(
                status_and(&out, "location"),
                (302, Some(format!("https://example.org/{local}"))),
                "{request:?} with ark:{slash}{local} bound"
            );
        }
        stop.shut_down();
        server.join().unwrap().unwrap();
    }
}

#[test]
fn every_row_of_the_draft_rules_table_answers_over_http() {
    let rows = draft_table::rows();
    assert_eq!(rows.len(), 35);
    let store = MemLookup::new();
    for (id, elem, value) in draft_table::bindings() {
        store.bind(id, elem, value);
    }
    let backend: Arc<dyn Backend> = Arc::new(Real {
        resolver: Resolver::new(Rules::empty()),
        store,
    });
    let l = Listener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr();
    let stop = Shutdown::new();
    let s2 = stop.clone();
    let server = std::thread::spawn(move || noid_http::serve(l, backend, s2));
    for row in rows {
        let request = row.request;
        let out = fetch(&addr, &format!("/{}", row.http_path()), None);
        match row.expected {
            Expected::Redirect(target) => assert_eq!(
                status_and(&out, "location"),
                (302, Some(target.to_string())),
                "{request}"
            ),
            // The metadata page (ANVL) of the bound id: `where` defaults to the id,
            // written as ANVL writes a value (`%` as `%25`).
            Expected::Metadata(of) => {
                let id = of.replace('%', "%25");
                assert_eq!(status_and(&out, "location"), (200, None), "{request}");
                assert!(
                    body(&out).contains(&format!("where: {id}\n")),
                    "{request}: {out}"
                );
            }
            Expected::NotFound => assert_eq!(status_and(&out, "location").0, 404, "{request}"),
        }
    }
    stop.shut_down();
    server.join().unwrap().unwrap();
}

/// `?info` answers who, what, when and where, `(:unav)` for what is not bound, and the
/// commitment statement of the registry record of the ARK's shoulder or NAAN
/// (draft-kunze-ark-43 §5.1.1, §5.1.2, rule 6), in ANVL and JSON; `?` (brief) shows the
/// kernel only.
#[test]
fn info_answers_the_kernel_and_the_commitment_statement() {
    let store = MemLookup::new();
    store.bind("ark:/12345/fk4a", "_t", "https://example.org/a");
    store.bind("ark:/12345/fk4a", "who", "Lange, D.");
    store.bind("ark:/67890/b", "_t", "https://example.org/b");
    let registry = "prefix: ark:/12345\nname: Test\ncommitment: NAAN-wide promise\n\n\
                    prefix: ark:/12345/fk4\ncommitment: kept at least 10 years\n";
    let backend: Arc<dyn Backend> = Arc::new(Real {
        resolver: Resolver::with_registry(
            Rules::empty(),
            Arc::new(noid_resolve::Registry::parse(registry).unwrap()),
        ),
        store,
    });
    let l = Listener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr();
    let stop = Shutdown::new();
    let s2 = stop.clone();
    let server = std::thread::spawn(move || noid_http::serve(l, backend, s2));
    let out = fetch(&addr, "/ark:/12345/fk4a?info", None);
    assert_eq!(status_and(&out, "location"), (200, None));
    assert_eq!(
        body(&out),
        "erc:\nwho: Lange, D.\nwhat: (:unav)\nwhen: (:unav)\nwhere: ark:/12345/fk4a\n\
         _t: https://example.org/a\nerc-support: kept at least 10 years\n\
         standing: not good\nmissing: what\nmissing: when\nmissing: how\n"
    );
    let out = fetch(&addr, "/ark:/12345/fk4a?info", Some("application/json"));
    assert!(
        body(&out).contains(
            "\"erc\":{\"who\":\"Lange, D.\",\"what\":\"(:unav)\",\"when\":\"(:unav)\",\
             \"where\":\"ark:/12345/fk4a\",\"_t\":\"https://example.org/a\",\
             \"erc-support\":\"kept at least 10 years\"}"
        ),
        "{out}"
    );
    // The brief inflection shows the kernel alone; a NAAN with no record, no statement.
    let out = fetch(&addr, "/ark:/12345/fk4a?", None);
    assert!(!body(&out).contains("erc-support"), "{out}");
    let out = fetch(&addr, "/ark:67890/b?info", None);
    assert!(
        body(&out).starts_with(
            "erc:\nwho: (:unav)\nwhat: (:unav)\nwhen: (:unav)\nwhere: ark:/67890/b\n_t: https://example.org/b\nstanding:"
        ),
        "{out}"
    );
    stop.shut_down();
    server.join().unwrap().unwrap();
}
