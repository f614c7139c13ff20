//! The checker against real servers on loopback (HTTP, and HTTPS with a CA made here):
//! every case of docs/LINKS.md stood up by a server, checked, and its status, HTTP
//! status and detail asserted, with what the servers saw (requests, methods, pacing,
//! concurrency) proving the scenario happened. Names resolve to 127.0.0.1 through the
//! checker's resolver overrides; nothing leaves 127.0.0.0/8.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use noid_core::links::{LinkState, Status};
use noid_links::testing::{closed_port, Reply, Server, TestCa};
use noid_links::{writes, BlockingChecker, CheckerConfig, Outcome, Policy, Target};

const T0: u64 = 1_800_000_000;
const CONTACT: &str = "https://ids.example.org/contact";

/// A checker allowed onto loopback, with the test names resolving there, quick.
fn config() -> CheckerConfig {
    let mut c = CheckerConfig::new(CONTACT);
    c.allow_net = vec!["127.0.0.0/8".parse().unwrap()];
    c.resolve = ["site.test", "other.test", "parking.test", "secure.test"]
        .iter()
        .map(|n| (n.to_string(), IpAddr::from([127, 0, 0, 1])))
        .collect();
    c.host_interval = Duration::ZERO;
    c.timeout = Duration::from_secs(2);
    c.per_host = 4;
    c
}

fn at_once() -> Policy {
    Policy {
        failures: 1,
        span: Duration::ZERO,
        ..Policy::default()
    }
}

/// Check `urls` (as targets of `ark:/1/x`) with the states `before`; outcomes by URL.
fn check(
    checker: &BlockingChecker,
    urls: &[String],
    before: &BTreeMap<String, LinkState>,
    policy: &Policy,
    now: u64,
) -> BTreeMap<String, Outcome> {
    let jobs = urls.iter().map(|u| {
        (
            Target {
                id: "ark:/1/x".into(),
                url: u.clone(),
            },
            before.get(u).cloned(),
        )
    });
    let mut out = BTreeMap::new();
    checker.check(jobs, policy, now, |o| {
        out.insert(o.target.url.clone(), o);
    });
    assert_eq!(out.len(), urls.len(), "one outcome per target");
    out
}

fn seen(o: &Outcome) -> (Status, Option<u16>, &str) {
    (o.state.status, o.state.http, o.state.detail.as_str())
}

const REPORT: &str = "<html><title>Annual report</title><p>the quick brown fox jumps over the \
                      lazy dog and keeps running through the green field until evening</p>";
const SORRY: &str = "<html><title>Site</title><p>Sorry, we could not find that page. Try the \
                     search box or start again from the home page of the site.</p>";
const OTHER: &str = "<html><title>Annual report</title><p>quarterly results show revenue \
                     growth in every region with strong demand for services and products</p>";

/// The site: one route per case; unknown paths get the site's not-found page with 200.
fn site(drift: Arc<AtomicBool>) -> Server {
    Server::http(move |r| {
        if r.host.starts_with("parking.test") {
            return Reply::html(
                200,
                "<title>parking.test</title><h1>This domain may be for sale</h1>",
            );
        }
        match r.path.as_str() {
            "/ok" => Reply::html(200, REPORT),
            "/gone" => Reply::status(404),
            "/removed" => Reply::status(410),
            "/slow" => Reply::html(200, REPORT).after(Duration::from_secs(5)),
            "/chain/1" => Reply::redirect(302, "/chain/2"),
            "/chain/2" => Reply::redirect(307, "3"),
            "/chain/3" => Reply::html(200, REPORT),
            "/moved" => Reply::redirect(301, "/ok"),
            "/loop/a" => Reply::redirect(302, "/loop/b"),
            "/loop/b" => Reply::redirect(302, "/loop/a"),
            "/sold" => Reply::redirect(
                302,
                &format!(
                    "http://parking.test:{}/",
                    r.host.rsplit(':').next().unwrap()
                ),
            ),
            "/wall" => Reply::html(
                403,
                "<title>Just a moment...</title><p>Checking your browser</p>",
            ),
            "/busy" => Reply::status(429).header("Retry-After", "3600"),
            "/nohead" if r.method == "HEAD" => Reply::status(405),
            "/nohead" => Reply::html(200, REPORT),
            "/drift" if drift.load(Ordering::SeqCst) => Reply::html(200, OTHER),
            "/drift" => Reply::html(200, REPORT),
            _ => Reply::html(200, SORRY),
        }
    })
}

#[test]
fn every_case_gets_its_status() {
    let drift = Arc::new(AtomicBool::new(false));
    let server = site(drift.clone());
    let port = server.addr.port();
    let url = |p: &str| format!("http://site.test:{port}{p}");
    let closed = closed_port();
    let refused = format!("http://127.0.0.1:{closed}/x");
    let mut urls: Vec<String> = [
        "/ok", "/gone", "/removed", "/slow", "/chain/1", "/moved", "/loop/a", "/sold", "/wall",
        "/busy", "/nohead", "/missing", "/drift",
    ]
    .iter()
    .map(|p| url(p))
    .collect();
    urls.push(refused.clone());
    let checker = BlockingChecker::new(config()).unwrap();
    let out = check(&checker, &urls, &BTreeMap::new(), &at_once(), T0);
    let o = |p: &str| &out[&url(p)];
    assert_eq!(seen(o("/ok")), (Status::Ok, Some(200), "200"));
    assert_eq!(seen(o("/gone")), (Status::Broken, Some(404), "404"));
    assert_eq!(seen(o("/removed")), (Status::Broken, Some(410), "410"));
    assert_eq!(seen(o("/slow")), (Status::Broken, None, "timeout after 2s"));
    assert_eq!(seen(o("/chain/1")), (Status::Ok, Some(200), "200"));
    assert_eq!(
        o("/chain/1").state.location.as_deref(),
        Some(url("/chain/3").as_str())
    );
    assert_eq!(
        seen(o("/moved")),
        (
            Status::Redirected,
            Some(200),
            format!("301 → {}", url("/ok")).as_str()
        )
    );
    assert_eq!(
        seen(o("/loop/a")),
        (
            Status::Broken,
            Some(302),
            format!("redirect loop at {}", url("/loop/a")).as_str()
        )
    );
    assert_eq!(
        seen(o("/sold")),
        (
            Status::Parked,
            Some(200),
            format!("200 → http://parking.test:{port}/ (a parked or unrelated landing page)")
                .as_str()
        )
    );
    assert_eq!(
        seen(o("/wall")),
        (Status::Blocked, Some(403), "403 challenge page")
    );
    assert_eq!(
        seen(o("/busy")),
        (Status::Blocked, Some(429), "429, retry after 3600s")
    );
    assert_eq!(seen(o("/nohead")), (Status::Ok, Some(200), "200"));
    assert_eq!(
        seen(o("/missing")),
        (
            Status::Soft404,
            Some(200),
            "200, but the host's not-found page"
        )
    );
    assert_eq!(
        seen(&out[&refused]),
        (
            Status::Broken,
            None,
            format!("connection refused: 127.0.0.1:{closed}").as_str()
        )
    );

    // What the server saw proves how it was asked.
    let log = server.log();
    let methods = |path: &str| -> Vec<String> {
        log.iter()
            .filter(|r| r.path == path)
            .map(|r| r.method.clone())
            .collect()
    };
    assert_eq!(
        methods("/nohead"),
        ["HEAD", "GET"],
        "HEAD refused, then a ranged GET"
    );
    assert_eq!(
        methods("/busy"),
        ["HEAD"],
        "an hour's Retry-After is not waited for"
    );
    assert_eq!(methods("/gone"), ["HEAD"]);
    assert!(
        log.iter().all(|r| r.user_agent.contains(CONTACT)),
        "the User-Agent names the contact"
    );
    assert!(
        log.iter().any(|r| r.path.starts_with("/noid-links-")),
        "the host's not-found page was asked"
    );

    // Content that drifts between two checks.
    let before: BTreeMap<String, LinkState> = out
        .iter()
        .map(|(u, o)| (u.clone(), o.state.clone()))
        .collect();
    drift.store(true, Ordering::SeqCst);
    let again = check(
        &checker,
        &[url("/drift"), url("/ok")],
        &before,
        &at_once(),
        T0 + 86_400,
    );
    let d = &again[&url("/drift")];
    assert_eq!(d.state.status, Status::Drifted);
    assert!(
        d.state.detail.starts_with("text changed ("),
        "{}",
        d.state.detail
    );
    assert_eq!(d.state.since, T0 + 86_400);
    assert_eq!(again[&url("/ok")].change, None);
    assert_eq!(again[&url("/ok")].state.since, T0);
}

#[test]
fn a_flapping_target_is_failing_but_never_broken() {
    let down = Arc::new(AtomicBool::new(true));
    let flag = down.clone();
    let server = Server::http(
        move |r| match (r.path.as_str(), flag.load(Ordering::SeqCst)) {
            ("/flap", true) => Reply::status(500),
            ("/flap", false) => Reply::html(200, REPORT),
            _ => Reply::status(404),
        },
    );
    let url = server.url("/flap");
    let checker = BlockingChecker::new(config()).unwrap();
    let policy = Policy {
        failures: 2,
        span: Duration::ZERO,
        ..Policy::default()
    };
    let mut before = BTreeMap::new();
    let mut statuses = Vec::new();
    for round in 0..4u64 {
        let out = check(
            &checker,
            std::slice::from_ref(&url),
            &before,
            &policy,
            T0 + round * 3600,
        );
        let o = &out[&url];
        statuses.push((o.state.status, o.state.http));
        before.insert(url.clone(), o.state.clone());
        down.store(round % 2 == 1, Ordering::SeqCst);
    }
    assert_eq!(
        statuses,
        [
            (Status::Failing, Some(500)),
            (Status::Ok, Some(200)),
            (Status::Failing, Some(500)),
            (Status::Ok, Some(200))
        ]
    );
}

#[test]
fn retry_after_is_waited_for_then_asked_once_more() {
    let server = Server::http(|r| match r.nth {
        0 => Reply::status(503).header("Retry-After", "1"),
        _ => Reply::status(200),
    });
    let checker = BlockingChecker::new(config()).unwrap();
    let url = server.url("/later");
    let out = check(
        &checker,
        std::slice::from_ref(&url),
        &BTreeMap::new(),
        &at_once(),
        T0,
    );
    assert_eq!(seen(&out[&url]), (Status::Ok, Some(200), "200"));
    let log = server.log();
    assert_eq!(log.len(), 2);
    let waited = log[1].at.duration_since(log[0].at);
    assert!(
        waited >= Duration::from_secs(1),
        "asked again after {waited:?}"
    );
}

#[test]
fn per_host_limits_and_pacing_hold_at_the_server() {
    let server = Server::http(|_| Reply::status(200).after(Duration::from_millis(150)));
    let mut c = config();
    c.per_host = 2;
    c.concurrency = 16;
    let checker = BlockingChecker::new(c).unwrap();
    let urls: Vec<String> = (0..12).map(|i| server.url(&format!("/p{i}"))).collect();
    check(&checker, &urls, &BTreeMap::new(), &at_once(), T0);
    assert_eq!(server.requests(), 12);
    assert_eq!(server.most_in_flight(), 2, "two at once, never more");

    let paced = Server::http(|_| Reply::status(200));
    let mut c = config();
    c.host_interval = Duration::from_millis(200);
    let checker = BlockingChecker::new(c).unwrap();
    let urls: Vec<String> = (0..4).map(|i| paced.url(&format!("/q{i}"))).collect();
    check(&checker, &urls, &BTreeMap::new(), &at_once(), T0);
    let log = paced.log();
    assert_eq!(log.len(), 4);
    for pair in log.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(gap >= Duration::from_millis(190), "requests {gap:?} apart");
    }
}

#[test]
fn without_the_allow_list_no_request_reaches_loopback() {
    let server = Server::http(|_| Reply::status(200));
    let port = server.addr.port();
    // A server on 127.0.0.2, allowed, that redirects to the one on 127.0.0.1.
    let door = Server::http_at([127, 0, 0, 2].into(), move |_| {
        Reply::redirect(302, &format!("http://127.0.0.1:{port}/inside"))
    });
    let mut c = config();
    c.allow_net = vec![];
    let checker = BlockingChecker::new(c).unwrap();
    let by_address = server.url("/a");
    let by_name = format!("http://site.test:{port}/b");
    let v6 = format!("http://[::ffff:127.0.0.1]:{port}/c");
    let out = check(
        &checker,
        &[by_address.clone(), by_name.clone(), v6.clone()],
        &BTreeMap::new(),
        &at_once(),
        T0,
    );
    let refused = "address 127.0.0.1 not allowed (a special-purpose range; --allow-net opens one)";
    for u in [&by_address, &by_name, &v6] {
        assert_eq!(seen(&out[u]), (Status::Broken, None, refused), "{u}");
    }
    let mut c = config();
    c.allow_net = vec!["127.0.0.2/32".parse().unwrap()];
    let checker = BlockingChecker::new(c).unwrap();
    let through = format!("http://{}/go", door.addr);
    let out = check(
        &checker,
        std::slice::from_ref(&through),
        &BTreeMap::new(),
        &at_once(),
        T0,
    );
    assert_eq!(seen(&out[&through]), (Status::Broken, Some(302), refused));
    assert_eq!(door.requests(), 1, "the allowed server was asked");
    assert_eq!(server.requests(), 0, "no request reached the refused one");
}

#[test]
fn https_is_verified_against_the_configured_ca_and_its_expiry_noted() {
    let ca = TestCa::new();
    let server = Server::https(&ca, &["secure.test"], |r| match r.path.as_str() {
        "/doc" => Reply::html(200, REPORT),
        _ => Reply::status(404),
    });
    let url = format!("https://secure.test:{}/doc", server.addr.port());
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.pem).unwrap();

    // Without the CA: the certificate is not trusted.
    let checker = BlockingChecker::new(config()).unwrap();
    let out = check(
        &checker,
        std::slice::from_ref(&url),
        &BTreeMap::new(),
        &at_once(),
        T0,
    );
    assert_eq!(
        seen(&out[&url]),
        (
            Status::Broken,
            None,
            "tls: invalid peer certificate: UnknownIssuer"
        )
    );
    assert_eq!(server.requests(), 0);

    let mut c = config();
    c.ca_file = Some(ca_file);
    let checker = BlockingChecker::new(c).unwrap();
    let out = check(
        &checker,
        std::slice::from_ref(&url),
        &BTreeMap::new(),
        &at_once(),
        T0,
    );
    assert_eq!(seen(&out[&url]), (Status::Ok, Some(200), "200"));
    // rcgen's certificates run to 4096-01-01T00:00:00Z.
    const EXPIRES: u64 = 67_090_118_400;
    assert_eq!(out[&url].state.cert_expires, Some(EXPIRES));
    let near = EXPIRES - 5 * 86_400 - 60;
    let out = check(
        &checker,
        std::slice::from_ref(&url),
        &BTreeMap::new(),
        &at_once(),
        near,
    );
    assert_eq!(
        seen(&out[&url]),
        (Status::Ok, Some(200), "200, certificate expires in 5 days")
    );
}

#[test]
fn an_outcome_is_recorded_as_its_state_and_one_history_entry_per_change() {
    let server = Server::http(|_| Reply::status(404));
    let checker = BlockingChecker::new(config()).unwrap();
    let url = server.url("/w");
    let first = check(
        &checker,
        std::slice::from_ref(&url),
        &BTreeMap::new(),
        &at_once(),
        T0,
    );
    let o = &first[&url];
    let w = writes(o);
    let key = |k: &[u8]| String::from_utf8(k.to_vec()).unwrap();
    assert_eq!(
        w.iter().map(|(k, _)| key(k)).collect::<Vec<_>>(),
        [
            format!(":/links/h/ark:/1/x\t{url}\t00000000001800000000"),
            format!(":/links/s/ark:/1/x\t{url}"),
        ]
    );
    assert_eq!(
        String::from_utf8(w[0].1.clone().unwrap()).unwrap(),
        "to: broken\nhttp: 404\ndetail: 404\n"
    );
    let before = BTreeMap::from([(url.clone(), o.state.clone())]);
    let again = check(
        &checker,
        std::slice::from_ref(&url),
        &before,
        &at_once(),
        T0 + 60,
    );
    assert_eq!(writes(&again[&url]).len(), 1, "no change, no history entry");
}

#[test]
fn https_speaks_http2_where_the_server_offers_it() {
    let ca = TestCa::new();
    let server = Server::https_h2(&ca, &["secure.test"], |r| match r.path.as_str() {
        "/doc" => Reply::html(200, REPORT),
        _ => Reply::status(404),
    });
    let url = format!("https://secure.test:{}/doc", server.addr.port());
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.pem).unwrap();
    let mut c = config();
    c.ca_file = Some(ca_file);
    let checker = BlockingChecker::new(c).unwrap();
    let out = check(
        &checker,
        std::slice::from_ref(&url),
        &BTreeMap::new(),
        &at_once(),
        T0,
    );
    assert_eq!(seen(&out[&url]), (Status::Ok, Some(200), "200"));
    let log = server.log();
    assert_eq!(
        log.iter()
            .map(|r| format!(
                "{} {} {}",
                r.version,
                r.method,
                r.path.starts_with("/noid-links-")
            ))
            .collect::<Vec<_>>(),
        [
            "HTTP/2.0 HEAD false",
            "HTTP/2.0 GET false",
            "HTTP/2.0 HEAD true"
        ]
    );
}
