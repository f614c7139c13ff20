//! The address guard: the checker asks URLs that populators wrote, so it must not
//! become a way into the site's own network. Every address it connects to is judged
//! here: a name's addresses after DNS (the resolver below hands the client only the
//! addresses allowed), and a literal address in a URL before each request, the first
//! and every redirect's. Special-purpose ranges (loopback, private, link-local, shared,
//! documentation, multicast, IPv4 in IPv6 forms …, IANA's registries) are refused
//! unless an allow-list opens them.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;

/// Refused by default, IPv4 (IANA's IPv4 Special-Purpose Address Registry, and
/// multicast and the reserved class E).
const SPECIAL_V4: &[&str] = &[
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.31.196.0/24",
    "192.52.193.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "192.175.48.0/24",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
];

/// Refused by default, IPv6 (IANA's IPv6 Special-Purpose Address Registry, unique
/// local, link-local, site-local and multicast). IPv4-mapped addresses are judged as
/// the IPv4 address they carry.
const SPECIAL_V6: &[&str] = &[
    "::/128",
    "::1/128",
    "64:ff9b::/96",
    "64:ff9b:1::/48",
    "100::/64",
    "2001::/23",
    "2001:db8::/32",
    "2002::/16",
    "3fff::/20",
    "5f00::/16",
    "fc00::/7",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
];

/// Which addresses the checker may connect to.
#[derive(Debug, Clone, Default)]
pub struct AddressGuard {
    allow: Vec<IpNet>,
}

impl AddressGuard {
    /// Every public address, and the special-purpose ones inside `allow`.
    pub fn new(allow: &[IpNet]) -> AddressGuard {
        AddressGuard {
            allow: allow.to_vec(),
        }
    }

    /// Whether the checker may connect to `ip`.
    pub fn permits(&self, ip: IpAddr) -> bool {
        let ip = unmapped(ip);
        if self.allow.iter().any(|net| net.contains(&ip)) {
            return true;
        }
        !is_special(ip)
    }

    /// `Err` naming `ip` when it is refused.
    pub fn check(&self, ip: IpAddr) -> Result<(), NotAllowed> {
        if self.permits(ip) {
            Ok(())
        } else {
            Err(NotAllowed(unmapped(ip)))
        }
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is.
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

/// Whether `ip` is in a special-purpose range.
pub fn is_special(ip: IpAddr) -> bool {
    match unmapped(ip) {
        IpAddr::V4(v4) => in_ranges(SPECIAL_V4, IpAddr::V4(v4)) || v4 == Ipv4Addr::BROADCAST,
        IpAddr::V6(v6) => in_ranges(SPECIAL_V6, IpAddr::V6(v6)) || v6 == Ipv6Addr::UNSPECIFIED,
    }
}

fn in_ranges(ranges: &[&str], ip: IpAddr) -> bool {
    ranges
        .iter()
        .any(|r| r.parse::<IpNet>().is_ok_and(|net| net.contains(&ip)))
}

/// A connection the guard refused: the address it would have gone to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAllowed(pub IpAddr);

impl std::fmt::Display for NotAllowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "address {} not allowed (a special-purpose range; --allow-net opens one)",
            self.0
        )
    }
}

impl std::error::Error for NotAllowed {}

/// The client's resolver: names answered from the overrides, else by the system's
/// resolver, and only the addresses the guard permits handed on. A name with none
/// left fails with [`NotAllowed`].
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    guard: AddressGuard,
    overrides: Arc<HashMap<String, IpAddr>>,
}

impl GuardedResolver {
    /// A resolver judged by `guard`, answering `overrides` itself.
    pub fn new(guard: AddressGuard, overrides: &[(String, IpAddr)]) -> GuardedResolver {
        GuardedResolver {
            guard,
            overrides: Arc::new(
                overrides
                    .iter()
                    .map(|(name, ip)| (name.to_ascii_lowercase(), *ip))
                    .collect(),
            ),
        }
    }

    /// The permitted addresses of `name`.
    pub async fn lookup(&self, name: &str) -> Result<Vec<SocketAddr>, ResolveError> {
        let found: Vec<SocketAddr> = match self.overrides.get(&name.to_ascii_lowercase()) {
            Some(ip) => vec![SocketAddr::new(*ip, 0)],
            None => tokio::net::lookup_host((name, 0))
                .await
                .map_err(|e| ResolveError::Dns(format!("{name}: {e}")))?
                .collect(),
        };
        let mut refused = None;
        let allowed: Vec<SocketAddr> = found
            .into_iter()
            .filter(|a| match self.guard.check(a.ip()) {
                Ok(()) => true,
                Err(e) => {
                    refused.get_or_insert(e);
                    false
                }
            })
            .collect();
        match (allowed.is_empty(), refused) {
            (true, Some(e)) => Err(ResolveError::NotAllowed(e)),
            (true, None) => Err(ResolveError::Dns(format!("{name}: no address"))),
            _ => Ok(allowed),
        }
    }
}

/// Why a name gave no address to connect to.
#[derive(Debug, Clone)]
pub enum ResolveError {
    /// DNS failed or found nothing.
    Dns(String),
    /// Every address found was refused.
    NotAllowed(NotAllowed),
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResolveError::Dns(e) => write!(f, "dns: {e}"),
            ResolveError::NotAllowed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ResolveError {}

/// The HTTP connector's resolver (hyper-util's `HttpConnector` calls it per name).
impl tower_service::Service<hyper_util::client::legacy::connect::dns::Name> for GuardedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = ResolveError;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, ResolveError>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), ResolveError>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: hyper_util::client::legacy::connect::dns::Name) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.lookup(name.as_str()).await?.into_iter()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn special_ranges_are_refused_unless_allowed() {
        let guard = AddressGuard::default();
        for refused in [
            "127.0.0.1",
            "10.20.30.40",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd12:3456::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2001:db8::1",
        ] {
            assert!(!guard.permits(ip(refused)), "{refused}");
        }
        for public in ["93.184.215.14", "8.8.8.8", "2606:4700::1111", "172.32.0.1"] {
            assert!(guard.permits(ip(public)), "{public}");
        }
        let intranet = AddressGuard::new(&["10.1.0.0/16".parse().unwrap()]);
        assert!(intranet.permits(ip("10.1.2.3")));
        assert!(intranet.permits(ip("::ffff:10.1.2.3")));
        assert!(!intranet.permits(ip("10.2.0.1")));
        assert_eq!(
            guard.check(ip("::ffff:127.0.0.1")).unwrap_err(),
            NotAllowed(ip("127.0.0.1"))
        );
    }
}
