//! From an HTTP request to an HTTP response: limits, routing, rendering answers.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{
    HeaderName, HeaderValue, ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, LAST_MODIFIED, LINK,
    LOCATION, TRANSFER_ENCODING, VARY,
};
use hyper::{Method, Response, StatusCode};

use crate::deadline::{Outcome, Watch};
use crate::page::{self, Format};
use crate::route::{self, Route};
use crate::{modified, tombstone, wellknown};
use crate::{Answer, Backend, Config, Request};

pub(crate) type Resp = Response<Full<Bytes>>;

const TEXT: &str = "text/plain; charset=utf-8";

/// The Prometheus text exposition format's media type.
const METRICS: &str = "text/plain; version=0.0.4; charset=utf-8";

fn text(status: StatusCode, body: impl Into<Bytes>) -> Resp {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(TEXT));
    r
}

pub(crate) fn empty(status: StatusCode) -> Resp {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = status;
    r
}

/// Header names made once, not parsed from a string at every request.
const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
const X_TARGET: HeaderName = HeaderName::from_static("x-target");
const X_STATUS: HeaderName = HeaderName::from_static("x-status");

/// A header value from resolver output, taking over its buffer (no copy): CR/LF
/// (never valid in a header) and other controls but TAB are dropped, as N2T drops
/// embedded newlines from answers.
fn header_value(s: String) -> HeaderValue {
    let allowed = |b: u8| b == b'\t' || (b >= 0x20 && b != 0x7f);
    let mut bytes = s.into_bytes();
    if !bytes.iter().all(|&b| allowed(b)) {
        bytes.retain(|&b| allowed(b));
    }
    HeaderValue::from_maybe_shared(Bytes::from(bytes))
        .unwrap_or_else(|_| HeaderValue::from_static(""))
}

fn status_header(code: u16) -> HeaderValue {
    HeaderValue::from(code)
}

/// A connection's lookups under [`Config::lookup_deadline`]: the server's watch, its
/// number, and the connection's socket.
pub(crate) type Deadline<'a> = Option<(&'a Watch, usize, std::os::fd::RawFd)>;

/// `503`: the store did not answer within the deadline, or another lookup is stalled.
fn unavailable(watch: &Watch) -> Resp {
    let mut r = text(StatusCode::SERVICE_UNAVAILABLE, watch.message());
    r.headers_mut()
        .insert("retry-after", HeaderValue::from_static("1"));
    r
}

pub(crate) fn handle<B>(
    backend: &dyn Backend,
    cfg: &Config,
    req: &hyper::Request<B>,
    deadline: Deadline<'_>,
) -> Resp {
    let uri = req.uri();
    let path = uri.path();
    let query = uri.query();
    let target_len = path.len() + query.map_or(0, |q| q.len() + 1);
    if target_len > cfg.max_uri_len {
        let mut r = text(StatusCode::URI_TOO_LONG, "request-target too long\n");
        r.headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
        return r;
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        r.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let h = req.headers();
    let has_body = h.contains_key(TRANSFER_ENCODING)
        || h.get(CONTENT_LENGTH).is_some_and(|v| v.as_bytes() != b"0");
    if has_body {
        // Never read it: close the connection instead of draining an unknown body.
        let mut r = text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "no request body is accepted\n",
        );
        r.headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
        return r;
    }
    let Some((route, enc_id)) = route::split(path) else {
        return text(StatusCode::BAD_REQUEST, "bad request-target\n");
    };
    match route {
        Route::Health => {
            if let Some((watch, ..)) = deadline.filter(|(w, ..)| w.stalled()) {
                return text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("unhealthy: {}", watch.message()),
                );
            }
            return match backend.health() {
                Ok(()) => text(StatusCode::OK, "ok\n"),
                Err(e) => text(StatusCode::SERVICE_UNAVAILABLE, format!("unhealthy: {e}\n")),
            };
        }
        Route::Metrics => {
            return match backend.metrics() {
                Some(body) => {
                    let mut r = text(StatusCode::OK, body);
                    r.headers_mut()
                        .insert(CONTENT_TYPE, HeaderValue::from_static(METRICS));
                    r
                }
                None => text(StatusCode::NOT_FOUND, "no metrics\n"),
            }
        }
        _ => {}
    }
    let accept = h.get(hyper::header::ACCEPT).and_then(|v| v.to_str().ok());
    if route == Route::WellKnown {
        return match backend.ark_service() {
            Ok(service) => {
                let fmt = Format::from_accept(accept);
                let mut r = text(StatusCode::OK, wellknown::page(fmt, &service));
                r.headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static(fmt.content_type()));
                r.headers_mut()
                    .insert(VARY, HeaderValue::from_static("Accept"));
                r
            }
            Err(e) => {
                log::error!("/.well-known/ark: {e}");
                text(StatusCode::INTERNAL_SERVER_ERROR, "resolver error\n")
            }
        };
    }
    let proto = h.get(&X_FORWARDED_PROTO).and_then(|v| v.to_str().ok());
    let answer = match route::identifier(enc_id, query) {
        Some(id) if !id.is_empty() => {
            let rq = Request {
                id: &id,
                accept,
                proto,
            };
            let resolved = match deadline {
                None => backend.resolve(&rq),
                Some((watch, n, fd)) => {
                    let head = req.method() == Method::HEAD;
                    match watch.run(n, fd, head, || backend.resolve(&rq)) {
                        Outcome::Answered(r) => r,
                        Outcome::Stalled => return unavailable(watch),
                    }
                }
            };
            match resolved {
                Ok(a) => a,
                Err(e) => {
                    log::error!("resolving {id:?}: {e}");
                    return text(StatusCode::INTERNAL_SERVER_ERROR, "resolver error\n");
                }
            }
        }
        _ => Answer::NotFound,
    };
    let modified = modified::of(backend, &answer);
    let mut reply = decide(answer, accept);
    if let Reply::Page { modified: m, .. } = &mut reply {
        *m = modified;
    }
    if modified::not_modified(route, &reply, h) {
        return modified::unchanged(&reply);
    }
    render(route, reply)
}

/// An answer reduced to what HTTP can say.
pub(crate) enum Reply {
    Redirect {
        code: u16,
        target: String,
    },
    Page {
        status: StatusCode,
        ctype: &'static str,
        body: String,
        /// The identifier's last write (seconds since the epoch): `Last-Modified`.
        modified: Option<i64>,
        /// A `Link` header (a tombstone's successor).
        link: Option<String>,
    },
    NotFound,
}

/// The reply for an answer; only a page reads `Accept` (for its format).
fn decide(answer: Answer, accept: Option<&str>) -> Reply {
    let page = |status, fmt: Format, body| Reply::Page {
        status,
        ctype: fmt.content_type(),
        body,
        modified: None,
        link: None,
    };
    let fmt = || Format::from_accept(accept);
    match answer {
        Answer::Redirect { code, target } => Reply::Redirect { code, target },
        Answer::NotFound => Reply::NotFound,
        Answer::Inflection {
            id,
            suffix,
            bindings,
        } => {
            let (fmt, full) = (Format::for_inflection(accept), page::is_full(&suffix));
            let body = page::identifier(fmt, &id, Some(&suffix), &bindings, full);
            page(StatusCode::OK, fmt, body)
        }
        Answer::Negotiate {
            id,
            media_type,
            bindings,
        } => {
            let fmt = if media_type.eq_ignore_ascii_case("application/json") {
                Format::Json
            } else {
                Format::Anvl
            };
            let ctype = if fmt == Format::Json {
                "application/json"
            } else if media_type.eq_ignore_ascii_case("text/x-anvl") {
                "text/x-anvl; charset=utf-8"
            } else {
                "text/plain; charset=utf-8"
            };
            Reply::Page {
                status: StatusCode::OK,
                ctype,
                body: page::identifier(fmt, &id, None, &bindings, true),
                modified: None,
                link: None,
            }
        }
        Answer::Tombstone {
            id,
            text,
            successor,
            bindings,
        } => {
            let fmt = Format::for_inflection(accept);
            Reply::Page {
                status: StatusCode::GONE,
                ctype: fmt.content_type(),
                body: tombstone::page(fmt, &id, &text, successor.as_deref(), &bindings),
                modified: None,
                link: successor.as_deref().and_then(tombstone::link),
            }
        }
        Answer::Multi { id, targets } => {
            let fmt = fmt();
            page(
                StatusCode::MULTIPLE_CHOICES,
                fmt,
                page::multi(fmt, &id, &targets),
            )
        }
        Answer::Record {
            key,
            records,
            bindings,
        } => {
            let fmt = Format::for_inflection(accept);
            let body = crate::record::records(fmt, &key, &records, &bindings);
            page(StatusCode::OK, fmt, body)
        }
        Answer::Providers {
            id,
            prefix,
            targets,
        } => {
            let fmt = Format::for_inflection(accept);
            let body = crate::record::providers(fmt, &id, &prefix, &targets);
            page(StatusCode::OK, fmt, body)
        }
        Answer::Partial { bindings, .. } if bindings.is_empty() => Reply::NotFound,
        Answer::Partial { key, bindings } => {
            let fmt = fmt();
            let body = page::metadata(fmt, "partial", &key, None, &bindings, true);
            page(StatusCode::OK, fmt, body)
        }
    }
}

/// What an answer becomes on each route.
fn render(route: Route, reply: Reply) -> Resp {
    match reply {
        Reply::Redirect { code, target } => redirect(route, code, target),
        Reply::NotFound => match route {
            Route::Auth => empty(StatusCode::FORBIDDEN),
            _ => text(StatusCode::NOT_FOUND, "unknown identifier\n"),
        },
        Reply::Page {
            status,
            ctype,
            body,
            modified,
            link,
        } => {
            let mut r = match route {
                // auth_request cannot carry a body: 401 sends nginx to /redirect/
                Route::Auth => empty(StatusCode::UNAUTHORIZED),
                Route::Lookup => text(StatusCode::OK, body),
                _ => text(status, body),
            };
            if route != Route::Auth {
                r.headers_mut()
                    .insert(CONTENT_TYPE, HeaderValue::from_static(ctype));
            }
            if route != Route::Direct && route != Route::Redirect {
                r.headers_mut()
                    .insert(X_STATUS, status_header(status.as_u16()));
            }
            // the same URL gives JSON or ANVL depending on Accept
            r.headers_mut()
                .insert(VARY, HeaderValue::from_static("Accept"));
            if let Some(t) = modified {
                r.headers_mut()
                    .insert(LAST_MODIFIED, modified::http_date(t));
            }
            if let Some(link) = link {
                r.headers_mut().insert(LINK, header_value(link));
            }
            r
        }
    }
}
fn redirect(route: Route, code: u16, target: String) -> Resp {
    let is_redirect = (300..400).contains(&code);
    match route {
        Route::Auth => {
            // auth_request passes 2xx, 401 and 403 only; 401 tells the nginx config to
            // fetch the full answer from /redirect/.
            let mut r = empty(if is_redirect {
                StatusCode::NO_CONTENT
            } else {
                StatusCode::UNAUTHORIZED
            });
            r.headers_mut().insert(X_TARGET, header_value(target));
            r.headers_mut().insert(X_STATUS, status_header(code));
            r
        }
        Route::Lookup => {
            let mut r = text(StatusCode::OK, target);
            r.headers_mut().insert(X_STATUS, status_header(code));
            r
        }
        _ => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::FOUND);
            if is_redirect {
                let mut r = empty(status);
                r.headers_mut().insert(LOCATION, header_value(target));
                r
            } else {
                text(status, format!("{target}\n"))
            }
        }
    }
}
