//! Command line: raw clap flags, then a validated [`Config`] built before anything runs.
//!
//! Apache starts `RewriteMap prg:` programs with an EMPTY environment and the program's
//! directory as cwd, so every setting comes from argv (or the rules file it names), and
//! the Dbdir can come from the executable's name (`noidr_fk9` → `fk9`) as in the manual.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::bail;
use clap::{Parser, ValueEnum, ValueHint};
use noid_resolve::egg::Miss;
use noid_resolve::{Registry, Rules};
use noid_store::Layout;

use crate::current::{read_registry, read_rules};

/// the noid identifier resolver, for Apache's RewriteMap prg: and for HTTP
///
/// noidr reads one request per line on stdin and writes exactly one answer line per
/// request on stdout (Apache `RewriteMap prg:`), or serves HTTP (--http) for nginx and
/// Apache mod_proxy. It follows the minter's store: a binding written by noid is
/// answered by the next request.
#[derive(Debug, Parser)]
#[command(
    name = "noidr",
    version,
    after_long_help = "Signals: SIGHUP reopens the store (after the minter was replaced or \
        re-created) and re-reads the --rules and --registry files (a file that no longer \
        reads is logged and the ones in force kept), and noidr keeps answering. SIGUSR1 \
        writes the metrics (answers by kind, latency histogram, catch-ups, reopens, \
        generation) as one line to stderr, never to stdout. SIGTERM and SIGINT end the line modes at once; the HTTP mode \
        stops accepting, finishes the requests in flight (5 s at most) and exits. The end \
        of stdin ends the line modes.\n\n\
        Monitoring (--http): GET /healthz answers 200, or 503 while the minter cannot be \
        read (not created, NOID/ missing); GET /metrics gives the metrics in the \
        Prometheus text format. Both are on the --http address itself.\n\n\
        See also: noid(1); in /usr/share/doc/noid/, WEB-SERVERS.md (Apache, nginx, \
        systemd) and RESOLUTION.md (what is answered)."
)]
pub struct Args {
    /// Minter directory (the one holding NOID/). Default: the part of the program name
    /// after its first "_" (noidr_fk9 → fk9), else ".". Relative to the current
    /// directory, which Apache sets to the program's own directory.
    #[arg(short = 'f', long = "db", value_name = "DBDIR", value_hint = ValueHint::DirPath)]
    pub db: Option<PathBuf>,

    /// Follow a minter held by PostgreSQL (postgres://user@host/dbname): keep a local
    /// copy of it in the --cache directory, bootstrapped from a snapshot and then
    /// updated from its change log, and answer from that copy. Needs --minter and
    /// --cache. See SCALING.md.
    #[arg(long, value_name = "URL", requires_all = ["minter", "cache"], conflicts_with = "db")]
    pub follow: Option<String>,

    /// The followed minter's name in the --follow database.
    #[arg(long, value_name = "NAME", requires = "follow")]
    pub minter: Option<String>,

    /// Directory of the local copy that --follow keeps (an embedded minter directory,
    /// made at the first start).
    #[arg(long, value_name = "DIR", requires = "follow", value_hint = ValueHint::DirPath)]
    pub cache: Option<PathBuf>,

    /// Seconds between looks at the --follow change log when no commit was notified:
    /// the bound on how old an answer can be.
    #[arg(long, value_name = "SECS", default_value_t = 1.0, requires = "follow")]
    pub poll: f64,

    /// Seconds between checksum comparisons of the --follow copy with the minter (every
    /// key on both sides; a copy that differs is made anew). The copy is also compared
    /// whenever the server is on a new timeline (after a failover). 0: never.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 86_400.0,
        requires = "follow"
    )]
    pub verify: f64,

    /// Line protocol: "noid" (`get ID ELEM` → value or NULL, as the noid manual's
    /// resolver) or "egg" (N2T/EggNog `ID.resolve [HEADERS]` → `redirNNN TARGET`).
    #[arg(long, value_enum, default_value_t = Protocol::Noid)]
    pub protocol: Protocol,

    /// Serve HTTP on ADDR (host:port, or a unix socket path) instead of the stdin/stdout
    /// line protocol; for nginx and Apache mod_proxy. Port 0 lets the system pick a free
    /// port; the address bound is logged once it listens ("noidr: HTTP on ADDR",
    /// with --log-level info).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,

    /// Worker threads of the HTTP server.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub http_threads: usize,

    /// Seconds an HTTP client has to send a whole request head, counted from the
    /// connection (or from the previous answer on a kept-alive one): slow or idle
    /// clients are dropped after it. Longer than nginx's upstream keep-alive (60 s), so
    /// nginx closes its idle connections first.
    #[arg(long, value_name = "SECS", default_value_t = 75.0)]
    pub http_header_timeout: f64,

    /// HTTP connections served at once; more wait in the kernel's accept queue.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub http_max_connections: usize,

    /// HTTP connections served at once from one client address; more are answered 503
    /// and closed at once, so that one client cannot take every connection. Connections
    /// over a unix socket are not counted; behind a front server on TCP, every
    /// connection comes from its address: raise this to --http-max-connections there.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub http_max_per_client: usize,

    /// Seconds the store has to answer a request: a request it has not answered by then
    /// (a hung disk, a network file system gone away) is answered with the protocol's
    /// error line (HTTP: 503), and so is every request after it until the stalled
    /// lookup returns; then noidr resolves again. Under Apache this keeps one stalled
    /// lookup from stalling the whole server (every prg: lookup waits for the one
    /// before it). 0 turns the deadline off.
    #[arg(long, value_name = "SECS", default_value_t = crate::deadline::DEFAULT_SECONDS)]
    pub lookup_deadline: f64,

    /// Count resolutions per identifier and UTC day (redirects by code, misses,
    /// inflections, pages; robots apart from people by their User-Agent) in DBDIR/counts/,
    /// written every --counts-interval seconds; read them with `noid -f DBDIR stats`. No
    /// address and no User-Agent is stored. With --follow they are also shipped to the
    /// minter's database, where every web node's add up (`noid -f DIR stats` of the
    /// minter's directory). See COUNTS.md.
    #[arg(long)]
    pub counts: bool,

    /// Seconds between two writes of the counts: a crash loses at most this much.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, requires = "counts")]
    pub counts_interval: f64,

    /// Redirect-rules file (schemes, NAANs, shoulders, global resolver); default: the
    /// built-in table (doi:, hdl:). An empty file disables all rules.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub rules: Option<PathBuf>,

    /// Prefix registry file: ANVL records for schemes (pdb:), NAANs and prefixes
    /// (ark:/99999, doi:10.5072) and shoulders, with their names, who runs them and
    /// their providers (URL patterns with $id). A truncated identifier answers its
    /// record, `*/ID` lists ID's target at every provider, and ID redirects to the first
    /// provider that is up. Format: RESOLUTION.md, "The prefix registry".
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub registry: Option<PathBuf>,

    /// Check the --registry file and exit: status 0 and a summary on stdout when it is
    /// good, status 2 and the bad line on stderr when it is not.
    #[arg(long, requires = "registry", conflicts_with = "write_registry")]
    pub check_registry: bool,

    /// Write the --registry file in its canonical form (records sorted, elements in
    /// order; comments are not kept) to FILE, "-" for stdout, and exit.
    #[arg(long, value_name = "FILE", requires = "registry", value_hint = ValueHint::FilePath)]
    pub write_registry: Option<PathBuf>,

    /// Probe the registry's providers every SECS seconds: a HEAD of each `probe:` URL
    /// (http:// or https://), up when it answers a status below 400. Redirects and the line protocols then go
    /// to the first provider that is up. 0 (the default): no probes, all count as up.
    #[arg(long, value_name = "SECS", default_value_t = 0.0)]
    pub probe_interval: f64,

    /// Seconds a probe waits to connect and for the answer before counting the provider
    /// down.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    pub probe_timeout: f64,

    /// Also trust the CA certificates in FILE (PEM) when probing https:// URLs, for
    /// providers under a private CA. The system's CA store (/etc/ssl/certs) is always
    /// trusted; a provider whose certificate does not verify, or names another host,
    /// is down (and logged).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub probe_ca: Option<PathBuf>,

    /// What the egg protocol answers for an unknown id: "null" (NULL, Apache's
    /// not-found) or "eggnog" (`redir302 ` with an empty target, as EggNog).
    #[arg(long, value_enum, default_value_t = EggMiss::Null)]
    pub egg_miss: EggMiss,

    /// Writable directory for RocksDB's secondary-instance files (its info log).
    /// Default: a fresh directory under /tmp, removed at exit.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub secondary_dir: Option<PathBuf>,

    /// RocksDB block cache, in MiB (give at least the size of the data for best speed).
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    pub cache_mb: usize,

    /// More log output on stderr (Apache's ErrorLog): -v info, -vv debug, -vvv trace.
    #[arg(short, long, action = clap::ArgAction::Count, conflicts_with = "log_level")]
    pub verbose: u8,

    /// Less log output: errors only.
    #[arg(short, long, conflicts_with_all = ["verbose", "log_level"])]
    pub quiet: bool,

    /// Log level: off, error, warn (default), info, debug, trace.
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<log::LevelFilter>,
}

/// The line protocol spoken on stdin/stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Protocol {
    /// Perl Noid's resolver mode: read-only noid commands, `get ID ELEM`.
    Noid,
    /// EggNog's rrm protocol: `ID.resolve [HEADERS]`.
    Egg,
}

/// Miss answer of the egg protocol (command-line spelling of [`Miss`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EggMiss {
    /// `NULL`.
    Null,
    /// `redir302 ` (empty target).
    Eggnog,
}

/// Where the answers go.
#[derive(Debug, Clone)]
pub enum Mode {
    /// `--check-registry`: print a summary of the registry and exit.
    CheckRegistry,
    /// `--write-registry FILE`: write the registry's canonical text and exit.
    WriteRegistry(PathBuf),
    /// Line protocol on stdin/stdout.
    Lines(Protocol),
    /// HTTP server on this address.
    Http {
        /// host:port or unix socket path.
        addr: String,
        /// Server threads (an event loop each).
        threads: usize,
        /// Server limits.
        limits: noid_http::Config,
    },
}

/// A minter held by PostgreSQL, followed into the local copy in `Config::dbdir`.
/// (Without the `postgres` feature only its location is read, to refuse it.)
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub struct Follow {
    /// The database and the minter's name.
    pub location: noid_store::pg::Location,
    /// The longest wait between looks at the change log.
    pub poll: Duration,
    /// The interval between checksum comparisons (None: never compare).
    pub verify: Option<Duration>,
}

/// Validated settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Minter directory (with --follow, the local copy's).
    pub dbdir: PathBuf,
    /// `--follow`: keep `dbdir` a copy of this minter.
    pub follow: Option<Follow>,
    /// Lines or HTTP.
    pub mode: Mode,
    /// Parsed rules table.
    pub rules: Rules,
    /// The --rules file.
    pub rules_file: Option<PathBuf>,
    /// The prefix registry (empty without --registry), and its file.
    pub registry: Arc<Registry>,
    /// The --registry file.
    pub registry_file: Option<PathBuf>,
    /// Probe interval, timeout and private CA, when probing.
    pub probes: Option<crate::probe::Settings>,
    /// Egg miss answer.
    pub miss: Miss,
    /// Secondary-instance directory chosen by the operator, if any.
    pub secondary_dir: Option<PathBuf>,
    /// RocksDB block cache in bytes.
    pub cache_bytes: usize,
    /// stderr log level.
    pub log_level: log::LevelFilter,
    /// How long the store has to answer a request (`None`: no limit).
    pub deadline: Option<Duration>,
    /// `--counts`: the interval between two writes of the counts.
    pub counts: Option<Duration>,
}

impl Config {
    /// Turn flags into settings; `argv0` is the program name (for `noidr_xxx` links).
    pub fn from_args(args: Args, argv0: &str) -> anyhow::Result<Config> {
        let dbdir = args
            .db
            .clone()
            .or_else(|| args.cache.clone())
            .or_else(|| Layout::dbdir_from_program_name(argv0))
            .unwrap_or_else(|| PathBuf::from("."));
        let follow = follow(&args)?;
        let rules = read_rules(args.rules.as_deref())?;
        let registry = read_registry(args.registry.as_deref())?;
        let probes = probes(&args)?;
        let deadline = lookup_deadline(&args)?;
        let counts = counts(&args)?;
        let mode = mode(&args, deadline)?;
        let log_level = log_level(&args);
        Ok(Config {
            dbdir,
            follow,
            mode,
            rules,
            rules_file: args.rules,
            registry: Arc::new(registry),
            registry_file: args.registry,
            probes,
            miss: match args.egg_miss {
                EggMiss::Null => Miss::Null,
                EggMiss::Eggnog => Miss::Eggnog,
            },
            secondary_dir: args.secondary_dir,
            cache_bytes: args.cache_mb.max(1) << 20,
            log_level,
            deadline,
            counts,
        })
    }
}

/// `--counts` and its interval.
fn counts(args: &Args) -> anyhow::Result<Option<Duration>> {
    if !args.counts {
        return Ok(None);
    }
    if !(args.counts_interval >= 0.1 && args.counts_interval <= 3_600.0) {
        bail!("--counts-interval must be at least 0.1 and at most 3600 seconds");
    }
    Ok(Some(Duration::from_secs_f64(args.counts_interval)))
}

/// `--follow` with `--minter`: the PostgreSQL minter to copy, and how often.
fn follow(args: &Args) -> anyhow::Result<Option<Follow>> {
    match (&args.follow, &args.minter) {
        (Some(url), Some(name)) => {
            if !(args.poll > 0.0 && args.poll <= 3_600.0) {
                bail!("--poll must be more than 0 and at most 3600 seconds");
            }
            if !(args.verify >= 0.0 && args.verify <= 31_536_000.0) {
                bail!("--verify must be 0 (never) or at most 31536000 seconds");
            }
            Ok(Some(Follow {
                location: noid_store::pg::Location::new(url, name)
                    .map_err(|e| anyhow::anyhow!("{}", e.describe("--follow")))?,
                poll: Duration::from_secs_f64(args.poll),
                verify: (args.verify != 0.0).then(|| Duration::from_secs_f64(args.verify)),
            }))
        }
        _ => Ok(None),
    }
}

/// `--probe-interval`, `--probe-timeout` and `--probe-ca`: how often providers are
/// probed, how long a probe may take, and a private CA; `None`: no probes.
fn probes(args: &Args) -> anyhow::Result<Option<crate::probe::Settings>> {
    let probes = match args.probe_interval {
        0.0 => None,
        i if i > 0.0 && i <= 86_400.0 => {
            if !(args.probe_timeout > 0.0 && args.probe_timeout <= 3_600.0) {
                bail!("--probe-timeout must be more than 0 and at most 3600 seconds");
            }
            if args.registry.is_none() {
                bail!("--probe-interval needs --registry (the providers to probe)");
            }
            Some(crate::probe::Settings {
                interval: Duration::from_secs_f64(i),
                timeout: Duration::from_secs_f64(args.probe_timeout),
                ca: args.probe_ca.clone(),
            })
        }
        _ => bail!("--probe-interval must be 0 (no probes) or more, at most 86400 seconds"),
    };
    if probes.is_none() && args.probe_ca.is_some() {
        bail!("--probe-ca needs --probe-interval (it is for the probes)");
    }
    Ok(probes)
}

/// `--lookup-deadline`; `None`: no deadline.
fn lookup_deadline(args: &Args) -> anyhow::Result<Option<Duration>> {
    match args.lookup_deadline {
        0.0 => Ok(None),
        s if (0.01..=86_400.0).contains(&s) => Ok(Some(Duration::from_secs_f64(s))),
        _ => bail!("--lookup-deadline must be 0 (none) or from 0.01 to 86400 seconds"),
    }
}

/// What noidr does: the line protocols, HTTP (within its limits and `deadline`), or a
/// registry task.
fn mode(args: &Args, deadline: Option<Duration>) -> anyhow::Result<Mode> {
    match &args.http {
        _ if args.check_registry => Ok(Mode::CheckRegistry),
        _ if args.write_registry.is_some() => Ok(Mode::WriteRegistry(
            args.write_registry.clone().unwrap_or_default(),
        )),
        Some(addr) => {
            if args.http_threads == 0 {
                bail!("--http-threads must be at least 1");
            }
            if !(args.http_header_timeout > 0.0 && args.http_header_timeout <= 86_400.0) {
                bail!("--http-header-timeout must be more than 0 and at most 86400 seconds");
            }
            if args.http_max_connections == 0 {
                bail!("--http-max-connections must be at least 1");
            }
            if args.http_max_per_client == 0 {
                bail!("--http-max-per-client must be at least 1");
            }
            Ok(Mode::Http {
                addr: addr.clone(),
                threads: args.http_threads,
                limits: noid_http::Config {
                    header_read_timeout: Duration::from_secs_f64(args.http_header_timeout),
                    max_connections: args.http_max_connections,
                    max_connections_per_client: args.http_max_per_client,
                    lookup_deadline: deadline,
                    ..noid_http::Config::default()
                },
            })
        }
        None => Ok(Mode::Lines(args.protocol)),
    }
}

/// The log level: `--log-level`, else `--quiet` or as many `-v`.
fn log_level(args: &Args) -> log::LevelFilter {
    match (args.log_level, args.quiet, args.verbose) {
        (Some(l), _, _) => l,
        (None, true, _) => log::LevelFilter::Error,
        (None, false, 0) => log::LevelFilter::Warn,
        (None, false, 1) => log::LevelFilter::Info,
        (None, false, 2) => log::LevelFilter::Debug,
        (None, false, _) => log::LevelFilter::Trace,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use clap::CommandFactory;

    use super::*;

    fn config(argv: &[&str]) -> anyhow::Result<Config> {
        Config::from_args(Args::try_parse_from(argv)?, argv[0])
    }

    #[test]
    fn dbdir_resolution() {
        assert_eq!(config(&["noidr"]).unwrap().dbdir, PathBuf::from("."));
        assert_eq!(
            config(&["/srv/nd/noidr_kt5"]).unwrap().dbdir,
            PathBuf::from("kt5")
        );
        assert_eq!(config(&["noidr_a_b"]).unwrap().dbdir, PathBuf::from("a_b"));
        assert_eq!(
            config(&["noidr_kt5", "-f", "/x"]).unwrap().dbdir,
            PathBuf::from("/x")
        );
        assert_eq!(
            config(&["noidr", "--db", "y"]).unwrap().dbdir,
            PathBuf::from("y")
        );
        assert_eq!(config(&["noidr_"]).unwrap().dbdir, PathBuf::from("."));
    }

    #[test]
    fn log_levels() {
        let lvl = |a: &[&str]| config(a).unwrap().log_level;
        assert_eq!(lvl(&["noidr"]), log::LevelFilter::Warn);
        assert_eq!(lvl(&["noidr", "-q"]), log::LevelFilter::Error);
        assert_eq!(lvl(&["noidr", "-vv"]), log::LevelFilter::Debug);
        assert_eq!(lvl(&["noidr", "--log-level", "off"]), log::LevelFilter::Off);
        assert!(config(&["noidr", "-q", "-v"]).is_err());
    }

    #[test]
    fn protocols_and_modes() {
        let c = config(&["noidr", "--protocol", "egg", "--egg-miss", "eggnog"]).unwrap();
        assert!(matches!(c.mode, Mode::Lines(Protocol::Egg)));
        assert_eq!(c.miss, Miss::Eggnog);
        let c = config(&["noidr", "--http", "127.0.0.1:0"]).unwrap();
        assert!(matches!(c.mode, Mode::Http { .. }));
        let c = config(&["noidr", "--http", ":0", "--http-header-timeout", "2.5"]).unwrap();
        match c.mode {
            Mode::Http { limits, .. } => {
                assert_eq!(limits.header_read_timeout, Duration::from_millis(2500));
                assert_eq!(limits.max_connections, 1024);
                assert_eq!(limits.max_connections_per_client, 256);
            }
            _ => panic!("--http is HTTP mode"),
        }
        assert!(config(&["noidr", "--http", ":0", "--http-header-timeout", "0"]).is_err());
        assert!(config(&["noidr", "--http", ":0", "--http-header-timeout", "NaN"]).is_err());
        assert!(config(&["noidr", "--http", ":0", "--http-max-connections", "0"]).is_err());
        assert!(config(&["noidr", "--http", ":0", "--http-max-per-client", "0"]).is_err());
        assert!(config(&["noidr", "--protocol", "bogus"]).is_err());
        assert!(config(&["noidr", "--rules", "/nonexistent/rules"]).is_err());
        assert_eq!(config(&["noidr"]).unwrap().rules, Rules::builtin());
    }

    #[test]
    fn registry_and_probes() {
        let dir = tempfile::tempdir().unwrap();
        let reg = dir.path().join("reg");
        std::fs::write(&reg, "prefix: pdb:\nprovider: a https://a.org/$id\n").unwrap();
        let reg = reg.to_str().unwrap();
        let c = config(&["noidr", "--registry", reg]).unwrap();
        assert_eq!(c.registry.records().len(), 1);
        assert_eq!(c.probes, None);
        let c = config(&["noidr", "--registry", reg, "--probe-interval", "0.5"]).unwrap();
        assert_eq!(
            c.probes,
            Some(crate::probe::Settings {
                interval: Duration::from_millis(500),
                timeout: Duration::from_secs(2),
                ca: None
            })
        );
        let c = config(&[
            "noidr",
            "--registry",
            reg,
            "--probe-interval",
            "1",
            "--probe-ca",
            "/etc/ca.pem",
        ])
        .unwrap();
        assert_eq!(c.probes.unwrap().ca, Some(PathBuf::from("/etc/ca.pem")));
        let c = config(&["noidr", "--registry", reg, "--check-registry"]).unwrap();
        assert!(matches!(c.mode, Mode::CheckRegistry));
        let c = config(&["noidr", "--registry", reg, "--write-registry", "-"]).unwrap();
        assert!(matches!(c.mode, Mode::WriteRegistry(p) if p == Path::new("-")));
        assert!(config(&["noidr", "--check-registry"]).is_err());
        assert!(config(&["noidr", "--registry", reg, "--probe-interval", "-1"]).is_err());
        assert!(config(&["noidr", "--registry", reg, "--probe-interval", "NaN"]).is_err());
        assert!(config(&[
            "noidr",
            "--registry",
            reg,
            "--probe-interval",
            "1",
            "--probe-timeout",
            "0"
        ])
        .is_err());
        assert!(config(&["noidr", "--probe-interval", "1"]).is_err());
        assert!(config(&["noidr", "--registry", "/nonexistent/reg"]).is_err());
    }

    #[test]
    fn lookup_deadline() {
        let d = |a: &[&str]| config(a).map(|c| c.deadline);
        assert_eq!(d(&["noidr"]).unwrap(), Some(Duration::from_secs(2)));
        assert_eq!(
            d(&["noidr", "--lookup-deadline", "0.25"]).unwrap(),
            Some(Duration::from_millis(250))
        );
        assert_eq!(d(&["noidr", "--lookup-deadline", "0"]).unwrap(), None);
        for bad in ["0.001", "-1", "NaN", "100000", "x"] {
            assert!(d(&["noidr", "--lookup-deadline", bad]).is_err(), "{bad}");
        }
    }

    /// The package's noidr(8) and shell completions are what this definition makes.
    #[test]
    fn man_page_and_completions_are_in_sync() {
        noid_package::check_generated(Args::command(), "8");
    }
}
