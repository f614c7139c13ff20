//! The link checker inside `noid serve` (docs/LINKS.md): its schedule checking targets
//! on loopback servers, the records it leaves read back over the API and in the
//! console, the gauges, the owners' digests through a real SMTP exchange and a real
//! webhook POST, and the resume after a restart. Every server is on 127.0.0.1, reached
//! through `allow_net = ["127.0.0.0/8"]`. Waits poll for their condition with a
//! deadline, never a fixed sleep.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::api::Api;
use crate::console::Browser;

const SAM: &str = "sam:secret";
/// What the checker's User-Agent names.
const CONTACT: &str = "https://noid.example.org/about-links";

/// Poll `f` until it gives a value, for at most `within`.
fn eventually<T>(what: &str, within: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + within;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One request a loopback server received.
#[derive(Debug, Clone)]
struct Seen {
    /// When it arrived.
    at: Instant,
    method: String,
    path: String,
    user_agent: String,
    body: String,
}

/// A loopback HTTP/1.1 server answering each request with `answer(method, path)`
/// (status, body), keeping every request it received, in order.
struct Server {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn start(answer: fn(&str, &str) -> (u16, &'static str)) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || serve_one(stream, answer, &kept));
            }
        });
        Server { port, seen }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// The paths among `of` asked for, each once, in the order first asked (a check
    /// may make more than one request: HEAD, then a ranged GET).
    fn asked(&self, of: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in self.seen() {
            if of.contains(&s.path.as_str()) && !out.contains(&s.path) {
                out.push(s.path);
            }
        }
        out
    }
}

/// Answer the requests of one connection.
fn serve_one(
    stream: TcpStream,
    answer: fn(&str, &str) -> (u16, &'static str),
    kept: &Mutex<Vec<Seen>>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut words = line.split_whitespace();
        let (method, path) = (
            words.next().unwrap_or("").to_string(),
            words.next().unwrap_or("").to_string(),
        );
        let (mut user_agent, mut length) = (String::new(), 0usize);
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                break;
            }
            if let Some((name, value)) = h.split_once(':') {
                match name.to_ascii_lowercase().as_str() {
                    "user-agent" => user_agent = value.trim().to_string(),
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    _ => {}
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let (status, text) = answer(&method, &path);
        kept.lock().unwrap().push(Seen {
            at: Instant::now(),
            method: method.clone(),
            path,
            user_agent,
            body: String::from_utf8_lossy(&body).into_owned(),
        });
        let body = if method == "HEAD" { "" } else { text };
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
            text.len()
        );
        if out.write_all(head.as_bytes()).is_err() || out.write_all(body.as_bytes()).is_err() {
            return;
        }
    }
}

/// The targets' pages: `/report` and `/r1` … `/r4` are pages, anything else (`/gone`,
/// the random path a checker may ask to learn the host's not-found page) is 404.
fn targets(_method: &str, path: &str) -> (u16, &'static str) {
    match path {
        "/report" | "/r1" | "/r2" | "/r3" | "/r4" => (
            200,
            "<html><head><title>A report</title></head><body>The report of the year, \
             with its findings and tables.</body></html>",
        ),
        _ => (404, "<html><head><title>Not found</title></head></html>"),
    }
}

/// A webhook: `204` to every POST.
fn webhook(_method: &str, _path: &str) -> (u16, &'static str) {
    (204, "")
}

/// A loopback SMTP server taking every message (RFC 5321's exchange, no extensions),
/// keeping each message's envelope and data.
struct SmtpSink {
    port: u16,
    messages: Arc<Mutex<Vec<(String, Vec<String>, String)>>>,
}

impl SmtpSink {
    fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let messages = Arc::new(Mutex::new(Vec::new()));
        let kept = messages.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || smtp_session(stream, &kept));
            }
        });
        SmtpSink { port, messages }
    }
}

fn smtp_session(stream: TcpStream, kept: &Mutex<Vec<(String, Vec<String>, String)>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    let mut say = |text: &str| out.write_all(format!("{text}\r\n").as_bytes());
    let _ = say("220 sink.test ESMTP");
    let (mut from, mut to) = (String::new(), Vec::new());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let upper = line.to_ascii_uppercase();
        let reply = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            "250 sink.test"
        } else if upper.starts_with("MAIL FROM:") {
            from = line[10..].trim().to_string();
            "250 ok"
        } else if upper.starts_with("RCPT TO:") {
            to.push(line[8..].trim().to_string());
            "250 ok"
        } else if upper.starts_with("DATA") {
            let _ = say("354 go on");
            let mut data = String::new();
            loop {
                let mut l = String::new();
                if reader.read_line(&mut l).unwrap_or(0) == 0 || l == ".\r\n" {
                    break;
                }
                data.push_str(&l);
            }
            // The CRLF before the ending "." belongs to the ending (RFC 5321, 4.1.1.4).
            let data = data.strip_suffix("\r\n").unwrap_or(&data).to_string();
            kept.lock()
                .unwrap()
                .push((from.clone(), std::mem::take(&mut to), data));
            "250 queued"
        } else if upper.starts_with("QUIT") {
            let _ = say("221 bye");
            return;
        } else {
            "250 ok"
        };
        if say(reply).is_err() {
            return;
        }
    }
}

/// A quoted-printable body decoded as a mail reader decodes it (RFC 2045, 6.7): soft
/// line breaks (`=` at a line's end) joined, `=XX` the octet XX.
fn quoted_printable(text: &str) -> String {
    let joined = text.replace("=\r\n", "");
    let (bytes, mut out, mut i) = (joined.as_bytes(), Vec::new(), 0);
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'=', Some(hex)) => {
                let hex = std::str::from_utf8(hex).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// `[links]` checking on loopback, `interval`, K = 1 and D = 0 (broken at once), and
/// digests every second to the sinks.
fn config(interval: &str, digests: Option<(&SmtpSink, &Server)>) -> String {
    let mut c = format!(
        "[links]\ncontact = \"{CONTACT}\"\ninterval = \"{interval}\"\nfailures = 1\n\
         span = \"0s\"\nallow_net = [\"127.0.0.0/8\"]\n\
         console_url = \"https://noid.example.org/console/\"\n"
    );
    if let Some((smtp, hook)) = digests {
        c.push_str(&format!(
            "[links.digest]\nevery = \"1s\"\nsmtp = \"127.0.0.1:{}\"\n\
             from = \"noid@example.org\"\nto = \"curators@example.org\"\n\
             webhook = \"{}\"\n",
            smtp.port,
            hook.url("/hook")
        ));
    }
    c
}

/// The report rows (`id,target,status,http`) of a CSV answer, times and detail left
/// out (their values are the clock's and the checker's words).
fn rows(csv: &str) -> Vec<String> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').take(4).collect::<Vec<_>>().join(","))
        .collect()
}

#[test]
fn scheduled_checks_show_in_the_api_console_metrics_and_digests() {
    let (pages, hook, smtp) = (
        Server::start(targets),
        Server::start(webhook),
        SmtpSink::start(),
    );
    let mut api = Api::start_with(&config("4s", Some((&smtp, &hook))));
    let (ok, gone) = (pages.url("/report"), pages.url("/gone"));
    for (id, target) in [("ark:/99999/fk4a", &ok), ("ark:/99999/fk4b", &gone)] {
        let (code, body) = api.get_as(SAM, "/a/sam/b", &format!("{id}.set _t {target}"));
        assert_eq!((code, body.as_str()), (200, "egg-status: 0\n"));
    }
    // A round begins at the start: restarted, the server checks both at once.
    api.restart();
    let report = eventually("both targets checked", Duration::from_secs(30), || {
        let (code, csv) = api.get_as(SAM, "/a/sam/links", "format=csv");
        assert_eq!(code, 200);
        (rows(&csv).len() == 2).then_some(csv)
    });
    assert_eq!(
        rows(&report),
        [
            format!("ark:/99999/fk4a,{ok},ok,200"),
            format!("ark:/99999/fk4b,{gone},broken,404")
        ]
    );
    let seen = pages.seen();
    assert!(seen.iter().any(|s| s.path == "/report"), "{seen:?}");
    assert!(
        seen.iter().all(|s| s.user_agent.contains(CONTACT)),
        "every request names the contact: {seen:?}"
    );

    // The schedule's writes came first since the restart: the API's after them are
    // still in the binder's write log.
    let set = "ark:/99999/fk4c.set what after-the-checks";
    assert_eq!(
        api.get_as(SAM, "/a/sam/b", set),
        (200, "egg-status: 0\n".into())
    );
    let log = std::fs::read_to_string(api.dir("binders/sam/write.log")).unwrap();
    assert!(
        log.contains("/99999/fk4c.set what after-the-checks"),
        "{log}"
    );

    // The API: filters, JSON, an identifier's history, a clear refusal.
    let (_, broken) = api.get_as(SAM, "/a/sam/links", "status=broken&format=csv");
    assert_eq!(
        rows(&broken),
        [format!("ark:/99999/fk4b,{gone},broken,404")]
    );
    let (_, json) = api.get_as(SAM, "/a/sam/links", "under=ark:/99999/fk4a");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["counts"]["ok"], 1);
    assert_eq!(json["counts"]["broken"], 0);
    assert_eq!(json["rows"][0]["target"], ok.as_str());
    let (_, one) = api.get_as(SAM, "/a/sam/links", "id=ark:/99999/fk4b");
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    let history = &one["targets"][0]["history"];
    assert_eq!(history[0]["to"], "broken");
    assert_eq!(history[0]["from"], serde_json::Value::Null);
    assert_eq!(history[0]["http"], 404);
    assert_eq!(
        api.get_as(SAM, "/a/sam/links", "status=dead"),
        (
            400,
            "error: status \"dead\" is not one of ok, redirected, failing, broken, blocked, \
             soft404, parked, drifted\n"
                .into()
        )
    );
    assert_eq!(api.get(Some("olga:pw"), "/a/sam/links", "").0, 403);

    // The console: the page, its download (exactly the API's rows), the identifier.
    let browser = Browser::new(&api, "links");
    browser.login("sam", "sam", "secret");
    let page = browser.get("/console/p/sam/links?status=broken");
    assert_eq!(page.status, 200);
    assert!(page
        .body
        .contains("<a href=\"/console/p/sam/id?id=ark%3A%2F99999%2Ffk4b\">ark:/99999/fk4b</a>"));
    assert!(!page.body.contains("ark:/99999/fk4a"));
    assert!(page
        .body
        .contains("href=\"/console/p/sam/links.csv?status=broken\""));
    let download = browser.get("/console/p/sam/links.csv?status=broken");
    assert_eq!(download.body, broken);
    let id_page = browser.get("/console/p/sam/id?id=ark:/99999/fk4b");
    assert!(id_page.body.contains("<h2>Link health</h2>"));
    assert!(id_page
        .body
        .contains("<td>(first check)</td><td>broken</td><td>404</td>"));

    // The gauges.
    let (_, metrics) = api.get(None, "/metrics", "");
    for line in [
        "noid_links_targets{binder=\"ro\",status=\"ok\"} 1",
        "noid_links_targets{binder=\"ro\",status=\"broken\"} 1",
        "noid_links_failing_targets{host=\"127.0.0.1\"} 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in:\n{metrics}");
    }
    let checks: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("noid_links_checks_total "))
        .expect("the checks counter")
        .parse()
        .unwrap();
    assert!(checks >= 2, "{checks}");

    // The digest: the broken target alone (the one that is fine is no news), by mail
    // and to the webhook, once.
    let (from, to, data) = eventually("a digest mailed", Duration::from_secs(30), || {
        smtp.messages.lock().unwrap().first().cloned()
    });
    assert_eq!(
        (from.as_str(), to.as_slice()),
        (
            "<noid@example.org>",
            &["<curators@example.org>".to_string()][..]
        )
    );
    let detail = one["targets"][0]["detail"].as_str().unwrap().to_string();
    let (head, body) = data.split_once("\r\n\r\n").unwrap();
    assert!(
        head.contains("Subject: noid link health for sam: 1 broken\r\n"),
        "{head}"
    );
    assert!(
        head.contains("Content-Type: text/plain; charset=utf-8\r\n"),
        "{head}"
    );
    assert!(!head.contains("multipart"), "no attachment: {head}");
    let body = if head.contains("Content-Transfer-Encoding: quoted-printable\r\n") {
        quoted_printable(body)
    } else {
        body.to_string()
    };
    let body: Vec<&str> = body.lines().collect();
    // The period: from the last digest (the first, with nothing new, only set the mark)
    // to a second ago, as UTC times.
    let period = body[0]
        .strip_prefix("Targets of populator sam that changed from ")
        .and_then(|p| p.strip_suffix(':'))
        .unwrap_or_else(|| panic!("{data}"));
    let (from, until) = period.split_once(" to ").unwrap();
    for t in [from, until] {
        assert!(
            t.len() == 20 && t.starts_with("20") && t.ends_with('Z'),
            "{t} in {data}"
        );
    }
    assert!(from < until, "{data}");
    assert_eq!(
        &body[1..],
        [
            "",
            "broken (1): https://noid.example.org/console/p/sam/links?status=broken",
            &format!("  ark:/99999/fk4b {gone}: {detail}"),
        ]
    );
    let posted = eventually("a digest posted", Duration::from_secs(30), || {
        hook.seen().into_iter().find(|s| s.method == "POST")
    });
    let posted: serde_json::Value = serde_json::from_str(&posted.body).unwrap();
    assert_eq!(posted["populator"], "sam");
    assert_eq!(posted["news"].as_array().unwrap().len(), 1);
    assert_eq!(posted["news"][0]["id"], "ark:/99999/fk4b");
    assert_eq!(posted["news"][0]["status"], "broken");
    assert_eq!(
        posted["pages"]["broken"],
        "https://noid.example.org/console/p/sam/links?status=broken"
    );
}

#[test]
fn a_restarted_server_resumes_after_the_last_identifier_recorded() {
    let pages = Server::start(targets);
    // Four targets over 12 s: one check every 3 s.
    let mut api = Api::start_with(&config("12s", None));
    for n in 1..=4 {
        let set = format!("ark:/99999/fk4r{n}.set _t {}", pages.url(&format!("/r{n}")));
        assert_eq!(api.get_as(SAM, "/a/sam/b", &set).0, 200);
    }
    api.restart();
    eventually("r2 recorded", Duration::from_secs(30), || {
        let (_, csv) = api.get_as(SAM, "/a/sam/links", "format=csv");
        (rows(&csv).len() == 2).then_some(())
    });
    api.restart();
    let all = ["/r1", "/r2", "/r3", "/r4"];
    assert_eq!(pages.asked(&all), ["/r1", "/r2"]);
    let restarted_at = pages.seen().len();
    eventually("r3 and r4 checked", Duration::from_secs(30), || {
        (pages.asked(&all).len() == 4).then_some(())
    });
    assert_eq!(pages.asked(&all), all);
    // After the restart, r3 first: r1 and r2 are not asked again in this round.
    let after: Vec<String> = pages.seen()[restarted_at..]
        .iter()
        .map(|s| s.path.clone())
        .filter(|p| all.contains(&p.as_str()))
        .collect();
    assert_eq!(after.first().map(String::as_str), Some("/r3"), "{after:?}");
    assert!(!after.iter().any(|p| p == "/r1" || p == "/r2"), "{after:?}");
    // Spread evenly: r4's check starts one place (12 s / 4 = 3 s) after the round's
    // start, where r3's started at once.
    let first = |path: &str| {
        pages
            .seen()
            .into_iter()
            .find(|s| s.path == path)
            .unwrap()
            .at
    };
    let gap = first("/r4") - first("/r3");
    assert!(gap >= Duration::from_secs(2), "{gap:?}");
}

#[test]
fn without_allow_net_no_request_reaches_a_loopback_target() {
    let pages = Server::start(targets);
    let guarded = config("4s", None).replace("allow_net = [\"127.0.0.0/8\"]\n", "");
    let mut api = Api::start_with(&guarded);
    let set = format!("ark:/99999/fk4g.set _t {}", pages.url("/report"));
    assert_eq!(api.get_as(SAM, "/a/sam/b", &set).0, 200);
    api.restart();
    // The check is recorded (the checker refused the address), and nothing arrived.
    let row = eventually("the check recorded", Duration::from_secs(30), || {
        let (_, csv) = api.get_as(SAM, "/a/sam/links", "format=csv");
        rows(&csv).first().cloned()
    });
    assert!(
        row.starts_with(&format!("ark:/99999/fk4g,{},", pages.url("/report"))),
        "{row}"
    );
    assert!(!row.contains(",ok,"), "{row}");
    assert!(pages.seen().is_empty(), "{:?}", pages.seen());
}

#[test]
fn a_mistake_in_links_stops_the_server_at_startup_naming_the_field() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("api.toml");
    std::fs::write(
        &config,
        format!("[links]\ncontact = \"{CONTACT}\"\nper_host = 4\nconcurrency = 2\n"),
    )
    .unwrap();
    let out = std::process::Command::new(crate::util::noid_exe())
        .args(["serve", "--http", "127.0.0.1:0", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("links: per_host (4) is more than concurrency (2): lower per_host"),
        "{said}"
    );
}

/// A target the schedule finds broken gets its archived copy from the configured
/// TimeGate, where the minter's archived-copy policy covers its identifier (turned on
/// after the target was first found broken: the next round looks it up); the copy is
/// kept beside the identifier (`:/links/a/ID`).
#[test]
fn a_broken_target_gets_its_archived_copy_from_the_timegate() {
    use crate::loopback::Server as Archive;
    let pages = Server::start(targets);
    let mementos = Archive::start(|_, _| {
        "200 OK\r\nMemento-Datetime: Tue, 20 Jun 2000 18:02:59 GMT".to_string()
    });
    let base = mementos.base.clone();
    let gate = Archive::start(move |r, _| match r.path.strip_prefix("/web/") {
        Some(url) => format!("302 Found\r\nLocation: {base}/web/20000620180259/{url}"),
        None => "404 Not Found".to_string(),
    });
    let with_gate = format!("{}timegate = \"{}/web/\"\n", config("4s", None), gate.base);
    let mut api = Api::start_with(&with_gate);
    let gone = pages.url("/gone");
    let set = format!("ark:/99999/fk4x.set _t {gone}");
    assert_eq!(api.get_as(SAM, "/a/sam/b", &set).0, 200);
    api.restart();
    eventually("the check recorded", Duration::from_secs(30), || {
        let (_, csv) = api.get_as(SAM, "/a/sam/links", "format=csv");
        rows(&csv).first().cloned()
    });
    assert!(gate.seen().is_empty(), "no policy yet, no TimeGate asked");
    let binder = api.dir("binders/sam");
    let policy = std::process::Command::new(crate::util::noid_exe())
        .arg("-f")
        .arg(&binder)
        .args(["links", "policy", "on"])
        .output()
        .unwrap();
    assert!(policy.status.success(), "{policy:?}");
    // The next round (a restart begins one) finds it still broken, without a copy.
    api.restart();
    let key = noid_core::links::archived_key("ark:/99999/fk4x");
    let copy = eventually("the copy kept", Duration::from_secs(30), || {
        let store = noid_store::open::reader(&binder).ok()?;
        let bytes = store.get(&key).ok()??;
        noid_core::links::Archived::decode(&bytes)
    });
    assert_eq!(
        (copy.url, copy.datetime, copy.original),
        (
            format!("{}/web/20000620180259/{gone}", mementos.base),
            "Tue, 20 Jun 2000 18:02:59 GMT".to_string(),
            gone.clone()
        )
    );
    assert_eq!(gate.seen()[0].path, format!("/web/{gone}"));
}
