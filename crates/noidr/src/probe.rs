//! Health probes of the prefix registry's providers (`--probe-interval`): one thread
//! sends a `HEAD` to each provider's `probe:` URL of the registry in force, one after
//! the other, then sleeps the interval, and records each outcome in the registry's health flags, which every
//! resolution reads (the line protocols and HTTP alike). A provider is up when its probe
//! answers a status below 400 within `--probe-timeout`; down on any other status, a
//! refused or timed-out connection, or a malformed answer.
//!
//! Probes speak plain HTTP/1.1 over `std::net` (the registry refuses `https://` probe
//! URLs): a status line is all they read, parsed by `httparse`.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use noid_resolve::registry::Probe;
use noid_resolve::Registry;

use crate::current::Current;

/// Start the probe thread; it runs until the process exits. Each round probes the
/// providers of the registry in force (SIGHUP may have replaced it).
pub fn spawn(current: Arc<Current>, interval: Duration, timeout: Duration) -> io::Result<()> {
    if current.resolver().registry().probes().is_empty() {
        log::warn!("--probe-interval given, but no provider of the registry has a probe URL");
    }
    std::thread::Builder::new()
        .name("noidr-probe".into())
        .spawn(move || loop {
            let registry = current.resolver().registry().clone();
            for p in &registry.probes() {
                probe_once(&registry, p, timeout);
            }
            drop(registry);
            std::thread::sleep(interval);
        })?;
    Ok(())
}

/// Probe one provider and record the outcome, logging a change of state.
fn probe_once(registry: &Registry, p: &Probe, timeout: Duration) {
    let outcome = head(&p.url, timeout);
    let up = matches!(outcome, Ok(code) if code < 400);
    if registry.set_healthy(p.slot, up) {
        match &outcome {
            Ok(code) if up => log::warn!("provider {} of {} is up ({code})", p.code, p.prefix),
            Ok(code) => log::warn!(
                "provider {} of {} is down: {} answered {code}",
                p.code,
                p.prefix,
                p.url
            ),
            Err(e) => log::warn!(
                "provider {} of {} is down: {}: {e}",
                p.code,
                p.prefix,
                p.url
            ),
        }
    }
}

/// `HEAD url`: the status code of the answer.
fn head(url: &str, timeout: Duration) -> io::Result<u16> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| io::Error::other("not an http:// URL"))?;
    let split = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(split);
    let path = match path.starts_with('/') {
        true => path.to_string(),
        false => format!("/{path}"),
    };
    let addr = match authority.rsplit_once(':') {
        Some((_, port))
            if port.bytes().all(|c| c.is_ascii_digit()) && !authority.ends_with(']') =>
        {
            authority.to_string()
        }
        _ => format!("{authority}:80"),
    };
    let sock = addr
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::other("host has no address"))?;
    let mut stream = TcpStream::connect_timeout(&sock, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(
        format!(
            "HEAD {path} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: noidr-probe\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    )?;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::other("connection closed before a status line"));
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut res = httparse::Response::new(&mut headers);
        match res.parse(&buf) {
            Ok(httparse::Status::Complete(_)) => {
                return res.code.ok_or_else(|| io::Error::other("no status code"))
            }
            Ok(httparse::Status::Partial) if buf.len() < 16 * 1024 => continue,
            Ok(httparse::Status::Partial) => return Err(io::Error::other("answer head too long")),
            Err(e) => return Err(io::Error::other(format!("malformed answer: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A one-shot server answering `answer` to one request; what it received.
    fn serve_once(answer: &'static str) -> (String, std::thread::JoinHandle<String>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let h = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut got = Vec::new();
            let mut b = [0u8; 512];
            while !got.ends_with(b"\r\n\r\n") {
                let n = s.read(&mut b).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&b[..n]);
            }
            s.write_all(answer.as_bytes()).unwrap();
            String::from_utf8(got).unwrap()
        });
        (addr, h)
    }

    #[test]
    fn head_reads_the_status() {
        let (addr, h) = serve_once("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n");
        let code = head(
            &format!("http://{addr}/health?x=1"),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(code, 204);
        assert_eq!(
            h.join().unwrap(),
            format!("HEAD /health?x=1 HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: noidr-probe\r\nConnection: close\r\n\r\n")
        );
        let (addr, h) = serve_once("HTTP/1.0 503 Busy\r\n\r\n");
        assert_eq!(
            head(&format!("http://{addr}"), Duration::from_secs(10)).unwrap(),
            503
        );
        assert!(h.join().unwrap().starts_with("HEAD / HTTP/1.1\r\n"));
        let (addr, h) = serve_once("garbage\r\n\r\n");
        assert!(head(&format!("http://{addr}/"), Duration::from_secs(10)).is_err());
        h.join().unwrap();
    }

    #[test]
    fn refused_is_down() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        assert!(head(&format!("http://{addr}/"), Duration::from_secs(10)).is_err());
    }
}
