//! Connections open per client address, over all server threads: at most
//! [`Config::max_connections_per_client`](crate::Config::max_connections_per_client)
//! each, so that one client's slow or idle connections cannot fill
//! [`Config::max_connections`](crate::Config::max_connections) for everyone. A
//! connection over its client's cap is answered `503` and closed as soon as it is
//! accepted. Connections over the unix socket (the front server's) are not counted
//! here.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// The count of open connections by client address.
pub(crate) struct Clients {
    cap: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

impl Clients {
    pub(crate) fn new(cap: usize) -> Clients {
        Clients {
            cap: cap.max(1),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a connection of `ip`, unless `ip` has its cap open already.
    pub(crate) fn admit(&self, ip: IpAddr) -> bool {
        let mut open = self.open.lock().expect("clients");
        let n = open.entry(ip).or_insert(0);
        if *n >= self.cap {
            return false;
        }
        *n += 1;
        true
    }

    /// A connection of `ip` closed.
    pub(crate) fn release(&self, ip: IpAddr) {
        let mut open = self.open.lock().expect("clients");
        if let Some(n) = open.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&ip);
            }
        }
    }

    /// What a connection over the cap is sent before it is closed.
    pub(crate) fn refusal(&self) -> String {
        let body = format!(
            "too many connections from your address (at most {})\n",
            self.cap
        );
        format!(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_address_has_its_own_cap_and_gets_its_places_back() {
        let c = Clients::new(2);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(c.admit(a));
        assert!(c.admit(a));
        assert!(!c.admit(a));
        assert!(c.admit(b));
        c.release(a);
        assert!(c.admit(a));
        assert!(!c.admit(a));
    }
}
