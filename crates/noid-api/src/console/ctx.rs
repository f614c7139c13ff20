//! What a page handler gets and gives: the checked request ([`Ctx`]) and the
//! responses pages answer with ([`html_response`], [`refusal`], [`text`],
//! [`see_other`]). Below the pages and the console's dispatch, so that pages import
//! it and nothing of theirs is imported back.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use hyper::header::{HeaderValue, CONTENT_TYPE, LOCATION};
use hyper::{Response, StatusCode};
use noid_binder::api::Checked;
use noid_binder::Who;

use super::binder::Binder;
use super::form::Form;
use super::html;
use super::session::{LoginSession, User};
use crate::reply::Resp;
use crate::service::{Peer, Service};

/// A page handler's answer, to be awaited.
pub type Handled = Pin<Box<dyn Future<Output = Resp> + Send>>;
/// A page handler.
pub type Handler = fn(Ctx) -> Handled;

/// The method a page answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageMethod {
    /// Shows something; never writes.
    Get,
    /// A form's submission (its token checked before the handler runs).
    Post,
}

/// A request to a populator's page, checked: what its handler gets.
pub struct Ctx {
    /// The service (for [`Ctx::binder`]).
    pub service: Arc<Service>,
    /// The session, logged in for [`Ctx::user`]'s populator.
    pub session: LoginSession,
    /// Who is logged in.
    pub user: User,
    /// The populator, as configured.
    pub pop: Checked,
    /// The client.
    pub peer: Peer,
    /// The query's fields.
    pub query: Form,
    /// A POST's form (its token checked); empty for a GET.
    pub form: Form,
}

impl Ctx {
    /// The populator's binder and minters, acted on by the session's login.
    pub fn binder(&self) -> Binder {
        Binder::new(self.service.clone(), self.pop.clone(), self.who())
    }

    /// Who acts: the session's login for its populator, from the client's address.
    pub fn who(&self) -> Who {
        Who {
            populator: self.user.populator.clone(),
            login: self.user.login.clone(),
            client: self
                .peer
                .ip
                .map_or_else(|| "unix".into(), |ip| ip.to_string()),
            acting_for: None,
        }
    }

    /// `/console/p/POP/`, where the populator's pages are.
    pub fn base(&self) -> String {
        format!("/console/p/{}/", self.user.populator)
    }

    /// A page in the layout.
    pub fn page(&self, status: StatusCode, title: &str, body: &str) -> Resp {
        html_response(status, html::page(title, &self.session, body))
    }
}

/// The header a handler sets to the id of the session that replaces the request's
/// (empty: none does); [`handle`] turns it into the cookie, with its attributes.
pub const NEW_SESSION: &str = "x-noid-console-session";

/// An HTML response.
pub fn html_response(status: StatusCode, body: String) -> Resp {
    let mut r = Response::new(crate::reply::whole(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}

/// A refusal: a page in the layout saying why.
pub fn refusal(status: StatusCode, session: &LoginSession, title: &str, why: &str) -> Resp {
    html_response(
        status,
        html::page(title, session, &html::notice("error", why)),
    )
}

/// A plain-text response.
pub fn text(status: StatusCode, body: &str) -> Resp {
    let mut r = Response::new(crate::reply::whole(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// `303 See Other` to `location` (after a form's write, so that reloading does not
/// repeat it).
pub fn see_other(location: &str) -> Resp {
    let mut r = text(StatusCode::SEE_OTHER, "");
    if let Ok(v) = HeaderValue::from_str(location) {
        r.headers_mut().insert(LOCATION, v);
    }
    r
}
