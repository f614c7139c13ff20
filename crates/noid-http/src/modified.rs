//! `Last-Modified` on an identifier's metadata pages and tombstone, from the time of the
//! last write to its bindings ([`crate::Backend::last_modified`]), and `304 Not
//! Modified` for a conditional `GET` of such a page that has not changed since
//! `If-Modified-Since` (second precision, as HTTP dates go).
//!
//! Redirects carry no `Last-Modified`: a 302 is not cached unless told to, and reading
//! the time would cost every hit a second lookup. Only the routes that serve the whole
//! page answer 304: `auth_request` accepts nothing but 2xx, 401 and 403, and njs reads
//! `/lookup/`'s body.

use std::time::UNIX_EPOCH;

use crate::decision::Decision;
use crate::response::{http_date, status, Name, Response, Value};
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

/// Whether `decision` (a 200 page on a route that serves whole pages) has not changed
/// since the request's `If-Modified-Since` (its value, if sent).
pub(crate) fn not_modified(
    route: Route,
    decision: &Decision,
    if_modified_since: Option<&str>,
) -> bool {
    if !matches!(route, Route::Direct | Route::Redirect) {
        return false;
    }
    let Decision::Page {
        status: status::OK,
        modified: Some(t),
        ..
    } = decision
    else {
        return false;
    };
    let since = if_modified_since.and_then(|v| httpdate::parse_http_date(v).ok());
    match since.and_then(|s| s.duration_since(UNIX_EPOCH).ok()) {
        Some(since) => *t >= 0 && since.as_secs() >= *t as u64,
        None => false,
    }
}

/// The 304 for a page that has not changed.
pub(crate) fn unchanged(decision: &Decision) -> Response {
    let mut r = Response::empty(status::NOT_MODIFIED);
    if let Decision::Page {
        modified: Some(t), ..
    } = decision
    {
        r.set(Name::LastModified, Value::Text(http_date(*t)));
    }
    r.set(Name::Vary, Value::Static("Accept"));
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
        let page = |status, modified| Decision::Page {
            status,
            ctype: "text/plain",
            body: String::new(),
            modified,
            link: None,
        };
        let h = Some("Tue, 14 Nov 2023 22:13:20 GMT");
        let ok = status::OK;
        assert!(not_modified(
            Route::Direct,
            &page(ok, Some(1_700_000_000)),
            h
        ));
        assert!(not_modified(
            Route::Redirect,
            &page(ok, Some(1_699_999_999)),
            h
        ));
        assert!(!not_modified(
            Route::Direct,
            &page(ok, Some(1_700_000_001)),
            h
        ));
        assert!(!not_modified(Route::Direct, &page(ok, None), h));
        assert!(!not_modified(Route::Auth, &page(ok, Some(1)), h));
        assert!(!not_modified(Route::Lookup, &page(ok, Some(1)), h));
        assert!(!not_modified(
            Route::Direct,
            &page(status::GONE, Some(1)),
            h
        ));
        assert!(!not_modified(Route::Direct, &page(ok, Some(1)), None));
        assert!(!not_modified(
            Route::Direct,
            &page(ok, Some(1)),
            Some("yesterday")
        ));
    }
}
