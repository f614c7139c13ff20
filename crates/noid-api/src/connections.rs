//! How many connections `noid serve` holds open: at most `[serve] max_connections` in
//! all (the server accepts no more until one closes: the rest wait in the kernel's
//! accept queue and hold none of the process's file descriptors), and at most
//! `[serve] max_connections_per_client` from one client address (more are closed as
//! soon as they are accepted), so that one client's slow or idle connections cannot
//! take the server from everyone else. The front server (its `[front] addresses`, the
//! unix socket) speaks for many clients and counts only towards the total.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use ipnet::IpNet;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use noid_binder::api::ServeConfig;

/// The connections open, in all and by client address.
pub struct Connections {
    total: Arc<Semaphore>,
    per_client: usize,
    /// Addresses with no cap of their own (the front server's).
    exempt: Vec<IpNet>,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One connection's place: given back when it is dropped (the connection closed).
pub struct Admitted {
    _total: OwnedSemaphorePermit,
    client: Option<(Arc<Connections>, IpAddr)>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if let Some((c, ip)) = self.client.take() {
            let mut open = c.open.lock().expect("connections");
            if let Some(n) = open.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&ip);
                }
            }
        }
    }
}

impl Connections {
    /// The caps of `serve`; `exempt`: the front server's addresses.
    pub fn new(serve: &ServeConfig, exempt: Vec<IpNet>) -> Arc<Connections> {
        Arc::new(Connections {
            total: Arc::new(Semaphore::new(serve.max_connections)),
            per_client: serve.max_connections_per_client,
            exempt,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A place among all connections: waits while `max_connections` are open. Taken
    /// before `accept`, so that a full server leaves new connections in the kernel's
    /// queue instead of accepting and dropping them.
    pub async fn place(&self) -> OwnedSemaphorePermit {
        self.total
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed")
    }

    /// Admit a connection accepted from `ip` (`None`: the unix socket) into `place`,
    /// or `None` when that address has its cap of connections open already.
    pub fn admit(
        self: &Arc<Self>,
        place: OwnedSemaphorePermit,
        ip: Option<IpAddr>,
    ) -> Option<Admitted> {
        let capped = ip.filter(|ip| !self.exempt.iter().any(|n| n.contains(ip)));
        if let Some(ip) = capped {
            let mut open = self.open.lock().expect("connections");
            let n = open.entry(ip).or_insert(0);
            if *n >= self.per_client {
                return None;
            }
            *n += 1;
        }
        Some(Admitted {
            _total: place,
            client: capped.map(|ip| (self.clone(), ip)),
        })
    }

    /// The per-client cap (for the refusal's text).
    pub fn per_client(&self) -> usize {
        self.per_client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(total: usize, per_client: usize, exempt: &[&str]) -> Arc<Connections> {
        let serve = ServeConfig {
            max_connections: total,
            max_connections_per_client: per_client,
            ..ServeConfig::default()
        };
        Connections::new(&serve, exempt.iter().map(|n| n.parse().unwrap()).collect())
    }

    #[tokio::test]
    async fn a_client_gets_its_cap_and_its_places_back_when_they_close() {
        let c = caps(10, 2, &[]);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let first = c.admit(c.place().await, Some(a)).unwrap();
        let _second = c.admit(c.place().await, Some(a)).unwrap();
        assert!(c.admit(c.place().await, Some(a)).is_none());
        assert!(c.admit(c.place().await, Some(b)).is_some());
        drop(first);
        assert!(c.admit(c.place().await, Some(a)).is_some());
    }

    #[tokio::test]
    async fn the_front_server_and_the_unix_socket_count_only_in_the_total() {
        let c = caps(3, 1, &["127.0.0.0/8"]);
        let front: IpAddr = "127.0.0.1".parse().unwrap();
        let kept: Vec<_> = (0..3)
            .map(|i| {
                let place = c.total.clone().try_acquire_owned().unwrap();
                c.admit(place, if i == 0 { None } else { Some(front) })
                    .unwrap()
            })
            .collect();
        assert_eq!(kept.len(), 3);
        assert!(
            c.total.clone().try_acquire_owned().is_err(),
            "the total is full"
        );
    }
}
