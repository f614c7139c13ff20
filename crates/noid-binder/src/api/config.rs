//! The service's configuration file (TOML): which populators exist, which binder and
//! minter directories each owns, with what rights, from where, and how its users are
//! authenticated.
//!
//! ```toml
//! # A trusted front server (Apache, nginx) that authenticated the user itself.
//! [front]
//! secret = "a long random string"   # sent as X-Noid-Front-Secret
//! user_header = "X-Remote-User"     # the default
//! addresses = ["127.0.0.1"]         # its X-Forwarded-For is believed from these
//!
//! [populator.sam]
//! htpasswd = "/etc/noid/pwdfile_sam" # htpasswd -B (bcrypt)
//! binder = "/srv/noid/binders/sam"   # /a/sam/b
//! minters = "/srv/noid/minters/sam"  # /a/sam/m/ark/99999/fk4 -> minters/ark/99999/fk4
//! write = true                       # false: reads only
//! allow = ["127.0.0.1", "10.0.0.0/8"]
//! log = "/var/log/noid/sam.log"      # default: BINDER/write.log
//! rules = "/etc/noid/rules"          # explain and rules/test resolve as noidr --rules does
//! registry = "/etc/noid/registry"    # ... and noidr --registry (default: none)
//!
//! [console]                          # the populator console at /console/
//! enabled = true                     # the default
//! session_idle = 1800                # seconds; the default
//! secure_cookies = false             # true: Secure cookies even without a TLS front
//!
//! [serve]                            # connections and deadlines (the defaults)
//! max_connections = 512              # open at once, all clients together
//! max_connections_per_client = 64    # from one client address
//! header_timeout = 10                # seconds for a request head (and an idle keep-alive)
//! body_timeout = 30                  # seconds for a body, + 1 s per 64 KiB it declares
//! bulk_wait = 2                      # seconds a bulk run holding the binder waits for its body
//! bulk_min_rate = 16384              # octets a second it must get meanwhile
//! metrics_listen = "127.0.0.1:9464"  # /metrics there only (default: loopback clients only)
//!
//! [links]                            # the link checker's schedule (docs/LINKS.md); off without it
//! interval = "30d"                   # every target checked once per interval, spread evenly
//! concurrency = 16                   # requests at once, all hosts together
//! per_host = 2                       # requests at once to one host
//! failures = 3                       # K: failures in a row before a target is broken
//! span = "72h"                       # D: ... spread over at least this long
//! contact = "https://example.org/about-our-link-checker"  # in the User-Agent
//! allow_net = ["10.1.0.0/16"]        # targets on these networks may be checked
//! console_url = "https://noid.example.org/console/"     # digests link here
//! timegate = "https://web.archive.org/web/"               # archived copies (noid links policy)
//!
//! [links.digest]                     # owners' digests of what newly broke
//! every = "1d"                       # how often
//! smtp = "mail.example.org:25"       # a relay (or sendmail = "/usr/sbin/sendmail")
//! from = "noid@example.org"
//! to = "curators@example.org"        # site default; a populator's digest_to wins
//! webhook = "https://hooks.example.org/noid"  # JSON POSTed; a populator's digest_webhook wins
//! ```

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ipnet::IpNet;
use noid_resolve::Resolver;
use serde::Deserialize;

use crate::safe_name::is_safe_name;

/// The whole configuration.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A trusted front server, if any.
    pub front: Option<Front>,
    /// The populators by name (the `POPULATOR` of `/a/POPULATOR/…`).
    #[serde(default, rename = "populator")]
    pub populators: BTreeMap<String, Populator>,
    /// How long a write waits for the store lock held by another process, in seconds.
    #[serde(default = "default_lock_timeout")]
    pub lock_timeout: u64,
    /// The populator console at `/console/`.
    #[serde(default)]
    pub console: ConsoleConfig,
    /// Connections, deadlines and the metrics address.
    #[serde(default)]
    pub serve: ServeConfig,
    /// The link checker's schedule and digests; no checking without it.
    pub links: Option<super::links::LinksConfig>,
}

/// `[serve]`: what one client may hold of the server, and for how long
/// (docs/SECURITY.md, "Limits and timeouts").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServeConfig {
    /// Connections open at once, all clients together; more wait in the kernel's
    /// accept queue (default 512: room for the stores' files under `ulimit -n 1024`).
    pub max_connections: usize,
    /// Connections open at once from one client address (default 64); more are closed
    /// at once. The front server's addresses and the unix socket count only towards
    /// `max_connections`.
    pub max_connections_per_client: usize,
    /// Seconds a client has to send a whole request head, from its connection or its
    /// previous answer: also how long an idle keep-alive connection stays (default 10).
    pub header_timeout: u64,
    /// Seconds a form's or a single command's body has to arrive (default 30), one
    /// more per 64 KiB its `Content-Length` declares; later, `408`.
    pub body_timeout: u64,
    /// Seconds a bulk run that holds the binder waits for its body before it looks
    /// whether the body keeps up (default 2).
    pub bulk_wait: u64,
    /// Octets a second a bulk body must bring while its run waits for it (default
    /// 16384); a slower body ends the run there, committed and reported.
    pub bulk_min_rate: u64,
    /// Where `/metrics` is served (`HOST:PORT`); then the API's address answers it
    /// `404`. Without it, `/metrics` is answered on the API's address to clients on
    /// loopback only.
    pub metrics_listen: Option<String>,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            max_connections: 512,
            max_connections_per_client: 64,
            header_timeout: 10,
            body_timeout: 30,
            bulk_wait: 2,
            bulk_min_rate: 16 << 10,
            metrics_listen: None,
        }
    }
}

/// `[console]`: the populator console (noid-api's `console`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsoleConfig {
    /// Whether `/console/` is served (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Seconds without a request after which a session ends (default 1800).
    #[serde(default = "default_session_idle")]
    pub session_idle: u64,
    /// Cookies are `Secure` even when no front server says the browser uses TLS.
    #[serde(default)]
    pub secure_cookies: bool,
    /// The resolver the console links minted identifiers to
    /// (`https://n2t.example.org/`: a link is this followed by the identifier). Without
    /// one, no resolver link is shown.
    #[serde(default)]
    pub resolver: Option<String>,
}

impl Default for ConsoleConfig {
    fn default() -> Self {
        ConsoleConfig {
            enabled: true,
            session_idle: default_session_idle(),
            secure_cookies: false,
            resolver: None,
        }
    }
}

fn default_session_idle() -> u64 {
    1800
}

/// A front server that authenticates users itself and passes the login on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Front {
    /// The shared secret the front server sends in `X-Noid-Front-Secret`. Without one,
    /// only connections over a unix socket may name a user.
    pub secret: Option<String>,
    /// The header carrying the login (`X-Remote-User` by default).
    #[serde(default = "default_user_header")]
    pub user_header: String,
    /// Where the front server connects from (addresses or networks): from these, and
    /// over a unix socket or with the secret, `X-Forwarded-For` names the client (for
    /// allow-lists, failed-attempt limits and the write log). From anywhere else it
    /// is ignored.
    #[serde(default)]
    pub addresses: Vec<String>,
}

/// One populator: its directories, rights and users.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Populator {
    /// The `htpasswd -B` file of its logins.
    pub htpasswd: Option<PathBuf>,
    /// No authentication at all (EggNog's populator without a password file).
    #[serde(default)]
    pub open: bool,
    /// Its binder: a noid directory (made with `noid -f DIR dbcreate`).
    pub binder: Option<PathBuf>,
    /// The directory under which its minters sit as `SCHEME/NAAN/SHOULDER`.
    pub minters: Option<PathBuf>,
    /// Whether it may write (bind, mint); reads only when false.
    #[serde(default = "yes")]
    pub write: bool,
    /// Client addresses or networks allowed; anyone when empty.
    #[serde(default)]
    pub allow: Vec<String>,
    /// The binder's write log (default `BINDER/write.log`).
    pub log: Option<PathBuf>,
    /// May write identifiers outside its minters' shoulders. Without it, a populator
    /// with minters writes only identifiers under their shoulders (the identifier
    /// gate, docs/API.md).
    #[serde(default)]
    pub any_identifier: bool,
    /// Where its link digests are mailed (`[links.digest] to` otherwise).
    pub digest_to: Option<String>,
    /// Where its link digests are POSTed as JSON (`[links.digest] webhook` otherwise).
    pub digest_webhook: Option<String>,
    /// The rules file its binder is resolved with (noidr's `--rules`), for `explain` and
    /// `rules/test`; the built-in rules without one.
    pub rules: Option<PathBuf>,
    /// The prefix registry its binder is resolved with (noidr's `--registry`); none
    /// without one.
    pub registry: Option<PathBuf>,
}

fn default_lock_timeout() -> u64 {
    60
}

fn default_user_header() -> String {
    "X-Remote-User".into()
}

fn yes() -> bool {
    true
}

/// A populator with its allow-list parsed and its resolver made.
#[derive(Debug, Clone)]
pub struct Checked {
    /// As configured.
    pub populator: Populator,
    /// `allow`, parsed.
    pub allow: Vec<IpNet>,
    /// The resolver of its `rules` and `registry` files, read once when the
    /// configuration is (a bad file stops the service from starting), for `explain`
    /// and `rules/test`.
    pub resolver: Arc<Resolver>,
}

impl Checked {
    /// Whether a client at `ip` (none: a unix socket) may use this populator.
    pub fn allows(&self, ip: Option<IpAddr>) -> bool {
        match ip {
            _ if self.allow.is_empty() => true,
            Some(ip) => self.allow.iter().any(|n| n.contains(&ip)),
            None => true,
        }
    }

    /// The binder's write log.
    pub fn log_path(&self) -> Option<PathBuf> {
        let binder = self.populator.binder.as_ref()?;
        Some(
            self.populator
                .log
                .clone()
                .unwrap_or_else(|| binder.join("write.log")),
        )
    }
}

/// An address or network (`10.0.0.0/8`, `127.0.0.1`).
fn net(a: &str) -> Option<IpNet> {
    a.parse::<IpNet>()
        .or_else(|_| a.parse::<IpAddr>().map(IpNet::from))
        .ok()
}

/// The front server's addresses, parsed.
pub fn front_addresses(config: &Config) -> Result<Vec<IpNet>, String> {
    let Some(front) = &config.front else {
        return Ok(Vec::new());
    };
    front
        .addresses
        .iter()
        .map(|a| net(a).ok_or_else(|| format!("front: address {a:?} is not an address or network")))
        .collect()
}

/// Read and check the configuration file.
pub fn load(path: &Path) -> Result<(Config, BTreeMap<String, Checked>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parse and check configuration text.
pub fn parse(text: &str) -> Result<(Config, BTreeMap<String, Checked>), String> {
    let config: Config = toml::from_str(text).map_err(|e| e.to_string())?;
    front_addresses(&config)?;
    let serve = &config.serve;
    if serve.max_connections == 0 || serve.max_connections_per_client == 0 {
        return Err(
            "serve: max_connections and max_connections_per_client must be at least 1".into(),
        );
    }
    if serve.header_timeout == 0 || serve.body_timeout == 0 || serve.bulk_wait == 0 {
        return Err(
            "serve: header_timeout, body_timeout and bulk_wait must be at least 1 second".into(),
        );
    }
    if let Some(links) = &config.links {
        links.check(&config.populators)?;
    }
    let mut checked = BTreeMap::new();
    for (name, p) in &config.populators {
        if !is_safe_name(name) {
            return Err(format!(
                "populator name {name:?}: use letters, digits, _ - ."
            ));
        }
        if p.htpasswd.is_none() && !p.open {
            return Err(format!(
                "populator {name}: give an htpasswd file, or open = true for no authentication"
            ));
        }
        if p.binder.is_none() && p.minters.is_none() {
            return Err(format!(
                "populator {name}: neither binder nor minters given"
            ));
        }
        if let Some(b) = &p.binder {
            if !noid_store::Layout::new(b).has_minter() {
                return Err(format!(
                    "populator {name}: binder {} is not a noid directory (noid -f DIR dbcreate)",
                    b.display()
                ));
            }
        }
        let mut allow = Vec::new();
        for a in &p.allow {
            allow.push(net(a).ok_or_else(|| {
                format!("populator {name}: allow {a:?} is not an address or network")
            })?);
        }
        let resolver =
            crate::resolver_files::resolver_from_files(p.rules.as_deref(), p.registry.as_deref())
                .map_err(|e| format!("populator {name}: {e}"))?;
        checked.insert(
            name.clone(),
            Checked {
                populator: p.clone(),
                allow,
                resolver: Arc::new(resolver),
            },
        );
    }
    Ok((config, checked))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serve_limits_default_and_refuse_zero() {
        let (c, _) = parse("").unwrap();
        assert_eq!(
            (
                c.serve.max_connections,
                c.serve.max_connections_per_client,
                c.serve.header_timeout,
                c.serve.body_timeout,
                c.serve.bulk_wait,
                c.serve.bulk_min_rate,
                c.serve.metrics_listen
            ),
            (512, 64, 10, 30, 2, 16384, None)
        );
        let (c, _) = parse("[serve]\nbody_timeout = 5\n").unwrap();
        assert_eq!((c.serve.body_timeout, c.serve.header_timeout), (5, 10));
        assert_eq!(
            parse("[serve]\nmax_connections_per_client = 0\n").unwrap_err(),
            "serve: max_connections and max_connections_per_client must be at least 1"
        );
        assert_eq!(
            parse("[serve]\nbulk_wait = 0\n").unwrap_err(),
            "serve: header_timeout, body_timeout and bulk_wait must be at least 1 second"
        );
        assert!(parse("[serve]\nmax_conections = 5\n")
            .unwrap_err()
            .contains("unknown field `max_conections`"));
    }
}
