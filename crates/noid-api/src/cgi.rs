//! The API as a CGI program under Apache (`noidu…` with `NOID_API_CONFIG` set): Apache
//! authenticates (its `AuthUserFile` is the populator's `htpasswd -B` file) and passes
//! the login as `REMOTE_USER`; each request is one process that takes the store lock,
//! runs, commits, logs and answers, exactly as the service's store threads do.

use std::io::Write;
use std::net::IpAddr;
use std::sync::Arc;

use http_body_util::BodyExt;
use hyper::StatusCode;

use crate::handler::{finish, plain, plan, verbose_note, Input, Plan, Resp, Service};
use crate::route;
use crate::store::{self, Who};

/// One CGI request, from the environment Apache sets.
#[derive(Debug, Clone, Default)]
pub struct CgiRequest {
    /// `/a` + `PATH_INFO` (Apache's `ScriptAlias /a …/noidu-api`).
    pub path: String,
    /// `QUERY_STRING`.
    pub query: String,
    /// `REMOTE_USER`, set by Apache's authentication.
    pub remote_user: Option<String>,
    /// `REMOTE_ADDR`.
    pub remote_addr: Option<IpAddr>,
    /// `HTTP_ACTING_FOR`.
    pub acting_for: Option<String>,
    /// The request body (standard input).
    pub body: Vec<u8>,
}

/// Answer one CGI request.
pub fn respond(service: &Arc<Service>, req: CgiRequest) -> Resp {
    let Some(route) = route::parse(&req.path) else {
        return plain(StatusCode::NOT_FOUND, "error: not found\n");
    };
    let name = route.populator().to_string();
    let Some(pop) = service.populator(&name) else {
        return plain(StatusCode::NOT_FOUND, "error: not found\n");
    };
    if !pop.allows(req.remote_addr) {
        return plain(StatusCode::FORBIDDEN, "error: 403 forbidden\n");
    }
    let login = match &req.remote_user {
        Some(u) if service.vouched(pop, u) => u.clone(),
        Some(_) => return plain(StatusCode::FORBIDDEN, "error: 403 forbidden\n"),
        None if pop.populator.open => name.clone(),
        None => return plain(StatusCode::UNAUTHORIZED, "error: 401 unauthorized\n"),
    };
    let query = route::decode_query(&req.query);
    let note = verbose_note(&query, &login, req.acting_for.as_deref());
    let who = Who {
        populator: name,
        login,
        client: req
            .remote_addr
            .map(|a| a.to_string())
            .unwrap_or_else(|| "-".into()),
        acting_for: req.acting_for.clone(),
    };
    match plan(&route, pop, query, Input::Whole(req.body)) {
        Plan::Respond(r) => r,
        Plan::Answer(a, tool) => finish(a, note, tool),
        Plan::Run {
            dir,
            log,
            work,
            tool,
        } => {
            let answer = store::run_once(
                dir,
                log,
                service.settings().clone(),
                work,
                who,
                !pop.populator.write,
            );
            finish(answer, note, tool)
        }
    }
}

/// Write `resp` as a CGI response (`Status:` and headers, a blank line, the body).
pub fn write(resp: Resp, out: &mut dyn Write) -> std::io::Result<()> {
    let (parts, body) = resp.into_parts();
    write!(
        out,
        "Status: {} {}\r\n",
        parts.status.as_u16(),
        parts.status.canonical_reason().unwrap_or("")
    )?;
    for (k, v) in &parts.headers {
        out.write_all(k.as_str().as_bytes())?;
        out.write_all(b": ")?;
        out.write_all(v.as_bytes())?;
        out.write_all(b"\r\n")?;
    }
    out.write_all(b"\r\n")?;
    // A CGI's body is a `Full` one (never streamed): ready at once.
    let bytes = ready_bytes(body);
    out.write_all(&bytes)?;
    out.flush()
}

fn ready_bytes(
    body: http_body_util::combinators::BoxBody<bytes::Bytes, std::convert::Infallible>,
) -> bytes::Bytes {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
    rt.block_on(body.collect())
        .map(|c| c.to_bytes())
        .unwrap_or_default()
}
