//! Virtual hosts on loopback for scripts/bench-links.sh: `bench-hosts N` listens on N
//! ports of 127.0.0.1 (one runtime, two threads), answers every request `200` with a
//! `text/plain` body, and prints the ports on one line. Each line it then reads on
//! standard input is a file name: it writes there the requests answered since the
//! last such line and the most requests any one port had in flight at once, and
//! starts counting again. It exits at the end of its input.

use std::io::BufRead;

use noid_links::testing::{Reply, Server};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .expect("usage: bench-hosts N");
    let hosts: Vec<Server> = Server::http_hosts(n, 2, |_| {
        Reply::status(200).header("Content-Type", "text/plain")
    })
    .into_iter()
    .map(Server::unlogged)
    .collect();
    let ports: Vec<String> = hosts.iter().map(|h| h.addr.port().to_string()).collect();
    println!("{}", ports.join(" "));
    for line in std::io::stdin().lock().lines() {
        let Ok(path) = line else { break };
        let requests: usize = hosts.iter().map(Server::requests).sum();
        let most = hosts.iter().map(Server::most_in_flight).max().unwrap_or(0);
        hosts.iter().for_each(Server::reset);
        let stats = format!("requests {requests}\nmost_in_flight_per_host {most}\n");
        std::fs::write(path.trim(), stats).expect("the stats file");
    }
}
