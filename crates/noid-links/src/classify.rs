//! From what one probe saw ([`Observation`]) and the target's state before it, its
//! state now: the one place the statuses are decided (docs/LINKS.md tells the rules).
//! Pure: no clock, no network, so every rule is tested directly.

use noid_core::links::{Change, Fingerprint, LinkState, Status};

use crate::config::Policy;
use crate::fingerprint::{distance, Page};

/// One redirect on the way: the URL that answered and its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// The URL asked.
    pub url: String,
    /// Its redirect status (301, 302, 303, 307, 308).
    pub http: u16,
}

/// The final answer of a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The URL that answered (the target, or where its redirects led).
    pub url: String,
    /// Its HTTP status.
    pub http: u16,
    /// What was read of it, when it is an HTML page and pages are read.
    pub page: Option<Page>,
    /// A `Retry-After` it sent, in seconds.
    pub retry_after: Option<u64>,
}

/// Why a probe had no final answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The name has no address.
    Dns(String),
    /// The address guard refused every address (docs/LINKS.md).
    NotAllowed(String),
    /// Nothing listens there.
    Refused(String),
    /// The connection failed otherwise (reset, unreachable …).
    Connect(String),
    /// TLS failed (certificate, handshake).
    Tls(String),
    /// No answer within the timeout.
    Timeout(u64),
    /// The redirects came back to a URL already asked.
    RedirectLoop(String),
    /// More redirects than the limit.
    TooManyRedirects(usize),
    /// An answer HTTP could not read, or another error.
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Dns(e) => write!(f, "dns: {e}"),
            Failure::NotAllowed(e) => f.write_str(e),
            Failure::Refused(e) => write!(f, "connection refused: {e}"),
            Failure::Connect(e) => write!(f, "connection failed: {e}"),
            Failure::Tls(e) => write!(f, "tls: {e}"),
            Failure::Timeout(s) => write!(f, "timeout after {s}s"),
            Failure::RedirectLoop(url) => write!(f, "redirect loop at {url}"),
            Failure::TooManyRedirects(n) => write!(f, "more than {n} redirects"),
            Failure::Other(e) => f.write_str(e),
        }
    }
}

/// The host's answer for a random path on it: what its not-found page looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFoundPage {
    /// Where the random path's redirects led.
    pub url: String,
    /// Its status.
    pub http: u16,
    /// Its fingerprint, when it was a page.
    pub fingerprint: Option<Fingerprint>,
}

/// Everything one probe of one target saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The target asked.
    pub url: String,
    /// The redirects followed, in order.
    pub hops: Vec<Hop>,
    /// The final answer, or why there was none.
    pub answer: Result<Answer, Failure>,
    /// When the final HTTPS answer's certificate expires (seconds since the epoch).
    pub cert_expires: Option<u64>,
    /// The host's not-found page, when the answer was a page worth comparing.
    pub not_found: Option<NotFoundPage>,
}

/// What one observation says, before history is weighed.
enum Verdict {
    Good { status: Status, detail: String },
    Blocked(String),
    Failed(String),
}

/// The registrable domain of `url`'s host (`www.example.co.uk` → `example.co.uk`),
/// or the host itself when it has none (an address, `localhost`).
pub fn registrable(url: &str) -> Option<String> {
    let uri = url.parse::<http::Uri>().ok()?;
    let host = uri.host()?.to_ascii_lowercase();
    Some(psl::domain_str(&host).map_or(host.clone(), str::to_string))
}

/// Whether `url` is a site's landing page (its path is `/`, no query).
fn is_landing(url: &str) -> bool {
    url.parse::<http::Uri>()
        .is_ok_and(|u| matches!(u.path(), "/" | "") && u.query().is_none())
}

fn verdict(seen: &Observation, baseline: Option<&Fingerprint>, policy: &Policy) -> Verdict {
    let answer = match &seen.answer {
        Err(failure) => return Verdict::Failed(failure.to_string()),
        Ok(a) => a,
    };
    let page = answer.page.as_ref();
    if matches!(answer.http, 401 | 403 | 429) {
        let mut detail = answer.http.to_string();
        if page.is_some_and(|p| p.challenge) {
            detail.push_str(" challenge page");
        }
        if let Some(s) = answer.retry_after {
            detail.push_str(&format!(", retry after {s}s"));
        }
        return Verdict::Blocked(detail);
    }
    if answer.http >= 400 {
        return Verdict::Failed(answer.http.to_string());
    }
    let moved = !seen.hops.is_empty() && answer.url != seen.url;
    let elsewhere = moved && registrable(&answer.url) != registrable(&seen.url);
    if page.is_some_and(|p| p.parking) || (elsewhere && is_landing(&answer.url)) {
        return Verdict::Good {
            status: Status::Parked,
            detail: format!(
                "{} → {} (a parked or unrelated landing page)",
                answer.http, answer.url
            ),
        };
    }
    if let Some(page) = page {
        if is_soft_404(seen, answer, page, policy) {
            return Verdict::Good {
                status: Status::Soft404,
                detail: format!("{}, but the host's not-found page", answer.http),
            };
        }
    }
    if moved && matches!(seen.hops[0].http, 301 | 308) {
        return Verdict::Good {
            status: Status::Redirected,
            detail: format!("{} → {}", seen.hops[0].http, answer.url),
        };
    }
    if let (Some(page), Some(before)) = (page, baseline) {
        let now = &page.fingerprint;
        if now.title != before.title {
            return Verdict::Good {
                status: Status::Drifted,
                detail: format!("title {:?} → {:?}", before.title, now.title),
            };
        }
        let bits = distance(now.simhash, before.simhash);
        if bits > policy.drift_bits {
            return Verdict::Good {
                status: Status::Drifted,
                detail: format!("text changed ({bits} of 64 bits)"),
            };
        }
    }
    Verdict::Good {
        status: Status::Ok,
        detail: answer.http.to_string(),
    }
}

/// A 2xx page that is the host's not-found page: its title says so, or the host
/// answers a random path with the same page (same place, or same title and text).
/// A site's landing page is never one (hosts often answer unknown paths with it).
fn is_soft_404(seen: &Observation, answer: &Answer, page: &Page, policy: &Policy) -> bool {
    if page.not_found_title {
        return true;
    }
    if is_landing(&seen.url) {
        return false;
    }
    let Some(nf) = &seen.not_found else {
        return false;
    };
    if !(200..300).contains(&nf.http) {
        return false;
    }
    if nf.url == answer.url && answer.url != seen.url {
        return true;
    }
    nf.fingerprint.as_ref().is_some_and(|f| {
        f.title == page.fingerprint.title
            && distance(f.simhash, page.fingerprint.simhash) <= policy.drift_bits
    })
}

/// The target's state after `seen`, given its state before (`None`: first check),
/// and the change of status to record, if its status changed.
pub fn classify(
    before: Option<&LinkState>,
    seen: &Observation,
    policy: &Policy,
    now: u64,
) -> (LinkState, Option<Change>) {
    let baseline = before.and_then(|b| b.fingerprint.as_ref());
    let answer = seen.answer.as_ref().ok();
    let http = answer
        .map(|a| a.http)
        .or_else(|| seen.hops.last().map(|h| h.http));
    let page_fp = answer
        .and_then(|a| a.page.as_ref())
        .map(|p| p.fingerprint.clone());
    let (status, detail, failures, failing_since) = match verdict(seen, baseline, policy) {
        Verdict::Failed(detail) => {
            let (failures, first) = match before {
                Some(b) if b.failures > 0 => (b.failures + 1, b.failing_since.unwrap_or(now)),
                _ => (1, now),
            };
            let lasted = now.saturating_sub(first);
            let broken = failures >= policy.failures && lasted >= policy.span.as_secs();
            let status = if broken {
                Status::Broken
            } else {
                Status::Failing
            };
            (status, detail, failures, Some(first))
        }
        Verdict::Blocked(detail) => (Status::Blocked, detail, 0, None),
        Verdict::Good { status, mut detail } => {
            if let (Status::Ok, Some(expires)) = (status, seen.cert_expires) {
                if expires <= now + policy.cert_warning.as_secs() {
                    let days = expires.saturating_sub(now) / 86_400;
                    detail.push_str(&format!(", certificate expires in {days} days"));
                }
            }
            (status, detail, 0, None)
        }
    };
    // The last good page is what drift is measured from: kept while a target has
    // drifted (it stays drifted until its content comes back), taken anew when ok.
    let fingerprint = match status {
        Status::Ok | Status::Redirected => page_fp.or_else(|| baseline.cloned()),
        _ => baseline.cloned(),
    };
    let since = match before {
        Some(b) if b.status == status => b.since,
        _ => now,
    };
    let location = answer.filter(|a| a.url != seen.url).map(|a| a.url.clone());
    let state = LinkState {
        status,
        http,
        checked: now,
        since,
        failures,
        failing_since,
        detail: detail.clone(),
        location,
        fingerprint,
        cert_expires: seen.cert_expires,
    };
    let change = match before {
        Some(b) if b.status == status => None,
        _ => Some(Change {
            from: before.map(|b| b.status),
            to: status,
            http,
            detail,
        }),
    };
    (state, change)
}
