//! From a request head to a response, whatever carries them: limits, routing,
//! rendering answers. Every route, page, negotiation, 304/410, metrics, health and
//! well-known behaviour is decided here, once.

use crate::deadline::{self, Slot, Watch, Watched};
use crate::decision::Decision;
use crate::page::{self, PageFormat};
use crate::request::Head;
use crate::response::{status, Name, Response, Value};
use crate::route::{self, Route};
use crate::{front, layout, metadata_html, missing, modified, tombstone, wellknown};
use crate::{Answer, Backend, Config, Request};
use noid_counts::Kind;

/// `/healthz` while the store cannot be read: the reason (which names the store's
/// directory) goes to the log only.
const UNHEALTHY: &str = "unhealthy: the store cannot be read; the server's log says why\n";

/// The Prometheus text exposition format's media type.
const METRICS: &str = "text/plain; version=0.0.4; charset=utf-8";

fn text(code: u16, body: impl Into<crate::response::Body>) -> Response {
    Response::text(code, body)
}

fn empty(code: u16) -> Response {
    Response::empty(code)
}

/// A request's lookup under [`Config::lookup_deadline`]: the server's watch, the
/// thread's slot in it, the connection's socket, and whether the watchdog may write its
/// `503` there (not while earlier responses of the connection are still unsent).
#[derive(Clone, Copy)]
pub(crate) struct Deadline<'a> {
    pub(crate) watch: &'a Watch,
    pub(crate) slot: &'a Slot,
    pub(crate) fd: std::os::fd::RawFd,
    pub(crate) may_write: bool,
}

/// `503`: the store did not answer within the deadline, or another lookup is stalled.
fn unavailable(watch: &Watch) -> Response {
    let mut r = text(
        status::SERVICE_UNAVAILABLE,
        deadline::message(watch.deadline()),
    );
    r.set(Name::RetryAfter, Value::Static("1"));
    r
}

/// The response to `req`. A response that ends the connection has `close` set.
pub(crate) fn handle(
    backend: &dyn Backend,
    cfg: &Config,
    req: &Head<'_>,
    deadline: Option<Deadline<'_>>,
) -> Response {
    if let Some(refused) = refuse(cfg, req) {
        return refused;
    }
    let Some((route, enc_id)) = route::split(req.path) else {
        return text(status::BAD_REQUEST, "bad request-target\n");
    };
    if let Some(r) = service(backend, route, req, deadline) {
        return r;
    }
    let id = route::identifier(enc_id, req.query).unwrap_or_default();
    // The identifier as sent, when it was resolved so (else as decoded, `id`).
    let mut as_sent = None;
    let answer = if id.is_empty() {
        Answer::NotFound
    } else {
        let rq = Request {
            id: &id,
            accept: req.accept,
            proto: req.forwarded_proto,
        };
        match lookup(backend, &rq, req.method == "HEAD", deadline) {
            // An ARK whose name holds `%7E` or `%2F`, at its own URL (not decoded).
            Ok(Answer::NotFound) => match route::as_sent(enc_id, req.query) {
                Some(sent) => match lookup(
                    backend,
                    &Request { id: &sent, ..rq },
                    req.method == "HEAD",
                    deadline,
                ) {
                    Ok(answer) => {
                        as_sent = Some(sent);
                        answer
                    }
                    Err(r) => return *r,
                },
                None => Answer::NotFound,
            },
            Ok(answer) => answer,
            Err(r) => return *r,
        }
    };
    let signposts = signposts(backend, &answer, as_sent.as_deref().unwrap_or(&id), req);
    count(backend, route, &id, &answer, req.user_agent);
    let modified = modified::of(backend, &answer);
    let providers = alternates(backend, &answer, req, deadline);
    let facts = metadata_html::Facts {
        modified,
        providers: &providers,
    };
    let mut decision = decide(answer, req.accept, facts);
    if let Decision::Page { modified: m, .. } = &mut decision {
        *m = modified;
    }
    if let Some(signposts) = signposts {
        match &mut decision {
            Decision::Redirect { link, .. } | Decision::Page { link, .. } if link.is_none() => {
                *link = Some(signposts.link_header());
            }
            _ => {}
        }
    }
    if modified::not_modified(route, &decision, req.if_modified_since) {
        return modified::unchanged(&decision);
    }
    render(route, decision, &id, req.accept)
}

/// Counts `answer` to a request for `id` ([`Backend::count`]). On `/auth/` (nginx
/// `auth_request`) an answer that is a page is not counted: nginx asks `/redirect/`
/// for it next, and that request is counted.
fn count(backend: &dyn Backend, route: Route, id: &str, answer: &Answer, ua: Option<&[u8]>) {
    let kind = match answer {
        Answer::Redirect { code, .. } => Kind::Redirect(*code),
        Answer::NotFound => Kind::Miss,
        Answer::Partial { bindings, .. } if bindings.is_empty() => Kind::Miss,
        _ if route == Route::Auth => return,
        Answer::Inflection { .. } => Kind::Inflection,
        _ => Kind::Page,
    };
    backend.count(id, kind, ua);
}

/// The response to a request refused whatever it asks for: a request-target too long,
/// a method other than GET and HEAD, a body.
fn refuse(cfg: &Config, req: &Head<'_>) -> Option<Response> {
    let target_len = req.path.len() + req.query.map_or(0, |q| q.len() + 1);
    if target_len > cfg.max_uri_len {
        let mut r = text(status::URI_TOO_LONG, "request-target too long\n");
        r.close = true;
        return Some(r);
    }
    if req.method != "GET" && req.method != "HEAD" {
        let mut r = text(status::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        r.set(Name::Allow, Value::Static("GET, HEAD"));
        return Some(r);
    }
    if req.has_body {
        // Never read it: close the connection instead of draining an unknown body.
        let mut r = text(status::PAYLOAD_TOO_LARGE, "no request body is accepted\n");
        r.close = true;
        return Some(r);
    }
    None
}

/// The response of a route about the server rather than an identifier (health,
/// metrics, `/.well-known/ark`); `None` for the identifier routes.
fn service(
    backend: &dyn Backend,
    route: Route,
    req: &Head<'_>,
    deadline: Option<Deadline<'_>>,
) -> Option<Response> {
    let accept = req.accept;
    Some(match route {
        Route::Health => {
            if let Some(d) = deadline.filter(|d| d.watch.stalled()) {
                return Some(text(
                    status::SERVICE_UNAVAILABLE,
                    format!("unhealthy: {}", deadline::message(d.watch.deadline())),
                ));
            }
            match backend.health() {
                Ok(()) => text(status::OK, "ok\n"),
                Err(e) => {
                    // The reason names the store's directory: logged, never answered.
                    log::warn!("{}: unhealthy: {e}", req.path);
                    text(status::SERVICE_UNAVAILABLE, UNHEALTHY)
                }
            }
        }
        Route::Metrics => match backend.metrics() {
            Some(body) => {
                let mut r = text(status::OK, body);
                r.set(Name::ContentType, Value::Static(METRICS));
                r
            }
            None => text(status::NOT_FOUND, "no metrics\n"),
        },
        Route::Style => {
            let mut r = text(status::OK, layout::STYLE);
            r.set(Name::ContentType, Value::Static(layout::STYLE_TYPE));
            r
        }
        Route::Front if req.query.and_then(front::target).is_some() => {
            let mut r = empty(status::SEE_OTHER);
            let to = req.query.and_then(front::target).unwrap_or_default();
            r.set(Name::Location, Value::Text(to));
            r
        }
        Route::WellKnown => {
            let mut r = text(status::OK, wellknown::discovery());
            r.set(
                Name::ContentType,
                Value::Static("text/plain; charset=utf-8"),
            );
            r
        }
        Route::ArkService | Route::Front => match backend.ark_service() {
            Ok(service) => {
                let fmt = match route {
                    Route::Front => PageFormat::for_inflection(accept),
                    _ => PageFormat::from_accept(accept),
                };
                let body = match route {
                    Route::Front => front::page(fmt, &service),
                    _ => wellknown::page(fmt, &service),
                };
                let mut r = text(status::OK, body);
                r.set(Name::ContentType, Value::Static(fmt.content_type()));
                r.set(Name::Vary, Value::Static("Accept"));
                r
            }
            Err(e) => {
                log::error!("{}: {e}", req.path);
                text(status::INTERNAL_SERVER_ERROR, "resolver error\n")
            }
        },
        _ => return None,
    })
}

/// The backend's answer to `rq` (a HEAD request if `head`), under the deadline if
/// there is one; `Err` is the response in its place (503, or 500 for a resolver error),
/// boxed as the rare case.
fn lookup(
    backend: &dyn Backend,
    rq: &Request<'_>,
    head: bool,
    deadline: Option<Deadline<'_>>,
) -> Result<Answer, Box<Response>> {
    let resolved = match deadline {
        None => backend.resolve(rq),
        Some(d) => {
            let note = deadline::note(d.fd, head, d.may_write);
            match d.watch.run(d.slot, note, || backend.resolve(rq)) {
                Watched::Answered(r) => r,
                Watched::Stalled => {
                    backend.late();
                    return Err(Box::new(unavailable(d.watch)));
                }
                Watched::Claimed => {
                    // The watchdog answered and shut the socket down.
                    backend.late();
                    let mut r = unavailable(d.watch);
                    r.close = true;
                    return Err(Box::new(r));
                }
            }
        }
    };
    resolved.map_err(|e| {
        log::error!("resolving {:?}: {e}", rq.id);
        Box::new(text(status::INTERNAL_SERVER_ERROR, "resolver error\n"))
    })
}

/// The FAIR Signposting links of the identifier that answered (`signposting on` in the
/// rules file), for a redirect or a metadata page; asked of the backend only for those
/// answers. A failure to read them is logged and leaves the answer without them.
fn signposts(
    backend: &dyn Backend,
    answer: &Answer,
    id: &str,
    req: &Head<'_>,
) -> Option<noid_resolve::signpost::Signposts> {
    match answer {
        Answer::Redirect { code, .. } if (300..400).contains(code) => {}
        Answer::Inflection { .. } | Answer::Negotiate { .. } | Answer::Multi { .. } => {}
        _ => return None,
    }
    let rq = Request {
        id,
        accept: req.accept,
        proto: req.forwarded_proto,
    };
    backend.signposts(&rq).unwrap_or_else(|e| {
        log::warn!("signposts of {id:?}: {e}");
        None
    })
}

/// The providers of an identifier's prefix (its `*/ID` answer), shown on its HTML
/// metadata or withdrawn page; nothing for any other answer or format, so that no
/// other request makes a second lookup.
fn alternates(
    backend: &dyn Backend,
    answer: &Answer,
    req: &Head<'_>,
    deadline: Option<Deadline<'_>>,
) -> Vec<noid_resolve::ProviderTarget> {
    let id = match answer {
        Answer::Inflection { id, .. } | Answer::Tombstone { id, .. } => id,
        _ => return Vec::new(),
    };
    if PageFormat::for_inflection(req.accept) != PageFormat::Html {
        return Vec::new();
    }
    let star = format!("*/{id}");
    let rq = Request {
        id: &star,
        accept: None,
        proto: req.forwarded_proto,
    };
    match lookup(backend, &rq, req.method == "HEAD", deadline) {
        Ok(Answer::Providers { targets, .. }) => targets,
        _ => Vec::new(),
    }
}

/// The decision for an answer; only a page reads `Accept` (for its format). `facts` are
/// shown on HTML pages.
fn decide(answer: Answer, accept: Option<&str>, facts: metadata_html::Facts<'_>) -> Decision {
    let page = |status, fmt: PageFormat, body| Decision::Page {
        status,
        ctype: fmt.content_type(),
        body,
        modified: None,
        link: None,
    };
    let fmt = || PageFormat::from_accept(accept);
    match answer {
        Answer::Redirect { code, target } => Decision::Redirect {
            code,
            target,
            link: None,
        },
        Answer::NotFound => Decision::NotFound,
        Answer::Inflection {
            id,
            suffix,
            bindings,
        } => {
            let (fmt, full) = (PageFormat::for_inflection(accept), page::is_full(&suffix));
            let body = if fmt == PageFormat::Html {
                metadata_html::page(&id, &page::shown_of_id(&bindings, full), &bindings, facts)
            } else {
                page::identifier(fmt, &id, Some(&suffix), &bindings, full)
            };
            page(status::OK, fmt, body)
        }
        Answer::Negotiate {
            id,
            media_type,
            bindings,
            cite_as,
        } => crate::negotiated::decide(&id, &media_type, &bindings, &cite_as),
        Answer::Tombstone {
            id,
            text,
            successor,
            bindings,
        } => {
            let fmt = PageFormat::for_inflection(accept);
            Decision::Page {
                status: status::GONE,
                ctype: fmt.content_type(),
                body: tombstone::page(fmt, &id, &text, successor.as_deref(), &bindings, facts),
                modified: None,
                link: successor.as_deref().and_then(tombstone::link),
            }
        }
        Answer::Archived {
            id,
            original,
            url,
            datetime,
        } => {
            let fmt = PageFormat::for_inflection(accept);
            Decision::Page {
                status: status::OK,
                ctype: fmt.content_type(),
                body: crate::archived::page(fmt, &id, &original, &url, &datetime),
                modified: None,
                link: crate::archived::link(&original, &url, &datetime),
            }
        }
        Answer::Multi { id, targets } => {
            let fmt = PageFormat::for_inflection(accept);
            page(
                status::MULTIPLE_CHOICES,
                fmt,
                page::multi(fmt, &id, &targets),
            )
        }
        Answer::Record {
            key,
            records,
            bindings,
        } => {
            let fmt = PageFormat::for_inflection(accept);
            let body = crate::registry_page::records(fmt, &key, &records, &bindings);
            page(status::OK, fmt, body)
        }
        Answer::Providers {
            id,
            prefix,
            targets,
        } => {
            let fmt = PageFormat::for_inflection(accept);
            let body = crate::registry_page::providers(fmt, &id, &prefix, &targets);
            page(status::OK, fmt, body)
        }
        Answer::Partial { bindings, .. } if bindings.is_empty() => Decision::NotFound,
        Answer::Partial { key, bindings } => {
            let fmt = fmt();
            let body = page::metadata(fmt, "partial", &key, None, &bindings, true);
            page(status::OK, fmt, body)
        }
    }
}

/// What an answer becomes on each route; `id` and `accept` (which chooses between the
/// plain line and the page) are asked for a miss only.
fn render(route: Route, decision: Decision, id: &str, accept: Option<&str>) -> Response {
    match decision {
        Decision::Redirect { code, target, link } => {
            let mut r = redirect(route, code, target);
            if let Some(link) = link {
                r.set(Name::Link, Value::Text(link));
            }
            r
        }
        Decision::NotFound => not_found(route, id, accept),
        Decision::Page {
            status: code,
            ctype,
            body,
            modified,
            link,
        } => {
            let mut r = match route {
                // auth_request cannot carry a body: 401 sends nginx to /redirect/
                Route::Auth => empty(status::UNAUTHORIZED),
                Route::Lookup => text(status::OK, body),
                _ => text(code, body),
            };
            if route != Route::Auth {
                r.set(Name::ContentType, Value::Static(ctype));
            }
            if route != Route::Direct && route != Route::Redirect {
                r.set(Name::XStatus, Value::Code(code));
            }
            // the same URL gives JSON or ANVL depending on Accept
            r.set(Name::Vary, Value::Static("Accept"));
            if let Some(t) = modified {
                r.set(
                    Name::LastModified,
                    Value::Text(crate::response::http_date(t)),
                );
            }
            if let Some(link) = link {
                r.set(Name::Link, Value::Text(link));
            }
            r
        }
    }
}

/// A miss: `403` for `auth_request`, a plain `404` line for `/lookup/` (njs) and
/// for clients other than browsers, and for a browser on `/ID` and `/redirect/ID`
/// the not-found page ([`missing`]).
fn not_found(route: Route, id: &str, accept: Option<&str>) -> Response {
    match route {
        Route::Auth => empty(status::FORBIDDEN),
        Route::Lookup => text(status::NOT_FOUND, "unknown identifier\n"),
        _ => {
            let fmt = PageFormat::for_inflection(accept);
            let mut r = if fmt == PageFormat::Html {
                let mut r = text(status::NOT_FOUND, missing::page(id));
                r.set(Name::ContentType, Value::Static(fmt.content_type()));
                r
            } else {
                text(status::NOT_FOUND, "unknown identifier\n")
            };
            // the same URL gives the page or the line depending on Accept
            r.set(Name::Vary, Value::Static("Accept"));
            r
        }
    }
}

fn redirect(route: Route, code: u16, target: String) -> Response {
    let is_redirect = (300..400).contains(&code);
    match route {
        Route::Auth => {
            // auth_request passes 2xx, 401 and 403 only; 401 tells the nginx config to
            // fetch the full answer from /redirect/.
            let mut r = empty(if is_redirect {
                status::NO_CONTENT
            } else {
                status::UNAUTHORIZED
            });
            r.set(Name::XTarget, Value::Text(target));
            r.set(Name::XStatus, Value::Code(code));
            r
        }
        Route::Lookup => {
            let mut r = Response::target_text(status::OK, target);
            r.set(Name::XStatus, Value::Code(code));
            r
        }
        _ => {
            // A code HTTP cannot carry is a plain redirect.
            let code = if (100..=999).contains(&code) {
                code
            } else {
                status::FOUND
            };
            if is_redirect {
                let mut r = empty(code);
                r.set(Name::Location, Value::Text(target));
                r
            } else {
                text(code, format!("{target}\n"))
            }
        }
    }
}
