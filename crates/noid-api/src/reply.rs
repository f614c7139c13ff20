//! noid-binder's [`ApiReply`] (a response as the API decides it) carried by hyper
//! ([`response`]), and the one reply only the HTTP service gives: `429` after too many
//! failed logins ([`too_many`]; the CGI's logins are Apache's).

use std::io;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::{Response, StatusCode};
use noid_binder::api::{plain, ApiReply};

use crate::failures::{said, seconds};

/// A response body of `noid serve`. Its error (only a produced body has one) makes
/// hyper cut the response off, so that a client never takes a part for the whole.
pub type Body = BoxBody<Bytes, io::Error>;
/// A response of `noid serve`.
pub type Resp = Response<Body>;

/// A body held whole.
pub fn whole(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

/// The response `noid serve` sends for `reply`; a produced body (an export) is written
/// by a blocking thread as the client takes it ([`crate::body::produced`]).
pub fn response(mut reply: ApiReply) -> Resp {
    let headers = reply.headers();
    let body = match reply.producer.take() {
        None => whole(reply.body),
        Some(producer) => crate::body::produced(reply.body, producer).boxed(),
    };
    let mut r = Response::new(body);
    *r.status_mut() = reply.status;
    *r.headers_mut() = headers;
    r
}

/// `429`: too many failed logins of `login` from the client's address; try again
/// after `wait` (said in the body and in `Retry-After`).
pub fn too_many(login: &str, wait: std::time::Duration) -> ApiReply {
    let text = format!(
        "error: 429 too many failed logins for {login} from your address; try again in {}\n",
        said(wait)
    );
    ApiReply {
        retry_after: Some(seconds(wait)),
        ..plain(StatusCode::TOO_MANY_REQUESTS, &text)
    }
}
