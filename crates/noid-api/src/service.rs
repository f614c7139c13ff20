//! The service's shared state ([`Service`]): noid-binder's [`Site`] (populators,
//! password files, directory writers) and what only the HTTP service has: failed
//! login counts, the bcrypt permits, the front server's addresses, the console and
//! its uploads; and who a request is (a trusted front server's login, or Basic
//! credentials checked here, [`Service::verify`]), for the API and the console alike.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Request, StatusCode};
use noid_binder::api::{self, plain, unauthorized, ApiReply, Checked, Config, Site, Verdict};
use noid_binder::DirectoryWriter;

use crate::console::state::Console;
use crate::failures::{self, Failures, NotNow};
use crate::metrics::Metrics;
use crate::reply::too_many;
use crate::upload::run::Uploads;

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
    /// The client as logged and written in the write log: its address, or `unix`.
    pub fn shown(&self) -> String {
        match self.ip {
            Some(ip) => ip.to_string(),
            None => "unix".into(),
        }
    }
}

/// The service's shared state.
pub struct Service {
    /// The API as configured, its password files and directory writers.
    site: Site,
    /// What the service counts (`GET /metrics`).
    pub(crate) metrics: Arc<Metrics>,
    failures: Failures,
    /// Permits to run bcrypt: one per core, so that password checks cannot take
    /// every core from the requests that need none.
    verifying: tokio::sync::Semaphore,
    /// Where the front server connects from (its `X-Forwarded-For` is believed).
    front_addresses: Vec<ipnet::IpNet>,
    /// The console's uploads, running or done.
    pub(crate) uploads: Uploads,
    /// The populator console's sessions and settings.
    pub(crate) console: Console,
    /// The link checker's gauges on `/metrics`.
    pub(crate) link_gauges: Arc<crate::links::gauges::Gauges>,
}

impl Service {
    /// A service for a checked configuration.
    pub fn new(
        config: Config,
        populators: std::collections::BTreeMap<String, Checked>,
        temper: fn(i64) -> String,
    ) -> Service {
        let metrics = Arc::new(Metrics::new(populators.keys()));
        Service {
            console: Console::new(&config.console),
            front_addresses: api::front_addresses(&config).unwrap_or_default(),
            site: Site::new(config, populators, temper, metrics.clone()),
            metrics,
            failures: Failures::default(),
            verifying: tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            ),
            uploads: Default::default(),
            link_gauges: Default::default(),
        }
    }

    /// The API as configured: its checks, populators and directory writers.
    pub fn site(&self) -> &Site {
        &self.site
    }

    /// `[serve]`: connection limits, deadlines, the metrics address.
    pub fn limits(&self) -> &noid_binder::api::ServeConfig {
        &self.site.config().serve
    }

    /// The front server's addresses (`[front] addresses`).
    pub fn front_networks(&self) -> Vec<ipnet::IpNet> {
        self.front_addresses.clone()
    }

    /// The deadline of a form's or a single command's body (`[serve] body_timeout`,
    /// [`crate::body::deadline`]).
    pub fn body_deadline(&self, headers: &hyper::HeaderMap) -> std::time::Duration {
        crate::body::deadline(
            std::time::Duration::from_secs(self.limits().body_timeout),
            crate::body::declared_length(headers),
        )
    }

    /// `GET /metrics`: the service's metrics (`[serve] metrics_listen`'s one answer).
    pub fn metrics(&self, req: &Request<Incoming>) -> crate::reply::Resp {
        crate::reply::response(self.metrics.reply(
            req,
            self.console.sessions.len(),
            &self.link_gauges,
        ))
    }

    /// The writer thread of directory `dir`, started on first use.
    pub fn store(&self, dir: &Path, log: Option<PathBuf>) -> DirectoryWriter {
        self.site.writer(dir, log)
    }

    /// The configured populator `name`.
    pub fn populator(&self, name: &str) -> Option<&Checked> {
        self.site.populator(name)
    }

    /// `f` on the read-only view of the store in `dir` (noid-binder's `Site::reading`:
    /// never through the writer thread), on a blocking thread: the link checker's
    /// records, for the console's and the schedule's reads.
    pub async fn view<T: Send + 'static>(
        self: &Arc<Self>,
        dir: &Path,
        f: impl Fn(&dyn noid_core::Lookup) -> T + Send + 'static,
    ) -> Result<T, String> {
        let (service, at) = (self.clone(), dir.to_path_buf());
        tokio::task::spawn_blocking(move || service.site().reading(&at, &f))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| noid_binder::name_store_in(&e, dir))
    }

    /// Tell running bulk requests to stop at their next command (the server is
    /// stopping); each says how far it got.
    pub fn stop(&self) {
        self.site.stop();
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
    ) -> Result<String, ApiReply> {
        if let Some(login) = self.front_user(req, peer) {
            return self.site.front_login(name, pop, login);
        }
        if pop.is_some_and(|p| p.populator.open || p.populator.htpasswd.is_none()) {
            return Ok(name.to_string());
        }
        let cred = req
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(api::parse_basic);
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
    /// The attempt is counted before the password is checked (`Failures::attempt`),
    /// and every password file is checked, each by one bcrypt (on a dummy hash for a
    /// login it lacks), so that the time taken tells nothing of which logins exist
    /// where.
    pub async fn verify(
        self: Arc<Self>,
        name: &str,
        pop: Option<&Checked>,
        cred: api::Basic,
        peer: &Peer,
    ) -> Result<String, ApiReply> {
        if pop.is_some_and(|p| p.populator.open || p.populator.htpasswd.is_none()) {
            return Ok(name.to_string());
        }
        let own = pop.and_then(|p| p.populator.htpasswd.clone());
        if own
            .as_ref()
            .is_some_and(|f| self.site.passwords().remembered(f, &cred))
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
                        failures::seconds(wait),
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
            .site
            .populators()
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
    async fn check(self: Arc<Self>, file: PathBuf, cred: api::Basic) -> Verdict {
        let Ok(_permit) = self.verifying.acquire().await else {
            return Verdict::Invalid;
        };
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.site.passwords().check(&file, &cred))
            .await
            .unwrap_or(Verdict::Invalid)
    }

    /// The login a trusted front server passed on: over a unix socket, or with the
    /// configured shared secret.
    fn front_user(&self, req: &Request<Incoming>, peer: &Peer) -> Option<String> {
        let front = self.site.config().front.as_ref()?;
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
        let Some(secret) = self
            .site
            .config()
            .front
            .as_ref()
            .and_then(|f| f.secret.as_ref())
        else {
            return false;
        };
        req.headers()
            .get("x-noid-front-secret")
            .is_some_and(|g| api::same_secret(g.as_bytes(), secret.as_bytes()))
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

    /// Whether `req` comes from the configured front server (one of its `addresses`,
    /// the unix socket, or its secret), whose forwarding headers are believed.
    pub fn from_front(&self, req: &Request<Incoming>, peer: &Peer) -> bool {
        if self.site.config().front.is_none() {
            return false;
        }
        let from_address = match peer.ip {
            Some(ip) => self.front_addresses.iter().any(|n| n.contains(&ip)),
            None => true,
        };
        from_address || self.front_secret(req)
    }
}
