//! One target asked over HTTP(S), as politely as docs/LINKS.md promises: HEAD first, a
//! ranged GET (the first 64 KiB) where HEAD is refused (405, 501) or a page is to be
//! read; redirects followed here, not by the client, so that each is judged by the
//! address guard and the chain is kept; at most `per_host` requests at once to a host,
//! starts at least `host_interval` apart, and a `Retry-After` on 429 or 503 held to
//! (the host is left alone that long, then asked once more).

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, LOCATION, RANGE, RETRY_AFTER, USER_AGENT};
use http::{Method, Uri};
use http_body_util::{BodyExt, Empty};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use iri_string::types::{UriAbsoluteStr, UriReferenceStr};
use tokio::sync::{OnceCell, Semaphore};
use tokio::time::Instant;

use crate::classify::{Answer, Failure, Hop, NotFoundPage, Observation};
use crate::config::{CheckerConfig, ConfigError};
use crate::fingerprint::Page;
use crate::guard::{AddressGuard, GuardedResolver, ResolveError};
use crate::tls;

/// How much of a page is read.
const PAGE_BYTES: usize = 64 * 1024;

/// One host's share of the checker: its slots, when it may next be asked, and its
/// not-found page once read.
struct Host {
    slots: Semaphore,
    next: tokio::sync::Mutex<Instant>,
    not_found: OnceCell<Option<NotFoundPage>>,
}

impl Host {
    /// Wait for this host's turn, then take the next start `interval` later.
    async fn pace(&self, interval: Duration) {
        let mut next = self.next.lock().await;
        let now = Instant::now();
        if *next > now {
            tokio::time::sleep_until(*next).await;
        }
        *next = (*next).max(now) + interval;
    }

    /// Leave the host alone until `until` (its `Retry-After`).
    async fn hold(&self, until: Instant) {
        let mut next = self.next.lock().await;
        *next = (*next).max(until);
    }
}

/// What one request (no redirect followed) answered.
struct Fetched {
    http: u16,
    location: Option<String>,
    retry_after: Option<u64>,
    html: bool,
    /// The page's start, when a GET read it.
    body: Option<String>,
}

/// The checker's HTTP side: one client, the guard, the hosts' gates.
pub struct Prober {
    client: Client<HttpsConnector<HttpConnector<GuardedResolver>>, Empty<Bytes>>,
    guard: AddressGuard,
    expiries: tls::Expiries,
    config: CheckerConfig,
    requests: Semaphore,
    hosts: Mutex<HashMap<String, Arc<Host>>>,
}

impl Prober {
    /// A prober as `config` says (the CA file is read now).
    pub fn new(config: &CheckerConfig) -> Result<Prober, ConfigError> {
        let guard = AddressGuard::new(&config.allow_net);
        let resolver = GuardedResolver::new(guard.clone(), &config.resolve);
        let mut http = HttpConnector::new_with_resolver(resolver);
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(config.timeout));
        let (tls, expiries) = tls::client_config(config.ca_file.as_deref())?;
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .enable_http2()
            .wrap_connector(http);
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(config.per_host.max(1))
            .pool_idle_timeout(Duration::from_secs(30))
            .build(https);
        Ok(Prober {
            client,
            guard,
            expiries,
            requests: Semaphore::new(config.concurrency.max(1)),
            config: config.clone(),
            hosts: Mutex::new(HashMap::new()),
        })
    }

    fn host(&self, uri: &Uri) -> Arc<Host> {
        let key = format!(
            "{}://{}:{}",
            uri.scheme_str().unwrap_or(""),
            uri.host().unwrap_or("").to_ascii_lowercase(),
            port(uri)
        );
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        hosts
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Host {
                    slots: Semaphore::new(self.config.per_host.max(1)),
                    next: tokio::sync::Mutex::new(Instant::now()),
                    not_found: OnceCell::new(),
                })
            })
            .clone()
    }

    /// Probe `target`: its redirects, its final answer, and (for a page) what it shows
    /// and what the host's not-found page looks like.
    pub async fn probe(&self, target: &str) -> Observation {
        let mut seen = Observation {
            url: target.to_string(),
            hops: Vec::new(),
            answer: Err(Failure::Other(String::new())),
            cert_expires: None,
            not_found: None,
        };
        let start = match web_uri(target) {
            Some(u) => u,
            None => {
                seen.answer = Err(Failure::Other(format!("not an http(s) URL: {target}")));
                return seen;
            }
        };
        let (hops, end) = self.follow(start).await;
        seen.hops = hops;
        let (uri, fetched) = match end {
            Ok(end) => end,
            Err(f) => {
                seen.answer = Err(f);
                return seen;
            }
        };
        if uri.scheme_str() == Some("https") {
            let name = uri.host().unwrap_or("").to_ascii_lowercase();
            let expiries = self.expiries.lock().unwrap_or_else(|e| e.into_inner());
            seen.cert_expires = expiries.get(&name).copied();
        }
        let mut page = None;
        let wants_page = (200..300).contains(&fetched.http) || matches!(fetched.http, 401 | 403);
        if self.config.read_pages && fetched.html && wants_page {
            let body = match fetched.body {
                Some(b) => Some(b),
                None => self.fetch(&uri, true).await.ok().and_then(|f| f.body),
            };
            page = body.map(|b| Page::read(&b));
            if page.is_some() && (200..300).contains(&fetched.http) {
                seen.not_found = self.not_found(&uri).await;
            }
        }
        seen.answer = Ok(Answer {
            url: uri.to_string(),
            http: fetched.http,
            page,
            retry_after: fetched.retry_after,
        });
        seen
    }

    /// Follow redirects from `start` to a final answer.
    async fn follow(&self, start: Uri) -> (Vec<Hop>, Result<(Uri, Fetched), Failure>) {
        let mut hops = Vec::new();
        let mut asked = HashSet::new();
        let mut uri = start;
        loop {
            if !asked.insert(uri.to_string()) {
                return (hops, Err(Failure::RedirectLoop(uri.to_string())));
            }
            let fetched = match self.fetch(&uri, false).await {
                Ok(f) => f,
                Err(e) => return (hops, Err(e)),
            };
            let redirect = matches!(fetched.http, 301 | 302 | 303 | 307 | 308);
            let Some(location) = fetched.location.as_deref().filter(|_| redirect) else {
                return (hops, Ok((uri, fetched)));
            };
            if hops.len() >= self.config.max_redirects {
                return (
                    hops,
                    Err(Failure::TooManyRedirects(self.config.max_redirects)),
                );
            }
            hops.push(Hop {
                url: uri.to_string(),
                http: fetched.http,
            });
            match join(&uri, location) {
                Some(next) => uri = next,
                None => {
                    return (
                        hops,
                        Err(Failure::Other(format!(
                            "redirect to {location:?}, not an http(s) URL"
                        ))),
                    )
                }
            }
        }
    }

    /// The host's answer for a random path on it, read once per host.
    async fn not_found(&self, uri: &Uri) -> Option<NotFoundPage> {
        let host = self.host(uri);
        host.not_found
            .get_or_init(|| async {
                let random = format!(
                    "{}://{}/noid-links-{:016x}",
                    uri.scheme_str().unwrap_or("http"),
                    uri.authority().map_or("", |a| a.as_str()),
                    rand::random::<u64>()
                );
                let (_, end) = self.follow(random.parse().ok()?).await;
                let (end_uri, fetched) = end.ok()?;
                let body = if fetched.html && (200..300).contains(&fetched.http) {
                    self.fetch(&end_uri, true).await.ok().and_then(|f| f.body)
                } else {
                    None
                };
                Some(NotFoundPage {
                    url: end_uri.to_string(),
                    http: fetched.http,
                    fingerprint: body.map(|b| Page::read(&b).fingerprint),
                })
            })
            .await
            .clone()
    }

    /// One request to `uri` (HEAD, or a ranged GET when `read` or when HEAD is
    /// refused), paced, with one more try after a `Retry-After` short enough to wait.
    async fn fetch(&self, uri: &Uri, read: bool) -> Result<Fetched, Failure> {
        self.guard_literal(uri)?;
        let host = self.host(uri);
        let mut get = read;
        let mut retried = false;
        loop {
            let fetched = self.send(&host, uri, get).await?;
            if !get && matches!(fetched.http, 405 | 501) {
                get = true;
                continue;
            }
            if let (429 | 503, Some(wait), false) = (fetched.http, fetched.retry_after, retried) {
                if Duration::from_secs(wait) <= self.config.max_retry_after {
                    host.hold(Instant::now() + Duration::from_secs(wait)).await;
                    retried = true;
                    continue;
                }
            }
            return Ok(fetched);
        }
    }

    /// Refuse a URL whose host is a literal address the guard refuses (a name's
    /// addresses are judged by the resolver).
    fn guard_literal(&self, uri: &Uri) -> Result<(), Failure> {
        let host = uri.host().unwrap_or("");
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<IpAddr>() {
            Ok(ip) => self
                .guard
                .check(ip)
                .map_err(|e| Failure::NotAllowed(e.to_string())),
            Err(_) => Ok(()),
        }
    }

    async fn send(&self, host: &Host, uri: &Uri, get: bool) -> Result<Fetched, Failure> {
        let _slot = host.slots.acquire().await.expect("never closed");
        let _request = self.requests.acquire().await.expect("never closed");
        host.pace(self.config.host_interval).await;
        let timeout = self.config.timeout;
        match tokio::time::timeout(timeout, self.exchange(uri, get)).await {
            Ok(answer) => answer,
            Err(_) => Err(Failure::Timeout(timeout.as_secs())),
        }
    }

    /// One request and its answer (the page's start read when `get`).
    async fn exchange(&self, uri: &Uri, get: bool) -> Result<Fetched, Failure> {
        let mut request = http::Request::builder()
            .method(if get { Method::GET } else { Method::HEAD })
            .uri(uri.clone())
            .header(USER_AGENT, &self.config.user_agent);
        if get {
            request = request.header(RANGE, format!("bytes=0-{}", PAGE_BYTES - 1));
        }
        let request = request
            .body(Empty::new())
            .map_err(|e| Failure::Other(format!("cannot ask {uri}: {e}")))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| failure(&e, uri))?;
        let headers = response.headers();
        let text = |name| {
            headers
                .get(name)
                .and_then(|v: &http::HeaderValue| v.to_str().ok())
        };
        let html = text(CONTENT_TYPE).is_some_and(|t| t.to_ascii_lowercase().contains("html"));
        let location = text(LOCATION).map(str::to_string);
        let retry_after = text(RETRY_AFTER).and_then(retry_after_seconds);
        let status = response.status();
        let body = if get && html && !status.is_redirection() {
            let mut body = response.into_body();
            let mut buf = Vec::new();
            while buf.len() < PAGE_BYTES {
                match body.frame().await {
                    Some(Ok(frame)) => {
                        if let Some(data) = frame.data_ref() {
                            buf.extend_from_slice(data);
                        }
                    }
                    Some(Err(e)) => return Err(Failure::Other(format!("reading {uri}: {e}"))),
                    None => break,
                }
            }
            buf.truncate(PAGE_BYTES);
            Some(String::from_utf8_lossy(&buf).into_owned())
        } else {
            None
        };
        Ok(Fetched {
            http: status.as_u16(),
            location,
            retry_after,
            html,
            body,
        })
    }
}

/// `target` as an absolute http(s) URI.
fn web_uri(target: &str) -> Option<Uri> {
    let uri: Uri = target.trim().parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    (matches!(scheme.as_str(), "http" | "https") && uri.host().is_some()).then_some(uri)
}

/// `location` resolved against `base` (RFC 3986 §5), when it is an http(s) URL.
fn join(base: &Uri, location: &str) -> Option<Uri> {
    let base_text = base.to_string();
    let base = UriAbsoluteStr::new(&base_text).ok()?;
    let reference = UriReferenceStr::new(location.trim()).ok()?;
    web_uri(&reference.resolve_against(base).to_string())
}

/// The port `uri` connects to.
fn port(uri: &Uri) -> u16 {
    uri.port_u16()
        .unwrap_or(if uri.scheme_str() == Some("https") {
            443
        } else {
            80
        })
}

/// What a client error says, as a [`Failure`].
fn failure(e: &hyper_util::client::legacy::Error, uri: &Uri) -> Failure {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut words = Vec::new();
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<ResolveError>() {
            return match r {
                ResolveError::Dns(d) => Failure::Dns(d.clone()),
                ResolveError::NotAllowed(n) => Failure::NotAllowed(n.to_string()),
            };
        }
        if let Some(tls) = s.downcast_ref::<rustls::Error>() {
            return Failure::Tls(tls.to_string());
        }
        words.push(s.to_string());
        source = match s.downcast_ref::<std::io::Error>() {
            Some(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                return Failure::Refused(format!("{}:{}", uri.host().unwrap_or(""), port(uri)));
            }
            // An I/O error's source() skips the error it wraps (rustls' inside
            // tokio-rustls' InvalidData): look at that one itself.
            Some(io) => io
                .get_ref()
                .map(|inner| inner as &(dyn std::error::Error + 'static)),
            None => s.source(),
        };
    }
    let said = words.last().cloned().unwrap_or_default();
    if e.is_connect() {
        Failure::Connect(said)
    } else {
        Failure::Other(said)
    }
}

/// A `Retry-After` in seconds: delta-seconds, or an HTTP date from now.
fn retry_after_seconds(value: &str) -> Option<u64> {
    let value = value.trim();
    if let Ok(s) = value.parse::<u64>() {
        return Some(s);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .map_or(0, |d| d.as_secs()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_read_in_both_forms() {
        assert_eq!(retry_after_seconds("120"), Some(120));
        assert_eq!(
            retry_after_seconds("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(0)
        );
        assert_eq!(retry_after_seconds("soon"), None);
    }

    #[test]
    fn a_location_is_resolved_against_the_url_that_sent_it() {
        let base: Uri = "http://a.test:8080/x/y?q=1".parse().unwrap();
        let j = |l: &str| join(&base, l).map(|u| u.to_string());
        assert_eq!(j("/z").as_deref(), Some("http://a.test:8080/z"));
        assert_eq!(j("z").as_deref(), Some("http://a.test:8080/x/z"));
        assert_eq!(j("../w").as_deref(), Some("http://a.test:8080/w"));
        assert_eq!(j("https://b.test/").as_deref(), Some("https://b.test/"));
        assert_eq!(j("//c.test/p").as_deref(), Some("http://c.test/p"));
        assert_eq!(j("mailto:x@y"), None);
    }
}
