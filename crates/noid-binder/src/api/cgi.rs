//! The API as a CGI program under Apache (`noidu…` with `NOID_API_CONFIG` set): Apache
//! authenticates (its `AuthUserFile` is the populator's `htpasswd -B` file) and passes
//! the login as `REMOTE_USER`; each request is one process that takes the store lock,
//! runs, commits, logs and answers, exactly as the service's store threads do (a line
//! that only reads opens a snapshot between writers instead, as the service's reads
//! do, and takes no lock). No
//! async runtime and no HTTP server: the body is read whole from standard input
//! before, and the answer is written whole, so a `noid` built without its server has
//! the CGI all the same.

use std::io::Write;
use std::net::IpAddr;

use http::StatusCode;

use super::link_report::Ask;
use super::origin::Sent;
use super::plan::{plan, verbose_note, Input, Plan};
use super::reply::{finish, plain, ApiReply};
use super::resolving::Ask as Resolving;
use super::route;
use super::site::Site;
use crate::writer::{self, Who, Work, WorkResult};

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
    /// `HTTP_SEC_FETCH_SITE`, `HTTP_ORIGIN`, `HTTP_HOST`: for the cross-site rule
    /// ([`Sent`]).
    pub sec_fetch_site: Option<String>,
    /// `HTTP_ORIGIN`.
    pub origin: Option<String>,
    /// `HTTP_HOST`.
    pub host: Option<String>,
    /// The request body (standard input).
    pub body: Vec<u8>,
}

/// Answer one CGI request: the cross-site rule ([`Sent`]), the checks of
/// [`Site::admit`], the login Apache
/// authenticated (as a front server's, [`Site::front_login`]), then the command,
/// run in this process ([`writer::run_once`]).
pub fn respond(service: &Site, req: CgiRequest) -> ApiReply {
    match answer(service, req) {
        Ok(r) | Err(r) => r,
    }
}

fn answer(service: &Site, req: CgiRequest) -> Result<ApiReply, ApiReply> {
    let sent = Sent {
        site: req.sec_fetch_site.as_deref(),
        origin: req.origin.as_deref(),
        host: req.host.as_deref(),
    };
    sent.check(&req.path)?;
    let (route, pop) = service.admit(&req.path, req.remote_addr)?;
    let name = route.populator().to_string();
    let unauthorized = || plain(StatusCode::UNAUTHORIZED, "error: 401 unauthorized\n");
    let login = match req.remote_user.clone() {
        Some(u) => service.front_login(&name, pop, u)?,
        None if pop.is_some_and(|p| p.populator.open) => name.clone(),
        None => return Err(unauthorized()),
    };
    // No login is ever one of a populator that is not configured (front_login).
    let Some(pop) = pop else {
        return Err(unauthorized());
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
    Ok(match plan(&route, pop, query, Input::Whole(req.body)) {
        Plan::Respond(r) => r,
        Plan::Answer(a, tool) => finish(a, note, tool),
        // The link checker's records, read through a snapshot: a check being written
        // as this runs shows at the next request.
        Plan::Changes(c) => {
            let (dir, log) = (c.dir.clone(), c.log.clone());
            let run = |work: Work| {
                writer::run_once(
                    dir.clone(),
                    Some(log.clone()),
                    service.admission(&dir),
                    service.settings().clone(),
                    work,
                    who.clone(),
                    !pop.populator.write,
                )
            };
            super::changes::answer(c, &req.query, &who, pop.populator.write, &run)
        }
        Plan::Search { dir } => search(&dir, &req.query),
        // The counts files only: no store is opened.
        Plan::Stats { dirs } => super::stats::answer(&dirs, &req.query),
        // Resolved on a snapshot of the binder: nothing is written.
        Plan::Resolving(r) => match Resolving::of(&r, &req.query) {
            Ok(ask) => crate::snapshot(&r.dir, |store| ask.answer(store)).unwrap_or_else(|e| {
                plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!("error: {}\n", crate::name_store_in(&e, &r.dir)),
                )
            }),
            Err(refused) => refused,
        },
        Plan::Links { dir } => match Ask::of(&req.query) {
            Ok(ask) => crate::snapshot(&dir, |store| ask.answer(store)).unwrap_or_else(|e| {
                plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!("error: {}\n", crate::name_store_in(&e, &dir)),
                )
            }),
            Err(refused) => refused,
        },
        Plan::Run {
            dir,
            log,
            work,
            tool,
        } => {
            let read_only = !pop.populator.write;
            if let Some(answer) = read_between_writers(service, &dir, &who, read_only, &work) {
                return Ok(finish(crate::name_store(answer, &dir), note, tool));
            }
            let admission = service.admission(&dir);
            let answer = writer::run_once(
                dir.clone(),
                log,
                admission,
                service.settings().clone(),
                work,
                who,
                read_only,
            );
            finish(crate::name_store(answer, &dir), note, tool)
        }
    })
}

/// A line that only reads, answered through a snapshot opened between writers (every
/// request of a CGI is its own process: a snapshot opened while another process, a CGI
/// or a `noid` command, is still flushing a write it acknowledged could miss it), never
/// taking the writers' lock; `None` for everything else, and for a read whose minter
/// state cannot be read (the writer's run reports why, as for any line).
fn read_between_writers(
    service: &Site,
    dir: &std::path::Path,
    who: &Who,
    read_only: bool,
    work: &Work,
) -> Option<WorkResult> {
    let Work::Egg { line, body } = work else {
        return None;
    };
    if !crate::only_reads(who, line, body) {
        return None;
    }
    let admission = service.admitted(dir);
    let wait = service.settings().lock_timeout;
    crate::snapshot_between_writers(dir, wait, |store| {
        crate::read_line(store, &admission, who, read_only, line, body)
    })
    .ok()
    .flatten()
}

/// Write `reply` as a CGI response (`Status:` and headers, a blank line, the body).
///
/// A produced body (an export) is spooled to an unnamed temporary file first and sent
/// with its `Content-Length`: Apache ends a CGI's response normally whatever the CGI's
/// exit status, so a failure halfway through would otherwise reach the client as a
/// shorter export that looks whole. Spooled, a failure is a `500` before anything is
/// sent, and memory stays bounded whatever the export's size.
pub fn write(mut reply: ApiReply, out: &mut dyn Write) -> std::io::Result<()> {
    let spooled = match reply.producer.take() {
        None => None,
        Some(producer) => match spool(producer) {
            Ok(file) => Some(file),
            Err(e) => {
                reply = plain(StatusCode::INTERNAL_SERVER_ERROR, &format!("error: {e}\n"));
                None
            }
        },
    };
    write!(
        out,
        "Status: {} {}\r\n",
        reply.status.as_u16(),
        reply.status.canonical_reason().unwrap_or("")
    )?;
    for (k, v) in &reply.headers() {
        out.write_all(k.as_str().as_bytes())?;
        out.write_all(b": ")?;
        out.write_all(v.as_bytes())?;
        out.write_all(b"\r\n")?;
    }
    if let Some((_, len)) = &spooled {
        write!(out, "Content-Length: {}\r\n", reply.body.len() as u64 + len)?;
    }
    out.write_all(b"\r\n")?;
    out.write_all(&reply.body)?;
    if let Some((mut file, _)) = spooled {
        std::io::copy(&mut file, out)?;
    }
    out.flush()
}

/// The produced body written to an unnamed temporary file, rewound, and its length.
fn spool(producer: super::reply::Producer) -> std::io::Result<(std::fs::File, u64)> {
    let mut file = std::io::BufWriter::new(tempfile::tempfile()?);
    producer.produce(&mut file)?;
    let mut file = file.into_inner().map_err(|e| e.into_error())?;
    let len = std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0))?;
    std::io::Seek::rewind(&mut file)?;
    Ok((file, len))
}

/// A search of binder `dir` ([`super::search`], when built in).
#[cfg(feature = "search")]
fn search(dir: &std::path::Path, query: &str) -> ApiReply {
    super::search::answer(dir, query)
}

/// Never planned without the search index: the plan answers 404 first.
#[cfg(not(feature = "search"))]
fn search(_dir: &std::path::Path, _query: &str) -> ApiReply {
    plain(StatusCode::NOT_FOUND, "error: no search index\n")
}

#[cfg(test)]
mod tests {
    use super::super::reply::streamed;
    use super::*;

    /// A produced body reaches the CGI's client whole, with its length, or not at all:
    /// a producer that fails halfway makes a `500` and nothing of the part it wrote.
    #[test]
    fn a_produced_body_is_sent_with_its_length_or_as_a_500() {
        let mut out = Vec::new();
        let whole = streamed("text/csv", |out| out.write_all(b"id,target\nx,y\n"));
        write(whole, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "Status: 200 OK\r\ncontent-type: text/csv\r\nContent-Length: 14\r\n\r\nid,target\nx,y\n"
        );
        let mut out = Vec::new();
        let failing = streamed("text/csv", |out| {
            out.write_all(b"id,target\nx,y\n")?;
            Err(std::io::Error::other("the search failed: the disk is gone"))
        });
        write(failing, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "Status: 500 Internal Server Error\r\ncontent-type: text/plain; charset=UTF-8\r\n\r\n\
             error: the search failed: the disk is gone\n"
        );
    }
}
