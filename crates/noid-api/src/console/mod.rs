//! The populator console at `/console/`: web pages for the people who keep a
//! populator's identifiers, served by `noid serve` beside the API, with the API's
//! logins, rights and write path.
//!
//! | path | does |
//! |---|---|
//! | `/console/login` | the login form (populator, login, password) |
//! | `/console/basic/POP` | logs in with HTTP Basic (or a trusted front server's login) |
//! | `/console/logout` | ends the session (POST) |
//! | `/console/p/POP/…` | the populator's pages ([`PAGES`]) |
//!
//! Every request passes the same checks, here and nowhere else, before any page's
//! handler runs: the session its cookie names (only the login form starts one for a
//! browser without one); for every POST, a session before any of the body is read,
//! a body within the session's limit ([`form::Limit`]), and the form's `csrf` field
//! equal to the session's token; for a populator's pages, a session logged in for that populator
//! (another populator's pages are refused with `403`) from an address its allow-list
//! admits. Logins are
//! checked as the API checks them ([`Service::verify`]), failed attempts counted and
//! limited alike. Pages act only through [`binder::Binder`], the API's write path.
//!
//! **Adding a page.** Write a handler `fn(Ctx) -> Handled` in its own module, add a
//! row to [`PAGES`] (path under `/console/p/POP/`, [`PageMethod::Get`] or [`PageMethod::Post`]),
//! and, for a page people go to, a row to [`html::NAV`]. The handler gets a [`Ctx`]: the
//! checked session and populator, the query, and for a POST the form already read
//! and its token already checked (forms are [`html::post_form`], which adds the
//! token). Answer with [`Ctx::page`] (the layout), [`see_other`] after a write, or
//! any [`Resp`] (a download).
//!
//! **Cookies.** `noid_console` names a logged-in session, `noid_console_login` the
//! login form's (so that a browser arriving from another site, which sends no cookie
//! under `SameSite=Strict`, never has its logged-in cookie replaced). Both are
//! `HttpOnly; SameSite=Strict`; when the browser's connection is TLS they are
//! `__Host-noid_console…`, `Secure` and `Path=/` (the prefix's rules: no other host and
//! no plain-HTTP page can set them), otherwise `Path=/console/`. `noid serve` speaks
//! plain HTTP, so TLS is when the trusted front server (`[front]`) says
//! `X-Forwarded-Proto: https`, or always with `[console] secure_cookies = true`.

pub mod binder;
mod changes;
pub mod ctx;
mod edit;
pub mod form;
pub mod html;
mod links;
mod login;
pub mod minted;
mod pages;
mod resolving;
mod retire;
mod search;
pub mod session;
pub mod state;
mod upload;
mod usage;
mod usage_chart;
mod writes;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use hyper::body::Incoming;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE, SET_COOKIE};
use hyper::{Method, Request, Response, StatusCode};

use crate::reply::Resp;
use crate::service::{Peer, Service};
use ctx::{refusal, see_other, text, Ctx, Handler, PageMethod, NEW_SESSION};
use form::Form;
use session::LoginSession;

/// A populator's pages: the path under `/console/p/POP/`, the method, the handler.
pub const PAGES: &[(&str, PageMethod, Handler)] = &[
    ("", PageMethod::Get, pages::home),
    ("mint", PageMethod::Get, pages::mint_form),
    ("mint", PageMethod::Post, pages::mint),
    ("minted", PageMethod::Get, pages::minted),
    ("minted.txt", PageMethod::Get, pages::minted_text),
    ("browse", PageMethod::Get, pages::browse),
    ("search", PageMethod::Get, search::page),
    ("search.csv", PageMethod::Get, search::csv),
    ("search.jsonl", PageMethod::Get, search::json_lines),
    ("search.anvl", PageMethod::Get, search::anvl),
    ("id", PageMethod::Get, edit::show),
    ("id", PageMethod::Post, edit::save),
    ("withdraw", PageMethod::Get, retire::withdraw_form),
    ("withdraw", PageMethod::Post, retire::withdraw),
    ("purge", PageMethod::Get, retire::purge_form),
    ("purge", PageMethod::Post, retire::purge),
    ("upload", PageMethod::Get, upload::form),
    ("upload", PageMethod::Post, upload::submit),
    ("uploads", PageMethod::Get, upload::progress),
    ("uploads/result.csv", PageMethod::Get, upload::download),
    ("writes", PageMethod::Get, writes::page),
    ("rewrite", PageMethod::Get, changes::form),
    ("rewrite", PageMethod::Post, changes::submit),
    ("links", PageMethod::Get, links::page),
    ("links.csv", PageMethod::Get, links::download),
    ("explain", PageMethod::Get, resolving::explain),
    ("rules", PageMethod::Get, resolving::rules_form_page),
    ("rules", PageMethod::Post, resolving::rules_test),
    ("usage", PageMethod::Get, usage::page),
    ("usage.csv", PageMethod::Get, usage::csv),
    ("usage.json", PageMethod::Get, usage::json),
];

/// Whether `path` is the console's.
pub fn is_console(path: &str) -> bool {
    path == "/console" || path.starts_with("/console/")
}

/// Answer a console request.
pub async fn handle(service: Arc<Service>, req: Request<Incoming>, peer: Peer) -> Resp {
    let secure = service.console.secure_cookies
        || (service.from_front(&req, &peer)
            && req
                .headers()
                .get("x-forwarded-proto")
                .is_some_and(|p| p.as_bytes().eq_ignore_ascii_case(b"https")));
    let peer = service.client(&req, peer);
    let cookie = |name| {
        session::from_cookies(
            req.headers()
                .get_all(hyper::header::COOKIE)
                .iter()
                .filter_map(|h| h.to_str().ok()),
            &session::cookie_name(name, secure),
        )
    };
    let sessions = &service.console.sessions;
    let logged_in = cookie(session::COOKIE)
        .and_then(|id| sessions.get(&id))
        .filter(|s| s.user.is_some());
    let known = logged_in
        .or_else(|| cookie(session::LOGIN_COOKIE).and_then(|id| sessions.login_session(&id)));
    // Only the login form starts a session (one kept nowhere); elsewhere a request
    // without one is sent to it (pages) or refused (forms).
    let start =
        known.is_none() && req.method() == Method::GET && req.uri().path() == "/console/login";
    let session = match known {
        Some(s) => s,
        None if start => sessions.login_form(),
        None => LoginSession::none(),
    };
    let mut resp = route(service.clone(), req, peer, session.clone()).await;
    if let Some(v) = resp.headers_mut().remove(NEW_SESSION) {
        // Logged in (the new session's id) or out (empty).
        let id = v.to_str().unwrap_or("").to_string();
        let id = Some(id.as_str()).filter(|i| !i.is_empty());
        set_cookie(&mut resp, session::COOKIE, id, secure);
        if id.is_some() {
            set_cookie(&mut resp, session::LOGIN_COOKIE, None, secure);
        }
    } else if start {
        set_cookie(&mut resp, session::LOGIN_COOKIE, Some(&session.id), secure);
    }
    hardened(&mut resp);
    resp
}

/// The routes, after the session is known.
async fn route(
    service: Arc<Service>,
    req: Request<Incoming>,
    peer: Peer,
    session: LoginSession,
) -> Resp {
    let verb = match *req.method() {
        Method::GET | Method::HEAD => PageMethod::Get,
        Method::POST => PageMethod::Post,
        _ => return text(StatusCode::METHOD_NOT_ALLOWED, "GET or POST only\n"),
    };
    let path = req.uri().path().to_string();
    let query = Form::query(req.uri().query());
    if path == "/console/style.css" {
        let mut r = Response::new(crate::reply::whole(Bytes::from_static(
            html::STYLE.as_bytes(),
        )));
        r.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/css; charset=utf-8"),
        );
        return r;
    }
    if let (Some(name), PageMethod::Get) = (path.strip_prefix("/console/basic/"), verb) {
        return login::basic(&service, &req, &peer, &session, name).await;
    }
    let form = match verb {
        PageMethod::Get => Form::default(),
        PageMethod::Post => {
            let within = service.body_deadline(req.headers());
            match checked_form(req, &session, within).await {
                Ok(f) => f,
                Err(r) => return r,
            }
        }
    };
    match (path.as_str(), verb) {
        ("/console" | "/console/", PageMethod::Get) => match &session.user {
            Some(u) => see_other(&format!("/console/p/{}/", u.populator)),
            None => see_other("/console/login"),
        },
        ("/console/login", PageMethod::Get) => login::form(&session, None, StatusCode::OK),
        ("/console/login", PageMethod::Post) => {
            login::submit(&service, &session, &peer, form).await
        }
        ("/console/logout", PageMethod::Post) => login::logout(&service, &session),
        (p, _) => match p.strip_prefix("/console/p/") {
            Some(rest) => populator_page(service, rest, verb, session, peer, query, form).await,
            None => refusal(
                StatusCode::NOT_FOUND,
                &session,
                "Not found",
                "There is no such console page.",
            ),
        },
    }
}

/// A POST's form, read, with its token checked against the session's: the one place
/// forms are refused as forged (no token, a wrong one, another session's, or a
/// session that has ended).
///
/// The body is read only for a request that names a live session (its cookie is
/// checked first: without one, nothing of the body is read), and no more of it than
/// the session's kind of form may have ([`form::Limit`]), so that a client that is
/// not logged in can make the service hold 64 KiB of a form at most.
async fn checked_form(
    req: Request<Incoming>,
    session: &LoginSession,
    within: Duration,
) -> Result<Form, Resp> {
    let forged = || {
        refusal(
            StatusCode::FORBIDDEN,
            session,
            "Form refused",
            "This form is not from your session (it may have expired). Go back, reload the page and try again.",
        )
    };
    if session.csrf.is_empty() {
        log::warn!("console: form refused unread (no session)");
        return Err(forged());
    }
    let limit = match session.user {
        Some(_) => form::Limit::LoggedIn,
        None => form::Limit::Anonymous,
    };
    let form = Form::read(req, limit, within).await.map_err(|e| {
        log::warn!("console: form refused: {e}");
        let mut r = refusal(e.status(), session, "Form refused", &e.to_string());
        if matches!(e, form::FormError::Late(_)) {
            crate::body::close_after(&mut r);
        }
        r
    })?;
    let given = form.get("csrf").unwrap_or("");
    if !session::token_matches(session, given) {
        log::warn!("console: form refused (missing or wrong token)");
        return Err(forged());
    }
    Ok(form)
}

/// `/console/p/POP/PAGE`: the populator checks, then the page's handler.
async fn populator_page(
    service: Arc<Service>,
    rest: &str,
    verb: PageMethod,
    session: LoginSession,
    peer: Peer,
    query: Form,
    form: Form,
) -> Resp {
    let (name, page) = rest.split_once('/').unwrap_or((rest, ""));
    let Some(handler) = PAGES
        .iter()
        .find(|(p, v, _)| *p == page && *v == verb)
        .map(|(_, _, h)| *h)
    else {
        return refusal(
            StatusCode::NOT_FOUND,
            &session,
            "Not found",
            "There is no such console page.",
        );
    };
    let Some(user) = session.user.clone() else {
        return see_other("/console/login");
    };
    if user.populator != name {
        log::warn!(
            "console: login {} of populator {} refused populator {name}'s pages",
            user.login,
            user.populator
        );
        return refusal(
            StatusCode::FORBIDDEN,
            &session,
            "Not your populator",
            "You are logged in for another populator: this populator's binder and minters are not yours.",
        );
    }
    let Some(pop) = service.populator(name).cloned() else {
        return refusal(
            StatusCode::NOT_FOUND,
            &session,
            "Not found",
            "There is no such console page.",
        );
    };
    if !pop.allows(peer.ip) {
        return refusal(
            StatusCode::FORBIDDEN,
            &session,
            "Forbidden",
            "The populator does not admit your address.",
        );
    }
    handler(Ctx {
        service,
        session,
        user,
        pop,
        peer,
        query,
        form,
    })
    .await
}

/// Set cookie `name` to a session's id (`None`: end it).
fn set_cookie(r: &mut Resp, name: &str, id: Option<&str>, secure: bool) {
    if let Ok(v) = HeaderValue::from_str(&session::set_cookie(name, id, secure)) {
        r.headers_mut().append(SET_COOKIE, v);
    }
}

/// Headers every console response carries: nothing cached, no framing, no scripts or
/// styles but the console's own, forms posted only to the console.
fn hardened(r: &mut Resp) {
    let h = r.headers_mut();
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        "content-security-policy",
        HeaderValue::from_static(
            "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        ),
    );
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("referrer-policy", HeaderValue::from_static("same-origin"));
}
