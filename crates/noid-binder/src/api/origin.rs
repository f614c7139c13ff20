//! Requests that a page of another site made a browser send, refused before anything
//! else (issue 42, item 2).
//!
//! The API writes on `GET` (as N2T's does), and a browser that holds Basic
//! credentials for this server sends them with any request to it, whoever's page
//! made the request: a link, an image, a form or a script on another site could
//! otherwise write as the browser's user. Browsers say where a request comes from:
//! `Sec-Fetch-Site` (every current browser), and `Origin` (on every cross-origin
//! request but a plain navigation or image). A request is refused with `403` when
//!
//! * `Sec-Fetch-Site` is `cross-site` or `same-site` (another site, or another host
//!   of this one); `same-origin` and `none` (typed in, a bookmark) are served;
//! * without `Sec-Fetch-Site`, `Origin` names another host than the request's `Host`
//!   (or is `null`, an origin a browser hides).
//!
//! Programs (curl, scripts, the `noid` CLI) send neither header, and are served as
//! before. docs/SECURITY.md states the rule.

use http::header::{HeaderValue, HOST, ORIGIN};
use http::{Request, StatusCode};

use super::reply::{plain, ApiReply};

/// The refusal's text.
pub const REFUSED: &str = "error: 403 cross-site request refused: a page of another site \
made your browser send this request. The API acts only on requests that programs \
(curl, scripts) or its own site's pages send; to change bindings in a browser, use the \
console (/console/).\n";

/// `Err(403)` for a request a page of another site made a browser send.
pub fn same_site<B>(req: &Request<B>) -> Result<(), ApiReply> {
    let h = req.headers();
    fn text(v: Option<&HeaderValue>) -> Option<&str> {
        v.map(|v| v.to_str().unwrap_or("null"))
    }
    let sent = Sent {
        site: text(h.get("sec-fetch-site")),
        origin: text(h.get(ORIGIN)),
        host: text(h.get(HOST)),
    };
    sent.check(req.uri().path())
}

/// What a request says of where it comes from: `Sec-Fetch-Site`, `Origin`, `Host`
/// (over HTTP their headers; under a CGI, the variables `HTTP_SEC_FETCH_SITE`,
/// `HTTP_ORIGIN`, `HTTP_HOST`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Sent<'a> {
    /// `Sec-Fetch-Site`.
    pub site: Option<&'a str>,
    /// `Origin`.
    pub origin: Option<&'a str>,
    /// `Host`.
    pub host: Option<&'a str>,
}

impl Sent<'_> {
    /// `Err(403)` (logged, with `path`) when the request came from another site.
    pub fn check(&self, path: &str) -> Result<(), ApiReply> {
        match self.cross_site() {
            Some(why) => {
                log::warn!("cross-site request refused ({why}): {path}");
                Err(plain(StatusCode::FORBIDDEN, REFUSED))
            }
            None => Ok(()),
        }
    }

    /// Why the request is from another site; `None` when it is not.
    fn cross_site(&self) -> Option<String> {
        if let Some(site) = self.site {
            let site = site.trim().to_ascii_lowercase();
            return match site.as_str() {
                "same-origin" | "none" => None,
                _ => Some(format!("Sec-Fetch-Site: {site}")),
            };
        }
        let origin = self.origin?.trim();
        let host = self.host.unwrap_or("").trim();
        let authority = origin
            .split_once("://")
            .map(|(_, a)| a.trim_end_matches('/'));
        match authority {
            Some(a) if !a.is_empty() && same_host(a, host) => None,
            _ => Some(format!("Origin: {origin}, Host: {host}")),
        }
    }
}

/// Whether an `Origin`'s authority names the `Host`: the same host name, and the same
/// port when `Host` has one (a front server may pass the host without its port, as
/// nginx's `$host` is).
fn same_host(origin: &str, host: &str) -> bool {
    let (oh, op) = host_port(origin);
    let (hh, hp) = host_port(host);
    !hh.is_empty() && oh.eq_ignore_ascii_case(hh) && (hp.is_none() || op == hp)
}

/// `host[:port]` (an IPv6 address in brackets) split at its port.
fn host_port(a: &str) -> (&str, Option<&str>) {
    match a.rsplit_once(':') {
        Some((h, p))
            if !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (!h.contains(':') || h.ends_with(']')) =>
        {
            (h, Some(p))
        }
        _ => (a, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(pairs: &[(&'static str, &'static str)]) -> Sent<'static> {
        let get = |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        Sent {
            site: get("sec-fetch-site"),
            origin: get("origin"),
            host: get("host"),
        }
    }

    #[test]
    fn browsers_from_other_sites_are_told_apart() {
        let host = ("host", "n2t.example:8080");
        for served in [
            vec![host],
            vec![host, ("sec-fetch-site", "same-origin")],
            vec![host, ("sec-fetch-site", "none")],
            vec![host, ("origin", "http://n2t.example:8080")],
            vec![host, ("origin", "https://N2T.example:8080")],
            vec![
                ("host", "n2t.example"),
                ("origin", "https://n2t.example:8443"),
            ],
            vec![("host", "[::1]:8080"), ("origin", "http://[::1]:8080")],
        ] {
            assert_eq!(sent(&served).cross_site(), None, "{served:?}");
        }
        for refused in [
            vec![host, ("sec-fetch-site", "cross-site")],
            vec![host, ("sec-fetch-site", "same-site")],
            vec![
                host,
                ("sec-fetch-site", "cross-site"),
                ("origin", "http://n2t.example:8080"),
            ],
            vec![host, ("origin", "http://evil.example")],
            vec![host, ("origin", "http://n2t.example")],
            vec![host, ("origin", "null")],
            vec![("origin", "http://n2t.example:8080")],
            vec![host, ("origin", "http://n2t.example:9090")],
            vec![("host", "[::1]:8080"), ("origin", "http://[::2]:8080")],
            vec![
                ("host", "n2t.example"),
                ("origin", "http://n2t.example.evil:443"),
            ],
        ] {
            assert!(sent(&refused).cross_site().is_some(), "{refused:?}");
        }
    }
}
