//! One HTTP request: route, cross-site check, populator, address check,
//! authentication, then the binder or minter command, and the response (`200` with
//! `egg-status:` for command results, errors included, as N2T answers;
//! `401`/`403`/`404`/`413`/`429` before any command runs). What the request does is
//! decided by noid-binder's `api` ([`plan`]), as for the CGI; this module only carries
//! it over HTTP: reading the body (streamed for a bulk POST), awaiting the directory's
//! thread, streaming a bulk answer as its batches commit.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use noid_binder::api::link_report::Ask;
use noid_binder::api::resolving::{Ask as Resolving, ResolvingRequest};
use noid_binder::api::{
    body_too_large, command_headers, decode_query, finish, is_bulk, parse_route, plain, plan,
    same_site, status_line, unauthorized, verbose_note, ApiReply, Input, Plan, Route, MAX_BODY,
};
use noid_binder::{name_store, only_reads, read_line, Who, Work, WorkResult};

use crate::awaited::submit;
use crate::body::{SentProgress, WholeError};
use crate::reply::{response, Resp};
use crate::service::{Peer, Service};

/// Where a planned request's work is answered.
enum Served {
    /// Through a read-only view: a line that only reads.
    Read(WorkResult),
    /// By the directory's writer thread: a write, or a read the view could not answer.
    ToWriter(Work),
}

/// `answer` run on a blocking thread (it reads files or waits on a lock); a `500` if
/// that thread failed.
async fn blocking(answer: impl FnOnce() -> ApiReply + Send + 'static) -> ApiReply {
    tokio::task::spawn_blocking(answer)
        .await
        .unwrap_or_else(|e| plain(StatusCode::INTERNAL_SERVER_ERROR, &format!("error: {e}\n")))
}

impl Service {
    /// Answer one request (`GET /metrics`: the service's metrics, to a client on
    /// loopback when no `metrics_listen` is configured), counted in them.
    pub async fn handle(self: Arc<Self>, req: Request<Incoming>, peer: Peer) -> Resp {
        let metrics = self.metrics.clone();
        if req.uri().path() == "/metrics"
            && self.limits().metrics_listen.is_none()
            && peer.ip.is_some_and(|ip| ip.is_loopback())
        {
            return self.metrics(&req);
        }
        if self.console.enabled && crate::console::is_console(req.uri().path()) {
            return crate::console::handle(self, req, peer).await;
        }
        let populator = parse_route(req.uri().path()).map(|r| r.populator().to_string());
        let response = self.answer(req, peer).await.unwrap_or_else(response);
        metrics.answered(populator.as_deref(), response.status().as_u16());
        response
    }

    /// The response to `req`: `Ok` for a streamed one (a bulk POST's), `Err` for a
    /// complete one (every refusal, and a command's answer), so that `?` ends the
    /// request at any refusal.
    async fn answer(self: Arc<Self>, req: Request<Incoming>, peer: Peer) -> Result<Resp, ApiReply> {
        if req.method() != Method::GET && req.method() != Method::POST {
            return Err(plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "error: GET or POST only\n",
            ));
        }
        let peer = self.client(&req, peer);
        same_site(&req)?;
        let (route, pop) = self.site().admit(req.uri().path(), peer.ip)?;
        let name = route.populator().to_string();
        let login = self.clone().identify(&req, &peer, &name, pop).await?;
        // No login is ever valid for a populator that is not configured.
        let Some(pop) = pop else {
            return Err(unauthorized(&name));
        };
        let raw_query = req.uri().query().unwrap_or("").to_string();
        let query = decode_query(&raw_query);
        let acting_for = req
            .headers()
            .get("acting-for")
            .and_then(|h| h.to_str().ok())
            .map(str::to_string);
        let note = verbose_note(&query, &login, acting_for.as_deref());
        let input = if matches!(route, Route::Binder { .. }) && is_bulk(&query) {
            self.streamed_body(req).await
        } else {
            match self.whole_body(req, &name, &peer).await {
                Ok(input) => input,
                Err(answered) => return answered,
            }
        };
        let who = Who {
            populator: name,
            login,
            client: peer.shown(),
            acting_for,
        };
        let read_only = !pop.populator.write;
        let (dir, log, work, tool) = match plan(&route, pop, query, input) {
            Plan::Respond(r) => return Err(r),
            Plan::Answer(a, tool) => return Err(finish(a, note, tool)),
            Plan::Links { dir } => return Err(self.links_report(dir, &raw_query).await),
            Plan::Resolving(r) => return Err(self.resolving(r, &raw_query).await),
            Plan::Search { dir } => {
                return Err(
                    blocking(move || noid_binder::api::search::answer(&dir, &raw_query)).await,
                )
            }
            // The counts files only: no store is opened, no writer thread taken.
            Plan::Stats { dirs } => {
                return Err(
                    blocking(move || noid_binder::api::stats::answer(&dirs, &raw_query)).await,
                )
            }
            Plan::Changes(c) => {
                let writes = pop.populator.write;
                let store = self.store(&c.dir, Some(c.log.clone()));
                return Err(blocking(move || {
                    let run = |work| store.run(work, who.clone(), !writes);
                    noid_binder::api::changes::answer(c, &raw_query, &who, writes, &run)
                })
                .await);
            }
            Plan::Run {
                dir,
                log,
                work,
                tool,
            } => (dir, log, work, tool),
        };
        let mut work = match self
            .clone()
            .read_if_only_reading(&dir, &who, read_only, work)
            .await?
        {
            Served::Read(answer) => return Err(finish(answer, note, tool)),
            Served::ToWriter(work) => work,
        };
        let store = self.store(&dir, log);
        if let Work::Bulk { progress, .. } = &mut work {
            let (tx, body) = crate::body::Chunks::channel();
            if let Some(n) = note {
                let _ = tx.try_send(Ok(Bytes::from(n)));
            }
            *progress = Some(Box::new(SentProgress(tx.clone())));
            tokio::spawn(async move {
                let answer = name_store(submit(&store, work, who, read_only).await, &dir);
                let status = answer.status();
                let mut b = answer.body;
                b.extend(status_line(tool, status).bytes());
                let _ = tx.send(Ok(Bytes::from(b))).await;
            });
            let mut r = Response::new(body.boxed());
            command_headers(r.headers_mut(), tool);
            return Ok(r);
        }
        let answer = name_store(submit(&store, work, who, read_only).await, &dir);
        Err(finish(answer, note, tool))
    }

    /// A request's body, read whole within its deadline; else what [`Service::answer`]
    /// returns: `Err(Ok(..))` the `408` of a body that came too late (the connection
    /// then closes), `Err(Err(..))` a refusal.
    async fn whole_body(
        &self,
        req: Request<Incoming>,
        name: &str,
        peer: &Peer,
    ) -> Result<Input, Result<Resp, ApiReply>> {
        let within = self.body_deadline(req.headers());
        match crate::body::read_whole(req.into_body(), MAX_BODY, within).await {
            Ok(b) => Ok(Input::Whole(b.to_vec())),
            Err(WholeError::TooLarge) => Err(Err(body_too_large())),
            Err(WholeError::Late(within)) => {
                log::warn!(
                    "populator {name}: request body not there within {} s (client {})",
                    within.as_secs(),
                    peer.shown()
                );
                Err(Ok(crate::body::too_late(within)))
            }
            Err(WholeError::Failed(e)) => Err(Err(plain(
                StatusCode::BAD_REQUEST,
                &format!("error: cannot read the request body: {e}\n"),
            ))),
        }
    }

    /// A bulk POST's body, read as it arrives by the run that holds the binder, at the
    /// pace `[serve]` asks (`bulk_wait`, `bulk_min_rate`) once it has begun within
    /// `body_timeout`. The response head goes out only once the body has begun to
    /// arrive, so that a client waiting for `100 Continue` gets it.
    async fn streamed_body(&self, req: Request<Incoming>) -> Input {
        let serve = self.limits();
        let (tx, mut reader) = crate::body::channel(
            tokio::runtime::Handle::current(),
            self.site().settings().stopping.clone(),
            std::time::Duration::from_secs(serve.body_timeout),
            noid_binder::Pace {
                wait: std::time::Duration::from_secs(serve.bulk_wait),
                min_rate: serve.bulk_min_rate,
            },
        );
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        tokio::spawn(crate::body::pump(req.into_body(), tx, started_tx));
        reader.started(started_rx).await;
        Input::Stream(Box::new(reader))
    }

    /// `GET /a/POP/links`: the link checker's records of binder `dir`, read through
    /// its read-only view (a snapshot while a writer holds it busy: a check being
    /// written then shows at the next request), never through the writer thread.
    async fn links_report(self: Arc<Self>, dir: std::path::PathBuf, query: &str) -> ApiReply {
        let ask = match Ask::of(query) {
            Ok(ask) => ask,
            Err(refused) => return refused,
        };
        match self.view(&dir, move |store| ask.answer(store)).await {
            Ok(reply) => reply,
            Err(e) => plain(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("error: the binder cannot be read now: {e}\n"),
            ),
        }
    }

    /// `GET /a/POP/explain` and `POST /a/POP/rules/test`: resolved on the binder's
    /// read-only view, never through the writer thread (nothing is written).
    async fn resolving(self: Arc<Self>, r: ResolvingRequest, query: &str) -> ApiReply {
        let ask = match Resolving::of(&r, query) {
            Ok(ask) => ask,
            Err(refused) => return refused,
        };
        match self.view(&r.dir, move |store| ask.answer(store)).await {
            Ok(reply) => reply,
            Err(e) => plain(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("error: the binder cannot be read now: {e}\n"),
            ),
        }
    }

    /// A line that only reads is answered through a read-only view (noid-binder's
    /// `Site::reading`), never queued behind the directory's writes; the writer thread
    /// answers everything else, and a read whose minter state cannot be read at all
    /// (it reports why, as for any line).
    async fn read_if_only_reading(
        self: Arc<Self>,
        dir: &Path,
        who: &Who,
        read_only: bool,
        work: Work,
    ) -> Result<Served, ApiReply> {
        let Work::Egg { line, body } = work else {
            return Ok(Served::ToWriter(work));
        };
        if !only_reads(who, &line, &body) {
            return Ok(Served::ToWriter(Work::Egg { line, body }));
        }
        let (d, w) = (dir.to_path_buf(), who.clone());
        let read = tokio::task::spawn_blocking(move || {
            let site = self.site();
            let admission = site.admitted(&d);
            let answer = site.reading(&d, |store| {
                read_line(store, &admission, &w, read_only, &line, &body)
            });
            (answer.ok().flatten(), line, body)
        })
        .await;
        match read {
            Ok((Some(answer), ..)) => Ok(Served::Read(answer)),
            Ok((None, line, body)) => Ok(Served::ToWriter(Work::Egg { line, body })),
            Err(e) => Err(plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("error: the read failed: {e}\n"),
            )),
        }
    }
}
