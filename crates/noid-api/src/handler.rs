//! One HTTP request: route, cross-site check, populator, address check,
//! authentication, then the binder or minter command, and the response (`200` with
//! `egg-status:` for command results, errors included, as N2T answers;
//! `401`/`403`/`404`/`413`/`429` before any command runs).
//!
//! A populator that is not configured is answered as one whose logins all fail
//! (`401`, the same realm and body; `403` for a login of another populator), so that
//! neither populator names nor logins can be learnt from the answers or their timing.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};

use crate::auth::{self, Failures, NotNow, Passwords, Verdict};
use crate::body::WholeError;
use crate::config::{Checked, Config};
use crate::plan::{is_bulk, plan, verbose_note, Input, Plan};
use crate::reply::{command_headers, status_line, too_many, unauthorized};
pub use crate::reply::{finish, plain, Reply, Resp};
use crate::route::{self, Route};
use crate::store::{self, DirectoryWriter, Who, Work, WorkResult};

/// Largest request body of a single command (its indirect tokens' values): a value
/// at the limit ([`noid_egg::MAX_REMOTE_VALUE`]) and room for an element name and the
/// tokens' trailers. A bulk POST's body is streamed: its values are limited one by
/// one, as they are read.
pub const MAX_BODY: usize = noid_egg::MAX_REMOTE_VALUE + (64 << 10);

/// `413` for a single command's body longer than [`MAX_BODY`].
pub fn body_too_large() -> Reply {
    plain(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!(
            "error: 413 request body larger than {MAX_BODY} octets: a value may have at most {} \
             octets over the API\n",
            noid_egg::MAX_REMOTE_VALUE
        ),
    )
}

/// `answer` with the directory `dir` named by its last component wherever its errors
/// give its path (`error: lock timeout …; another noid process holds
/// "sam/NOID/lock"`): a client learns which store, not where it is on the disk. The
/// full text is logged. (The API's answers and the console's pages alike.)
pub(crate) fn name_store(mut answer: WorkResult, dir: &Path) -> WorkResult {
    let (Some(name), Some(path)) = (dir.file_name(), dir.to_str()) else {
        return answer;
    };
    if !answer.failed || path.is_empty() {
        return answer;
    }
    let (path, name_bytes) = (path.as_bytes(), name.as_encoded_bytes());
    let mut named = Vec::with_capacity(answer.body.len());
    let mut rest = &answer.body[..];
    while let Some(at) = rest.windows(path.len()).position(|w| w == path) {
        named.extend_from_slice(&rest[..at]);
        named.extend_from_slice(name_bytes);
        rest = &rest[at + path.len()..];
    }
    named.extend_from_slice(rest);
    if let Some(e) = &mut answer.error {
        *e = e.replace(&*String::from_utf8_lossy(path), &name.to_string_lossy());
    }
    if named != answer.body {
        log::warn!(
            "{}: answered, with the store named {}: {}",
            dir.display(),
            name.to_string_lossy(),
            String::from_utf8_lossy(&answer.body).trim_end()
        );
    }
    answer.body = named;
    answer
}

/// Where a request comes from.
#[derive(Debug, Clone)]
pub struct Peer {
    /// The client's address; `None` over a unix socket (unless a front server named
    /// the client).
    pub ip: Option<IpAddr>,
    /// The connection is over the unix socket (only the front server reaches it).
    pub via_socket: bool,
}

impl Peer {
    fn shown(&self) -> String {
        match self.ip {
            Some(ip) => ip.to_string(),
            None => "unix".into(),
        }
    }
}

/// The service's shared state.
pub struct Service {
    config: Config,
    populators: std::collections::BTreeMap<String, Checked>,
    passwords: Passwords,
    failures: Failures,
    /// Permits to run bcrypt: one per core, so that password checks cannot take
    /// every core from the requests that need none.
    verifying: tokio::sync::Semaphore,
    stores: Mutex<HashMap<PathBuf, DirectoryWriter>>,
    settings: store::Settings,
    /// Where the front server connects from (its `X-Forwarded-For` is believed).
    front_addresses: Vec<ipnet::IpNet>,
    /// The console's uploads, running or done.
    pub(crate) uploads: crate::upload::run::Uploads,
    /// The populator console's sessions and settings.
    pub(crate) console: crate::console::Console,
}

impl Service {
    /// A service for a checked configuration.
    pub fn new(
        config: Config,
        populators: std::collections::BTreeMap<String, Checked>,
        temper: fn(i64) -> String,
    ) -> Service {
        let settings = store::Settings {
            lock_timeout: std::time::Duration::from_secs(config.lock_timeout),
            temper,
            stopping: Arc::new(AtomicBool::new(false)),
            metrics: Arc::new(crate::metrics::Metrics::new(populators.keys())),
        };
        Service {
            console: crate::console::Console::new(&config.console),
            front_addresses: crate::config::front_addresses(&config).unwrap_or_default(),
            config,
            populators,
            passwords: Passwords::default(),
            failures: Failures::default(),
            verifying: tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            ),
            stores: Mutex::new(HashMap::new()),
            settings,
            uploads: Default::default(),
        }
    }

    /// Where what binder `dir` admits comes from: the minters of the populators whose
    /// binder it is (`crate::admission`).
    pub(crate) fn admission(&self, dir: &Path) -> crate::admission::Source {
        let owners: Vec<&Checked> = self
            .populators
            .values()
            .filter(|p| p.populator.binder.as_deref() == Some(dir))
            .collect();
        let roots = owners
            .iter()
            .filter_map(|p| p.populator.minters.clone())
            .collect();
        let limit = !owners.iter().any(|p| p.populator.any_identifier);
        crate::admission::Source::new(roots, limit)
    }

    /// The thread of directory `dir`, started on first use.
    pub(crate) fn store(&self, dir: &Path, log: Option<PathBuf>) -> DirectoryWriter {
        let mut stores = self.stores.lock().expect("stores");
        stores
            .entry(dir.to_path_buf())
            .or_insert_with(|| {
                let admission = self.admission(dir);
                DirectoryWriter::start(dir.to_path_buf(), log, self.settings.clone(), admission)
            })
            .clone()
    }

    /// `[serve]`: connection limits, deadlines, the metrics address.
    pub fn limits(&self) -> &crate::config::ServeConfig {
        &self.config.serve
    }

    /// The front server's addresses (`[front] addresses`).
    pub fn front_networks(&self) -> Vec<ipnet::IpNet> {
        self.front_addresses.clone()
    }

    /// The deadline of a form's or a single command's body (`[serve] body_timeout`,
    /// [`crate::body::deadline`]).
    pub fn body_deadline(&self, headers: &hyper::HeaderMap) -> std::time::Duration {
        crate::body::deadline(
            std::time::Duration::from_secs(self.config.serve.body_timeout),
            crate::body::declared_length(headers),
        )
    }

    /// `GET /metrics`: the service's metrics (`[serve] metrics_listen`'s one answer).
    pub fn metrics(&self, req: &Request<Incoming>) -> Resp {
        self.settings
            .metrics
            .reply(req, self.console.sessions.len())
            .into_response()
    }

    /// Answer one request (`GET /metrics`: the service's metrics, to a client on
    /// loopback when no `metrics_listen` is configured), counted in them.
    pub async fn handle(self: Arc<Self>, req: Request<Incoming>, peer: Peer) -> Resp {
        let metrics = self.settings.metrics.clone();
        if req.uri().path() == "/metrics"
            && self.config.serve.metrics_listen.is_none()
            && peer.ip.is_some_and(|ip| ip.is_loopback())
        {
            return self.metrics(&req);
        }
        if self.console.enabled && crate::console::is_console(req.uri().path()) {
            return crate::console::handle(self, req, peer).await;
        }
        let populator = route::parse(req.uri().path()).map(|r| r.populator().to_string());
        let response = self
            .answer(req, peer)
            .await
            .unwrap_or_else(Reply::into_response);
        metrics.answered(populator.as_deref(), response.status().as_u16());
        response
    }

    /// The checks every request passes before its login, over HTTP and as a CGI
    /// alike: a populator's route, the populator if it is configured (`None`: it is
    /// answered as one whose logins all fail, so that populator names cannot be told
    /// apart), and a client its allow-list admits.
    pub fn admit(
        &self,
        path: &str,
        client: Option<IpAddr>,
    ) -> Result<(Route, Option<&Checked>), Reply> {
        let route =
            route::parse(path).ok_or_else(|| plain(StatusCode::NOT_FOUND, "error: not found\n"))?;
        let pop = self.populators.get(route.populator());
        if pop.is_some_and(|p| !p.allows(client)) {
            log::warn!(
                "populator {}: refused client {}",
                route.populator(),
                client.map_or_else(|| "unix".into(), |ip| ip.to_string())
            );
            return Err(plain(StatusCode::FORBIDDEN, "error: 403 forbidden\n"));
        }
        Ok((route, pop))
    }

    /// The login a front server authenticated (Apache's `REMOTE_USER` for the CGI),
    /// when it is one of populator `name`'s.
    pub fn front_login(
        &self,
        name: &str,
        pop: Option<&Checked>,
        login: String,
    ) -> Result<String, Reply> {
        if pop.is_some_and(|p| self.vouched(p, &login)) {
            return Ok(login);
        }
        log::warn!("populator {name}: front server's user {login} is not one of its logins");
        Err(plain(StatusCode::FORBIDDEN, "error: 403 forbidden\n"))
    }

    /// The response to `req`: `Ok` for a streamed one (a bulk POST's), `Err` for a
    /// complete one (every refusal, and a command's answer), so that `?` ends the
    /// request at any refusal.
    async fn answer(self: Arc<Self>, req: Request<Incoming>, peer: Peer) -> Result<Resp, Reply> {
        if req.method() != Method::GET && req.method() != Method::POST {
            return Err(plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "error: GET or POST only\n",
            ));
        }
        let peer = self.client(&req, peer);
        crate::origin::same_site(&req)?;
        let (route, pop) = self.admit(req.uri().path(), peer.ip)?;
        let name = route.populator().to_string();
        let login = self.clone().identify(&req, &peer, &name, pop).await?;
        // No login is ever valid for a populator that is not configured.
        let Some(pop) = pop else {
            return Err(unauthorized(&name));
        };
        let query = route::decode_query(req.uri().query().unwrap_or(""));
        let acting_for = req
            .headers()
            .get("acting-for")
            .and_then(|h| h.to_str().ok())
            .map(str::to_string);
        let note = verbose_note(&query, &login, acting_for.as_deref());
        let input = if matches!(route, Route::Binder { .. }) && is_bulk(&query) {
            let serve = &self.config.serve;
            let (tx, mut reader) = crate::body::channel(
                tokio::runtime::Handle::current(),
                self.settings.stopping.clone(),
                std::time::Duration::from_secs(serve.body_timeout),
                crate::body::Pace {
                    wait: std::time::Duration::from_secs(serve.bulk_wait),
                    min_rate: serve.bulk_min_rate,
                },
            );
            let (started_tx, started_rx) = tokio::sync::oneshot::channel();
            tokio::spawn(crate::body::pump(req.into_body(), tx, started_tx));
            // The response head goes out only once the body has begun to arrive, so
            // that a client waiting for `100 Continue` gets it.
            reader.started(started_rx).await;
            Input::Stream(Box::new(reader))
        } else {
            let within = self.body_deadline(req.headers());
            match crate::body::read_whole(req.into_body(), MAX_BODY, within).await {
                Ok(b) => Input::Whole(b.to_vec()),
                Err(WholeError::TooLarge) => return Err(body_too_large()),
                Err(WholeError::Late(within)) => {
                    log::warn!(
                        "populator {name}: request body not there within {} s (client {})",
                        within.as_secs(),
                        peer.shown()
                    );
                    return Ok(crate::body::too_late(within));
                }
                Err(WholeError::Failed(e)) => {
                    return Err(plain(
                        StatusCode::BAD_REQUEST,
                        &format!("error: cannot read the request body: {e}\n"),
                    ))
                }
            }
        };
        let who = Who {
            populator: name,
            login,
            client: peer.shown(),
            acting_for,
        };
        let read_only = !pop.populator.write;
        let (dir, log, mut work, tool) = match plan(&route, pop, query, input) {
            Plan::Respond(r) => return Err(r),
            Plan::Answer(a, tool) => return Err(finish(a, note, tool)),
            Plan::Run {
                dir,
                log,
                work,
                tool,
            } => (dir, log, work, tool),
        };
        let store = self.store(&dir, log);
        if let Work::Bulk { progress, .. } = &mut work {
            let (tx, body) = crate::body::Streamed::channel();
            if let Some(n) = note {
                let _ = tx.try_send(Bytes::from(n));
            }
            *progress = Some(tx.clone());
            tokio::spawn(async move {
                let answer = name_store(store.submit(work, who, read_only).await, &dir);
                let status = answer.status();
                let mut b = answer.body;
                b.extend(status_line(tool, status).bytes());
                let _ = tx.send(Bytes::from(b)).await;
            });
            let mut r = Response::new(body.boxed());
            command_headers(r.headers_mut(), tool);
            return Ok(r);
        }
        let answer = name_store(store.submit(work, who, read_only).await, &dir);
        Err(finish(answer, note, tool))
    }

    /// Tell running bulk requests to stop at their next command (the server is
    /// stopping); each says how far it got.
    pub fn stop(&self) {
        self.settings.stopping.store(true, Ordering::Relaxed);
    }

    /// The configured populator `name`.
    pub fn populator(&self, name: &str) -> Option<&Checked> {
        self.populators.get(name)
    }

    /// How directories are opened and records stamped.
    pub fn settings(&self) -> &store::Settings {
        &self.settings
    }

    /// Whether `login` may act for populator `pop` on a front server's word.
    pub fn vouched(&self, pop: &Checked, login: &str) -> bool {
        match &pop.populator.htpasswd {
            _ if pop.populator.open => true,
            Some(file) => self.passwords.knows(file, login),
            None => false,
        }
    }

    /// The login acting, or the response that refuses the request: a trusted front
    /// server's login, or the request's Basic credentials ([`Service::verify`]). For a
    /// populator that is not configured (`None`), never a login.
    pub(crate) async fn identify(
        self: Arc<Self>,
        req: &Request<Incoming>,
        peer: &Peer,
        name: &str,
        pop: Option<&Checked>,
    ) -> Result<String, Reply> {
        if let Some(login) = self.front_user(req, peer) {
            return self.front_login(name, pop, login);
        }
        if pop.is_some_and(|p| p.populator.open || p.populator.htpasswd.is_none()) {
            return Ok(name.to_string());
        }
        let cred = req
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(auth::parse_basic);
        let Some(cred) = cred else {
            return Err(unauthorized(name));
        };
        self.verify(name, pop, cred, peer).await
    }

    /// The login of `cred` if it is one of populator `name`'s (the API's and the
    /// console's one check of a password); otherwise the response that refuses it:
    /// `403` for a login of another populator, `429` while that login from that
    /// address (or that address) has failed too often, `401` (and a failed attempt
    /// counted) for anything else, a populator that is not configured (`None`)
    /// included.
    ///
    /// The attempt is counted before the password is checked ([`Failures::attempt`]),
    /// and every password file is checked, each by one bcrypt (on a dummy hash for a
    /// login it lacks), so that the time taken tells nothing of which logins exist
    /// where.
    pub async fn verify(
        self: Arc<Self>,
        name: &str,
        pop: Option<&Checked>,
        cred: auth::Basic,
        peer: &Peer,
    ) -> Result<String, Reply> {
        if pop.is_some_and(|p| p.populator.open || p.populator.htpasswd.is_none()) {
            return Ok(name.to_string());
        }
        let own = pop.and_then(|p| p.populator.htpasswd.clone());
        if own
            .as_ref()
            .is_some_and(|f| self.passwords.remembered(f, &cred))
        {
            return Ok(cred.user);
        }
        let attempt = loop {
            let settled = self.failures.settled.notified();
            match self.failures.attempt(&cred.user, peer.ip) {
                Ok(a) => break a,
                Err(NotNow::Busy) => settled.await,
                Err(NotNow::Refused(wait)) => {
                    log::warn!(
                        "populator {name}: login {:?} refused for {} s after too many failures (client {})",
                        cred.user,
                        auth::seconds(wait),
                        peer.shown()
                    );
                    return Err(too_many(&cred.user, wait));
                }
            }
        };
        if let Some(file) = own.clone() {
            if self.clone().check(file, cred.clone()).await == Verdict::Valid {
                attempt.succeeded();
                return Ok(cred.user);
            }
        }
        // Valid for another populator: authenticated, but not allowed here. Every
        // other file is checked, valid or not, so that each refusal costs the same.
        let others: std::collections::BTreeSet<PathBuf> = self
            .populators
            .values()
            .filter_map(|p| p.populator.htpasswd.clone())
            .filter(|f| Some(f) != own.as_ref())
            .collect();
        let mut elsewhere = false;
        for file in others {
            elsewhere |= self.clone().check(file, cred.clone()).await == Verdict::Valid;
        }
        if elsewhere {
            attempt.succeeded();
            log::warn!(
                "populator {name}: login {} of another populator refused (client {})",
                cred.user,
                peer.shown()
            );
            return Err(plain(StatusCode::FORBIDDEN, "error: 403 forbidden\n"));
        }
        drop(attempt);
        log::warn!(
            "populator {name}: authentication failed for login {:?} (client {})",
            cred.user,
            peer.shown()
        );
        Err(unauthorized(name))
    }

    /// Check `cred` against `file` on a blocking thread, once a bcrypt permit is had.
    async fn check(self: Arc<Self>, file: PathBuf, cred: auth::Basic) -> Verdict {
        let Ok(_permit) = self.verifying.acquire().await else {
            return Verdict::Invalid;
        };
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.passwords.check(&file, &cred))
            .await
            .unwrap_or(Verdict::Invalid)
    }

    /// The login a trusted front server passed on: over a unix socket, or with the
    /// configured shared secret.
    fn front_user(&self, req: &Request<Incoming>, peer: &Peer) -> Option<String> {
        let front = self.config.front.as_ref()?;
        let login = req
            .headers()
            .get(front.user_header.as_str())?
            .to_str()
            .ok()?;
        let trusted = peer.via_socket || self.front_secret(req);
        (trusted && !login.is_empty()).then(|| login.to_string())
    }

    /// Whether the request carries the front server's shared secret.
    fn front_secret(&self, req: &Request<Incoming>) -> bool {
        let Some(secret) = self.config.front.as_ref().and_then(|f| f.secret.as_ref()) else {
            return false;
        };
        req.headers()
            .get("x-noid-front-secret")
            .is_some_and(|g| auth::same_secret(g.as_bytes(), secret.as_bytes()))
    }

    /// The client a request comes from: the connection's peer, or, when the peer is
    /// the configured front server (one of its `addresses`, the unix socket, or the
    /// secret), the last address of its `X-Forwarded-For` (the one it added).
    /// Allow-lists, failed-attempt limits and the write log all use this address.
    pub fn client(&self, req: &Request<Incoming>, peer: Peer) -> Peer {
        if !self.from_front(req, &peer) {
            return peer;
        }
        let forwarded = req
            .headers()
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|h| h.to_str().ok())
            .flat_map(|h| h.split(','))
            .next_back()
            .map(str::trim);
        match forwarded.map(|f| (f, f.parse::<IpAddr>())) {
            Some((_, Ok(ip))) => Peer {
                ip: Some(ip),
                via_socket: peer.via_socket,
            },
            Some((f, Err(_))) => {
                log::warn!("front server sent X-Forwarded-For {f:?}, not an address; ignored");
                peer
            }
            None => peer,
        }
    }
}

impl Service {
    /// Whether `req` comes from the configured front server (one of its `addresses`,
    /// the unix socket, or its secret), whose forwarding headers are believed.
    pub fn from_front(&self, req: &Request<Incoming>, peer: &Peer) -> bool {
        if self.config.front.is_none() {
            return false;
        }
        let from_address = match peer.ip {
            Some(ip) => self.front_addresses.iter().any(|n| n.contains(&ip)),
            None => true,
        };
        from_address || self.front_secret(req)
    }
}
