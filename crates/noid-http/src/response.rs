//! A response as [`crate::respond`] decides it (status, a few headers, a body), and its
//! HTTP/1.1 bytes, written in one piece into a connection's output buffer.
//!
//! Header names are written in lower case (one spelling; case does not matter in
//! HTTP). Values that come from the resolver (a `Location`, an `X-Target`, a `Link`)
//! lose CR, LF and other controls but TAB, as N2T drops embedded newlines from
//! answers, so that no stored target can split a header.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Status codes the server itself answers with.
pub(crate) mod status {
    pub(crate) const OK: u16 = 200;
    pub(crate) const NO_CONTENT: u16 = 204;
    pub(crate) const MULTIPLE_CHOICES: u16 = 300;
    pub(crate) const FOUND: u16 = 302;
    pub(crate) const SEE_OTHER: u16 = 303;
    pub(crate) const NOT_MODIFIED: u16 = 304;
    pub(crate) const BAD_REQUEST: u16 = 400;
    pub(crate) const UNAUTHORIZED: u16 = 401;
    pub(crate) const FORBIDDEN: u16 = 403;
    pub(crate) const NOT_FOUND: u16 = 404;
    pub(crate) const METHOD_NOT_ALLOWED: u16 = 405;
    pub(crate) const GONE: u16 = 410;
    pub(crate) const PAYLOAD_TOO_LARGE: u16 = 413;
    pub(crate) const URI_TOO_LONG: u16 = 414;
    pub(crate) const HEADERS_TOO_LARGE: u16 = 431;
    pub(crate) const INTERNAL_SERVER_ERROR: u16 = 500;
    pub(crate) const SERVICE_UNAVAILABLE: u16 = 503;
}

/// The header fields a response may carry (besides `content-length`, `connection` and
/// `date`, which [`Response::write`] adds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Name {
    Allow,
    ContentType,
    LastModified,
    Link,
    Location,
    RetryAfter,
    Vary,
    XStatus,
    XTarget,
}

impl Name {
    /// The end of the line before, and the name as written (lower case).
    fn prefix(self) -> &'static [u8] {
        match self {
            Name::Allow => b"\r\nallow: ",
            Name::ContentType => b"\r\ncontent-type: ",
            Name::LastModified => b"\r\nlast-modified: ",
            Name::Link => b"\r\nlink: ",
            Name::Location => b"\r\nlocation: ",
            Name::RetryAfter => b"\r\nretry-after: ",
            Name::Vary => b"\r\nvary: ",
            Name::XStatus => b"\r\nx-status: ",
            Name::XTarget => b"\r\nx-target: ",
        }
    }

    #[cfg(test)]
    fn as_str(self) -> &'static str {
        let p = self.prefix();
        std::str::from_utf8(&p[2..p.len() - 2]).expect("ASCII")
    }
}

/// A header value.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    /// A constant (never contains a control character).
    Static(&'static str),
    /// Text from the resolver or a page: controls but TAB are dropped when written.
    Text(String),
    /// A status code (`X-Status`).
    Code(u16),
}

/// A response body.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    Static(&'static str),
    Text(String),
}

impl Body {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Body::Static(s) => s.as_bytes(),
            Body::Text(s) => s.as_bytes(),
        }
    }
}

impl From<&'static str> for Body {
    fn from(s: &'static str) -> Body {
        Body::Static(s)
    }
}

impl From<String> for Body {
    fn from(s: String) -> Body {
        Body::Text(s)
    }
}

/// The most header fields a response carries besides `content-length`, `connection` and
/// `date` (a page on `/lookup/`: type, `X-Status`, `Vary`, `Last-Modified`, `Link`).
const MAX_HEADERS: usize = 6;

/// What to send back for one request.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub(crate) status: u16,
    headers: [(Name, Value); MAX_HEADERS],
    len: usize,
    pub(crate) body: Body,
    /// Close the connection after this response (`connection: close` is sent).
    pub(crate) close: bool,
    /// Send [`SECURITY_HEADERS`]: set for every response with a body
    /// ([`Response::text`]), never for a redirect (nor for `/lookup/`'s target).
    hardened: bool,
}

/// The headers of every response with a body (pages, text, JSON, the stylesheet): the
/// console's policy but for `form-action` (no scripts, styles or images but the
/// resolver's own, no framing, no `<base>`), no type sniffing, no framing for browsers
/// without `frame-ancestors`, and no `Referer` to other sites. The front page's box is a
/// form whose answer redirects to the identifier's target, on any site, and browsers
/// hold a form's redirects to `form-action` too: `form-action 'self'` would stop every
/// resolution from the box. Each line starts with the end of the line before.
/// Redirects, the hot path, carry none: nothing in an empty body can be sniffed or
/// framed.
pub(crate) const SECURITY_HEADERS: &str = "\r\ncontent-security-policy: default-src 'self'; \
     frame-ancestors 'none'; base-uri 'none'\
     \r\nx-content-type-options: nosniff\
     \r\nx-frame-options: DENY\
     \r\nreferrer-policy: same-origin";

impl Response {
    /// An empty response.
    pub(crate) fn empty(status: u16) -> Response {
        Response::new(status, Body::Static(""))
    }

    /// A `text/plain` response.
    pub(crate) fn text(status: u16, body: impl Into<Body>) -> Response {
        let mut r = Response::new(status, body.into());
        r.set(Name::ContentType, Value::Static(TEXT));
        r.hardened = true;
        r
    }

    /// A `text/plain` response without [`SECURITY_HEADERS`]: a redirect's target for
    /// the web server in front (`/lookup/`, njs's redirect path), never a page.
    pub(crate) fn target_text(status: u16, target: String) -> Response {
        let mut r = Response::text(status, target);
        r.hardened = false;
        r
    }

    fn new(status: u16, body: Body) -> Response {
        const NONE: (Name, Value) = (Name::Vary, Value::Static(""));
        Response {
            status,
            headers: [NONE; MAX_HEADERS],
            len: 0,
            body,
            close: false,
            hardened: false,
        }
    }

    /// Sets header `name`, replacing a value set before.
    pub(crate) fn set(&mut self, name: Name, value: Value) {
        if let Some(h) = self.headers[..self.len].iter_mut().find(|h| h.0 == name) {
            h.1 = value;
        } else if self.len < MAX_HEADERS {
            self.headers[self.len] = (name, value);
            self.len += 1;
        } else {
            debug_assert!(false, "more than {MAX_HEADERS} headers");
        }
    }

    /// The value of header `name`, if set.
    #[cfg(test)]
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.headers[..self.len]
            .iter()
            .find(|h| h.0.as_str() == name)
            .map(|(_, v)| match v {
                Value::Static(s) => (*s).to_owned(),
                Value::Text(s) => s.clone(),
                Value::Code(c) => c.to_string(),
            })
    }

    /// The response's bytes, appended to `out`: the status line, the headers, a
    /// `content-length` (but for 204 and 304), `connection: close` when `self.close`
    /// (or `keep-alive` for an HTTP/1.0 client that asked for it), the `date`, and the
    /// body unless the request was a HEAD.
    pub(crate) fn write(&self, out: &mut Vec<u8>, head: bool, keep_alive_10: bool, date: &[u8]) {
        let body = self.body.as_bytes();
        let has_body = self.status != status::NO_CONTENT && self.status != status::NOT_MODIFIED;
        let mut number = itoa::Buffer::new();
        // Each piece starts with the end of the line before it.
        match status_line(self.status) {
            Some(line) => out.extend_from_slice(line.as_bytes()),
            None => {
                out.extend_from_slice(b"HTTP/1.1 ");
                out.extend_from_slice(number.format(self.status).as_bytes());
                out.push(b' ');
            }
        }
        for (name, value) in &self.headers[..self.len] {
            out.extend_from_slice(name.prefix());
            match value {
                Value::Static(s) => out.extend_from_slice(s.as_bytes()),
                Value::Text(s) => noid_serving::header::clean_into(out, s.as_bytes()),
                Value::Code(c) => out.extend_from_slice(number.format(*c).as_bytes()),
            }
        }
        if self.hardened {
            out.extend_from_slice(SECURITY_HEADERS.as_bytes());
        }
        if has_body {
            out.extend_from_slice(b"\r\ncontent-length: ");
            out.extend_from_slice(number.format(body.len()).as_bytes());
        }
        if self.close {
            out.extend_from_slice(b"\r\nconnection: close");
        } else if keep_alive_10 {
            out.extend_from_slice(b"\r\nconnection: keep-alive");
        }
        out.extend_from_slice(b"\r\ndate: ");
        out.extend_from_slice(date);
        out.extend_from_slice(b"\r\n\r\n");
        if !head && has_body {
            out.extend_from_slice(body);
        }
    }
}

const TEXT: &str = "text/plain; charset=utf-8";

/// The status line of a status code with a reason phrase, without its line end; `None`
/// for other codes (sent with an empty reason, the space before it kept, as HTTP/1.1
/// requires).
fn status_line(code: u16) -> Option<&'static str> {
    Some(match code {
        100 => "HTTP/1.1 100 Continue",
        200 => "HTTP/1.1 200 OK",
        201 => "HTTP/1.1 201 Created",
        202 => "HTTP/1.1 202 Accepted",
        203 => "HTTP/1.1 203 Non-Authoritative Information",
        204 => "HTTP/1.1 204 No Content",
        206 => "HTTP/1.1 206 Partial Content",
        300 => "HTTP/1.1 300 Multiple Choices",
        301 => "HTTP/1.1 301 Moved Permanently",
        302 => "HTTP/1.1 302 Found",
        303 => "HTTP/1.1 303 See Other",
        304 => "HTTP/1.1 304 Not Modified",
        305 => "HTTP/1.1 305 Use Proxy",
        307 => "HTTP/1.1 307 Temporary Redirect",
        308 => "HTTP/1.1 308 Permanent Redirect",
        400 => "HTTP/1.1 400 Bad Request",
        401 => "HTTP/1.1 401 Unauthorized",
        402 => "HTTP/1.1 402 Payment Required",
        403 => "HTTP/1.1 403 Forbidden",
        404 => "HTTP/1.1 404 Not Found",
        405 => "HTTP/1.1 405 Method Not Allowed",
        406 => "HTTP/1.1 406 Not Acceptable",
        408 => "HTTP/1.1 408 Request Timeout",
        409 => "HTTP/1.1 409 Conflict",
        410 => "HTTP/1.1 410 Gone",
        411 => "HTTP/1.1 411 Length Required",
        412 => "HTTP/1.1 412 Precondition Failed",
        413 => "HTTP/1.1 413 Payload Too Large",
        414 => "HTTP/1.1 414 URI Too Long",
        415 => "HTTP/1.1 415 Unsupported Media Type",
        429 => "HTTP/1.1 429 Too Many Requests",
        431 => "HTTP/1.1 431 Request Header Fields Too Large",
        451 => "HTTP/1.1 451 Unavailable For Legal Reasons",
        500 => "HTTP/1.1 500 Internal Server Error",
        501 => "HTTP/1.1 501 Not Implemented",
        502 => "HTTP/1.1 502 Bad Gateway",
        503 => "HTTP/1.1 503 Service Unavailable",
        504 => "HTTP/1.1 504 Gateway Timeout",
        _ => return None,
    })
}

/// The `date` header's value, formatted once a second per thread.
pub(crate) struct Clock {
    text: [u8; 29],
    /// Until when `text` is right.
    until: Option<Instant>,
}

impl Clock {
    pub(crate) fn new() -> Clock {
        Clock {
            text: [b' '; 29],
            until: None,
        }
    }

    /// The HTTP date at `now` (the time the event loop last woke up).
    pub(crate) fn date(&mut self, now: Instant) -> &[u8] {
        if self.until.is_none_or(|u| now >= u) {
            let wall = SystemTime::now();
            let since = wall.duration_since(UNIX_EPOCH).unwrap_or_default();
            let second = UNIX_EPOCH + Duration::from_secs(since.as_secs());
            let text = httpdate::fmt_http_date(second);
            if text.len() == self.text.len() {
                self.text.copy_from_slice(text.as_bytes());
            }
            self.until =
                Some(now + Duration::from_nanos(1_000_000_000 - since.subsec_nanos() as u64));
        }
        &self.text
    }
}

/// Seconds since the epoch as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub(crate) fn http_date(t: i64) -> String {
    let when = UNIX_EPOCH + Duration::from_secs(t.max(0) as u64);
    httpdate::fmt_http_date(when)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(r: &Response, head: bool, ka10: bool) -> String {
        let mut out = Vec::new();
        r.write(&mut out, head, ka10, b"Sun, 06 Nov 1994 08:49:37 GMT");
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_redirect_in_one_piece() {
        let mut r = Response::empty(302);
        r.set(
            Name::Location,
            Value::Text("https://e.org/a\r\nX-Evil: 1".into()),
        );
        assert_eq!(
            bytes(&r, false, false),
            "HTTP/1.1 302 Found\r\nlocation: https://e.org/aX-Evil: 1\r\ncontent-length: 0\r\n\
             date: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n"
        );
    }

    #[test]
    fn bodies_heads_and_connections() {
        let mut r = Response::text(404, "unknown identifier\n");
        r.set(Name::XStatus, Value::Code(404));
        let get = bytes(&r, false, false);
        assert!(get.starts_with(
            "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain; charset=utf-8\r\nx-status: 404\r\n\
             content-security-policy: default-src 'self'; frame-ancestors 'none'; \
             base-uri 'none'\r\nx-content-type-options: nosniff\r\n\
             x-frame-options: DENY\r\nreferrer-policy: same-origin\r\ncontent-length: 19\r\n"
        ));
        assert!(get.ends_with("\r\n\r\nunknown identifier\n"));
        // HEAD: the length of the body it would have had, no body.
        assert!(bytes(&r, true, false)
            .ends_with("content-length: 19\r\ndate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n"));
        assert!(bytes(&r, false, true).contains("\r\nconnection: keep-alive\r\n"));
        r.close = true;
        assert!(bytes(&r, false, true).contains("\r\nconnection: close\r\n"));
        r.set(Name::ContentType, Value::Static("application/json"));
        assert_eq!(
            r.header("content-type").as_deref(),
            Some("application/json")
        );
        // 204 and 304 have no content-length and no body.
        let e = Response::empty(204);
        assert_eq!(
            bytes(&e, false, false),
            "HTTP/1.1 204 No Content\r\ndate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n"
        );
        assert!(bytes(&Response::empty(399), false, false).starts_with("HTTP/1.1 399 \r\n"));
    }

    #[test]
    fn the_clock_formats_http_dates() {
        let mut c = Clock::new();
        let now = Instant::now();
        let d = String::from_utf8(c.date(now).to_vec()).unwrap();
        assert!(httpdate::parse_http_date(&d).is_ok(), "{d}");
        assert_eq!(d.len(), 29);
    }
}
