//! The classification rules of docs/LINKS.md, applied directly to observations (no
//! network): each status, the failing → broken threshold over time, drift against the
//! last good page, the certificate note, and the history a change records.

use std::time::Duration;

use noid_core::links::{Change, LinkState, Status};
use noid_links::classify::{Answer, Failure, Hop, NotFoundPage};
use noid_links::fingerprint::Page;
use noid_links::{classify, Observation, Policy};

const DAY: u64 = 86_400;
const T0: u64 = 1_800_000_000;

fn page(html: &str) -> Option<Page> {
    Some(Page::read(html))
}

fn answered(url: &str, http: u16, html: Option<&str>) -> Observation {
    Observation {
        url: url.to_string(),
        hops: Vec::new(),
        answer: Ok(Answer {
            url: url.to_string(),
            http,
            page: html.and_then(page),
            retry_after: None,
        }),
        cert_expires: None,
        not_found: None,
    }
}

fn failed(url: &str, failure: Failure) -> Observation {
    Observation {
        answer: Err(failure),
        ..answered(url, 0, None)
    }
}

fn redirected(url: &str, hops: &[(&str, u16)], to: &str, html: Option<&str>) -> Observation {
    Observation {
        url: url.to_string(),
        hops: hops
            .iter()
            .map(|(u, h)| Hop {
                url: u.to_string(),
                http: *h,
            })
            .collect(),
        answer: Ok(Answer {
            url: to.to_string(),
            http: 200,
            page: html.and_then(page),
            retry_after: None,
        }),
        cert_expires: None,
        not_found: None,
    }
}

const REPORT: &str = "<title>Annual report</title><p>the quick brown fox jumps over the lazy \
                      dog and keeps running through the green field until the evening comes</p>";

#[test]
fn a_first_answer_is_ok_and_recorded_as_a_change() {
    let (state, change) = classify(
        None,
        &answered("https://a.org/r", 200, Some(REPORT)),
        &Policy::default(),
        T0,
    );
    assert_eq!(
        (state.status, state.http, state.since, state.checked),
        (Status::Ok, Some(200), T0, T0)
    );
    assert_eq!(state.detail, "200");
    assert_eq!(state.fingerprint.as_ref().unwrap().title, "Annual report");
    assert_eq!(
        change,
        Some(Change {
            from: None,
            to: Status::Ok,
            http: Some(200),
            detail: "200".into()
        })
    );
    // The same again: no change, and `since` stays.
    let (again, change) = classify(
        Some(&state),
        &answered("https://a.org/r", 200, Some(REPORT)),
        &Policy::default(),
        T0 + DAY,
    );
    assert_eq!(
        (again.status, again.since, again.checked),
        (Status::Ok, T0, T0 + DAY)
    );
    assert_eq!(change, None);
}

#[test]
fn failures_become_broken_only_after_k_in_a_row_over_d() {
    let policy = Policy {
        failures: 3,
        span: Duration::from_secs(2 * DAY),
        ..Policy::default()
    };
    let url = "https://a.org/r";
    let gone = || answered(url, 404, None);
    let (s1, c1) = classify(None, &gone(), &policy, T0);
    assert_eq!(
        (s1.status, s1.failures, s1.failing_since),
        (Status::Failing, 1, Some(T0))
    );
    assert_eq!(c1.unwrap().detail, "404");
    let (s2, c2) = classify(Some(&s1), &gone(), &policy, T0 + DAY);
    assert_eq!((s2.status, s2.failures), (Status::Failing, 2));
    assert_eq!(c2, None);
    // Three failures, but over one day only: still failing.
    let (s3, _) = classify(Some(&s2), &gone(), &policy, T0 + DAY + 3600);
    assert_eq!((s3.status, s3.failures), (Status::Failing, 3));
    // The fourth, two days after the first: broken.
    let (s4, c4) = classify(Some(&s3), &gone(), &policy, T0 + 2 * DAY);
    assert_eq!(
        (s4.status, s4.failures, s4.since),
        (Status::Broken, 4, T0 + 2 * DAY)
    );
    assert_eq!(
        c4,
        Some(Change {
            from: Some(Status::Failing),
            to: Status::Broken,
            http: Some(404),
            detail: "404".into()
        })
    );
    // One good answer starts the count again.
    let (s5, _) = classify(Some(&s4), &answered(url, 200, None), &policy, T0 + 3 * DAY);
    assert_eq!(
        (s5.status, s5.failures, s5.failing_since),
        (Status::Ok, 0, None)
    );
    let (s6, _) = classify(Some(&s5), &gone(), &policy, T0 + 4 * DAY);
    assert_eq!((s6.status, s6.failures), (Status::Failing, 1));
}

#[test]
fn one_failure_over_no_time_is_broken_at_once_when_asked() {
    let policy = Policy {
        failures: 1,
        span: Duration::ZERO,
        ..Policy::default()
    };
    let (s, _) = classify(
        None,
        &failed("http://a.org/", Failure::Refused("a.org:80".into())),
        &policy,
        T0,
    );
    assert_eq!((s.status, s.http), (Status::Broken, None));
    assert_eq!(s.detail, "connection refused: a.org:80");
}

#[test]
fn walls_are_blocked_never_broken() {
    let policy = Policy {
        failures: 1,
        span: Duration::ZERO,
        ..Policy::default()
    };
    let url = "https://a.org/r";
    let wall = answered(
        url,
        403,
        Some("<title>Just a moment...</title>checking your browser"),
    );
    let (s, _) = classify(None, &wall, &policy, T0);
    assert_eq!(
        (s.status, s.detail.as_str()),
        (Status::Blocked, "403 challenge page")
    );
    let (s, _) = classify(Some(&s), &wall, &policy, T0 + 10 * DAY);
    assert_eq!((s.status, s.failures), (Status::Blocked, 0));
    let mut busy = answered(url, 429, None);
    if let Ok(a) = &mut busy.answer {
        a.retry_after = Some(3600);
    }
    let (s, _) = classify(None, &busy, &policy, T0);
    assert_eq!(
        (s.status, s.detail.as_str()),
        (Status::Blocked, "429, retry after 3600s")
    );
    assert_eq!(
        classify(None, &answered(url, 401, None), &policy, T0)
            .0
            .status,
        Status::Blocked
    );
}

#[test]
fn a_permanent_redirect_suggests_the_new_url_and_a_temporary_one_is_ok() {
    let policy = Policy::default();
    let moved = redirected(
        "http://a.org/old",
        &[("http://a.org/old", 301)],
        "https://a.org/new",
        Some(REPORT),
    );
    let (s, _) = classify(None, &moved, &policy, T0);
    assert_eq!(s.status, Status::Redirected);
    assert_eq!(s.detail, "301 → https://a.org/new");
    assert_eq!(s.location.as_deref(), Some("https://a.org/new"));
    let chain = redirected(
        "http://a.org/1",
        &[("http://a.org/1", 302), ("http://a.org/2", 307)],
        "http://a.org/3",
        Some(REPORT),
    );
    let (s, _) = classify(None, &chain, &policy, T0);
    assert_eq!(
        (s.status, s.location.as_deref()),
        (Status::Ok, Some("http://a.org/3"))
    );
}

#[test]
fn a_redirect_to_another_domains_landing_page_or_a_parking_page_is_parked() {
    let policy = Policy::default();
    let away = redirected(
        "https://www.lab.example.ac.uk/data/7",
        &[("https://www.lab.example.ac.uk/data/7", 302)],
        "https://parking-service.com/",
        Some("<title>Welcome</title>"),
    );
    let (s, _) = classify(None, &away, &policy, T0);
    assert_eq!(s.status, Status::Parked);
    assert_eq!(
        s.detail,
        "200 → https://parking-service.com/ (a parked or unrelated landing page)"
    );
    // The same registrable domain's landing page is not parking (a permanent
    // redirect to it is a redirect).
    let home = redirected(
        "https://www.lab.example.ac.uk/data/7",
        &[("https://www.lab.example.ac.uk/data/7", 301)],
        "https://lab.example.ac.uk/",
        Some("<title>Lab</title>"),
    );
    assert_eq!(
        classify(None, &home, &policy, T0).0.status,
        Status::Redirected
    );
    let forsale = answered(
        "https://a.org/",
        200,
        Some("<title>a.org</title><h1>This domain may be for sale</h1>"),
    );
    assert_eq!(
        classify(None, &forsale, &policy, T0).0.status,
        Status::Parked
    );
}

#[test]
fn the_hosts_not_found_page_served_with_200_is_a_soft_404() {
    let policy = Policy::default();
    let sorry = "<title>Archive</title><p>Sorry, we could not find what you asked for. \
                 Try the search box or the home page instead.</p>";
    let mut seen = answered("https://a.org/item/9", 200, Some(sorry));
    seen.not_found = Some(NotFoundPage {
        url: "https://a.org/noid-links-0000000000000001".into(),
        http: 200,
        fingerprint: Some(Page::read(sorry).fingerprint),
    });
    let (s, _) = classify(None, &seen, &policy, T0);
    assert_eq!(
        (s.status, s.detail.as_str()),
        (Status::Soft404, "200, but the host's not-found page")
    );
    // A host that answers its random path with 404 says nothing against the page.
    seen.not_found.as_mut().unwrap().http = 404;
    assert_eq!(classify(None, &seen, &policy, T0).0.status, Status::Ok);
    // A page whose title says it is missing.
    let titled = answered(
        "https://a.org/x",
        200,
        Some("<title>Page Not Found</title>"),
    );
    assert_eq!(
        classify(None, &titled, &policy, T0).0.status,
        Status::Soft404
    );
}

#[test]
fn drift_is_measured_from_the_last_good_page_and_stays_until_it_comes_back() {
    let policy = Policy::default();
    let url = "https://a.org/r";
    let (good, _) = classify(None, &answered(url, 200, Some(REPORT)), &policy, T0);
    let edited = REPORT.replace("evening", "night");
    let (same, _) = classify(
        Some(&good),
        &answered(url, 200, Some(&edited)),
        &policy,
        T0 + DAY,
    );
    assert_eq!(same.status, Status::Ok, "a small edit is no drift");
    let other = "<title>Annual report</title><p>quarterly results show revenue growth in \
                 every region with strong demand for services and products across markets</p>";
    let (drifted, change) = classify(
        Some(&same),
        &answered(url, 200, Some(other)),
        &policy,
        T0 + 2 * DAY,
    );
    assert_eq!(drifted.status, Status::Drifted);
    assert!(
        drifted.detail.starts_with("text changed ("),
        "{}",
        drifted.detail
    );
    assert_eq!(change.unwrap().from, Some(Status::Ok));
    assert_eq!(
        drifted.fingerprint, same.fingerprint,
        "the good page is kept"
    );
    let retitled = "<title>Domain for you</title>";
    let (s, _) = classify(
        Some(&drifted),
        &answered(url, 200, Some(retitled)),
        &policy,
        T0 + 3 * DAY,
    );
    assert_eq!(s.detail, "title \"Annual report\" → \"Domain for you\"");
    let (back, _) = classify(
        Some(&s),
        &answered(url, 200, Some(&edited)),
        &policy,
        T0 + 4 * DAY,
    );
    assert_eq!(back.status, Status::Ok);
}

#[test]
fn a_certificate_expiring_soon_is_noted_on_an_ok_target() {
    let policy = Policy::default();
    let mut seen = answered("https://a.org/r", 200, None);
    seen.cert_expires = Some(T0 + 5 * DAY + 3600);
    let (s, _) = classify(None, &seen, &policy, T0);
    assert_eq!(
        (s.status, s.detail.as_str()),
        (Status::Ok, "200, certificate expires in 5 days")
    );
    assert_eq!(s.cert_expires, Some(T0 + 5 * DAY + 3600));
    seen.cert_expires = Some(T0 + 15 * DAY);
    assert_eq!(classify(None, &seen, &policy, T0).0.detail, "200");
}

#[test]
fn every_kind_of_failure_is_spelled_for_the_report() {
    let policy = Policy::default();
    let detail = |f: Failure| {
        classify(None, &failed("http://a.org/", f), &policy, T0)
            .0
            .detail
    };
    assert_eq!(detail(Failure::Timeout(5)), "timeout after 5s");
    assert_eq!(
        detail(Failure::Dns("a.org: no address".into())),
        "dns: a.org: no address"
    );
    assert_eq!(
        detail(Failure::TooManyRedirects(10)),
        "more than 10 redirects"
    );
    assert_eq!(
        detail(Failure::RedirectLoop("http://a.org/1".into())),
        "redirect loop at http://a.org/1"
    );
    let state = LinkState::decode(
        &classify(
            None,
            &failed("http://a.org/", Failure::Timeout(5)),
            &policy,
            T0,
        )
        .0
        .encode(),
    )
    .unwrap();
    assert_eq!((state.status, state.failures), (Status::Failing, 1));
}
