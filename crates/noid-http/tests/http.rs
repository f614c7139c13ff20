//! The server on a real socket, driven by a raw HTTP/1.1 client, so that every byte
//! of the request-target (bare `?`, `%`-escapes) reaches it exactly as written.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use noid_http::{Answer, Backend, Config, LookupError, Request, Shutdown};
use noid_listen::Listener;

/// One request as the backend saw it: (id, accept, proto).
type Seen = (String, Option<String>, Option<String>);

/// id → answer, recording every request it sees.
#[derive(Default)]
struct MapBackend {
    map: BTreeMap<String, Answer>,
    seen: Mutex<Vec<Seen>>,
}

impl Backend for MapBackend {
    fn resolve(&self, req: &Request<'_>) -> Result<Answer, LookupError> {
        self.seen.lock().unwrap().push((
            req.id.to_owned(),
            req.accept.map(str::to_owned),
            req.proto.map(str::to_owned),
        ));
        if req.id == "boom" {
            return Err(LookupError::unavailable("store went away"));
        }
        Ok(self.map.get(req.id).cloned().unwrap_or(Answer::NotFound))
    }
}

fn redirect(code: u16, t: &str) -> Answer {
    Answer::Redirect {
        code,
        target: t.to_owned(),
    }
}

struct Server {
    addr: String,
    stop: Shutdown,
    thread: Option<std::thread::JoinHandle<()>>,
    backend: Arc<MapBackend>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.shut_down();
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

fn start_with(bind: &str, config: Config) -> Server {
    let mut map = BTreeMap::new();
    map.insert(
        "ark:/13030/x1".into(),
        redirect(302, "https://example.org/x1"),
    );
    map.insert(
        "ark:/13030/p".into(),
        redirect(301, "https://example.org/moved"),
    );
    map.insert(
        "ark:/13030/q".into(),
        redirect(302, "https://example.org/s?x=1&y=2"),
    );
    map.insert(
        "ark:/13030/a b".into(),
        redirect(303, "https://example.org/space"),
    );
    map.insert(
        "ark:/13030/x1?".into(),
        redirect(302, "https://example.org/x1/brief"),
    );
    map.insert(
        "ark:/13030/x1??".into(),
        redirect(302, "https://example.org/x1/full"),
    );
    map.insert(
        "ark:/13030/x1?a=%26b".into(),
        redirect(302, "https://example.org/raw-query"),
    );
    map.insert("ark:/13030/gone".into(), redirect(410, "withdrawn in 2020"));
    map.insert(
        "ark:/13030/€".into(),
        redirect(302, "https://example.org/euro"),
    );
    map.insert(
        "ark:/13030/nl".into(),
        redirect(302, "https://example.org/a\r\nX-Evil: 1"),
    );
    let bindings = vec![
        ("who".to_owned(), b"Smith, J.".to_vec()),
        ("what".to_owned(), b"Two\nlines".to_vec()),
        ("where".to_owned(), b"ark:/13030/m".to_vec()),
        ("note".to_owned(), b"internal".to_vec()),
    ];
    for suffix in ["?", "??"] {
        map.insert(
            format!("ark:/13030/m{suffix}"),
            Answer::Inflection {
                id: "ark:/13030/m".into(),
                suffix: suffix.into(),
                bindings: bindings.clone(),
            },
        );
    }
    map.insert(
        "ark:/13030/bidi?".into(),
        Answer::Inflection {
            id: "ark:/13030/bidi".into(),
            suffix: "?".into(),
            bindings: vec![("what".to_owned(), "report\u{202e}fdp.exe\0!".into())],
        },
    );
    map.insert(
        "ark:/13030/json".into(),
        Answer::Negotiate {
            id: "ark:/13030/m".into(),
            media_type: "application/json".into(),
            bindings,
            cite_as: "https://n2t.net/ark:/13030/m".into(),
        },
    );
    map.insert(
        "*/ark:/13030/m".into(),
        Answer::Providers {
            id: "ark:/13030/m".into(),
            prefix: "ark:/13030".into(),
            targets: vec![noid_resolve::ProviderTarget {
                code: "main".into(),
                target: "https://example.org/ark:/13030/m".into(),
                primary: true,
                healthy: true,
            }],
        },
    );
    map.insert(
        "ark:/13030/two".into(),
        Answer::Multi {
            id: "ark:/13030/two".into(),
            targets: vec!["https://a/".into(), "https://b/".into()],
        },
    );
    map.insert(
        "ark:/13030/t2?".into(),
        Answer::Inflection {
            id: "ark:/13030/t2".into(),
            suffix: "?".into(),
            bindings: vec![(
                "_t".to_owned(),
                b"https://a.example/one\nhttps://b.example/two?x=1&y=2".to_vec(),
            )],
        },
    );
    map.insert(
        "ark:/99999".into(),
        Answer::Partial {
            key: "ark:/99999".into(),
            bindings: vec![],
        },
    );
    let backend = Arc::new(MapBackend {
        map,
        seen: Mutex::default(),
    });
    let stop = Shutdown::new();
    let b2: Arc<dyn Backend> = backend.clone();
    let l = Listener::bind(bind).unwrap();
    let addr = l.local_addr();
    let s2 = stop.clone();
    let thread = std::thread::spawn(move || {
        noid_http::serve_with(l, b2, config, s2).unwrap();
    });
    Server {
        addr,
        stop,
        thread: Some(thread),
        backend,
    }
}

fn start() -> Server {
    start_with("127.0.0.1:0", Config::default())
}

#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn body(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }
}

/// Reads one response (Content-Length framed; HEAD and 1xx/204/304 have no body).
fn read_resp(r: &mut BufReader<TcpStream>, head: bool) -> Resp {
    try_read_resp(r, head).expect("a response, not the end of the connection")
}

/// [`read_resp`]; `None` if the connection ended (or failed) before a status line.
fn try_read_resp(r: &mut BufReader<TcpStream>, head: bool) -> Option<Resp> {
    let mut line = String::new();
    if r.read_line(&mut line).unwrap_or(0) == 0 {
        return None;
    }
    assert!(line.starts_with("HTTP/1.1 "), "status line {line:?}");
    let status: u16 = line[9..12].parse().unwrap();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).unwrap();
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        let (n, v) = h.split_once(':').unwrap();
        headers.push((n.to_owned(), v.trim().to_owned()));
    }
    let mut resp = Resp {
        status,
        headers,
        body: Vec::new(),
    };
    let len: usize = resp
        .header("content-length")
        .map_or(0, |v| v.parse().unwrap());
    if !head && status != 204 && status != 304 {
        resp.body = vec![0; len];
        r.read_exact(&mut resp.body).unwrap();
    }
    Some(resp)
}

fn connect(addr: &str) -> BufReader<TcpStream> {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    BufReader::new(s)
}

fn raw(addr: &str, request: &str) -> Resp {
    let mut c = connect(addr);
    c.get_mut().write_all(request.as_bytes()).unwrap();
    read_resp(&mut c, request.starts_with("HEAD "))
}

fn get(addr: &str, target: &str) -> Resp {
    raw(addr, &format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n"))
}

#[test]
fn redirect_route() {
    let s = start();
    let r = get(&s.addr, "/redirect/ark:/13030/x1");
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some("https://example.org/x1"));
    assert_eq!(r.header("content-length"), Some("0"));
    let r = get(&s.addr, "/redirect/ark:/13030/p");
    assert_eq!(
        (r.status, r.header("location")),
        (301, Some("https://example.org/moved"))
    );
    let r = get(&s.addr, "/redirect/ark:/13030/q");
    assert_eq!(r.header("location"), Some("https://example.org/s?x=1&y=2"));
    let r = get(&s.addr, "/redirect/ark:/13030/nope");
    assert_eq!(r.status, 404);
    assert_eq!(r.body(), "unknown identifier\n");
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(r.header("location"), None);
}

#[test]
fn direct_route_is_redirect_route() {
    let s = start();
    let r = get(&s.addr, "/ark:/13030/x1");
    assert_eq!(
        (r.status, r.header("location")),
        (302, Some("https://example.org/x1"))
    );
    assert_eq!(get(&s.addr, "/ark:/13030/nope").status, 404);
    // `/` is the front page, no longer an empty identifier's miss (front_page below).
    assert_eq!(get(&s.addr, "/").status, 200);
}

#[test]
fn auth_route() {
    let s = start();
    let r = get(&s.addr, "/auth/ark:/13030/p");
    assert_eq!(r.status, 204);
    assert_eq!(r.header("x-target"), Some("https://example.org/moved"));
    assert_eq!(r.header("x-status"), Some("301"));
    assert_eq!(r.header("location"), None);
    let r = get(&s.addr, "/auth/ark:/13030/nope");
    assert_eq!(r.status, 403);
    assert_eq!(r.header("x-target"), None);
    // not a redirect: 401 means "ask /redirect/ for the whole answer"
    let r = get(&s.addr, "/auth/ark:/13030/gone");
    assert_eq!(r.status, 401);
    assert_eq!(r.header("x-status"), Some("410"));
}

#[test]
fn lookup_route_decodes_once() {
    let s = start();
    let r = get(&s.addr, "/lookup/ark%3A%2F13030%2Fx1");
    assert_eq!(r.status, 200);
    assert_eq!(r.body(), "https://example.org/x1");
    assert_eq!(r.header("x-status"), Some("302"));
    // encodeURIComponent("ark:/13030/a b")
    let r = get(&s.addr, "/lookup/ark%3A%2F13030%2Fa%20b");
    assert_eq!((r.status, r.body()), (200, "https://example.org/space"));
    assert_eq!(r.header("x-status"), Some("303"));
    // an encoded ? is part of the identifier: the inflection
    let r = get(&s.addr, "/lookup/ark%3A%2F13030%2Fx1%3F%3F");
    assert_eq!(r.body(), "https://example.org/x1/full");
    // decoded exactly once: %2520 is "%20", not " "
    assert_eq!(get(&s.addr, "/lookup/ark%3A%2F13030%2Fa%2520b").status, 404);
    let r = get(&s.addr, "/lookup/nope");
    assert_eq!(r.status, 404);
    let seen = s.backend.seen.lock().unwrap();
    assert!(seen.iter().any(|(id, _, _)| id == "ark:/13030/a%20b"));
}

#[test]
fn encoded_and_space_ids() {
    let s = start();
    let r = get(&s.addr, "/redirect/ark:/13030/a%20b");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("https://example.org/space"))
    );
    let r = get(&s.addr, "/redirect/ark:%2F13030%2Fx1");
    assert_eq!(r.status, 302);
    let r = get(&s.addr, "/redirect/ark:/13030/%E2%82%AC");
    assert_eq!(r.header("location"), Some("https://example.org/euro"));
    // invalid UTF-8, NUL, CR/LF after decoding: misses, never passed to the resolver.
    // Each route answers them as any miss (docs/WEB-SERVERS.md, the routes of noidr
    // --http): /redirect/ with 404 `unknown identifier`, /auth/ with 403 (which
    // nginx's auth_request turns into its own miss).
    for t in [
        "/redirect/ark:/13030/%FF",
        "/redirect/a%00b",
        "/redirect/ark:/13030/x1%0A",
    ] {
        let r = get(&s.addr, t);
        assert_eq!((r.status, r.body()), (404, "unknown identifier\n"), "{t}");
    }
    for t in ["/auth/a%0Db", "/auth/ark:/13030/%FF"] {
        assert_eq!(get(&s.addr, t).status, 403, "{t}");
    }
    assert!(s
        .backend
        .seen
        .lock()
        .unwrap()
        .iter()
        .all(|(id, _, _)| !id.contains(['\0', '\n', '\r'])));
}

#[test]
fn inflections_and_queries_keep_the_raw_query() {
    let s = start();
    let r = get(&s.addr, "/redirect/ark:/13030/x1?");
    assert_eq!(r.header("location"), Some("https://example.org/x1/brief"));
    let r = get(&s.addr, "/redirect/ark:/13030/x1??");
    assert_eq!(r.header("location"), Some("https://example.org/x1/full"));
    let r = get(&s.addr, "/ark:/13030/x1??");
    assert_eq!(r.header("location"), Some("https://example.org/x1/full"));
    // the query is not decoded: %26 stays %26
    let r = get(&s.addr, "/redirect/ark:/13030/x1?a=%26b");
    assert_eq!(r.header("location"), Some("https://example.org/raw-query"));
    let r = get(&s.addr, "/auth/ark:/13030/x1?");
    assert_eq!(
        (r.status, r.header("x-target")),
        (204, Some("https://example.org/x1/brief"))
    );
    let seen = s.backend.seen.lock().unwrap();
    let ids: Vec<&str> = seen.iter().map(|(i, _, _)| i.as_str()).collect();
    assert_eq!(
        ids,
        [
            "ark:/13030/x1?",
            "ark:/13030/x1??",
            "ark:/13030/x1??",
            "ark:/13030/x1?a=%26b",
            "ark:/13030/x1?"
        ]
    );
}

#[test]
fn accept_and_proto_reach_the_resolver() {
    let s = start();
    raw(
        &s.addr,
        "GET /redirect/ark:/13030/x1 HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nX-Forwarded-Proto: https\r\n\r\n",
    );
    raw(
        &s.addr,
        "GET /auth/ark:/13030/x1 HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    let seen = s.backend.seen.lock().unwrap();
    assert_eq!(
        seen[0],
        (
            "ark:/13030/x1".into(),
            Some("application/json".into()),
            Some("https".into())
        )
    );
    assert_eq!(seen[1], ("ark:/13030/x1".into(), None, None));
}

#[test]
fn gone_is_a_text_answer() {
    let s = start();
    let r = get(&s.addr, "/redirect/ark:/13030/gone");
    assert_eq!(r.status, 410);
    assert_eq!(r.body(), "withdrawn in 2020\n");
    assert_eq!(r.header("location"), None);
    let r = get(&s.addr, "/lookup/ark:%2F13030%2Fgone");
    assert_eq!((r.status, r.header("x-status")), (200, Some("410")));
}

#[test]
fn newlines_in_targets_never_split_headers() {
    let s = start();
    let r = get(&s.addr, "/redirect/ark:/13030/nl");
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some("https://example.org/aX-Evil: 1"));
    assert_eq!(r.header("x-evil"), None);
}

#[test]
fn health_and_errors() {
    let s = start();
    let r = get(&s.addr, "/health");
    assert_eq!((r.status, r.body()), (200, "ok\n"));
    let r = get(&s.addr, "/healthz");
    assert_eq!((r.status, r.body()), (200, "ok\n"));
    // A backend without metrics; and an identifier spelled so goes under /redirect/.
    let r = get(&s.addr, "/metrics");
    assert_eq!((r.status, r.body()), (404, "no metrics\n"));
    let r = get(&s.addr, "/redirect/metrics");
    assert_eq!((r.status, r.body()), (404, "unknown identifier\n"));
    assert_eq!(s.backend.seen.lock().unwrap().last().unwrap().0, "metrics");
    let r = get(&s.addr, "/redirect/boom");
    assert_eq!((r.status, r.body()), (500, "resolver error\n"));
}

#[test]
fn head_has_no_body() {
    let s = start();
    let r = raw(
        &s.addr,
        "HEAD /redirect/ark:/13030/nope HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    assert_eq!(r.status, 404);
    assert_eq!(r.header("content-length"), Some("19"));
}

#[test]
fn limits() {
    let s = start();
    let r = raw(
        &s.addr,
        "POST /redirect/x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
    );
    assert_eq!((r.status, r.header("allow")), (405, Some("GET, HEAD")));
    let r = raw(
        &s.addr,
        "GET /redirect/x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    );
    assert_eq!(r.status, 413);
    assert_eq!(r.header("connection"), Some("close"));
    let r = raw(&s.addr, "GET /redirect/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    assert_eq!(r.status, 413);
    let long = format!("/redirect/{}", "a".repeat(9000));
    assert_eq!(get(&s.addr, &long).status, 414);
    let ok = format!("/redirect/{}", "a".repeat(8000));
    assert_eq!(get(&s.addr, &ok).status, 404);
    let big_header = format!(
        "GET /redirect/x HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(40_000)
    );
    let r = raw(&s.addr, &big_header);
    assert_eq!(r.status, 431);
    let many: String = (0..120).map(|i| format!("X-H{i}: v\r\n")).collect();
    let r = raw(
        &s.addr,
        &format!("GET /redirect/x HTTP/1.1\r\nHost: x\r\n{many}\r\n"),
    );
    assert_eq!(r.status, 431);
}

#[test]
fn keep_alive_many_requests_one_connection() {
    let s = start();
    let mut c = connect(&s.addr);
    for i in 0..200 {
        let t = if i % 2 == 0 {
            "/redirect/ark:/13030/x1"
        } else {
            "/auth/nope"
        };
        c.get_mut()
            .write_all(format!("GET {t} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .unwrap();
        let r = read_resp(&mut c, false);
        assert_eq!(r.status, if i % 2 == 0 { 302 } else { 403 });
    }
    // pipelined: three requests in one write, three answers in order
    c.get_mut()
        .write_all(
            b"GET /ark:/13030/p HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n",
        )
        .unwrap();
    assert_eq!(read_resp(&mut c, false).status, 301);
    assert_eq!(read_resp(&mut c, false).status, 404);
    assert_eq!(read_resp(&mut c, false).body(), "ok\n");
}

#[test]
fn header_read_timeout_closes_idle_connections() {
    let s = start_with(
        "127.0.0.1:0",
        Config {
            header_read_timeout: Duration::from_millis(300),
            ..Config::default()
        },
    );
    let mut c = connect(&s.addr);
    c.get_mut()
        .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .unwrap(); // incomplete head
                   // The read times out (an error) after 10 s if the server keeps the connection.
    let mut buf = Vec::new();
    let n = c
        .read_to_end(&mut buf)
        .expect("the server closes the connection");
    // the server may answer 408 or just close; either way the connection ends
    assert!(
        n == 0 || String::from_utf8_lossy(&buf).starts_with("HTTP/1.1 408"),
        "{buf:?}"
    );

    // an idle keep-alive connection is closed too, after its answer. The request must
    // reach the server within the timeout of the connect: a connection closed (or
    // answered 408) before that, when this thread was kept waiting that long on a
    // loaded machine, is tried again; no time is asserted.
    let mut c = (0..100)
        .find_map(|_| {
            let mut c = connect(&s.addr);
            let _ = c
                .get_mut()
                .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
            let r = try_read_resp(&mut c, false)?;
            assert!(r.status == 200 || r.status == 408, "{}", r.status);
            (r.status == 200).then_some(c)
        })
        .expect("a request sent at once on a new connection is answered");
    let mut rest = Vec::new();
    let n = c
        .read_to_end(&mut rest)
        .expect("the server closes the connection");
    assert!(
        n == 0 || String::from_utf8_lossy(&rest).starts_with("HTTP/1.1 408"),
        "{rest:?}"
    );
}

#[test]
fn unix_socket() {
    let dir = std::env::temp_dir().join(format!("noid-http-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.sock");
    // a stale socket file is replaced
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let s = start_with(&format!("unix:{}", path.display()), Config::default());
    assert_eq!(s.addr, format!("unix:{}", path.display()));
    let mut u = std::os::unix::net::UnixStream::connect(&path).unwrap();
    u.write_all(b"GET /redirect/ark:/13030/x1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    u.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 302"), "{out}");
    assert!(
        out.contains("\r\nlocation: https://example.org/x1\r\n"),
        "{out}"
    );
    drop(s);
    assert!(!path.exists(), "socket file removed at shutdown");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_closure_is_a_backend() {
    let b: Arc<dyn Backend> = Arc::new(|r: &Request<'_>| -> Result<Answer, LookupError> {
        Ok(if r.id == "x" {
            redirect(307, "/y")
        } else {
            Answer::NotFound
        })
    });
    let l = Listener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr();
    let stop = Shutdown::new();
    let s2 = stop.clone();
    let server = std::thread::spawn(move || noid_http::serve(l, b, s2));
    let r = get(&addr, "/x");
    assert_eq!((r.status, r.header("location")), (307, Some("/y")));
    stop.shut_down();
    server.join().unwrap().unwrap();
}

#[test]
fn inflection_pages() {
    let s = start();
    let r = get(&s.addr, "/redirect/ark:/13030/m?");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(r.header("vary"), Some("Accept"));
    assert_eq!(
        r.body(),
        "erc:\nwho: Smith, J.\nwhat: Two%0alines\nwhen: (:unav)\nwhere: ark:/13030/m\n\
         standing: not good\nmissing: when\nmissing: how\n"
    );
    let r = get(&s.addr, "/ark:/13030/m??");
    assert_eq!(
        r.body(),
        "erc:\nwho: Smith, J.\nwhat: Two%0alines\nwhen: (:unav)\nwhere: ark:/13030/m\nnote: internal\n\
         standing: not good\nmissing: when\nmissing: how\n"
    );
    let r = raw(
        &s.addr,
        "GET /ark:/13030/m? HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n",
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.body(),
        "{\"id\":\"ark:/13030/m\",\"inflection\":\"?\",\"erc\":{\"who\":\"Smith, J.\",\"what\":\"Two\\nlines\",\"when\":\"(:unav)\",\"where\":\"ark:/13030/m\"},\
         \"standing\":{\"good\":false,\"missing\":[\"when\",\"how\"],\"malformed\":[]}}\n"
    );
    // auth_request cannot carry the page: 401 + X-Status sends nginx to /redirect/
    let r = get(&s.addr, "/auth/ark:/13030/m?");
    assert_eq!((r.status, r.header("x-status")), (401, Some("200")));
    let r = get(&s.addr, "/lookup/ark%3A%2F13030%2Fm%3F");
    assert_eq!((r.status, r.header("x-status")), (200, Some("200")));
    assert!(r.body().starts_with("erc:\nwho: Smith"));
}

#[test]
fn negotiated_multi_and_partial() {
    let s = start();
    let r = get(&s.addr, "/redirect/ark:/13030/json");
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("application/json"))
    );
    assert!(r.body().contains("\"note\":\"internal\""), "{}", r.body());
    let r = get(&s.addr, "/redirect/ark:/13030/two");
    assert_eq!(r.status, 300);
    assert_eq!(
        r.body(),
        "erc:\nwhere: ark:/13030/two\ntarget: https://a/\ntarget: https://b/\n"
    );
    let r = get(&s.addr, "/auth/ark:/13030/two");
    assert_eq!((r.status, r.header("x-status")), (401, Some("300")));
    // a partial id with nothing to show is a miss
    assert_eq!(get(&s.addr, "/redirect/ark:/99999").status, 404);
    assert_eq!(get(&s.addr, "/auth/ark:/99999").status, 403);
}

/// A browser's `Accept` (Chromium's).
const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

fn browse(addr: &str, target: &str) -> Resp {
    raw(
        addr,
        &format!("GET {target} HTTP/1.1\r\nHost: x\r\nAccept: {BROWSER}\r\n\r\n"),
    )
}

/// The text between `<main>` and `</main>`: the page without its frame.
fn main_of(body: &str) -> &str {
    let start = body.find("<main>\n").expect("main") + 7;
    &body[start..body.find("</main>").expect("end of main")]
}

#[test]
fn front_page_its_box_and_the_stylesheet() {
    let s = start();
    let r = browse(&s.addr, "/");
    assert_eq!(
        (r.status, r.header("content-type"), r.header("vary")),
        (200, Some("text/html; charset=utf-8"), Some("Accept"))
    );
    assert!(
        main_of(r.body()).starts_with(
            "<h1>Resolve an identifier</h1>\n<form action=\"/\" method=\"get\" role=\"search\">\n\
             <label for=\"id\">Identifier</label>\n"
        ),
        "{}",
        r.body()
    );
    assert!(r
        .body()
        .contains("<link rel=\"stylesheet\" href=\"/-/noid.css\">"));
    // The twins: what /-/ark says, as ANVL or JSON; /.well-known/ark is the path alone.
    assert_eq!(get(&s.addr, "/-/ark").body(), "erc:\nresolver: /\n");
    let r = get(&s.addr, "/.well-known/ark");
    assert_eq!(
        (r.status, r.header("content-type"), r.body()),
        (200, Some("text/plain; charset=utf-8"), "/\n")
    );
    assert_eq!(get(&s.addr, "/").body(), "erc:\nresolver: /\n");
    let r = raw(
        &s.addr,
        "GET / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n",
    );
    assert_eq!(
        r.body(),
        "{\"resolver\":\"/\",\"naans\":[],\"global_resolver\":null}\n"
    );
    // The box: resolve goes to /ID (which redirects), show to /ID?info.
    let r = browse(&s.addr, "/?id=ark%3A%2F13030%2Fx1&go=resolve");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/ark:/13030/x1"))
    );
    let r = get(&s.addr, r.header("location").unwrap());
    assert_eq!(
        (r.status, r.header("location")),
        (302, Some("https://example.org/x1"))
    );
    // A pasted ARK loses its white space inside too (the ARK draft's §3.1); any other
    // identifier keeps it, %-encoded.
    let r = browse(&s.addr, "/?id=+ark%3A%2F13030%2Fa+b+&go=info");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/ark:/13030/ab?info"))
    );
    let r = browse(&s.addr, "/?id=+doi%3A10.5072%2Fa+b+&go=info");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/doi:10.5072/a%20b?info"))
    );
    assert_eq!(browse(&s.addr, "/?id=&go=info").status, 200);
    // The stylesheet, at a path no identifier takes.
    let r = get(&s.addr, "/-/noid.css");
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("text/css; charset=utf-8"))
    );
    assert!(r
        .body()
        .starts_with("/* The one stylesheet of noidr's pages"));
    assert_eq!(get(&s.addr, "/-/other.css").status, 404);
}

#[test]
fn identifier_page_in_a_browser() {
    let s = start();
    let r = browse(&s.addr, "/ark:/13030/m?");
    assert_eq!(
        (r.status, r.header("content-type")),
        (200, Some("text/html; charset=utf-8"))
    );
    assert_eq!(
        main_of(r.body()),
        "<h1>ark:/13030/m</h1>\n<h2>Kernel metadata</h2>\n<table>\n\
         <tr><th scope=\"row\">who <span class=\"about\">a responsible person or party</span></th>\
         <td>Smith, J.</td></tr>\n\
         <tr><th scope=\"row\">what <span class=\"about\">a name or other human-oriented identifier</span></th>\
         <td>Two\nlines</td></tr>\n\
         <tr><th scope=\"row\">when <span class=\"about\">a date important in the object&#39;s lifecycle</span></th>\
         <td><i>no value</i> <span class=\"note\">(:unav) value unavailable, possibly unknown</span></td></tr>\n\
         <tr><th scope=\"row\">where <span class=\"about\">a location or machine-oriented identifier</span></th>\
         <td>ark:/13030/m</td></tr>\n</table>\n\
         <h2>Standing</h2>\n<p><span class=\"bad\">not good</span></p>\n<ul>\n\
         <li>missing: when</li>\n<li>missing: how</li>\n</ul>\n\
         <h2>Providers</h2>\n<ul>\n<li>main: <a href=\"https://example.org/ark:/13030/m\">\
         https://example.org/ark:/13030/m</a> — up, primary</li>\n</ul>\n"
    );
    // `??` adds the other elements; the providers come from a `*/ID` lookup, made only
    // for HTML pages.
    let r = browse(&s.addr, "/ark:/13030/m??");
    assert!(
        r.body()
            .contains("<h2>Other elements</h2>\n<table>\n<tr><th scope=\"row\">note</th><td>internal</td></tr>\n"),
        "{}",
        r.body()
    );
    let seen = s.backend.seen.lock().unwrap().clone();
    let stars: Vec<&str> = seen
        .iter()
        .map(|(id, ..)| id.as_str())
        .filter(|id| id.starts_with("*/"))
        .collect();
    assert_eq!(stars, ["*/ark:/13030/m", "*/ark:/13030/m"]);
    drop(s);
    let s = start();
    get(&s.addr, "/ark:/13030/m?");
    get(&s.addr, "/ark:/13030/x1");
    let seen = s.backend.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
}

/// The headers of every answer with a body (docs/SECURITY.md); redirects have none.
const SECURITY: [(&str, &str); 4] = [
    (
        "content-security-policy",
        "default-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "same-origin"),
];

#[test]
fn security_headers_on_every_answer_with_a_body_and_not_on_redirects() {
    let s = start();
    let answers = [
        ("page", browse(&s.addr, "/ark:/13030/m?")),
        ("front page", browse(&s.addr, "/")),
        ("ANVL", get(&s.addr, "/ark:/13030/m?")),
        ("JSON", get(&s.addr, "/ark:/13030/json")),
        ("stylesheet", get(&s.addr, "/-/noid.css")),
        ("404", get(&s.addr, "/ark:/13030/nope")),
        ("410", get(&s.addr, "/ark:/13030/gone")),
        ("health", get(&s.addr, "/healthz")),
    ];
    for (what, r) in &answers {
        for (name, value) in SECURITY {
            assert_eq!(r.header(name), Some(value), "{what}: {name}");
        }
    }
    let r = get(&s.addr, "/ark:/13030/x1");
    assert_eq!(r.status, 302);
    for (name, _) in SECURITY {
        assert_eq!(r.header(name), None, "redirect: {name}");
    }
    let r = browse(&s.addr, "/?id=x&go=resolve");
    assert_eq!((r.status, r.header("x-frame-options")), (303, None));
    // njs's redirect path: the target as a body, for nginx only.
    let r = get(&s.addr, "/lookup/ark:%2F13030%2Fx1");
    assert_eq!((r.status, r.body()), (200, "https://example.org/x1"));
    for (name, _) in SECURITY {
        assert_eq!(r.header(name), None, "/lookup/ redirect: {name}");
    }
}

#[test]
fn bidi_overrides_and_nul_are_shown_by_code_point() {
    let s = start();
    let r = browse(&s.addr, "/ark:/13030/bidi?");
    assert!(
        main_of(r.body()).contains("<td>report[U+202E]fdp.exe[U+0000]!</td>"),
        "{}",
        r.body()
    );
    assert!(!r.body().contains(['\u{202e}', '\0']), "{}", r.body());
}

/// Item 6 of issue 41: a browser gets pages, not `text/plain`, for a miss (with the
/// resolve box holding what it asked for) and for several targets (one link each);
/// every other client keeps the plain answers, and the web server's routes theirs.
#[test]
fn a_browser_gets_pages_for_a_miss_and_for_several_targets() {
    let s = start();
    let r = browse(&s.addr, "/ark:/13030/no%22pe");
    assert_eq!(
        (r.status, r.header("content-type"), r.header("vary")),
        (404, Some("text/html; charset=utf-8"), Some("Accept"))
    );
    assert!(
        r.body()
            .contains("<title>Not found — noid resolver</title>"),
        "{}",
        r.body()
    );
    assert_eq!(
        main_of(r.body()),
        "<h1>Not found</h1>\n<p>Nothing is bound under <code>ark:/13030/no&quot;pe</code> on \
         this resolver. Check it for a typing mistake, or look up another identifier:</p>\n\
         <form action=\"/\" method=\"get\" role=\"search\">\n\
         <label for=\"id\">Identifier</label>\n\
         <input type=\"text\" id=\"id\" name=\"id\" required autocapitalize=\"off\" \
         spellcheck=\"false\" placeholder=\"ark:/12345/x6np1wh8k\" value=\"ark:/13030/no&quot;pe\">\n\
         <button type=\"submit\" name=\"go\" value=\"resolve\">Resolve</button>\n\
         <button type=\"submit\" name=\"go\" value=\"info\" class=\"second\">Show metadata</button>\n\
         </form>\n\
         <p>Resolve goes to the identifier's target; Show metadata shows what is bound to it.</p>\n"
    );
    assert_eq!(browse(&s.addr, "/redirect/ark:/13030/nope").status, 404);
    let r = browse(&s.addr, "/redirect/ark:/13030/two");
    assert_eq!(
        (r.status, r.header("content-type"), r.header("vary")),
        (300, Some("text/html; charset=utf-8"), Some("Accept"))
    );
    assert_eq!(
        main_of(r.body()),
        "<h1>ark:/13030/two</h1>\n<p>This identifier has 2 targets. Choose one:</p>\n\
         <ul class=\"targets\">\n<li><a href=\"https://a/\">https://a/</a></li>\n\
         <li><a href=\"https://b/\">https://b/</a></li>\n</ul>\n"
    );
    for (what, r) in [
        ("404 page", browse(&s.addr, "/ark:/13030/nope")),
        ("300 page", browse(&s.addr, "/ark:/13030/two")),
    ] {
        for (name, value) in SECURITY {
            assert_eq!(r.header(name), Some(value), "{what}: {name}");
        }
    }
    // Other clients: the plain answers, byte for byte.
    let r = get(&s.addr, "/ark:/13030/nope");
    assert_eq!(
        (r.status, r.header("content-type"), r.body()),
        (
            404,
            Some("text/plain; charset=utf-8"),
            "unknown identifier\n"
        )
    );
    let r = get(&s.addr, "/ark:/13030/two");
    assert_eq!(
        (r.status, r.header("content-type"), r.body()),
        (
            300,
            Some("text/plain; charset=utf-8"),
            "erc:\nwhere: ark:/13030/two\ntarget: https://a/\ntarget: https://b/\n"
        )
    );
    // The web server's routes answer a browser's miss as before: 403 to
    // auth_request, a plain 404 to njs.
    assert_eq!(browse(&s.addr, "/auth/ark:/13030/nope").status, 403);
    let r = browse(&s.addr, "/lookup/ark:%2F13030%2Fnope");
    assert_eq!(
        (r.status, r.header("content-type"), r.body()),
        (
            404,
            Some("text/plain; charset=utf-8"),
            "unknown identifier\n"
        )
    );
}

/// Item 6 of issue 41: a `_t` holding several targets is one link per target on the
/// metadata page (it was one link whose `href` held them all, newline included).
#[test]
fn the_metadata_page_shows_several_targets_as_one_link_each() {
    let s = start();
    let r = browse(&s.addr, "/ark:/13030/t2?");
    assert_eq!(r.status, 200);
    assert!(
        main_of(r.body()).contains(
            "<h2>Targets</h2>\n<ul class=\"targets\">\n\
             <li><a href=\"https://a.example/one\">https://a.example/one</a></li>\n\
             <li><a href=\"https://b.example/two?x=1&amp;y=2\">https://b.example/two?x=1&amp;y=2</a></li>\n\
             </ul>\n<h2>Standing</h2>\n"
        ),
        "{}",
        r.body()
    );
    assert!(!r.body().contains("one\nhttps"), "{}", r.body());
}
