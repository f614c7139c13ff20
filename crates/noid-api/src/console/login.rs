//! Logging in and out: the login form, HTTP Basic (`/console/basic/POP`), logout.
//! Passwords are checked by the API's own check ([`Service::verify`]); a login starts
//! a new session (new id, new form token) and ends the one before it.

use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::{HeaderValue, RETRY_AFTER};
use hyper::{Request, StatusCode};

use super::ctx::{html_response, refusal, see_other, text, NEW_SESSION};
use super::form::Form;
use super::html::{escape, notice, page, post_form};
use super::session::{LoginSession, User};
use crate::reply::Resp;
use crate::service::{Peer, Service};
use noid_binder::api::Basic;

/// The login form, with `error` above it.
pub fn form(session: &LoginSession, error: Option<&str>, status: StatusCode) -> Resp {
    let mut body = String::new();
    if let Some(e) = error {
        body.push_str(&notice("error", e));
    }
    if let Some(u) = &session.user {
        body.push_str(&format!(
            "<p>You are logged in as {} for populator {}. Logging in again replaces that session.</p>\n",
            escape(&u.login),
            escape(&u.populator)
        ));
    }
    body.push_str(&post_form(session, "/console/login"));
    body.push_str(
        "<label for=\"populator\">Populator</label>\n\
         <input type=\"text\" id=\"populator\" name=\"populator\" required autocomplete=\"organization\">\n\
         <label for=\"login\">Login</label>\n\
         <input type=\"text\" id=\"login\" name=\"login\" required autocomplete=\"username\">\n\
         <label for=\"password\">Password</label>\n\
         <input type=\"password\" id=\"password\" name=\"password\" required autocomplete=\"current-password\">\n\
         <p><button type=\"submit\">Log in</button></p>\n</form>\n\
         <p class=\"hint\">The logins are the API's (the populator's password file). \
         Clients that send HTTP Basic credentials can log in at <code>/console/basic/POPULATOR</code>.</p>\n",
    );
    html_response(status, page("Log in", session, &body))
}

/// The login form's submission (its token already checked). An unknown populator
/// is checked like a known one whose logins all fail ([`Service::verify`]), so the
/// answer and its time are the same.
pub async fn submit(service: &Arc<Service>, session: &LoginSession, peer: &Peer, f: Form) -> Resp {
    let name = f.text("populator");
    let cred = Basic {
        user: f.text("login").to_string(),
        password: f.get("password").unwrap_or("").to_string(),
    };
    let pop = service.populator(name).cloned();
    if pop.as_ref().is_some_and(|p| !p.allows(peer.ip)) {
        return refusal(
            StatusCode::FORBIDDEN,
            session,
            "Forbidden",
            "The populator does not admit your address.",
        );
    }
    let failed = || {
        form(
            session,
            Some("Login failed: check the populator, login and password."),
            StatusCode::UNAUTHORIZED,
        )
    };
    if pop.as_ref().is_some_and(|p| p.populator.open) && cred.user != name {
        // An open populator has no logins: it acts under its own name.
        return failed();
    }
    let login = cred.user.clone();
    match service.clone().verify(name, pop.as_ref(), cred, peer).await {
        Ok(login) => logged_in(service, session, name, login),
        Err(r) if r.status == StatusCode::TOO_MANY_REQUESTS => {
            let mut resp = form(
                session,
                Some(&locked_out(&login, r.retry_after.unwrap_or(0))),
                StatusCode::TOO_MANY_REQUESTS,
            );
            retry_after(&mut resp, r.retry_after);
            resp
        }
        Err(_) => failed(),
    }
}

/// What the login form says to a login that failed too often from the browser's
/// address: how long to wait, and until when.
fn locked_out(login: &str, seconds: u64) -> String {
    let until = std::time::SystemTime::now() + std::time::Duration::from_secs(seconds);
    let until = until
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| chrono::DateTime::from_timestamp(d.as_secs() as i64, 0))
        .map_or_else(String::new, |t| t.format("%H:%M:%S").to_string());
    format!(
        "Too many failed logins for {login} from your address. Try again in {}, at {until} UTC.",
        crate::failures::said(std::time::Duration::from_secs(seconds)),
    )
}

fn retry_after(resp: &mut Resp, seconds: Option<u64>) {
    if let Some(s) = seconds {
        resp.headers_mut().insert(RETRY_AFTER, HeaderValue::from(s));
    }
}

/// The realm the console's Basic login asks credentials for: not the API's (the
/// populator's name), so that credentials a browser keeps for the console are never
/// sent, unasked, with a request to the API (issue 42, item 2).
pub fn console_realm(populator: &str) -> String {
    format!("noid console: {populator}")
}

/// `/console/basic/POP`: log in with the request's Basic credentials, or the login a
/// trusted front server passed on (`401` asks the browser for credentials, in the
/// console's own realm). An unknown populator is answered as a known one whose
/// logins all fail.
pub async fn basic(
    service: &Arc<Service>,
    req: &Request<Incoming>,
    peer: &Peer,
    session: &LoginSession,
    name: &str,
) -> Resp {
    let pop = service.populator(name).cloned();
    if pop.as_ref().is_some_and(|p| !p.allows(peer.ip)) {
        return refusal(
            StatusCode::FORBIDDEN,
            session,
            "Forbidden",
            "The populator does not admit your address.",
        );
    }
    match service
        .clone()
        .identify(req, peer, name, pop.as_ref())
        .await
    {
        Ok(login) if pop.is_some() => logged_in(service, session, name, login),
        Ok(_) => text(StatusCode::UNAUTHORIZED, "error: 401 unauthorized\n"),
        Err(mut r) => {
            if r.realm.is_some() {
                r.realm = Some(console_realm(name));
            }
            crate::reply::response(r)
        }
    }
}

/// Replace `old` by a session logged in as `login` for `populator`, and go to the
/// populator's first page.
fn logged_in(service: &Service, old: &LoginSession, populator: &str, login: String) -> Resp {
    service.console.sessions.end(&old.id);
    let new = service.console.sessions.start(User {
        populator: populator.to_string(),
        login,
    });
    log::info!(
        "console: {} logged in for populator {populator}",
        new_login(&new)
    );
    let mut r = see_other(&format!("/console/p/{populator}/"));
    // `console::handle` makes it the cookie.
    if let Ok(v) = HeaderValue::from_str(&new.id) {
        r.headers_mut().insert(NEW_SESSION, v);
    }
    r
}

fn new_login(s: &LoginSession) -> &str {
    s.user.as_ref().map_or("", |u| u.login.as_str())
}

/// End the session (its token already checked) and its cookie.
pub fn logout(service: &Service, session: &LoginSession) -> Resp {
    service.console.sessions.end(&session.id);
    let mut r = see_other("/console/login");
    r.headers_mut()
        .insert(NEW_SESSION, HeaderValue::from_static(""));
    r
}
