//! `Last-Modified` on an identifier's metadata pages and tombstone, from the time of the
//! last write to its bindings ([`crate::Backend::last_modified`]), and `304 Not
//! Modified` for a conditional `GET` of such a page that has not changed since
//! `If-Modified-Since` (second precision, as HTTP dates go).
//!
//! Redirects carry no `Last-Modified`: a 302 is not cached unless told to, and reading
//! the time would cost every hit a second lookup. Only the routes that serve the whole
//! page answer 304: `auth_request` accepts nothing but 2xx, 401 and 403, and njs reads
//! `/lookup/`'s body.

use std::time::{Duration, UNIX_EPOCH};

use hyper::header::{HeaderMap, HeaderValue, IF_MODIFIED_SINCE, LAST_MODIFIED, VARY};
use hyper::StatusCode;

use crate::respond::{empty, Reply, Resp};
use crate::route::Route;
use crate::{Answer, Backend};

/// The last write of the identifier an answer shows a page for, if known. A store
/// error loses only the header, never the page.
pub(crate) fn of(backend: &dyn Backend, answer: &Answer) -> Option<i64> {
    let id = match answer {
        Answer::Inflection { id, .. }
        | Answer::Negotiate { id, .. }
        | Answer::Tombstone { id, .. } => id,
        _ => return None,
    };
    backend.last_modified(id).unwrap_or_else(|e| {
        log::warn!("last write of {id:?}: {e}");
        None
    })
}

/// Seconds since the epoch as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub(crate) fn http_date(t: i64) -> HeaderValue {
    let when = UNIX_EPOCH + Duration::from_secs(t.max(0) as u64);
    HeaderValue::from_str(&httpdate::fmt_http_date(when)).expect("an HTTP date is ASCII")
}

/// Whether `reply` (a 200 page on a route that serves whole pages) has not changed
/// since the request's `If-Modified-Since`.
pub(crate) fn not_modified(route: Route, reply: &Reply, h: &HeaderMap) -> bool {
    if !matches!(route, Route::Direct | Route::Redirect) {
        return false;
    }
    let Reply::Page {
        status: StatusCode::OK,
        modified: Some(t),
        ..
    } = reply
    else {
        return false;
    };
    let since = h
        .get(IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok());
    match since.and_then(|s| s.duration_since(UNIX_EPOCH).ok()) {
        Some(since) => *t >= 0 && since.as_secs() >= *t as u64,
        None => false,
    }
}

/// The 304 for a page that has not changed.
pub(crate) fn unchanged(reply: &Reply) -> Resp {
    let mut r = empty(StatusCode::NOT_MODIFIED);
    if let Reply::Page {
        modified: Some(t), ..
    } = reply
    {
        r.headers_mut().insert(LAST_MODIFIED, http_date(*t));
    }
    r.headers_mut()
        .insert(VARY, HeaderValue::from_static("Accept"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(http_date(1_700_000_000), "Tue, 14 Nov 2023 22:13:20 GMT");
    }

    #[test]
    fn conditional_requests() {
        let page = |status, modified| Reply::Page {
            status,
            ctype: "text/plain",
            body: String::new(),
            modified,
            link: None,
        };
        let mut h = HeaderMap::new();
        h.insert(
            IF_MODIFIED_SINCE,
            HeaderValue::from_static("Tue, 14 Nov 2023 22:13:20 GMT"),
        );
        let ok = StatusCode::OK;
        assert!(not_modified(
            Route::Direct,
            &page(ok, Some(1_700_000_000)),
            &h
        ));
        assert!(not_modified(
            Route::Redirect,
            &page(ok, Some(1_699_999_999)),
            &h
        ));
        assert!(!not_modified(
            Route::Direct,
            &page(ok, Some(1_700_000_001)),
            &h
        ));
        assert!(!not_modified(Route::Direct, &page(ok, None), &h));
        assert!(!not_modified(Route::Auth, &page(ok, Some(1)), &h));
        assert!(!not_modified(Route::Lookup, &page(ok, Some(1)), &h));
        assert!(!not_modified(
            Route::Direct,
            &page(StatusCode::GONE, Some(1)),
            &h
        ));
        assert!(!not_modified(
            Route::Direct,
            &page(ok, Some(1)),
            &HeaderMap::new()
        ));
        h.insert(IF_MODIFIED_SINCE, HeaderValue::from_static("yesterday"));
        assert!(!not_modified(Route::Direct, &page(ok, Some(1)), &h));
    }
}
