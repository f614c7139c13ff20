//! A request head read by `httparse`, reduced to what
//! [`crate::respond`] needs: method, path and query, the few headers the resolver and the
//! limits read, and whether the connection stays open.

use std::mem::MaybeUninit;

use crate::response::status;

/// More header fields than this get `431`.
pub(crate) const MAX_HEADERS: usize = 100;

/// One parsed request head, borrowing the connection's input buffer.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Head<'a> {
    pub(crate) method: &'a str,
    /// The request-target's path (still %-encoded).
    pub(crate) path: &'a str,
    /// The query, without its `?` (`Some("")` for a bare `?`).
    pub(crate) query: Option<&'a str>,
    pub(crate) accept: Option<&'a str>,
    pub(crate) forwarded_proto: Option<&'a str>,
    pub(crate) if_modified_since: Option<&'a str>,
    /// Read only to class the request as a robot's or a person's for the counts
    /// (`noid_counts::Robots`), never kept.
    pub(crate) user_agent: Option<&'a [u8]>,
    /// A `Transfer-Encoding`, or a `Content-Length` other than `0`.
    pub(crate) has_body: bool,
    /// HTTP/1.0 (keep-alive only when asked for).
    pub(crate) http10: bool,
    /// The connection stays open after the response (HTTP/1.1 without
    /// `Connection: close`, HTTP/1.0 with `Connection: keep-alive`).
    pub(crate) keep_alive: bool,
}

/// What came of parsing the start of a buffer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Parsed<'a> {
    /// A whole head, and its length in bytes.
    Head(Head<'a>, usize),
    /// The head is not complete yet.
    Partial,
    /// Not a request this server answers: the status to refuse it with (the
    /// connection is closed after it).
    Refused(u16),
}

/// Parses the request head at the start of `buf`.
pub(crate) fn parse(buf: &[u8]) -> Parsed<'_> {
    let mut headers = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut []);
    let len = match req.parse_with_uninit_headers(buf, &mut headers) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Parsed::Partial,
        Err(httparse::Error::TooManyHeaders) => return Parsed::Refused(status::HEADERS_TOO_LARGE),
        Err(_) => return Parsed::Refused(status::BAD_REQUEST),
    };
    let (Some(method), Some(target), Some(version)) = (req.method, req.path, req.version) else {
        return Parsed::Refused(status::BAD_REQUEST);
    };
    let Some((path, query)) = split_target(target) else {
        return Parsed::Refused(status::BAD_REQUEST);
    };
    let mut head = Head {
        method,
        path,
        query,
        http10: version == 0,
        keep_alive: version == 1,
        ..Head::default()
    };
    let (mut accept, mut proto, mut since, mut agent) = (false, false, false, false);
    for h in req.headers.iter() {
        let name = h.name.as_bytes();
        let is = |n: &str| name.len() == n.len() && name.eq_ignore_ascii_case(n.as_bytes());
        match name.len() {
            6 if !accept && is("accept") => {
                accept = true;
                head.accept = visible(h.value);
            }
            10 if !agent && is("user-agent") => {
                agent = true;
                head.user_agent = Some(h.value);
            }
            10 if is("connection") => {
                for token in h.value.split(|&b| b == b',') {
                    let token = token.trim_ascii();
                    if token.eq_ignore_ascii_case(b"close") {
                        head.keep_alive = false;
                    } else if token.eq_ignore_ascii_case(b"keep-alive") && !head.http10 {
                        // (HTTP/1.1 is kept alive anyway)
                    } else if token.eq_ignore_ascii_case(b"keep-alive") {
                        head.keep_alive = true;
                    }
                }
            }
            14 if is("content-length") => {
                head.has_body |= h.value.trim_ascii() != b"0";
            }
            // (what nginx sends first)
            17 if !proto && is("x-forwarded-proto") => {
                proto = true;
                head.forwarded_proto = visible(h.value);
            }
            17 if !since && is("if-modified-since") => {
                since = true;
                head.if_modified_since = visible(h.value);
            }
            17 if is("transfer-encoding") => head.has_body = true,
            _ => {}
        }
    }
    // `Connection: close` wins over an HTTP/1.0 `keep-alive` given before it.
    if head.keep_alive && head.http10 {
        let close = req.headers.iter().any(|h| {
            h.name.eq_ignore_ascii_case("connection")
                && h.value
                    .split(|&b| b == b',')
                    .any(|t| t.trim_ascii().eq_ignore_ascii_case(b"close"))
        });
        head.keep_alive = !close;
    }
    Parsed::Head(head, len)
}

/// A header value as text: visible ASCII, spaces and TABs only; anything else is as if
/// the header were absent.
fn visible(v: &[u8]) -> Option<&str> {
    // A fold without an early exit: the compiler checks many bytes at a time.
    if v.iter().fold(true, |ok, &b| {
        ok & (b == b'\t' || (0x20..0x7f).contains(&b))
    }) {
        std::str::from_utf8(v).ok()
    } else {
        None
    }
}

/// The request-target split into path and query, with the characters accepted: in the
/// path, visible ASCII but `<`, `>` and `` ` ``; in the
/// query, visible ASCII but `"`, `<` and `>`; in both, UTF-8 beyond ASCII. A fragment
/// (`#…`) is dropped. An absolute-form target (`http://host/path`) is its path and
/// query. `*` is a path of its own (which no route takes). `None`: not a target
/// (`400`).
fn split_target(target: &str) -> Option<(&str, Option<&str>)> {
    let mut t = target;
    if t.len() > 7 && t.as_bytes()[..7].eq_ignore_ascii_case(b"http://")
        || t.len() > 8 && t.as_bytes()[..8].eq_ignore_ascii_case(b"https://")
    {
        let rest = &t[t.find("//").map_or(0, |i| i + 2)..];
        let at = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if at == 0 {
            return None;
        }
        t = &rest[at..];
        if !t.starts_with('/') {
            // `http://host` or `http://host?q`: the path is `/`
            return split_target_path(t).map(|(_, q)| ("/", q));
        }
    }
    if t == "*" {
        return Some((t, None));
    }
    if !t.starts_with('/') {
        return None;
    }
    split_target_path(t)
}

fn split_target_path(t: &str) -> Option<(&str, Option<&str>)> {
    // httparse let through only visible ASCII and UTF-8 beyond it; what the `http`
    // crate refused besides is looked up in one table, in one pass.
    let b = t.as_bytes();
    // Most targets have none of these bytes: a fold without an early exit checks many
    // bytes at a time.
    let special = |c: u8| matches!(c, b'?' | b'#' | b'<' | b'>' | b'`' | b'"');
    if !b.iter().fold(false, |any, &c| any | special(c)) {
        return Some((t, None));
    }
    let mut i = 0;
    while i < b.len() {
        match TARGET[b[i] as usize] {
            OK | NOT_IN_QUERY => i += 1,
            NOT_IN_PATH | NOT_IN_EITHER => return None,
            _ => break, // `?` or `#`
        }
    }
    let path = &t[..i];
    let mut query = None;
    if i < b.len() && b[i] == b'?' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i] != b'#' {
            if TARGET[b[i] as usize] & NOT_IN_QUERY != 0 {
                return None;
            }
            i += 1;
        }
        query = Some(&t[start..i]);
    }
    // A fragment: accepted as the query is, then dropped.
    if b[i..]
        .iter()
        .any(|&c| TARGET[c as usize] & NOT_IN_QUERY != 0)
    {
        return None;
    }
    Some((path, query))
}

/// Byte classes of a request-target ([`TARGET`]).
const OK: u8 = 0;
const NOT_IN_PATH: u8 = 1;
const NOT_IN_QUERY: u8 = 2;
const NOT_IN_EITHER: u8 = 3;
const QUERY_OR_FRAGMENT: u8 = 4;

/// The class of each byte: `<` and `>` in neither path nor query, `` ` `` not in a
/// path, `"` not in a query; `?` and `#` end the path.
static TARGET: [u8; 256] = {
    let mut t = [OK; 256];
    t[b'<' as usize] = NOT_IN_EITHER;
    t[b'>' as usize] = NOT_IN_EITHER;
    t[b'`' as usize] = NOT_IN_PATH;
    t[b'"' as usize] = NOT_IN_QUERY;
    t[b'?' as usize] = QUERY_OR_FRAGMENT;
    t[b'#' as usize] = QUERY_OR_FRAGMENT;
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    fn head(raw: &[u8]) -> Head<'_> {
        match parse(raw) {
            Parsed::Head(h, len) => {
                assert_eq!(len, raw.len());
                h
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_nginx_sends() {
        let h = head(
            b"GET /redirect/ark:/99999/fk4?a=%26 HTTP/1.1\r\nHost: noidr\r\n\
              X-Forwarded-Proto: https\r\nX-Forwarded-For: 127.0.0.1\r\nACCEPT: text/html\r\n\r\n",
        );
        assert_eq!(
            h,
            Head {
                method: "GET",
                path: "/redirect/ark:/99999/fk4",
                query: Some("a=%26"),
                accept: Some("text/html"),
                forwarded_proto: Some("https"),
                keep_alive: true,
                ..Head::default()
            }
        );
        assert_eq!(head(b"GET /x? HTTP/1.1\r\n\r\n").query, Some(""));
        assert_eq!(head(b"GET /x?? HTTP/1.1\r\n\r\n").query, Some("?"));
        assert_eq!(head(b"GET /x#f HTTP/1.1\r\n\r\n").path, "/x");
        assert_eq!(
            head(b"GET /%E2%82%AC/\xe2\x82\xac HTTP/1.1\r\n\r\n").path,
            "/%E2%82%AC/€"
        );
        let h = head(b"GET http://h:1/a/b?c HTTP/1.1\r\n\r\n");
        assert_eq!((h.path, h.query), ("/a/b", Some("c")));
        assert_eq!(head(b"GET http://h HTTP/1.1\r\n\r\n").path, "/");
        assert_eq!(head(b"OPTIONS * HTTP/1.1\r\n\r\n").path, "*");
    }

    #[test]
    fn connections_and_bodies() {
        assert!(!head(b"GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keep_alive);
        assert!(!head(b"GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n").keep_alive);
        let h = head(b"GET / HTTP/1.0\r\n\r\n");
        assert!(h.http10 && !h.keep_alive);
        assert!(head(b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keep_alive);
        assert!(
            !head(b"GET / HTTP/1.0\r\nConnection: close\r\nConnection: keep-alive\r\n\r\n")
                .keep_alive
        );
        assert!(!head(b"GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n").has_body);
        assert!(head(b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\n").has_body);
        assert!(head(b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").has_body);
        // only visible ASCII is a value
        assert_eq!(head(b"GET / HTTP/1.1\r\nAccept: \xff\r\n\r\n").accept, None);
        let h = head(b"GET / HTTP/1.1\r\nIf-Modified-Since: Tue, 14 Nov 2023 22:13:20 GMT\r\n\r\n");
        assert_eq!(h.if_modified_since, Some("Tue, 14 Nov 2023 22:13:20 GMT"));
    }

    #[test]
    fn partial_and_refused() {
        assert_eq!(parse(b"GET /x HTTP/1.1\r\nHost: x\r\n"), Parsed::Partial);
        assert_eq!(parse(b""), Parsed::Partial);
        let bad = Parsed::Refused(status::BAD_REQUEST);
        for raw in [
            &b"GET /a\0 HTTP/1.1\r\n\r\n"[..],
            b"GET /\xff\xfe HTTP/1.1\r\n\r\n",
            b"GET /a b c HTTP/1.1\r\n\r\n",
            b"\0\0\0\0\r\n\r\n",
            b"GET\r\n\r\n",
            b"GET /a<b HTTP/1.1\r\n\r\n",
            b"GET /a?b\"c HTTP/1.1\r\n\r\n",
            b"GET a HTTP/1.1\r\n\r\n",
            b"GET http:/// HTTP/1.1\r\n\r\n",
        ] {
            assert_eq!(parse(raw), bad, "{raw:?}");
        }
        let many: String = (0..=MAX_HEADERS)
            .map(|i| format!("X-H{i}: v\r\n"))
            .collect();
        let raw = format!("GET / HTTP/1.1\r\n{many}\r\n");
        assert_eq!(
            parse(raw.as_bytes()),
            Parsed::Refused(status::HEADERS_TOO_LARGE)
        );
        let just: String = (0..MAX_HEADERS).map(|i| format!("X-H{i}: v\r\n")).collect();
        let raw = format!("GET / HTTP/1.1\r\n{just}\r\n");
        assert!(matches!(parse(raw.as_bytes()), Parsed::Head(..)));
    }
}
