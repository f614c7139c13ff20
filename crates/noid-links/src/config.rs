//! How the checker behaves towards the sites it asks ([`CheckerConfig`]) and how it
//! judges what it saw over time ([`Policy`]). The defaults are docs/LINKS.md's.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use ipnet::IpNet;

/// How the checker asks: how many requests at once, how often per host, how long it
/// waits, who it says it is, which addresses it may reach.
#[derive(Debug, Clone)]
pub struct CheckerConfig {
    /// Requests in flight at once, over every host.
    pub concurrency: usize,
    /// Requests in flight at once to one host (scheme, name and port).
    pub per_host: usize,
    /// The least time between the starts of two requests to one host.
    pub host_interval: Duration,
    /// How long one request may take, connection and answer included.
    pub timeout: Duration,
    /// Redirects followed before the target is called failing.
    pub max_redirects: usize,
    /// The `User-Agent` sent: the checker's name and a contact URL.
    pub user_agent: String,
    /// Address ranges the guard lets the checker reach although they are special
    /// purpose (loopback, private …): a site whose targets live on its intranet.
    pub allow_net: Vec<IpNet>,
    /// A PEM file of CA certificates trusted beside the system's (a private CA).
    pub ca_file: Option<PathBuf>,
    /// Names answered without DNS (tests and benchmarks: virtual hosts on loopback).
    /// The guard still judges the address.
    pub resolve: Vec<(String, IpAddr)>,
    /// Whether an HTML answer's start is read (a ranged GET) for its fingerprint, the
    /// host's not-found page and the parking and challenge patterns. Without it only
    /// `ok`, `redirected`, `failing`, `broken` and `blocked` can be told.
    pub read_pages: bool,
    /// The longest `Retry-After` waited for before asking again once; a longer one
    /// leaves the target as seen.
    pub max_retry_after: Duration,
}

impl CheckerConfig {
    /// The defaults, with a User-Agent naming `contact` (a URL where a site's
    /// operator can reach whoever runs the checker).
    pub fn new(contact: &str) -> CheckerConfig {
        CheckerConfig {
            concurrency: 32,
            per_host: 2,
            host_interval: Duration::from_millis(500),
            timeout: Duration::from_secs(20),
            max_redirects: 10,
            user_agent: user_agent(contact),
            allow_net: Vec::new(),
            ca_file: None,
            resolve: Vec::new(),
            read_pages: true,
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// `noid-links/VERSION (+CONTACT)`, as crawlers name themselves.
pub fn user_agent(contact: &str) -> String {
    format!(
        "noid-links/{} (link checker; +{contact})",
        env!("CARGO_PKG_VERSION")
    )
}

/// How what was seen over time becomes a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Failures in a row before a target is `broken` (K).
    pub failures: u32,
    /// The least time from the first of those failures to the last (D).
    pub span: Duration,
    /// Differing bits of the text's 64-bit similarity hash beyond which a page has
    /// `drifted` (a changed title is drift too).
    pub drift_bits: u32,
    /// A certificate expiring within this is noted on an `ok` target.
    pub cert_warning: Duration,
}

impl Default for Policy {
    /// K = 3 failures over at least D = 72 hours; drift beyond 12 bits of 64; 14 days.
    fn default() -> Policy {
        Policy {
            failures: 3,
            span: Duration::from_secs(72 * 3600),
            drift_bits: 12,
            cert_warning: Duration::from_secs(14 * 86_400),
        }
    }
}

/// A value of an option that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// A duration as people write it (`72h`, `30s`, `0s`, `1h 30m`).
pub fn parse_duration(s: &str) -> Result<Duration, ConfigError> {
    humantime::parse_duration(s.trim()).map_err(|e| {
        ConfigError(format!(
            "{s:?} is not a duration ({e}); write a number and a unit, e.g. 0s, 90s, 72h, 14days"
        ))
    })
}

/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is
/// that one address.
pub fn parse_cidr(s: &str) -> Result<IpNet, ConfigError> {
    let s = s.trim();
    if let Ok(net) = s.parse::<IpNet>() {
        return Ok(net.trunc());
    }
    s.parse::<IpAddr>().map(IpNet::from).map_err(|_| {
        ConfigError(format!(
            "{s:?} is not an address range; write one in CIDR notation, e.g. 10.1.0.0/16 or fd00::/8"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_ranges_are_read_as_written_or_refused() {
        assert_eq!(parse_duration("0s").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("72h").unwrap(), Duration::from_secs(259_200));
        assert!(parse_duration("3 fortnights").is_err());
        assert!(parse_duration("12").unwrap_err().0.contains("e.g. 0s"));
        assert_eq!(
            parse_cidr("10.1.2.3/16").unwrap(),
            "10.1.0.0/16".parse::<IpNet>().unwrap()
        );
        assert_eq!(
            parse_cidr("::1").unwrap(),
            "::1/128".parse::<IpNet>().unwrap()
        );
        assert!(parse_cidr("10.0.0.0/33").is_err());
        assert!(parse_cidr("intranet").is_err());
    }
}
