//! noid-binder's [`ApiReply`] (a complete response as the API decides it) carried by
//! hyper ([`response`]), and the one reply only the HTTP service gives: `429` after
//! too many failed logins ([`too_many`]; the CGI's logins are Apache's).

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::{Response, StatusCode};
use noid_binder::api::{plain, ApiReply};

use crate::failures::{said, seconds};

/// A response of `noid serve`.
pub type Resp = Response<BoxBody<Bytes, Infallible>>;

/// The response `noid serve` sends for `reply`.
pub fn response(reply: ApiReply) -> Resp {
    let headers = reply.headers();
    let mut r = Response::new(Full::new(Bytes::from(reply.body)).boxed());
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
